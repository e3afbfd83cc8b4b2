//! The runner's share of the cost model's calibration (`src/plan/cost/mod.rs`), in thread CPU time
//! on one thread:
//! - per stream kind, ns per element of generating the keys alone, and of a cell's own loop
//!   (`execute::cell::run` with a structure that does nothing: generate, hash, score the
//!   verdicts against the labels);
//! - the ground-truth oracles' ns per element beyond generating the stream, each at three
//!   sizes (the bitmap by universe, the hash set by table size);
//! - the windowed truth's ns per element beyond generating, and a cell's windowed scoring;
//! - a run's fixed part and each cell's, in wall time: starting the `dupstream` binary,
//!   planning, and writing the results directory (tables, charts, manifest, each file
//!   synced), from the medians of [`ROUNDS`] runs of two small experiments of 6 and 192 cells
//!   on one stream whose cells take well under a millisecond ([`fixed_experiment`]).
//!
//! The structures' own cost is the filters crate's roofline (`just roofline`).
//!
//! ```text
//! cargo bench -p dupstream-runner --bench calibrate            # print the figures
//! just calibrate                                               # roofline + this, both tables written
//! ```
//!
//! `--write PATH` also writes the table (`src/plan/calibration_table.rs`).

use dupstream_filters::{DuplicateFilter, Occupancy, OccupancyKind, Param};
use dupstream_runner::execute::{Cancel, Progress, cell, truth};
use dupstream_runner::plan::{self, CustomStructure, Experiment, Registry};
use dupstream_runner::record::Machine;
use dupstream_streams::{GroundTruth, Oracle, StreamSpec, WindowTruth};
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::path::Path;

/// Elements of each stream-kind measurement.
const N: u64 = 1 << 21;
/// Rounds per figure (the median is kept).
const ROUNDS: usize = 5;
/// The window of the windowed measurements (the leaderboard's smaller one).
const WINDOW: u64 = 65_536;
/// Batch of the generation loop (the cell's).
const BATCH: usize = 1 << 14;

/// The experiment timed for a run's fixed part: `configs` configurations each of a Bloom
/// filter (`k`) and an SBF (`P`) at three memory sizes on one stream of 4,096 elements with a
/// checkpoint every 512, so that the results directory holds what a small paper experiment's
/// does (the table, rates against memory and against the stream's length, the Pareto charts;
/// as many charts whatever `configs` is, each with more series). Its stream and cells take
/// well under a millisecond.
fn fixed_experiment(configs: usize) -> String {
    let list = |from: usize| -> String {
        (from..from + configs)
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "name = \"calibrate-fixed\"\ndescription = \"a run's fixed part\"\n[stream]\nkind = \"uniform\"\nn = 4096\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"256B\", \"1KB\", \"4KB\"]\n[metrics]\ncheckpoints = 8\n[[algorithm]]\nname = \"bloom\"\nk = [{}]\n[[algorithm]]\nname = \"sbf\"\np = [{}]\n",
        list(1),
        list(1)
    )
}

/// Configurations per structure of the small and the large fixed-part experiments
/// ([`fixed_experiment`]).
const FIXED_CONFIGS: [usize; 2] = [1, 32];

