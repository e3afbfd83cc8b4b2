//! The cell, record, shard.json and streams.csv files `merge` reads (`harness::part_files`).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::part_files(data);
});
