//! Running an experiment: ground truth once per stream, cells in parallel on rayon, each
//! cell's rows written atomically when it finishes.

use crate::experiment::{Cell, Experiment};
use crate::output::{self, RawRow};
use crate::progress::Progress;
use anyhow::{Context, Result, bail};
use dupstream_filters::hash::{hash_key, mix64};
use dupstream_streams::{GroundTruth, StreamSpec};
use std::path::Path;
use std::time::Instant;

/// Elements handled per batch: large enough to amortise calls, small enough for L1/L2.
const BATCH: usize = 1 << 14;

/// The key-hash seed shared by every structure on a stream with replicate seed `seed`.
pub fn hash_seed(seed: u64) -> u64 {
    mix64(seed ^ 0x6861_7368_5f73_6565)
}

/// The seed of the structure in cell `cell` on a stream with replicate seed `seed`. It does
/// not depend on anything but the seed and the cell's structure and memory, so adding a cell
/// to an experiment does not change the others' results.
pub fn filter_seed(seed: u64, cell: &Cell) -> u64 {
    let name = cell
        .filter
        .name()
        .bytes()
        .fold(0u64, |h, b| mix64(h ^ u64::from(b)));
    mix64(seed ^ mix64(name ^ cell.memory_nominal_bits))
}

/// What a finished cell reports besides its rows.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CellTiming {
    pub cell: usize,
    pub label: String,
    pub elements: u64,
    pub wall_secs: f64,
    pub ns_per_element: f64,
    pub resumed: bool,
}

/// Estimated single-thread seconds of one cell on an otherwise idle machine: per element, the
/// runner's own work (generation, hashing, scoring: ~8 ns) plus the structure's relative cost
/// times 6 ns while its state fits in cache (≤ 8 MiB) or 30 ns beyond, where every probe is a
/// DRAM miss. Calibrated on the `dupstream-filters` benchmark (BSBF family ≈ 26 ns, SBF ≈ 93 ns
/// at 512 MB). Replays of unknown length count as 0.
pub fn cell_secs(exp: &Experiment, cell: &Cell) -> f64 {
    let n = exp.streams[cell.stream].spec.declared_len().unwrap_or(0) as f64;
    let per_cost = if cell.memory_bits > (8 << 23) {
        30.0
    } else {
        6.0
    };
    n * (8.0 + per_cost * cell.filter.cost_at(cell.memory_bits)) * 1e-9
}

/// Checkpoint positions for a stream of `n` elements.
pub fn checkpoints(exp: &Experiment, n: u64) -> Vec<u64> {
    let mut v: Vec<u64> = match exp.checkpoint_every {
        Some(every) => (1..).map(|i| i * every).take_while(|&p| p < n).collect(),
        None => {
            let c = exp.checkpoints.min(n.max(1));
            (1..c).map(|i| n * i / c).filter(|&p| p > 0).collect()
        }
    };
    v.dedup();
    v.push(n);
    v
}

/// Runs one cell over its stream, scoring against the shared ground truth.
pub fn run_cell(
    exp: &Experiment,
    cell: &Cell,
    truth: &GroundTruth,
    progress: &Progress,
) -> Result<(Vec<RawRow>, CellTiming)> {
    let case = &exp.streams[cell.stream];
    let start = Instant::now();
    let mut filter = cell
        .filter
        .build(cell.memory_bits, filter_seed(case.seed, cell))
        .with_context(|| format!("building {} at {} bits", cell.label, cell.memory_bits))?;
    let n = truth.len();
    let stops = checkpoints(exp, n);
    let labels = truth.label_words();
    let hseed = hash_seed(case.seed);
    let mut stream = case
        .spec
        .open()
        .with_context(|| format!("opening stream {}", case.spec.describe()))?;
    let mut keys = vec![0u64; BATCH];
    let mut hashes = vec![0u64; BATCH];
    let mut verdicts = vec![false; BATCH];
    // counts[truth << 1 | verdict]: 0 = TN, 1 = FP, 2 = FN, 3 = TP.
    let mut counts = [0u64; 4];
    let mut pos = 0u64;
    let mut rows = Vec::with_capacity(stops.len());
    let bar = progress.cell_bar(&cell.label, n);
    for &stop in &stops {
        while pos < stop {
            let want = ((stop - pos) as usize).min(BATCH);
            let got = stream.fill(&mut keys[..want])?;
            if got == 0 {
                bail!(
                    "stream {} ended at {pos} elements, but its ground truth has {n}",
                    case.spec.describe()
                );
            }
            for (h, &k) in hashes[..got].iter_mut().zip(&keys[..got]) {
                *h = hash_key(k, hseed);
            }
            filter.step_batch(&hashes[..got], &mut verdicts[..got]);
            for (i, &v) in verdicts[..got].iter().enumerate() {
                let p = pos + i as u64;
                let t = (labels[(p >> 6) as usize] >> (p & 63)) & 1;
                counts[((t << 1) | u64::from(v)) as usize] += 1;
            }
            pos += got as u64;
            bar.inc(got as u64);
            progress.inc(got as u64);
        }
        rows.push(output::raw_row(exp, cell, filter.as_ref(), n, pos, counts));
    }
    bar.finish_and_clear();
    let wall = start.elapsed().as_secs_f64();
    let timing = CellTiming {
        cell: cell.index,
        label: cell.label.clone(),
        elements: n,
        wall_secs: wall,
        ns_per_element: wall * 1e9 / n.max(1) as f64,
        resumed: false,
    };
    Ok((rows, timing))
}