/// Median wall seconds of running `experiment` with the `dupstream` binary on one thread, from
/// its start to its exit, into a fresh directory each time.
fn run_wall_secs(experiment: &str) -> f64 {
    let dir =
        std::env::temp_dir().join(format!("dupstream-calibrate-fixed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let file = dir.join("fixed.toml");
    std::fs::write(&file, experiment).expect("experiment file");
    let mut v: Vec<f64> = (0..ROUNDS)
        .map(|round| {
            let t0 = std::time::Instant::now();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_dupstream"))
                .arg("run")
                .arg(&file)
                .arg("--threads")
                .arg("1")
                .arg("--quiet")
                .arg("--out")
                .arg(dir.join(format!("run-{round}")))
                .output()
                .expect("dupstream runs");
            assert!(
                out.status.success(),
                "the fixed-part run failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            t0.elapsed().as_secs_f64()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A run's fixed part and each cell's, in wall seconds on one thread: the small experiment's
/// time less its cells' share, and the difference between the two experiments per cell.
fn run_fixed_secs(registry: &Registry) -> (f64, f64) {
    let [small, large] = FIXED_CONFIGS.map(fixed_experiment);
    let cells = |text: &str| {
        plan::parse_with(Path::new("fixed.toml"), text, None, registry)
            .unwrap_or_else(|e| panic!("fixed-part experiment: {e}"))
            .cells
            .len() as f64
    };
    let (cells_small, cells_large) = (cells(&small), cells(&large));
    let (small, large) = (run_wall_secs(&small), run_wall_secs(&large));
    let per_cell = ((large - small) / (cells_large - cells_small)).max(0.0);
    ((small - per_cell * cells_small).max(0.0), per_cell)
}

/// A structure that does nothing: every element UNSEEN, no state.
#[derive(Debug)]
struct Nothing;

impl DuplicateFilter for Nothing {
    fn step(&mut self, _hash: u64) -> bool {
        false
    }
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        out[..hashes.len()].fill(false);
    }
    fn memory_bits(&self) -> u64 {
        64
    }
    fn name(&self) -> &'static str {
        "nothing"
    }
    fn params(&self) -> Vec<Param> {
        Vec::new()
    }
    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::Load,
            value: 0.0,
        }
    }
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

/// The thread's CPU time in ns (Linux), so that time a loaded machine spends running other
/// processes is not counted; wall time since the first call elsewhere.
fn cpu_ns() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
    }
    #[cfg(not(target_os = "linux"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
            * 1e9
    }
}

