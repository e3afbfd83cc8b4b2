//! Deng & Rafiei's synthetic streams (SBF paper, SIGMOD 2006, §5.1 "Synthetic Data", and the
//! appendix "Experimental results from the synthetic data", Fig. 6 a–d).
//!
//! The paper generates the data in two steps.
//!
//! 1. A sequence of `N` positive integers in which **one frequent integer** appears many times
//!    and every other element is distinct. The positions of the frequent integer follow either
//!    a **Poisson process** with rate `λ ≤ 1` ("the fraction of the frequent integer among an
//!    arbitrary number of elements is λ on average"; inter-arrival times exponential with mean
//!    `1/λ`), or the **b-model** with bias `b ≥ 0.5`, aggregation level `l` and volume `v` ("the
//!    fraction of duplicates"): the interval is halved, `b·v` of the volume goes to one half and
//!    `(1 − b)·v` to the other, recursively `l` times. The paper derives the feasibility
//!    constraint `l ≤ ln(v) / ln(1/(2b))` (the densest finest sub-interval would otherwise need
//!    more arrivals than positions); a spec violating it is rejected.
//! 2. Each occurrence of the frequent integer is **renamed** "into another number `i` with a
//!    probability `q_i`, which followed an exponential distribution with a parameter `u`".
//!
//! Fig. 6 uses `N = 2^24`, b-model with `b = 0.5` (6a) and `b = 0.7` (6b, 6c), `l = 6`, and
//! `u` from `10^3` to `10^6` (6c), and a Poisson stream with the same `u` (6d); see
//! [`StreamSpec::deng_fig6_b_model`](crate::StreamSpec::deng_fig6_b_model) and
//! [`StreamSpec::deng_fig6_poisson`](crate::StreamSpec::deng_fig6_poisson).
//!
//! # Readings of the ambiguous text (the ones this generator implements)
//!
//! - **Poisson on positions.** The stream is tuple-based: positions are the clock. We use the
//!   discrete-time Poisson process, a Bernoulli process: each position independently holds the
//!   frequent integer with probability `λ`. Its inter-arrival gaps are geometric with mean
//!   `1/λ` (the discrete exponential), the expected fraction is exactly `λ`, and two arrivals
//!   can never collide on one position (which a continuous process rounded to positions would
//!   allow for `λ` near 1).
//! - **b-model volume.** `V = round(v·N)` arrivals in total. The cascade is deterministic in the
//!   counts: a node holding `c` arrivals gives `round(b·c)` to its heavy half and the rest to
//!   the light half (clamped to the halves' lengths, which only matters at the constraint's
//!   edge). Halves are `⌊len/2⌋` (left) and `len − ⌊len/2⌋` (right).
//! - **Which half is heavy.** The paper puts `b` in the first half "for the ease of
//!   presentation" and says the other case is equally possible; as in Wang et al.'s b-model,
//!   each node picks its heavy half by a fair coin (a hash of the seed and the node, so no
//!   memory is needed). `heavy_first = true` gives the paper's presentation instead.
//! - **Inside a finest sub-interval** (there are `2^l`), the arrivals occupy a uniformly random
//!   subset of the positions of the required size (sequential selection sampling, O(1) memory).
//! - **Default volume** `v = 0.1`: Fig. 6's `v` is not in the text, but the text's worked example
//!   "when v = 0.1 and b = 0.7, l ≤ 6" matches the figure's `b = 0.7`, `l = 6` exactly.
//! - **Renaming.** Every occurrence is renamed independently to `i = ⌊X⌋`, `X ~ Exp` with
//!   **mean** `u` (so `q_i ∝ e^{−i/u}`, geometric). `u` is the scale, not the rate: the paper
//!   says increasing `u` makes the distribution "less skewed" and increases "the number of
//!   distinct elements in the set of frequent elements", which holds for the mean and fails for
//!   the rate (rate `10^3` would rename every occurrence to 0). Number `i = 0` is the original
//!   frequent integer. A renamed integer's first occurrence is unseen, later ones duplicates.
//! - **Keys.** The element at position `p` that is not a frequent arrival has key `p`, which is
//!   distinct by construction; the frequent family's number `i` has key
//!   [`FREQUENT_BASE`]` | i` (see [`frequent_index`]). `N ≤ 10^10 < 2^63`, so the two ranges
//!   never meet.

use dupstream_core::hash::{mix64, reduce, rehash};
use dupstream_core::rng::{FilterRng, Rng, filter_rng};
use rand_distr::{Distribution, Exp1};

