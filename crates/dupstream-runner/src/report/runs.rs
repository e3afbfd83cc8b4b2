//! Two runs side by side (`dupstream compare RUN_A RUN_B`), as critcmp puts two benchmark runs
//! side by side: every cell matched on its configuration (algorithm, label, the swept
//! parameters as written, and every parameter as run), memory, stream and checkpoint, replicate
//! seeds averaged on each side, and the difference flagged where it exceeds the two sides'
//! combined 95 % confidence interval. Two configurations are never pooled.
//!
//! Runs at different scales are matched on the parameters as written in the experiment (the
//! swept values, unscaled) instead of every parameter as run (derived ones, such as a
//! structure's cell count `m`, follow the memory as run), and checkpoint by checkpoint in order
//! (their positions follow the stream length as run); a note says so.

use crate::record::RawRow;
use crate::report::stats::mean_ci;
use crate::report::table::md_cell;
use crate::report::table::metric_value;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One side of a comparison: a results directory's name and rows.
#[derive(Debug, Clone)]
pub struct Run {
    /// How the run is named in the output (its directory).
    pub name: String,
    pub experiment: String,
    pub scale: u64,
    /// The revision that produced it (`manifest.json`), when known.
    pub revision: Option<String>,
    pub rows: Vec<RawRow>,
}

/// One side's summary, in the output.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub name: String,
    pub experiment: String,
    pub scale: u64,
    pub revision: Option<String>,
}

/// What identifies a value in both runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CompareKey {
    pub algorithm: String,
    pub label: String,
    /// The configuration ([`RawRow::config`]): the label and the swept values as written.
    pub config: String,
    /// The structure's parameters as run (`k=v;…`) when the runs' scales are equal; the swept
    /// parameters as written (unscaled) when they differ.
    pub params: String,
    pub memory_nominal_bits: u64,
    pub memory: String,
    pub stream: String,
    /// The checkpoint, 1 for the first, in order of position.
    pub checkpoint: usize,
    pub metric: String,
}

/// One compared value.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    #[serde(flatten)]
    pub key: CompareKey,
    /// Whether the checkpoint is the last of its cell (the default output shows only these).
    pub last_checkpoint: bool,
    pub position_a: u64,
    pub position_b: u64,
    pub a_pct: f64,
    pub a_ci95_pct: Option<f64>,
    pub a_seeds: usize,
    pub b_pct: f64,
    pub b_ci95_pct: Option<f64>,
    pub b_seeds: usize,
    /// `b_pct − a_pct`, in percentage points.
    pub diff_pp: f64,
    /// `√(a_ci95² + b_ci95²)`, when both sides have a confidence interval (two seeds or more).
    pub combined_ci95_pp: Option<f64>,
    /// Whether `|diff_pp|` exceeds `combined_ci95_pp`; `None` without an interval.
    pub exceeds_ci: Option<bool>,
}

/// Two runs compared.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub a: RunInfo,
    pub b: RunInfo,
    /// What the values were matched on.
    pub matched_on: Vec<&'static str>,
    pub notes: Vec<String>,
    pub rows: Vec<CompareRow>,
    /// Values of one run that the other lacks.
    pub only_a: Vec<CompareKey>,
    pub only_b: Vec<CompareKey>,
}

/// A side's values: per key, the replicates' values in percent, and the position.
type Values = BTreeMap<CompareKey, (Vec<f64>, u64, bool)>;

fn values(rows: &[RawRow], with_params: bool) -> Values {
    let mut by_cell: BTreeMap<usize, Vec<&RawRow>> = BTreeMap::new();
    for r in rows {
        by_cell.entry(r.cell).or_default().push(r);
    }
    let windowed = rows.iter().any(|r| r.window.is_some());
    let mut metrics = vec!["fpr", "fnr"];
    if windowed {
        metrics.extend(["w_fpr", "w_fnr"]);
    }
    let mut out = Values::new();
    for cell_rows in by_cell.values_mut() {
        cell_rows.sort_by_key(|r| r.position);
        let last = cell_rows.len();
        for (i, r) in cell_rows.iter().enumerate() {
            for &metric in &metrics {
                let Some(v) = value(r, metric) else {
                    continue;
                };
                let key = CompareKey {
                    algorithm: r.algorithm.clone(),
                    label: r.label.clone(),
                    config: r.config().to_string(),
                    params: if with_params {
                        r.params.to_string()
                    } else {
                        r.swept.to_string()
                    },
                    memory_nominal_bits: r.memory_nominal_bits,
                    memory: r.memory.clone(),
                    stream: r.stream.clone(),
                    checkpoint: i + 1,
                    metric: metric.to_string(),
                };
                let e = out
                    .entry(key)
                    .or_insert((Vec::new(), r.position, i + 1 == last));
                e.0.push(v * 100.0);
            }
        }
    }
    out
}

