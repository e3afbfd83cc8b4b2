//! Ground truth against naive models; the two oracles agree; gap histograms.

use std::collections::{HashMap, HashSet};

use dupstream_streams::deng::frequent_index;
use dupstream_streams::truth::gap_tracks;
use dupstream_streams::{GroundTruth, KeyStream, Oracle, StreamSpec, collect_keys};
use proptest::prelude::*;

/// Labels and gap histogram of `keys`, naively; only keys with `track(key)` count gaps.
fn naive(keys: &[u64], track: impl Fn(u64) -> bool) -> (Vec<bool>, u64, Vec<u64>) {
    let mut seen = HashSet::new();
    let mut last = HashMap::new();
    let mut hist = vec![0u64; 64];
    let labels: Vec<bool> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            if track(k)
                && let Some(p) = last.insert(k, i as u64)
            {
                hist[(i as u64 - p).ilog2() as usize] += 1;
            }
            !seen.insert(k)
        })
        .collect();
    while hist.last() == Some(&0) {
        hist.pop();
    }
    (labels, seen.len() as u64, hist)
}

fn check(t: &GroundTruth, keys: &[u64]) {
    let rate = t.stats().gap_sample_rate;
    let (labels, distinct, hist) = naive(keys, |k| gap_tracks(k, rate));
    assert_eq!(t.len(), keys.len() as u64);
    for (i, &l) in labels.iter().enumerate() {
        assert_eq!(t.is_duplicate(i as u64), l, "position {i}");
    }
    assert_eq!(t.stats().distinct, distinct);
    assert_eq!(t.stats().gap_histogram, hist);
    // Bits beyond the stream are zero, and the words agree with is_duplicate.
    let words = t.label_words();
    assert_eq!(words.len(), keys.len().div_ceil(64));
    let ones: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
    assert_eq!(ones, keys.len() as u64 - distinct);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Both oracles equal a naive HashSet scan on random streams over random universes.
    #[test]
    fn matches_naive_hash_set(universe in 1u64..5000, keys in prop::collection::vec(any::<u64>(), 0..3000)) {
        let keys: Vec<u64> = keys.iter().map(|&k| k % universe).collect();
        let auto = GroundTruth::from_keys(&keys, Some(universe), None).unwrap();
        prop_assert_eq!(auto.stats().oracle, Oracle::Bitmap);
        check(&auto, &keys);
        let hash = GroundTruth::from_keys(&keys, None, None).unwrap();
        prop_assert_eq!(hash.stats().oracle, Oracle::HashSet);
        check(&hash, &keys);
        prop_assert_eq!(auto.label_words(), hash.label_words());
    }

    /// Arbitrary 64-bit keys (the replay case) through the hash set.
    #[test]
    fn matches_naive_on_wide_keys(keys in prop::collection::vec(prop::sample::select(vec![0u64, 1, u64::MAX, 1 << 63, 12345]), 0..500)) {
        check(&GroundTruth::from_keys(&keys, None, None).unwrap(), &keys);
    }
}

#[test]
fn bitmap_and_hash_set_oracles_agree_on_streams() {
    for spec in [
        StreamSpec::Uniform {
            n: 1_000_000,
            universe: None,
            distinct_fraction: Some(0.6),
            seed: 1,
        },
        StreamSpec::Zipf {
            n: 300_000,
            universe: 100_000,
            s: 1.1,
            seed: 2,
        },
        StreamSpec::ZipfDrift {
            n: 300_000,
            universe: 100_000,
            s: 1.1,
            period: 10_000,
            shift: 1_000,
            seed: 2,
        },
    ] {
        let a = GroundTruth::compute_with(&spec, Some(Oracle::Bitmap)).unwrap();
        let b = GroundTruth::compute_with(&spec, Some(Oracle::HashSet)).unwrap();
        assert_eq!(a.stats().oracle, Oracle::Bitmap);
        assert_eq!(b.stats().oracle, Oracle::HashSet);
        assert!(a.label_words() == b.label_words(), "{}", spec.describe());
        let (sa, mut sb) = (a.stats().clone(), b.stats().clone());
        sb.oracle = Oracle::Bitmap;
        assert_eq!(sa, sb);
        assert_eq!(
            GroundTruth::compute(&spec).unwrap().stats().oracle,
            Oracle::Bitmap
        );
    }
}