/// Median over [`ROUNDS`] of `f`'s ns per element, `f` returning the elements it handled.
fn per_element(mut f: impl FnMut() -> u64) -> f64 {
    let mut v: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t0 = cpu_ns();
            let n = f();
            (cpu_ns() - t0) / n.max(1) as f64
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Generates `spec`'s keys, nothing else; returns the elements.
fn generate(spec: &StreamSpec) -> u64 {
    let mut s = spec.open().expect("stream opens");
    let mut buf = vec![0u64; BATCH];
    let mut n = 0;
    loop {
        let k = s.fill(&mut buf).expect("stream reads");
        if k == 0 {
            return n;
        }
        black_box(&buf);
        n += k as u64;
    }
}

/// An experiment of one cell of [`Nothing`] on `stream` (TOML lines), windowed or not.
fn experiment(stream: &str, window: bool, registry: &Registry) -> Experiment {
    let metrics = if window {
        format!("[metrics]\ncheckpoints = 1\nwindow = {WINDOW}\n")
    } else {
        "[metrics]\ncheckpoints = 1\n".to_string()
    };
    let text = format!(
        "name = \"calibrate\"\ndescription = \"calibration\"\n[stream]\n{stream}\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"nothing\"\n{metrics}"
    );
    plan::parse_with(Path::new("calibrate.toml"), &text, None, registry)
        .unwrap_or_else(|e| panic!("calibration experiment: {e}"))
}

/// ns per element of a cell's loop (with [`Nothing`]) on `exp`'s stream.
fn cell_ns(exp: &Experiment, progress: &Progress) -> f64 {
    // A dear kind's loop is measured on held keys, as a run of several cells reads it
    // (`cost::holdable`).
    let hold = dupstream_runner::plan::cost::holdable(&exp.streams[0]);
    let (truths, _) = truth::label(exp, 0, hold, progress, &Cancel::new()).expect("ground truth");
    let cancel = Cancel::new();
    per_element(|| {
        let (_, t) = cell::run(exp, &exp.cells[0], &truths, progress, &cancel).expect("cell runs");
        t.elements
    })
}

struct KindRow {
    kind: &'static str,
    generate_ns: f64,
    cell_ns: f64,
}

struct OracleRow {
    bits: [u64; 3],
    ns: [f64; 3],
}

/// The oracle's ns per element beyond generating, on uniform streams of `specs` (each labelled
/// by `oracle`, repeated until about 0.2 s of work), with the oracle's size in bits.
fn oracle_row(oracle: Oracle, specs: [StreamSpec; 3]) -> OracleRow {
    let mut bits = [0; 3];
    let mut ns = [0.0; 3];
    for (i, spec) in specs.iter().enumerate() {
        assert_eq!(GroundTruth::planned_oracle(spec), oracle, "{spec:?}");
        bits[i] = GroundTruth::oracle_bytes_estimate(spec) * 8;
        let n = spec.declared_len().expect("declared");
        let reps = (4_000_000 / n).max(1);
        let gen_ns = per_element(|| (0..reps).map(|_| generate(spec)).sum());
        let truth_ns = per_element(|| {
            (0..reps)
                .map(|_| {
                    let t = GroundTruth::compute_with(spec, Some(oracle)).expect("truth");
                    black_box(t.len())
                })
                .sum()
        });
        ns[i] = (truth_ns - gen_ns).max(0.0);
        println!(
            "{:<9} oracle {:>13} bits  {truth_ns:>6.1} ns per element, generating {gen_ns:>5.1}: {:>6.1} ns",
            oracle.as_str(),
            bits[i],
            ns[i]
        );
        let _ = std::io::stdout().flush();
    }
    OracleRow { bits, ns }
}

fn uniform(n: u64, universe: u64) -> StreamSpec {
    StreamSpec::Uniform {
        n,
        universe: Some(universe),
        distinct_fraction: None,
        seed: 1,
    }
}

fn main() {
    let mut write = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--write" {
            write = it.next();
        }
    }
    let (_, load_start) = machine();
    let registry = Registry::builtin().with(CustomStructure::new(
        "nothing",
        |_: &NoParams, _budget_bits, _seed| Ok::<_, String>(Nothing),
    ));
    let progress = Progress::new(0, true);

    // A replay file of URL-like lines, removed at the end.
    let replay =
        std::env::temp_dir().join(format!("dupstream-calibrate-{}.txt", std::process::id()));
    {
        let mut text = String::with_capacity(N as usize * 40);
        for i in 0..N {
            let page = dupstream_filters::hash::mix64(i) % (N / 2);
            writeln!(text, "http://www.example.org/pages/{page}.html").expect("string");
        }
        std::fs::write(&replay, text).expect("replay file");
    }
    let kinds: Vec<(&'static str, String)> = vec![
        (
            "uniform",
            format!("kind = \"uniform\"\nn = {N}\ndistinct_fraction = 0.5\nseed = 1"),
        ),
        (
            "shuffled",
            format!("kind = \"shuffled\"\nn = {N}\ndistinct_fraction = 0.5\nseed = 1"),
        ),
        (
            "zipf",
            format!("kind = \"zipf\"\nn = {N}\nuniverse = {N}\ns = 1.0\nseed = 1"),
        ),
        (
            "zipf_drift",
            format!(
                "kind = \"zipf_drift\"\nn = {N}\nuniverse = {N}\ns = 1.0\nperiod = {}\nshift = {}\nseed = 1",
                N / 100,
                N / 1000
            ),
        ),
        (
            "deng_poisson",
            format!("kind = \"deng_poisson\"\nn = {N}\nlambda = 0.1\nu = 1000.0\nseed = 1"),
        ),
        (
            "deng_b_model",
            format!(
                "kind = \"deng_b_model\"\nn = {N}\nb = 0.7\nl = 6\nv = 0.1\nu = 1000.0\nseed = 1"
            ),
        ),
        (
            "replay",
            format!(
                "kind = \"replay\"\nformat = \"lines\"\npath = {:?}",
                replay.display().to_string()
            ),
        ),
    ];
    let mut rows = Vec::new();
    for (kind, stream) in &kinds {
        let exp = experiment(stream, false, &registry);
        let spec = &exp.streams[0].spec;
        let generate_ns = per_element(|| generate(spec));
        let cell_ns = cell_ns(&exp, &progress);
        println!(
            "{kind:<13} generate {generate_ns:>6.1} ns per element, cell loop {cell_ns:>6.1} ns"
        );
        let _ = std::io::stdout().flush();
        rows.push(KindRow {
            kind,
            generate_ns,
            cell_ns,
        });
    }
    let _ = std::fs::remove_file(&replay);

    // Windowed: the truth beyond generating, and a cell's second scoring.
    let plain = experiment(&kinds[0].1, false, &registry);
    let windowed = experiment(&kinds[0].1, true, &registry);
    let spec = &plain.streams[0].spec;
    let window_truth_ns = (per_element(|| {
        let t = WindowTruth::compute(spec, WINDOW).expect("window truth");
        t.len()
    }) - rows[0].generate_ns)
        .max(0.0);
    let window_cell_ns = (cell_ns(&windowed, &progress) - cell_ns(&plain, &progress)).max(0.0);
    println!(
        "window {WINDOW}: truth {window_truth_ns:.1} ns per element beyond generating, cell scoring {window_cell_ns:.1} ns"
    );

    // Oracles: bitmaps of 2^20, 2^26 and 2^31 bits (the largest the runner plans a bitmap for
    // at this length); hash sets of 2^14, 2^20 and 2^24 buckets over a universe too large for
    // a bitmap, every key new (the table pre-sized to the length).
    let bitmap = oracle_row(
        Oracle::Bitmap,
        [
            uniform(1 << 22, 1 << 20),
            uniform(1 << 22, 1 << 26),
            uniform(1 << 22, 1 << 31),
        ],
    );
    let huge = 1u64 << 41;
    let hash_set = oracle_row(
        Oracle::HashSet,
        [
            uniform((1 << 14) * 7 / 8, huge),
            uniform((1 << 20) * 7 / 8, huge),
            uniform((1 << 24) * 7 / 8, huge),
        ],
    );

    let (run_fixed, cell_fixed) = run_fixed_secs(&registry);
    println!(
        "a run's fixed part: {run_fixed:.3} s wall; each cell's: {:.2} ms",
        cell_fixed * 1e3
    );

    if let Some(path) = write {
        let (machine, load_end) = machine();
        let header = format!(
            "// Measured on {machine}; load average (1, 5, 15 min) {load_start} at the start, {load_end} at the end.\n"
        );
        let table = render(
            &header,
            &rows,
            &bitmap,
            &hash_set,
            window_truth_ns,
            window_cell_ns,
            (run_fixed, cell_fixed),
        );
        println!("\n{table}");
        if let Err(e) = std::fs::write(&path, &table) {
            eprintln!("could not write {path}: {e} (the table is printed above)");
            std::process::exit(1);
        }
        eprintln!("wrote {path}");
    }
}

