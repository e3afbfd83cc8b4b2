//! The analysis of the Stable Bloom filter: Deng & Rafiei, *Approximately Detecting Duplicates
//! for Streaming Data using Stable Bloom Filters*, SIGMOD 2006, Sections 3.3–4.1 and the
//! Appendix. Every equation the paper uses to set parameters and to draw Fig. 1 (FN rate vs `K`)
//! and Fig. 2 (FN rate difference `Max = 3` − `Max = 1` vs gap) is a function here, with its
//! equation number; [`crate::sbf`] re-exports the ones it needs, so each formula has one
//! implementation.
//!
//! # Symbols
//! The paper uses both `K` (number of hash functions) and `k` (probability that a cell is set in
//! one iteration), `P` (cells decremented per iteration) and `p` (probability that a cell is
//! decremented in one iteration). Rust cannot tell them apart by case, so here:
//! `k: u32` is `K`, `p_cells: f64` is `P` (real-valued: Eq. 17 gives a real), `set_prob` is `k`
//! and `dec_prob` is `p`. For a uniform stream `set_prob = K/m` and `dec_prob = P/m`
//! (Theorem 3).
//!
//! # The cell process
//! Theorem 1 and Eq. 9 look at one cell. In each iteration it is decremented by one (if
//! non-zero) with probability `p`, then set to `Max` with probability `k`. Eq. 1 (cell starts at
//! 0) and Eq. 9 (cell starts at `Max`) sum over the time of the last setting; that is the same as
//! running this `Max + 1`-state Markov chain for `N` (or `δ`) steps, which is how
//! [`pr_zero_after`] and [`pr0_after_gap`] evaluate them: exactly, with non-negative terms only
//! (no cancellation), in `O(N·Max)` for short horizons and `O(Max³ log N)` by repeated squaring
//! for long ones (Fig. 2's gaps, `m` up to `10⁹`); squaring costs about `N·ε` of relative
//! accuracy (`10⁻⁷` at `N = 10⁹`), far below anything a figure shows. The tests check both
//! against the paper's sums term by term.
//!
//! # Readings
//! - Eq. 9's `δ` is the number of iterations the cell goes through between the predecessor's
//!   setting and the duplicate's probe; the paper defines the gap as "the number of elements
//!   between a duplicate and its nearest predecessor" and uses it directly as that count. We
//!   follow the formula: a duplicate at stream distance `δ` (positions `i − δ` and `i`) sees at
//!   most `δ − 1` decrements in [`crate::sbf`] (the decrement of its own iteration comes after
//!   the probe), so Eq. 9 with `δ` is a slight over-estimate of the simulated FN probability.
//! - Eq. 19 is Eq. 16 with the cells' setting probability written through `φ` (Eq. 18); Fig. 1
//!   and 2 evaluate it with `P` from Eq. 17 (real-valued, not rounded), `p = P/m` and
//!   `k = k(φ, f/N, K, m)` by inverting Eq. 18 ([`fn_rate`]).
//!
//! # The sliding-window lower bound
//! Beside the SBF's analysis, the space lower bound for sliding-window membership (Naor &
//! Yogev) that windowed results are read against: [`sliding_window_lower_bound_bits`].

/// Upper tail of the binomial distribution, `Pr(Bin(n, q) ≥ at_least)`.
///
/// This is Eq. 2 / Eq. 10 (`Pr(SBF = 0 | A_l)`, `n = l`, `at_least = Max`, `q = p`: the cell was
/// set `l` iterations ago and has been decremented at least `Max` times since) and Eq. 12
/// (`n = δ`). Evaluated in log space: the upper tail is summed directly when the mean is below
/// `at_least` (so tiny tails keep their relative precision), otherwise as one minus the lower
/// tail.
pub fn binomial_tail(n: u64, q: f64, at_least: u64) -> f64 {
    if at_least == 0 {
        return 1.0;
    }
    if at_least > n || q <= 0.0 {
        return 0.0;
    }
    if q >= 1.0 {
        return 1.0;
    }
    let (nf, lq, l1q) = (n as f64, q.ln(), (-q).ln_1p());
    // ln of the pmf at j, by ln C(n, j) accumulated term by term.
    let mean = nf * q;
    if mean < at_least as f64 {
        let mut ln_c = 0.0;
        for i in 0..at_least {
            ln_c += ((nf - i as f64) / (i as f64 + 1.0)).ln();
        }
        let mut sum = 0.0;
        let mut j = at_least;
        loop {
            let term = (ln_c + j as f64 * lq + (nf - j as f64) * l1q).exp();
            sum += term;
            if j == n || (term <= sum * 1e-17 && j as f64 > mean) {
                break;
            }
            ln_c += ((nf - j as f64) / (j as f64 + 1.0)).ln();
            j += 1;
        }
        sum.min(1.0)
    } else {
        let mut ln_c = 0.0;
        let mut lower = 0.0;
        for j in 0..at_least {
            lower += (ln_c + j as f64 * lq + (nf - j as f64) * l1q).exp();
            ln_c += ((nf - j as f64) / (j as f64 + 1.0)).ln();
        }
        (1.0 - lower).max(0.0)
    }
}

