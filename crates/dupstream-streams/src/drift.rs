//! A Zipf stream whose popularity drifts: the hot set is gradually replaced by new keys.
//!
//! Element `t` (from 0) draws a popularity rank `r ∈ 0..U` from Zipf(`s`) exactly as the
//! [`ZipfStream`](crate::uniform::ZipfStream) of the same seed does (the same generator and
//! sampler, so the ranks are the same draws), and emits the key
//!
//! ```text
//! key(r, t) = π((r − ⌊t / period⌋ · shift) mod U)
//! ```
//!
//! where `π` is a fixed permutation of `0..U` drawn from the seed ([`Permutation`]). Every
//! `period` elements the mapping moves by `shift` ranks: each key slides `shift` ranks down
//! the popularity order (the hot keys cool gradually), and the `shift` keys that were the
//! least popular, in effect never seen, enter at the top. After `k` periods the keys that were
//! the top `H` ranks at the start sit at ranks `k·shift … k·shift + H − 1`, cold once
//! `k·shift` is well past the hot set; after `U / shift` periods the mapping has come full
//! circle and they are hot again (the drift is periodic, of period `U·period / shift`
//! elements, when `shift` divides `U`). `shift = 0` is a plain Zipf stream with its keys
//! renamed by `π`. The rank-to-key map moves in the opposite direction to
//! `π((r + ⌊t/period⌋·shift) mod U)`, under which the top keys would drop to the bottom at
//! once and the hot set be refilled by keys that were already warm, not new.
//!
//! `π` is a four-round Feistel network on the `b`-bit integers, `2^b` the power of two at or
//! above `U` (halves of `⌊b/2⌋` and `⌈b/2⌉` bits; round function: the half XOR a seeded round
//! key, times the 64-bit golden-ratio constant, high bits), restricted to `0..U` by cycle
//! walking (applying it again until the value falls below `U`: fewer than two applications on
//! average, as `2^b < 2U`). Its quality only needs to scatter neighbouring ranks; every value is
//! a bijection whatever the keys. A drifting stream takes about 1.2 times a plain Zipf stream's
//! time per element (the same draw plus the mapping; with [`mix64`](dupstream_core::hash::mix64)
//! as the round function it took 1.5).

use dupstream_core::rng::{FilterRng, Rng, filter_rng};
use rand_distr::Distribution;

use crate::{KeyStream, Result};

/// Sub-stream of [`filter_rng`] that draws the permutation's round keys.
const PERMUTATION_STREAM: u64 = 0x6472_6966;

/// A seeded permutation of `0..n`: a four-round Feistel network on the smallest power of two
/// at or above `n`, with cycle walking.
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    /// Bits of the two halves: the high half has `hi` bits, the low one `lo`.
    hi: u32,
    lo: u32,
    keys: [u64; 4],
}

impl Permutation {
    /// The permutation of `0..n` (`n >= 1`) drawn from `seed`.
    pub fn new(n: u64, seed: u64) -> Self {
        assert!(n >= 1, "a permutation of at least one element");
        let bits = 64 - (n - 1).leading_zeros();
        let mut rng = filter_rng(seed, PERMUTATION_STREAM);
        Self {
            n,
            hi: bits / 2,
            lo: bits - bits / 2,
            keys: std::array::from_fn(|_| rng.next_u64()),
        }
    }

    /// The image of `x < n`.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        debug_assert!(x < self.n);
        let mut v = x;
        loop {
            v = self.feistel(v);
            if v < self.n {
                return v;
            }
        }
    }

    /// One pass of the network over the `hi + lo`-bit integers: each round maps `(h, l)` (of
    /// `a` and `c` bits) to `(l, h ⊕ F(l))` (of `c` and `a` bits), a bijection.
    #[inline]
    fn feistel(&self, v: u64) -> u64 {
        let mask = |bits: u32| (1u64 << bits) - 1;
        let (mut a, mut c) = (self.hi, self.lo);
        let mut v = v;
        for &k in &self.keys {
            let h = v >> c;
            let l = v & mask(c);
            let f = ((l ^ k).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) & mask(a);
            v = (l << a) | (h ^ f);
            std::mem::swap(&mut a, &mut c);
        }
        v
    }
}

