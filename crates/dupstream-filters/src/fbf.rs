//! The Forgetful Bloom filter (FBF): Subramanyam, Gupta, Leonard, Gonzalez, Ray,
//! *Idempotent Distributed Counters Using a Forgetful Bloom Filter*, Cluster Computing 19(2),
//! 2016 (CloudCom 2015); as implemented in Sliding Sketches' public code
//! (github.com/sliding-sketch/Sliding-Sketch, `src/Membership/forget_bloom.cpp`), the FBF
//! baseline of Gou et al., KDD 2020.
//!
//! **Structure.** `g ≥ 3` Bloom filters of `m = ⌊budget / g⌋` bits with `k` hash positions
//! each, in a ring: a *future* filter (logical 0), a *present* one (1) and `g − 2` *past* ones
//! (2 .. `g − 1`, the last the oldest). Every `P = ⌈W / (g − 1)⌉` elements the oldest is
//! cleared and becomes the future; the former future becomes the present, and so on.
//!
//! **Query.** An element is reported iff the future filter holds it, or two consecutive
//! filters `j, j + 1` (`1 ≤ j ≤ g − 2`) both hold it, or the oldest holds it (the reference's
//! `Query`). Requiring two consecutive filters in the middle is what lowers the false positive
//! rate against one filter per generation: an element is inserted into the future and the
//! present at once, so while it lives it is in a consecutive pair.
//!
//! **Insertion.** Only when the query says absent (the reference's `Init`: `if(!Query) insert
//! into future and present`): a key already reported is not refreshed.
//!
//! **Window.** An element inserted in a period stays in its two filters until they are
//! cleared, `g − 1` and `g` rotations later, and is reported until then: every re-occurrence
//! within `(g − 1)·P ≥ W` of its *insertion* is reported. Because a reported element is not
//! inserted again, a key that keeps recurring is forgotten `(g−1)·P` to `g·P` after its first
//! insertion even though it recurred since: those are false negatives against the windowed
//! truth (tested), inherent to the construction.
//!
//! **False positives.** Two consecutive filters share a period's insertions, so their bits
//! are correlated and fill ratios alone do not give the rate; given the state, the rate for
//! `k` independent uniform positions is [`false_positive_rate_given_patterns`], from the
//! distribution of each position's bits across the filters.
//!
//! Readings:
//! - Rotation counts elements: the reference rotates at element `⌊t·(g−1)/W⌋`, that is every
//!   `W/(g−1)` elements on average; a fixed `P = ⌈W/(g−1)⌉` keeps the guarantee `(g−1)·P ≥ W`.
//! - `g` defaults to 10 and, unless given, `k` to the optimum for `2P` insertions in `m` bits
//!   (a filter receives the insertions of two periods, as future then as present); the
//!   reference's evaluation runs `g = 10`, `k = 8`.
//! - Occupancy is the load over all filters.