/// Eq. 3 / Eq. 11: `Pr(A_l) = (1 − k)^l · k`, the probability that the most recent setting of a
/// cell happened `l` iterations ago.
pub fn pr_last_set(l: u64, set_prob: f64) -> f64 {
    (1.0 - set_prob).powf(l as f64) * set_prob
}

/// Eq. 5 / Eq. 13: `Pr(Ā_N) = (1 − k)^N`, the probability that a cell was never set in `N`
/// iterations.
pub fn pr_never_set(n: u64, set_prob: f64) -> f64 {
    (1.0 - set_prob).powf(n as f64)
}

/// Largest `Max` the cell-process functions accept (their cost grows as `Max³`).
pub const MAX_CHAIN_MAX: u64 = 255;

/// Horizons up to this many iterations are stepped one by one; longer ones use squaring.
const DIRECT_STEPS: u64 = 4096;

/// Distribution of a cell's value after `steps` iterations from `start` (see the module doc).
fn cell_distribution(start: u64, steps: u64, set_prob: f64, dec_prob: f64, max: u64) -> Vec<f64> {
    assert!(
        (1..=MAX_CHAIN_MAX).contains(&max),
        "Max = {max} outside 1..={MAX_CHAIN_MAX}"
    );
    let s = max as usize + 1;
    let (k, p) = (set_prob.clamp(0.0, 1.0), dec_prob.clamp(0.0, 1.0));
    let mut v = vec![0.0; s];
    v[start.min(max) as usize] = 1.0;
    let step = |x: &[f64], out: &mut [f64]| {
        // Decrement with probability p (value 0 stays), then set to Max with probability k.
        out[0] = (1.0 - k) * (x[0] + p * x[1]);
        for i in 1..s - 1 {
            out[i] = (1.0 - k) * ((1.0 - p) * x[i] + p * x[i + 1]);
        }
        out[s - 1] = (1.0 - k) * (1.0 - p) * x[s - 1] + k;
    };
    if steps <= DIRECT_STEPS {
        let mut w = vec![0.0; s];
        for _ in 0..steps {
            step(&v, &mut w);
            std::mem::swap(&mut v, &mut w);
        }
        return v;
    }
    // Row-stochastic transition matrix T (row = from), then v · T^steps by squaring.
    let mut t = vec![0.0; s * s];
    let mut row = vec![0.0; s];
    let mut unit = vec![0.0; s];
    for from in 0..s {
        unit.fill(0.0);
        unit[from] = 1.0;
        step(&unit, &mut row);
        t[from * s..(from + 1) * s].copy_from_slice(&row);
    }
    let mul = |a: &[f64], b: &[f64]| {
        let mut c = vec![0.0; s * s];
        for i in 0..s {
            for l in 0..s {
                let a_il = a[i * s + l];
                if a_il != 0.0 {
                    for j in 0..s {
                        c[i * s + j] += a_il * b[l * s + j];
                    }
                }
            }
        }
        c
    };
    let mut e = steps;
    while e > 0 {
        if e & 1 == 1 {
            let mut w = vec![0.0; s];
            for i in 0..s {
                for j in 0..s {
                    w[j] += v[i] * t[i * s + j];
                }
            }
            v = w;
        }
        e >>= 1;
        if e > 0 {
            t = mul(&t, &t);
        }
    }
    v
}

/// Eq. 1 (Theorem 1): `Pr(SBF_N = 0)`, the probability that a cell which starts at 0 is zero
/// after `N` iterations, when each iteration decrements it with probability `p = dec_prob` and
/// sets it to `Max` with probability `k = set_prob`.
///
/// # Panics
/// If `max` is 0 or above [`MAX_CHAIN_MAX`].
pub fn pr_zero_after(n: u64, set_prob: f64, dec_prob: f64, max: u64) -> f64 {
    cell_distribution(0, n, set_prob, dec_prob, max)[0]
}

