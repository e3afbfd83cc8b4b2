//! Slow checks of the QHT-paper structures against the paper's Table 4, scaled down.
//!
//! Table 4's artificial streams draw 150 000 000 elements uniformly from 2^24 (or 2^27) keys
//! into filters of 10 kbit to 8 Mbit. Behaviour depends on the ratios stream/alphabet and
//! memory/alphabet, so dividing all three by 16 (2^20 keys, 9 375 000 elements, 500 000 and
//! 62 500 bits) reproduces the 8 Mbit and 1 Mbit rows at 1/16 of the cost.

use dupstream_filters::DuplicateFilter;
use dupstream_filters::cuckoo::{CuckooBuckets, CuckooParams, StreamingCuckoo, ZeroFingerprint};
use dupstream_filters::exact::Exact;
use dupstream_filters::hash::{hash_key, mix64, reduce};
use dupstream_filters::qht::{Qht, QhtParams};
use dupstream_filters::sqf::{Sqf, SqfParams, SqfRows};

/// (FPR, FNR) in percent on a uniform stream of `n` draws from `u` keys.
fn rates(f: &mut dyn DuplicateFilter, u: u64, n: u64, seed: u64) -> (f64, f64) {
    let mut exact = Exact::with_capacity(u as usize);
    let (mut dup, mut fneg, mut fresh, mut fpos) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..n {
        let h = hash_key(reduce(mix64(i ^ seed), u), seed);
        let truth = exact.step(h);
        let v = f.step(h);
        if truth {
            dup += 1;
            fneg += u64::from(!v);
        } else {
            fresh += 1;
            fpos += u64::from(v);
        }
    }
    (
        100.0 * fpos as f64 / fresh as f64,
        100.0 * fneg as f64 / dup as f64,
    )
}

#[test]
#[ignore = "slow: scaled Table 4 (artificial 88.82 %), prints FPR/FNR per structure"]
fn scaled_table_4_artificial() {
    let u = 1u64 << 20;
    let n = 150_000_000 / 16;
    for (mem, label) in [(500_000u64, "8e6"), (62_500, "1e6")] {
        let mut fs: Vec<(String, Box<dyn DuplicateFilter>)> = vec![
            (
                "qht k=1 s=3".into(),
                Box::new(Qht::new(mem, &QhtParams::default(), 1).unwrap()),
            ),
            (
                "sqf 2^q".into(),
                Box::new(Sqf::new(mem, &SqfParams::default(), 1).unwrap()),
            ),
            (
                "sqf fill".into(),
                Box::new(
                    Sqf::new(
                        mem,
                        &SqfParams {
                            rows: SqfRows::Fill,
                            ..Default::default()
                        },
                        1,
                    )
                    .unwrap(),
                ),
            ),
        ];
        for (zero, insert_duplicates, buckets) in [
            (ZeroFingerprint::Rehash, false, CuckooBuckets::Fill),
            (ZeroFingerprint::Rehash, false, CuckooBuckets::PowerOfTwo),
            (ZeroFingerprint::Rehash, true, CuckooBuckets::PowerOfTwo),
        ] {
            let p = CuckooParams {
                zero_fingerprint: zero,
                insert_duplicates,
                buckets,
                ..Default::default()
            };
            let name = format!("cuckoo {zero:?} dup={insert_duplicates} {buckets:?}");
            fs.push((name, Box::new(StreamingCuckoo::new(mem, &p, 1).unwrap())));
        }
        for (name, f) in &mut fs {
            let t = std::time::Instant::now();
            let (fpr, fnr) = rates(f.as_mut(), u, n, 3);
            println!(
                "{label} {name}: FPR {fpr:.2} FNR {fnr:.2} E {:.2} ({:.1?})",
                fpr + fnr,
                t.elapsed()
            );
        }
    }
}
