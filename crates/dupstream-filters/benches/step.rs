//! ns per element of every structure at 1 Mbit and 512 MB (k = 2 where k applies), on a
//! uniform stream of about 50 % duplicates, through the batched (prefetching) step.
//!
//! `cargo bench -p dupstream-filters` — divan prints time per element ("item").
//! `cargo bench -p dupstream-filters -- 1Mbit` runs only the small cases.

use divan::Bencher;
use divan::counter::ItemsCount;
use dupstream_filters::hash::{hash_key, mix64, reduce};
use dupstream_filters::spec::FilterSpec;

fn main() {
    divan::main();
}

/// (case name, TOML spec). k = 2 wherever the structure has a k.
const STRUCTURES: &[(&str, &str)] = &[
    ("bloom", "name = \"bloom\"\nk = 2"),
    ("sbf", "name = \"sbf\"\nmax = 1\nk = 2\np = 4"),
    ("rsbf", "name = \"rsbf\"\nk = 2"),
    ("bsbf", "name = \"bsbf\"\nk = 2"),
    ("bsbfsd", "name = \"bsbfsd\"\nk = 2"),
    ("rlbsbf", "name = \"rlbsbf\"\nk = 2"),
    ("qht", "name = \"qht\""),
    ("qhtd", "name = \"qhtd\""),
    ("qqhtd", "name = \"qqhtd\""),
    ("sqf", "name = \"sqf\""),
    ("cuckoo", "name = \"cuckoo\""),
    ("a2", "name = \"a2\""),
    ("bdbf", "name = \"bdbf\""),
    (
        "fpsbf",
        "name = \"fpsbf\"\nc = 2\nf = 4\nk = 2\nxi = 1.0\nfps = 0.1",
    ),
    ("lru_buffering", "name = \"lru_buffering\""),
    ("fp_buffering", "name = \"fp_buffering\"\nq = 0.1"),
];

const N: usize = 1 << 20;

fn hashes() -> Vec<u64> {
    // U ≈ 0.63·N gives a distinct fraction of ~50 % over N draws.
    let u = (N as u64) * 63 / 100;
    (0..N as u64)
        .map(|i| hash_key(reduce(mix64(i ^ 0xbe11), u), 1))
        .collect()
}

fn bench_case(bencher: Bencher, name: &str, bits: u64) {
    let Some((_, toml)) = STRUCTURES.iter().find(|(n, _)| *n == name) else {
        return;
    };
    let Ok(spec) = toml::from_str::<FilterSpec>(toml) else {
        eprintln!("skipping {name}: not registered");
        return;
    };
    let mut f = spec.build(bits, 1).expect("build");
    let hs = hashes();
    let mut out = vec![false; hs.len()];
    f.step_batch(&hs, &mut out); // warm up: touch the pages, reach a steady state
    bencher.counter(ItemsCount::new(hs.len())).bench_local(|| {
        f.step_batch(&hs, &mut out);
        divan::black_box(&out);
    });
}

const NAMES: &[&str] = &[
    "bloom",
    "sbf",
    "rsbf",
    "bsbf",
    "bsbfsd",
    "rlbsbf",
    "qht",
    "qhtd",
    "qqhtd",
    "sqf",
    "cuckoo",
    "a2",
    "bdbf",
    "fpsbf",
    "lru_buffering",
    "fp_buffering",
];

#[divan::bench(args = NAMES, sample_count = 5, sample_size = 1)]
fn at_1mbit(bencher: Bencher, name: &str) {
    bench_case(bencher, name, 1 << 20);
}

/// b_DBF is left out at 512 MB: it decays one of its ~W/V blocks per arrival, so with the
/// QHT paper's W = 6000 every element would sweep over a megabyte; the structure is meant
/// for the QHT paper's 10 kbit–8 Mbit range.
const NAMES_LARGE: &[&str] = &[
    "bloom",
    "sbf",
    "rsbf",
    "bsbf",
    "bsbfsd",
    "rlbsbf",
    "qht",
    "qhtd",
    "qqhtd",
    "sqf",
    "cuckoo",
    "a2",
    "fpsbf",
    "lru_buffering",
    "fp_buffering",
];

#[divan::bench(args = NAMES_LARGE, sample_count = 3, sample_size = 1)]
fn at_512mb(bencher: Bencher, name: &str) {
    bench_case(bencher, name, 512 << 23);
}
