//! The APBF beside its equal-cells limit loop, in cache and out of cache.
//!
//! Each case is an APBF (plain or blocked) at a memory size, and the roofline's limit loop
//! (`support/limit.rs`) that test-and-sets as many random cells per element as the APBF
//! touches lines ([`cells_per_element`] less the lines it clears), prefetched ahead, and clears
//! the same lines per element as a stream ([`cleared_lines_per_element`]). Both hash their
//! keys inside the timed region, on a stream with half its elements duplicates.
//!
//! Two parts, one run:
//! - divan's table: ns per element of each APBF's `step_batch` (`step`) and of its limit loop
//!   (`limit`), on blocks of 4096 fresh keys;
//! - the ratio: rounds alternating limit and APBF, each a stretch of at least one generation
//!   (`g` elements, so that every stretch pays for the slice it clears), printed with the
//!   median of the per-round ratios and their interquartile range. The target of the blocked
//!   APBF out of cache is a ratio of at most 1.5.
//!
//! Sizes: 1 Mbit (128 KiB, in L2) and 2 Gbit (256 MiB, eight times a 32 MiB L3). The APBFs
//! take the paper's sizing (`g = ⌊m·ln 2 / k⌋` from the budget), except the roofline's own
//! blocked row, whose window of 65,536 is fixed: out of cache it is thousands of times larger
//! than its window and its cost is the slice it clears.
//!
//! ```text
//! cargo bench -p dupstream-filters --bench apbf               # both parts
//! cargo bench -p dupstream-filters --bench apbf -- blocked    # filters on the case name
//! ```

use divan::Bencher;
use divan::counter::ItemsCount;
use dupstream_filters::DuplicateFilter;
use dupstream_filters::apbf::{Apbf, ApbfParams};
use dupstream_filters::bits::BitArray;
use dupstream_filters::calibration::{DUP_LOW, cells_per_element, cleared_lines_per_element};
use dupstream_filters::spec::FilterSpec;
use std::hint::black_box;

mod support;
use support::{Clock, load_average, machine, median};
#[path = "support/limit.rs"]
#[allow(dead_code)] // shared with roofline.rs, which uses all of it
mod limit;
use limit::{BLOCK, Clear, Stream, limit_block, timed};

/// (case, TOML spec, memory in bits).
const CASES: &[(&str, &str, u64)] = &[
    (
        "blocked_7_5@1Mbit",
        "name = \"apbf_blocked\"\nk = 7\nl = 5",
        1 << 20,
    ),
    (
        "blocked_7_5@256MiB",
        "name = \"apbf_blocked\"\nk = 7\nl = 5",
        1 << 31,
    ),
    (
        "blocked_4_3@1Mbit",
        "name = \"apbf_blocked\"\nk = 4\nl = 3",
        1 << 20,
    ),
    (
        "blocked_4_3@256MiB",
        "name = \"apbf_blocked\"\nk = 4\nl = 3",
        1 << 31,
    ),
    ("plain_4_3@1Mbit", "name = \"apbf\"\nk = 4\nl = 3", 1 << 20),
    ("plain_4_3@256MiB", "name = \"apbf\"\nk = 4\nl = 3", 1 << 31),
    (
        "blocked_7_5_w65536@256MiB",
        "name = \"apbf_blocked\"\nk = 7\nl = 5\nwindow = 65536",
        1 << 31,
    ),
];

const NAMES: &[&str] = &[
    "blocked_7_5@1Mbit",
    "blocked_7_5@256MiB",
    "blocked_4_3@1Mbit",
    "blocked_4_3@256MiB",
    "plain_4_3@1Mbit",
    "plain_4_3@256MiB",
    "blocked_7_5_w65536@256MiB",
];

/// The blocked APBF's target out of cache: at most this ratio to its limit loop (paper
/// sizing; the case with a fixed window is the slice clearing's, not the layout's).
const TARGET: f64 = 1.5;

/// Rounds (limit, APBF) of the ratio.
const ROUNDS: usize = 7;

/// A case built: the APBF, its limit loop's cells and cleared lines, and its memory.
struct Built {
    f: Apbf,
    cells: u32,
    cleared: f64,
    bits: u64,
}

fn build(name: &str) -> Built {
    let &(_, toml_text, bits) = CASES.iter().find(|c| c.0 == name).expect("case");
    let spec: FilterSpec = toml::from_str(toml_text).expect("spec");
    let table: toml::Table = toml::from_str(toml_text).expect("table");
    let int = |key: &str| table.get(key).and_then(|v| v.as_integer());
    let params = ApbfParams {
        k: int("k").map(|v| v as u32),
        l: int("l").map(|v| v as u32),
        window: int("window").map(|v| v as u64),
        ..ApbfParams::default()
    };
    let f = if table["name"].as_str() == Some("apbf_blocked") {
        Apbf::new_blocked(bits, &params, 1)
    } else {
        Apbf::new(bits, &params, 1)
    }
    .expect("apbf");
    let total = cells_per_element(&spec, bits);
    let cleared = cleared_lines_per_element(&spec, bits);
    Built {
        f,
        cells: (total - cleared).round().max(1.0) as u32,
        cleared,
        bits,
    }
}

