//! The rotating-generation Bloom filter: the sliding-window duplicate filter practitioners
//! deploy (a "double-buffered" or generational Bloom filter: two or more Bloom filters in a
//! ring, the oldest cleared and reused at fixed intervals). No single paper defines it; this is
//! the common construction, with its readings stated.
//!
//! **Structure.** `g ≥ 2` Bloom filters ("generations") of `m = ⌊budget / g⌋` bits, each with
//! the same `k` hash positions (Kirsch–Mitzenmacher double hashing, [`DoubleHash`]). A step
//! answers DUPLICATE iff some generation holds all `k` bits of the element, then sets them in
//! the newest generation (every element, duplicate or not, so a recurring key is refreshed).
//! Every `P = ⌈W / (g − 1)⌉` elements the oldest generation is cleared and becomes the newest.
//!
//! **Window.** An element inserted as the `(c+1)`-th of its generation (`0 ≤ c < P`) stays
//! until its generation is cleared, `g` rotations after it became the newest: a re-occurrence
//! at gap `d` is reported whenever `d ≤ g·P − 1 − c`, so always for `d ≤ (g − 1)·P ≥ W`
//! ([`guaranteed_window`]): no false negatives within the window. Elements up to `g·P − 1`
//! back may still be reported (the slack of one generation).
//!
//! **False positives.** Given the generations' fill ratios `r_j` (fraction of bits set), a
//! never-seen element is reported with probability `1 − Π_j (1 − r_j^k)`, the `k` positions of
//! one generation drawn independently ([`false_positive_rate_given_fills`], exact given the
//! state up to double hashing's repeats). On a stream of distinct keys a generation of `n`
//! insertions has `E[r] = 1 − (1 − 1/m)^{kn}`.
//!
//! Readings:
//! - Rotation counts elements (a count window); the runner's `[metrics] window` is the `W`.
//! - `k` is given, or the optimum for `P` distinct insertions in `m` bits
//!   ([`crate::bloom::optimal_k`]), the number a full generation holds.
//! - Occupancy is the load (fraction of bits set) over all generations.

use crate::bits::BitArray;
use crate::bloom::{MAX_K, optimal_k};
use crate::error::{Error, Result, ensure};
use crate::hash::DoubleHash;
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// `g` Bloom filters of `m` bits each in a ring, addressed from the newest (logical 0) to the
/// oldest (logical `g − 1`), each keeping its count of set bits; the oldest is cleared and
/// becomes the newest every `P = ⌈W/(g − 1)⌉` elements ([`Self::advance`]). Shared by the
/// rotating-generation and the Forgetful Bloom filter.
#[derive(Debug, Clone)]
pub(crate) struct Generations {
    filters: Vec<BitArray>,
    ones: Vec<u64>,
    /// Physical index of the newest filter.
    newest: usize,
    pub(crate) m: u64,
    pub(crate) k: u32,
    pub(crate) window: u64,
    pub(crate) period: u64,
    /// Elements since the last rotation.
    in_period: u64,
}

impl Generations {
    /// The ring [`resolve_ring`] sizes for a budget.
    pub(crate) fn for_budget(
        structure: &'static str,
        budget_bits: u64,
        window: u64,
        g: (&'static str, u32, u32),
        k: Option<u32>,
        per_filter: impl Fn(u64) -> u64,
    ) -> Result<Self> {
        let (g, m, k) = resolve_ring(structure, budget_bits, window, g, k, per_filter)?;
        let filters = (0..g)
            .map(|_| BitArray::new(structure, m))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(Self {
            filters,
            ones: vec![0; g as usize],
            newest: 0,
            m,
            k,
            window,
            period: period(window, g),
            in_period: 0,
        })
    }

    /// Counts one element; after the `P`-th since the last rotation, rotates.
    #[inline]
    pub(crate) fn advance(&mut self) {
        self.in_period += 1;
        if self.in_period == self.period {
            self.rotate();
            self.in_period = 0;
        }
    }

    /// The parameters both structures report, the filter count under `count_name`.
    pub(crate) fn params(&self, count_name: &'static str) -> Vec<crate::Param> {
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new(count_name, self.filters.len()),
            crate::Param::new("k", self.k),
            crate::Param::new("m", self.m),
            crate::Param::new("period", self.period),
        ]
    }

