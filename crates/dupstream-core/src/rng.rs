//! Seeded, platform-stable randomness for structures that draw random numbers (SBF's decrement,
//! RSBF's reservoir draws, FPBuffering's coin, ...).
//!
//! Xoshiro256++ seeded through SplitMix64 gives the same sequence on every platform and every
//! run. Structures never touch thread-local or OS randomness.

pub use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// The generator every structure uses.
pub type FilterRng = rand_xoshiro::Xoshiro256PlusPlus;

/// A generator for structure `seed`, sub-stream `stream` (so one structure can own several
/// independent generators).
pub fn filter_rng(seed: u64, stream: u64) -> FilterRng {
    FilterRng::seed_from_u64(crate::hash::mix64(
        seed ^ crate::hash::mix64(stream.wrapping_add(0x0123_4567)),
    ))
}

/// A uniform `f64` in `[0, 1)` from the top 53 bits of a `u64`.
#[inline(always)]
pub fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}