/// Elements run before timing an array of `bits`: enough to touch its pages (first-touch
/// faults are not what is measured).
fn warm_elements(bits: u64) -> usize {
    (bits as usize / 512).clamp(1 << 16, 1 << 22)
}

/// [`warm_elements`] through the APBF and through its limit loop.
fn warm(b: &mut Built, limit: &mut BitArray, clear: &mut Clear) {
    let n = warm_elements(b.bits);
    timed(&mut Stream::duplicates(DUP_LOW), n, |h, o| {
        b.f.step_batch(h, o)
    });
    timed(&mut Stream::duplicates(DUP_LOW), n, |h, o| {
        limit_block(limit, h, b.cells, clear, o)
    });
}

#[divan::bench(args = NAMES)]
fn step(bencher: Bencher, name: &str) {
    let mut b = build(name);
    let mut stream = Stream::duplicates(DUP_LOW);
    timed(&mut stream, warm_elements(b.bits), |h, o| {
        b.f.step_batch(h, o)
    });
    let (mut buf, mut out) = (vec![0u64; BLOCK], vec![false; BLOCK]);
    bencher.counter(ItemsCount::new(BLOCK)).bench_local(|| {
        stream.fill(&mut buf);
        b.f.step_batch(&buf, &mut out);
        black_box(&out);
    });
}

#[divan::bench(args = NAMES)]
fn limit(bencher: Bencher, name: &str) {
    let b = build(name);
    let mut limit = BitArray::new("limit", b.bits).expect("limit");
    let mut clear = Clear::new(b.cleared, b.bits);
    let mut stream = Stream::duplicates(DUP_LOW);
    timed(&mut stream, warm_elements(b.bits), |h, o| {
        limit_block(&mut limit, h, b.cells, &mut clear, o)
    });
    let (mut buf, mut out) = (vec![0u64; BLOCK], vec![false; BLOCK]);
    bencher.counter(ItemsCount::new(BLOCK)).bench_local(|| {
        stream.fill(&mut buf);
        limit_block(&mut limit, &buf, b.cells, &mut clear, &mut out);
        black_box(&out);
    });
}

/// The ratio of one case: [`ROUNDS`] rounds of (limit, APBF), each a stretch of at least one
/// generation; prints and returns (APBF ns, limit ns, median ratio).
fn ratio(name: &str) -> (f64, f64, f64) {
    let mut b = build(name);
    let mut limit = BitArray::new("limit", b.bits).expect("limit");
    let mut clear = Clear::new(b.cleared, b.bits);
    warm(&mut b, &mut limit, &mut clear);
    let stretch = (b.f.g() as usize).max(1 << 20);
    let (mut s, mut l) = (Stream::duplicates(DUP_LOW), Stream::duplicates(DUP_LOW));
    let (mut ss, mut ls, mut rs) = (vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let a = timed(&mut l, stretch, |h, o| {
            limit_block(&mut limit, h, b.cells, &mut clear, o)
        });
        let c = timed(&mut s, stretch, |h, o| b.f.step_batch(h, o));
        ls.push(a);
        ss.push(c);
        rs.push(c / a);
    }
    let r = median(&mut rs);
    let (sn, ln) = (median(&mut ss), median(&mut ls));
    let target = if name.starts_with("blocked") && name.ends_with("@256MiB") && !name.contains("_w")
    {
        format!(
            "  target ≤ {TARGET:.2}: {}",
            if r <= TARGET { "met" } else { "not met" }
        )
    } else {
        String::new()
    };
    println!(
        "{name:<26} L = {} (+{:.2} lines cleared)  {sn:>8.1} ns  limit {ln:>8.1} ns  ratio {r:.2}  (IQR {:.0} %){target}",
        b.cells,
        b.cleared,
        (rs[ROUNDS * 3 / 4] - rs[ROUNDS / 4]) / r * 100.0
    );
    (sn, ln, r)
}

fn main() {
    divan::main();
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    println!(
        "\nratio to the equal-cells limit loop ({}; load {}; {ROUNDS} rounds, stretches of max(g, 2^20) elements, thread CPU time)",
        machine(),
        load_average()
    );
    let start = Clock::now();
    for name in NAMES {
        if filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())) {
            ratio(name);
        }
    }
    println!(
        "({:.0} s; load now {})",
        start.elapsed_ns() / 1e9,
        load_average()
    );
}