/// Eq. 6 (Corollary 2): `Pr(SBF_N = 0) − Pr(SBF_{N−1} = 0) = k(1 − k)^{N−1}(Pr(SBF_N = 0 |
/// A_{N−1}) − 1)`, the per-iteration change of [`pr_zero_after`]; never positive (Lemma 1) and
/// geometrically vanishing (the exponential convergence rate). Requires `n ≥ 1`.
pub fn zero_probability_change(n: u64, set_prob: f64, dec_prob: f64, max: u64) -> f64 {
    let n = n.max(1);
    set_prob * (1.0 - set_prob).powf((n - 1) as f64) * (binomial_tail(n - 1, dec_prob, max) - 1.0)
}

/// Eq. 7 (Theorem 2): the limit `Pr(SBF_∞ = 0) = (1 / (1 + 1/(p(1/k − 1))))^Max` for a cell
/// decremented with probability `p` and set with probability `k` per iteration.
pub fn stable_zero_probability(set_prob: f64, dec_prob: f64, max: u64) -> f64 {
    let r = 1.0 / (1.0 + 1.0 / (dec_prob * (1.0 / set_prob - 1.0)));
    r.powf(max as f64)
}

/// Eq. 20–23 (Appendix, proof of Theorem 2): the whole stationary distribution
/// `[Pr(0), Pr(1), …, Pr(Max)]` of a cell. Solving the balance equations gives, with
/// `r = p(1 − k) / (p(1 − k) + k)`: `Pr(0) = r^Max` (Eq. 7) and `Pr(v) = r^{Max−v}(1 − r)` for
/// `v ≥ 1`.
///
/// # Panics
/// If `max` is 0 or above [`MAX_CHAIN_MAX`].
pub fn stable_distribution(set_prob: f64, dec_prob: f64, max: u64) -> Vec<f64> {
    assert!(
        (1..=MAX_CHAIN_MAX).contains(&max),
        "Max = {max} outside 1..={MAX_CHAIN_MAX}"
    );
    let a = dec_prob * (1.0 - set_prob);
    let r = a / (a + set_prob);
    let mut d = Vec::with_capacity(max as usize + 1);
    d.push(r.powf(max as f64));
    d.extend((1..=max).map(|v| r.powf((max - v) as f64) * (1.0 - r)));
    d
}

/// Theorem 3 (SBF stable point): the expected fraction of zero cells of a stable SBF is at least
/// `(1 / (1 + 1/(P(1/K − 1/m))))^Max`, with equality for a uniform stream (Corollary 4). It is
/// Eq. 7 with `k = K/m` and `p = P/m`.
pub fn stable_zero_fraction(k: u32, max: u64, p_cells: f64, m: u64) -> f64 {
    let r = 1.0 / (1.0 + 1.0 / (p_cells * (1.0 / f64::from(k) - 1.0 / m as f64)));
    r.powf(max as f64)
}

/// Eq. 8 (Corollary 3, 5): `FPS = (1 − (1 / (1 + 1/(P(1/K − 1/m))))^Max)^K`, the false
/// positive rate of a stable SBF on a uniform stream and an upper bound of it at every time
/// point and for every stream.
pub fn fp_bound(k: u32, max: u64, p_cells: f64, m: u64) -> f64 {
    (1.0 - stable_zero_fraction(k, max, p_cells, m)).powf(f64::from(k))
}

/// Eq. 17: the number of cells to decrement per iteration so that the stable false positive rate
/// (Eq. 8) equals `fps`: `P = 1 / ((1/(1 − FPS^{1/K})^{1/Max} − 1)(1/K − 1/m))`. Real-valued;
/// the paper truncates it (it reports `P = 4` for `FPS = 10%, Max = 1, K = 2`, where Eq. 17
/// gives 4.33, `P = 10` for 10.9 and `P = 141` for 141.3). Needs `m > K` and `0 < fps < 1`.
pub fn p_for_fps(m: u64, k: u32, max: u64, fps: f64) -> f64 {
    let k = f64::from(k);
    let z = 1.0 - fps.powf(1.0 / k);
    1.0 / ((1.0 / z.powf(1.0 / max as f64) - 1.0) * (1.0 / k - 1.0 / m as f64))
}

