//! The windowed truth against a brute-force model: for every position, scan backwards.

use crate::common::{TempFile, drain, nasa_tsv};
use dupstream_streams::{
    BadLinePolicy, Clock, Clocked, GroundTruth, OutOfOrder, ReplayFormat, ReplayStream, StreamSpec,
    TimedStream, Window, WindowOracle, WindowTruth, collect_keys,
};
use proptest::prelude::*;

/// Position i is a duplicate iff some j < i with the same key has i − j ≤ w.
fn brute(keys: &[u64], w: u64) -> Vec<bool> {
    (0..keys.len())
        .map(|i| (i.saturating_sub(w as usize)..i).any(|j| keys[j] == keys[i]))
        .collect()
}

/// Position i is a duplicate iff some j < i with the same key has t_i − t_j ≤ s.
fn brute_timed(keys: &[u64], times: &[f64], s: f64) -> Vec<bool> {
    (0..keys.len())
        .map(|i| (0..i).any(|j| keys[j] == keys[i] && times[i] - times[j] <= s))
        .collect()
}

fn labels(t: &WindowTruth) -> Vec<bool> {
    (0..t.len()).map(|i| t.is_duplicate(i)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn element_window_equals_brute_force(keys in prop::collection::vec(0u64..64, 0..600), w in 1u64..80) {
        let want = brute(&keys, w);
        // Every table, forced, and the planned one.
        for oracle in [Some(WindowOracle::Dense), Some(WindowOracle::HashMap), Some(WindowOracle::Recent), None] {
            let t = WindowTruth::from_keys(&keys, Some(64), w, oracle).unwrap();
            prop_assert_eq!(labels(&t), want.clone());
            prop_assert_eq!(t.stats().duplicates, want.iter().filter(|&&d| d).count() as u64);
            if let Some(o) = oracle {
                prop_assert_eq!(t.stats().oracle, o);
            }
        }
    }

    #[test]
    fn time_window_equals_brute_force(pairs in prop::collection::vec((0u64..40, 0u32..5), 0..400), s in 0u32..12) {
        // Non-decreasing times with ties (steps of 0..4 quarter-seconds).
        let keys: Vec<u64> = pairs.iter().map(|p| p.0).collect();
        let mut t = 0.0f64;
        let times: Vec<f64> = pairs.iter().map(|p| { t += f64::from(p.1) * 0.25; t }).collect();
        let s = f64::from(s) * 0.5;
        let want = brute_timed(&keys, &times, s);
        for (universe, oracle) in [(Some(40), WindowOracle::Dense), (None, WindowOracle::HashMap)] {
            let truth = WindowTruth::from_timed_keys(&keys, &times, universe, s, Some(oracle)).unwrap();
            prop_assert_eq!(labels(&truth), want.clone());
            prop_assert_eq!(truth.stats().window, Window::Seconds(s));
        }
    }
}

#[test]
fn a_window_longer_than_the_stream_is_the_since_start_truth() {
    let spec = StreamSpec::Uniform {
        n: 200_000,
        universe: None,
        distinct_fraction: Some(0.5),
        seed: 3,
    };
    let all = GroundTruth::compute(&spec).unwrap();
    let win = WindowTruth::compute(&spec, 200_000).unwrap();
    assert_eq!(all.label_words(), win.label_words());
    assert_eq!(
        WindowTruth::planned_oracle(&spec, 200_000),
        win.stats().oracle,
        "planned and used tables agree"
    );
    // A short window labels a subset of the since-start duplicates.
    let short = WindowTruth::compute(&spec, 1000).unwrap();
    let keys = collect_keys(&spec).unwrap();
    assert_eq!(short.stats().oracle, WindowOracle::Dense);
    let hashed = WindowTruth::from_keys(&keys, None, 1000, Some(WindowOracle::HashMap)).unwrap();
    assert_eq!(short.label_words(), hashed.label_words());
    // Without a universe, the ring of the last W keys is the smallest table.
    let recent = WindowTruth::from_keys(&keys, None, 1000, None).unwrap();
    assert_eq!(recent.stats().oracle, WindowOracle::Recent);
    assert_eq!(short.label_words(), recent.label_words());
    for (s, a) in short.label_words().iter().zip(all.label_words()) {
        assert_eq!(s & !a, 0);
    }
    assert!(short.stats().duplicates < all.len() - all.stats().distinct);
    assert!(WindowTruth::heap_bytes_estimate(&spec, 1000) >= short.stats().oracle_bytes);
}

#[test]
fn bad_windows_and_times_are_errors() {
    assert!(WindowTruth::from_keys(&[1, 2], None, 0, None).is_err());
    assert!(WindowTruth::from_timed_keys(&[1, 2], &[0.0, 1.0], None, f64::NAN, None).is_err());
    assert!(WindowTruth::from_timed_keys(&[1, 2], &[1.0, 0.5], None, 1.0, None).is_err());
    assert!(WindowTruth::from_timed_keys(&[1], &[-1.0], None, 1.0, None).is_err());
    // A key outside the declared universe of the dense table; tables that cannot apply.
    assert!(WindowTruth::from_keys(&[5], Some(4), 3, Some(WindowOracle::Dense)).is_err());
    assert!(WindowTruth::from_keys(&[5], None, 3, Some(WindowOracle::Dense)).is_err());
    assert!(
        WindowTruth::from_timed_keys(&[5], &[0.0], None, 1.0, Some(WindowOracle::Recent)).is_err()
    );
}

fn drain_timed(s: &mut dyn TimedStream) -> (Vec<u64>, Vec<f64>) {
    let (mut keys, mut times) = (Vec::new(), Vec::new());
    let (mut kb, mut tb) = (vec![0u64; 7], vec![0f64; 7]);
    loop {
        let k = s.fill_timed(&mut kb, &mut tb).unwrap();
        if k == 0 {
            return (keys, times);
        }
        keys.extend_from_slice(&kb[..k]);
        times.extend_from_slice(&tb[..k]);
    }
}

#[test]
fn replayed_times_from_clf_and_columns() {
    let clf = b"a - - [01/Aug/1995:00:00:01 -0400] \"GET /x HTTP/1.0\" 200 1\n\
b - - [01/Aug/1995:00:00:03 -0400] \"GET /y HTTP/1.0\" 200 1\n\
c - - [01/Aug/1995:00:00:02 -0400] \"GET /x HTTP/1.0\" 200 1\n\
d - - [01/Aug/1995:00:01:03 -0400] \"GET /x\" 200 1\n";
    let f = TempFile::new("clf-times", clf);
    let open = || {
        ReplayStream::open(
            f.path(),
            ReplayFormat::Clf,
            None,
            false,
            0,
            BadLinePolicy::Fail,
            0,
            None,
        )
        .unwrap()
    };
    // The third line's earlier time stops the stream, naming the line, unless clamped.
    let mut failing = open().timed(None).unwrap();
    let (mut kb, mut tb) = ([0u64; 8], [0f64; 8]);
    let err = failing
        .fill_timed(&mut kb, &mut tb)
        .unwrap_err()
        .to_string();
    assert!(err.contains(":3:") && err.contains("out of order"), "{err}");
    let (keys, times) =
        drain_timed(&mut open().timed(None).unwrap().out_of_order(OutOfOrder::Clamp));
    // Clamped: the third line's earlier time is taken as the previous one.
    let t0 = 807_249_601.0;
    assert_eq!(times, vec![t0, t0 + 2.0, t0 + 2.0, t0 + 62.0]);
    // The keys are those of the untimed stream.
    assert_eq!(keys, drain(&mut open(), 3).unwrap());
    // Windowed truth in seconds: /x at +2 s is within 5 s of +0; at +62 s it is not.
    let w = WindowTruth::from_timed_keys(&keys, &times, None, 5.0, None).unwrap();
    assert_eq!(labels(&w), vec![false, false, true, false]);
    assert!(open().timed(Some("1")).is_err());

    let csv = b"t,url\n1.5,/a\nx,/b\n2.5,/a\n";
    let f = TempFile::new("csv-times", csv);
    let open = |policy| {
        ReplayStream::open(
            f.path(),
            ReplayFormat::Csv,
            Some("url"),
            true,
            0,
            policy,
            0,
            None,
        )
        .unwrap()
        .timed(Some("t"))
        .unwrap()
    };
    let (keys, times) = drain_timed(&mut open(BadLinePolicy::Skip));
    assert_eq!((keys.len(), times), (2, vec![1.5, 2.5]));
    let mut failing = open(BadLinePolicy::Fail);
    let mut kb = [0u64; 4];
    let mut tb = [0f64; 4];
    let err = failing
        .fill_timed(&mut kb, &mut tb)
        .unwrap_err()
        .to_string();
    assert!(err.contains(":3:") && err.contains("not a number"), "{err}");
}

#[test]
fn nasa_log_times() {
    let Some(path) = nasa_tsv() else {
        eprintln!("skipped: ../shared/data/nasa-http-1995-08-01.tsv not found");
        return;
    };
    let mut s = ReplayStream::open(
        &path,
        ReplayFormat::Tsv,
        Some("url"),
        true,
        0,
        BadLinePolicy::Fail,
        0,
        None,
    )
    .unwrap()
    .timed(Some("time"))
    .unwrap();
    let (keys, times) = drain_timed(&mut s);
    assert_eq!(keys.len(), 30_969);
    assert_eq!(times[0], 807_256_800.0);
    assert!(times.windows(2).all(|w| w[1] >= w[0]));
    // One day of log; an hour's window labels fewer duplicates than the whole day.
    let hour = WindowTruth::from_timed_keys(&keys, &times, None, 3600.0, None).unwrap();
    let all = GroundTruth::from_keys(&keys, None, None).unwrap();
    assert!(hour.stats().duplicates < all.len() - all.stats().distinct);
}

#[test]
fn clocked_streams_keep_their_keys() {
    let spec = StreamSpec::Uniform {
        n: 10_000,
        universe: None,
        distinct_fraction: Some(0.5),
        seed: 1,
    };
    let mut s = Clocked::new(spec.open().unwrap(), Clock::new(100.0, true, 9).unwrap());
    let (keys, times) = drain_timed(&mut s);
    assert_eq!(keys, collect_keys(&spec).unwrap());
    assert!(times.windows(2).all(|w| w[1] >= w[0]));
    // 10 000 exponential gaps of mean 10 ms: about 100 s, sd 1 s.
    assert!((times[9_999] - 100.0).abs() < 5.0, "{}", times[9_999]);
}
