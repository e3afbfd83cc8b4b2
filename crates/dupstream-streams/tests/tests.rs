//! Integration tests of dupstream-streams, one module per concern.

mod common;
mod determinism;
mod replay;
mod spec;
mod time;
mod truth;
mod uniform;
mod window_truth;