/// Eq. 9: `PR0(δ, k)`, the probability that a cell which was just set to `Max` (by a duplicate's
/// predecessor) is zero `δ` iterations later, i.e. that the duplicate loses this cell. Sum over
/// the time of the last re-setting (Eq. 10–13); evaluated by the cell process (module doc).
///
/// # Panics
/// If `max` is 0 or above [`MAX_CHAIN_MAX`].
pub fn pr0_after_gap(delta: u64, set_prob: f64, dec_prob: f64, max: u64) -> f64 {
    cell_distribution(max, delta, set_prob, dec_prob, max)[0]
}

/// Eq. 14: `Pr(FN_i) = 1 − Π_j (1 − PR0(δ_i, k_ij))`, the probability of a false negative for a
/// duplicate with gap `δ` whose `K` cells have setting probabilities `set_probs`.
pub fn fn_probability(delta: u64, set_probs: &[f64], dec_prob: f64, max: u64) -> f64 {
    1.0 - set_probs
        .iter()
        .map(|&k| 1.0 - pr0_after_gap(delta, k, dec_prob, max))
        .product::<f64>()
}

/// Eq. 15: `E(#FN) = Σ_i Pr(FN_i)`, the expected number of false negatives over duplicates given
/// as `(δ_i, [k_i1 … k_iK])`.
pub fn expected_false_negatives<'a>(
    duplicates: impl IntoIterator<Item = (u64, &'a [f64])>,
    dec_prob: f64,
    max: u64,
) -> f64 {
    duplicates
        .into_iter()
        .map(|(delta, ks)| fn_probability(delta, ks, dec_prob, max))
        .sum()
}

/// Eq. 16 (and Eq. 19, its `φ` form): the average FN rate `f(δ̂, k̂) = 1 − (1 − PR0(δ̂, k̂))^K`
/// when all `K` cells have the same setting probability `k̂`.
pub fn average_fn_rate(delta: u64, set_prob: f64, dec_prob: f64, max: u64, k: u32) -> f64 {
    1.0 - (1.0 - pr0_after_gap(delta, set_prob, dec_prob, max)).powf(f64::from(k))
}

/// Eq. 18: `φ_i = (k_i − f_i/N − (K/m)(1 − f_i/N)) / sqrt((K/m)(1 − K/m))`, the standardised
/// setting probability of a cell of element `x_i` whose relative frequency is `f_over_n = f_i/N`.
pub fn phi(set_prob: f64, f_over_n: f64, k: u32, m: u64) -> f64 {
    let km = f64::from(k) / m as f64;
    (set_prob - f_over_n - km * (1.0 - f_over_n)) / (km * (1.0 - km)).sqrt()
}

/// Eq. 18 solved for `k_i`: the setting probability for a given `φ`, clamped to `[0, 1]`.
pub fn set_probability_from_phi(phi: f64, f_over_n: f64, k: u32, m: u64) -> f64 {
    let km = f64::from(k) / m as f64;
    (phi * (km * (1.0 - km)).sqrt() + f_over_n + km * (1.0 - f_over_n)).clamp(0.0, 1.0)
}

/// One point of the paper's FN-rate analysis (Section 4.1, Fig. 1 and 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FnSetting {
    /// `Max`.
    pub max: u64,
    /// `K`, the number of hash functions.
    pub k: u32,
    /// The acceptable FP rate `FPS`; `P` follows from Eq. 17.
    pub fps: f64,
    /// `m`, the number of cells.
    pub m: u64,
    /// The gap `δ` (Eq. 9).
    pub delta: u64,
    /// `φ̄` (Eq. 18, 19); the paper sets it to 0.
    pub phi: f64,
    /// `f_i/N`, the element's relative frequency; the paper uses `10⁻⁵` for Fig. 1 and 0 for
    /// Fig. 2.
    pub f_over_n: f64,
}

/// Eq. 19 evaluated as the paper does for Fig. 1 and 2: `P` from Eq. 17 (unrounded), `p = P/m`,
/// `k` from `φ` by Eq. 18, then `1 − (1 − PR0(δ, k))^K` with Eq. 9.
///
/// # Panics
/// If `max` is 0 or above [`MAX_CHAIN_MAX`].
pub fn fn_rate(s: &FnSetting) -> f64 {
    let dec_prob = (p_for_fps(s.m, s.k, s.max, s.fps) / s.m as f64).clamp(0.0, 1.0);
    let set_prob = set_probability_from_phi(s.phi, s.f_over_n, s.k, s.m);
    average_fn_rate(s.delta, set_prob, dec_prob, s.max, s.k)
}