    /// The state bits: `g·m`.
    pub(crate) fn memory_bits(&self) -> u64 {
        self.filters.len() as u64 * self.m
    }

    pub(crate) fn len(&self) -> usize {
        self.filters.len()
    }

    #[inline(always)]
    fn physical(&self, j: usize) -> usize {
        let i = self.newest + j;
        if i >= self.filters.len() {
            i - self.filters.len()
        } else {
            i
        }
    }

    /// Whether logical filter `j` holds all `k` bits of the element.
    #[inline]
    pub(crate) fn contains(&self, j: usize, dh: DoubleHash) -> bool {
        let f = &self.filters[self.physical(j)];
        dh.indices(self.k, self.m).all(|i| f.get(i))
    }

    /// Sets the element's `k` bits in logical filter `j`.
    #[inline]
    pub(crate) fn insert(&mut self, j: usize, dh: DoubleHash) {
        let p = self.physical(j);
        let f = &mut self.filters[p];
        let mut new = 0;
        for i in dh.indices(self.k, self.m) {
            new += u64::from(!f.set(i));
        }
        self.ones[p] += new;
    }

    /// Clears the oldest filter and makes it the newest.
    fn rotate(&mut self) {
        let g = self.filters.len();
        self.newest = (self.newest + g - 1) % g;
        self.filters[self.newest].clear_all();
        self.ones[self.newest] = 0;
    }

    /// Bit `i` of logical filter `j`.
    pub(crate) fn bit(&self, j: usize, i: u64) -> bool {
        self.filters[self.physical(j)].get(i)
    }

    /// Fill ratio of logical filter `j`.
    pub(crate) fn fill(&self, j: usize) -> f64 {
        self.ones[self.physical(j)] as f64 / self.m as f64
    }

    /// Load over all filters.
    pub(crate) fn load(&self) -> f64 {
        self.ones.iter().sum::<u64>() as f64 / (self.m * self.filters.len() as u64) as f64
    }

    pub(crate) fn prefetch(&self, j: usize, dh: DoubleHash) {
        let f = &self.filters[self.physical(j)];
        for i in dh.indices(self.k, self.m) {
            f.prefetch(i);
        }
    }
}

/// Largest number of generations.
pub const MAX_GENERATIONS: u32 = 1024;

/// The gap up to which every re-occurrence is reported with `g` generations of `P` elements:
/// `(g − 1)·P`.
pub fn guaranteed_window(g: u32, period: u64) -> u64 {
    u64::from(g - 1) * period
}

/// The rotation period for window `W` and `g` generations: `⌈W / (g − 1)⌉`.
pub fn period(window: u64, g: u32) -> u64 {
    window.div_ceil(u64::from(g - 1)).max(1)
}

/// The probability that a never-seen element is reported when the generations' fill ratios
/// are `fills` and each is probed at `k` independent positions: `1 − Π (1 − r^k)`.
pub fn false_positive_rate_given_fills(fills: &[f64], k: u32) -> f64 {
    1.0 - fills
        .iter()
        .map(|r| 1.0 - r.powi(k as i32))
        .product::<f64>()
}

/// Parameters of a [`RotatingBloom`].
///
/// ```toml
/// window = 65536
/// generations = 2   # default 2
/// k = 4             # default: optimal for P = ⌈W/(g−1)⌉ insertions per generation
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RotatingBloomParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `g`, the number of generations (2..=[`MAX_GENERATIONS`]; default 2).
    #[cfg_attr(feature = "serde", serde(default))]
    pub generations: Option<u32>,
    /// `k`, hash positions per generation (default: [`optimal_k`]`(m, P)`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
}

