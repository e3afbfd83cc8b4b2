//! The Inverse Bloom filter: the `InverseBloomFilter` of BoomFilters (Tyler Treat,
//! github.com/tylertreat/BoomFilters, `inverse.go`, after Jeff Hodges' "opposite of a Bloom
//! filter"): a duplicate detector with no false positives and possible false negatives.
//!
//! **Structure.** An array of `m` slots, each holding the key of the last element that hashed
//! to it. A step hashes the element to one slot, swaps its key in, and answers DUPLICATE iff
//! the key swapped out equals it (BoomFilters' `TestAndAdd`). A key is only ever reported
//! after it was stored, so there are no false positives; any other element hashing to the slot
//! in between overwrites it, so a duplicate is reported with probability `(1 − 1/m)^D`
//! ([`detection_probability`]), `D` the number of distinct other keys between it and its
//! predecessor: each of them misses the slot (at most `d − 1` of them at distance `d`).
//!
//! Readings:
//! - A slot holds the element's 64-bit key hash, not the key: hashes are a bijection of keys
//!   for a fixed seed ([`crate::hash::hash_key`]), so comparing hashes is comparing keys and
//!   no false positive is possible. BoomFilters stores a pointer to the key's bytes (64 bits
//!   on a 64-bit machine plus the key itself); here a slot is charged its 64 bits and nothing
//!   else: `memory = 64·m` bits, `m = ⌊budget / 64⌋`.
//! - The slot is `reduce(rehash(h))`, standing in for BoomFilters' 32-bit FNV-1 modulo `m`.
//! - An empty slot holds a hash that cannot be stored in it (one whose own slot is another),
//!   so "empty" needs no extra bit and never matches.
//! - Occupancy is the filled fraction of the slots.

use crate::error::{Error, Result};
use crate::hash::{reduce, rehash};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

const SLOT_SALT: u64 = 0x696e_7665_7273_6521;

/// Bits per slot: one 64-bit key hash.
pub const SLOT_BITS: u64 = 64;

/// The probability that a duplicate is reported by a filter of `m` slots when `between`
/// distinct other keys occurred since its predecessor: `(1 − 1/m)^between` (each of them must
/// miss its slot).
pub fn detection_probability(between: u64, m: u64) -> f64 {
    (between as f64 * (-1.0 / m as f64).ln_1p()).exp()
}

/// Parameters of an [`InverseBloom`] (none: the slots fill the budget).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct InverseBloomParams {}

fn slots_for(budget_bits: u64) -> Result<u64> {
    let m = budget_bits / SLOT_BITS;
    if m == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "inverse_bloom",
            budget_bits,
            needed_bits: SLOT_BITS,
        });
    }
    crate::error::words_for_bits("inverse_bloom", m * SLOT_BITS)?;
    Ok(m)
}

/// The Inverse Bloom filter (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, inverse_bloom::{InverseBloom, InverseBloomParams}};
/// let mut f = InverseBloom::new(64 * 1000, &InverseBloomParams {}, 0).unwrap();
/// assert!(!f.step(42));
/// assert!(f.step(42));
/// ```
#[derive(Debug, Clone)]
pub struct InverseBloom {
    slots: Box<[u64]>,
    /// Slots ever written.
    filled: u64,
}

impl InverseBloom {
    /// An Inverse Bloom filter of `⌊budget / 64⌋` slots; it draws nothing random (`seed`
    /// unused).
    pub fn new(budget_bits: u64, params: &InverseBloomParams, seed: u64) -> Result<Self> {
        let _ = (params, seed);
        let m = slots_for(budget_bits)?;
        let mut slots = vec![0u64; m as usize].into_boxed_slice();
        // Slot `slot(0)` would match the hash 0 while empty: give it a hash that belongs
        // elsewhere (with one slot no hash does, and the step tells empty by `filled`).
        let z = slot_of(0, m);
        if let Some(v) = (1..64).find(|&v| slot_of(v, m) != z) {
            slots[z] = v;
        }
        Ok(Self { slots, filled: 0 })
    }

    /// The state size for this budget (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &InverseBloomParams) -> Result<u64> {
        let _ = params;
        Ok(slots_for(budget_bits)? * SLOT_BITS)
    }

    /// `m`, the number of slots.
    pub fn slots(&self) -> u64 {
        self.slots.len() as u64
    }
}

#[inline(always)]
fn slot_of(hash: u64, m: u64) -> usize {
    reduce(rehash(hash, SLOT_SALT), m) as usize
}

