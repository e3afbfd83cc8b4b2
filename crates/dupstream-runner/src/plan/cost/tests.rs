//! The cost model's tests.
use super::*;
use dupstream_filters::calibration::{
    DUP_HIGH, FILL_NS, LEVELS, RATIOS, interpolate_log, ratio_at_dup,
};
use std::path::Path;

fn exp_with(stream: &str, extra: &str) -> Experiment {
    let text = format!(
        "name = \"c\"\ndescription = \"d\"\n[stream]\n{stream}\n[grid]\nmemory = [\"1KB\", \"1GB\"]\n[[algorithm]]\nname = \"bloom\"\nk = 2\n{extra}"
    );
    crate::plan::parse(Path::new("c.toml"), &text, None).unwrap()
}

fn exp(stream: &str) -> Experiment {
    exp_with(stream, "")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-9)
}

/// A k=2 Bloom filter's step by hand from the filters crate's table: `ratio × limit(2
/// cells) − FILL_NS`, each of ratio and limit loop interpolated between two levels at
/// fraction `t` of the way in `log(bits)`, the ratio at duplicate fraction `dup` on the
/// line through the table's two.
fn bloom_by_hand(level: usize, t: f64, dup: f64) -> f64 {
    let row = RATIOS.iter().find(|r| r.name == "bloom").unwrap();
    let lim = |i: usize| dupstream_filters::calibration::limit_at(LEVELS[i].limit, 2.0);
    let next = (level + 1).min(LEVELS.len() - 1);
    let at = |r: &[f64]| r[level] * (1.0 - t) + r[next] * t;
    let ratio = ratio_at_dup(at(row.ratio), at(row.ratio_dup), dup);
    let limit = lim(level) * (1.0 - t) + lim(next) * t;
    ratio * limit - FILL_NS
}

#[test]
fn cells_cost_their_stream_kind_plus_the_calibrated_step() {
    let e = exp("kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5");
    let runner = stream_cost(&e.streams[0].spec).cell_ns;
    assert_eq!(stream_cost(&e.streams[0].spec).kind, "uniform");
    let dup = costed_duplicates(&e.streams[0].spec);
    assert!((dup - 0.5).abs() < 1e-6, "{dup}");
    // 1 KB (8192 bits) lies below the first level (64 Kbit): that level's figures.
    let small = cell_secs(&e, &e.cells[0]);
    assert!(close(
        small,
        CELL_FIXED_SECS + 1e6 * (runner + bloom_by_hand(0, 0.0, dup)) * 1e-9
    ));
    // 1 GB = 2^33 bits lies above the last level (512 MB): that level's figures.
    let last = LEVELS.len() - 1;
    assert_eq!(LEVELS[last].memory_bits, 1 << 32);
    let large = cell_secs(&e, &e.cells[1]);
    assert!(close(
        large,
        CELL_FIXED_SECS + 1e6 * (runner + bloom_by_hand(last, 0.0, dup)) * 1e-9
    ));
    // Half way between two levels in log(bits): both figures interpolated, then multiplied.
    let mid = ((LEVELS[0].memory_bits as f64).ln() + (LEVELS[1].memory_bits as f64).ln()) / 2.0;
    let bloom = dupstream_filters::spec::FilterSpec::Bloom(
        dupstream_filters::bloom::BloomParams::with_k(2),
    );
    let step = crate::plan::StructureSpec::step_ns(&bloom, mid.exp().round() as u64, 1, 1, dup);
    assert!((step - bloom_by_hand(0, 0.5, dup)).abs() < 1e-4);
    let total = cells_secs(&e, &[0, 1]);
    assert!(close(total, small + large + truth_secs(&e, 0)));
    assert!(!has_unknown_len(&e));
}

