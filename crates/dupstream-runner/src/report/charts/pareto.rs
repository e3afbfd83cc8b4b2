//! `pareto`, the leaderboard view (as ann-benchmarks' recall/QPS plots): for each stream, the
//! error against the memory spent per distinct element, and against the time per element.
//! Each configuration (a structure with one setting of its swept parameters, `BSBF k=2`) is
//! a series, a point per memory size averaged over its replicate seeds. Each structure run
//! with several settings gets its own front over them (the points of its configurations that
//! none of its other points beats on both axes), drawn as a dotted staircase in the colour of
//! its first configuration, as ann-benchmarks draws each algorithm's front across its
//! parameters; the front of all the points is drawn as a dashed grey staircase.
//!
//! - Error: FPR, FNR or FPR + FNR (default; the QHT paper's E), since the start or against
//!   the window (`{ chart = "pareto", error = "fnr" }`), in percent.
//! - Bits per distinct element: the structure's memory as run (`memory_bits_used`) over the
//!   stream's distinct elements (the unseen count at the stream's end).
//! - ns per element (`pareto_time-N`, a chart of its own): the cell's wall time over its
//!   elements, as the run recorded it (the manifest's cell timings: stream generation,
//!   hashing, the structure and scoring). It is one timing of each cell (averaged over a
//!   configuration's seeds), not a repeated measurement, and its axis says so. Timings differ
//!   from run to run, so they are kept out of `pareto-N`, which, like every other chart, is
//!   byte-identical for the same results (after a shard merge too). Without timings there is
//!   no time chart.
//!
//! Derived series are left out: they are not structures that ran.

use super::{Panel, Series, Style, Target, XScale};
use crate::plan::ErrorMetric;
use crate::record::RawRow;
use crate::report::leaderboard::{self, Track};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A row of a structure that ran (not a derived series).
fn measured(r: &RawRow) -> bool {
    r.params.get("derived").is_none()
}

/// Whether a run gets the chart by default: two configurations or more.
pub fn applies(finals: &[&RawRow]) -> bool {
    let mut labels: Vec<&str> = finals
        .iter()
        .filter(|r| measured(r))
        .map(|r| r.config())
        .collect();
    labels.sort_unstable();
    labels.dedup();
    labels.len() >= 2
}

/// The error of a final row, in percent.
pub fn error(r: &RawRow, metric: ErrorMetric) -> Option<f64> {
    let w = |v: Option<Option<f64>>| v.flatten();
    let v = match metric {
        ErrorMetric::Fpr => r.fpr?,
        ErrorMetric::Fnr => r.fnr?,
        ErrorMetric::Sum => r.fpr? + r.fnr?,
        ErrorMetric::WindowFpr => w(r.w_fpr)?,
        ErrorMetric::WindowFnr => w(r.w_fnr)?,
        ErrorMetric::WindowSum => w(r.w_fpr)? + w(r.w_fnr)?,
    };
    Some(v * 100.0)
}

/// Whether the error is scored against the windowed truth.
fn windowed(metric: ErrorMetric) -> bool {
    matches!(
        metric,
        ErrorMetric::WindowFpr | ErrorMetric::WindowFnr | ErrorMetric::WindowSum
    )
}

/// The sliding-window lower bound as a curve `(bits per window element, ε in %)` for ε from
/// 0.001 % to 50 %: Naor & Yogev's `log₂(1/ε) + max(log₂(1/λ), log₂ log₂(1/ε))` bits per
/// window element at slack `λ = 1` (a structure may answer either way for keys between `W`
/// and `2W` back), the weakest form, below which no structure without false negatives can
/// reach a false positive probability `ε` (`dupstream_filters::theory`).
pub fn window_bound() -> Vec<(f64, f64)> {
    const W: u64 = 1 << 20;
    (0..=60)
        .map(|i| {
            let eps = 1e-5 * (0.5f64 / 1e-5).powf(f64::from(i) / 60.0);
            let bits =
                dupstream_filters::theory::sliding_window_lower_bound_bits_with_slack(W, eps, 1.0);
            (bits / W as f64, eps * 100.0)
        })
        .collect()
}

/// The [`window_bound`] over the x range of the points `(bits per window element, error in
/// %)`, so that it does not stretch the x axis (the y axis takes it in, down to the bound's
/// least error there).
pub fn bound_within(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let (lo, hi) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    window_bound()
        .into_iter()
        .filter(|p| p.0 >= lo && p.0 <= hi)
        .collect()
}

