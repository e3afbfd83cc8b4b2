//! The exact baseline: a `hashbrown` set of every hash seen. It never errs (hashes are a
//! bijection of keys for a fixed seed, see [`crate::hash::hash_key`]) and its memory is
//! unbounded; it is the sanity baseline, not a contender.

use crate::{DuplicateFilter, Occupancy, OccupancyKind, Result};
use hashbrown::HashSet;

/// Identity hasher: the keys are already uniform 64-bit hashes.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl core::hash::Hasher for IdentityHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    #[inline(always)]
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

/// `BuildHasher` for [`IdentityHasher`].
pub type BuildIdentity = core::hash::BuildHasherDefault<IdentityHasher>;

/// Exact duplicate detection with a hash set.
#[derive(Debug, Default, Clone)]
pub struct Exact {
    seen: HashSet<u64, BuildIdentity>,
}

impl Exact {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set pre-sized for `n` distinct elements.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            seen: HashSet::with_capacity_and_hasher(n, BuildIdentity::default()),
        }
    }
}

impl DuplicateFilter for Exact {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        !self.seen.insert(hash)
    }
    /// The set's payload: 64 bits per stored hash (an unbounded structure: no budget applies).
    fn memory_bits(&self) -> u64 {
        self.seen.len() as u64 * 64
    }
    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }
    fn params(&self) -> Vec<crate::Param> {
        Vec::new()
    }
    fn occupancy(&self) -> Occupancy {
        let cap = self.seen.capacity().max(1) as f64;
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.seen.len() as f64 / cap,
        }
    }
}

/// Parameters of the exact baseline (none).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ExactParams {}

impl crate::Structure for Exact {
    const NAME: &'static str = "exact";
    type Params = ExactParams;
    const RELATIVE_COST: f64 = 4.0;

    /// An empty set; the budget and the seed play no part (its memory is unbounded).
    fn new(_budget_bits: u64, _params: &ExactParams, _seed: u64) -> Result<Self> {
        Ok(Exact::new())
    }

    /// Charged as 0: the baseline is outside the memory comparison.
    fn memory_bits_for(_budget_bits: u64, _params: &ExactParams) -> Result<u64> {
        Ok(0)
    }

    /// 1: not modelled (the roofline does not run it; its cost is its nominal one).
    fn cells_per_element(_params: &ExactParams, _budget_bits: u64) -> f64 {
        1.0
    }

    /// About 16 bytes per distinct key (hash-set slot plus load-factor slack).
    fn heap_bytes_estimate(_params: &ExactParams, _budget_bits: u64, distinct_hint: u64) -> u64 {
        distinct_hint.saturating_mul(16)
    }
}
