//! Sliding Sketches' sliding Bloom filter (Sl-BF): Gou, Zhang, He, Yang, Zou, Cui, *Sliding
//! Sketches: A Framework using Time Zones for Data Stream Processing in Sliding Windows*, KDD
//! 2020, Section 4 (the framework) applied to the Bloom filter; as implemented in the authors'
//! public code (github.com/sliding-sketch/Sliding-Sketch, `src/Membership/sliding_bloom.cpp`).
//!
//! **Structure.** `k` stages of `L` cells; each cell holds two bits, *future* and *now* (the
//! framework's `d = 2` time zones). An element's cell in stage `i` is its `i`-th hash position
//! in `0..L`. A *scanning clock* sweeps all `k·L` cells once every `W` elements; a swept cell
//! moves its future bit to now (`now ← future; future ← 0`). A step answers DUPLICATE iff in
//! every stage the element's cell has its future or its now bit set, then sets its future bits.
//!
//! **Window.** Between an insertion and the query `d ≤ W` elements later the clock sweeps each
//! cell at most once (exactly `k·L` cells per `W` elements), so the bit is still in future or
//! in now: no false negatives within the window. A bit lives until the second sweep of its
//! cell, less than about `2W` elements: older elements may still be reported (the slack), and
//! any element is reported when other elements set all its cells.
//!
//! **False positives.** Given the state, a never-seen element is reported iff its cell is set
//! (future or now) in every stage; with independent uniform positions that is
//! `Π_i s_i`, `s_i` the fraction of set cells of stage `i`
//! ([`false_positive_rate_given_stages`], [`SlidingBloom::stage_fills`]).
//!
//! **Memory.** `2·k·L` bits, `L = ⌊budget / (2k)⌋`.
//!
//! Readings:
//! - The clock advances by element count: after `t` elements it has swept `⌊t·k·L / W⌋` cells
//!   (exact integer arithmetic). The reference advances `t·⌊kL/W⌋` (an integer division of
//!   the cells per time unit), which sweeps fewer cells than one round per `W` unless `kL` is
//!   a multiple of `W`; the two agree when it is.
//! - The sweep at element `t` happens before its query, as in the reference (`Clock_Go` opens
//!   both `Query` and `Init`).
//! - `k` defaults to the optimum for about `1.5·W` elements in `k·L` cells (a cell holds the
//!   insertions of the last `W` to `2W` elements): [`crate::bloom::optimal_k`]`(kL, 3W/2)`;
//!   the reference's evaluation runs `k = 10`.
//! - Stage positions come from double hashing of the key hash ([`DoubleHash`]), standing in
//!   for the reference's BOBHash with seed `i`.
//! - Occupancy is the fraction of cells with a bit set.

use crate::bloom::{MAX_K, optimal_k};
use crate::error::{Error, Result, ensure};
use crate::hash::DoubleHash;
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// The probability that a never-seen element is reported when stage `i` has a fraction
/// `fills[i]` of its cells set: `Π fills[i]`.
pub fn false_positive_rate_given_stages(fills: &[f64]) -> f64 {
    fills.iter().product()
}

/// Parameters of a [`SlidingBloom`].
///
/// ```toml
/// window = 65536
/// k = 10   # default: optimal for 1.5·W elements in the k·L cells
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SlidingBloomParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `k`, the number of stages (hash functions).
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
}

/// `(k, L)` for a budget.
fn resolve(budget_bits: u64, p: &SlidingBloomParams) -> Result<(u32, u64)> {
    ensure(p.window >= 1, "window", p.window, "must be at least 1")?;
    let k = match p.k {
        Some(k) => {
            ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=256")?;
            k
        }
        None => optimal_k(budget_bits / 2, p.window.saturating_mul(3) / 2),
    };
    let l = budget_bits / (2 * u64::from(k));
    if l == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "sliding_bloom",
            budget_bits,
            needed_bits: 2 * u64::from(k),
        });
    }
    crate::error::words_for_bits("sliding_bloom", 2 * u64::from(k) * l)?;
    Ok((k, l))
}

/// The sliding Bloom filter of Sliding Sketches (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, sliding_bloom::{SlidingBloom, SlidingBloomParams}};
/// let p = SlidingBloomParams { window: 100, k: Some(4) };
/// let mut f = SlidingBloom::new(1 << 14, &p, 0).unwrap();
/// assert!(!f.step(7));
/// for h in 1000..1099u64 {
///     f.step(h);
/// }
/// assert!(f.step(7)); // gap 100: within the window
/// ```
#[derive(Debug, Clone)]
pub struct SlidingBloom {
    future: Vec<u64>,
    now: Vec<u64>,
    k: u32,
    /// Cells per stage.
    l: u64,
    window: u64,
    /// Elements stepped.
    t: u64,
    /// Cells swept so far (the clock's position is this modulo `k·L`).
    swept: u128,
}

