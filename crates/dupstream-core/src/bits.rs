//! Bit arrays: a plain 1-bit array and a packed array of `w`-bit cells.

use crate::error::{CapacityError, words_for_bits};

/// Shorthand for this module's constructors.
type Result<T> = std::result::Result<T, CapacityError>;
use crate::raw;

/// A fixed-size array of bits.
#[derive(Debug, Clone)]
pub struct BitArray {
    words: Vec<u64>,
    len: u64,
}

impl BitArray {
    /// An all-zero array of `len` bits.
    pub fn new(structure: &'static str, len: u64) -> Result<Self> {
        let words = words_for_bits(structure, len)?;
        Ok(Self {
            words: raw::zeroed_words(words),
            len,
        })
    }

    /// Number of bits.
    #[inline(always)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the array has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads bit `i`.
    #[inline(always)]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.len);
        (self.words[(i >> 6) as usize] >> (i & 63)) & 1 == 1
    }

    /// Sets bit `i` and returns its previous value.
    #[inline(always)]
    pub fn set(&mut self, i: u64) -> bool {
        debug_assert!(i < self.len);
        let w = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let old = *w & mask != 0;
        *w |= mask;
        old
    }

    /// Clears bit `i` and returns its previous value.
    #[inline(always)]
    pub fn clear(&mut self, i: u64) -> bool {
        self.clear_if(i, true)
    }

    /// Clears bit `i` if `cond` holds, without a branch on `cond`; returns whether a set bit
    /// was cleared (false when `cond` is false).
    #[inline(always)]
    pub fn clear_if(&mut self, i: u64, cond: bool) -> bool {
        debug_assert!(i < self.len);
        let w = &mut self.words[(i >> 6) as usize];
        let mask = u64::from(cond) << (i & 63);
        let old = *w & mask != 0;
        *w &= !mask;
        old
    }

    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Number of set bits (O(len/64)).
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Prefetch hint for the word holding bit `i`.
    #[inline(always)]
    pub fn prefetch(&self, i: u64) {
        raw::prefetch_word(&self.words, (i >> 6) as usize);
    }
}

/// A fixed-size array of `width`-bit unsigned cells (1 ≤ width ≤ 57), packed without padding.
///
/// Cell `i` occupies bits `i·width .. (i+1)·width` of a little-endian bit string, so a cell may
/// straddle two `u64` words.
#[derive(Debug, Clone)]
pub struct PackedArray {
    words: Vec<u64>,
    len: u64,
    width: u32,
    mask: u64,
}

impl PackedArray {
    /// Largest supported cell width.
    pub const MAX_WIDTH: u32 = 57;

    /// An all-zero array of `len` cells of `width` bits each.
    ///
    /// # Panics
    /// If `width` is 0 or above [`Self::MAX_WIDTH`]: callers validate widths first.
    pub fn new(structure: &'static str, len: u64, width: u32) -> Result<Self> {
        assert!(
            (1..=Self::MAX_WIDTH).contains(&width),
            "cell width {width} out of range"
        );
        let bits = len.checked_mul(u64::from(width)).ok_or(CapacityError {
            structure,
            bits: u64::MAX,
        })?;
        // One spare word so that a straddling read of the last cell stays in bounds.
        let words = words_for_bits(structure, bits)? + 1;
        Ok(Self {
            words: raw::zeroed_words(words),
            len,
            width,
            mask: (1u64 << width) - 1,
        })
    }

    /// Number of cells.
    #[inline(always)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the array has no cells.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bits per cell.
    #[inline(always)]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Largest value a cell holds.
    #[inline(always)]
    pub fn max_value(&self) -> u64 {
        self.mask
    }

    /// Bits of state: `len · width` (the spare word is padding, not state).
    pub fn state_bits(&self) -> u64 {
        self.len * u64::from(self.width)
    }

