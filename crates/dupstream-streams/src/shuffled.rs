//! A random permutation of a multiset with exactly `D` distinct keys.
//!
//! **The model.** Take each of `D` keys once, add `N − D` further copies whose keys are drawn
//! independently and uniformly from the `D`, and shuffle all `N` tokens uniformly. The stream has
//! exactly `D = round(d·N)` distinct keys; a key occurs `1 + Binomial(N − D, 1/D)` times, at
//! uniformly random positions. It is one reading of Bera et al.'s "uniform random dataset of size
//! 1B with 60 % distinct elements": the distinct count is fixed and every duplicate is a uniform
//! pick among the distinct keys. [`UniformStream`](crate::uniform::UniformStream) is the other
//! (every element an independent draw from a universe `U`, so the distinct count is random and a
//! key's occurrence count is a zero-truncated Poisson). At 60 % distinct the two differ most: the
//! mean gap between a duplicate and its previous occurrence is 3 % longer here.
//!
//! **Generation, in one pass and O(1) memory.** A uniform shuffle of the `D` "base" tokens and the
//! `N − D` "extra" tokens emits, at each position, a base token with probability `b / (b + e)`
//! (`b`, `e`: base and extra tokens not yet emitted), otherwise an extra one. An extra token's key
//! is uniform on the `D` keys, independently of everything else. Which key a base token carries
//! is a uniform choice among the keys whose base token has not been emitted; relabelling the keys
//! so that the `j`-th base token carries key `j` maps that process onto this one and leaves the
//! extra tokens' keys uniform, so emitting `j` for the `j`-th base token gives the same stream up
//! to a renaming of keys, which no structure can see (they hash every key with a seeded hash).
//! The stream is therefore exactly the shuffled multiset, without storing it.

use dupstream_core::hash::reduce;
use dupstream_core::rng::{FilterRng, Rng, filter_rng};

use crate::{KeyStream, Result};

/// Sub-stream of [`filter_rng`] used by the shuffled stream.
const SHUFFLED_STREAM: u64 = 0x7368_7566;

/// The number of distinct keys, `round(d·N)`, of a shuffled stream of length `n` (at least 1 and
/// at most `n`).
pub fn shuffled_distinct(n: u64, d: f64) -> u64 {
    ((d * n as f64).round() as u64).clamp(1, n.max(1))
}

/// A uniform permutation of `D` keys once each plus `N − D` uniform copies of them.
#[derive(Debug)]
pub struct ShuffledStream {
    rng: FilterRng,
    distinct: u64,
    /// Base tokens not yet emitted; the next one carries key `distinct − base_left`.
    base_left: u64,
    /// Extra tokens not yet emitted.
    extra_left: u64,
}

impl ShuffledStream {
    /// `n` tokens with exactly `distinct` distinct keys `0..distinct` (`1 <= distinct <= n`).
    ///
    /// # Panics
    /// If `distinct` is 0 or larger than `n` (checked by
    /// [`StreamSpec::validate`](crate::StreamSpec::validate)).
    pub fn new(n: u64, distinct: u64, seed: u64) -> Self {
        assert!(
            (1..=n).contains(&distinct),
            "distinct must be between 1 and n"
        );
        Self {
            rng: filter_rng(seed, SHUFFLED_STREAM),
            distinct,
            base_left: distinct,
            extra_left: n - distinct,
        }
    }
}

impl KeyStream for ShuffledStream {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let remaining = self.base_left + self.extra_left;
        let k = buf
            .len()
            .min(usize::try_from(remaining).unwrap_or(usize::MAX));
        for x in &mut buf[..k] {
            let left = self.base_left + self.extra_left;
            // Lemire's reduction: bias below left / 2^64, under 10^-9 for any declared length.
            if reduce(self.rng.next_u64(), left) < self.base_left {
                *x = self.distinct - self.base_left;
                self.base_left -= 1;
            } else {
                *x = reduce(self.rng.next_u64(), self.distinct);
                self.extra_left -= 1;
            }
        }
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mut s: ShuffledStream) -> Vec<u64> {
        let mut out = Vec::new();
        let mut buf = [0u64; 1000];
        loop {
            let k = s.fill(&mut buf).unwrap();
            if k == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..k]);
        }
    }

    #[test]
    fn length_and_distinct_count_are_exact() {
        for (n, d) in [
            (1, 1),
            (10, 10),
            (10_000, 1),
            (100_000, 60_000),
            (12_345, 777),
        ] {
            let keys = drain(ShuffledStream::new(n, d, 5));
            assert_eq!(keys.len() as u64, n);
            let mut seen = vec![false; d as usize];
            for &k in &keys {
                assert!(k < d, "key {k} outside 0..{d}");
                seen[k as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "every key occurs: n={n} d={d}");
        }
    }

    #[test]
    fn base_tokens_are_spread_uniformly_over_the_stream() {
        // In a uniform shuffle the j-th of D base tokens sits, on average, at position
        // (j + 1)·(N + 1)/(D + 1) − 1; the first occurrence of key j can be no later. Check the
        // number of base tokens among the first half: hypergeometric, mean D/2, sd ≈ √(D·(1−D/N)/4)
        // ≈ 110 for N = 10^6, D = 6·10^4; 6 sd bounds fail with p < 10^-8.
        let (n, d) = (1_000_000u64, 60_000u64);
        let mut s = ShuffledStream::new(n, d, 9);
        let mut buf = vec![0u64; (n / 2) as usize];
        assert_eq!(s.fill(&mut buf).unwrap() as u64, n / 2);
        let bases = d - s.base_left;
        let sd = ((d as f64) * (1.0 - d as f64 / n as f64) / 4.0).sqrt();
        assert!(
            (bases as f64 - d as f64 / 2.0).abs() < 6.0 * sd,
            "{bases} base tokens in the first half, expected {} ± {sd:.0}",
            d / 2
        );
    }

    #[test]
    fn occurrence_counts_follow_one_plus_binomial() {
        // Key counts are 1 + Binomial(N − D, 1/D): mean N/D, variance (N − D)(1/D)(1 − 1/D).
        let (n, d) = (1_000_000u64, 600_000u64);
        let keys = drain(ShuffledStream::new(n, d, 11));
        let mut count = vec![0u32; d as usize];
        for k in keys {
            count[k as usize] += 1;
        }
        let ones = count.iter().filter(|&&c| c == 1).count() as f64 / d as f64;
        // P(count = 1) = (1 − 1/D)^(N−D) ≈ e^{−(N−D)/D} = e^{−2/3} = 0.5134; the empirical
        // fraction over 600,000 keys has sd ≈ √(0.5134·0.4866/600000) = 0.00065; 6 sd = 0.0039.
        let expected = (-((n - d) as f64) / d as f64).exp();
        assert!((ones - expected).abs() < 0.0039, "{ones} vs {expected}");
    }

    #[test]
    fn same_seed_same_stream_other_seed_other_stream() {
        let a = drain(ShuffledStream::new(5000, 3000, 1));
        assert_eq!(a, drain(ShuffledStream::new(5000, 3000, 1)));
        assert_ne!(a, drain(ShuffledStream::new(5000, 3000, 2)));
    }
}