fn value(r: &RawRow, metric: &str) -> Option<f64> {
    match metric {
        "w_fpr" => r.w_fpr.flatten(),
        "w_fnr" => r.w_fnr.flatten(),
        m => metric_value(r, m),
    }
}

fn info(r: &Run) -> RunInfo {
    RunInfo {
        name: r.name.clone(),
        experiment: r.experiment.clone(),
        scale: r.scale,
        revision: r.revision.clone(),
    }
}

/// Compares run `b` with run `a`.
pub fn compare(a: &Run, b: &Run) -> Comparison {
    let same_scale = a.scale == b.scale;
    let mut notes = Vec::new();
    let mut matched_on = vec!["algorithm", "label", "config"];
    if same_scale {
        matched_on.push("params");
    } else {
        matched_on.push("swept params as written");
        notes.push(format!(
            "the runs are at different scales ({} and {}): values are matched on the parameters as written in the experiment (swept values, unscaled), not on the parameters as run (derived ones follow the memory as run), and checkpoint by checkpoint in order",
            a.scale, b.scale
        ));
    }
    matched_on.extend(["memory", "stream", "checkpoint"]);
    if a.experiment != b.experiment {
        notes.push(format!(
            "the runs are of different experiments ({} and {})",
            a.experiment, b.experiment
        ));
    }
    let (va, vb) = (values(&a.rows, same_scale), values(&b.rows, same_scale));
    let mut rows = Vec::new();
    let mut only_a = Vec::new();
    for (key, (xs, pos_a, last)) in &va {
        let Some((ys, pos_b, _)) = vb.get(key) else {
            only_a.push(key.clone());
            continue;
        };
        let (am, aci) = mean_ci(xs);
        let (bm, bci) = mean_ci(ys);
        let (aci, bci) = (
            aci.is_finite().then_some(aci),
            bci.is_finite().then_some(bci),
        );
        let combined = aci.zip(bci).map(|(x, y)| x.hypot(y));
        let diff = bm - am;
        rows.push(CompareRow {
            key: key.clone(),
            last_checkpoint: *last,
            position_a: *pos_a,
            position_b: *pos_b,
            a_pct: am,
            a_ci95_pct: aci,
            a_seeds: xs.len(),
            b_pct: bm,
            b_ci95_pct: bci,
            b_seeds: ys.len(),
            diff_pp: diff,
            combined_ci95_pp: combined,
            exceeds_ci: combined.map(|c| diff.abs() > c),
        });
    }
    let only_b: Vec<CompareKey> = vb
        .keys()
        .filter(|k| !va.contains_key(*k))
        .cloned()
        .collect();
    if rows.iter().any(|r| r.combined_ci95_pp.is_none()) {
        notes.push(
            "values with one seed on either side have no confidence interval: their difference is shown but cannot be judged against noise (run with several [grid] seeds for that); with the same seed and code, a run repeats exactly".into(),
        );
    }
    Comparison {
        a: info(a),
        b: info(b),
        matched_on,
        notes,
        rows,
        only_a,
        only_b,
    }
}