/// Validates a window, a filter count `g` (parameter `g_name`) in `min_g..=MAX_GENERATIONS`
/// and a `k`, and splits the
/// budget into `g` filters of `m` bits: `(g, m, k)`, with `k` defaulting to
/// `optimal_k(m, per_filter(period))`. Shared with the Forgetful Bloom filter.
pub(crate) fn resolve_ring(
    structure: &'static str,
    budget_bits: u64,
    window: u64,
    (g_name, g, min_g): (&'static str, u32, u32),
    k: Option<u32>,
    per_filter: impl Fn(u64) -> u64,
) -> Result<(u32, u64, u32)> {
    ensure(window >= 1, "window", window, "must be at least 1")?;
    ensure(
        (min_g..=MAX_GENERATIONS).contains(&g),
        g_name,
        g,
        &format!("must be in {min_g}..={MAX_GENERATIONS}"),
    )?;
    let m = budget_bits / u64::from(g);
    if m == 0 {
        return Err(Error::BudgetTooSmall {
            structure,
            budget_bits,
            needed_bits: u64::from(g),
        });
    }
    let k = match k {
        Some(k) => {
            ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=256")?;
            k
        }
        None => optimal_k(m, per_filter(period(window, g))),
    };
    crate::error::words_for_bits(structure, m.saturating_mul(u64::from(g)))?;
    Ok((g, m, k))
}

/// The generations' count argument of [`resolve_ring`]: `(name, g, least g)`.
fn generations(p: &RotatingBloomParams) -> (&'static str, u32, u32) {
    ("generations", p.generations.unwrap_or(2), 2)
}

/// The rotating-generation Bloom filter (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, rotating_bloom::{RotatingBloom, RotatingBloomParams}};
/// let p = RotatingBloomParams { window: 100, generations: Some(3), k: Some(4) };
/// let mut f = RotatingBloom::new(1 << 14, &p, 0).unwrap();
/// assert!(!f.step(7));
/// for h in 1000..1099u64 {
///     f.step(h);
/// }
/// assert!(f.step(7)); // gap 100: within the window
/// ```
#[derive(Debug, Clone)]
pub struct RotatingBloom {
    gens: Generations,
}

impl RotatingBloom {
    /// A rotating-generation Bloom filter within `budget_bits`; it draws nothing random
    /// (`seed` unused).
    pub fn new(budget_bits: u64, params: &RotatingBloomParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let gens = Generations::for_budget(
            "rotating_bloom",
            budget_bits,
            params.window,
            generations(params),
            params.k,
            |period| period,
        )?;
        Ok(Self { gens })
    }

    /// The state size for this budget (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &RotatingBloomParams) -> Result<u64> {
        let (g, m, _) = resolve_ring(
            "rotating_bloom",
            budget_bits,
            params.window,
            generations(params),
            params.k,
            |period| period,
        )?;
        Ok(u64::from(g) * m)
    }

    /// Fill ratios of the generations, newest first.
    pub fn fills(&self) -> Vec<f64> {
        (0..self.gens.len()).map(|j| self.gens.fill(j)).collect()
    }

    /// `k`.
    pub fn k(&self) -> u32 {
        self.gens.k
    }

    /// Membership query without update.
    pub fn contains(&self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        (0..self.gens.len()).any(|j| self.gens.contains(j, dh))
    }
}

impl DuplicateFilter for RotatingBloom {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let dup = (0..self.gens.len()).any(|j| self.gens.contains(j, dh));
        self.gens.insert(0, dh);
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
        let mut p = self.gens.params("generations");
        p.push(crate::Param::new(
            "guaranteed_window",
            guaranteed_window(self.gens.len() as u32, self.gens.period),
        ));
        p
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::Load,
            value: self.gens.load(),
        }
    }
}

