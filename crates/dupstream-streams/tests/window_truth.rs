//! The windowed truth against a brute-force model: for every position, scan backwards.

use dupstream_streams::{GroundTruth, StreamSpec, Window, WindowOracle, WindowTruth, collect_keys};
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