impl Comparison {
    /// The comparison as Markdown: one line per value (last checkpoints only unless
    /// `all_checkpoints`), then a summary.
    pub fn markdown(&self, all_checkpoints: bool) -> String {
        let side = |r: &RunInfo| {
            format!(
                "{} ({}, scale {}{})",
                r.name,
                r.experiment,
                r.scale,
                r.revision
                    .as_deref()
                    .map_or(String::new(), |v| format!(", revision {v}"))
            )
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Run against run\n\nA: {}\nB: {}\n",
            side(&self.a),
            side(&self.b)
        );
        let _ = writeln!(s, "Matched on {}.", self.matched_on.join(", "));
        for n in &self.notes {
            let _ = writeln!(s, "Note: {n}.");
        }
        let _ = writeln!(
            s,
            "\n| configuration | memory | stream | checkpoint | metric | A (%) | B (%) | B − A (pp) | combined 95 % CI (pp) | |\n|---|---|---|---|---|---|---|---|---|---|"
        );
        let pct = |m: f64, ci: Option<f64>| match ci {
            Some(ci) => format!("{m:.4} ± {ci:.4}"),
            None => format!("{m:.4}"),
        };
        let shown: Vec<&CompareRow> = self
            .rows
            .iter()
            .filter(|r| all_checkpoints || r.last_checkpoint)
            .collect();
        for r in &shown {
            let k = &r.key;
            let (ci, flag) = match (r.combined_ci95_pp, r.exceeds_ci) {
                (Some(c), Some(true)) => (format!("{c:.4}"), "exceeds CI"),
                (Some(c), _) => (format!("{c:.4}"), ""),
                (None, _) if r.diff_pp == 0.0 => ("—".into(), "identical (1 seed)"),
                (None, _) => ("—".into(), "1 seed: no CI"),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} ({}/{}) | {} | {} | {} | {:+.4} | {ci} | {flag} |",
                md_cell(&k.config),
                k.memory,
                k.stream,
                k.checkpoint,
                r.position_a,
                r.position_b,
                k.metric.to_uppercase(),
                pct(r.a_pct, r.a_ci95_pct),
                pct(r.b_pct, r.b_ci95_pct),
                r.diff_pp
            );
        }
        let judged = shown.iter().filter(|r| r.exceeds_ci.is_some()).count();
        let exceed = shown.iter().filter(|r| r.exceeds_ci == Some(true)).count();
        let identical = shown.iter().filter(|r| r.diff_pp == 0.0).count();
        let _ = writeln!(
            s,
            "\n{} values compared ({}); {identical} identical; {exceed} of {judged} with a confidence interval differ by more than it.",
            shown.len(),
            if all_checkpoints {
                "every checkpoint"
            } else {
                "last checkpoints; --all-checkpoints for every one"
            }
        );
        for (what, keys) in [("A", &self.only_a), ("B", &self.only_b)] {
            let cells: std::collections::BTreeSet<String> = keys
                .iter()
                .filter(|k| all_checkpoints || k.checkpoint == 1)
                .map(|k| format!("{} {} {}", md_cell(&k.config), k.memory, k.stream))
                .collect();
            if !cells.is_empty() {
                let _ = writeln!(
                    s,
                    "Only in {what} ({}): {}",
                    cells.len(),
                    cells.into_iter().collect::<Vec<_>>().join("; ")
                );
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row;

    fn run(name: &str, scale: u64, rows: Vec<RawRow>) -> Run {
        Run {
            name: name.into(),
            experiment: "t".into(),
            scale,
            revision: None,
            rows,
        }
    }

    fn replicates(label: &str, fprs: &[f64], first_cell: usize) -> Vec<RawRow> {
        fprs.iter()
            .enumerate()
            .map(|(i, &f)| {
                let mut r = test_row(label, first_cell + i, f, 0.5);
                r.seed = i as u64 + 1;
                r
            })
            .collect()
    }

    #[test]
    fn differences_beyond_the_combined_interval_are_flagged() {
        let a = run(
            "a",
            1,
            [
                replicates("SBF", &[0.10, 0.11, 0.12], 0),
                replicates("BSBF", &[0.2], 3),
            ]
            .concat(),
        );
        let b = run(
            "b",
            1,
            [
                replicates("SBF", &[0.20, 0.21, 0.22], 0),
                replicates("BSBF", &[0.2], 3),
            ]
            .concat(),
        );
        let c = compare(&a, &b);
        let sbf = c
            .rows
            .iter()
            .find(|r| r.key.label == "SBF" && r.key.metric == "fpr")
            .unwrap();
        assert_eq!((sbf.a_seeds, sbf.b_seeds), (3, 3));
        assert!((sbf.diff_pp - 10.0).abs() < 1e-9);
        assert_eq!(sbf.exceeds_ci, Some(true));
        let fnr = c
            .rows
            .iter()
            .find(|r| r.key.label == "SBF" && r.key.metric == "fnr")
            .unwrap();
        assert_eq!(
            fnr.exceeds_ci,
            Some(false),
            "equal fnr: within the interval"
        );
        let bsbf = c.rows.iter().find(|r| r.key.label == "BSBF").unwrap();
        assert_eq!((bsbf.combined_ci95_pp, bsbf.exceeds_ci), (None, None));
        let md = c.markdown(false);
        assert!(md.contains("exceeds CI"), "{md}");
        assert!(md.contains("identical (1 seed)"), "{md}");
        assert!(
            c.notes.iter().any(|n| n.contains("one seed")),
            "{:?}",
            c.notes
        );
    }

    #[test]
    fn cells_of_one_run_only_are_listed_and_scales_drop_the_parameters() {
        let a = run("a", 1, replicates("SBF", &[0.1], 0));
        let mut other = replicates("SBF", &[0.1], 0);
        other[0].params = crate::record::Params::parse("m=99");
        other.extend(replicates("RSBF", &[0.3], 1));
        let same = compare(&a, &run("b", 1, other.clone()));
        assert!(same.rows.is_empty(), "other parameters: not the same cell");
        assert_eq!((same.only_a.len(), same.only_b.len()), (2, 4));
        let scaled = compare(&a, &run("b", 64, other));
        assert_eq!(scaled.rows.len(), 2, "matched without parameters");
        assert!(scaled.notes[0].contains("different scales"));
        assert!(
            scaled
                .markdown(false)
                .contains("Only in B (1): RSBF 1KB uniform")
        );
    }
}
