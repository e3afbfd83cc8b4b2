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

/// Whether `worse` is worse than `better` by a paired, two-sided Student t-test at 95 % over
/// their replicates (`worse[i]` and `better[i]` measured on the same seed): the mean of the
/// differences is positive and its t statistic exceeds [`t95`] at `n − 1` degrees of freedom.
/// Differences without spread separate when their mean is positive (identical seeds, exact
/// counts). Fewer than two pairs never separate.
pub fn paired_worse(worse: &[f64], better: &[f64]) -> bool {
    let d: Vec<f64> = worse.iter().zip(better).map(|(w, b)| w - b).collect();
    if d.len() < 2 {
        return false;
    }
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return false;
    }
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if var == 0.0 {
        return true;
    }
    mean / (var / n).sqrt() > t95(d.len() - 1)
}

/// Kendall's τ-b between two orderings of the same items (`x[i]` and `y[i]` describe item
/// `i`), ties in either counted as neither concordant nor discordant. `None` for fewer than
/// two items or when either side is all ties.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    let (mut conc, mut disc, mut tie_x, mut tie_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].total_cmp(&x[j]);
            let dy = y[i].total_cmp(&y[j]);
            use std::cmp::Ordering::Equal;
            match (dx, dy) {
                (Equal, Equal) => {}
                (Equal, _) => tie_x += 1,
                (_, Equal) => tie_y += 1,
                (a, b) if a == b => conc += 1,
                _ => disc += 1,
            }
        }
    }
    let n1 = (conc + disc + tie_x) as f64;
    let n2 = (conc + disc + tie_y) as f64;
    (n1 > 0.0 && n2 > 0.0).then(|| (conc - disc) as f64 / (n1 * n2).sqrt())
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

    #[test]
    fn paired_t_separates_only_a_consistent_difference() {
        // Differences 1, 1.1, 0.9: mean 1, s = 0.1, t = 17.3 > 4.303 (2 df).
        assert!(paired_worse(&[2.0, 3.1, 4.9], &[1.0, 2.0, 4.0]));
        // Differences 1, -1, 1: mean 1/3, s = 1.155, t = 0.5.
        assert!(!paired_worse(&[2.0, 1.0, 5.0], &[1.0, 2.0, 4.0]));
        // The better one is never worse; one pair is never enough; no spread separates.
        assert!(!paired_worse(&[1.0, 2.0, 4.0], &[2.0, 3.1, 4.9]));
        assert!(!paired_worse(&[9.0], &[1.0]));
        assert!(paired_worse(&[1.0, 1.0], &[0.0, 0.0]));
        assert!(!paired_worse(&[1.0, 1.0], &[1.0, 1.0]));
    }

    #[test]
    fn kendall_tau_b_by_hand() {
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]),
            Some(1.0)
        );
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]),
            Some(-1.0)
        );
        // Pairs (12) c, (13) c, (23) d: τ = 1/3.
        let t = kendall_tau_b(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]).unwrap();
        assert!((t - 1.0 / 3.0).abs() < 1e-12);
        // A tie in x: (12) tie_x, (13) c, (23) c: τ_b = 2 / sqrt(2 · 3).
        let t = kendall_tau_b(&[1.0, 1.0, 2.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!((t - 2.0 / 6f64.sqrt()).abs() < 1e-12);
        assert_eq!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
    }
}
