//! The classic Bloom filter as a stream duplicate detector: the baseline "BF" of Deng & Rafiei,
//! *Approximately Detecting Duplicates for Streaming Data using Stable Bloom Filters*, SIGMOD
//! 2006, Section 2.3 (definition and false positive rate) and Section 5.2 ("BF becomes a special
//! case of SBF where Max = 1 and P = 0. Knowing the number of distinct elements and the amount of
//! space, we can compute the optimal K").
//!
//! A bit array of `m` bits, `m` = the whole budget. For each element the `K` bits
//! `h_1(x) .. h_K(x)` are probed: the element is a DUPLICATE iff all of them are set; then all
//! of them are set (detect, then insert). A Bloom filter never forgets, so it has no false
//! negatives; its false positive rate after `n` distinct elements is
//! `(1 - (1 - 1/m)^{Kn})^K ≈ (1 - e^{-Kn/m})^K` ([`false_positive_rate`]) and tends to 1 on an
//! unbounded stream (Section 3.1).
//!
//! Readings:
//! - The number of hashes is either given (`k`) or derived from the expected number of distinct
//!   elements (`n`) as the paper's experiments do, with [`optimal_k`]. Exactly one of the two
//!   must be given: a default `K` would silently pick a filter the paper never ran.
//! - The `K` indices come from Kirsch–Mitzenmacher double hashing of the pre-hashed key,
//!   standing in for the paper's independent hash functions, with the second component a
//!   multiple of the first ([`DoubleHash::multiplied`]): one multiplication per element where
//!   [`DoubleHash::new`]'s mix takes two and five shifts and xors, which made a step at
//!   1 Mbit 21–24 % slower. Its false positive rates equal theory's and [`DoubleHash::new`]'s within
//!   binomial bounds (`K` = 2 to 38; tests below). The Stable Bloom filter keeps
//!   [`DoubleHash::new`]'s cells, so an SBF that never decrements answers as a Bloom filter on
//!   those cells, not as this type.
//! - Occupancy is the load (fraction of bits set), counted when asked (O(m/64): a 512 MB filter
//!   in a few milliseconds; the runner asks at each checkpoint). A running count made a step at
//!   1 Mbit 5–11 % slower.
//! - `step_batch` prefetches only above [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS);
//!   below it, it is `step` in a loop, since the prefetches cost more than they save there.

use crate::bits::BitArray;
use crate::error::{Error, Result, ensure};
use crate::hash::DoubleHash;
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest accepted number of hash functions.
pub const MAX_K: u32 = 256;

/// Parameters of a [`BloomFilter`]. Give exactly one of `k` and `n`.
///
/// ```toml
/// k = 7          # or: n = 100_000  (expected distinct elements; K = optimal_k(m, n))
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct BloomParams {
    /// `K`, the number of hash functions (1..=[`MAX_K`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
    /// `n`, the number of distinct elements the filter is sized for; `K` is then
    /// [`optimal_k`]`(m, n)` (Section 2.3 / 5.2).
    #[cfg_attr(feature = "serde", serde(default))]
    pub n: Option<u64>,
}

impl BloomParams {
    /// A filter with `k` hash functions.
    pub fn with_k(k: u32) -> Self {
        Self {
            k: Some(k),
            n: None,
        }
    }

    /// A filter whose `K` is optimal for `n` distinct elements.
    pub fn for_distinct(n: u64) -> Self {
        Self {
            k: None,
            n: Some(n),
        }
    }
}

/// Probability of a false positive after `n` distinct insertions into `m` bits with `k` hashes:
/// `(1 - e^{-kn/m})^k` (Section 2.3; the paper's `(1 - (1 - 1/m)^{Kn})^K` with the usual
/// exponential approximation).
pub fn false_positive_rate(k: u32, n: u64, m: u64) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let k = f64::from(k);
    (1.0 - (-k * n as f64 / m as f64).exp()).powf(k)
}

/// The number of hashes minimising [`false_positive_rate`] for `n` distinct elements in `m`
/// bits: the better of the two integers around `ln 2 · m / n` (Section 2.3), clamped to
/// `1..=`[`MAX_K`]. `n = 0` is treated as `n = 1`.
pub fn optimal_k(m: u64, n: u64) -> u32 {
    let n = n.max(1);
    let real = std::f64::consts::LN_2 * m as f64 / n as f64;
    let lo = (real.floor() as u32).clamp(1, MAX_K);
    let hi = (real.ceil() as u32).clamp(1, MAX_K);
    if false_positive_rate(hi, n, m) < false_positive_rate(lo, n, m) {
        hi
    } else {
        lo
    }
}