fn metric_name(metric: ErrorMetric) -> &'static str {
    match metric {
        ErrorMetric::Fpr => "FPR",
        ErrorMetric::Fnr => "FNR",
        ErrorMetric::Sum => "FPR + FNR",
        ErrorMetric::WindowFpr => "windowed FPR",
        ErrorMetric::WindowFnr => "windowed FNR",
        ErrorMetric::WindowSum => "windowed FPR + FNR",
    }
}

/// Each windowed cell's `(FPR, FNR)` in % over the interval after the warm-up, from its
/// checkpoints' counts, as the leaderboard scores it ([`leaderboard::error`]); empty
/// without a warm-up.
pub fn after_warmup(all: &[&RawRow], warmup: Option<u64>) -> BTreeMap<usize, (f64, f64)> {
    let Some(w) = warmup else {
        return BTreeMap::new();
    };
    let mut by_cell: BTreeMap<usize, Vec<&RawRow>> = BTreeMap::new();
    for r in all.iter().filter(|r| measured(r) && r.window.is_some()) {
        by_cell.entry(r.cell).or_default().push(r);
    }
    by_cell
        .into_iter()
        .filter_map(|(cell, mut rows)| {
            rows.sort_by_key(|r| r.position);
            Some((cell, leaderboard::error(&rows, Track::Windowed, Some(w))?))
        })
        .collect()
}

/// One configuration at one memory size, averaged over seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The configuration ([`RawRow::config`]).
    pub label: String,
    /// The structure it belongs to ([`RawRow::structure`]).
    pub structure: String,
    pub memory_nominal_bits: u64,
    pub bits_per_distinct: f64,
    pub error_pct: f64,
    pub ns_per_element: Option<f64>,
}

/// The points of one stream's rows; `structure` names the structure of a row. A windowed
/// error is taken from `interval` (by cell, [`after_warmup`]) where it has the cell.
pub fn points(
    rows: &[&RawRow],
    metric: ErrorMetric,
    interval: &BTreeMap<usize, (f64, f64)>,
    ns: &BTreeMap<usize, f64>,
    structure: impl Fn(&RawRow) -> String,
) -> Vec<Point> {
    // (configuration, memory) → (bits/distinct, error, ns) per seed, in first-seen order.
    type PerSeed = Vec<(f64, f64, Option<f64>)>;
    let mut acc: Vec<((String, u64), (String, PerSeed))> = Vec::new();
    for r in rows.iter().filter(|r| measured(r)) {
        let e = match (windowed(metric), interval.get(&r.cell)) {
            (true, Some(&(fpr, fnr))) => Some(match metric {
                ErrorMetric::WindowFpr => fpr,
                ErrorMetric::WindowFnr => fnr,
                _ => fpr + fnr,
            }),
            _ => error(r, metric),
        };
        let (Some(e), true) = (e, r.unseen > 0) else {
            continue;
        };
        // Memory per distinct element since the start; per window element on a windowed
        // error (the sliding-window question's unit).
        let bpd = match (windowed(metric), r.window) {
            (true, Some(w)) => r.memory_bits_used as f64 / w.max(1) as f64,
            _ => r.memory_bits_used as f64 / r.unseen as f64,
        };
        let key = (r.config().to_string(), r.memory_nominal_bits);
        let v = (bpd, e, ns.get(&r.cell).copied());
        match acc.iter_mut().find(|(k, _)| *k == key) {
            Some((_, (_, vs))) => vs.push(v),
            None => acc.push((key, (structure(r), vec![v]))),
        }
    }
    acc.into_iter()
        .map(|((label, memory_nominal_bits), (structure, vs))| {
            let n = vs.len() as f64;
            let timed: Vec<f64> = vs.iter().filter_map(|v| v.2).collect();
            Point {
                label,
                structure,
                memory_nominal_bits,
                bits_per_distinct: vs.iter().map(|v| v.0).sum::<f64>() / n,
                error_pct: vs.iter().map(|v| v.1).sum::<f64>() / n,
                ns_per_element: (timed.len() == vs.len())
                    .then(|| timed.iter().sum::<f64>() / timed.len() as f64),
            }
        })
        .collect()
}