use crate::{KeyStream, Result};

/// High bit marking a key of the frequent family: key `FREQUENT_BASE | i` is the frequent
/// integer renamed to number `i`.
pub const FREQUENT_BASE: u64 = 1 << 63;

/// The number `i` of a frequent-family key, `None` for the distinct elements.
#[inline]
pub fn frequent_index(key: u64) -> Option<u64> {
    (key & FREQUENT_BASE != 0).then_some(key & !FREQUENT_BASE)
}

/// Stream length of Fig. 6: `2^24`.
pub const FIG6_N: u64 = 1 << 24;
/// Aggregation level of Fig. 6 a–c.
pub const FIG6_L: u32 = 6;
/// Volume used for Fig. 6 (the text's worked example; see the module doc).
pub const DEFAULT_V: f64 = 0.1;

/// The largest aggregation level the b-model constraint allows, `ln(v) / ln(1/(2b))`
/// (Deng & Rafiei §5.1); `+∞` for `b = 0.5`.
pub fn b_model_max_level(b: f64, v: f64) -> f64 {
    if b <= 0.5 {
        f64::INFINITY
    } else {
        v.ln() / (1.0 / (2.0 * b)).ln()
    }
}

const PLACE_STREAM: u64 = 0x646e_6770;
const RENAME_STREAM: u64 = 0x646e_6772;
const SIDE_SALT: u64 = 0x646e_6773;

/// A sub-interval of positions and how many frequent arrivals the b-model puts in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// First position.
    pub start: u64,
    /// Number of positions.
    pub len: u64,
    /// Number of frequent arrivals in it.
    pub count: u64,
}

/// The b-model cascade: which interval gets how many arrivals. O(1) memory; any node is
/// computed by walking down from the root.
#[derive(Debug, Clone)]
pub struct BModelTree {
    n: u64,
    total: u64,
    b: f64,
    l: u32,
    heavy_first: bool,
    side_key: u64,
}

impl BModelTree {
    /// The cascade over `n` positions (parameters as in [`StreamSpec::DengBModel`](crate::StreamSpec::DengBModel)).
    pub fn new(n: u64, b: f64, l: u32, v: f64, heavy_first: bool, seed: u64) -> Self {
        let total = ((v * n as f64).round() as u64).min(n);
        Self {
            n,
            total,
            b,
            l,
            heavy_first,
            side_key: mix64(seed ^ SIDE_SALT),
        }
    }

    /// Total number of frequent arrivals, `round(v·N)`.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Aggregation level.
    pub fn levels(&self) -> u32 {
        self.l
    }

    /// Node `idx` (`0..2^level`) at `level` (`0..=l`); level 0 is the whole stream.
    ///
    /// # Panics
    /// If `level > l` or `idx >= 2^level`.
    pub fn node(&self, level: u32, idx: u64) -> Interval {
        assert!(
            level <= self.l && idx >> level == 0,
            "no node {idx} at level {level}"
        );
        let mut iv = Interval {
            start: 0,
            len: self.n,
            count: self.total,
        };
        let mut id = 1u64; // heap numbering: children of `id` are 2id and 2id + 1
        for t in 0..level {
            let right = (idx >> (level - 1 - t)) & 1 == 1;
            let left_len = iv.len / 2;
            let right_len = iv.len - left_len;
            let heavy_left = self.heavy_first || rehash(self.side_key, id) & 1 == 0;
            let (heavy_len, light_len) = if heavy_left {
                (left_len, right_len)
            } else {
                (right_len, left_len)
            };
            let mut heavy = ((self.b * iv.count as f64).round() as u64)
                .min(heavy_len)
                .min(iv.count);
            let mut light = iv.count - heavy;
            if light > light_len {
                light = light_len;
                heavy = iv.count - light;
            }
            let (lc, rc) = if heavy_left {
                (heavy, light)
            } else {
                (light, heavy)
            };
            iv = if right {
                Interval {
                    start: iv.start + left_len,
                    len: right_len,
                    count: rc,
                }
            } else {
                Interval {
                    start: iv.start,
                    len: left_len,
                    count: lc,
                }
            };
            id = 2 * id + u64::from(right);
        }
        iv
    }
}

#[derive(Debug)]
enum Placement {
    Poisson {
        /// Frequent iff `x < threshold`, where `threshold = λ·2^64` (or always, for λ = 1).
        threshold: u64,
        always: bool,
    },
    BModel {
        tree: BModelTree,
        /// Index of the next finest sub-interval to enter.
        next_leaf: u64,
        /// Positions left in the current finest sub-interval.
        left: u64,
        /// Arrivals still to place in it.
        needed: u64,
    },
}

