//! Timestamped streams: the arrival processes of `[stream] time` against their theory, their
//! determinism, keys unchanged by times, `--scale`, and a replayed log's own times.

use dupstream_streams::{
    BadLinePolicy, Clock, OutOfOrder, Phases, ReplayFormat, StreamSpec, TimeSpec, TimedStream,
    WindowTruth, collect_keys, open_timed,
};

use crate::common::nasa_tsv;

/// Arrivals of `clock` in `[0, horizon)`: (in bursts, in lulls).
fn counts(clock: &mut Clock, horizon: f64) -> (u64, u64) {
    let (mut burst, mut lull) = (0, 0);
    loop {
        let t = clock.next_time();
        if t >= horizon {
            return (burst, lull);
        }
        match clock.in_burst() {
            Some(true) => burst += 1,
            _ => lull += 1,
        }
    }
}

fn mmpp(rates: [f64; 2], means: [f64; 2], phases: Phases) -> TimeSpec {
    TimeSpec::Mmpp {
        burst_rate: rates[0],
        lull_rate: rates[1],
        burst_seconds: means[0],
        lull_seconds: means[1],
        phases,
    }
}

fn all_times(stream: &mut dyn TimedStream) -> (Vec<u64>, Vec<f64>) {
    let (mut keys, mut times) = (Vec::new(), Vec::new());
    let (mut kb, mut tb) = (vec![0u64; 1000], vec![0f64; 1000]);
    loop {
        let k = stream.fill_timed(&mut kb, &mut tb).unwrap();
        if k == 0 {
            return (keys, times);
        }
        keys.extend_from_slice(&kb[..k]);
        times.extend_from_slice(&tb[..k]);
    }
}

/// The two-state MMPP with exponential phases: arrivals in bursts and in lulls over `[0, T)`
/// against the Cox-process moments. With burst share `π_b = b/(b+l)`, switching rates
/// `α = 1/b`, `β = 1/l`, the time spent in bursts has mean `π_b·T` and asymptotic variance
/// `2·π_b·π_l·T/(α+β)`; arrivals in bursts `N_b` have mean `r_b·π_b·T` and variance
/// `r_b·π_b·T + r_b²·2·π_b·π_l·T/(α+β)` (likewise in lulls); all arrivals have mean
/// `λ̄·T` and variance `T·(λ̄ + 2(r_b − r_l)²·π_b·π_l/(α+β))`. Each within 5 sd.
#[test]
fn mmpp_exponential_phases_match_theory() {
    let (rb, rl, b, l) = (2000.0, 200.0, 0.5, 2.0);
    let spec = mmpp([rb, rl], [b, l], Phases::Exponential);
    let mean = spec.mean_rate().unwrap();
    assert!((mean - 560.0).abs() < 1e-9, "(2000·0.5 + 200·2)/2.5");
    let horizon = 4000.0;
    let (pb, pl) = (b / (b + l), l / (b + l));
    let s = 1.0 / b + 1.0 / l;
    let occupation_var = 2.0 * pb * pl * horizon / s;
    for seed in [1, 2] {
        let mut clock = spec.clock(seed).unwrap().unwrap();
        let (nb, nl) = counts(&mut clock, horizon);
        let check = |what: &str, got: f64, mean: f64, var: f64| {
            let z = (got - mean) / var.sqrt();
            eprintln!("mmpp seed {seed}: {what} {got} vs {mean:.0} (z = {z:.2})");
            assert!(z.abs() < 5.0, "{what}: {got} vs {mean} (z = {z:.2})");
        };
        check(
            "burst arrivals",
            nb as f64,
            rb * pb * horizon,
            rb * pb * horizon + rb * rb * occupation_var,
        );
        check(
            "lull arrivals",
            nl as f64,
            rl * pl * horizon,
            rl * pl * horizon + rl * rl * occupation_var,
        );
        check(
            "arrivals",
            (nb + nl) as f64,
            mean * horizon,
            horizon * (mean + 2.0 * (rb - rl).powi(2) * pb * pl / s),
        );
    }
}

