//! Experiment text through the parser and validation (`harness::experiment`).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::experiment(data);
});
