//! `rates_vs_length` and `occupancy_vs_length`: FPR and FNR (or occupancy) against stream
//! length, one chart per memory size and stream, with the paper's final values as markers.
//! A run of one structure at several memory sizes gets one chart per stream with the memory
//! sizes overlaid, as Deng & Rafiei Fig. 3 draws them.
//!
//! Occupancy is drawn as the structures report it, under the papers' names, when they all
//! report the same: SBF's "fraction of zeros" (Deng & Rafiei Fig. 3), the "load" (fraction of
//! ones) of Bera et al. Fig. 11, the fraction of filled slots of the hash tables. Structures
//! that report different fractions share a chart in one quantity, the fraction of cells in
//! use: a fraction of zeros is drawn as 1 minus it (the fraction of non-zero cells).

use super::series::series_by;
use super::{Panel, Series, Target};
use crate::plan::units::format_bits;
use crate::record::RawRow;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A named metric of a row (in the unit drawn).
type Metric<'a> = (&'a str, fn(&RawRow) -> Option<f64>);

/// Whether memory sizes are overlaid: one structure, several memory sizes.
pub fn overlay_memory(rows: &[&RawRow]) -> bool {
    let mut labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    labels.sort_unstable();
    labels.dedup();
    let mut mems: Vec<u64> = rows.iter().map(|r| r.memory_nominal_bits).collect();
    mems.sort_unstable();
    mems.dedup();
    labels.len() == 1 && mems.len() > 1
}

/// The rows to draw against length, with their chart key `(memory, stream)`: with memory
/// sizes overlaid ([`overlay_memory`]), the key has no memory (0) and each row is labelled
/// with its structure and memory.
pub fn keyed(rows: &[&RawRow]) -> (Vec<RawRow>, bool) {
    let overlay = overlay_memory(rows);
    let out = rows
        .iter()
        .map(|r| {
            let mut r = (*r).clone();
            if overlay {
                r.label = format!("{} {}", r.label, format_bits(r.memory_nominal_bits));
                r.memory_nominal_bits = 0;
            }
            r
        })
        .collect();
    (out, overlay)
}

/// The y axis of occupancy when structures report different fractions: each drawn as the
/// fraction of its cells in use ([`in_use`]).
const MIXED: &str = "fraction of cells in use (non-zero, ones or filled)";

/// What an occupancy kind measures, as the papers name it.
fn kind_name(kind: &str) -> &'static str {
    match kind {
        "zero_fraction" => "fraction of zeros",
        "load" => "load (fraction of ones)",
        "filled_fraction" => "fraction of filled slots",
        _ => "occupancy",
    }
}

/// The y axis name of occupancy, from what the rows report.
pub fn occupancy_desc(rows: &[&RawRow]) -> &'static str {
    let mut kinds: Vec<&str> = rows.iter().map(|r| r.occupancy_kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    match kinds.as_slice() {
        [one] => kind_name(one),
        _ => MIXED,
    }
}

/// Rows whose structures report different occupancy fractions, each as the fraction of its
/// cells in use: a fraction of zeros becomes 1 minus it; ones and filled slots are in use as
/// they are.
fn in_use(rows: &mut [RawRow]) {
    for r in rows {
        if r.occupancy_kind == "zero_fraction" {
            r.occupancy = 1.0 - r.occupancy;
        }
    }
}

