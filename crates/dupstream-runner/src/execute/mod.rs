//! Stage 3, execution: per stream, the exact ground truth once, then every unfinished cell of
//! that stream in parallel on rayon, each cell's rows written to its [`ResultsDir`] part as
//! soon as it finishes (so an interrupted run resumes where it stopped).
//!
//! Not a stable API: public, and hidden from the documentation, only for the runner's
//! calibration benchmark (`benches/calibrate.rs`); a user runs cells through
//! [`orchestrate::run`](crate::orchestrate::run).

pub mod cancel;
pub mod cell;
pub mod progress;
pub mod truth;

pub use cancel::{Cancel, Interrupted};
pub use progress::Progress;

use crate::plan::cost::cell_secs;
use crate::plan::validate::streams::{MIN_DUPLICATES_PER_CHECKPOINT, expected_duplicates};
use crate::plan::{Cell, Experiment};
use crate::record::{CellState, CellTiming, ResultsDir, StreamRow};
use anyhow::{Context, Result};
use std::sync::Mutex;

/// Runs every cell of `exp` not yet finished in `dir`, stream by stream; a cell whose files
/// fail their check ([`ResultsDir::cell_state`]) is recomputed, with a note. Returns per-cell
/// timings (finished ones read back, in cell order) and the ground-truth statistics of each
/// stream that has cells. Once `cancel` is set, no cell starts, the cells running stop
/// without writing, and the result is [`Interrupted`]; every cell finished before is kept.
pub fn run_all(
    exp: &Experiment,
    dir: &ResultsDir,
    threads: usize,
    progress: &Progress,
    cancel: &Cancel,
) -> Result<(Vec<CellTiming>, Vec<StreamRow>)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let digest = dir
        .digest()
        .context("a results directory opened for writing")?;
    let mut timings = Vec::new();
    let mut stream_rows = Vec::new();
    for si in 0..exp.streams.len() {
        // A shard may hold no cell of this stream: then it needs no ground truth.
        let cells: Vec<&Cell> = exp.cells.iter().filter(|c| c.stream == si).collect();
        if cells.is_empty() {
            continue;
        }
        let mut todo: Vec<&Cell> = Vec::new();
        for cell in cells {
            match dir.cell_state(cell.index, digest, exp.scale) {
                CellState::Done(mut t) => {
                    t.resumed = true;
                    progress.inc(t.elements);
                    timings.push(t);
                }
                CellState::Absent => todo.push(cell),
                CellState::Bad(why) => {
                    eprintln!(
                        "dupstream: {}: cell {} cannot be trusted ({why}); recomputing it",
                        dir.path().display(),
                        cell.index
                    );
                    todo.push(cell);
                }
            }
        }
        // Ground truth is needed for stream statistics even when every cell is done; it is
        // cheap next to the cells.
        cancel.check()?;
        // Held for the cells when at least two are left to read a dear stream
        // (`cost::holds_keys`).
        let hold = todo.len() >= 2 && crate::plan::cost::holdable(&exp.streams[si]);
        let (truth, row) = truth::label(exp, si, hold, progress, cancel)?;
        progress.clear_message();
        if let Some(w) = few_duplicates(exp, si, &row) {
            progress.warn(&w);
        }
        stream_rows.push(row);
        cancel.check()?;
        let ran = run_cells(exp, dir, &pool, todo, &truth, progress, cancel);
        // Interrupted wins over any error of a cell stopped midway.
        cancel.check()?;
        timings.extend(ran?);
    }
    timings.sort_by_key(|t| t.cell);
    Ok((timings, stream_rows))
}

/// A scaled stream whose expected duplicates have no closed form (the plan warns about the
/// others before the run) is checked once labelled: fewer than
/// [`MIN_DUPLICATES_PER_CHECKPOINT`] duplicates per checkpoint draws a warning.
fn few_duplicates(exp: &Experiment, index: usize, row: &StreamRow) -> Option<String> {
    let case = &exp.streams[index];
    if exp.scale <= 1 || expected_duplicates(&case.spec).is_some() {
        return None;
    }
    let per = row.n.saturating_sub(row.distinct) as f64 / exp.checkpoints(row.n).len() as f64;
    (per < MIN_DUPLICATES_PER_CHECKPOINT).then(|| {
        format!(
            "at --scale {} the stream {} has {per:.0} duplicates per checkpoint (fewer than {MIN_DUPLICATES_PER_CHECKPOINT:.0}): its rates are noisy; use a smaller --scale",
            exp.scale,
            case.spec.describe()
        )
    })
}

/// Runs cells of one stream on the pool, longest first (by the cost model), so the last ones
/// to finish are short.
fn run_cells(
    exp: &Experiment,
    dir: &ResultsDir,
    pool: &rayon::ThreadPool,
    todo: Vec<&Cell>,
    truth: &truth::Truths,
    progress: &Progress,
    cancel: &Cancel,
) -> Result<Vec<CellTiming>> {
    // Each cell's cost once (the cost model interpolates calibration tables), then the sort.
    let mut by_cost: Vec<(f64, &Cell)> = todo.into_iter().map(|c| (cell_secs(exp, c), c)).collect();
    by_cost.sort_by(|(ca, a), (cb, b)| cb.total_cmp(ca).then(b.budget_bits.cmp(&a.budget_bits)));
    let todo: Vec<&Cell> = by_cost.into_iter().map(|(_, c)| c).collect();
    // FIFO spawning hands the cells out longest first, one at a time (a parallel iterator
    // would split the list in halves and lose that order). Results land in their own slot.
    let results: Vec<Mutex<Option<Result<CellTiming>>>> =
        todo.iter().map(|_| Mutex::new(None)).collect();
    pool.scope_fifo(|scope| {
        for (slot, cell) in results.iter().zip(&todo) {
            scope.spawn_fifo(move |_| {
                // A cell not yet started when the run is asked to stop does not start.
                let outcome = cancel
                    .check()
                    .map_err(anyhow::Error::from)
                    .and_then(|()| cell::run(exp, cell, truth, progress, cancel))
                    .and_then(|(rows, timing)| {
                        dir.write_cell(cell.index, &rows, &timing)?;
                        progress.cell_done(&timing);
                        Ok(timing)
                    });
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every spawned cell ran")
        })
        .collect()
}
