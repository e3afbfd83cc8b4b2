//! `[[algorithm]]`: swept parameters expanded into labelled structures, each checked at every
//! memory size of the grid (without allocating), giving the cells.

use crate::plan::error::{ConfigError, Source, mentioned_key, unknown_field};
use crate::plan::units::{format_bits, parse_bits};
use crate::plan::{Cell, Registry, StructureSpec};
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
    /// The grid sizes it is restricted to (`memory` key), if any.
    pub only_memory: Option<Vec<u64>>,
    /// The keys written in its table other than `name`, `label` and `memory` (for errors).
    pub keys: Vec<String>,
}

/// Every structure of the sweep, in order. `label` is ours, `memory` restricts the structure
/// to some grid sizes; the other keys are the structure's own (a swept key makes one
/// structure per value, labelled `name key=value`).
pub fn expand(
    src: Source<'_>,
    tables: &[Spanned<toml::Table>],
    grid: &[u64],
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
            Some(v) => Some(restricted_memory(src, &span, &v, grid)?),
        };
        let swept: Vec<String> = table
            .iter()
            .filter(|(k, v)| v.is_array() && k.as_str() != "label")
            .map(|(k, _)| k.clone())
            .collect();
        for mut combo in super::expand(&table) {
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
            let keys: Vec<String> = combo.keys().cloned().collect();
            let spec = registry
                .parse(combo)
                .map_err(|msg| structure_error(src, &span, msg, &keys, registry))?;
            out.push(Algorithm {
                spec,
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
        Some(toml::Value::String(s)) => Ok(s),
        Some(_) => Err(src.at_key(span.clone(), "label", "must be a string")),
        None => {
            let name = combo.get("name").and_then(|v| v.as_str()).unwrap_or("?");
            Ok(config_name(name, swept))
        }
    }
}

/// A structure table the registry refuses: the key at fault is the unknown field, or `name`
/// for an unknown structure.
fn structure_error(
    src: Source<'_>,
    span: &Range<usize>,
    message: String,
    keys: &[String],
    registry: &Registry,
) -> ConfigError {
    let msg = if message.contains("unknown variant") {
        format!("unknown algorithm: {message}")
    } else {
        message.clone()
    };
    let named = keys.iter().filter(|k| k.as_str() != "name");
    let key = match unknown_field(&message) {
        Some(k) if !registry.knows(&k) && !msg.contains("unknown algorithm") => k,
        _ if msg.contains("unknown algorithm") => "name".to_string(),
        _ => mentioned_key(&message, named).unwrap_or_else(|| "name".to_string()),
    };
    src.at_key(span.clone(), &key, msg)
}

/// The cells: for each stream, memory size and structure (in that order), the structure
/// checked at the scaled size.
pub fn cells(
    src: Source<'_>,
    streams: usize,
    grid: &[u64],
    algorithms: &[Algorithm],
    scale: u64,
) -> Result<Vec<Cell>, ConfigError> {
    let mut cells = Vec::new();
    // Parameters tied to the memory's size scale with it (`Structure::scaled_params`).
    let scaled: Vec<_> = algorithms
        .iter()
        .map(|a| {
            (scale > 1)
                .then(|| a.spec.scaled(scale))
                .flatten()
                .unwrap_or_else(|| Arc::clone(&a.spec))
        })
        .collect();
    for stream in 0..streams {
        for &mem in grid {
            for (a, spec) in algorithms.iter().zip(&scaled) {
                if a.only_memory.as_ref().is_some_and(|o| !o.contains(&mem)) {
                    continue;
                }
                let bits = mem / scale;
                spec.memory_bits_for(bits).map_err(|e| {
                    let name = spec.name();
                    let msg = format!("{name} at {} (scaled: {bits} bits): {e}", format_bits(mem));
                    let key = mentioned_key(&e, &a.keys).unwrap_or_else(|| "name".into());
                    src.at_key(a.span.clone(), &key, msg)
                })?;
                cells.push(Cell {
                    index: cells.len(),
                    stream,
                    filter: Arc::clone(spec),
                    label: a.label.clone(),
                    config: a.config.clone(),
                    swept: a.swept.clone(),
                    memory_bits: bits,
                    memory_nominal_bits: mem,
                });
            }
        }
    }
    Ok(cells)
}

/// The memory sizes an `[[algorithm]]` table's `memory` key restricts it to: a string or an
/// array of strings, each one of the grid's sizes.
fn restricted_memory(
    src: Source<'_>,
    span: &Range<usize>,
    value: &toml::Value,
    grid: &[u64],
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
        if !grid.contains(&bits) {
            return Err(src.at_key(
                span.clone(),
                "memory",
                format!("{text} is not one of [grid] memory"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::schema::RawExperiment;
    use std::path::Path;

    fn run(algorithms: &str, scale: u64) -> Result<Vec<Cell>, ConfigError> {
        let text = format!(
            "name = \"a\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\n[grid]\nmemory = [\"1KB\", \"2KB\"]\n{algorithms}"
        );
        let raw: RawExperiment = toml::from_str(&text).unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text: &text,
        };
        let grid = [8192, 16384];
        let algs = expand(src, &raw.algorithm, &grid, &Registry::builtin())?;
        cells(src, 2, &grid, &algs, scale)
    }

    #[test]
    fn sweeps_labels_and_restrictions() {
        let c = run("[[algorithm]]\nname = \"bloom\"\nk = [1, 2]\n[[algorithm]]\nname = \"sbf\"\nlabel = \"SBF\"\np = 4\nmemory = \"2KB\"\n", 1).unwrap();
        let labels: Vec<&str> = c.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["bloom k=1", "bloom k=2", "bloom k=1", "bloom k=2", "SBF"].repeat(2)
        );
        assert_eq!(
            c.iter().map(|c| c.index).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!((c[9].stream, c[9].memory_bits), (1, 16384));
        let scaled = run("[[algorithm]]\nname = \"bloom\"\nk = 2\n", 4).unwrap();
        assert_eq!(
            (scaled[0].memory_bits, scaled[0].memory_nominal_bits),
            (2048, 8192)
        );
    }

    #[test]
    fn errors_name_the_key() {
        let key = |a: &str| run(a, 1).unwrap_err().key.unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text: "",
        };
        let none = expand(src, &[], &[8192], &Registry::builtin()).unwrap_err();
        assert_eq!(none.key.as_deref(), Some("algorithm"));
        assert_eq!(key("[[algorithm]]\nname = \"nope\"\n"), "name");
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nzz = 1\n"),
            "zz"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nlabel = 3\n"),
            "label"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nmemory = \"4KB\"\n"),
            "memory"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nmemory = 4\n"),
            "memory"
        );
        // Too small for a structure at some size: `name`, with the size in the message.
        let e = run("[[algorithm]]\nname = \"lru_buffering\"\n", 1024).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("name"));
        assert!(e.message.contains("lru_buffering at 1KB"), "{e}");
        assert_eq!(e.line, Some(9));
    }
}