/// Deng & Rafiei's synthetic stream (Poisson or b-model placement, then exponential renaming).
#[derive(Debug)]
pub struct DengStream {
    n: u64,
    pos: u64,
    place_rng: FilterRng,
    rename_rng: FilterRng,
    u: f64,
    placement: Placement,
}

impl DengStream {
    /// Poisson placement with rate `lambda ∈ (0, 1]`, renaming with mean `u > 0`.
    pub fn poisson(n: u64, lambda: f64, u: f64, seed: u64) -> Self {
        let always = lambda >= 1.0;
        let threshold = if always {
            u64::MAX
        } else {
            (lambda * 18_446_744_073_709_551_616.0) as u64
        };
        Self::with(n, u, seed, Placement::Poisson { threshold, always })
    }

    /// b-model placement (parameters checked by [`StreamSpec::validate`](crate::StreamSpec::validate)).
    pub fn b_model(n: u64, b: f64, l: u32, v: f64, u: f64, heavy_first: bool, seed: u64) -> Self {
        let tree = BModelTree::new(n, b, l, v, heavy_first, seed);
        Self::with(
            n,
            u,
            seed,
            Placement::BModel {
                tree,
                next_leaf: 0,
                left: 0,
                needed: 0,
            },
        )
    }

    fn with(n: u64, u: f64, seed: u64, placement: Placement) -> Self {
        Self {
            n,
            pos: 0,
            place_rng: filter_rng(seed, PLACE_STREAM),
            rename_rng: filter_rng(seed, RENAME_STREAM),
            u,
            placement,
        }
    }

    #[inline(always)]
    fn rename(&mut self) -> u64 {
        let x: f64 = Exp1.sample(&mut self.rename_rng);
        // `as` saturates; the bound keeps the number clear of the marker bit.
        FREQUENT_BASE | ((x * self.u) as u64).min(FREQUENT_BASE - 1)
    }
}

impl KeyStream for DengStream {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let k = buf
            .len()
            .min(usize::try_from(self.n - self.pos).unwrap_or(usize::MAX));
        for slot in &mut buf[..k] {
            let p = self.pos;
            self.pos += 1;
            let frequent = match &mut self.placement {
                Placement::Poisson { threshold, always } => {
                    *always || self.place_rng.next_u64() < *threshold
                }
                Placement::BModel {
                    tree,
                    next_leaf,
                    left,
                    needed,
                } => {
                    while *left == 0 {
                        let iv = tree.node(tree.l, *next_leaf);
                        *next_leaf += 1;
                        *left = iv.len;
                        *needed = iv.count;
                    }
                    // Selection sampling: frequent with probability needed / left.
                    let f = *needed > 0 && reduce(self.place_rng.next_u64(), *left) < *needed;
                    *left -= 1;
                    *needed -= u64::from(f);
                    f
                }
            };
            *slot = if frequent { self.rename() } else { p };
        }
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(mut s: DengStream, n: u64) -> Vec<u64> {
        let mut v = vec![0u64; n as usize + 10];
        let k = s.fill(&mut v).unwrap();
        assert_eq!(k as u64, n);
        assert_eq!(s.fill(&mut v).unwrap(), 0);
        v.truncate(k);
        v
    }

    #[test]
    fn constraint_matches_the_papers_examples() {
        // "when v = 0.1 and b = 0.7, l ≤ 6. But when v = 0.5 and b = 0.8, l ≤ 1."
        assert_eq!(b_model_max_level(0.7, 0.1).floor(), 6.0);
        assert_eq!(b_model_max_level(0.8, 0.5).floor(), 1.0);
        assert!(b_model_max_level(0.5, 0.9).is_infinite());
    }