#[test]
fn cells_cost_their_streams_fraction_of_duplicates() {
    // A uniform stream over a universe of a tenth of its length: 1 − (1 − e^{−10})/10.
    let e = exp("kind = \"uniform\"\nn = 1_000_000\nuniverse = 100_000");
    let dup = costed_duplicates(&e.streams[0].spec);
    assert!((dup - (1.0 - (1.0 - (-10.0f64).exp()) / 10.0)).abs() < 1e-12);
    let runner = stream_cost(&e.streams[0].spec).cell_ns;
    assert!(close(
        cell_secs(&e, &e.cells[0]),
        CELL_FIXED_SECS + 1e6 * (runner + bloom_by_hand(0, 0.0, dup)) * 1e-9
    ));
    // A shuffle of 10 % distinct keys: exactly 90 % duplicates, the benchmark's second
    // stream, whose ratios the cell takes as they are.
    let e = exp("kind = \"shuffled\"\nn = 1_000_000\ndistinct_fraction = 0.1");
    let spec = &e.streams[0].spec;
    assert!((costed_duplicates(spec) - DUP_HIGH).abs() < 1e-12);
    let bloom = RATIOS.iter().find(|r| r.name == "bloom").unwrap();
    let step = bloom.ratio_dup[0] * dupstream_filters::calibration::limit_at(LEVELS[0].limit, 2.0)
        - FILL_NS;
    assert!(close(
        cell_secs(&e, &e.cells[0]),
        CELL_FIXED_SECS + 1e6 * (stream_cost(spec).cell_ns + step) * 1e-9
    ));
}

#[test]
fn a_run_is_its_truths_then_each_streams_cells_shared_by_the_threads() {
    let e = exp("kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5");
    let (small, large) = (cell_secs(&e, &e.cells[0]), cell_secs(&e, &e.cells[1]));
    let truth = truth_secs(&e, 0);
    assert!(close(
        run_secs(&e, 1),
        RUN_FIXED_SECS + truth + small + large
    ));
    // Two threads: never less than the longest cell.
    let two = RUN_FIXED_SECS + truth + ((small + large) / 2.0).max(small.max(large));
    assert!(close(run_secs(&e, 2), two));
    assert!(close(run_secs(&e, 64), two), "one thread per cell");
}

#[test]
fn the_truth_is_generating_plus_the_oracle_at_its_size() {
    // A universe of exactly the bitmap's middle size: its figure, no interpolation.
    let u = BITMAP.bits[1];
    let e = exp(&format!(
        "kind = \"uniform\"\nn = 1_000_000\nuniverse = {u}"
    ));
    let spec = &e.streams[0].spec;
    assert_eq!(GroundTruth::planned_oracle(spec), Oracle::Bitmap);
    assert!(close(oracle_ns(spec), BITMAP.ns[1]));
    let generate = stream_cost(spec).generate_ns;
    assert!(close(
        truth_secs(&e, 0),
        1e6 * (generate + BITMAP.ns[1]) * 1e-9
    ));
    // Deng & Rafiei's streams declare no universe: a hash set pre-sized to the length,
    // 14336 keys = 2^14 buckets of 9 bytes plus 16 = 1179776 bits.
    let e = exp("kind = \"deng_poisson\"\nn = 14336\nlambda = 0.1\nu = 1000.0");
    let spec = &e.streams[0].spec;
    assert_eq!(GroundTruth::planned_oracle(spec), Oracle::HashSet);
    assert_eq!(GroundTruth::oracle_bytes_estimate(spec) * 8, 1_179_776);
    let by_hand = interpolate_log(1_179_776, &HASH_SET.bits, &HASH_SET.ns);
    assert!(close(oracle_ns(spec), by_hand));
    assert_eq!(stream_cost(spec).kind, "deng_poisson");
}

#[test]
fn a_window_adds_a_second_truth_pass_and_a_second_scoring() {
    let stream = "kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5";
    let plain = exp(stream);
    let windowed = exp_with(stream, "[metrics]\nwindow = 1000\n");
    let generate = stream_cost(&plain.streams[0].spec).generate_ns;
    assert!(close(
        truth_secs(&windowed, 0),
        truth_secs(&plain, 0) + 1e6 * (generate + WINDOW_TRUTH_NS) * 1e-9
    ));
    assert!(close(
        cell_secs(&windowed, &windowed.cells[0]),
        cell_secs(&plain, &plain.cells[0]) + 1e6 * WINDOW_CELL_NS * 1e-9
    ));
}

