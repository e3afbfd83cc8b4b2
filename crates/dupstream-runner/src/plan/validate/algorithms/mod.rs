//! `[[algorithm]]`: swept parameters expanded into labelled structures, each checked at every
//! memory size of the grid (without allocating), giving the cells.

use crate::plan::error::{
    ConfigError, Source, culprit_key, line_of_key, mentioned_key, unknown_field,
};
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
            super::sweep::repeated_value(src, &span, key, &table[key])?;
        }
        for mut combo in super::sweep::expand(&table) {
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

/// Keys that a structure's mode derives itself, so that a value written for them would be
/// ignored (or, below the structure's own check, blamed on another line): `(structure, mode
/// key, mode value, keys)`.
pub const IGNORED_IN_MODE: &[(&str, &str, &str, &[&str])] = &[(
    "bdbf",
    "schedule",
    "running_counter",
    &["cell_bits", "blocks", "k"],
)];

/// Refuses, at its own line, a key the structure's mode ignores ([`IGNORED_IN_MODE`]).
fn ignored_in_mode(
    src: Source<'_>,
    span: &Range<usize>,
    combo: &toml::Table,
) -> Result<(), ConfigError> {
    let name = combo.get("name").and_then(|v| v.as_str());
    for &(structure, mode, value, keys) in IGNORED_IN_MODE {
        if name != Some(structure) || combo.get(mode).and_then(|v| v.as_str()) != Some(value) {
            continue;
        }
        if let Some(key) = keys.iter().find(|k| combo.contains_key(**k)) {
            return Err(src.at_key(
                span.clone(),
                key,
                format!(
                    "`{key}` is not used with {mode} = \"{value}\", which derives it from the budget and the window; remove it"
                ),
            ));
        }
    }
    Ok(())
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

/// A structure table the registry refuses: the key at fault is the unknown field, the key whose
/// value is wrong, or `name` for an unknown structure.
fn structure_error(
    src: Source<'_>,
    span: &Range<usize>,
    message: String,
    combo: &toml::Table,
    registry: &Registry,
) -> ConfigError {
    let name = combo.get("name").and_then(toml::Value::as_str);
    if !name.is_some_and(|n| registry.knows(n)) {
        let msg = match name {
            Some(n) => format!(
                "unknown algorithm `{n}` (known: {})",
                registry.names().join(", ")
            ),
            None => format!("unknown algorithm: {message}"),
        };
        return src.at_key(span.clone(), "name", msg);
    }
    let named: Vec<String> = combo.keys().filter(|k| *k != "name").cloned().collect();
    let key = unknown_field(&message)
        .filter(|k| !message.contains("unknown variant") && !registry.knows(k))
        .or_else(|| {
            culprit_key(
                combo,
                &message,
                &["name"],
                |k| line_of_key(src.text, span.clone(), k),
                |t| registry.parse(t).map(|_| ()),
            )
        })
        .or_else(|| mentioned_key(&message, &named))
        .unwrap_or_else(|| "name".to_string());
    src.at_key(span.clone(), &key, message)
}

/// The cells: for each stream, memory size and structure (in that order), the structure
/// checked at the scaled size. The sizes are the grid's, then those beyond it that an
/// `[[algorithm]]`'s own `memory` names (ascending), run by those structures only.
pub fn cells(
    src: Source<'_>,
    streams: usize,
    grid: &[u64],
    algorithms: &[Algorithm],
    scale: u64,
    skip_unfit: bool,
) -> Result<(Vec<Cell>, Vec<String>), ConfigError> {
    let mut cells = Vec::new();
    let mut skipped: Vec<(String, Vec<String>)> = Vec::new();
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
    let mut beyond: Vec<u64> = algorithms
        .iter()
        .flat_map(|a| a.only_memory.iter().flatten().copied())
        .filter(|m| !grid.contains(m))
        .collect();
    beyond.sort_unstable();
    beyond.dedup();
    for stream in 0..streams {
        for &mem in grid.iter().chain(&beyond) {
            for (a, spec) in algorithms.iter().zip(&scaled) {
                let runs_here = match &a.only_memory {
                    Some(o) => o.contains(&mem),
                    None => grid.contains(&mem),
                };
                if !runs_here {
                    continue;
                }
                let bits = mem / scale;
                if bits == 0 {
                    return Err(src.at_key(
                        a.span.clone(),
                        "memory",
                        format!("{} is 0 bits at scale 1/{scale}", format_bits(mem)),
                    ));
                }
                if let Err(e) = spec.memory_bits_for(bits) {
                    if skip_unfit {
                        let size = format_bits(mem);
                        match skipped.iter_mut().find(|s| s.0 == a.config) {
                            Some(s) if !s.1.contains(&size) => s.1.push(size),
                            Some(_) => {}
                            None => skipped.push((a.config.clone(), vec![size])),
                        }
                        continue;
                    }
                    let name = spec.name();
                    let msg = format!("{name} at {} (scaled: {bits} bits): {e}", format_bits(mem));
                    let key =
                        mentioned_key(&e.to_string(), &a.keys).unwrap_or_else(|| "name".into());
                    return Err(src.at_key(a.span.clone(), &key, msg));
                }
                cells.push(Cell {
                    index: cells.len(),
                    stream,
                    filter: Arc::clone(spec),
                    label: a.label.clone(),
                    family: a.family.clone(),
                    config: a.config.clone(),
                    swept: a.swept.clone(),
                    memory_bits: bits,
                    memory_nominal_bits: mem,
                });
            }
        }
    }
    let warnings = skipped
        .into_iter()
        .map(|(config, sizes)| {
            format!(
                "{}: `{config}` cannot be built at {} ([grid] unfit = \"skip\"): those cells are left out",
                src.file.display(),
                sizes.join(", ")
            )
        })
        .collect();
    Ok((cells, warnings))
}

/// A label starting with `=`, `+`, `-` or `@` draws a warning: the CSVs hold labels exactly as
/// written, and a spreadsheet that opens them may take such a cell for a formula.
pub fn formula_labels(src: Source<'_>, tables: &[Spanned<toml::Table>]) -> Vec<String> {
    let mut out = Vec::new();
    for t in tables {
        let labels: Vec<&str> = match t.get_ref().get("label") {
            Some(toml::Value::String(s)) => vec![s.as_str()],
            Some(toml::Value::Array(a)) => a.iter().filter_map(toml::Value::as_str).collect(),
            _ => continue,
        };
        for label in labels {
            if label.starts_with(['=', '+', '-', '@']) {
                let line = line_of_key(src.text, t.span(), "label");
                out.push(format!(
                    "{}:{line}: key `label`: `{label}` starts with `{}`: the CSVs hold it exactly as written, and a spreadsheet opening them may run it as a formula",
                    src.file.display(),
                    &label[..1]
                ));
            }
        }
    }
    out
}

/// Fewer cells (rows, buckets, slots, entries) than this in a scaled structure draw a
/// warning: its rates say little about the structure at the paper's size.
pub const MIN_CELLS: u64 = 256;

/// The parameter of a built structure that counts its cells, and what to call them.
const SIZE_PARAMS: [(&str, &str); 7] = [
    ("rows", "rows"),
    ("buckets", "buckets"),
    ("table_slots", "slots"),
    ("capacity", "entries"),
    ("m", "cells"),
    ("m_per_filter", "cells per filter"),
    ("s", "cells per filter"),
];

/// The cells of a cell's structure built at `bits`, and what to call them, when its
/// parameters say.
fn cells_of(c: &Cell, bits: u64) -> Option<(u64, &'static str)> {
    let params = c.filter.build(bits, 0).ok()?.params();
    SIZE_PARAMS.iter().find_map(|(name, unit)| {
        let p = params.iter().find(|p| p.name == *name)?;
        Some((p.value.as_f64()? as u64, *unit))
    })
}

/// One warning per structure that `--scale` leaves with fewer than [`MIN_CELLS`] cells at some
/// memory size (the smallest such size named), with the `--scale` that keeps it above.
/// Structures are built only at scaled sizes of at most 2^20 bits (no larger one is that small).
pub fn too_small(src: Source<'_>, cells: &[Cell], scale: u64) -> Vec<String> {
    if scale <= 1 {
        return Vec::new();
    }
    let mut worst: Vec<(&Cell, u64, &str)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in cells {
        if c.memory_bits > 1 << 20 || !seen.insert((c.label.as_str(), c.memory_bits)) {
            continue;
        }
        let Some((units, unit)) = cells_of(c, c.memory_bits).filter(|s| s.0 < MIN_CELLS) else {
            continue;
        };
        // A size not set by the memory (a window's slots) is not the scale's doing.
        if cells_of(c, c.memory_bits * 2).is_none_or(|(twice, _)| twice <= units) {
            continue;
        }
        match worst.iter_mut().find(|w| w.0.label == c.label) {
            Some(w) if units < w.1 => *w = (c, units, unit),
            Some(_) => {}
            None => worst.push((c, units, unit)),
        }
    }
    worst
        .into_iter()
        .map(|(c, units, unit)| {
            let keep = (units * scale / MIN_CELLS).max(1);
            let advice = if units * scale >= MIN_CELLS {
                format!("--scale {keep} or less keeps at least {MIN_CELLS}")
            } else {
                "even --scale 1 leaves fewer: give it more memory".to_string()
            };
            format!(
                "{}: `{}` at memory = \"{}\" runs on {} at --scale {scale}: {units} {unit}, fewer than {MIN_CELLS}, so its rates mean little; {advice}",
                src.file.display(),
                c.label,
                format_bits(c.memory_nominal_bits),
                format_bits(c.memory_bits),
            )
        })
        .collect()
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
        let algs = expand(src, &raw.algorithm, &Registry::builtin())?;
        cells(src, 2, &grid, &algs, scale, false).map(|c| c.0)
    }

    /// `cell_bits`, `blocks` or `k` with b_DBF's `running_counter` are refused at their own
    /// line, even at their default value (`cell_bits = 4` was accepted and ignored).
    #[test]
    fn keys_a_mode_ignores_are_refused_at_their_line() {
        for (key, value) in [
            ("cell_bits", "4"),
            ("cell_bits", "8"),
            ("blocks", "10"),
            ("k", "3"),
        ] {
            let e = run(
                &format!("[[algorithm]]\nname = \"bdbf\"\nschedule = \"running_counter\"\nwindow = 100\n{key} = {value}\n"),
                1,
            )
            .unwrap_err();
            assert_eq!((e.line, e.key.as_deref()), (Some(12), Some(key)), "{e}");
            assert!(e.to_string().contains("not used with schedule"), "{e}");
        }
        assert!(
            run(
                "[[algorithm]]\nname = \"bdbf\"\nwindow = 100\ncell_bits = 8\n",
                1
            )
            .is_ok()
        );
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
    fn sizes_beyond_the_grid_run_after_it_and_families_default_to_the_label() {
        let c = run("[[algorithm]]\nname = \"bloom\"\nk = 2\n[[algorithm]]\nname = \"exact\"\nlabel = \"Exact\"\nfamily = \"Baseline\"\nmemory = [\"2KB\", \"8KB\"]\n", 1).unwrap();
        let one: Vec<(&str, &str, u64)> = c
            .iter()
            .filter(|c| c.stream == 0)
            .map(|c| (c.label.as_str(), c.family.as_str(), c.memory_nominal_bits))
            .collect();
        assert_eq!(
            one,
            [
                ("bloom", "bloom", 8192),
                ("bloom", "bloom", 16384),
                ("Exact", "Baseline", 16384),
                ("Exact", "Baseline", 65536),
            ]
        );
    }

    #[test]
    fn unfit_cells_are_skipped_with_a_warning_when_asked() {
        let text = "name = \"a\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"lru_buffering\"\n[[algorithm]]\nname = \"bloom\"\nk = 2\n";
        let raw: RawExperiment = toml::from_str(text).unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text,
        };
        let algs = expand(src, &raw.algorithm, &Registry::builtin()).unwrap();
        // At scale 1024, 1KB is 8 bits: too small for LRU buffering, not for a Bloom filter.
        assert!(cells(src, 1, &[8192], &algs, 1024, false).is_err());
        let (c, warnings) = cells(src, 1, &[8192], &algs, 1024, true).unwrap();
        assert_eq!(
            c.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(),
            ["bloom"]
        );
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("`lru_buffering` cannot be built at 1KB"),
            "{warnings:?}"
        );
    }

    #[test]
    fn errors_name_the_key() {
        let key = |a: &str| run(a, 1).unwrap_err().key.unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text: "",
        };
        let none = expand(src, &[], &Registry::builtin()).unwrap_err();
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
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nmemory = [\"4KB\", \"4096 bytes\"]\n"),
            "memory"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nfamily = 3\n"),
            "family"
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
