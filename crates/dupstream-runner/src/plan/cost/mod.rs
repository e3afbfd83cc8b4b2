//! The one cost model: estimated time and memory of cells, ground truths, runs and shards.
//! `dupstream run` prints it, `dupstream estimate` sums it, the shard split balances by it and
//! Slurm requests memory by it.
//!
//! **Time**, single-threaded CPU time, per element, from measurements on the machine (a loaded
//! machine's wall time is longer by its load):
//! - a cell: the runner's own loop on the stream's kind ([`StreamCost::cell_ns`]: generate the
//!   key, hash it, score the verdict against the labels; a window's second scoring
//!   [`WINDOW_CELL_NS`]) plus the structure's step
//!   ([`StructureSpec::step_ns`](crate::plan::StructureSpec): the filters crate's roofline
//!   calibration, `dupstream_filters::calibration`, at the cell's memory size, interpolated in
//!   `log(bits)`, and at the stream's fraction of duplicates ([`costed_duplicates`]);
//!   relocations of a saturated cuckoo filter included);
//! - a stream's ground truth: generating the stream ([`StreamCost::generate_ns`]) plus its
//!   oracle's labelling at the oracle's size ([`oracle_ns`]: [`BITMAP`] or [`HASH_SET`],
//!   interpolated in `log(bits)` between the sizes measured); a windowed truth generates the
//!   stream again and adds [`WINDOW_TRUTH_NS`];
//! - a stream whose generation is dear ([`HOLD_MIN_GENERATE_NS`]: replays and Zipf streams) is
//!   read once more and held in memory for its cells ([`holds_keys`]): its truth adds that
//!   pass, and its cells' loop is the table's `cell_ns`, which the calibration measures on the
//!   held keys;
//! - a run's fixed part, once per run (or shard): starting the binary, planning, and writing
//!   the results directory ([`RUN_FIXED_SECS`]), and each cell's ([`CELL_FIXED_SECS`]:
//!   building its structure, writing its rows and its record), both from the wall time of
//!   small experiments' runs.
//!
//! The stream and truth figures come from `benches/calibrate.rs` (`just calibrate`, which
//! rewrites `plan/calibration_table.rs`), the structures' from the filters crate's
//! `just roofline`; both tables name the machine and its load average. A stream kind the table
//! lacks is costed as `uniform`, except `zipf_drift`, costed from `zipf`'s row
//! ([`ZIPF_DRIFT_OVER_ZIPF`]) until the table is recalibrated. A replay declares no length:
//! cells and ground truth alike count it as [`UNKNOWN_LEN`] elements.
//!
//! **Memory**: the ground truth of the largest stream, plus `threads` of the largest
//! structures on it, plus batch buffers.

use crate::plan::{Cell, Experiment};
use dupstream_streams::{GroundTruth, Oracle, StreamSpec, WindowTruth};
use std::collections::BTreeSet;

/// What a stream kind costs per element, single-threaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamCost {
    /// The kind's name (`StreamSpec::kind`).
    pub kind: &'static str,
    /// ns per element of generating (or reading) the keys alone.
    pub generate_ns: f64,
    /// ns per element of a cell's loop with a structure that does nothing: generate, hash,
    /// score against the labels.
    pub cell_ns: f64,
}

/// What a ground-truth oracle adds per element to generating the stream, measured at three
/// oracle sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OracleCost {
    /// The oracle's sizes in bits, increasing.
    pub bits: [u64; 3],
    /// ns per element at those sizes.
    pub ns: [f64; 3],
}

/// The generated table (`just calibrate-streams`), in a module of its own so that one `allow` covers it:
/// a measured figure can fall on 3.14 or 6.28, which clippy would take for an approximate π.
#[allow(clippy::approx_constant)]
mod table {
    #[allow(unused_imports)]
    use super::*;
    include!("../calibration_table.rs");
}
pub use table::*;

