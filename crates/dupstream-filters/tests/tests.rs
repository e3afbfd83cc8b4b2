//! Integration tests of the filters crate: one binary, a module per concern.
//!
//! `cargo test -p dupstream-filters --test tests <module>::` runs one module, e.g. `params::`.
//! The modules that read parameter sets from TOML need the crate's `serde` feature (on by
//! default).

mod apbf;
mod bera;
#[cfg(feature = "serde")]
mod conformance;
mod deng;
#[cfg(feature = "serde")]
mod params;
mod qht;
#[cfg(feature = "serde")]
mod registry;