use crate::error::Result;
use crate::hash::DoubleHash;
use crate::rotating_bloom::{Generations, resolve_ring};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Default number of filters (the Sliding Sketches evaluation's `FBF_Num`).
pub const DEFAULT_FILTERS: u32 = 10;

/// Whether the FBF query accepts when the set of filters holding the element is `held` (bit
/// `j` for logical filter `j`, future first) out of `g`: the future, the oldest, or two
/// consecutive middle filters.
pub fn query_accepts(held: u64, g: u32) -> bool {
    let middle = held & ((1u64 << (g - 1)) - 2);
    held & 1 != 0 || (held >> (g - 1)) & 1 != 0 || middle & (middle >> 1) != 0
}

/// The probability that the FBF query reports a never-seen element whose `k` positions are
/// drawn independently and uniformly, given the state: `patterns[s]` is the fraction of
/// positions whose bits across the `g` filters form the set `s` (bit `j` for logical filter
/// `j`; [`Fbf::position_patterns`]). Exact for that model: the filters holding the element are
/// the intersection of its `k` positions' patterns, `P(held ⊇ t) = (Σ_{s ⊇ t} patterns[s])^k`,
/// and a Möbius inversion gives `P(held = t)`. The filters' bits are not independent (two
/// consecutive filters share a period's insertions), so a product of fill ratios would not do.
///
/// # Panics
/// If `patterns.len()` is not `2^g` with `3 ≤ g ≤ 20`.
pub fn false_positive_rate_given_patterns(patterns: &[f64], k: u32) -> f64 {
    let g = patterns.len().trailing_zeros();
    assert!(
        patterns.len().is_power_of_two() && (3..=20).contains(&g),
        "2^g patterns with 3 <= g <= 20"
    );
    let n = patterns.len();
    let mut f = patterns.to_vec();
    // Superset sums, then their k-th powers, then back (Möbius over supersets).
    for b in 0..g {
        for s in 0..n {
            if s & (1 << b) == 0 {
                f[s] += f[s | (1 << b)];
            }
        }
    }
    for v in &mut f {
        *v = v.powi(k as i32);
    }
    for b in 0..g {
        for s in 0..n {
            if s & (1 << b) == 0 {
                f[s] -= f[s | (1 << b)];
            }
        }
    }
    (0..n)
        .filter(|&s| query_accepts(s as u64, g))
        .map(|s| f[s])
        .sum()
}

/// Parameters of a [`Fbf`].
///
/// ```toml
/// window = 65536
/// filters = 10   # g, default 10
/// k = 8          # default: optimal for 2P insertions per filter
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct FbfParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `g`, the number of filters (3..=1024; default [`DEFAULT_FILTERS`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub filters: Option<u32>,
    /// `k`, hash positions per filter.
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
}

/// The filter-count argument of [`resolve_ring`]: `(name, g, least g)`.
fn filters(p: &FbfParams) -> (&'static str, u32, u32) {
    ("filters", p.filters.unwrap_or(DEFAULT_FILTERS), 3)
}

/// A filter receives the insertions of two periods (as future, then as present).
fn per_filter(period: u64) -> u64 {
    2 * period
}

/// The Forgetful Bloom filter (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, fbf::{Fbf, FbfParams}};
/// let p = FbfParams { window: 100, filters: Some(3), k: Some(4) };
/// let mut f = Fbf::new(1 << 14, &p, 0).unwrap();
/// assert!(!f.step(7));
/// assert!(f.step(7));
/// ```
#[derive(Debug, Clone)]
pub struct Fbf {
    gens: Generations,
}

impl Fbf {
    /// A Forgetful Bloom filter within `budget_bits`; it draws nothing random (`seed` unused).
    pub fn new(budget_bits: u64, params: &FbfParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let gens = Generations::for_budget(
            "fbf",
            budget_bits,
            params.window,
            filters(params),
            params.k,
            per_filter,
        )?;
        Ok(Self { gens })
    }

    /// The state size for this budget (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &FbfParams) -> Result<u64> {
        let (g, m, _) = resolve_ring(
            "fbf",
            budget_bits,
            params.window,
            filters(params),
            params.k,
            per_filter,
        )?;
        Ok(u64::from(g) * m)
    }

    /// The fraction of positions whose bits across the filters form each set (bit `j` for
    /// logical filter `j`, future first), for [`false_positive_rate_given_patterns`].
    /// O(`g·m`); at most 20 filters.
    pub fn position_patterns(&self) -> Vec<f64> {
        let g = self.gens.len();
        assert!(g <= 20, "at most 20 filters");
        let mut counts = vec![0u64; 1 << g];
        for i in 0..self.gens.m {
            let s = (0..g).fold(0usize, |s, j| s | (usize::from(self.gens.bit(j, i)) << j));
            counts[s] += 1;
        }
        counts
            .iter()
            .map(|&c| c as f64 / self.gens.m as f64)
            .collect()
    }

    /// `k`.
    pub fn k(&self) -> u32 {
        self.gens.k
    }

    /// The FBF query (no update).
    pub fn contains(&self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let g = self.gens.len();
        // The rule of `query_accepts`, stopping at the first filter that decides.
        if self.gens.contains(0, dh) {
            return true;
        }
        let mut prev = false;
        for j in 1..g - 1 {
            let here = self.gens.contains(j, dh);
            if prev && here {
                return true;
            }
            prev = here;
        }
        self.gens.contains(g - 1, dh)
    }
}

impl DuplicateFilter for Fbf {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let dup = self.contains(hash);
        if !dup {
            let dh = DoubleHash::new(hash);
            self.gens.insert(0, dh);
            self.gens.insert(1, dh);
        }
        // Rotating after the P-th element of a period is rotating before the next one's query,
        // the reference's `Update` at the head of `Query`.
        self.gens.advance();
        dup
    }

    fn prefetch(&self, hash: u64) {
        self.gens.prefetch(0, DoubleHash::new(hash));
    }

    fn memory_bits(&self) -> u64 {
        self.gens.memory_bits()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        self.gens.params("filters")
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::Load,
            value: self.gens.load(),
        }
    }
}