/// Zipf draws whose rank-to-key mapping shifts every `period` elements (see the module doc).
#[derive(Debug)]
pub struct ZipfDriftStream {
    rng: FilterRng,
    zipf: rand_distr::Zipf<f64>,
    universe: u64,
    permutation: Permutation,
    period: u64,
    /// `shift mod U`.
    shift: u64,
    /// `(U − ⌊t/period⌋·shift mod U) mod U`: added to a rank to give its position before `π`.
    offset: u64,
    /// Elements left in the current period.
    left_in_period: u64,
    remaining: u64,
}

impl ZipfDriftStream {
    /// `n` draws over `universe >= 1` ranks with exponent `s >= 0`, the mapping moving by
    /// `shift` ranks every `period >= 1` elements, seeded.
    ///
    /// # Panics
    /// If `universe == 0`, `period == 0`, or `s` is negative or not finite (checked by
    /// [`StreamSpec::validate`](crate::StreamSpec::validate)).
    pub fn new(n: u64, universe: u64, s: f64, period: u64, shift: u64, seed: u64) -> Self {
        assert!(period >= 1, "period must be at least 1");
        let zipf = rand_distr::Zipf::new(universe as f64, s).expect("validated Zipf parameters");
        Self {
            rng: filter_rng(seed, crate::uniform::ZIPF_STREAM),
            zipf,
            universe,
            permutation: Permutation::new(universe, seed),
            period,
            shift: shift % universe,
            offset: 0,
            left_in_period: period,
            remaining: n,
        }
    }

    /// The key of 0-based `rank` under the current mapping.
    #[inline]
    fn key(&self, rank: u64) -> u64 {
        // rank < U and offset < U: the sum is below 2^54 (U ≤ 2^53).
        let mut x = rank + self.offset;
        if x >= self.universe {
            x -= self.universe;
        }
        self.permutation.apply(x)
    }
}

impl KeyStream for ZipfDriftStream {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let k = buf
            .len()
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        let max_rank = self.universe - 1;
        for x in &mut buf[..k] {
            if self.left_in_period == 0 {
                self.left_in_period = self.period;
                // offset −= shift (mod U)
                self.offset = if self.offset >= self.shift {
                    self.offset - self.shift
                } else {
                    self.offset + (self.universe - self.shift)
                };
            }
            self.left_in_period -= 1;
            let r: f64 = self.zipf.sample(&mut self.rng);
            *x = self.key(((r as u64).max(1) - 1).min(max_rank));
        }
        self.remaining -= k as u64;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uniform::ZipfStream;

    fn draw(s: &mut dyn KeyStream, n: usize) -> Vec<u64> {
        let mut buf = vec![0u64; n];
        let mut at = 0;
        // In uneven pieces, to cross period boundaries inside and between fills.
        while at < n {
            let k = s.fill(&mut buf[at..(at + 977).min(n)]).unwrap();
            assert!(k > 0);
            at += k;
        }
        assert_eq!(s.fill(&mut [0u64; 4]).unwrap(), 0, "ends after n");
        buf
    }

    #[test]
    fn permutations_are_bijections() {
        for n in [1u64, 2, 3, 5, 64, 100, 1000, 1025, 4096] {
            for seed in [0, 7] {
                let p = Permutation::new(n, seed);
                let mut seen = vec![false; n as usize];
                for x in 0..n {
                    let y = p.apply(x);
                    assert!(y < n && !seen[y as usize], "n {n} seed {seed}: {x} → {y}");
                    seen[y as usize] = true;
                }
            }
        }
        // Seeded: another seed, another permutation.
        let a: Vec<u64> = (0..100)
            .map(|x| Permutation::new(100, 1).apply(x))
            .collect();
        let b: Vec<u64> = (0..100)
            .map(|x| Permutation::new(100, 2).apply(x))
            .collect();
        assert_ne!(a, b);
    }

    /// Exact: with `shift = 0` the stream is the plain Zipf stream of the same seed, each key
    /// renamed by the permutation.
    #[test]
    fn no_shift_is_plain_zipf_renamed() {
        let (n, u, s, seed) = (50_000, 1000, 1.1, 5);
        let plain = draw(&mut ZipfStream::new(n as u64, u, s, seed), n);
        let drift = draw(&mut ZipfDriftStream::new(n as u64, u, s, 7, 0, seed), n);
        let p = Permutation::new(u, seed);
        let renamed: Vec<u64> = plain.iter().map(|&k| p.apply(k)).collect();
        assert_eq!(drift, renamed);
        // And a shift of a whole universe is no shift.
        let whole = draw(&mut ZipfDriftStream::new(n as u64, u, s, 7, u, seed), n);
        assert_eq!(whole, renamed);
    }

