//! The simulation overlay: each simulated SBF's measured FN rate beside what Eq. 16 predicts
//! on its stream.

use super::figures::{Point, point};
use super::prediction::uniform_stream_fn_rate;
use crate::plan::units::format_bits;
use crate::record::RawRow;
use crate::report::charts::param::param_value;
use crate::report::stats::mean_ci;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;

/// The SBF rows at their last checkpoint, with `(m, K, P, Max, U, n)` (U from the stream's
/// nominal universe divided by the run's scale).
fn sbf_finals(rows: &[RawRow]) -> Result<Vec<(&RawRow, [u64; 6])>> {
    let mut out = Vec::new();
    for r in RawRow::finals(rows)
        .into_iter()
        .filter(|r| r.algorithm == "sbf")
    {
        let get = |p: &str| {
            param_value(r, p).with_context(|| {
                format!(
                    "cell {}: no `{p}` in params or stream `{}`",
                    r.cell, r.stream
                )
            })
        };
        if !r.stream.starts_with("uniform") {
            bail!(
                "the overlay needs uniform streams with `universe`, not {}",
                r.stream
            );
        }
        let universe = (get("universe")? as u64 / r.scale.max(1)).max(1);
        out.push((
            r,
            [
                get("m")? as u64,
                get("k")? as u64,
                get("p")? as u64,
                get("max")? as u64,
                universe,
                r.n,
            ],
        ));
    }
    if out.is_empty() {
        bail!("the simulation has no SBF rows");
    }
    Ok(out)
}

fn predict(v: &[u64; 6]) -> f64 {
    uniform_stream_fn_rate(v[0], v[1] as u32, v[2], v[3], v[4], v[5])
}

fn mean_point(
    figure: &str,
    panel: &str,
    series: &str,
    x: f64,
    vals: &[f64],
    source: &str,
) -> Point {
    let (m, ci) = mean_ci(vals);
    Point {
        ci95_pct: ci.is_finite().then_some(ci * 100.0),
        ..point(figure, panel, series, x, m, source)
    }
}

/// Fig. 1 overlay: measured FN rate vs K beside Eq. 16 over the stream's gaps.
pub(super) fn overlay_fig1(rows: &[RawRow]) -> Result<Vec<Point>> {
    let finals = sbf_finals(rows)?;
    // (series, K) → measured values and the prediction.
    let mut groups: BTreeMap<(String, u64), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (r, v) in &finals {
        let series = format!(
            "Max={} FPS={} m={} U={}",
            v[3],
            param_value(r, "fps").map_or("-".into(), |f| f.to_string()),
            v[0],
            v[4]
        );
        let g = groups.entry((series, v[1])).or_default();
        g.0.push(r.fnr.unwrap_or(0.0));
        g.1.push(predict(v));
    }
    let panel = "uniform stream: simulation vs Eq. 16 over its gaps";
    let mut out = Vec::new();
    for ((series, k), (measured, predicted)) in groups {
        out.push(mean_point(
            "deng-fig1",
            panel,
            &format!("{series} simulated"),
            k as f64,
            &measured,
            "simulation",
        ));
        out.push(mean_point(
            "deng-fig1",
            panel,
            &format!("{series} Eq. 16"),
            k as f64,
            &predicted,
            "prediction",
        ));
    }
    Ok(out)
}

/// Fig. 2 overlay: measured FN(Max = 3) − FN(Max = 1) vs the stream's mean gap `U`, beside the
/// same difference of Eq. 16 over the gaps.
pub(super) fn overlay_fig2(rows: &[RawRow]) -> Result<Vec<Point>> {
    let finals = sbf_finals(rows)?;
    // (stream, seed, memory) → Max → (measured, predicted, U).
    type ByMax = BTreeMap<u64, (f64, f64, u64)>;
    let mut pairs: BTreeMap<(String, u64, u64), ByMax> = BTreeMap::new();
    for (r, v) in &finals {
        pairs
            .entry((r.stream.clone(), r.seed, r.memory_nominal_bits))
            .or_default()
            .insert(v[3], (r.fnr.unwrap_or(0.0), predict(v), v[4]));
    }
    let mut by_x: BTreeMap<(u64, u64), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for ((_, _, mem), by_max) in &pairs {
        let (Some(a), Some(b)) = (by_max.get(&3), by_max.get(&1)) else {
            continue;
        };
        let e = by_x.entry((*mem, a.2)).or_default();
        e.0.push(a.0 - b.0);
        e.1.push(a.1 - b.1);
    }
    if by_x.is_empty() {
        bail!("the simulation needs SBFs with Max = 3 and Max = 1 on the same streams");
    }
    let panel = "uniform stream (mean gap U): simulation vs Eq. 16";
    let mut out = Vec::new();
    for ((mem, u), (measured, predicted)) in by_x {
        let x = (u as f64).log10();
        let mem = format_bits(mem);
        out.push(mean_point(
            "deng-fig2",
            panel,
            &format!("{mem} simulated"),
            x,
            &measured,
            "simulation",
        ));
        out.push(mean_point(
            "deng-fig2",
            panel,
            &format!("{mem} Eq. 16"),
            x,
            &predicted,
            "prediction",
        ));
    }
    Ok(out)
}