/// Fixed phases: the time in bursts over `[0, T)` is `π_b·T` within one burst length, and the
/// arrivals in bursts are Poisson given it: within 5 sd plus `r_b·b` (and in lulls likewise).
#[test]
fn mmpp_fixed_phases_match_theory() {
    let (rb, rl, b, l) = (1000.0, 100.0, 1.0, 3.0);
    let spec = mmpp([rb, rl], [b, l], Phases::Fixed);
    let horizon = 2000.0;
    let (pb, pl) = (b / (b + l), l / (b + l));
    let mut clock = spec.clock(7).unwrap().unwrap();
    let (nb, nl) = counts(&mut clock, horizon);
    for (what, got, rate, share, len) in [("burst", nb, rb, pb, b), ("lull", nl, rl, pl, l)] {
        let mean = rate * share * horizon;
        let tol = 5.0 * mean.sqrt() + rate * len;
        eprintln!("fixed phases: {what} arrivals {got} vs {mean:.0} ± {tol:.0}");
        assert!((got as f64 - mean).abs() < tol, "{what}: {got} vs {mean}");
    }
    // The share of elements arriving in bursts: r_b·π_b / λ̄ = 250/325.
    let share = nb as f64 / (nb + nl) as f64;
    assert!((share - 250.0 / 325.0).abs() < 0.01, "{share}");
}

/// An on-off source (lull rate 0) has no arrivals in its lulls, and its gaps across a lull
/// are at least as long as the lull when phases are fixed.
#[test]
fn on_off_source_is_silent_in_lulls() {
    let spec = mmpp([500.0, 0.0], [1.0, 4.0], Phases::Fixed);
    let mut clock = spec.clock(3).unwrap().unwrap();
    let times: Vec<f64> = (0..20_000).map(|_| clock.next_time()).collect();
    let long_gaps = times.windows(2).filter(|w| w[1] - w[0] >= 4.0).count();
    // 20 000 arrivals at 500/s in 1 s bursts are about 40 cycles, each crossing a 4 s lull.
    assert!((35..=45).contains(&long_gaps), "{long_gaps}");
    let mut clock = spec.clock(3).unwrap().unwrap();
    let (_, lull) = counts(&mut clock, 100.0);
    assert_eq!(lull, 0);
}

/// Times are deterministic from the seed and non-decreasing; the keys are the untimed
/// stream's exactly.
#[test]
fn timed_streams_are_deterministic_and_keep_their_keys() {
    let stream = StreamSpec::Shuffled {
        n: 50_000,
        distinct_fraction: 0.6,
        seed: 4,
    };
    let keys = collect_keys(&stream).unwrap();
    for time in [
        TimeSpec::Even { rate: 100.0 },
        TimeSpec::Poisson { rate: 100.0 },
        mmpp([1000.0, 10.0], [2.0, 5.0], Phases::Exponential),
    ] {
        let (k1, t1) = all_times(&mut *open_timed(&stream, &time, 4).unwrap());
        let (k2, t2) = all_times(&mut *open_timed(&stream, &time, 4).unwrap());
        let (_, t3) = all_times(&mut *open_timed(&stream, &time, 5).unwrap());
        assert_eq!(k1, keys, "{time:?}: keys unchanged by times");
        assert_eq!((&k1, &t1), (&k2, &t2), "{time:?}: deterministic");
        assert!(t1.windows(2).all(|w| w[1] >= w[0]), "{time:?}");
        if !matches!(time, TimeSpec::Even { .. }) {
            assert_ne!(t1, t3, "{time:?}: the seed draws the times");
        }
    }
}

