//! What dupstream's streams and structures share, and nothing else: the seeded key hash and the
//! index arithmetic derived from it ([`hash`]), seeded platform-stable randomness ([`rng`]), bit
//! and packed-cell arrays ([`bits`]), and the distinct fraction of a uniform stream
//! ([`universe`]).
//!
//! `dupstream-streams` and `dupstream-filters` both depend on this crate, so a stream never
//! depends on the structures it is fed to. `dupstream-filters` re-exports [`hash`], [`rng`] and
//! [`bits`] under its own name, so `dupstream_filters::hash::hash_key` keeps working.
//!
//! This crate's only `unsafe` lives in the [`raw`] module (a prefetch hint and a huge-page
//! `madvise`), each block with its `SAFETY` argument; every other module here denies `unsafe`.
//! The streams and filters crates forbid it; the runner has one `unsafe` module, its counting
//! global allocator (`plan/heap.rs`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod bits;
pub mod error;
pub mod hash;
#[allow(unsafe_code)]
pub mod raw;
pub mod rng;
pub mod universe;

pub use error::CapacityError;
