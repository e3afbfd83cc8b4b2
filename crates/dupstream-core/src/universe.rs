//! The distinct fraction of a uniform stream over a finite universe, and its inverse.
//!
//! Bera et al. (journal §3.1) draw every element independently and uniformly from a universe of
//! `U` keys; their tables give "N elements, X % distinct". The expected number of distinct keys
//! among `N` draws is `U·(1 − (1 − 1/U)^N) ≈ U·(1 − e^{−N/U})` (the sum of journal Eq. 3.7), so
//! a distinct fraction `d` fixes `U` as the root of `U·(1 − e^{−N/U}) = d·N`
//! ([`universe_for_distinct_fraction`]). For `U` in the millions the two forms differ by
//! `N/(2U²)` in the exponent, far below the rounding of `U` to an integer. The uniform stream of
//! `dupstream-streams` uses this to turn `distinct_fraction` into its universe, and the RSBF
//! theory tests use it to set up the papers' streams.

/// The expected distinct fraction of `n` uniform draws from `universe` keys,
/// `U·(1 − e^{−N/U}) / N` (Bera et al., journal §3.1).
pub fn expected_distinct_fraction(n: u64, universe: u64) -> f64 {
    if n == 0 || universe == 0 {
        return 0.0;
    }
    let x = n as f64 / universe as f64;
    -(-x).exp_m1() / x
}

/// Solves `U·(1 − e^{−N/U}) = d·N` for `U`, rounded to the nearest integer.
///
/// Returns `None` when no universe of at least one key and at most `2^62` keys fits (`d` outside
/// `(0, 1)`, `d·N < 1`, or `d` so close to 1 that `U` exceeds `2^62`).
pub fn universe_for_distinct_fraction(n: u64, d: f64) -> Option<u64> {
    if n == 0 || !(d > 0.0 && d < 1.0) {
        return None;
    }
    // With x = N/U the equation is f(x) = (1 − e^{−x})/x = d, f decreasing from 1 (x → 0) to 0.
    // f(x) < 1/x gives x < 1/d; bisection on [0, 1/d] in 200 halvings reaches f64 resolution.
    let f = |x: f64| -(-x).exp_m1() / x;
    let (mut lo, mut hi) = (0.0f64, 1.0 / d);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > d { lo = mid } else { hi = mid }
    }
    let x = 0.5 * (lo + hi);
    if x <= 0.0 {
        return None;
    }
    let u = (n as f64 / x).round();
    (u >= 1.0 && u <= (1u64 << 62) as f64).then_some(u as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solved_universe_matches_the_issue_examples() {
        let u = universe_for_distinct_fraction(1_000_000_000, 0.15).unwrap();
        assert!((1.49e8..1.51e8).contains(&(u as f64)), "{u}");
        let u = universe_for_distinct_fraction(1_000_000_000, 0.9).unwrap();
        assert!((4.6e9..4.8e9).contains(&(u as f64)), "{u}");
        for d in [0.01, 0.15, 0.6, 0.9, 0.999] {
            let u = universe_for_distinct_fraction(10_000_000, d).unwrap();
            let back = expected_distinct_fraction(10_000_000, u);
            assert!((back - d).abs() < 1e-6, "d={d} U={u} back={back}");
        }
    }

    #[test]
    fn impossible_fractions_have_no_universe() {
        assert_eq!(universe_for_distinct_fraction(10, 0.0), None);
        assert_eq!(universe_for_distinct_fraction(10, 1.0), None);
        assert_eq!(universe_for_distinct_fraction(10, f64::NAN), None);
        assert_eq!(universe_for_distinct_fraction(10, 0.01), None); // d·N < 1
        assert_eq!(universe_for_distinct_fraction(0, 0.5), None);
    }
}