/// The `K` in `ks` minimising [`fn_rate`] with the other settings of `s` (Section 4.1, "The
/// setting of K"; Fig. 2 uses the optimal `K` for each `Max`). Returns `(K, FN rate)`; ties go
/// to the smaller `K` (less time per element).
///
/// # Panics
/// If `ks` is empty, or as [`fn_rate`].
pub fn optimal_k_for_fn(s: &FnSetting, ks: impl IntoIterator<Item = u32>) -> (u32, f64) {
    ks.into_iter()
        .map(|k| (k, fn_rate(&FnSetting { k, ..*s })))
        .fold(None, |best: Option<(u32, f64)>, (k, f)| match best {
            Some((_, bf)) if bf <= f => best,
            _ => Some((k, f)),
        })
        .expect("no K to try")
}

/// The space lower bound of sliding-window membership with slackness, in bits: Naor & Yogev,
/// *Tight Bounds for Sliding Bloom Filters*, Algorithmica 73(4), 2015 (arXiv 1304.5872; ISAAC
/// 2013 as *Sliding Bloom Filters*), the lower-bound theorem:
///
/// `n·log₂(1/ε) + n·max(log₂(1/λ), log₂ log₂(1/ε))` bits,
///
/// for a window of the last `n` elements, false positive probability `ε` and slackness `λ`
/// (elements older than `n` but within the last `(1 + λ)·n` may be answered either way).
///
/// Readings:
/// - The theorem holds up to an additive `O(n)` term, which has no stated constant and is not
///   included: the value is the bound's leading terms.
/// - `λ` below `1/n` is the same question as `λ = 1/n` (positions are whole elements), so `λ`
///   is clamped to `[1/n, 1]`; `log₂ log₂(1/ε)` is taken as 0 where `log₂(1/ε) < 1`.
///
/// # Panics
/// If `window` is 0, `fpr` is not in `(0, 1)` or `slack` is not positive.
pub fn sliding_window_lower_bound_bits_with_slack(window: u64, fpr: f64, slack: f64) -> f64 {
    assert!(window >= 1, "window must be at least 1");
    assert!(fpr > 0.0 && fpr < 1.0, "fpr must be in (0, 1)");
    assert!(slack > 0.0, "slack must be positive");
    let n = window as f64;
    let lambda = slack.clamp(1.0 / n, 1.0);
    let log_inv_eps = (1.0 / fpr).log2();
    let order = (1.0 / lambda).log2().max(log_inv_eps.log2().max(0.0));
    n * log_inv_eps + n * order
}

