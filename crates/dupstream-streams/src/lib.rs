//! Deterministic streams and exact ground truth (being written).
#![forbid(unsafe_code)]