    /// Reads cell `i`.
    #[inline(always)]
    pub fn get(&self, i: u64) -> u64 {
        debug_assert!(i < self.len);
        let bit = i * u64::from(self.width);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        let lo = self.words[w] >> off;
        let v = if off + self.width > 64 {
            lo | (self.words[w + 1] << (64 - off))
        } else {
            lo
        };
        v & self.mask
    }

    /// Writes cell `i` (the value is truncated to `width` bits).
    #[inline(always)]
    pub fn set(&mut self, i: u64, v: u64) {
        debug_assert!(i < self.len);
        let v = v & self.mask;
        let bit = i * u64::from(self.width);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        self.words[w] = (self.words[w] & !(self.mask << off)) | (v << off);
        if off + self.width > 64 {
            let hi_bits = off + self.width - 64;
            let hi_mask = (1u64 << hi_bits) - 1;
            self.words[w + 1] = (self.words[w + 1] & !hi_mask) | (v >> (64 - off));
        }
    }

    /// Writes cell `i` (the value is truncated to `width` bits) and returns its old value; one
    /// read-modify-write of one word unless the cell straddles two.
    #[inline(always)]
    pub fn replace(&mut self, i: u64, v: u64) -> u64 {
        debug_assert!(i < self.len);
        let bit = i * u64::from(self.width);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        if off + self.width <= 64 {
            let word = self.words[w];
            self.words[w] = (word & !(self.mask << off)) | ((v & self.mask) << off);
            (word >> off) & self.mask
        } else {
            let old = self.get(i);
            self.set(i, v);
            old
        }
    }

    /// Decrements cell `i` by one unless it is zero, and returns its old value; one
    /// read-modify-write of one word (no branch on the value) unless the cell straddles two.
    #[inline(always)]
    pub fn decrement_saturating(&mut self, i: u64) -> u64 {
        debug_assert!(i < self.len);
        let bit = i * u64::from(self.width);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        if off + self.width <= 64 {
            let word = self.words[w];
            let v = (word >> off) & self.mask;
            // A non-zero field minus one never borrows from the bits above it.
            self.words[w] = word - (u64::from(v != 0) << off);
            v
        } else {
            let v = self.get(i);
            self.set(i, v - u64::from(v != 0));
            v
        }
    }

    /// [`Self::decrement_saturating`] for a width `W` known at compile time that divides 64, so
    /// that no cell straddles two words: a shift for the multiply, no straddle test.
    ///
    /// # Panics
    /// In debug builds, if the array's width is not `W` or `W` does not divide 64 (callers
    /// dispatch on [`Self::width`]).
    #[inline(always)]
    pub fn decrement_saturating_w<const W: u32>(&mut self, i: u64) -> u64 {
        debug_assert!(self.width == W && 64 % W == 0 && i < self.len);
        let bit = i * u64::from(W);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        let word = self.words[w];
        let v = (word >> off) & ((1u64 << W) - 1);
        self.words[w] = word - (u64::from(v != 0) << off);
        v
    }

    /// [`Self::get`] for a width `W` known at compile time that divides 64 (see
    /// [`Self::decrement_saturating_w`]).
    ///
    /// # Panics
    /// In debug builds, as [`Self::decrement_saturating_w`].
    #[inline(always)]
    pub fn get_w<const W: u32>(&self, i: u64) -> u64 {
        debug_assert!(self.width == W && 64 % W == 0 && i < self.len);
        let bit = i * u64::from(W);
        (self.words[(bit >> 6) as usize] >> (bit & 63)) & ((1u64 << W) - 1)
    }

    /// [`Self::replace`] for a width `W` known at compile time that divides 64 (see
    /// [`Self::decrement_saturating_w`]).
    ///
    /// # Panics
    /// In debug builds, as [`Self::decrement_saturating_w`].
    #[inline(always)]
    pub fn replace_w<const W: u32>(&mut self, i: u64, v: u64) -> u64 {
        debug_assert!(self.width == W && 64 % W == 0 && i < self.len);
        let mask = (1u64 << W) - 1;
        let bit = i * u64::from(W);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        let word = self.words[w];
        self.words[w] = (word & !(mask << off)) | ((v & mask) << off);
        (word >> off) & mask
    }

