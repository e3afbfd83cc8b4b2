//! Statistics over replicate seeds, and the reproduction's match criterion.

/// Two-sided 95 % Student-t quantile for `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if df == 0 {
        f64::NAN
    } else {
        T.get(df - 1).copied().unwrap_or(1.96)
    }
}

/// Mean and 95 % confidence half-width (NaN for a single value).
pub fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, t95(xs.len() - 1) * (var / n).sqrt())
}

/// The match criterion of the reproduction: within 3 % relative or 0.05 percentage points,
/// whichever is larger.
pub fn within_tolerance(ours_pct: f64, paper_pct: f64) -> bool {
    (ours_pct - paper_pct).abs() <= (0.03 * paper_pct.abs()).max(0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_intervals_and_tolerance() {
        let (m, ci) = mean_ci(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-12);
        // s = 1, n = 3: 4.303 / sqrt(3).
        assert!((ci - 4.303 / 3f64.sqrt()).abs() < 1e-12);
        assert!(mean_ci(&[5.0]).1.is_nan());
        assert_eq!(t95(100), 1.96);
        assert!(within_tolerance(10.2, 10.0) && !within_tolerance(10.4, 10.0));
        assert!(within_tolerance(0.04, 0.0) && !within_tolerance(0.06, 0.0));
    }
}