/// Runs every cell not yet finished in `dir`, stream by stream. Returns per-cell timings
/// (finished ones read back) and the ground-truth statistics of each stream.
pub fn run_all(
    exp: &Experiment,
    dir: &Path,
    threads: usize,
    progress: &Progress,
) -> Result<(Vec<CellTiming>, Vec<output::StreamRow>)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let mut timings = Vec::new();
    let mut stream_rows = Vec::new();
    for (si, case) in exp.streams.iter().enumerate() {
        // A shard (crate::shard) may hold no cell of this stream: then it needs no ground truth.
        if !exp.cells.iter().any(|c| c.stream == si) {
            continue;
        }
        let mut todo: Vec<&Cell> = Vec::new();
        for cell in exp.cells.iter().filter(|c| c.stream == si) {
            match output::read_cell_timing(dir, cell.index) {
                Some(mut t) => {
                    t.resumed = true;
                    progress.inc(t.elements);
                    timings.push(t);
                }
                None => todo.push(cell),
            }
        }
        // Ground truth is needed for stream statistics even when every cell is done; it is
        // cheap next to the cells.
        let gt_start = Instant::now();
        progress.message(&format!("ground truth for {}", case.spec.describe()));
        let truth = GroundTruth::compute(&case.spec)
            .with_context(|| format!("ground truth for {}", case.spec.describe()))?;
        stream_rows.push(output::stream_row(
            si,
            case,
            &truth,
            gt_start.elapsed().as_secs_f64(),
        ));
        // Longest cells first, so the last ones to finish are short.
        todo.sort_by(|a, b| {
            b.filter
                .cost_at(b.memory_bits)
                .total_cmp(&a.filter.cost_at(a.memory_bits))
                .then(b.memory_bits.cmp(&a.memory_bits))
        });
        // FIFO spawning hands the cells out longest first, one at a time (a parallel iterator
        // would split the list in halves and lose that order). Results land in their own slot.
        let results: Vec<std::sync::Mutex<Option<Result<CellTiming>>>> =
            todo.iter().map(|_| std::sync::Mutex::new(None)).collect();
        pool.scope_fifo(|scope| {
            for (slot, cell) in results.iter().zip(&todo) {
                let truth = &truth;
                scope.spawn_fifo(move |_| {
                    let outcome =
                        run_cell(exp, cell, truth, progress).and_then(|(rows, timing)| {
                            output::write_cell(dir, cell.index, &rows, &timing)?;
                            progress.cell_done(&timing);
                            Ok(timing)
                        });
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                });
            }
        });
        let results = results.into_iter().map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every spawned cell ran")
        });
        for r in results {
            timings.push(r?);
        }
    }
    timings.sort_by_key(|t| t.cell);
    Ok((timings, stream_rows))
}

/// Peak memory of the run: ground truth of the largest stream, plus `threads` of the largest
/// structures, plus batch buffers.
pub fn estimate_peak_bytes(exp: &Experiment, threads: usize) -> u64 {
    let mut peak = 0u64;
    for (si, case) in exp.streams.iter().enumerate() {
        let gt = GroundTruth::heap_bytes_estimate(&case.spec);
        let distinct_hint = distinct_hint(&case.spec);
        let mut filters: Vec<u64> = exp
            .cells
            .iter()
            .filter(|c| c.stream == si)
            .map(|c| c.filter.heap_bytes_estimate(c.memory_bits, distinct_hint))
            .collect();
        // Streams without cells (in a shard) are never labelled.
        if filters.is_empty() {
            continue;
        }
        filters.sort_unstable_by(|a, b| b.cmp(a));
        let running: u64 = filters.iter().take(threads).sum();
        let buffers = threads as u64 * (BATCH as u64 * 17) + (64 << 20);
        peak = peak.max(gt + running + buffers);
    }
    peak
}

fn distinct_hint(spec: &StreamSpec) -> u64 {
    spec.universe().or(spec.declared_len()).unwrap_or(1 << 26)
}
