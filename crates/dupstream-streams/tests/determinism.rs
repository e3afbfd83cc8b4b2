//! Same spec and seed give the same keys: across runs, restarts, buffer sizes and threads.

use dupstream_streams::{BadLinePolicy, ReplayFormat, StreamSpec, collect_keys};

use crate::common::{TempFile, drain};

fn generated_specs() -> Vec<StreamSpec> {
    vec![
        StreamSpec::Uniform {
            n: 200_000,
            universe: None,
            distinct_fraction: Some(0.6),
            seed: 7,
        },
        StreamSpec::Shuffled {
            n: 200_000,
            distinct_fraction: 0.6,
            seed: 7,
        },
        StreamSpec::Zipf {
            n: 100_000,
            universe: 5_000,
            s: 1.0,
            seed: 7,
        },
        StreamSpec::ZipfDrift {
            n: 100_000,
            universe: 5_000,
            s: 1.0,
            period: 1_000,
            shift: 50,
            seed: 7,
        },
        StreamSpec::DengPoisson {
            n: 200_000,
            lambda: 0.3,
            u: 1000.0,
            seed: 7,
        },
        StreamSpec::DengBModel {
            n: 200_000,
            b: 0.7,
            l: 6,
            v: 0.1,
            u: 1000.0,
            seed: 7,
            heavy_first: false,
        },
    ]
}

#[test]
fn same_seed_same_keys_any_buffer_size() {
    for spec in generated_specs() {
        let a = collect_keys(&spec).unwrap();
        assert_eq!(a.len() as u64, spec.declared_len().unwrap());
        for buf in [1, 7, 1000, 65_536] {
            let b = drain(&mut *spec.open().unwrap(), buf).unwrap();
            assert!(a == b, "{} differs with buffer {buf}", spec.describe());
        }
    }
}

#[test]
fn different_seeds_differ() {
    for spec in generated_specs() {
        let mut other = spec.clone();
        match &mut other {
            StreamSpec::Uniform { seed, .. }
            | StreamSpec::Shuffled { seed, .. }
            | StreamSpec::Zipf { seed, .. }
            | StreamSpec::ZipfDrift { seed, .. }
            | StreamSpec::DengPoisson { seed, .. }
            | StreamSpec::DengBModel { seed, .. } => *seed += 1,
            StreamSpec::Replay { .. } => unreachable!(),
        }
        assert_ne!(
            collect_keys(&spec).unwrap(),
            collect_keys(&other).unwrap(),
            "{}",
            spec.describe()
        );
    }
}

#[test]
fn same_keys_across_threads() {
    let file = TempFile::new("det.txt", b"a\nb\na\nc\nb\n");
    let mut specs = generated_specs();
    specs.push(StreamSpec::Replay {
        path: file.path().to_path_buf(),
        format: ReplayFormat::Lines,
        column: None,
        header: false,
        fingerprint_seed: 3,
        bad_lines: BadLinePolicy::Fail,
        offset: 0,
        limit: None,
    });
    let reference: Vec<Vec<u64>> = specs.iter().map(|s| collect_keys(s).unwrap()).collect();
    // Every thread runs every stream, interleaved with the others, in a different order.
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|t| {
                let specs = &specs;
                scope.spawn(move || {
                    let mut streams: Vec<_> = specs.iter().map(|s| s.open().unwrap()).collect();
                    let mut out = vec![Vec::new(); specs.len()];
                    let mut buf = vec![0u64; 513 + 100 * t];
                    let mut live = true;
                    while live {
                        live = false;
                        for i in 0..streams.len() {
                            let j = (i + t) % streams.len();
                            let k = streams[j].fill(&mut buf).unwrap();
                            out[j].extend_from_slice(&buf[..k]);
                            live |= k > 0;
                        }
                    }
                    out
                })
            })
            .collect();
        for h in handles {
            assert!(h.join().unwrap() == reference);
        }
    });
}
