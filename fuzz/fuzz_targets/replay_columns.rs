//! A `tsv` or `csv` replay file, by the last byte (`harness::replay`).
#![no_main]

#[path = "../harness.rs"]
mod harness;

use dupstream_streams::ReplayFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some((&which, rest)) = data.split_last() {
        let format = if which & 1 == 0 {
            ReplayFormat::Tsv
        } else {
            ReplayFormat::Csv
        };
        harness::replay(format, rest);
    }
});