/// ns per element that arrival times (`[stream] time`) add to a pass over the stream (each cell,
/// and the time-window truth): the `timed` bench's `mmpp` clock against `generate`'s
/// `uniform_d0.15` in the same run (`cargo bench -p dupstream-streams -- generate timed`: 12.1
/// against 2.7 ns per element, so the clock costs 3.5 uniform generations), times the table's
/// uniform `generate_ns`. A log's own times are costed alike.
pub const TIMES_NS: f64 = 3.5 * 1.04;

/// Length assumed for streams that do not declare one (replays).
pub const UNKNOWN_LEN: u64 = 1 << 24;
/// Elements handled per batch by a cell (its buffers are part of the memory estimate).
pub const BATCH: usize = 1 << 14;

/// A stream kind whose generation takes at least this many ns per element (in the calibration
/// table) is *dear*: replays and Zipf streams, 18–26 ns per element against 0.9–4.4 for the
/// others. Reading a held key costs under a nanosecond.
pub const HOLD_MIN_GENERATE_NS: f64 = 10.0;
/// The most a stream's held keys (and times) may take; a longer stream is read again by each
/// cell. 512 MiB: 2^26 keys, or 2^25 timed keys.
pub const HOLD_MAX_BYTES: u64 = 512 << 20;

/// Bytes a held element takes: its key, and its time for a timestamped stream.
pub fn held_bytes_per_element(case: &crate::plan::StreamCase) -> u64 {
    if case.time.is_some() { 16 } else { 8 }
}

/// Whether `spec`'s kind is dear to generate ([`HOLD_MIN_GENERATE_NS`]).
fn dear(spec: &StreamSpec) -> bool {
    stream_cost(spec).generate_ns >= HOLD_MIN_GENERATE_NS
}

/// Whether stream `case` can be held: a dear kind whose declared length fits in
/// [`HOLD_MAX_BYTES`] (a replay, of unknown length, is tried: read past the bound, it is let
/// go and each cell reads the file). The calibration measures a dear kind's `cell_ns` on held
/// keys.
pub fn holdable(case: &crate::plan::StreamCase) -> bool {
    dear(&case.spec)
        && case
            .spec
            .declared_len()
            .is_none_or(|n| n.saturating_mul(held_bytes_per_element(case)) <= HOLD_MAX_BYTES)
}

/// Whether a run of `exp` holds stream `stream`'s keys in memory for its cells: it is
/// [`holdable`] and at least two cells read it (for one, the held pass would only replace the
/// cell's own).
pub fn holds_keys(exp: &Experiment, stream: usize) -> bool {
    holdable(&exp.streams[stream])
        && exp
            .cells
            .iter()
            .filter(|c| c.stream == stream)
            .nth(1)
            .is_some()
}

/// Bytes a held stream may take: its length (declared, else estimated from a replay's file
/// size) times [`held_bytes_per_element`], at most [`HOLD_MAX_BYTES`].
fn held_bytes(case: &crate::plan::StreamCase) -> u64 {
    let n = case
        .spec
        .declared_len()
        .unwrap_or_else(|| dupstream_streams::replay_len_estimate(&case.spec));
    n.saturating_mul(held_bytes_per_element(case))
        .min(HOLD_MAX_BYTES)
}

/// The elements a stream is costed at: its declared length, or [`UNKNOWN_LEN`].
pub fn stream_len(spec: &StreamSpec) -> u64 {
    spec.declared_len().unwrap_or(UNKNOWN_LEN)
}

/// The calibrated cost of `spec`'s kind; `uniform`'s for a kind the table lacks.
pub fn stream_cost(spec: &StreamSpec) -> StreamCost {
    stream_cost_in(STREAMS, spec.kind())
}