crate::structure::impl_structure!(Fbf {
    name: "fbf",
    params: FbfParams,
    cost: 4.0,
    memory_bits_for: Fbf::memory_bits_for,
}
    crate::structure::window_scales!(FbfParams);

    /// `k·(g + 2)`: its query probes each of its `g` filters (at most) and an insertion sets
    /// `k` cells in two.
    fn cells_per_element(params: &FbfParams, budget_bits: u64) -> f64 {
        let g = params.filters.unwrap_or(DEFAULT_FILTERS).max(3);
        let k = params.k.unwrap_or_else(|| {
            crate::bloom::optimal_k(
                budget_bits / u64::from(g),
                2 * crate::rotating_bloom::period(params.window.max(1), g),
            )
        });
        f64::from(k * (g + 2))
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::hash::hash_key;
    use crate::rotating_bloom::period;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// With a filter so large that false positives are negligible: an element is reported
        /// iff the last *insertion* of its key (an occurrence not reported) is at most
        /// (g−1)·P + (P − 1 − its phase) back, i.e. its two filters are not yet cleared;
        /// checked against a model that tracks insertions and rotations.
        #[test]
        fn equals_the_insertion_model(keys in prop::collection::vec(0u64..100, 1..2000), w in 2u64..300, g in 3u32..8) {
            let p = FbfParams { window: w, filters: Some(g), k: Some(8) };
            let mut f = Fbf::new(u64::from(g) << 20, &p, 0).unwrap();
            let per = period(w, g);
            // Rotation index at which each key's last insertion happened.
            let mut inserted: std::collections::HashMap<u64, u64> = Default::default();
            for (i, &key) in keys.iter().enumerate() {
                let rotation = i as u64 / per; // rotations before element i
                let alive = inserted.get(&key).is_some_and(|&r| rotation < r + u64::from(g));
                let dup = f.step(hash_key(key, 4));
                prop_assert_eq!(dup, alive, "element {}", i);
                if !dup {
                    inserted.insert(key, rotation);
                }
            }
        }
    }

    #[test]
    fn a_recurring_key_is_forgotten_within_the_window() {
        // W = 100, g = 3, P = 50: key 7 at 0 (inserted), at 90 (reported, not refreshed), at
        // 180 (gap 90 ≤ W, but its filters were cleared at element 150): a false negative of
        // the construction.
        let p = FbfParams {
            window: 100,
            filters: Some(3),
            k: Some(8),
        };
        let mut f = Fbf::new(3 << 16, &p, 0).unwrap();
        let mut verdicts = vec![];
        for i in 0..181u64 {
            let h = if i % 90 == 0 {
                7
            } else {
                hash_key(1000 + i, 1)
            };
            let v = f.step(h);
            if h == 7 {
                verdicts.push(v);
            }
        }
        assert_eq!(verdicts, [false, true, false]);
    }

    #[test]
    fn fpr_matches_the_state() {
        // Fill with distinct keys, query never-seen keys: the count of false positives is
        // binomial with the rate given the state's position patterns; 99.9 % (3.3 sd).
        for (g, w, budget, k) in [
            (3u32, 20_000u64, 300_000u64, 3u32),
            (10, 36_000, 400_000, 4),
        ] {
            let p = FbfParams {
                window: w,
                filters: Some(g),
                k: Some(k),
            };
            let mut f = Fbf::new(budget, &p, 0).unwrap();
            for i in 0..(4 * w + 333) {
                f.step(hash_key(i, 8));
            }
            let rate = false_positive_rate_given_patterns(&f.position_patterns(), k);
            crate::test_support::check_never_seen_fpr(
                &format!("fbf g={g}"),
                |h| f.contains(h),
                rate,
            );
        }
    }

    #[test]
    fn pattern_rate_by_hand() {
        // g = 4, k = 1, each filter's bit set independently with probability q: report iff
        // f0 or f3 or (f1 and f2): 1 − (1−q)²·(1 − q²).
        let q = 0.3f64;
        let patterns: Vec<f64> = (0..16u32)
            .map(|s| q.powi(s.count_ones() as i32) * (1.0 - q).powi(4 - s.count_ones() as i32))
            .collect();
        let got = false_positive_rate_given_patterns(&patterns, 1);
        let want = 1.0 - (1.0 - q).powi(2) * (1.0 - q * q);
        assert!((got - want).abs() < 1e-12, "{got} {want}");
        // Held by filters 1 and 2 (a middle pair), by 0 alone, by 3 alone: reported; by 1
        // alone, by 1 and 3's middle neighbour 2 alone: not.
        assert!(query_accepts(0b0110, 4) && query_accepts(0b0001, 4) && query_accepts(0b1000, 4));
        assert!(!query_accepts(0b0010, 4) && !query_accepts(0b0100, 4));
    }

    #[test]
    fn sizing() {
        let p = FbfParams {
            window: 900,
            filters: None,
            k: None,
        };
        let f = Fbf::new(100_005, &p, 0).unwrap();
        assert_eq!(f.memory_bits(), 100_000);
        assert_eq!(f.k(), crate::bloom::optimal_k(10_000, 200));
        assert!(matches!(
            Fbf::new(
                1 << 20,
                &FbfParams {
                    filters: Some(2),
                    ..p
                },
                0
            ),
            Err(Error::InvalidParameter { .. })
        ));
    }
}