#[test]
fn a_kind_the_table_lacks_costs_as_uniform() {
    let table = [
        StreamCost {
            kind: "uniform",
            generate_ns: 1.0,
            cell_ns: 4.0,
        },
        StreamCost {
            kind: "zipf",
            generate_ns: 20.0,
            cell_ns: 25.0,
        },
    ];
    assert_eq!(stream_cost_in(&table, "zipf"), table[1]);
    assert_eq!(stream_cost_in(&table, "shuffled"), table[0]);
    // A drifting Zipf stream without a row of its own: zipf's, generation 1.2 times.
    let drift = stream_cost_in(&table, "zipf_drift");
    assert!((drift.generate_ns - 24.0).abs() < 1e-9, "{drift:?}");
    assert!((drift.cell_ns - 29.0).abs() < 1e-9, "{drift:?}");
    let measured = StreamCost {
        kind: "zipf_drift",
        generate_ns: 30.0,
        cell_ns: 31.0,
    };
    assert_eq!(
        stream_cost_in(&[table[0], measured], "zipf_drift"),
        measured
    );
}

#[test]
fn a_replay_costs_its_assumed_length_for_cells_and_truth_alike() {
    let file = std::env::temp_dir().join(format!("dupstream-cost-{}.txt", std::process::id()));
    std::fs::write(&file, "a\n".repeat(100_000)).unwrap();
    let e = exp(&format!(
        "kind = \"replay\"\nformat = \"lines\"\npath = {:?}",
        file.display().to_string()
    ));
    let spec = e.streams[0].spec.clone();
    let oracle = oracle_ns(&spec);
    assert!(has_unknown_len(&e));
    let n = UNKNOWN_LEN as f64;
    let cost = stream_cost(&spec);
    assert_eq!(cost.kind, "replay");
    // A replay's fraction of duplicates is read from its first keys: one key, 100,000 times.
    let dup = 1.0 - 1e-5;
    assert!(close(costed_duplicates(&spec), dup));
    // Costed as 2^24 draws from as many keys as give that fraction: about 168.
    assert!((costed_universe(&spec) as f64 - 1e-5 * n).abs() <= 1.0);
    // Two cells: its keys are held for them, so the truth reads it twice and each cell
    // runs the held loop (`cell_ns`).
    assert!(holds_keys(&e, 0));
    let bloom = bloom_by_hand(0, 0.0, dup);
    let cell = CELL_FIXED_SECS + n * (cost.cell_ns + bloom) * 1e-9;
    assert!(close(cell_secs(&e, &e.cells[0]), cell));
    assert!(close(
        truth_secs(&e, 0),
        n * (2.0 * cost.generate_ns + oracle) * 1e-9
    ));
    // The held keys in the peak: the file's estimated lines (200,000 bytes at 16 a line)
    // of 8 bytes; the largest structure is the same with one cell or two.
    let one = e.restrict(&[1]);
    assert!(!holds_keys(&one, 0));
    assert_eq!(peak_bytes(&e, 1) - peak_bytes(&one, 1), 12_500 * 8);
    // One cell reads the stream itself: its loop adds the generation, the truth reads once.
    let alone = e.restrict(&[0]);
    let cell = CELL_FIXED_SECS + n * (cost.cell_ns + cost.generate_ns + bloom) * 1e-9;
    assert!(close(cell_secs(&alone, &alone.cells[0]), cell));
    assert!(close(
        truth_secs(&alone, 0),
        n * (cost.generate_ns + oracle) * 1e-9
    ));
    let _ = std::fs::remove_file(&file);
    // Cheap kinds are never held; a Zipf stream is, unless too long.
    let uniform = exp("kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5");
    assert!(!holds_keys(&uniform, 0));
    let long = exp("kind = \"zipf\"\nn = 100_000_000\nuniverse = 1000\ns = 1.1");
    let short = exp("kind = \"zipf\"\nn = 1_000_000\nuniverse = 1000\ns = 1.1");
    assert!(!holds_keys(&long, 0));
    assert!(holds_keys(&short, 0));
}