/// A drifting Zipf stream's generation time per element against a plain Zipf stream's, for a
/// calibration table without a `zipf_drift` row (the table was last calibrated before the kind
/// existed; `just calibrate` measures it). Measured by generating both (`N = 2·10^6`,
/// `U = N/10`, `s = 1.1`, the drift's period `N/100` and shift `N/1000`) alternately 15 times
/// in one release process and taking each one's fastest: 1.14 and 1.22 in two runs on a loaded
/// 2-core machine (the streams bench, `cargo bench -p dupstream-streams -- generate`, has both
/// as `zipf_s1.1` and `zipf_drift_s1.1`, but its 3 samples were too noisy under that load).
pub const ZIPF_DRIFT_OVER_ZIPF: f64 = 1.2;

fn stream_cost_in(table: &[StreamCost], kind: &str) -> StreamCost {
    let find = |kind: &str| table.iter().find(|s| s.kind == kind);
    if let Some(cost) = find(kind) {
        return *cost;
    }
    if kind == "zipf_drift"
        && let Some(zipf) = find("zipf")
    {
        // Not calibrated: zipf's figures, generation times the measured ratio.
        let extra = zipf.generate_ns * (ZIPF_DRIFT_OVER_ZIPF - 1.0);
        return StreamCost {
            kind: "zipf_drift",
            generate_ns: zipf.generate_ns + extra,
            cell_ns: zipf.cell_ns + extra,
        };
    }
    *find("uniform").expect("the calibration table has a uniform row")
}

/// ns per element the ground truth's oracle adds to generating the stream: the bitmap's or the
/// hash set's labelling ([`BITMAP`], [`HASH_SET`]) at the oracle's size in bits (the
/// universe for the bitmap, the pre-sized table for the hash set).
pub fn oracle_ns(spec: &StreamSpec) -> f64 {
    let bits = GroundTruth::oracle_bytes_estimate(spec).saturating_mul(8);
    let cost = match GroundTruth::planned_oracle(spec) {
        Oracle::Bitmap => BITMAP,
        Oracle::HashSet => HASH_SET,
    };
    dupstream_filters::calibration::interpolate_log(bits, &cost.bits, &cost.ns)
}

/// The universe a stream's cells are costed on (a saturating cuckoo filter's relocations
/// depend on it): for a stream whose distinct fraction is costed
/// ([`costed_distinct_fraction`]), the uniform universe that gives as many distinct keys;
/// else the declared universe, or the stream's length.
fn costed_universe(spec: &StreamSpec) -> u64 {
    let n = stream_len(spec);
    match costed_distinct_fraction(spec) {
        Some(d) => {
            dupstream_streams::uniform::universe_for_distinct_fraction(n, d).unwrap_or(1 << 62)
        }
        None => spec.universe().unwrap_or(n),
    }
}

/// The expected fraction of distinct keys of a stream whose spec gives no closed form: a Deng
/// stream ([`deng_distinct`]), a Zipf stream ([`zipf_distinct`]; a drifting one as its plain
/// Zipf, which it exceeds), a replay from its first keys ([`replay_distinct_fraction`]);
/// `None` for the others (uniform and shuffled streams declare it).
pub fn costed_distinct_fraction(spec: &StreamSpec) -> Option<f64> {
    let per = |d: f64, n: u64| d / n.max(1) as f64;
    match *spec {
        StreamSpec::DengPoisson { n, lambda, u, .. } => {
            Some(per(deng_distinct(n, lambda * n as f64, u), n))
        }
        StreamSpec::DengBModel { n, v, u, .. } => {
            Some(per(deng_distinct(n, (v * n as f64).round(), u), n))
        }
        StreamSpec::Zipf { n, universe, s, .. } | StreamSpec::ZipfDrift { n, universe, s, .. } => {
            remembered(format!("zipf {n} {universe} {s}"), || {
                Some(per(zipf_distinct(n, universe, s), n))
            })
        }
        _ => replay_distinct_fraction(spec),
    }
}

/// `f`'s value for `key`, computed once per process (the cost model prices every cell).
fn remembered(key: String, f: impl FnOnce() -> Option<f64>) -> Option<f64> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<String, Option<f64>>>> = OnceLock::new();
    let mut seen = SEEN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    *seen.entry(key).or_insert_with(f)
}

