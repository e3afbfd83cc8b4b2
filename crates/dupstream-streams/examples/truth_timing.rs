//! Times generation and ground truth for one stream; run under `/usr/bin/time -v` for the peak
//! memory.
//!
//! ```text
//! cargo run --release -p dupstream-streams --example truth_timing -- uniform 1000000000 0.15
//! cargo run --release -p dupstream-streams --example truth_timing -- deng_poisson 16777216 0.5
//! ```
//! Arguments: kind (`uniform`, `zipf`, `deng_poisson`, `deng_b_model`), n, and the kind's
//! parameter (distinct fraction, Zipf exponent, λ, or b).

use std::time::Instant;

use dupstream_streams::{GroundTruth, StreamSpec};

/// Nanoseconds this process has spent on a CPU (Linux `/proc/self/schedstat`), to separate
/// the work from waiting on a shared machine; 0 where unavailable.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("uniform", String::as_str);
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let p: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.15);
    let spec = match kind {
        "uniform" => StreamSpec::Uniform {
            n,
            universe: None,
            distinct_fraction: Some(p),
            seed: 1,
        },
        "zipf" => StreamSpec::Zipf {
            n,
            universe: n / 10,
            s: p,
            seed: 1,
        },
        "deng_poisson" => StreamSpec::DengPoisson {
            n,
            lambda: p,
            u: 1e4,
            seed: 1,
        },
        "deng_b_model" => StreamSpec::DengBModel {
            n,
            b: p,
            l: 6,
            v: 0.1,
            u: 1e4,
            seed: 1,
            heavy_first: false,
        },
        other => panic!("unknown kind {other}"),
    };
    println!("{}", spec.describe());
    println!("planned oracle: {:?}", GroundTruth::planned_oracle(&spec));
    println!(
        "heap estimate: {:.1} MB",
        GroundTruth::heap_bytes_estimate(&spec) as f64 / 1e6
    );

    let (t, c) = (Instant::now(), cpu_ns());
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
    let gen_ns = t.elapsed().as_nanos() as f64 / n as f64;
    let gen_cpu = (cpu_ns() - c) as f64 / n as f64;
    println!("generation: {gen_ns:.2} ns/element wall, {gen_cpu:.2} CPU (checksum {acc:x})");

    let (t, c) = (Instant::now(), cpu_ns());
    let truth = GroundTruth::compute(&spec).unwrap();
    let gt_ns = t.elapsed().as_nanos() as f64 / n as f64;
    let gt_cpu = (cpu_ns() - c) as f64 / n as f64;
    let st = truth.stats();
    println!("ground truth: {gt_ns:.2} ns/element wall, {gt_cpu:.2} CPU (including generation)");
    println!(
        "n={} distinct={} fraction={:.5} oracle={} gap_sample_rate={} gaps_counted={}",
        st.n,
        st.distinct,
        st.distinct_fraction,
        st.oracle.as_str(),
        st.gap_sample_rate,
        st.gap_histogram.iter().sum::<u64>()
    );
    println!("gap histogram: {:?}", st.gap_histogram);
}
