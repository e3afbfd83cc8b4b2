//! Approximate duplicate detection in unbounded streams: every structure of the papers behind
//! one trait, [`DuplicateFilter`].
//!
//! A structure sees a stream of pre-hashed keys (see [`hash::hash_key`]). For each element it
//! answers DUPLICATE (`true`) or UNSEEN (`false`) and then updates its state, the way its paper
//! does: the QHT paper's `Stream = Insert ∘ Detect`.
//!
//! Every structure is built from a memory budget in bits plus its own parameters, and
//! [`DuplicateFilter::memory_bits`] never exceeds the budget. Derived parameters (SBF's `P`,
//! RSBF's `k`, QHT's `N`, ...) are public functions beside each type.
//!
//! ```
//! use dupstream_filters::{DuplicateFilter, hash::hash_key, exact::Exact};
//! let mut f = Exact::new();
//! assert!(!f.step(hash_key(7, 0)));
//! assert!(f.step(hash_key(7, 0)));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod a2;
pub mod bdbf;
pub mod bloom;
pub mod bsbf;
pub mod buffering;
pub mod calibration;
pub mod cuckoo;
pub mod error;
pub mod exact;
pub mod fpsbf;
pub mod qht;
pub mod rsbf;
pub mod sbf;
pub mod spec;
pub mod sqf;
pub mod theory;

pub use error::{Error, Result};

use dupstream_core::raw;
/// The key hash, randomness and bit arrays shared with `dupstream-streams`; they live in
/// `dupstream-core` and keep their paths here (`dupstream_filters::hash::hash_key`, ...).
pub use dupstream_core::{bits, hash, rng};

/// What a structure's occupancy figure measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OccupancyKind {
    /// Fraction of cells equal to zero (SBF paper, Fig. 3).
    ZeroFraction,
    /// Fraction of bits set to one (Bera et al., Fig. 11 "load").
    Load,
    /// Fraction of buckets / slots holding an entry.
    FilledFraction,
}

impl OccupancyKind {
    /// Stable name for result files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ZeroFraction => "zero_fraction",
            Self::Load => "load",
            Self::FilledFraction => "filled_fraction",
        }
    }
}

/// A structure's occupancy at a point in the stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Occupancy {
    /// What is measured.
    pub kind: OccupancyKind,
    /// The value, in `[0, 1]`.
    pub value: f64,
}

/// A duplicate-detection structure of fixed memory.
///
/// Implementations take pre-hashed keys: the caller hashes each key once with
/// [`hash::hash_key`] so that every structure in a comparison sees the same hashes.
pub trait DuplicateFilter: Send {
    /// Processes one element: answers whether it is a DUPLICATE (`true`) or UNSEEN (`false`),
    /// then updates the state as the structure's paper does.
    fn step(&mut self, hash: u64) -> bool;

    /// Hints the memory system about the cells `hash` will touch. Called by
    /// [`step_batch`](Self::step_batch) a fixed distance ahead of the element being handled.
    /// Must not change any state that affects verdicts.
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let _ = hash;
    }

    /// Processes a batch; `out[i]` receives the verdict for `hashes[i]`. The verdicts are
    /// identical to calling [`step`](Self::step) on each element in order; the default
    /// implementation prefetches [`PREFETCH_DISTANCE`] elements ahead.
    ///
    /// # Panics
    /// If `out` is shorter than `hashes`.
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        assert!(out.len() >= hashes.len(), "output buffer too short");
        for &h in hashes.iter().take(PREFETCH_DISTANCE) {
            self.prefetch(h);
        }
        for (i, &h) in hashes.iter().enumerate() {
            if let Some(&ahead) = hashes.get(i + PREFETCH_DISTANCE) {
                self.prefetch(ahead);
            }
            out[i] = self.step(h);
        }
    }

    /// Exact number of bits of state the structure uses (its cells, counters and fingerprints;
    /// not its constant parameters, random generator state, or the index of a buffer the paper
    /// does not charge). Never exceeds the construction budget.
    fn memory_bits(&self) -> u64;

    /// The structure's stable name, as used in experiment and result files.
    fn name(&self) -> &'static str;

    /// The structure's parameters, given and derived, as `(name, value)` pairs in a stable
    /// order.
    fn params(&self) -> Vec<(&'static str, String)>;

    /// The structure's occupancy figure at this point of the stream.
    fn occupancy(&self) -> Occupancy;
}

/// How many elements ahead [`DuplicateFilter::step_batch`] prefetches.
pub const PREFETCH_DISTANCE: usize = 16;

impl<F: DuplicateFilter + ?Sized> DuplicateFilter for Box<F> {
    #[inline(always)]
    fn step(&mut self, hash: u64) -> bool {
        (**self).step(hash)
    }
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        (**self).prefetch(hash)
    }
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        (**self).step_batch(hashes, out)
    }
    fn memory_bits(&self) -> u64 {
        (**self).memory_bits()
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        (**self).params()
    }
    fn occupancy(&self) -> Occupancy {
        (**self).occupancy()
    }
}