/// Expected distinct keys among `n` draws of a Zipf stream over `universe` ranks of exponent
/// `s`: `Σ_r 1 − e^{−n·p_r}`, `p_r = r^{−s}/H`, summed over the first 10^4 ranks and, beyond,
/// integrated (Simpson's rule in `ln r`, 4,096 intervals; `H`'s tail in closed form).
pub fn zipf_distinct(n: u64, universe: u64, s: f64) -> f64 {
    const HEAD: u64 = 10_000;
    let (n, u, k) = (n as f64, universe as f64, universe.min(HEAD));
    let from = k as f64 + 0.5;
    let tail_h = if universe <= HEAD {
        0.0
    } else if (s - 1.0).abs() < 1e-12 {
        ((u + 0.5) / from).ln()
    } else {
        ((u + 0.5).powf(1.0 - s) - from.powf(1.0 - s)) / (1.0 - s)
    };
    let h = (1..=k).map(|r| (r as f64).powf(-s)).sum::<f64>() + tail_h;
    let seen = |x: f64| -(-n * x.powf(-s) / h).exp_m1();
    let mut d: f64 = (1..=k).map(|r| seen(r as f64)).sum();
    if universe > HEAD {
        const M: u32 = 4096;
        let (a, b) = (from.ln(), (u + 0.5).ln());
        let step = (b - a) / f64::from(M);
        let f = |t: f64| seen(t.exp()) * t.exp();
        let inner: f64 = (1..M)
            .map(|i| f(a + f64::from(i) * step) * if i % 2 == 1 { 4.0 } else { 2.0 })
            .sum();
        d += (f(a) + f(b) + inner) * step / 3.0;
    }
    d
}

/// Expected distinct keys of a Deng stream of `n` elements, `frequent` of them arrivals of the
/// frequent integer renamed to `⌊X⌋`, `X ~ Exp` of mean `u` (`dupstream_streams::deng`): the
/// other `n − frequent` are distinct, and number `i` (probability `q_i = (1 − r)·r^i`,
/// `r = e^{−1/u}`) appears with probability `1 − (1 − q_i)^F ≈ 1 − e^{−F·q_i}`. The sum over
/// `i` is taken as its integral, `u·Ein(F·(1 − r))` (`Ein(a) = ∫₀^a (1 − e^{−y})/y dy`), plus
/// half its first term.
pub fn deng_distinct(n: u64, frequent: f64, u: f64) -> f64 {
    let f = frequent.clamp(0.0, n as f64);
    let a = f * -(-1.0 / u).exp_m1();
    (n as f64 - f) + u * ein(a) + 0.5 * -(-a).exp_m1()
}

