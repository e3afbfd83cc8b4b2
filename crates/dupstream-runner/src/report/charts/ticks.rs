//! Ticks and number formats for the chart axes: "nice" linear ticks, log ticks, the values
//! measured as ticks when there are few, and numbers written short (`1.5M`, `10^-3`).

/// "Nice" tick positions over `[lo, hi]`: about `n` of them at 1, 2 or 5 × 10^k steps (at
/// least `min_step`).
pub(super) fn nice_ticks(lo: f64, hi: f64, n: usize, min_step: f64) -> Vec<f64> {
    let raw = ((hi - lo) / n.max(1) as f64).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
        .max(min_step);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The distinct values of `xs`, sorted (`None` when there are more than `max`).
pub(super) fn few_distinct(xs: &[f64], max: usize) -> Option<Vec<f64>> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    (v.len() <= max).then_some(v)
}

/// Ticks of a log10 axis over `[lo, hi]` (exponents): the decades, with 2 and 5 between
/// them when fewer than four decades are in range.
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let decades: Vec<f64> = ((lo.ceil() as i64)..=(hi.floor() as i64))
        .map(|k| k as f64)
        .collect();
    if decades.len() >= 4 {
        return decades;
    }
    let mut out = Vec::new();
    for k in (lo.floor() as i64)..=(hi.ceil() as i64) {
        for m in [1.0f64, 2.0, 5.0] {
            let t = k as f64 + m.log10();
            if t >= lo - 1e-9 && t <= hi + 1e-9 {
                out.push(t);
            }
        }
    }
    out
}

/// A number without trailing zeros, with at most `decimals` decimals.
pub(super) fn trim(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A count as people read it on an axis: `500K`, `1.5M`, `2G`, `3.58`.
pub fn human_count(x: f64) -> String {
    let a = x.abs();
    if a >= 1e9 {
        format!("{}G", trim(x / 1e9, 2))
    } else if a >= 1e6 {
        format!("{}M", trim(x / 1e6, 2))
    } else if a >= 1e4 {
        format!("{}K", trim(x / 1e3, 1))
    } else if a == 0.0 {
        "0".into()
    } else {
        // Three significant digits.
        let decimals = (2.0 - a.log10().floor()).max(0.0) as usize;
        trim(x, decimals)
    }
}

/// A value of a log10 axis at exponent `t`.
pub(super) fn log_label(t: f64) -> String {
    let v = 10f64.powf(t);
    if !(1e-4..1e6).contains(&v) {
        return format!("{v:.0e}");
    }
    let decimals = (-t.floor()).max(0.0) as usize;
    trim(v, decimals)
}

/// `lo..hi` widened by `frac` of its span on each side; a span too narrow to tell values
/// apart on an axis (under 0.1 % of the values) becomes ±5 % around them (±0.5 around 0).
pub(super) fn pad((lo, hi): (f64, f64), frac: f64) -> (f64, f64) {
    let mid = (lo + hi) / 2.0;
    if lo > hi {
        (0.0, 1.0)
    } else if hi - lo <= 1e-3 * mid.abs() {
        let d = if mid == 0.0 { 0.5 } else { 0.05 * mid.abs() };
        (mid - d, mid + d)
    } else {
        let d = (hi - lo) * frac;
        (lo - d, hi + d)
    }
}

pub(super) fn min_max(v: impl Iterator<Item = f64>) -> (f64, f64) {
    v.filter(|x| x.is_finite())
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)))
}