/// Validates `params` and returns `(K, m)` for a budget.
fn resolve(budget_bits: u64, params: &BloomParams) -> Result<(u32, u64)> {
    let m = budget_bits;
    if m == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "bloom",
            budget_bits,
            needed_bits: 1,
        });
    }
    let k = match (params.k, params.n) {
        (Some(k), None) => {
            ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=256")?;
            k
        }
        (None, Some(n)) => {
            ensure(
                n >= 1,
                "n",
                n,
                "the expected number of distinct elements must be at least 1",
            )?;
            optimal_k(m, n)
        }
        (Some(k), Some(_)) => {
            return Err(Error::InvalidParameter {
                name: "k",
                value: k.to_string(),
                reason: "give either `k` or `n` (which derives the optimal k), not both".into(),
            });
        }
        (None, None) => {
            return Err(Error::InvalidParameter {
                name: "k",
                value: "(none)".into(),
                reason: "give either `k` or `n` (which derives the optimal k)".into(),
            });
        }
    };
    // Allocation limits are checked here too so that `memory_bits_for` agrees with `new`.
    crate::error::words_for_bits("bloom", m)?;
    Ok((k, m))
}

/// A Bloom filter used as a duplicate detector (Deng & Rafiei, Section 2.3).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, bloom::{BloomFilter, BloomParams}, hash::hash_key};
/// let mut bf = BloomFilter::new(1 << 16, &BloomParams::for_distinct(1000), 0).unwrap();
/// for key in 0..1000 {
///     bf.step(hash_key(key, 0));
/// }
/// // No false negatives, ever.
/// assert!((0..1000).all(|key| bf.step(hash_key(key, 0))));
/// ```
#[derive(Debug, Clone)]
pub struct BloomFilter {
    bits: BitArray,
    m: u64,
    k: u32,
    n: Option<u64>,
}

impl BloomFilter {
    /// A filter of `budget_bits` bits. Bloom filters draw no random numbers, so `seed` is
    /// unused (it is accepted for a uniform constructor).
    pub fn new(budget_bits: u64, params: &BloomParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let (k, m) = resolve(budget_bits, params)?;
        Ok(Self {
            bits: BitArray::new("bloom", m)?,
            m,
            k,
            n: params.n,
        })
    }

    /// The state size a filter built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &BloomParams) -> Result<u64> {
        resolve(budget_bits, params).map(|(_, m)| m)
    }

    /// `K`, the number of hash functions in use.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// `m`, the number of bits.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// Membership query without insertion: true iff all `K` bits of `hash` are set.
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        let dh = DoubleHash::multiplied(hash);
        (0..self.k).all(|i| self.bits.get(dh.index(i, self.m)))
    }
}

impl BloomFilter {
    /// Sets the `K` bits of `hash` and answers whether all were set already; `K` a constant
    /// (0: the filter's own `k`, in a loop).
    #[inline(always)]
    fn insert<const K: u32>(&mut self, hash: u64) -> bool {
        let k = if K == 0 { self.k } else { K };
        let dh = DoubleHash::multiplied(hash);
        let mut dup = true;
        for i in 0..k {
            dup &= self.bits.set(dh.index(i, self.m));
        }
        dup
    }
}

impl DuplicateFilter for BloomFilter {
    // Always inlined: a call per element costs more than the step in cache.
    #[inline(always)]
    fn step(&mut self, hash: u64) -> bool {
        // The common `K` as constants: the probes unrolled (8 % faster in cache at K = 2).
        if self.k == 2 {
            self.insert::<2>(hash)
        } else {
            self.insert::<0>(hash)
        }
    }

    /// Prefetches only above [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS).
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        if self.m > crate::PREFETCH_ABOVE_BITS {
            return crate::prefetching_batch(self, hashes, out);
        }
        assert!(out.len() >= hashes.len(), "output buffer too short");
        // `K` tested once per batch rather than per element.
        if self.k == 2 {
            for (o, &h) in out.iter_mut().zip(hashes) {
                *o = self.insert::<2>(h);
            }
        } else {
            for (o, &h) in out.iter_mut().zip(hashes) {
                *o = self.insert::<0>(h);
            }
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let dh = DoubleHash::multiplied(hash);
        for i in 0..self.k {
            self.bits.prefetch(dh.index(i, self.m));
        }
    }

