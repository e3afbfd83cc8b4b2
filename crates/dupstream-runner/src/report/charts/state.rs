//! The structures' state and derived differences:
//!
//! - `ones_difference`: the change in the number of ones (non-zero cells) between successive
//!   checkpoints (Bera et al. conference Fig. 6–7), from each checkpoint's occupancy.
//! - `load_vs_length`: the load (fraction of ones, i.e. of non-zero cells) against stream
//!   length (Bera et al. journal Fig. 11); structures reporting a zero fraction (SBF, FP-SBF)
//!   are converted (`1 − zero fraction`), others are drawn as they report.
//! - `fn_difference`: the FN rate of each `difference` series (`[[derived]]`) against memory
//!   (Deng & Rafiei Fig. 5: FPBuffering − SBF at several allowed FP rates).

use super::length::keyed;
use super::series::{Acc, series_by, slot, to_series};
use super::{Panel, Target, XScale};
use crate::plan::units::format_bits;
use crate::record::RawRow;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Fraction of non-zero cells a row's occupancy stands for.
fn load(r: &RawRow) -> f64 {
    match r.occupancy_kind.as_str() {
        "zero_fraction" => 1.0 - r.occupancy,
        _ => r.occupancy,
    }
}

/// Number of ones (non-zero cells, counted as bits) a row's occupancy stands for.
fn ones(r: &RawRow) -> f64 {
    load(r) * r.memory_bits_used as f64
}

/// `load_vs_length` (see the module doc).
pub fn load_vs_length(t: Target<'_>, rows: &[&RawRow]) -> Result<Vec<PathBuf>> {
    let (keyed, overlay) = keyed(rows);
    let refs: Vec<&RawRow> = keyed.iter().collect();
    let groups = series_by(
        &refs,
        |r| (r.memory_nominal_bits, r.stream.clone()),
        |r| r.position as f64,
        |r| Some(load(r)),
    );
    let mut written = Vec::new();
    for (gi, ((memory, stream), series)) in groups.into_iter().enumerate() {
        let mem = if overlay {
            String::new()
        } else {
            format_bits(memory)
        };
        let title = if overlay {
            "load vs stream length".to_string()
        } else {
            format!("load vs stream length ({mem})")
        };
        let panel = Panel {
            series,
            ..Panel::new(title, "elements", "load: fraction of ones (non-zero cells)")
        };
        let in_chart = in_group(&refs, memory, &stream);
        written.extend(t.render(
            &["load_vs_length", &mem, &gi.to_string()],
            &stream,
            &in_chart,
            vec![panel],
        )?);
    }
    Ok(written)
}

/// The rows of one chart: memory (0 when overlaid) and stream.
fn in_group<'a>(rows: &[&'a RawRow], memory: u64, stream: &str) -> Vec<&'a RawRow> {
    rows.iter()
        .copied()
        .filter(|r| r.memory_nominal_bits == memory && r.stream == stream)
        .collect()
}

/// `ones_difference` (see the module doc).
pub fn ones_difference(t: Target<'_>, rows: &[&RawRow]) -> Result<Vec<PathBuf>> {
    let (keyed, overlay) = keyed(rows);
    let refs: Vec<&RawRow> = keyed.iter().collect();
    // (memory, stream) → label → seed → [(position, ones)].
    type PerSeed = BTreeMap<u64, Vec<(u64, f64)>>;
    let mut groups: BTreeMap<(u64, String), Vec<(String, PerSeed)>> = BTreeMap::new();
    for (r, orig) in refs.iter().zip(rows) {
        let g = groups
            .entry((r.memory_nominal_bits, r.stream.clone()))
            .or_default();
        slot(g, &r.label)
            .entry(r.seed)
            .or_default()
            .push((r.position, ones(orig)));
    }
    let mut written = Vec::new();
    for (gi, ((memory, stream), labels)) in groups.iter().enumerate() {
        let mut series = Vec::new();
        for (label, seeds) in labels {
            let mut by_pos: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
            for pts in seeds.values() {
                let mut pts = pts.clone();
                pts.sort_by_key(|p| p.0);
                let mut prev = 0.0;
                for (pos, o) in pts {
                    by_pos.entry(pos).or_default().push(o - prev);
                    prev = o;
                }
            }
            let acc = Acc {
                by_x: by_pos
                    .into_iter()
                    .map(|(p, v)| ((p as f64).to_bits(), v))
                    .collect(),
                flat: Vec::new(),
            };
            series.push(to_series(label.clone(), &acc, (0.0, 0.0), false));
        }
        let mem = if overlay {
            String::new()
        } else {
            format_bits(*memory)
        };
        let title = if overlay {
            "change in the number of ones between checkpoints".to_string()
        } else {
            format!("change in the number of ones between checkpoints ({mem})")
        };
        let panel = Panel {
            series,
            ..Panel::new(title, "elements", "Δ ones")
        };
        let in_chart = in_group(&refs, *memory, stream);
        written.extend(t.render(
            &["ones_difference", &mem, &gi.to_string()],
            stream,
            &in_chart,
            vec![panel],
        )?);
    }
    Ok(written)
}

/// `fn_difference` (see the module doc).
pub fn fn_difference(t: Target<'_>, finals: &[&RawRow]) -> Result<Vec<PathBuf>> {
    let diffs: Vec<&RawRow> = finals
        .iter()
        .copied()
        .filter(|r| r.algorithm == "difference")
        .collect();
    if diffs.is_empty() {
        anyhow::bail!("fn_difference: no `difference` series ([[derived]] kind = \"difference\")");
    }
    let fnr = series_by(
        &diffs,
        |r| r.stream.clone(),
        |r| r.memory_nominal_bits as f64,
        |r| r.fnr.map(|v| v * 100.0),
    );
    let mut written = Vec::new();
    for (gi, (stream, series)) in fnr.into_iter().enumerate() {
        let panel = Panel {
            x_scale: XScale::Log2Bytes,
            series,
            ..Panel::new(
                "FN rate difference vs memory",
                "memory (nominal)",
                "FN rate difference (percentage points)",
            )
        };
        let in_chart: Vec<&RawRow> = diffs
            .iter()
            .copied()
            .filter(|r| r.stream == stream)
            .collect();
        written.extend(t.render(
            &["fn_difference", &gi.to_string()],
            &stream,
            &in_chart,
            vec![panel],
        )?);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ones_from_occupancy() {
        let mut r = crate::record::rows::test_row("SBF", 0, 0.1, 0.2);
        r.occupancy_kind = "zero_fraction".into();
        r.occupancy = 0.25;
        assert!((ones(&r) - 0.75 * 8192.0).abs() < 1e-9);
        r.occupancy_kind = "load".into();
        assert!((load(&r) - 0.25).abs() < 1e-12);
    }
}