#[test]
fn bitmap_needs_a_universe() {
    let spec = StreamSpec::deng_fig6_poisson(0.5, 10.0, 0).scaled(256);
    assert!(GroundTruth::compute_with(&spec, Some(Oracle::Bitmap)).is_err());
    assert!(GroundTruth::from_keys(&[5, 6], Some(3), Some(Oracle::Bitmap)).is_err()); // key ≥ U
}

#[test]
fn uniform_stream_matches_naive_exactly() {
    let spec = StreamSpec::Uniform {
        n: 200_000,
        universe: Some(50_000),
        distinct_fraction: None,
        seed: 9,
    };
    let t = GroundTruth::compute(&spec).unwrap();
    assert_eq!(t.stats().gap_sample_rate, 1.0);
    check(&t, &collect_keys(&spec).unwrap());
}

/// More distinct keys than half the gap table: gaps are sampled, exactly for the sampled keys.
#[test]
fn sampled_gap_histogram_is_exact_for_the_sampled_keys() {
    let spec = StreamSpec::Uniform {
        n: 300_000,
        universe: Some(600_000),
        distinct_fraction: None,
        seed: 4,
    };
    let t = GroundTruth::compute(&spec).unwrap();
    // min(N, U) = 3e5: 3e5 / 2 > 2^17 = half the table cap ≥ 3e5 / 4.
    assert_eq!(t.stats().gap_sample_rate, 0.25);
    check(&t, &collect_keys(&spec).unwrap());
}

struct Slice<'a>(&'a [u64]);

impl KeyStream for Slice<'_> {
    fn fill(&mut self, buf: &mut [u64]) -> dupstream_streams::Result<usize> {
        let k = buf.len().min(self.0.len());
        buf[..k].copy_from_slice(&self.0[..k]);
        self.0 = &self.0[k..];
        Ok(k)
    }
}

/// The adaptive path: an unknown length (replay-like) starts exact and raises the level when
/// the table fills; the result is then exact for the keys of the final level.
#[test]
fn gap_sampling_level_rises_when_the_table_fills() {
    let n = 400_000u64;
    // 300k distinct keys (more than the table's 2^18, fewer than twice that), then repeats.
    let keys: Vec<u64> = (0..n)
        .map(|i| dupstream_core::hash::mix64(i % 300_000))
        .collect();
    let mut stream = Slice(&keys);
    let t = GroundTruth::from_stream(&mut stream, None, None, None).unwrap();
    assert_eq!(t.stats().gap_sample_rate, 0.5);
    check(&t, &keys);
}

#[test]
fn deng_stream_duplicates_are_frequent_family_only() {
    let spec = StreamSpec::deng_fig6_b_model(0.7, 1e3, 3).scaled(16);
    let keys = collect_keys(&spec).unwrap();
    let t = GroundTruth::compute(&spec).unwrap();
    assert_eq!(t.stats().oracle, Oracle::HashSet);
    let distinct_freq: HashSet<u64> = keys.iter().filter_map(|&k| frequent_index(k)).collect();
    let others = keys
        .iter()
        .filter(|&&k| frequent_index(k).is_none())
        .count() as u64;
    assert_eq!(t.stats().distinct, others + distinct_freq.len() as u64);
    for (i, &k) in keys.iter().enumerate() {
        if frequent_index(k).is_none() {
            assert!(!t.is_duplicate(i as u64));
        }
    }
}

/// The full Fig. 6 stream (2^24 elements) labels quickly; duplicates fall as u grows (§5.1:
/// "increasing u ... the number of distinct elements in the set of frequent elements is
/// increased").
#[test]
#[ignore = "slow: labels four 2^24-element Fig. 6 streams (~0.3 GB each)"]
fn fig6_streams_label_and_duplicates_fall_with_u() {
    let mut last = u64::MAX;
    for u in [1e3, 1e4, 1e5, 1e6] {
        let t = GroundTruth::compute(&StreamSpec::deng_fig6_b_model(0.7, u, 1)).unwrap();
        let dups = t.len() - t.stats().distinct;
        eprintln!(
            "u = {u}: {dups} duplicates, distinct fraction {:.4}",
            t.stats().distinct_fraction
        );
        assert!(dups < last);
        last = dups;
    }
}
