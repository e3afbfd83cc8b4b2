//! The FN rate Eq. 16 predicts on a simulated stream: averaged over a uniform stream's gaps,
//! with each cell's setting probability drawn for a finite universe of keys.

use dupstream_filters::theory::pr0_after_gap;

/// Eq. 16 averaged over the gaps of a uniform stream (see the module doc): `m` cells, `k`
/// hash functions, `p_cells` cells decremented per element, `Max`, universe `u`, length `n`.
pub fn uniform_stream_fn_rate(m: u64, k: u32, p_cells: u64, max: u64, u: u64, n: u64) -> f64 {
    if n < 2 || u == 0 {
        return 0.0;
    }
    let dec_prob = (p_cells as f64 / m as f64).min(1.0);
    let q = 1.0 - 1.0 / u as f64;
    let lnq = q.ln();
    // Σ_{δ=a}^{b−1} q^{δ−1}, evaluated stably.
    let geo = |a: u64, b: u64| -> f64 {
        if u == 1 {
            return if a <= 1 && b > 1 { 1.0 } else { 0.0 };
        }
        let qa = (lnq * (a - 1) as f64).exp();
        let qb = (lnq * (b - 1) as f64).exp();
        (qa - qb) / (1.0 - q)
    };
    let f = |delta: u64| fn_rate_finite_universe(delta - 1, k, dec_prob, max, u, m);
    let last = n; // gaps 1..n−1
    let horizon = last.min(u.saturating_mul(80).max(4096));
    let (mut num, mut den) = (0.0, 0.0);
    let mut a = 1u64;
    while a < horizon {
        let b = if a <= 2048 {
            a + 1
        } else {
            ((a as f64 * 1.02) as u64).max(a + 1)
        }
        .min(horizon);
        let mid = (a + b - 1) / 2;
        let w = (n - mid) as f64 / u as f64 * geo(a, b);
        num += w * f(mid);
        den += w;
        a = b;
    }
    // Gaps beyond the horizon (negligible weight by construction) count at the horizon's rate.
    if horizon < last {
        let w = (n - horizon) as f64 / u as f64 * geo(horizon, last);
        num += w * f(horizon);
        den += w;
    }
    if den > 0.0 { num / den } else { 0.0 }
}

/// Eq. 16 for a duplicate whose predecessor came `iterations` elements before, on a uniform
/// stream over `u` keys: each of its `K` cells is set in an iteration with probability `X/U`,
/// where `X` is the number of *other* keys hashed to it, `X ~ Poisson((U − 1)·K/m)` (the
/// heterogeneity of the `k_i` that Eq. 18's `φ` describes), so `PR0` is averaged over `X`
/// and the `K` cells are independent.
pub fn fn_rate_finite_universe(
    iterations: u64,
    k: u32,
    dec_prob: f64,
    max: u64,
    u: u64,
    m: u64,
) -> f64 {
    let lambda = (u.saturating_sub(1)) as f64 * f64::from(k) / m as f64;
    // Poisson weights from the mode outwards until they are negligible.
    let mode = lambda.floor() as u64;
    let ln_pmf = |x: u64| -> f64 {
        let xf = x as f64;
        let ln_fact = if x < 2 {
            0.0
        } else {
            (1..=x).map(|i| (i as f64).ln()).sum::<f64>()
        };
        if lambda == 0.0 {
            return if x == 0 { 0.0 } else { f64::NEG_INFINITY };
        }
        xf * lambda.ln() - lambda - ln_fact
    };
    let pr0 = |x: u64| pr0_after_gap(iterations, (x as f64 / u as f64).min(1.0), dec_prob, max);
    let (mut acc, mut mass) = (0.0, 0.0);
    let mut w = ln_pmf(mode).exp();
    let mut x = mode;
    // Upwards (weights by the recurrence w(x+1) = w(x)·λ/(x+1)).
    loop {
        acc += w * pr0(x);
        mass += w;
        x += 1;
        w *= lambda / x as f64;
        if w < 1e-12 * mass || x > mode + 100_000 {
            break;
        }
    }
    // Downwards.
    let mut w = ln_pmf(mode).exp();
    let mut x = mode;
    while x > 0 {
        w *= x as f64 / lambda;
        x -= 1;
        acc += w * pr0(x);
        mass += w;
        if w < 1e-12 * mass {
            break;
        }
    }
    let pr0_mean = acc / mass;
    1.0 - (1.0 - pr0_mean).powf(f64::from(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_universe_tends_to_eq16_for_a_large_universe() {
        // With many keys per cell, X/U concentrates on K/m: Eq. 16 with k = K/m.
        let (m, k, max) = (1u64 << 16, 2u32, 1u64);
        let dp = 4.0 / m as f64;
        let big = fn_rate_finite_universe(20_000, k, dp, max, 1 << 40, m);
        let eq16 = dupstream_filters::theory::average_fn_rate(20_000, 2.0 / m as f64, dp, max, k);
        assert!((big - eq16).abs() < 1e-3 * eq16, "{big} vs {eq16}");
        // With fewer keys than cells, many cells are never re-set: the FN rate is higher.
        let small = fn_rate_finite_universe(20_000, k, dp, max, 1 << 14, m);
        assert!(small > eq16, "{small} vs {eq16}");
    }

    #[test]
    fn uniform_prediction_matches_direct_sum() {
        // The binned average against a direct sum over every gap (small case).
        let (m, k, p, max, u, n) = (2000u64, 2u32, 4u64, 1u64, 500u64, 20_000u64);
        let dp = p as f64 / m as f64;
        let q: f64 = 1.0 - 1.0 / u as f64;
        let (mut num, mut den) = (0.0, 0.0);
        for d in 1..n {
            let w = (n - d) as f64 * q.powi(d as i32 - 1);
            num += w * fn_rate_finite_universe(d - 1, k, dp, max, u, m);
            den += w;
        }
        let direct = num / den;
        let binned = uniform_stream_fn_rate(m, k, p, max, u, n);
        assert!(
            (binned - direct).abs() < 2e-3 * direct.max(1e-3),
            "binned {binned} direct {direct}"
        );
    }
}
