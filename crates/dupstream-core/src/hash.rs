//! Hashing: one seeded, platform-stable 64-bit hash per key, and everything else derived from it.
//!
//! Keys arrive as `u64`. The runner calls [`hash_key`] once per element and hands the same hash
//! to every structure in a comparison, so structures differ only in what they do with it.
//! Structures derive their `k` indices by Kirsch–Mitzenmacher double hashing ([`DoubleHash`])
//! and map hashes to slots with Lemire's multiply-shift reduction ([`reduce`]), never `%`.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The seeded key hash: XXH3-64 of the key's little-endian bytes.
///
/// Platform-stable (the bytes are fixed little-endian) and identical on every run.
#[inline]
pub fn hash_key(key: u64, seed: u64) -> u64 {
    xxh3_64_with_seed(&key.to_le_bytes(), seed)
}

/// The 64-bit finaliser of SplitMix64 / MurmurHash3 (`fmix64` with Stafford's variant-13
/// constants). A bijection on `u64` with full avalanche.
#[inline(always)]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Derives an independent-looking 64-bit value from a hash and a salt.
///
/// Use it when a structure needs a second quantity from the same key (a fingerprint besides an
/// index, say) that must not be correlated with the first.
#[inline(always)]
pub const fn rehash(h: u64, salt: u64) -> u64 {
    mix64(h ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Lemire's reduction: maps a uniform `u64` onto `0..n` without division.
#[inline(always)]
pub const fn reduce(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// Kirsch–Mitzenmacher double hashing: index `i` is `reduce(h1 + i·h2, m)`.
///
/// `h1` is the key hash itself; `h2` is [`rehash`] of it, forced odd so that the `k` probes are
/// distinct modulo any power of two.
#[derive(Debug, Clone, Copy)]
pub struct DoubleHash {
    h1: u64,
    h2: u64,
}

impl DoubleHash {
    /// Splits a key hash into the two double-hashing components.
    #[inline(always)]
    pub const fn new(h: u64) -> Self {
        Self {
            h1: h,
            h2: rehash(h, 0x5bd1_e995) | 1,
        }
    }

    /// A cheaper split: `h2 = h1·C`, forced odd, with `C` = `0x517c_c1b7_2722_0a95` (the
    /// multiplier of FxHash and fastbloom). One multiplication where [`new`](Self::new) mixes
    /// with two and five shifts and xors; `h2` is then a bijection of `h1` rather than an
    /// independent-looking value, and index `i` is the top bits of about `h1·(1 + i·C)`. For a
    /// structure whose per-element work is little more than its `k` probes (the Bloom filter),
    /// that mix is a sizeable part of an element's time in cache. Its indices are not those of
    /// [`new`](Self::new): a structure's verdicts depend on which it uses.
    #[inline(always)]
    pub const fn multiplied(h: u64) -> Self {
        Self {
            h1: h,
            h2: h.wrapping_mul(0x517c_c1b7_2722_0a95) | 1,
        }
    }

    /// The `i`-th index in `0..m`.
    #[inline(always)]
    pub const fn index(&self, i: u32, m: u64) -> u64 {
        reduce(self.h1.wrapping_add((i as u64).wrapping_mul(self.h2)), m)
    }

    /// The first `k` indices in `0..m`.
    #[inline(always)]
    pub fn indices(self, k: u32, m: u64) -> impl Iterator<Item = u64> {
        (0..k).map(move |i| self.index(i, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_platform_stable() {
        // Pinned values (XXH3-64 of the little-endian key bytes): a change here changes every
        // result file and golden file, so it must be deliberate.
        assert_eq!(hash_key(0, 0), 0xc77b3abb6f87acd9);
        assert_eq!(hash_key(1, 0), 0x2fbc593564db792e);
        assert_eq!(hash_key(42, 7), 0xb117e48ca46dc725);
        assert_eq!(hash_key(u64::MAX, 12345), 0xa147905aa7f7fadd);
    }

    #[test]
    fn reduce_stays_in_range_and_is_uniform_enough() {
        let n = 1000u64;
        let mut counts = vec![0u32; n as usize];
        for i in 0..1_000_000u64 {
            let r = reduce(mix64(i), n);
            assert!(r < n);
            counts[r as usize] += 1;
        }
        // Each bucket expects 1000 hits, sd ~31.6; 6 sd bounds fail with p < 1e-6 per bucket.
        assert!(
            counts.iter().all(|&c| (810..=1190).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn double_hash_indices_are_in_range() {
        let dh = DoubleHash::new(hash_key(42, 7));
        for m in [1u64, 2, 63, 64, 1 << 33] {
            assert!(dh.indices(8, m).all(|i| i < m));
        }
    }
}