/// The machine and its load average now (1, 5, 15 minutes).
fn machine() -> (String, String) {
    let m = Machine::probe();
    let load = m.load_average.map(|l| format!("{l:.2}")).join(" ");
    let cpu = m.cpu.unwrap_or_else(|| "unknown CPU".to_string());
    (format!("{cpu}, {} cores", m.cores), load)
}

/// The table as Rust source (`include!`d by `plan/cost/mod.rs`).
fn render(
    header: &str,
    rows: &[KindRow],
    bitmap: &OracleRow,
    hash_set: &OracleRow,
    window_truth_ns: f64,
    window_cell_ns: f64,
    (run_fixed, cell_fixed): (f64, f64),
) -> String {
    let mut s = String::from(
        "// Generated by `just calibrate` (benches/calibrate.rs); do not edit by hand.\n",
    );
    s += header;
    s += "\n/// Per stream kind: ns per element of generating alone, and of a cell's loop without a structure.\n";
    let streams: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "    StreamCost {{ kind: \"{}\", generate_ns: {:.2}, cell_ns: {:.2} }},\n",
                r.kind, r.generate_ns, r.cell_ns
            )
        })
        .collect();
    s += &format!(
        "pub const STREAMS: &[StreamCost] = &[\n{}];\n",
        streams.concat()
    );
    for (doc, name, row) in [
        (
            "The bitmap oracle's ns per element beyond generating, at three universe sizes.",
            "BITMAP",
            bitmap,
        ),
        (
            "The hash-set oracle's ns per element beyond generating, at three table sizes.",
            "HASH_SET",
            hash_set,
        ),
    ] {
        writeln!(
            s,
            "\n/// {doc}\npub const {name}: OracleCost = OracleCost {{\n    bits: [{}, {}, {}],\n    ns: [{:.2}, {:.2}, {:.2}],\n}};",
            row.bits[0], row.bits[1], row.bits[2], row.ns[0], row.ns[1], row.ns[2]
        )
        .expect("string");
    }
    writeln!(
        s,
        "\n/// The windowed truth's ns per element beyond generating the stream again (window {WINDOW}).\npub const WINDOW_TRUTH_NS: f64 = {window_truth_ns:.2};"
    )
    .expect("string");
    writeln!(
        s,
        "\n/// A cell's second scoring against the windowed labels, ns per element.\npub const WINDOW_CELL_NS: f64 = {window_cell_ns:.2};"
    )
    .expect("string");
    writeln!(
        s,
        "\n/// A run's fixed part in wall seconds: starting, planning, writing the results directory.\npub const RUN_FIXED_SECS: f64 = {run_fixed:.3};"
    )
    .expect("string");
    writeln!(
        s,
        "\n/// A cell's fixed part in wall seconds: building its structure, writing its rows and its record.\npub const CELL_FIXED_SECS: f64 = {cell_fixed:.6};"
    )
    .expect("string");
    s
}