    /// Sets every cell to zero.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Number of cells equal to zero (O(len)).
    pub fn count_zeros(&self) -> u64 {
        if self.width == 1 {
            let ones: u64 = self.words.iter().map(|w| u64::from(w.count_ones())).sum();
            return self.len - ones;
        }
        (0..self.len).filter(|&i| self.get(i) == 0).count() as u64
    }

    /// Prefetch hint for the word holding the start of cell `i`.
    #[inline(always)]
    pub fn prefetch(&self, i: u64) {
        raw::prefetch_word(&self.words, ((i * u64::from(self.width)) >> 6) as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn packed_array_matches_a_vec(width in 1u32..=57, ops in prop::collection::vec((0u64..300, any::<u64>()), 1..400)) {
            let mut a = PackedArray::new("test", 300, width).unwrap();
            let mut model = vec![0u64; 300];
            let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
            for (n, (i, v)) in ops.into_iter().enumerate() {
                let old = model[i as usize];
                match n % 3 {
                    0 => a.set(i, v),
                    1 => prop_assert_eq!(a.replace(i, v), old),
                    _ => {
                        prop_assert_eq!(a.decrement_saturating(i), old);
                        model[i as usize] = old.saturating_sub(1);
                        prop_assert_eq!(a.get(i), model[i as usize]);
                        continue;
                    }
                }
                model[i as usize] = v & mask;
                prop_assert_eq!(a.get(i), model[i as usize]);
            }
            for i in 0..300u64 {
                prop_assert_eq!(a.get(i), model[i as usize]);
            }
            prop_assert_eq!(a.count_zeros(), model.iter().filter(|&&v| v == 0).count() as u64);
        }

        /// The constant-width read, replace and decrement are the general ones, for each width
        /// that divides 64.
        #[test]
        fn constant_width_ops_match_the_general_ones(w_index in 0usize..6, ops in prop::collection::vec((0u64..300, any::<u64>(), 0u8..3), 1..400)) {
            let width = [1u32, 2, 4, 8, 16, 32][w_index];
            let mut a = PackedArray::new("test", 300, width).unwrap();
            let mut b = a.clone();
            macro_rules! by_width {
                ($f:ident($($arg:expr),*)) => {
                    match width {
                        1 => a.$f::<1>($($arg),*),
                        2 => a.$f::<2>($($arg),*),
                        4 => a.$f::<4>($($arg),*),
                        8 => a.$f::<8>($($arg),*),
                        16 => a.$f::<16>($($arg),*),
                        _ => a.$f::<32>($($arg),*),
                    }
                };
            }
            for (i, v, op) in ops {
                match op {
                    0 => {
                        let old = by_width!(decrement_saturating_w(i));
                        prop_assert_eq!(old, b.decrement_saturating(i));
                    }
                    1 => {
                        let old = by_width!(replace_w(i, v));
                        prop_assert_eq!(old, b.replace(i, v));
                    }
                    _ => {
                        a.set(i, v);
                        b.set(i, v);
                    }
                }
                prop_assert_eq!(by_width!(get_w(i)), b.get(i));
                prop_assert_eq!(a.get(i), b.get(i));
            }
        }
    }

    #[test]
    fn bit_array_set_clear() {
        let mut b = BitArray::new("test", 130).unwrap();
        assert!(!b.set(129));
        assert!(b.set(129));
        assert!(b.get(129));
        assert_eq!(b.count_ones(), 1);
        assert!(b.clear(129));
        assert_eq!(b.count_ones(), 0);
        // clear_if: a false condition leaves the bit; a true one clears it once.
        b.set(64);
        assert!(!b.clear_if(64, false));
        assert!(b.get(64));
        assert!(b.clear_if(64, true));
        assert!(!b.get(64));
        assert!(!b.clear_if(64, true));
    }
}
