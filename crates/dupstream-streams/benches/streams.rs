//! Speed of stream generation and ground-truth labelling, in ns per element.
//!
//! `cargo bench -p dupstream-streams` (divan). The targets are for `N = 10^9`,
//! `d = 0.15`: generation ≤ 3 ns/element, ground truth ≤ 10 ns/element. These benches run at
//! `N = 10^7` by default; set `DUPSTREAM_BENCH_N` to change it. `window_truth` labels the same
//! streams against a window of `2^16` elements; its target is at most 2× `ground_truth` per
//! element (compare the two in one `cargo bench` run).

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use dupstream_streams::{GroundTruth, Phases, StreamSpec, TimeSpec, WindowTruth, open_timed};

fn main() {
    divan::main();
}

fn n() -> u64 {
    std::env::var("DUPSTREAM_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000)
}

fn spec(kind: &str) -> StreamSpec {
    let n = n();
    match kind {
        "uniform_d0.15" => StreamSpec::Uniform {
            n,
            universe: None,
            distinct_fraction: Some(0.15),
            seed: 1,
        },
        "uniform_d0.9" => StreamSpec::Uniform {
            n,
            universe: None,
            distinct_fraction: Some(0.9),
            seed: 1,
        },
        "zipf_s1.1" => StreamSpec::Zipf {
            n,
            universe: n / 10,
            s: 1.1,
            seed: 1,
        },
        // The same Zipf law, its mapping moving 1 % of the universe every 1 % of the stream.
        "zipf_drift_s1.1" => StreamSpec::ZipfDrift {
            n,
            universe: n / 10,
            s: 1.1,
            period: n / 100,
            shift: n / 1000,
            seed: 1,
        },
        "deng_poisson" => StreamSpec::DengPoisson {
            n,
            lambda: 0.5,
            u: 1e4,
            seed: 1,
        },
        "deng_b_model" => StreamSpec::DengBModel {
            n,
            b: 0.7,
            l: 6,
            v: 0.1,
            u: 1e4,
            seed: 1,
            heavy_first: false,
        },
        _ => unreachable!(),
    }
}

/// Generating the whole stream through `fill` with a 4096-key buffer.
#[divan::bench(args = ["uniform_d0.15", "uniform_d0.9", "zipf_s1.1", "zipf_drift_s1.1", "deng_poisson", "deng_b_model"], sample_count = 3, sample_size = 1)]
fn generate(bencher: Bencher, kind: &str) {
    let spec = spec(kind);
    bencher.counter(ItemsCount::new(n())).bench(|| {
        let mut s = spec.open().unwrap();
        let mut buf = vec![0u64; 4096];
        let mut acc = 0u64;
        loop {
            let k = s.fill(&mut buf).unwrap();
            if k == 0 {
                break;
            }
            acc ^= buf[k - 1];
        }
        black_box(acc)
    });
}

/// Generating `uniform_d0.15` with times from a clock (`open_timed`), 4096 keys and times a
/// batch.
#[divan::bench(args = ["even", "poisson", "mmpp"], sample_count = 3, sample_size = 1)]
fn timed(bencher: Bencher, clock: &str) {
    let spec = spec("uniform_d0.15");
    let time = match clock {
        "even" => TimeSpec::Even { rate: 1e4 },
        "poisson" => TimeSpec::Poisson { rate: 1e4 },
        _ => TimeSpec::Mmpp {
            burst_rate: 53_248.0,
            lull_rate: 4_096.0,
            burst_seconds: 32.0,
            lull_seconds: 96.0,
            phases: Phases::Exponential,
        },
    };
    bencher.counter(ItemsCount::new(n())).bench(|| {
        let mut s = open_timed(&spec, &time, 1).unwrap();
        let (mut keys, mut times) = (vec![0u64; 4096], vec![0f64; 4096]);
        let mut acc = 0.0;
        loop {
            let k = s.fill_timed(&mut keys, &mut times).unwrap();
            if k == 0 {
                break;
            }
            acc += times[k - 1];
        }
        black_box(acc)
    });
}

/// Generating and labelling the whole stream (automatic oracle).
#[divan::bench(args = ["uniform_d0.15", "uniform_d0.9", "zipf_s1.1", "deng_poisson"], sample_count = 3, sample_size = 1)]
fn ground_truth(bencher: Bencher, kind: &str) {
    let spec = spec(kind);
    bencher
        .counter(ItemsCount::new(n()))
        .bench(|| black_box(GroundTruth::compute(&spec).unwrap().stats().distinct));
}

/// Generating and labelling the whole stream against a window of 2^16 elements (automatic
/// table): compare with `ground_truth` in the same run.
#[divan::bench(args = ["uniform_d0.15", "uniform_d0.9", "zipf_s1.1", "deng_poisson"], sample_count = 3, sample_size = 1)]
fn window_truth(bencher: Bencher, kind: &str) {
    let spec = spec(kind);
    bencher.counter(ItemsCount::new(n())).bench(|| {
        black_box(
            WindowTruth::compute(&spec, 1 << 16)
                .unwrap()
                .stats()
                .duplicates,
        )
    });
}
