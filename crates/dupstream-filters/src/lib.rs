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
pub mod aged_cuckoo;
pub mod apbf;
pub mod bdbf;
pub mod bloom;
pub mod bsbf;
pub mod buffering;
pub mod calibration;
mod compact_table;
pub mod cuckoo;
pub mod error;
pub mod exact;
pub mod exact_window;
pub mod fbf;
pub mod fpsbf;
pub mod inverse_bloom;
pub mod naor_yogev;
pub mod param;
pub mod parameter_sets;
pub mod qht;
pub mod queue;
pub mod rotating_bloom;
pub mod rsbf;
pub mod sbf;
pub mod sliding_bloom;
pub mod spec;
pub mod sqf;
pub mod structure;
pub mod sw_bf;
pub mod swamp;
pub mod swamp_plain;
pub mod theory;
pub mod timing_bloom;
pub mod tlbf;
mod window_clock;

#[cfg(test)]
pub(crate) mod test_support {
    use crate::hash::hash_key;

    /// For each element of `hashes`, the gap to its previous occurrence (`None` for a first
    /// one): the brute-force truth of a count window.
    pub(crate) fn gaps(hashes: &[u64]) -> Vec<Option<u64>> {
        let mut last = std::collections::HashMap::new();
        hashes
            .iter()
            .enumerate()
            .map(|(i, &h)| last.insert(h, i).map(|j| (i - j) as u64))
            .collect()
    }

    /// Queries 200,000 keys never stepped (hashes of keys from `2^40` on, seed 8) with
    /// `contains` and checks the count reported against the binomial with rate `rate`, within
    /// 3.3 sd (99.9 %, two-sided).
    pub(crate) fn check_never_seen_fpr(label: &str, contains: impl Fn(u64) -> bool, rate: f64) {
        let t = 200_000u64;
        let fp = (0..t)
            .filter(|&j| contains(hash_key((1 << 40) + j, 8)))
            .count() as f64;
        let expected = t as f64 * rate;
        let sd = (expected * (1.0 - rate)).sqrt();
        eprintln!("{label}: {fp} false positives of {t}, expected {expected:.1}");
        assert!(
            (fp - expected).abs() < 3.3 * sd + 1.0,
            "{label}: {fp} against {expected:.1} (sd {sd:.1})"
        );
    }
}

pub use error::{Error, Result};
pub use param::{Param, ParamValue};
pub use structure::Structure;

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
        prefetching_batch(self, hashes, out);
    }

    /// Processes one element that arrived at `time` (seconds on the stream's clock,
    /// non-decreasing along the stream). Structures whose window counts elements ignore the
    /// time: the default is [`step`](Self::step). A time-windowed structure (the time-limited
    /// Bloom filter, [`tlbf`]) overrides it and uses the time to retire stale state.
    #[inline(always)]
    fn step_at(&mut self, hash: u64, time: f64) -> bool {
        let _ = time;
        self.step(hash)
    }

    /// Processes a batch of timestamped elements; `out[i]` receives the verdict for
    /// `hashes[i]` arriving at `times[i]`. Identical to calling [`step_at`](Self::step_at) on
    /// each element in order. The default ignores the times and runs
    /// [`step_batch`](Self::step_batch), which is right for every structure that does not
    /// override [`step_at`](Self::step_at).
    ///
    /// # Panics
    /// If `out` or `times` is shorter than `hashes`.
    fn step_batch_at(&mut self, hashes: &[u64], times: &[f64], out: &mut [bool]) {
        assert!(times.len() >= hashes.len(), "times buffer too short");
        self.step_batch(hashes, out)
    }

    /// Exact number of bits of state the structure uses (its cells, counters and fingerprints;
    /// not its constant parameters, random generator state, or the index of a buffer the paper
    /// does not charge). Never exceeds the construction budget.
    fn memory_bits(&self) -> u64;

    /// The structure's stable name, as used in experiment and result files.
    fn name(&self) -> &'static str;

    /// The structure's parameters, given and derived, as typed [`Param`]s in a stable order;
    /// each renders as `name=value` exactly as result files write it.
    fn params(&self) -> Vec<Param>;

    /// The structure's occupancy figure at this point of the stream.
    fn occupancy(&self) -> Occupancy;
}

/// How many elements ahead [`DuplicateFilter::step_batch`] prefetches: far enough for a
/// structure doing a few nanoseconds of work per element to have its lines arrive out of
/// cache (`benches/roofline.rs` measures it).
/// The SBF, with several times the work per element, keeps its own shorter distance.
pub const PREFETCH_DISTANCE: usize = 32;