/// The Pareto front of `(x, y)` points, both to be minimised: the points no other point
/// matches or beats on both, sorted by x (y then strictly falls).
pub fn front(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for p in sorted {
        if out.last().is_none_or(|last| p.1 < last.1) {
            out.push(p);
        }
    }
    out
}

/// A point of a panel: configuration, structure, x and y.
type Xy = (String, String, f64, f64);

/// One panel: a series per configuration (its points joined in x order), each structure's
/// own front where it ran several configurations, and the front of all.
fn panel(pts: &[Xy], title: String, x_desc: &str, y_desc: &str) -> Panel {
    let mut series: Vec<Series> = Vec::new();
    for (label, _, x, y) in pts {
        match series.iter_mut().find(|s| s.label == *label) {
            Some(s) => s.points.push((*x, *y)),
            None => series.push(Series {
                label: label.clone(),
                points: vec![(*x, *y)],
                band: None,
            }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.2, p.3)).collect();
    /// A structure: its name, its first configuration, its configurations, its points.
    type Of<'p> = (&'p str, &'p str, Vec<&'p str>, Vec<(f64, f64)>);
    let mut structures: Vec<Of> = Vec::new();
    for (label, structure, x, y) in pts {
        let i = match structures.iter().position(|s| s.0 == structure) {
            Some(i) => i,
            None => {
                structures.push((structure, label, Vec::new(), Vec::new()));
                structures.len() - 1
            }
        };
        let s = &mut structures[i];
        if !s.2.contains(&label.as_str()) {
            s.2.push(label);
        }
        s.3.push((*x, *y));
    }
    let fronts = structures
        .into_iter()
        .filter(|s| s.2.len() > 1)
        .map(|(_, first, _, points)| (first.to_string(), front(&points)))
        .collect();
    let (lo, hi) = xy
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    Panel {
        x_scale: if lo > 0.0 && hi / lo >= 4.0 {
            XScale::Log2
        } else {
            XScale::Linear
        },
        series,
        style: Style::Joined,
        front: front(&xy),
        fronts,
        ..Panel::new(title, x_desc, y_desc)
    }
}