/// The sliding-window membership lower bound for the question the runner scores (`[metrics]
/// window`: an element is a duplicate iff it occurs among the `W` elements before it, with no
/// slack): [`sliding_window_lower_bound_bits_with_slack`] at `λ = 1/W`, that is
/// `W·log₂(1/ε) + W·max(log₂ W, log₂ log₂(1/ε))` bits (Naor & Yogev, arXiv 1304.5872).
/// Divided by `W`, the bits per window element no structure can go below whose false positive
/// probability is at most `ε` for every key outside the window, including keys that just left
/// it (up to the theorem's `O(W)` term). A structure with slack (one that may report keys up
/// to `(1 + λ)·W` back) is bound by the slack form instead, and a false positive rate measured
/// on a stream averages over the keys the stream queries: it can sit below this bound.
///
/// # Panics
/// As [`sliding_window_lower_bound_bits_with_slack`].
pub fn sliding_window_lower_bound_bits(window: u64, fpr: f64) -> f64 {
    sliding_window_lower_bound_bits_with_slack(window, fpr, 1.0 / window as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()) + 1e-300
    }

    /// Exact binomial tail by direct summation with exact binomial coefficients (small n).
    fn tail_exact(n: u64, q: f64, at_least: u64) -> f64 {
        let mut c = 1.0f64;
        let mut s = 0.0;
        for j in 0..=n {
            if j >= at_least {
                s += c * q.powi(j as i32) * (1.0 - q).powi((n - j) as i32);
            }
            c = c * (n - j) as f64 / (j + 1) as f64;
        }
        s
    }

    /// Eq. 1 written out literally (Eq. 2–5).
    fn eq1_literal(n: u64, k: f64, p: f64, max: u64) -> f64 {
        (max..n)
            .map(|l| binomial_tail(l, p, max) * pr_last_set(l, k))
            .sum::<f64>()
            + pr_never_set(n, k)
    }

    /// Eq. 9 written out literally (Eq. 10–13).
    fn eq9_literal(delta: u64, k: f64, p: f64, max: u64) -> f64 {
        (max..delta)
            .map(|l| binomial_tail(l, p, max) * pr_last_set(l, k))
            .sum::<f64>()
            + binomial_tail(delta, p, max) * pr_never_set(delta, k)
    }

    #[test]
    fn binomial_tail_matches_exact_sums() {
        for n in [0u64, 1, 2, 5, 17, 60] {
            for q in [0.0, 1e-6, 0.01, 0.3, 0.5, 0.97, 1.0] {
                for a in 0..=n + 1 {
                    let (got, want) = (binomial_tail(n, q, a), tail_exact(n, q, a));
                    assert!(
                        close(got, want, 1e-11) || (got - want).abs() < 1e-14,
                        "n={n} q={q} a={a}: {got} vs {want}"
                    );
                }
            }
        }
        // Tiny tails keep their precision: Pr(Bin(10^9, 10^-12) >= 3) ~ (10^-3)^3 / 6.
        assert!(close(
            binomial_tail(1_000_000_000, 1e-12, 3),
            1e-9 / 6.0,
            1e-3
        ));
        // Large n: Pr(Bin(10^9, 0.5) >= 1) = 1.
        assert_eq!(binomial_tail(1_000_000_000, 0.5, 1), 1.0);
    }

    #[test]
    fn cell_process_by_hand() {
        let (k, p) = (0.1, 0.3);
        // Max = 1, one iteration from Max: decremented (p) and not re-set (1 - k).
        assert!(close(pr0_after_gap(1, k, p, 1), p * (1.0 - k), 1e-15));
        // Two iterations: zero after the first and not set in the second, or non-zero after the
        // first (set, or not decremented) then decremented and not set.
        let z1 = p * (1.0 - k);
        let want = z1 * (1.0 - k) + (1.0 - z1) * p * (1.0 - k);
        assert!(close(pr0_after_gap(2, k, p, 1), want, 1e-15));
        // δ < Max: impossible to reach zero.
        assert_eq!(pr0_after_gap(2, k, p, 3), 0.0);
        // From 0 with no setting the cell stays 0; with certain setting it is never 0.
        assert_eq!(pr_zero_after(10, 0.0, 0.5, 3), 1.0);
        assert_eq!(pr_zero_after(10, 1.0, 0.5, 3), 0.0);
        assert_eq!(pr_zero_after(0, 0.2, 0.5, 3), 1.0);
    }

    #[test]
    fn cell_process_matches_the_papers_sums() {
        for max in [1u64, 2, 3, 7] {
            for (k, p) in [(0.01, 0.02), (2.0 / 1000.0, 4.0 / 1000.0), (0.3, 0.6)] {
                for n in [0u64, 1, 2, 3, 10, 100, 500] {
                    let a = pr_zero_after(n, k, p, max);
                    assert!(
                        close(a, eq1_literal(n, k, p, max), 1e-9),
                        "Eq.1 max={max} n={n}"
                    );
                    let b = pr0_after_gap(n, k, p, max);
                    assert!(
                        close(b, eq9_literal(n, k, p, max), 1e-9),
                        "Eq.9 max={max} n={n}: {b}"
                    );
                }
            }
        }
        // The squaring path (n > DIRECT_STEPS) against the literal sums.
        for max in [1u64, 3] {
            let (k, p) = (2e-4, 4e-4);
            for n in [DIRECT_STEPS + 1, 10_007, 30_000] {
                assert!(close(
                    pr_zero_after(n, k, p, max),
                    eq1_literal(n, k, p, max),
                    1e-9
                ));
                assert!(close(
                    pr0_after_gap(n, k, p, max),
                    eq9_literal(n, k, p, max),
                    1e-9
                ));
            }
        }
    }

    #[test]
    fn eq6_is_the_change_of_eq1_and_eq1_converges_to_eq7() {
        let (k, p, max) = (0.002, 0.004, 3);
        for n in [1u64, 2, 3, 4, 50, 1000] {
            let diff = pr_zero_after(n, k, p, max) - pr_zero_after(n - 1, k, p, max);
            assert!(
                (diff - zero_probability_change(n, k, p, max)).abs() < 1e-13,
                "n={n}"
            );
            assert!(zero_probability_change(n, k, p, max) <= 0.0); // Lemma 1
        }
        // Theorem 1/2: Eq. 1 tends to Eq. 7 (also from Max: the start is forgotten).
        let lim = stable_zero_probability(k, p, max);
        // (Repeated squaring loses about N·ε relative: 2^20 · 1.1e-16 ≈ 1e-10.)
        assert!(close(pr_zero_after(1 << 20, k, p, max), lim, 1e-9));
        assert!(close(pr0_after_gap(1 << 20, k, p, max), lim, 1e-9));
    }

    #[test]
    fn stable_distribution_is_stationary_and_matches_eq7() {
        for max in [1u64, 2, 3, 7, 15] {
            let (k, p) = (0.05, 0.11);
            let d = stable_distribution(k, p, max);
            assert!(close(d.iter().sum::<f64>(), 1.0, 1e-14));
            assert!(close(d[0], stable_zero_probability(k, p, max), 1e-14));
            // One step of the cell process from the stationary distribution leaves it unchanged.
            let mut after = vec![0.0; d.len()];
            for (v, &w) in d.iter().enumerate() {
                let from = cell_distribution(v as u64, 1, k, p, max);
                for (a, f) in after.iter_mut().zip(from) {
                    *a += w * f;
                }
            }
            for (a, b) in after.iter().zip(&d) {
                assert!(close(*a, *b, 1e-12), "max={max}");
            }
        }
        // Max = 1 by hand: r = p(1-k)/(p(1-k)+k).
        let r = 0.3 * 0.9 / (0.3 * 0.9 + 0.1);
        assert!(close(stable_zero_probability(0.1, 0.3, 1), r, 1e-15));
    }

    #[test]
    fn stable_point_and_fp_bound_by_hand() {
        // Max = 1, K = 2, P = 4, m -> ∞: zeros 1/(1 + 1/2) = 2/3, FPS = (1/3)^2.
        let m = 1u64 << 50;
        assert!(close(stable_zero_fraction(2, 1, 4.0, m), 2.0 / 3.0, 1e-12));
        assert!(close(fp_bound(2, 1, 4.0, m), 1.0 / 9.0, 1e-12));
        // With m = 1000: P(1/K - 1/m) = 4·0.499 = 1.996.
        let z = 1.0 / (1.0 + 1.0 / 1.996);
        assert!(close(stable_zero_fraction(2, 1, 4.0, 1000), z, 1e-14));
        // Max = 3 cubes the Max = 1 value.
        assert!(close(
            stable_zero_fraction(2, 3, 4.0, m),
            (2.0f64 / 3.0).powi(3),
            1e-12
        ));
        // Theorem 3 is Eq. 7 with k = K/m, p = P/m.
        assert!(close(
            stable_zero_fraction(3, 2, 7.0, 5000),
            stable_zero_probability(3.0 / 5000.0, 7.0 / 5000.0, 2),
            1e-12
        ));
    }

    #[test]
    fn eq17_inverts_eq8_and_matches_the_papers_values() {
        for (m, k, max, fps) in [
            (1000u64, 2u32, 1u64, 0.1),
            (1 << 20, 4, 3, 0.01),
            (1 << 30, 6, 15, 0.001),
        ] {
            let p = p_for_fps(m, k, max, fps);
            assert!(close(fp_bound(k, max, p, m), fps, 1e-12));
        }
        // Section 4.1 / 5.2: Max=1, FPS=10%, K=2 -> P=4; Max=1, FPS=1%, K=3 -> P=10;
        // Max=15, FPS=1%, K=6 -> P=141 ("not sensitive to m"; the paper truncates).
        for m in [100_000u64, 1 << 30] {
            assert_eq!(p_for_fps(m, 2, 1, 0.1).floor(), 4.0);
            assert_eq!(p_for_fps(m, 3, 1, 0.01).floor(), 10.0);
            assert_eq!(p_for_fps(m, 6, 15, 0.01).floor(), 141.0);
        }
    }

    #[test]
    fn fn_formulas() {
        // Eq. 14 with equal probabilities is Eq. 16; with K = 1 it is PR0 itself.
        let (d, k, p, max) = (300u64, 2e-3, 4e-3, 1);
        let pr0 = pr0_after_gap(d, k, p, max);
        assert!(close(
            fn_probability(d, &[k, k], p, max),
            average_fn_rate(d, k, p, max, 2),
            1e-14
        ));
        assert!(close(fn_probability(d, &[k], p, max), pr0, 1e-14));
        assert!(close(
            average_fn_rate(d, k, p, max, 2),
            1.0 - (1.0 - pr0).powi(2),
            1e-14
        ));
        // Eq. 15 sums Eq. 14.
        let ks = [k, k];
        let e = expected_false_negatives([(d, &ks[..]), (d, &ks[..]), (1, &ks[..])], p, max);
        assert!(close(
            e,
            2.0 * fn_probability(d, &ks, p, max) + fn_probability(1, &ks, p, max),
            1e-14
        ));
        // Eq. 18 and its inverse; φ = 0, f/N = 0 gives the uniform K/m.
        assert!(close(
            set_probability_from_phi(0.0, 0.0, 2, 1000),
            0.002,
            1e-14
        ));
        let kk = set_probability_from_phi(1.5, 1e-5, 3, 10_000);
        assert!(close(phi(kk, 1e-5, 3, 10_000), 1.5, 1e-12));
        // FN rate grows with the gap and falls with the acceptable FP rate (Section 4.1).
        let s = FnSetting {
            max: 1,
            k: 2,
            fps: 0.1,
            m: 100_000,
            delta: 200,
            phi: 0.0,
            f_over_n: 1e-5,
        };
        let at = |delta, fps| fn_rate(&FnSetting { delta, fps, ..s });
        assert!(at(100, 0.1) < at(1000, 0.1) && at(1000, 0.1) < at(100_000, 0.1));
        assert!(at(10_000, 0.2) < at(10_000, 0.1));
        // Eq. 19 at φ = 0, f/N = 0 is Eq. 16 with k = K/m, p = P/m.
        let s0 = FnSetting {
            f_over_n: 0.0,
            delta: 5000,
            ..s
        };
        let p_cells = p_for_fps(s0.m, 2, 1, 0.1);
        let want = average_fn_rate(5000, 2.0 / 1e5, p_cells / 1e5, 1, 2);
        assert!(close(fn_rate(&s0), want, 1e-14));
    }

    #[test]
    fn observation_1_optimal_k_is_small() {
        // Section 4.1: "when FPS = 0.2 and Max = 1, the value of the optimal or near optimal K is
        // always between 1 and 2; when FPS = 0.1 and Max = 3, between 2 and 3; when FPS = 0.01
        // and Max = 3, between 4 and 5", for the paper's testing values φ = 0, δ = 200,
        // f/N = 1e-5, and with m not mattering.
        for m in [100_000u64, 10_000_000] {
            for (max, fps, lo, hi) in [(1u64, 0.2, 1u32, 2u32), (3, 0.1, 2, 3), (3, 0.01, 4, 5)] {
                let s = FnSetting {
                    max,
                    k: 1,
                    fps,
                    m,
                    delta: 200,
                    phi: 0.0,
                    f_over_n: 1e-5,
                };
                let (k, _) = optimal_k_for_fn(&s, 1..=10);
                assert!(
                    (lo..=hi).contains(&k),
                    "m={m} Max={max} FPS={fps}: optimal K={k}"
                );
            }
        }
    }

    #[test]
    fn sliding_window_lower_bound_by_hand() {
        // W = 2^16, ε = 2^-10, no slack: 65536·10 + 65536·max(16, log2 10 = 3.32) = 65536·26.
        let b = sliding_window_lower_bound_bits(1 << 16, 1.0 / 1024.0);
        assert!((b - 1_703_936.0).abs() < 1e-6, "{b}");
        // λ = 1/4 with ε = 2^-16: 1000·16 + 1000·max(2, log2 16 = 4) = 20000.
        let b = sliding_window_lower_bound_bits_with_slack(1000, 1.0 / 65536.0, 0.25);
        assert!((b - 20_000.0).abs() < 1e-6, "{b}");
        // λ = 1/2 with ε = 2^-2: 1000·2 + 1000·max(1, log2 2 = 1) = 3000.
        let b = sliding_window_lower_bound_bits_with_slack(1000, 0.25, 0.5);
        assert!((b - 3000.0).abs() < 1e-6, "{b}");
        // Slack below 1/W is the exact window; above 1 it is clamped to 1.
        assert_eq!(
            sliding_window_lower_bound_bits_with_slack(1000, 0.01, 1e-9),
            sliding_window_lower_bound_bits(1000, 0.01)
        );
        assert_eq!(
            sliding_window_lower_bound_bits_with_slack(1000, 0.01, 5.0),
            sliding_window_lower_bound_bits_with_slack(1000, 0.01, 1.0)
        );
    }
}