    #[test]
    fn poisson_rate_matches_lambda() {
        let n = 1u64 << 22;
        for lambda in [0.01, 0.3, 0.9] {
            let keys = collect(DengStream::poisson(n, lambda, 1000.0, 5), n);
            let hits = keys
                .iter()
                .filter(|&&k| frequent_index(k).is_some())
                .count() as f64;
            // Binomial(n, λ): 5 sd, two-sided, fails with p < 6e-7.
            let sd = (n as f64 * lambda * (1.0 - lambda)).sqrt();
            assert!(
                (hits - n as f64 * lambda).abs() < 5.0 * sd,
                "λ={lambda}: {hits}"
            );
            // Mean inter-arrival gap is 1/λ (geometric); its sd is sqrt(1-λ)/λ per gap.
            let pos: Vec<u64> = (0..n)
                .filter(|&p| frequent_index(keys[p as usize]).is_some())
                .collect();
            let gaps = pos.len() - 1;
            let mean = (pos[gaps] - pos[0]) as f64 / gaps as f64;
            let sd_mean = (1.0 - lambda).sqrt() / lambda / (gaps as f64).sqrt();
            assert!(
                (mean - 1.0 / lambda).abs() < 5.0 * sd_mean + 1e-9,
                "λ={lambda}: gap {mean}"
            );
            // The other elements are distinct: their key is their position.
            assert!(
                (0..n).all(|p| keys[p as usize] == p || frequent_index(keys[p as usize]).is_some())
            );
        }
    }

    #[test]
    fn renaming_is_exponential_with_mean_u() {
        // ⌊X⌋ with X ~ Exp(mean u) is geometric with mean 1/(e^{1/u} − 1) ≈ u − 1/2; its sd
        // is ≈ u, so the sample mean over m draws has sd u/√m.
        let n = 1u64 << 21;
        for u in [1e3, 1e5] {
            let keys = collect(DengStream::poisson(n, 0.5, u, 11), n);
            let idx: Vec<f64> = keys
                .iter()
                .filter_map(|&k| frequent_index(k))
                .map(|i| i as f64)
                .collect();
            let m = idx.len() as f64;
            let mean = idx.iter().sum::<f64>() / m;
            let expect = 1.0 / ((1.0 / u).exp() - 1.0);
            assert!(
                (mean - expect).abs() < 5.0 * u / m.sqrt(),
                "u={u}: {mean} vs {expect}"
            );
        }
    }

    /// The per-level volume split: every node's heavy half holds round(b·c) of its c arrivals,
    /// and the stream realises the cascade's counts exactly.
    fn check_b_model(b: f64, l: u32, v: f64, n: u64, seed: u64) {
        let keys = collect(DengStream::b_model(n, b, l, v, 1e4, false, seed), n);
        let tree = BModelTree::new(n, b, l, v, false, seed);
        let freq: Vec<bool> = keys.iter().map(|&k| frequent_index(k).is_some()).collect();
        let count = |iv: Interval| {
            freq[iv.start as usize..(iv.start + iv.len) as usize]
                .iter()
                .filter(|&&f| f)
                .count() as u64
        };
        assert_eq!(count(tree.node(0, 0)), (v * n as f64).round() as u64);
        let (mut left_heavy, mut right_heavy) = (0, 0);
        for t in 0..l {
            let mut heavy_total = 0u64;
            let mut level_total = 0u64;
            for idx in 0..1u64 << t {
                let parent = tree.node(t, idx);
                let (a, c) = (tree.node(t + 1, 2 * idx), tree.node(t + 1, 2 * idx + 1));
                assert_eq!(count(parent), parent.count);
                assert_eq!((count(a), count(c)), (a.count, c.count));
                let heavy = a.count.max(c.count);
                assert!(
                    (heavy as f64 - b * parent.count as f64).abs() <= 0.5 + 1e-9,
                    "level {t} node {idx}"
                );
                if a.count > c.count {
                    left_heavy += 1
                } else if c.count > a.count {
                    right_heavy += 1
                }
                heavy_total += heavy;
                level_total += parent.count;
            }
            let split = heavy_total as f64 / level_total as f64;
            assert!(
                (split - b).abs() < 0.01,
                "level {t}: split {split} vs b = {b}"
            );
        }
        if b > 0.5 && l == 6 {
            // Fair coins over 2^l − 1 = 63 nodes: both sides must occur.
            assert!(
                left_heavy > 5 && right_heavy > 5,
                "{left_heavy} / {right_heavy}"
            );
        }
    }

    #[test]
    fn b_model_per_level_split_matches_b() {
        check_b_model(0.7, 6, 0.1, 1 << 20, 1);
        check_b_model(0.5, 6, 0.1, 1 << 20, 2);
        check_b_model(0.8, 1, 0.5, 1 << 16, 3);
    }

    #[test]
    fn heavy_first_puts_b_in_the_first_half() {
        let tree = BModelTree::new(1 << 20, 0.7, 6, 0.1, true, 0);
        let total = tree.total();
        assert_eq!(tree.node(1, 0).count, (0.7 * total as f64).round() as u64);
    }
}