crate::structure::impl_structure!(RotatingBloom {
    name: "rotating_bloom",
    params: RotatingBloomParams,
    cost: 2.0,
    memory_bits_for: RotatingBloom::memory_bits_for,
}
    crate::structure::window_scales!(RotatingBloomParams);

    /// `k·(g + 1)`: `k` cells probed in each of its `g` generations (at most; a query stops at
    /// the first that holds the element) and `k` set in the newest.
    fn cells_per_element(params: &RotatingBloomParams, budget_bits: u64) -> f64 {
        let g = params.generations.unwrap_or(2).max(2);
        let k = params.k.unwrap_or_else(|| {
            crate::bloom::optimal_k(budget_bits / u64::from(g), period(params.window.max(1), g))
        });
        f64::from(k * (g + 1))
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// No false negatives within the guaranteed window, against the brute-force windowed
        /// truth, and nothing reported beyond g·P − 1 unless it is a false positive of the
        /// state (checked with a filter so large that false positives are negligible).
        #[test]
        fn no_false_negatives_within_the_window(keys in prop::collection::vec(0u64..200, 1..2000), w in 1u64..300, g in 2u32..6) {
            let p = RotatingBloomParams { window: w, generations: Some(g), k: Some(8) };
            let mut f = RotatingBloom::new(u64::from(g) << 20, &p, 0).unwrap();
            let per = period(w, g);
            prop_assert!(guaranteed_window(g, per) >= w);
            let hashes: Vec<u64> = keys.iter().map(|&k| hash_key(k, 3)).collect();
            for (i, &h) in hashes.iter().enumerate() {
                let gap = hashes[..i].iter().rposition(|&x| x == h).map(|j| (i - j) as u64);
                let dup = f.step(h);
                if gap.is_some_and(|d| d <= w) {
                    prop_assert!(dup, "false negative at {} (gap {:?})", i, gap);
                }
                if dup {
                    prop_assert!(gap.is_some_and(|d| d < u64::from(g) * per), "reported at {} (gap {:?})", i, gap);
                }
            }
        }
    }

    #[test]
    fn fpr_matches_the_fills() {
        // Fill the filter with distinct keys, then query never-seen keys: the count of false
        // positives is binomial with the rate given the fills; 99.9 % two-sided (3.3 sd).
        for (g, w, budget, k) in [(2u32, 20_000u64, 200_000u64, 4u32), (4, 30_000, 300_000, 3)] {
            let p = RotatingBloomParams {
                window: w,
                generations: Some(g),
                k: Some(k),
            };
            let mut f = RotatingBloom::new(budget, &p, 0).unwrap();
            for i in 0..(5 * w + 777) {
                f.step(hash_key(i, 8));
            }
            let rate = false_positive_rate_given_fills(&f.fills(), k);
            crate::test_support::check_never_seen_fpr(
                &format!("rotating g={g}"),
                |h| f.contains(h),
                rate,
            );
        }
    }

    #[test]
    fn sizing() {
        let p = RotatingBloomParams {
            window: 1000,
            generations: None,
            k: None,
        };
        let f = RotatingBloom::new(100_001, &p, 0).unwrap();
        assert_eq!(f.memory_bits(), 100_000);
        assert_eq!(f.k(), optimal_k(50_000, 1000));
        assert_eq!(period(1000, 2), 1000);
        assert_eq!(period(1000, 4), 334);
        assert_eq!(guaranteed_window(4, 334), 1002);
        for bad in [
            RotatingBloomParams {
                window: 0,
                ..p.clone()
            },
            RotatingBloomParams {
                generations: Some(1),
                ..p.clone()
            },
            RotatingBloomParams {
                k: Some(0),
                ..p.clone()
            },
        ] {
            assert!(matches!(
                RotatingBloom::new(1 << 20, &bad, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
        assert!(matches!(
            RotatingBloom::new(1, &p, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
    }
}
