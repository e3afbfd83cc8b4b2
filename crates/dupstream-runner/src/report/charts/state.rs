//! The structures' state and derived differences:
//!
//! - `ones_difference`: the change in the number of ones (non-zero cells) between successive
//!   checkpoints (Bera et al. conference Fig. 6–7), from each checkpoint's occupancy.
//! - `load_vs_length`: the load (fraction of ones, i.e. of non-zero cells) against stream
//!   length (Bera et al. journal Fig. 11); structures reporting a zero fraction (SBF, FP-SBF)
//!   are converted (`1 − zero fraction`), others are drawn as they report.
//! - `fn_difference`: the FN rate of each `difference` series (`[[derived]]`) against memory
//!   (Deng & Rafiei Fig. 5: FPBuffering − SBF at several allowed FP rates).

use super::series::{Acc, series_by, slot, to_series};
use super::{Panel, Target};
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
    let mut converted: Vec<RawRow> = rows.iter().map(|r| (*r).clone()).collect();
    for r in &mut converted {
        // series_by scales by 100: store the load as a fraction in `fpr`.
        r.fpr = Some(load(r));
    }
    let refs: Vec<&RawRow> = converted.iter().collect();
    let groups = series_by(
        &refs,
        |r| (r.memory_nominal_bits, r.stream.clone()),
        |r| r.position as f64,
        |r| r.fpr,
    );
    let mut written = Vec::new();
    for (gi, ((memory, stream), series)) in groups.into_iter().enumerate() {
        let mem = format_bits(memory);
        let panel = Panel {
            title: format!("load vs stream length ({mem})"),
            x_desc: "elements".into(),
            y_desc: "load: ones / cells (%)".into(),
            x_log2: false,
            series,
            markers: Vec::new(),
        };
        written.extend(t.render(&format!("load_vs_length-{mem}-{gi}"), &stream, &[panel])?);
    }
    Ok(written)
}

/// `ones_difference` (see the module doc).
pub fn ones_difference(t: Target<'_>, rows: &[&RawRow]) -> Result<Vec<PathBuf>> {
    // (memory, stream) → label → seed → [(position, ones)].
    type PerSeed = BTreeMap<u64, Vec<(u64, f64)>>;
    let mut groups: BTreeMap<(u64, String), Vec<(String, PerSeed)>> = BTreeMap::new();
    for r in rows {
        let g = groups
            .entry((r.memory_nominal_bits, r.stream.clone()))
            .or_default();
        slot(g, &r.label)
            .entry(r.seed)
            .or_default()
            .push((r.position, ones(r)));
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
        let mem = format_bits(*memory);
        let panel = Panel {
            title: format!("change in the number of ones between checkpoints ({mem})"),
            x_desc: "elements".into(),
            y_desc: "Δ ones".into(),
            x_log2: false,
            series,
            markers: Vec::new(),
        };
        written.extend(t.render(&format!("ones_difference-{mem}-{gi}"), stream, &[panel])?);
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
        |r| r.fnr,
    );
    let mut written = Vec::new();
    for (gi, (stream, series)) in fnr.into_iter().enumerate() {
        let panel = Panel {
            title: "FN rate difference vs memory".into(),
            x_desc: "memory".into(),
            y_desc: "FN rate difference (percentage points)".into(),
            x_log2: true,
            series,
            markers: Vec::new(),
        };
        written.extend(t.render(&format!("fn_difference-{gi}"), &stream, &[panel])?);
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