/// `--scale f` divides the phase lengths and keeps the rates: a scaled stream of `n/f`
/// elements spans as many bursts as the full one of `n`, and a window of `T/f` seconds holds
/// `1/f` of the elements of a window of `T` (by the unchanged mean rate). Bursts are counted
/// as renewal cycles of `C` elements (a burst's and a lull's Poisson counts over exponential
/// lengths: mean `μ = r_b·b + r_l·l`, variance `σ² = r_b·b + (r_b·b)² + r_l·l + (r_l·l)²`):
/// `n/μ` cycles, variance `n·σ²/μ³`, within 5 sd.
#[test]
fn scaling_shortens_phases_and_keeps_rates() {
    let full = mmpp([4000.0, 250.0], [2.0, 8.0], Phases::Exponential);
    let scaled = full.scaled(16);
    assert_eq!(scaled.mean_rate(), full.mean_rate());
    assert_eq!(
        scaled,
        mmpp([4000.0, 250.0], [0.125, 0.5], Phases::Exponential)
    );
    assert_eq!(full.scaled(1), full);
    let bursts = |spec: &TimeSpec, n: u64| {
        let mut c = spec.clock(9).unwrap().unwrap();
        let mut starts = 0;
        let mut was = c.in_burst();
        for _ in 0..n {
            c.next_time();
            let now = c.in_burst();
            starts += u64::from(now == Some(true) && was == Some(false));
            was = now;
        }
        starts as f64
    };
    let cycles = |spec: &TimeSpec, n: f64| {
        let TimeSpec::Mmpp {
            burst_rate,
            lull_rate,
            burst_seconds,
            lull_seconds,
            ..
        } = *spec
        else {
            unreachable!()
        };
        let (mb, ml) = (burst_rate * burst_seconds, lull_rate * lull_seconds);
        let (mu, var) = (mb + ml, mb + mb * mb + ml + ml * ml);
        (n / mu, n * var / mu.powi(3))
    };
    // 1_600_000 elements at scale 1 and 100_000 at scale 16: 160 cycles each.
    for (spec, n) in [(&full, 1_600_000), (&scaled, 100_000)] {
        let (mean, var) = cycles(spec, n as f64);
        assert!((mean - 160.0).abs() < 1e-9);
        let got = bursts(spec, n);
        assert!(
            (got - mean).abs() < 5.0 * var.sqrt(),
            "{got} bursts vs {mean}"
        );
    }
}

/// Bad processes are refused naming their field; a log's own times need a replay.
#[test]
fn bad_time_specs_name_their_field() {
    let stream = StreamSpec::Uniform {
        n: 100,
        universe: Some(10),
        distinct_fraction: None,
        seed: 1,
    };
    let field_of = |r: dupstream_streams::Result<()>| match r.unwrap_err() {
        dupstream_streams::Error::InvalidSpec { field, .. } => field,
        e => panic!("{e}"),
    };
    let field = |t: TimeSpec| field_of(t.validate(&stream));
    assert_eq!(field(TimeSpec::Poisson { rate: 0.0 }), "time.rate");
    assert_eq!(field(TimeSpec::Even { rate: f64::NAN }), "time.rate");
    assert_eq!(
        field(mmpp([100.0, 200.0], [1.0, 1.0], Phases::Fixed)),
        "time.lull_rate"
    );
    assert_eq!(
        field(mmpp([100.0, 1.0], [0.0, 1.0], Phases::Fixed)),
        "time.burst_seconds"
    );
    assert_eq!(
        field(TimeSpec::Log {
            column: None,
            out_of_order: OutOfOrder::Fail,
        }),
        "time.process"
    );
    let lines = StreamSpec::Replay {
        path: "x".into(),
        format: ReplayFormat::Lines,
        column: None,
        header: false,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Fail,
        offset: 0,
        limit: None,
    };
    assert!(
        TimeSpec::Log {
            column: None,
            out_of_order: OutOfOrder::Fail,
        }
        .validate(&lines)
        .is_err()
    );
    // A log's own times with bad lines skipped: the cells' timed stream would drop a line
    // with a bad time that the truths' untimed stream keeps, shifting every label after it.
    let skipping = StreamSpec::Replay {
        path: "x".into(),
        format: ReplayFormat::Clf,
        column: None,
        header: false,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Skip,
        offset: 0,
        limit: None,
    };
    assert_eq!(
        field_of(
            TimeSpec::Log {
                column: None,
                out_of_order: OutOfOrder::Fail,
            }
            .validate(&skipping)
        ),
        "bad_lines"
    );
    let parsed: TimeSpec =
        toml::from_str("process = \"mmpp\"\nburst_rate = 10.0\nlull_rate = 1.0\nburst_seconds = 1.0\nlull_seconds = 2.0\nphases = \"fixed\"").unwrap();
    assert_eq!(parsed, mmpp([10.0, 1.0], [1.0, 2.0], Phases::Fixed));
    assert!(toml::from_str::<TimeSpec>("process = \"poisson\"\nrat = 1.0").is_err());
}