/// Draws the charts (see the module doc).
pub fn draw(
    t: Target<'_>,
    all: &[&RawRow],
    finals: &[&RawRow],
    occupancy: bool,
) -> Result<Vec<PathBuf>> {
    let kind = if occupancy {
        "occupancy_vs_length"
    } else {
        "rates_vs_length"
    };
    let (mut rows, overlay) = keyed(all);
    let (final_rows, _) = keyed(finals);
    let occ_desc = occupancy_desc(all);
    if occupancy && occ_desc == MIXED {
        in_use(&mut rows);
    }
    let rows: Vec<&RawRow> = rows.iter().collect();
    let group = |r: &RawRow| (r.memory_nominal_bits, r.stream.clone());
    let metrics: Vec<Metric> = if occupancy {
        vec![(occ_desc, |r| Some(r.occupancy))]
    } else {
        vec![
            ("FPR", |r| r.fpr.map(|v| v * 100.0)),
            ("FNR", |r| r.fnr.map(|v| v * 100.0)),
        ]
    };
    let per_metric: Vec<BTreeMap<_, Vec<Series>>> = metrics
        .iter()
        .map(|(_, f)| series_by(&rows, group, |r| r.position as f64, f))
        .collect();
    let mut written = Vec::new();
    for (gi, key) in per_metric[0].keys().enumerate() {
        let memory = if overlay {
            String::new()
        } else {
            format_bits(key.0)
        };
        let in_chart: Vec<&RawRow> = rows.iter().copied().filter(|r| group(r) == *key).collect();
        let panels: Vec<Panel> = metrics
            .iter()
            .zip(&per_metric)
            .map(|((name, _), m)| {
                let what = if occupancy { "" } else { " (%)" };
                let short = if occupancy && *name == MIXED {
                    "cells in use"
                } else {
                    name
                };
                let title = if overlay {
                    format!("{short} vs stream length")
                } else {
                    format!("{short} vs stream length ({memory})")
                };
                Panel {
                    series: m.get(key).cloned().unwrap_or_default(),
                    markers: if occupancy {
                        Vec::new()
                    } else {
                        markers(t, (finals, &final_rows), key, &name.to_lowercase())
                    },
                    ..Panel::new(title, "elements", format!("{name}{what}"))
                }
            })
            .collect();
        let index = gi.to_string();
        let name: Vec<&str> = if overlay {
            vec![kind, &index]
        } else {
            vec![kind, &memory, &index]
        };
        written.extend(t.render(&name, &key.1, &in_chart, panels)?);
    }
    Ok(written)
}

/// The paper's final values for the rows of one chart, at the stream's end (`finals` as
/// measured, `keyed` the same rows as drawn).
fn markers(
    t: Target<'_>,
    (finals, keyed): (&[&RawRow], &[RawRow]),
    key: &(u64, String),
    metric: &str,
) -> Vec<Series> {
    finals
        .iter()
        .zip(keyed)
        .filter(|(_, k)| (k.memory_nominal_bits, k.stream.clone()) == *key)
        .filter_map(|(r, k)| {
            t.paper(r, metric).map(|v| Series {
                label: k.label.clone(),
                points: vec![(r.position as f64, v * 100.0)],
                band: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_structure_overlays_its_memory_sizes() {
        let a = crate::record::rows::test_row("SBF", 0, 0.1, 0.2);
        let mut b = a.clone();
        b.cell = 1;
        b.memory_nominal_bits = 1 << 20;
        let (rows, overlay) = keyed(&[&a, &b]);
        assert!(overlay);
        assert_eq!(rows[0].label, "SBF 1KB");
        assert_eq!(rows[1].label, "SBF 128KB");
        let mut c = a.clone();
        c.label = "RSBF".into();
        assert!(
            !keyed(&[&a, &b, &c]).1,
            "two structures: one chart per memory size"
        );
        assert!(!keyed(&[&a]).1, "one memory size: nothing to overlay");
        let mut z = a.clone();
        z.occupancy_kind = "zero_fraction".into();
        assert_eq!(occupancy_desc(&[&z]), "fraction of zeros");
    }

    #[test]
    fn different_fractions_are_drawn_as_one_quantity() {
        let mut z = crate::record::rows::test_row("SBF", 0, 0.1, 0.2);
        z.occupancy_kind = "zero_fraction".into();
        z.occupancy = 0.8;
        let mut o = z.clone();
        o.label = "BSBF".into();
        o.occupancy_kind = "load".into();
        o.occupancy = 0.3;
        assert_eq!(occupancy_desc(&[&z, &o]), MIXED);
        let mut rows = vec![z, o];
        in_use(&mut rows);
        // SBF: 80 % of its cells are zero, so 20 % are in use; BSBF's load is its ones.
        assert!(
            (rows[0].occupancy - 0.2).abs() < 1e-12,
            "{}",
            rows[0].occupancy
        );
        assert_eq!(rows[1].occupancy, 0.3);
        assert_eq!(
            (rows[0].label.as_str(), rows[1].label.as_str()),
            ("SBF", "BSBF")
        );
    }
}