impl SlidingBloom {
    /// A sliding Bloom filter within `budget_bits`; it draws nothing random (`seed` unused).
    pub fn new(budget_bits: u64, params: &SlidingBloomParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let (k, l) = resolve(budget_bits, params)?;
        let words = (u64::from(k) * l).div_ceil(64) as usize;
        Ok(Self {
            future: crate::raw::zeroed_words(words),
            now: crate::raw::zeroed_words(words),
            k,
            l,
            window: params.window,
            t: 0,
            swept: 0,
        })
    }

    /// The state size for this budget (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &SlidingBloomParams) -> Result<u64> {
        let (k, l) = resolve(budget_bits, params)?;
        Ok(2 * u64::from(k) * l)
    }

    fn cells(&self) -> u64 {
        u64::from(self.k) * self.l
    }

    /// Sweeps cells `[a, b)` (`b ≤ k·L`): now ← future, future ← 0, a word at a time.
    fn sweep_range(&mut self, a: u64, b: u64) {
        let mut i = a;
        while i < b {
            let w = (i / 64) as usize;
            let lo = i % 64;
            let hi = (b - (i - lo)).min(64);
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            self.now[w] = (self.now[w] & !mask) | (self.future[w] & mask);
            self.future[w] &= !mask;
            i += hi - lo;
        }
    }

    /// Advances the clock to `⌊t·k·L / W⌋` cells swept.
    fn clock_go(&mut self) {
        let len = self.cells();
        let target = u128::from(self.t) * u128::from(len) / u128::from(self.window);
        let mut todo = target - self.swept;
        // Two full rounds clear everything; more change nothing further.
        if todo > 2 * u128::from(len) {
            let skip = (todo - 2 * u128::from(len)) / u128::from(len) * u128::from(len);
            self.swept += skip;
            todo -= skip;
        }
        while todo > 0 {
            let pos = (self.swept % u128::from(len)) as u64;
            let n = todo.min(u128::from(len - pos)) as u64;
            self.sweep_range(pos, pos + n);
            self.swept += u128::from(n);
            todo -= u128::from(n);
        }
    }

    #[inline(always)]
    fn cell(&self, dh: &DoubleHash, i: u32) -> u64 {
        u64::from(i) * self.l + dh.index(i, self.l)
    }

    #[inline(always)]
    fn is_set(&self, c: u64) -> bool {
        let (w, b) = ((c / 64) as usize, c % 64);
        ((self.future[w] | self.now[w]) >> b) & 1 == 1
    }

    /// Membership query at the current clock (no update, no clock move).
    pub fn contains(&self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        (0..self.k).all(|i| self.is_set(self.cell(&dh, i)))
    }

    /// Fraction of set cells (future or now) in each stage.
    pub fn stage_fills(&self) -> Vec<f64> {
        (0..u64::from(self.k))
            .map(|s| {
                let set = (s * self.l..(s + 1) * self.l)
                    .filter(|&c| self.is_set(c))
                    .count();
                set as f64 / self.l as f64
            })
            .collect()
    }

    /// `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
}

impl DuplicateFilter for SlidingBloom {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        self.clock_go();
        self.t += 1;
        let dh = DoubleHash::new(hash);
        let dup = (0..self.k).all(|i| self.is_set(self.cell(&dh, i)));
        for i in 0..self.k {
            let c = self.cell(&dh, i);
            self.future[(c / 64) as usize] |= 1 << (c % 64);
        }
        dup
    }

    fn prefetch(&self, hash: u64) {
        let dh = DoubleHash::new(hash);
        for i in 0..self.k {
            let w = (self.cell(&dh, i) / 64) as usize;
            crate::raw::prefetch_word(&self.future, w);
            crate::raw::prefetch_word(&self.now, w);
        }
    }

    fn memory_bits(&self) -> u64 {
        2 * self.cells()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("k", self.k),
            crate::Param::new("cells_per_stage", self.l),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        let set: u64 = self
            .future
            .iter()
            .zip(&self.now)
            .map(|(f, n)| u64::from((f | n).count_ones()))
            .sum();
        Occupancy {
            kind: OccupancyKind::Load,
            value: set as f64 / self.cells() as f64,
        }
    }
}