/// Draws the chart (see the module doc), one per stream, from the final rows (and every row,
/// for the windowed error after the warm-up).
pub fn draw(
    t: Target<'_>,
    all: &[&RawRow],
    finals: &[&RawRow],
    metric: ErrorMetric,
) -> Result<Vec<PathBuf>> {
    let mut streams: BTreeMap<&str, Vec<&RawRow>> = BTreeMap::new();
    for r in finals.iter().filter(|r| measured(r)) {
        streams.entry(r.stream.as_str()).or_default().push(r);
    }
    let name = metric_name(metric);
    let interval = if windowed(metric) {
        after_warmup(all, t.warmup)
    } else {
        BTreeMap::new()
    };
    let y_desc = match t.warmup.filter(|_| !interval.is_empty()) {
        Some(w) => format!("{name} after the warm-up of {w} (%)"),
        None => format!("{name} (%)"),
    };
    let mut written = Vec::new();
    for (gi, (stream, rows)) in streams.iter().enumerate() {
        let pts = points(rows, metric, &interval, t.ns_per_element, |r| {
            t.structure(r).to_string()
        });
        if pts.is_empty() {
            continue;
        }
        let xy = |p: &Point, x: f64| (p.label.clone(), p.structure.clone(), x, p.error_pct);
        let by_memory: Vec<Xy> = pts.iter().map(|p| xy(p, p.bits_per_distinct)).collect();
        let on_window = windowed(metric) && rows.iter().any(|r| r.window.is_some());
        let mut memory = panel(
            &by_memory,
            format!("{name} vs memory"),
            if on_window {
                "bits per window element"
            } else {
                "bits per distinct element"
            },
            &y_desc,
        );
        if on_window && metric != ErrorMetric::WindowFnr {
            let xy: Vec<(f64, f64)> = by_memory.iter().map(|p| (p.2, p.3)).collect();
            memory.bound = bound_within(&xy);
        }
        written.extend(t.render(&["pareto", &gi.to_string()], stream, rows, vec![memory])?);
        let by_time: Vec<Xy> = pts
            .iter()
            .filter_map(|p| Some(xy(p, p.ns_per_element?)))
            .collect();
        if !by_time.is_empty() {
            let mut p = panel(
                &by_time,
                format!("{name} vs time"),
                "ns per element (one timing per cell, not repeated)",
                &y_desc,
            );
            if p.x_scale == XScale::Log2 {
                p.x_scale = XScale::Log10;
            }
            // Memory sizes joined in time order would zigzag: markers only.
            p.style = Style::Points;
            written.extend(t.render(&["pareto_time", &gi.to_string()], stream, rows, vec![p])?);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row;

    #[test]
    fn the_front_keeps_what_nothing_beats() {
        let pts = [
            (1.0, 50.0),
            (2.0, 10.0),
            (2.0, 20.0),
            (4.0, 12.0),
            (8.0, 1.0),
            (0.5, 60.0),
        ];
        assert_eq!(
            front(&pts),
            vec![(0.5, 60.0), (1.0, 50.0), (2.0, 10.0), (8.0, 1.0)]
        );
        assert_eq!(
            front(&[(1.0, 5.0), (1.0, 5.0)]),
            vec![(1.0, 5.0)],
            "a tie is one point"
        );
    }

    #[test]
    fn the_window_bound_is_naor_and_yogev_s_at_slack_w() {
        let b = window_bound();
        assert_eq!(b.len(), 61);
        // ε = 50 %: log2(2) = 1 bit, log2 log2 2 = 0; ε = 1e-5: 16.61 + 4.05 bits.
        assert!((b[60].0 - 1.0).abs() < 1e-9 && (b[60].1 - 50.0).abs() < 1e-9);
        let l = (1e5f64).log2();
        assert!((b[0].0 - (l + l.log2())).abs() < 1e-9, "{:?}", b[0]);
        assert!(b.windows(2).all(|w| w[0].0 > w[1].0 && w[0].1 < w[1].1));
    }

    #[test]
    fn a_structure_run_with_several_settings_gets_its_own_front() {
        let pt = |c: &str, s: &str, x: f64, y: f64| (c.to_string(), s.to_string(), x, y);
        let pts = [
            pt("BSBF k=1", "BSBF", 4.0, 14.0),
            pt("BSBF k=1", "BSBF", 8.0, 7.0),
            pt("BSBF k=2", "BSBF", 4.0, 19.0),
            pt("BSBF k=2", "BSBF", 8.0, 6.0),
            pt("SBF", "SBF", 4.0, 60.0),
            pt("SBF", "SBF", 8.0, 5.0),
        ];
        let p = panel(&pts, "t".into(), "x", "y");
        let labels: Vec<&str> = p.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            ["BSBF k=1", "BSBF k=2", "SBF"],
            "a series per configuration"
        );
        assert_eq!(
            p.fronts,
            vec![("BSBF k=1".to_string(), vec![(4.0, 14.0), (8.0, 6.0)])],
            "BSBF's front over k; SBF ran one setting: no front of its own"
        );
        assert_eq!(p.front, vec![(4.0, 14.0), (8.0, 5.0)], "the front of all");
    }

    #[test]
    fn points_average_seeds_and_leave_out_derived_series() {
        let mut a = test_row("SBF", 0, 0.10, 0.20);
        a.unseen = 1000;
        a.memory_bits_used = 8000;
        let mut b = a.clone();
        b.cell = 1;
        b.seed = 2;
        b.fpr = Some(0.30);
        let mut d = a.clone();
        d.cell = 9;
        d.label = "diff".into();
        d.config = "diff".into();
        d.params = d.params.prepend(&[("derived", "difference")]);
        let ns = BTreeMap::from([(0, 10.0), (1, 20.0)]);
        let structure = |r: &RawRow| r.structure().to_string();
        let none = BTreeMap::new();
        let p = points(&[&a, &b, &d], ErrorMetric::Sum, &none, &ns, structure);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!((p[0].bits_per_distinct - 8.0).abs() < 1e-12);
        assert!(
            (p[0].error_pct - 40.0).abs() < 1e-9,
            "mean of 30 % and 50 %"
        );
        assert_eq!(p[0].ns_per_element, Some(15.0));
        let p = points(&[&a], ErrorMetric::Fnr, &none, &BTreeMap::new(), structure);
        assert!((p[0].error_pct - 20.0).abs() < 1e-9);
        assert_eq!(p[0].ns_per_element, None, "no timing, no time panel");
        assert!(
            !applies(&[&a, &b, &d]),
            "one structure (and a derived series)"
        );
        let mut c = a.clone();
        c.label = "RSBF".into();
        c.config = "RSBF".into();
        assert!(applies(&[&a, &c]));
    }
}