/// The expected distinct keys of a Deng stream against its ground truth's count, within
/// 1 % (a stream of 2^17 with 10 % or 30 % frequent arrivals has about 10^5 distinct keys,
/// its own spread under 0.3 %), and
/// `Ein` against a value computed independently (Ein(1) = 0.7965995992970531) and across
/// its two branches.
#[test]
fn deng_streams_are_costed_at_their_distinct_keys() {
    assert!((ein(1.0) - 0.796_599_599_297_053_1).abs() < 1e-12);
    assert!((ein(1.0 + 1e-12) - ein(1.0)).abs() < 1e-10);
    // Ein(5) = γ + ln 5 + E₁(5), E₁(5) = 0.001148295591275326.
    assert!(
        (ein(5.0) - (0.577_215_664_901_532_9 + 5f64.ln() + 0.001_148_295_591_275_326)).abs()
            < 1e-12
    );
    for text in [
        "kind = \"deng_b_model\"\nn = 131072\nb = 0.7\nl = 6\nv = 0.1\nu = 1000.0\nseed = 4",
        "kind = \"deng_b_model\"\nn = 131072\nb = 0.7\nl = 6\nv = 0.1\nu = 20.0\nseed = 4",
        "kind = \"deng_poisson\"\nn = 131072\nlambda = 0.3\nu = 300.0\nseed = 4",
        // Every element renamed: about 31,500 distinct numbers, the Ein term alone (its
        // spread about √u = 100, 0.3 %).
        "kind = \"deng_poisson\"\nn = 131072\nlambda = 1.0\nu = 10000.0\nseed = 4",
    ] {
        let e = exp(text);
        let spec = &e.streams[0].spec;
        let truth = GroundTruth::compute(spec).unwrap();
        let measured = truth.stats().distinct as f64;
        let (frequent, u) = match *spec {
            StreamSpec::DengPoisson { n, lambda, u, .. } => (lambda * n as f64, u),
            StreamSpec::DengBModel { n, v, u, .. } => ((v * n as f64).round(), u),
            _ => unreachable!(),
        };
        let expected = deng_distinct(131_072, frequent, u);
        assert!(
            (expected / measured - 1.0).abs() < 0.01,
            "{text}: {expected} against {measured}"
        );
        // The universe that gives as many distinct keys among as many uniform draws.
        let universe = costed_universe(spec);
        let d = dupstream_streams::uniform::expected_distinct_fraction(131_072, universe);
        assert!((d * 131_072.0 / expected - 1.0).abs() < 1e-3, "{text}");
    }
}

/// The expected distinct keys of a Zipf stream against its ground truth's count, within 1 %
/// (about 10^4 to 8·10^4 distinct keys: the count's own spread is under 0.5 %), with the
/// universe within the summed head and far beyond it (the integrated tail), and the costed
/// fraction of duplicates and universe that follow from it.
#[test]
fn zipf_streams_are_costed_at_their_distinct_keys() {
    for (universe, s) in [
        (8_000u64, 1.0),
        (1u64 << 20, 1.0),
        (1 << 20, 1.1),
        (1 << 22, 0.8),
    ] {
        let e = exp(&format!(
            "kind = \"zipf\"\nn = 131072\nuniverse = {universe}\ns = {s}\nseed = 9"
        ));
        let spec = &e.streams[0].spec;
        let measured = GroundTruth::compute(spec).unwrap().stats().distinct as f64;
        let expected = zipf_distinct(131_072, universe, s);
        assert!(
            (expected / measured - 1.0).abs() < 0.01,
            "U = {universe}, s = {s}: {expected} against {measured}"
        );
        assert!(close(costed_duplicates(spec), 1.0 - expected / 131_072.0));
        let d =
            dupstream_streams::uniform::expected_distinct_fraction(131_072, costed_universe(spec));
        assert!((d * 131_072.0 / expected - 1.0).abs() < 1e-3);
    }
}

#[test]
fn memory_grows_with_threads_and_shards_cost_less() {
    let e = exp("kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5");
    let one = peak_bytes(&e, 1);
    let two = peak_bytes(&e, 2);
    assert!(two > one, "{two} vs {one}");
    assert!(cells_peak_bytes(&e, &[0], 1) < one);
    assert_eq!(cells_peak_bytes(&e, &[], 4), 0);
}
