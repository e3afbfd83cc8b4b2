//! The analytic figures, Deng & Rafiei Fig. 1 and Fig. 2, from the formulas alone.

use dupstream_filters::theory::{FnSetting, fn_rate, optimal_k_for_fn};

/// One point of a theory chart, as written to CSV.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Point {
    pub figure: String,
    pub panel: String,
    pub series: String,
    pub x: f64,
    pub y_pct: f64,
    pub ci95_pct: Option<f64>,
    pub source: String,
}

/// The settings of Fig. 1's first panel: `Max = 1`, `FPS = 0.1`, several `m` and `δ`.
pub const FIG1_SPACE_GAPS: [(u64, u64); 6] = [
    (100_000, 200),
    (100_000, 10_000),
    (100_000, 50_000),
    (10_000_000, 1_000_000),
    (10_000_000, 100_000),
    (1_000_000_000, 100_000_000),
];

/// `(Max, FPS)` of Fig. 1's second panel, each at `m = 10⁵`, `δ = 10⁴`.
pub const FIG1_MAX_FPS: [(u64, f64); 4] = [(1, 0.2), (1, 0.1), (3, 0.1), (3, 0.01)];

pub(super) fn fig1() -> Vec<Point> {
    let mut out = Vec::new();
    let base = FnSetting {
        max: 1,
        k: 1,
        fps: 0.1,
        m: 100_000,
        delta: 200,
        phi: 0.0,
        f_over_n: 1e-5,
    };
    for (m, delta) in FIG1_SPACE_GAPS {
        let series = format!("m={m} δ={delta}");
        for k in 1..=10u32 {
            let s = FnSetting {
                k,
                m,
                delta,
                ..base
            };
            out.push(point(
                "deng-fig1",
                "Max=1, FPS=0.1 (φ=0, f/N=1e-5)",
                &series,
                f64::from(k),
                fn_rate(&s),
                "theory",
            ));
        }
    }
    for (max, fps) in FIG1_MAX_FPS {
        let series = format!("Max={max} FPS={fps}");
        for k in 1..=10u32 {
            let s = FnSetting {
                k,
                max,
                fps,
                m: 100_000,
                delta: 10_000,
                ..base
            };
            out.push(point(
                "deng-fig1",
                "m=1e5, δ=1e4 (φ=0, f/N=1e-5)",
                &series,
                f64::from(k),
                fn_rate(&s),
                "theory",
            ));
        }
    }
    out
}

/// `(FPS, m, φ̂)` of Fig. 2's series.
pub const FIG2_SETTINGS: [(f64, u64, f64); 5] = [
    (0.1, 100_000, 0.0),
    (0.01, 100_000, 0.0),
    (0.1, 10_000_000, 0.0),
    (0.01, 10_000_000, 0.0),
    (0.1, 100_000, 0.01),
];

/// The optimal `K` for `Max` at a setting (Section 4.1: tried over `K ≤ 10` at `δ = 200`).
pub fn fig2_optimal_k(max: u64, fps: f64, m: u64, phi: f64) -> u32 {
    let s = FnSetting {
        max,
        k: 1,
        fps,
        m,
        delta: 200,
        phi,
        f_over_n: 0.0,
    };
    optimal_k_for_fn(&s, 1..=10).0
}

pub(super) fn fig2() -> Vec<Point> {
    let mut out = Vec::new();
    for (fps, m, phi) in FIG2_SETTINGS {
        let k1 = fig2_optimal_k(1, fps, m, phi);
        let k3 = fig2_optimal_k(3, fps, m, phi);
        let series = format!("FPS={fps} m={m} φ={phi} (K={k3} vs {k1})");
        // Gaps 10 .. 10^9, 8 per decade.
        for i in 8..=72u32 {
            let delta = 10f64.powf(f64::from(i) / 8.0).round() as u64;
            let f = |max: u64, k: u32| {
                fn_rate(&FnSetting {
                    max,
                    k,
                    fps,
                    m,
                    delta,
                    phi,
                    f_over_n: 0.0,
                })
            };
            out.push(point(
                "deng-fig2",
                "Max=3 − Max=1",
                &series,
                (delta as f64).log10(),
                f(3, k3) - f(1, k1),
                "theory",
            ));
        }
    }
    out
}

pub(super) fn point(
    figure: &str,
    panel: &str,
    series: &str,
    x: f64,
    y: f64,
    source: &str,
) -> Point {
    Point {
        figure: figure.into(),
        panel: panel.into(),
        series: series.into(),
        x,
        y_pct: y * 100.0,
        ci95_pct: None,
        source: source.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig1_is_minimal_at_k2_for_max1_fps01() {
        // Section 4.1: with Max = 1 and FPS = 0.1, K = 2 "regardless of the input stream and
        // the amount of space".
        for (m, delta) in FIG1_SPACE_GAPS {
            let s = FnSetting {
                max: 1,
                k: 1,
                fps: 0.1,
                m,
                delta,
                phi: 0.0,
                f_over_n: 1e-5,
            };
            let (k, _) = optimal_k_for_fn(&s, 1..=10);
            assert!((1..=3).contains(&k), "m={m} δ={delta}: K={k}");
        }
    }

    #[test]
    fn fig2_sign_changes_with_the_gap() {
        // Section 4.1: Max = 3 is better for small gaps, Max = 1 for larger ones.
        let pts = fig2();
        let series: Vec<&Point> = pts
            .iter()
            .filter(|p| p.series.starts_with("FPS=0.1 m=100000 φ=0"))
            .collect();
        let first_neg = series.iter().position(|p| p.y_pct < -1e-9);
        let later_pos = series.iter().rposition(|p| p.y_pct > 1e-9);
        assert!(
            first_neg.is_some() && later_pos.is_some() && first_neg < later_pos,
            "{:?}",
            series.iter().map(|p| (p.x, p.y_pct)).collect::<Vec<_>>()
        );
    }
}