/// `Ein(a) = ∫₀^a (1 − e^{−y})/y dy`: its series up to 1; above, `γ + ln a + E₁(a)` with
/// `E₁` by its continued fraction (Press et al., *Numerical Recipes*, `expint`).
fn ein(a: f64) -> f64 {
    if a <= 1.0 {
        let (mut term, mut sum) = (1.0, 0.0);
        for k in 1..60 {
            let k = f64::from(k);
            term *= -a / k;
            sum -= term / k;
        }
        return sum;
    }
    let (mut b, mut c, mut d) = (a + 1.0, 1e300, 1.0 / (a + 1.0));
    let mut h = d;
    for i in 1..200 {
        let an = -f64::from(i) * f64::from(i);
        b += 2.0;
        d = 1.0 / (an * d + b);
        c = b + an / c;
        let step = c * d;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    0.577_215_664_901_532_9 + a.ln() + h * (-a).exp()
}

/// The fraction of duplicates a stream's cells are costed at (a structure may do less for a
/// duplicate: `dupstream_filters::calibration::ratio_at_dup`): the spec's expected fraction
/// where it tells one, else the costed one ([`costed_distinct_fraction`]), else the roofline
/// benchmark's first stream's
/// ([`DUP_LOW`](dupstream_filters::calibration::DUP_LOW)).
pub fn costed_duplicates(spec: &StreamSpec) -> f64 {
    spec.expected_duplicate_fraction()
        .or_else(|| costed_distinct_fraction(spec).map(|d| 1.0 - d))
        .unwrap_or(dupstream_filters::calibration::DUP_LOW)
}

/// Keys of a replay read to learn its distinct fraction ([`replay_distinct_fraction`]).
pub const REPLAY_SAMPLE: u64 = 1 << 20;

/// The fraction of distinct keys among a replay's first [`REPLAY_SAMPLE`] keys (all of a
/// shorter one: real traces run from 9 % to 38 % distinct, where no spec tells it), read once
/// per stream and remembered for the process; `None` for other kinds, or a file that cannot be
/// read (the run itself then says why). A longer replay's prefix repeats less than the whole.
pub fn replay_distinct_fraction(spec: &StreamSpec) -> Option<f64> {
    if spec.kind() != "replay" {
        return None;
    }
    remembered(format!("{spec:?}"), || {
        let mut stream = spec.open().ok()?;
        let mut keys = vec![0u64; BATCH];
        let (mut set, mut n) = (std::collections::HashSet::<u64>::new(), 0u64);
        while n < REPLAY_SAMPLE {
            let want = ((REPLAY_SAMPLE - n) as usize).min(BATCH);
            let got = stream.fill(&mut keys[..want]).ok()?;
            if got == 0 {
                break;
            }
            set.extend(&keys[..got]);
            n += got as u64;
        }
        (n > 0).then(|| set.len() as f64 / n as f64)
    })
}

/// Estimated single-thread seconds of one cell: its fixed part ([`CELL_FIXED_SECS`]) and its
/// work on the stream ([`cell_work_secs`]).
pub fn cell_secs(exp: &Experiment, cell: &Cell) -> f64 {
    CELL_FIXED_SECS + cell_work_secs(exp, cell)
}

/// The fixed parts of a run of `exp`'s cells, in wall seconds on one thread: the run's and
/// each cell's (starting, writing files), which CPU time does not show.
pub fn fixed_secs(exp: &Experiment) -> f64 {
    RUN_FIXED_SECS + exp.cells.len() as f64 * CELL_FIXED_SECS
}

/// Estimated single-thread seconds of one cell's work on its stream (what its measured wall
/// time covers): the runner's loop and the structure's step per element.
pub fn cell_work_secs(exp: &Experiment, cell: &Cell) -> f64 {
    let case = &exp.streams[cell.stream];
    let spec = &case.spec;
    let n = stream_len(spec);
    let window = if exp.windowed() { WINDOW_CELL_NS } else { 0.0 };
    // Held keys come with their times; a dear kind's `cell_ns` is measured on held keys, so a
    // cell that reads such a stream itself adds its generation.
    let held = holds_keys(exp, cell.stream);
    let times = if case.time.is_some() && !held {
        TIMES_NS
    } else {
        0.0
    };
    let reading = if dear(spec) && !held {
        stream_cost(spec).generate_ns
    } else {
        0.0
    };
    let runner = stream_cost(spec).cell_ns + window + times + reading;
    let step = cell.filter.step_ns(
        cell.budget_bits,
        n,
        costed_universe(spec),
        costed_duplicates(spec),
    );
    n as f64 * (runner + step) * 1e-9
}

/// Estimated seconds of a stream's ground truth, paid once by every run (or shard) with cells
/// on it.
pub fn truth_secs(exp: &Experiment, stream: usize) -> f64 {
    let case = &exp.streams[stream];
    let spec = &case.spec;
    let generate = stream_cost(spec).generate_ns;
    let mut ns = generate + oracle_ns(spec);
    if holds_keys(exp, stream) {
        // The pass that reads the keys (and times) to hold.
        ns += generate + if case.time.is_some() { TIMES_NS } else { 0.0 };
    }
    if exp.windowed() {
        // A second pass over the stream with the windowed oracle (with its times for a time
        // window).
        ns += generate + WINDOW_TRUTH_NS;
        if exp.window_seconds.is_some() {
            ns += TIMES_NS;
        }
    }
    stream_len(spec) as f64 * ns * 1e-9
}

/// Estimated single-thread seconds of a set of cells, ground truths included.
pub fn cells_secs(exp: &Experiment, cells: &[usize]) -> f64 {
    let streams: BTreeSet<usize> = cells.iter().map(|&i| exp.cells[i].stream).collect();
    cells
        .iter()
        .map(|&i| cell_secs(exp, &exp.cells[i]))
        .sum::<f64>()
        + streams.iter().map(|&s| truth_secs(exp, s)).sum::<f64>()
}

/// The estimated time of a run on `threads` threads, as [`crate::execute`] runs it: stream by
/// stream, the ground truth, then the stream's cells shared by the threads (never less than
/// its longest cell); plus the run's fixed part ([`RUN_FIXED_SECS`]).
pub fn run_secs(exp: &Experiment, threads: usize) -> f64 {
    let threads = threads.max(1) as f64;
    RUN_FIXED_SECS
        + (0..exp.streams.len())
            .map(|s| {
                let cells: Vec<f64> = exp
                    .cells
                    .iter()
                    .filter(|c| c.stream == s)
                    .map(|c| cell_secs(exp, c))
                    .collect();
                if cells.is_empty() {
                    return 0.0;
                }
                let longest = cells.iter().copied().fold(0.0, f64::max);
                truth_secs(exp, s) + (cells.iter().sum::<f64>() / threads).max(longest)
            })
            .sum::<f64>()
}

/// Whether some stream of the experiment is costed at the assumed [`UNKNOWN_LEN`].
pub fn has_unknown_len(exp: &Experiment) -> bool {
    exp.streams.iter().any(|s| s.spec.declared_len().is_none())
}

/// Peak memory (bytes) of running the experiment's cells on `threads` threads: per stream, its
/// ground truth and its held keys ([`holds_keys`]) plus the `threads` largest structures on it plus batch buffers; the largest
/// over the streams. Streams without cells (in a shard) cost nothing.
pub fn peak_bytes(exp: &Experiment, threads: usize) -> u64 {
    let mut peak = 0u64;
    for (si, case) in exp.streams.iter().enumerate() {
        let distinct_hint = distinct_hint(&case.spec);
        let mut filters: Vec<u64> = exp
            .cells
            .iter()
            .filter(|c| c.stream == si)
            .map(|c| c.filter.heap_bytes_estimate(c.budget_bits, distinct_hint))
            .collect();
        if filters.is_empty() {
            continue;
        }
        filters.sort_unstable_by(|a, b| b.cmp(a));
        let gt = GroundTruth::heap_bytes_estimate(&case.spec)
            + match (exp.window, exp.window_seconds) {
                (Some(w), _) => WindowTruth::heap_bytes_estimate(&case.spec, w),
                // A time window's table: as for a window the stream's length (the dense
                // table's slots are then counted at 4 bytes where a time takes 8).
                (None, Some(_)) => WindowTruth::heap_bytes_estimate(
                    &case.spec,
                    case.spec.declared_len().unwrap_or(UNKNOWN_LEN),
                ),
                (None, None) => 0,
            };
        let held = if holds_keys(exp, si) {
            held_bytes(case)
        } else {
            0
        };
        let gt = gt + held;
        let running: u64 = filters.iter().take(threads).sum();
        let buffers = threads as u64 * (BATCH as u64 * 17) + (64 << 20);
        peak = peak.max(gt + running + buffers);
    }
    peak
}

/// Peak memory of running only `cells` (a shard).
pub fn cells_peak_bytes(exp: &Experiment, cells: &[usize], threads: usize) -> u64 {
    if cells.is_empty() {
        return 0;
    }
    peak_bytes(&exp.restrict(cells), threads)
}

fn distinct_hint(spec: &StreamSpec) -> u64 {
    spec.universe().or(spec.declared_len()).unwrap_or(1 << 26)
}

#[cfg(test)]
mod tests;
