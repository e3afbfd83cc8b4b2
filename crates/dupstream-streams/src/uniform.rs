//! Streams over a finite universe: uniform (Bera et al., journal, §3.1) and Zipf.
//!
//! **Uniform.** Bera et al.'s "uniform random dataset with X % distinct" (journal §3.1, "elements
//! of the stream are uniformly randomly drawn from a finite universe Γ, |Γ| = U"). Every element
//! is drawn independently and uniformly from the keys `0..U`. The spec gives `U` directly, or a
//! target distinct fraction `d` for length `N`, and `U` is then the root of
//! `U·(1 − e^{−N/U}) = d·N` ([`universe_for_distinct_fraction`]): the expected number of distinct
//! keys among `N` uniform draws is `U·(1 − (1 − 1/U)^N) ≈ U·(1 − e^{−N/U})`. For example
//! `N = 10^9`, `d = 0.15` gives `U ≈ 1.5·10^8`, and `d = 0.9` gives `U ≈ 4.7·10^9`. The
//! realised distinct fraction is measured by [`GroundTruth`](crate::GroundTruth).
//!
//! A draw is `reduce(x, U)` (Lemire's multiply-shift) of one Xoshiro256++ output `x`; its bias
//! is below `U / 2^64` (under `10^-9` for every universe used here), so no rejection is done.
//!
//! **Zipf.** Key `r − 1` where the rank `r ∈ 1..=U` has probability `∝ r^{−s}`, drawn with
//! `rand_distr::Zipf` (rejection-inversion). Keys are therefore `0..U`, key 0 the most frequent.

use dupstream_core::hash::reduce;
use dupstream_core::rng::{FilterRng, Rng, filter_rng};
use rand_distr::Distribution;

use crate::{KeyStream, Result};
pub use dupstream_core::universe::{expected_distinct_fraction, universe_for_distinct_fraction};

/// Sub-stream of [`filter_rng`] used by the uniform stream.
const UNIFORM_STREAM: u64 = 0x756e_6966;
/// Sub-stream of [`filter_rng`] used by the Zipf stream (and the drifting one's ranks).
pub(crate) const ZIPF_STREAM: u64 = 0x7a69_7066;

/// Uniform draws from `0..universe`.
#[derive(Debug)]
pub struct UniformStream {
    rng: FilterRng,
    universe: u64,
    remaining: u64,
}

impl UniformStream {
    /// `n` draws from `0..universe` (`universe >= 1`), seeded.
    pub fn new(n: u64, universe: u64, seed: u64) -> Self {
        assert!(universe >= 1, "universe must be at least 1");
        Self {
            rng: filter_rng(seed, UNIFORM_STREAM),
            universe,
            remaining: n,
        }
    }
}

impl KeyStream for UniformStream {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let k = buf
            .len()
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        let u = self.universe;
        for x in &mut buf[..k] {
            *x = reduce(self.rng.next_u64(), u);
        }
        self.remaining -= k as u64;
        Ok(k)
    }
}

/// Zipf draws: key `r − 1` for rank `r ∈ 1..=universe` with probability `∝ r^{−s}`.
#[derive(Debug)]
pub struct ZipfStream {
    rng: FilterRng,
    zipf: rand_distr::Zipf<f64>,
    max_key: u64,
    remaining: u64,
}

impl ZipfStream {
    /// `n` draws over `universe >= 1` ranks with exponent `s >= 0` (finite), seeded.
    ///
    /// # Panics
    /// If `universe == 0` or `s` is negative or not finite (checked by
    /// [`StreamSpec::validate`](crate::StreamSpec::validate)).
    pub fn new(n: u64, universe: u64, s: f64, seed: u64) -> Self {
        let zipf = rand_distr::Zipf::new(universe as f64, s).expect("validated Zipf parameters");
        Self {
            rng: filter_rng(seed, ZIPF_STREAM),
            zipf,
            max_key: universe - 1,
            remaining: n,
        }
    }
}

impl KeyStream for ZipfStream {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let k = buf
            .len()
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        for x in &mut buf[..k] {
            let r: f64 = self.zipf.sample(&mut self.rng);
            // `r` is an integer in [1, U] held exactly in f64 for U < 2^53; the clamp only
            // guards the rounding of larger universes.
            *x = ((r as u64).max(1) - 1).min(self.max_key);
        }
        self.remaining -= k as u64;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_keys_stay_in_universe_and_cover_it() {
        let mut s = UniformStream::new(100_000, 1000, 3);
        let mut buf = vec![0u64; 4096];
        let mut seen = vec![0u32; 1000];
        let mut total = 0;
        loop {
            let k = s.fill(&mut buf).unwrap();
            if k == 0 {
                break;
            }
            total += k;
            for &x in &buf[..k] {
                seen[x as usize] += 1;
            }
        }
        assert_eq!(total, 100_000);
        // 100 expected per key, sd 10: 6-sd bounds.
        assert!(seen.iter().all(|&c| (40..=160).contains(&c)));
    }

    #[test]
    fn zipf_rank_one_has_its_share() {
        // s = 1, U = 100: P(rank 1) = 1 / H_100 = 0.19277.
        let n = 200_000u64;
        let mut s = ZipfStream::new(n, 100, 1.0, 9);
        let mut buf = vec![0u64; n as usize];
        assert_eq!(s.fill(&mut buf).unwrap(), n as usize);
        assert!(buf.iter().all(|&k| k < 100));
        let p = 1.0 / (1..=100).map(|r| 1.0 / r as f64).sum::<f64>();
        let c = buf.iter().filter(|&&k| k == 0).count() as f64;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (c - n as f64 * p).abs() < 5.0 * sd,
            "count {c} vs {}",
            n as f64 * p
        );
    }
}