    /// Exact: element `t`'s key is `π((r_t − ⌊t/period⌋·shift) mod U)` for the plain Zipf
    /// stream's rank `r_t`.
    #[test]
    fn keys_follow_the_shifted_mapping() {
        let (n, u, period, shift, seed) = (20_000usize, 500u64, 300u64, 7u64, 3);
        let plain = draw(&mut ZipfStream::new(n as u64, u, 1.0, seed), n);
        let drift = draw(
            &mut ZipfDriftStream::new(n as u64, u, 1.0, period, shift, seed),
            n,
        );
        let p = Permutation::new(u, seed);
        for (t, (&r, &k)) in plain.iter().zip(&drift).enumerate() {
            let moved = (t as u64 / period) * shift % u;
            assert_eq!(k, p.apply((r + u - moved) % u), "element {t}");
        }
    }

    /// Within one period the mapping is fixed, so key frequencies are Zipf's: each of the top
    /// ranks' keys within 5 binomial standard deviations of `period·p_r` (a false alarm has
    /// probability below 10^-5 over the ten ranks).
    #[test]
    fn one_period_follows_zipf() {
        let (u, s, period, shift, seed) = (10_000u64, 1.0, 100_000u64, 2_500u64, 11);
        let k = 3; // the fourth period
        let n = (k + 1) * period;
        let keys = draw(
            &mut ZipfDriftStream::new(n, u, s, period, shift, seed),
            n as usize,
        );
        let window = &keys[(k * period) as usize..];
        let h: f64 = (1..=u).map(|r| (r as f64).powf(-s)).sum();
        let p = Permutation::new(u, seed);
        for rank in 0..10u64 {
            let key = p.apply((rank + u - (k * shift) % u) % u);
            let c = window.iter().filter(|&&x| x == key).count() as f64;
            let pr = ((rank + 1) as f64).powf(-s) / h;
            let (mean, sd) = (period as f64 * pr, (period as f64 * pr * (1.0 - pr)).sqrt());
            assert!(
                (c - mean).abs() < 5.0 * sd,
                "rank {rank}: {c} against {mean:.0} ± {sd:.0}"
            );
        }
    }

    /// The first period's ten hottest keys take about 30 % of its elements (Zipf s = 1,
    /// U = 10^4: H_10 / H_10000 = 2.93 / 9.79); half a cycle later (`U / (2·shift)` periods) they sit at ranks about `U/2`
    /// and take a few hundredths of a percent; after a whole cycle (`U / shift` periods) they
    /// are the hottest again.
    #[test]
    fn old_hot_keys_go_cold_and_the_cycle_closes() {
        let (u, period, shift, seed) = (10_000u64, 20_000u64, 500u64, 4);
        let periods = u / shift; // 20: one whole cycle
        let n = (periods + 1) * period;
        let keys = draw(
            &mut ZipfDriftStream::new(n, u, 1.0, period, shift, seed),
            n as usize,
        );
        let in_period = |k: u64| &keys[(k * period) as usize..((k + 1) * period) as usize];
        let mut counts = std::collections::HashMap::new();
        for &x in in_period(0) {
            *counts.entry(x).or_insert(0u64) += 1;
        }
        let mut hot: Vec<(u64, u64)> = counts.into_iter().map(|(k, c)| (c, k)).collect();
        hot.sort_unstable_by(|a, b| b.cmp(a));
        let hot: Vec<u64> = hot[..10].iter().map(|&(_, k)| k).collect();
        let share =
            |k: u64| in_period(k).iter().filter(|x| hot.contains(x)).count() as f64 / period as f64;
        let first = share(0);
        assert!((0.27..0.33).contains(&first), "{first}");
        // Ranks 5000..5009 of H_10000 ≈ 9.79: 10 / (5000 · 9.79) ≈ 0.0002.
        let half = share(periods / 2);
        assert!(half < 0.002, "{half}");
        let again = share(periods);
        assert!((0.27..0.33).contains(&again), "{again}");
    }

    #[test]
    fn the_same_seed_gives_the_same_stream() {
        let a = draw(
            &mut ZipfDriftStream::new(10_000, 300, 1.2, 50, 3, 9),
            10_000,
        );
        let b = draw(
            &mut ZipfDriftStream::new(10_000, 300, 1.2, 50, 3, 9),
            10_000,
        );
        let c = draw(
            &mut ZipfDriftStream::new(10_000, 300, 1.2, 50, 3, 10),
            10_000,
        );
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|&k| k < 300));
    }
}