    fn memory_bits(&self) -> u64 {
        self.m
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let fpr = self.n.map(|n| false_positive_rate(self.k, n, self.m));
        vec![
            crate::Param::new("k", self.k),
            crate::Param::new("n", self.n),
            crate::Param::new("m", self.m),
            crate::Param::new("fpr_at_n", fpr),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::Load,
            value: self.bits.count_ones() as f64 / self.m as f64,
        }
    }
}

crate::structure::impl_structure!(BloomFilter {
    name: "bloom",
    params: BloomParams,
    cost: 1.0,
    memory_bits_for: BloomFilter::memory_bits_for,
}

    /// `K` cells (`k`, else the optimal `k` for `n` elements, else 2).
    fn cells_per_element(params: &BloomParams, budget_bits: u64) -> f64 {
        f64::from(match (params.k, params.n) {
            (Some(k), _) => k,
            (None, Some(n)) => optimal_k(budget_bits, n),
            (None, None) => 2,
        })
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Exact;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    /// Inserts keys `0..n` and queries `t` keys disjoint from them (`1<<40 ..`). Returns
    /// (false positives, load).
    fn measure(m: u64, k: u32, n: u64, t: u64, seed: u64) -> (u64, f64) {
        let mut bf = BloomFilter::new(m, &BloomParams::with_k(k), seed).unwrap();
        for key in 0..n {
            bf.step(hash_key(key, seed));
        }
        let fp = (0..t)
            .filter(|&j| bf.contains(hash_key((1 << 40) + j, seed)))
            .count() as u64;
        (fp, bf.occupancy().value)
    }

    #[test]
    fn formulas_by_hand() {
        // k = 1, n = m: 1 - e^{-1}.
        assert!((false_positive_rate(1, 100, 100) - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
        // m/n = 10: ln2·10 = 6.93 -> 7 (7 beats 6: 0.00819 < 0.00844).
        assert_eq!(optimal_k(10_000, 1000), 7);
        assert_eq!(optimal_k(1000, 1000), 1);
        assert_eq!(optimal_k(1, 1_000_000), 1);
        assert_eq!(optimal_k(u64::MAX, 1), MAX_K);
        // At the optimum the FPR is about (1/2)^k.
        assert!((false_positive_rate(7, 1000, 10_000) - 0.00819).abs() < 1e-4);
    }

    #[test]
    fn fpr_matches_theory_within_binomial_bounds() {
        // m = 2^16, n = m/10, K = 7: expected FPR (1 - e^{-0.7})^7 = 0.0082. Also K = 2 and 20
        // (the cells of `DoubleHash::multiplied` are the top bits of about h·(1 + i·C): many
        // probes test them beyond a pair) and an odd m, each at an FPR of a few percent.
        let t = 400_000u64;
        let cases = [
            (1u64 << 16, 7u32, 6554u64, [1u64, 2, 3]),
            (1 << 16, 2, 8000, [4, 5, 6]),
            (100_003, 20, 9000, [7, 8, 9]),
        ];
        for (m, k, n, seeds) in cases {
            fpr_case(m, k, n, t, &seeds);
        }
    }

    fn fpr_case(m: u64, k: u32, n: u64, t: u64, seeds: &[u64]) {
        for &seed in seeds {
            let (fp, load) = measure(m, k, n, t, seed);
            let rate = fp as f64 / t as f64;
            // (a) The load against its expectation 1 - (1 - 1/m)^{kn}. The number of set bits
            // has variance below the binomial m·q(1-q) (occupancy counts are negatively
            // associated), so 5 binomial sd is a safe 5-sigma bound.
            let q = 1.0 - (1.0 - 1.0 / m as f64).powf((k as u64 * n) as f64);
            let sd_load = (q * (1.0 - q) / m as f64).sqrt();
            assert!((load - q).abs() < 5.0 * sd_load, "load {load} vs {q}");
            // (b) Given the realised load, each non-member is a false positive with probability
            // ~ load^k: the count is binomial(t, load^k); 5 sd.
            let f = load.powi(k as i32);
            let sd = (t as f64 * f * (1.0 - f)).sqrt();
            assert!(
                (fp as f64 - t as f64 * f).abs() < 5.0 * sd,
                "fp {fp} vs {}",
                t as f64 * f
            );
            // (c) Against the paper's formula: load fluctuations (5 sd of load, propagated through
            // x^k: relative error k·5·sd_load/q) plus the binomial 5 sd.
            let theory = false_positive_rate(k, n, m);
            let tol = theory * f64::from(k) * 5.0 * sd_load / q + 5.0 * sd / t as f64;
            assert!(
                (rate - theory).abs() < tol,
                "rate {rate} vs theory {theory} ± {tol}"
            );
        }
    }

    #[test]
    fn fpr_falls_as_memory_grows() {
        let n = 4000;
        let rates: Vec<f64> = [1u64 << 14, 1 << 15, 1 << 16, 1 << 17]
            .iter()
            .map(|&m| measure(m, optimal_k(m, n), n, 100_000, 9).0 as f64 / 1e5)
            .collect();
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "{rates:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Model test against an exact set: a Bloom filter never answers UNSEEN for a key it has
        /// seen, and its running load equals a recount of the bits.
        #[test]
        fn no_false_negatives(keys in prop::collection::vec(0u64..2000, 1..3000), k in 1u32..8, m in 64u64..5000, seed: u64) {
            let mut bf = BloomFilter::new(m, &BloomParams::with_k(k), seed).unwrap();
            let mut exact = Exact::new();
            for key in keys {
                let h = hash_key(key, seed);
                let truth = exact.step(h);
                let got = bf.step(h);
                prop_assert!(got || !truth, "false negative on key {}", key);
            }
            prop_assert_eq!(bf.occupancy().value, bf.bits.count_ones() as f64 / bf.m as f64);
        }
    }

    #[test]
    fn step_batch_equals_step_and_seeds_are_deterministic() {
        let hashes: Vec<u64> = (0..20_000u64).map(|i| hash_key(i % 7000, 5)).collect();
        let p = BloomParams::with_k(3);
        let mut a = BloomFilter::new(1 << 15, &p, 1).unwrap();
        let mut b = BloomFilter::new(1 << 15, &p, 1).unwrap();
        let one: Vec<bool> = hashes.iter().map(|&h| a.step(h)).collect();
        let mut batch = vec![false; hashes.len()];
        b.step_batch(&hashes, &mut batch);
        assert_eq!(one, batch);
        assert_eq!(a.occupancy(), b.occupancy());
    }

    #[test]
    fn memory_within_budget_on_a_grid() {
        for e in 10..=32 {
            for budget in [1u64 << e, (1u64 << e) + 7, (1u64 << e) - 1] {
                for p in [
                    BloomParams::with_k(1),
                    BloomParams::with_k(7),
                    BloomParams::for_distinct(1000),
                ] {
                    let bits = BloomFilter::memory_bits_for(budget, &p).unwrap();
                    assert!(bits <= budget && bits > 0);
                }
            }
        }
        let f = BloomFilter::new(12_345, &BloomParams::with_k(2), 0).unwrap();
        assert_eq!(f.memory_bits(), 12_345);
        assert_eq!(
            BloomFilter::memory_bits_for(12_345, &BloomParams::with_k(2)),
            Ok(12_345)
        );
        assert_eq!(f.name(), "bloom");
        assert_eq!(f.params()[0], crate::Param::new("k", 2u32));
    }

    #[test]
    fn invalid_params_are_errors() {
        let bad = [
            BloomParams { k: None, n: None },
            BloomParams {
                k: Some(2),
                n: Some(10),
            },
            BloomParams::with_k(0),
            BloomParams::with_k(MAX_K + 1),
            BloomParams::for_distinct(0),
        ];
        for p in &bad {
            assert!(
                matches!(
                    BloomFilter::new(1024, p, 0),
                    Err(Error::InvalidParameter { .. })
                ),
                "{p:?}"
            );
        }
        assert!(matches!(
            BloomFilter::new(0, &BloomParams::with_k(2), 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        assert!(matches!(
            BloomFilter::memory_bits_for(u64::MAX, &BloomParams::with_k(2)),
            Err(Error::CapacityTooLarge { .. })
        ));
    }
}