impl DuplicateFilter for InverseBloom {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let i = slot_of(hash, self.slots.len() as u64);
        let old = std::mem::replace(&mut self.slots[i], hash);
        // The slot held its empty marker: a hash that belongs to another slot (or, with one
        // slot, anything before the first write).
        let empty = slot_of(old, self.slots.len() as u64) != i
            || (self.slots.len() == 1 && self.filled == 0);
        self.filled += u64::from(empty);
        !empty && old == hash
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let i = slot_of(hash, self.slots.len() as u64);
        crate::raw::prefetch(self.slots.as_ptr().wrapping_add(i));
    }

    fn memory_bits(&self) -> u64 {
        self.slots() * SLOT_BITS
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![crate::Param::new("m", self.slots())]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.filled as f64 / self.slots.len() as f64,
        }
    }
}

crate::structure::impl_structure!(InverseBloom {
    name: "inverse_bloom",
    params: InverseBloomParams,
    cost: 1.0,
    memory_bits_for: InverseBloom::memory_bits_for,
}

    /// 1: its slot.
    fn cells_per_element(_params: &InverseBloomParams, _budget_bits: u64) -> f64 {
        1.0
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// No false positives, against an exact model: a reported element occurred before;
        /// and the filter equals a model of its slots (the last hash written to each).
        #[test]
        fn no_false_positives_and_equals_the_slot_model(keys in prop::collection::vec(0u64..400, 1..3000), m in 1u64..300) {
            let mut f = InverseBloom::new(m * 64, &InverseBloomParams {}, 0).unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut last: HashMap<usize, u64> = HashMap::new();
            for key in keys {
                let h = hash_key(key, 2);
                let dup = f.step(h);
                prop_assert!(!dup || seen.contains(&h), "false positive");
                let i = slot_of(h, m);
                prop_assert_eq!(dup, last.insert(i, h) == Some(h));
                seen.insert(h);
            }
            prop_assert_eq!(f.occupancy().value, last.len() as f64 / m as f64);
        }
    }

    #[test]
    fn the_hash_zero_is_never_a_false_positive() {
        for m in [1u64, 2, 3, 1000] {
            let mut f = InverseBloom::new(m * 64, &InverseBloomParams {}, 0).unwrap();
            assert!(!f.step(0), "m = {m}");
            assert!(f.step(0));
        }
    }

    #[test]
    fn false_negatives_follow_the_formula() {
        // A uniform stream over U keys: each duplicate is reported with probability
        // (1 − 1/m)^D, D the distinct keys since its predecessor (counted with a Fenwick tree
        // over the positions of each key's latest occurrence). The count of reports is checked
        // against the sum of those probabilities within 5 sd of the Poisson-binomial variance
        // (the reports share slots, so they are not independent; the bound is loose enough).
        let (m, u, n) = (4096u64, 20_000u64, 400_000usize);
        let mut f = InverseBloom::new(m * 64, &InverseBloomParams {}, 0).unwrap();
        let mut last: HashMap<u64, usize> = HashMap::new();
        let mut tree = vec![0i64; n + 1];
        let add = |tree: &mut Vec<i64>, i: usize, v: i64| {
            let mut i = i + 1;
            while i < tree.len() {
                tree[i] += v;
                i += i & i.wrapping_neg();
            }
        };
        let prefix = |tree: &Vec<i64>, i: usize| {
            let (mut i, mut s) = (i, 0i64);
            while i > 0 {
                s += tree[i];
                i -= i & i.wrapping_neg();
            }
            s
        };
        let (mut reported, mut expected, mut var) = (0u64, 0.0f64, 0.0f64);
        for i in 0..n {
            let key = crate::hash::reduce(crate::hash::mix64(i as u64 ^ 0xabc), u);
            let h = hash_key(key, 1);
            let dup = f.step(h);
            if let Some(&j) = last.get(&key) {
                // Latest occurrences at positions j+1 .. i−1.
                let between = (prefix(&tree, i) - prefix(&tree, j + 1)) as u64;
                let p = detection_probability(between, m);
                expected += p;
                var += p * (1.0 - p);
                reported += u64::from(dup);
                add(&mut tree, j, -1);
            } else {
                assert!(!dup);
            }
            add(&mut tree, i, 1);
            last.insert(key, i);
        }
        let z = (reported as f64 - expected) / var.sqrt();
        eprintln!("inverse bloom: reported {reported}, expected {expected:.1}, z = {z:.2}");
        assert!(z.abs() < 5.0, "z = {z}");
    }

    #[test]
    fn sizing() {
        assert_eq!(
            InverseBloom::memory_bits_for(1000, &InverseBloomParams {}),
            Ok(960)
        );
        assert!(InverseBloom::new(63, &InverseBloomParams {}, 0).is_err());
        assert!((detection_probability(0, 10) - 1.0).abs() < 1e-15);
        assert!((detection_probability(2, 10) - 0.81).abs() < 1e-12);
    }
}
