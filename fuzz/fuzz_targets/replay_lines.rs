//! A `lines` replay file (`harness::replay`).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::replay(dupstream_streams::ReplayFormat::Lines, data);
});
