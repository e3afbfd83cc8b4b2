//! `[[algorithm]]` tables expanded: each combination of swept values one labelled structure,
//! its memory sizes and its family.

use super::refusals::{ignored_in_mode, structure_error};
use crate::plan::error::{ConfigError, Source};
use crate::plan::units::parse_bits;
use crate::plan::{Registry, StructureSpec};
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;

/// One labelled structure of the sweep.
#[derive(Debug, Clone)]
pub struct Algorithm {
    pub spec: Arc<dyn StructureSpec>,
    pub label: String,
    /// The swept keys' values as written (unscaled), `(key, value)` in the table's order.
    pub swept: Vec<(String, String)>,
    /// The configuration's name: the label, with the swept values when a `label` key names
    /// several configurations (`BSBF k=2`); the label itself otherwise.
    pub config: String,
    /// Its `[[algorithm]]` table (for errors).
    pub span: Range<usize>,
    /// The sizes it runs at (`memory` key), if any: grid sizes it is restricted to, and
    /// sizes beyond the grid (an exact baseline at its full cost).
    pub only_memory: Option<Vec<u64>>,
    /// Its family (`family` key, default the label): near-twins (the same structure, another
    /// parameter) that the leaderboard counts as one entry, shown by its best member.
    pub family: String,
    /// The keys written in its table other than `name`, `label` and `memory` (for errors).
    pub keys: Vec<String>,
}

/// Every structure of the sweep, in order. `label` is ours, `memory` restricts the structure
/// to some grid sizes; the other keys are the structure's own (a swept key makes one
/// structure per value, labelled `name key=value`).
pub fn expand(
    src: Source<'_>,
    tables: &[Spanned<toml::Table>],
    registry: &Registry,
) -> Result<Vec<Algorithm>, ConfigError> {
    if tables.is_empty() {
        return Err(src.at_key(
            src.whole(),
            "algorithm",
            "at least one [[algorithm]] is needed",
        ));
    }
    let mut out: Vec<Algorithm> = Vec::new();
    for alg in tables {
        let span = alg.span();
        let mut table = alg.get_ref().clone();
        let only_memory = match table.remove("memory") {
            None => None,
            Some(v) => Some(restricted_memory(src, &span, &v)?),
        };
        let family = match table.remove("family") {
            None => None,
            Some(toml::Value::String(f)) if !f.trim().is_empty() => Some(f),
            Some(_) => {
                return Err(src.at_key(span.clone(), "family", "must be a non-empty string"));
            }
        };
        let swept: Vec<String> = table
            .iter()
            .filter(|(k, v)| v.is_array() && k.as_str() != "label")
            .map(|(k, _)| k.clone())
            .collect();
        for key in &swept {
            crate::plan::validate::sweep::repeated_value(src, &span, key, &table[key])?;
        }
        for mut combo in crate::plan::validate::sweep::expand(&table) {
            let swept_values: Vec<(String, String)> = swept
                .iter()
                .map(|k| (k.clone(), render_value(&combo[k])))
                .collect();
            let labelled = combo.contains_key("label");
            let label = label(src, &span, &mut combo, &swept_values)?;
            let config = if labelled && !swept_values.is_empty() {
                config_name(&label, &swept_values)
            } else {
                label.clone()
            };
            // Two [[algorithm]] tables may share a label at disjoint memory sizes (a Bloom
            // filter whose k depends on the memory), never at one size. (One table's sweep
            // under one label is told apart by the swept parameter.)
            let overlaps = |a: &Algorithm| match (&a.only_memory, &only_memory) {
                (Some(x), Some(y)) => x.iter().any(|m| y.contains(m)),
                _ => true,
            };
            if let Some(first) = out
                .iter()
                .find(|a| a.label == label && a.span != span && overlaps(a))
            {
                let key = if table.contains_key("label") {
                    "label"
                } else {
                    "name"
                };
                return Err(src.at_key(
                    span.clone(),
                    key,
                    format!(
                        "label `{label}` is already used by the [[algorithm]] on line {}; results under one label are averaged together, so give each structure its own `label`",
                        crate::plan::error::line_of(src.text, first.span.start)
                    ),
                ));
            }
            ignored_in_mode(src, &span, &combo)?;
            let keys: Vec<String> = combo.keys().cloned().collect();
            let spec = registry
                .parse(combo.clone())
                .map_err(|msg| structure_error(src, &span, msg, &combo, registry))?;
            out.push(Algorithm {
                spec,
                family: family.clone().unwrap_or_else(|| label.clone()),
                label,
                swept: swept_values,
                config,
                span: span.clone(),
                only_memory: only_memory.clone(),
                keys: keys.into_iter().filter(|k| k != "name").collect(),
            });
        }
    }
    Ok(out)
}

/// A configuration's name: `label` followed by each swept `key=value`.
pub fn config_name(label: &str, swept: &[(String, String)]) -> String {
    let mut out = label.to_string();
    for (k, v) in swept {
        out.push_str(&format!(" {k}={v}"));
    }
    out
}

/// The `label` key (removed from the table), else the name and the swept values.
fn label(
    src: Source<'_>,
    span: &Range<usize>,
    combo: &mut toml::Table,
    swept: &[(String, String)],
) -> Result<String, ConfigError> {
    match combo.remove("label") {
        Some(toml::Value::String(s)) if s.trim().is_empty() => Err(src.at_key(
            span.clone(),
            "label",
            "must not be empty: the label names the structure in every table and chart",
        )),
        Some(toml::Value::String(s)) => Ok(s),
        Some(_) => Err(src.at_key(span.clone(), "label", "must be a string")),
        None => {
            let name = combo.get("name").and_then(|v| v.as_str()).unwrap_or("?");
            Ok(config_name(name, swept))
        }
    }
}

/// The memory sizes an `[[algorithm]]` table's `memory` key restricts it to: a string or an
/// array of strings, each one of the grid's sizes.
fn restricted_memory(
    src: Source<'_>,
    span: &Range<usize>,
    value: &toml::Value,
) -> Result<Vec<u64>, ConfigError> {
    let items: Vec<&toml::Value> = match value {
        toml::Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    let mut out = Vec::new();
    for item in items {
        let Some(text) = item.as_str() else {
            return Err(src.at_key(
                span.clone(),
                "memory",
                "must be a memory size or an array of them (strings)",
            ));
        };
        let bits = parse_bits(text)
            .map_err(|e| src.at_key(span.clone(), "memory", format!("bad unit: {e}")))?;
        if bits == 0 || out.contains(&bits) {
            return Err(src.at_key(
                span.clone(),
                "memory",
                format!("{text}: each size must be positive and appear once"),
            ));
        }
        out.push(bits);
    }
    Ok(out)
}

fn render_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
