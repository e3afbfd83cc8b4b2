//! A gzip replay file (`harness::replay_gzip`).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::replay_gzip(data);
});