crate::structure::impl_structure!(SlidingBloom {
    name: "sliding_bloom",
    params: SlidingBloomParams,
    cost: 3.0,
    memory_bits_for: SlidingBloom::memory_bits_for,
}
    crate::structure::window_scales!(SlidingBloomParams);

    /// `k` cells (each a future and a now word: they share a word index), and the clock's
    /// sweep of `(m/2)/W` cells a word at a time, counted as lines.
    fn cells_per_element(params: &SlidingBloomParams, budget_bits: u64) -> f64 {
        let m = budget_bits;
        let w = params.window.max(1);
        let k = params
            .k
            .unwrap_or_else(|| crate::bloom::optimal_k(m / 2, w.saturating_mul(3) / 2));
        f64::from(k) + (m as f64 / 2.0 / w as f64 / 512.0)
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// No false negatives within the window, against the brute-force windowed truth; and,
        /// with cells so many that false positives are negligible, nothing reported beyond
        /// `2W + 2` (a bit lives until the second sweep of its cell).
        #[test]
        fn no_false_negatives_within_the_window(keys in prop::collection::vec(0u64..150, 1..2000), w in 1u64..300, k in 1u32..6) {
            let p = SlidingBloomParams { window: w, k: Some(k) };
            let mut f = SlidingBloom::new((2 * u64::from(k)) << 16, &p, 0).unwrap();
            let hashes: Vec<u64> = keys.iter().map(|&x| hash_key(x, 6)).collect();
            for (i, &h) in hashes.iter().enumerate() {
                let gap = hashes[..i].iter().rposition(|&x| x == h).map(|j| (i - j) as u64);
                let dup = f.step(h);
                if gap.is_some_and(|d| d <= w) {
                    prop_assert!(dup, "false negative at {} (gap {:?})", i, gap);
                }
                if dup && k >= 3 {
                    prop_assert!(gap.is_some_and(|d| d <= 2 * w + 2), "reported at {} (gap {:?})", i, gap);
                }
            }
        }

        /// The word-wise sweep equals a cell-by-cell one.
        #[test]
        fn sweep_equals_cell_by_cell(keys in prop::collection::vec(any::<u64>(), 1..500), w in 1u64..100, budget in 2u64..2000) {
            let p = SlidingBloomParams { window: w, k: Some(1) };
            let Ok(mut f) = SlidingBloom::new(budget, &p, 0) else { return Ok(()) };
            let len = f.cells();
            let (mut fut, mut now) = (vec![false; len as usize], vec![false; len as usize]);
            let mut swept = 0u64;
            for (t, &h) in keys.iter().enumerate() {
                let target = (t as u128 * u128::from(len) / u128::from(w)) as u64;
                while swept < target {
                    let c = (swept % len) as usize;
                    now[c] = fut[c];
                    fut[c] = false;
                    swept += 1;
                }
                let c = DoubleHash::new(h).index(0, len) as usize;
                let want = fut[c] || now[c];
                fut[c] = true;
                prop_assert_eq!(f.step(h), want);
            }
        }
    }

    #[test]
    fn fpr_matches_the_stage_fills() {
        for (w, budget, k) in [(20_000u64, 400_000u64, 4u32), (5_000, 200_000, 8)] {
            let p = SlidingBloomParams {
                window: w,
                k: Some(k),
            };
            let mut f = SlidingBloom::new(budget, &p, 0).unwrap();
            for i in 0..(5 * w + 321) {
                f.step(hash_key(i, 8));
            }
            let rate = false_positive_rate_given_stages(&f.stage_fills());
            crate::test_support::check_never_seen_fpr(
                &format!("sliding bloom W={w} k={k}"),
                |h| f.contains(h),
                rate,
            );
        }
    }

    #[test]
    fn sizing() {
        let p = SlidingBloomParams {
            window: 1000,
            k: Some(10),
        };
        assert_eq!(SlidingBloom::memory_bits_for(100_019, &p), Ok(100_000));
        let d = SlidingBloomParams {
            window: 1000,
            k: None,
        };
        let f = SlidingBloom::new(1 << 20, &d, 0).unwrap();
        assert_eq!(f.k(), optimal_k(1 << 19, 1500));
        assert!(matches!(
            SlidingBloom::new(19, &p, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        assert!(matches!(
            SlidingBloom::new(1 << 20, &SlidingBloomParams { window: 0, k: None }, 0),
            Err(Error::InvalidParameter { .. })
        ));
    }
}