/// The NASA log's own times (its `time` column, Unix seconds) label a time window; its
/// keys are the untimed replay's.
#[test]
fn nasa_log_times_label_a_time_window() {
    let Some(path) = nasa_tsv() else { return };
    let spec = StreamSpec::Replay {
        path,
        format: ReplayFormat::Tsv,
        column: Some("url".into()),
        header: true,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Fail,
        offset: 0,
        limit: None,
    };
    let time = TimeSpec::Log {
        column: Some("time".into()),
        out_of_order: OutOfOrder::Fail,
    };
    time.validate(&spec).unwrap();
    let (keys, times) = all_times(&mut *open_timed(&spec, &time, 1).unwrap());
    assert_eq!(keys, collect_keys(&spec).unwrap());
    assert_eq!(keys.len(), 30_969);
    assert!(times.windows(2).all(|w| w[1] >= w[0]));
    let streamed = WindowTruth::from_timed_stream(
        &mut *open_timed(&spec, &time, 1).unwrap(),
        None,
        None,
        60.0,
        None,
    )
    .unwrap();
    let in_memory = WindowTruth::from_timed_keys(&keys, &times, None, 60.0, None).unwrap();
    assert_eq!(streamed.label_words(), in_memory.label_words());
    assert!(streamed.stats().duplicates > 0);
}

/// A replay's `offset` skips the times of the skipped keys with them: the timed stream is the
/// untimed one's keys, each with its own line's time.
#[test]
fn an_offset_skips_the_prefix_times_too() {
    let f = crate::common::TempFile::new(
        "offset-times.csv",
        b"t,url\n10,/a\n11,/b\n12,/a\n13,/c\n14,/b\n15,/d\n",
    );
    let spec = |offset, limit| StreamSpec::Replay {
        path: f.path().to_path_buf(),
        format: ReplayFormat::Csv,
        column: Some("url".into()),
        header: true,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Fail,
        offset,
        limit,
    };
    let time = TimeSpec::Log {
        column: Some("t".into()),
        out_of_order: Default::default(),
    };
    let (all_keys, all) = all_times(&mut *open_timed(&spec(0, None), &time, 1).unwrap());
    assert_eq!(all, vec![10.0, 11.0, 12.0, 13.0, 14.0, 15.0]);
    let s = spec(2, Some(3));
    time.validate(&s).unwrap();
    let (keys, times) = all_times(&mut *open_timed(&s, &time, 1).unwrap());
    assert_eq!(times, vec![12.0, 13.0, 14.0]);
    assert_eq!(keys, all_keys[2..5]);
    assert_eq!(keys, collect_keys(&s).unwrap());
    // /a at 12 s and /b at 14 s repeat keys of the skipped prefix, which the window's truth
    // never sees: no duplicate.
    let w = WindowTruth::from_timed_keys(&keys, &times, None, 100.0, None).unwrap();
    assert_eq!(w.stats().duplicates, 0);
    // Past the end, timed or not: an error, not an empty stream.
    let mut past = open_timed(&spec(6, None), &time, 1).unwrap();
    let (mut kb, mut tb) = ([0u64; 4], [0f64; 4]);
    let err = past.fill_timed(&mut kb, &mut tb).unwrap_err().to_string();
    assert!(err.contains("leaves no key"), "{err}");
}

/// The NASA log's own times with an offset: the window's keys and times are the whole log's
/// from that key on.
#[test]
fn nasa_log_times_with_an_offset() {
    let Some(path) = nasa_tsv() else { return };
    let spec = |offset, limit| StreamSpec::Replay {
        path: path.clone(),
        format: ReplayFormat::Tsv,
        column: Some("url".into()),
        header: true,
        fingerprint_seed: 0,
        bad_lines: BadLinePolicy::Fail,
        offset,
        limit,
    };
    let time = TimeSpec::Log {
        column: Some("time".into()),
        out_of_order: Default::default(),
    };
    let (keys, times) = all_times(&mut *open_timed(&spec(0, None), &time, 1).unwrap());
    let (k, t) = all_times(&mut *open_timed(&spec(15_000, Some(5_000)), &time, 1).unwrap());
    assert_eq!(k, keys[15_000..20_000]);
    assert_eq!(t, times[15_000..20_000]);
    assert!(t[0] > times[0]);
}
