//! Warnings about structures: a label a spreadsheet would take for a formula, and a
//! structure `--scale` leaves with too few cells for its rates to mean much.

use crate::plan::Cell;
use crate::plan::error::{Source, line_of_key};
use crate::plan::units::format_bits;
use toml::Spanned;

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
        if c.budget_bits > 1 << 20 || !seen.insert((c.label.as_str(), c.budget_bits)) {
            continue;
        }
        let Some((units, unit)) = cells_of(c, c.budget_bits).filter(|s| s.0 < MIN_CELLS) else {
            continue;
        };
        // A size not set by the memory (a window's slots) is not the scale's doing.
        if cells_of(c, c.budget_bits * 2).is_none_or(|(twice, _)| twice <= units) {
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
                format_bits(c.budget_bits),
            )
        })
        .collect()
}