/// Array size in bits up to which the Bloom filter, the BSBF family, the SBF, RSBF, A2, b_DBF and
/// the APBF (plain and blocked) do not prefetch: their `step_batch` is then
/// [`step`](DuplicateFilter::step) in a loop, and the BSBF family's reset draws and the SBF's
/// decrement cells are not prefetched either. Up to there the prefetches cost more than they
/// save; above, they save more the larger the array. Measured as `step_batch` with prefetches against the
/// same loop without them, `k = 2`, thread CPU time, on the 2-vCPU EPYC VM (L2 1 MiB per core):
/// Bloom 1.06–1.15× from 64 Kbit to 2 Mbit, 1.10–1.13× at 4 Mbit, 0.91–0.96× at 8 Mbit,
/// 0.73–0.77× at 16 Mbit, 0.41–0.61× from 64 Mbit; BSBF, BSBFSD and RLBSBF 1.11–1.29× up to
/// 2 Mbit, 1.00–1.07× at 4 Mbit, 0.89–0.97× at 8 Mbit, 0.75–0.84× at 16 Mbit, 0.32–0.38× at
/// 64 Mbit. The SBF the other way round, without its prefetches over with them (Max 1, K 2,
/// P 4 / the QHT paper's Max 3, P 38): 0.85× / 0.91× at 64 Kbit, 0.85× / 0.89× at 1 Mbit,
/// 0.89× / 0.91× at 4 Mbit, 0.93× / 1.02× at 8 Mbit, 1.07× / 1.01× at 16 Mbit, 1.14× / 1.02× at
/// 32 Mbit. APBF (k 4, l 3), A2, RSBF (k 2) and b_DBF (W 6000), `step_batch` with prefetches
/// over `step` through a trait object (a call per element): 1.16–1.28×, 1.09–1.18×, 1.09–1.15×
/// and 1.05–1.17× from 64 Kbit to 4 Mbit; the blocked APBF (7, 5), roofline at 64 Kbit:
/// 17.7 ns per element with prefetches, 15.8 without. The other structures keep the default:
/// their prefetches cost little or pay in cache too (QHT, SQF, FP-SBF, the buffers:
/// 0.82–1.07× from 64 Kbit to 4 Mbit).
pub const PREFETCH_ABOVE_BITS: u64 = 1 << 22;

/// [`DuplicateFilter::step_batch`]'s default: each element's cells are prefetched
/// [`PREFETCH_DISTANCE`] elements ahead.
pub(crate) fn prefetching_batch<F: DuplicateFilter + ?Sized>(
    f: &mut F,
    hashes: &[u64],
    out: &mut [bool],
) {
    assert!(out.len() >= hashes.len(), "output buffer too short");
    for &h in hashes.iter().take(PREFETCH_DISTANCE) {
        f.prefetch(h);
    }
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&ahead) = hashes.get(i + PREFETCH_DISTANCE) {
            f.prefetch(ahead);
        }
        out[i] = f.step(h);
    }
}

/// A batch as [`DuplicateFilter::step`] in a loop, without prefetches.
pub(crate) fn plain_batch<F: DuplicateFilter + ?Sized>(
    f: &mut F,
    hashes: &[u64],
    out: &mut [bool],
) {
    assert!(out.len() >= hashes.len(), "output buffer too short");
    for (o, &h) in out.iter_mut().zip(hashes) {
        *o = f.step(h);
    }
}

/// [`prefetching_batch`] for an array of more than [`PREFETCH_ABOVE_BITS`] bits, [`plain_batch`]
/// otherwise.
#[inline(always)]
pub(crate) fn sized_batch<F: DuplicateFilter + ?Sized>(
    f: &mut F,
    array_bits: u64,
    hashes: &[u64],
    out: &mut [bool],
) {
    if array_bits > PREFETCH_ABOVE_BITS {
        prefetching_batch(f, hashes, out);
    } else {
        plain_batch(f, hashes, out);
    }
}

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
    #[inline(always)]
    fn step_at(&mut self, hash: u64, time: f64) -> bool {
        (**self).step_at(hash, time)
    }
    fn step_batch_at(&mut self, hashes: &[u64], times: &[f64], out: &mut [bool]) {
        (**self).step_batch_at(hashes, times, out)
    }
    fn memory_bits(&self) -> u64 {
        (**self).memory_bits()
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn params(&self) -> Vec<Param> {
        (**self).params()
    }
    fn occupancy(&self) -> Occupancy {
        (**self).occupancy()
    }
}
