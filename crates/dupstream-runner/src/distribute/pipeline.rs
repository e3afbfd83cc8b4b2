//! The one path every run takes: [`Session::open`] (load and validate the experiment, fix the
//! thread count and the revision, check memory), [`Session::execute`] (run the cells not yet
//! done in a results directory) and [`Session::finish`] (`raw.csv`, derived series, streams,
//! inputs, table, charts, manifest). `dupstream run` takes all three steps; a shard part
//! opens and executes its own cells, then records itself ([`super::part`]); a merge gathers
//! the parts' cells instead of executing, then finishes exactly as a run does
//! ([`super::merge`]).

use crate::execute::{self, Cancel, Progress};
use crate::plan::{self, Experiment, Registry, cost};
use crate::record::probe::{Machine, available_memory, peak_rss, unix_now};
use crate::record::{
    CellTiming, Identity, Manifest, ManifestStream, Outcome, ResultsDir, StreamRow, digest,
};
use crate::report;
use anyhow::{Result, bail};
use std::path::Path;
use std::time::Instant;

/// An experiment opened for running.
#[derive(Debug)]
pub struct Session {
    pub exp: Experiment,
    /// [`crate::record::digest`] of the experiment as run.
    pub digest: String,
    pub id: Identity,
    pub threads: usize,
    /// Set when the run is asked to stop ([`Session::stop_on_signals`]).
    pub cancel: Cancel,
    /// The machine, as read when the session opened (host, CPU, memory, load).
    pub machine: Machine,
    started: Instant,
    started_unix: u64,
}

/// What executing some cells gave.
#[derive(Debug)]
pub struct Executed {
    pub timings: Vec<CellTiming>,
    pub streams: Vec<StreamRow>,
}

/// What [`Session::finish`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Print {
    /// Nothing.
    Nothing,
    /// The table (stdout).
    Table,
    /// The table (stdout) and the per-cell summary (stderr).
    TableAndSummary,
}

/// Where a finished directory's `run.toml` and paper values come from.
#[derive(Debug, Clone, Copy)]
pub enum Inputs<'a> {
    /// Written from the experiment.
    Write,
    /// Copied from a shard part (whose `run.toml` names the original file).
    CopyFrom(&'a ResultsDir),
}

impl Session {
    /// Loads and validates `file` at `scale`, with `threads` (default: every core).
    pub fn open(
        file: &Path,
        scale: Option<u64>,
        threads: Option<usize>,
        registry: &Registry,
    ) -> Result<Self> {
        let exp = plan::load_with(file, scale, registry)?;
        let digest = digest(&exp)?;
        let id = Identity::of(&exp, &digest);
        let (threads, note) = plan::threads(threads, exp.cells.len())?;
        for w in exp.warnings.iter().chain(&note) {
            eprintln!("dupstream: warning: {w}");
        }
        Ok(Self::new(exp, digest, id, threads))
    }

    /// A session for an experiment already loaded (a merge: identity from the parts).
    pub fn new(exp: Experiment, digest: String, id: Identity, threads: usize) -> Self {
        Self {
            exp,
            digest,
            id,
            threads,
            cancel: Cancel::new(),
            machine: Machine::probe(),
            started: Instant::now(),
            started_unix: unix_now(),
        }
    }

    /// Stops the run on SIGINT or SIGTERM: no cell starts after the signal, the cells running
    /// stop without writing, and [`execute`](Self::execute) or [`finish`](Self::finish)
    /// returns [`Interrupted`](crate::execute::Interrupted) before the commit record.
    pub fn stop_on_signals(mut self) -> Result<Self> {
        self.cancel = Cancel::on_signals()?;
        Ok(self)
    }

    /// Refuses to start when `cells` would need more memory than is available (`hint`: what
    /// to change); returns the estimate.
    pub fn check_memory(&self, cells: &Experiment, what: &str, hint: &str) -> Result<u64> {
        let estimate = cost::peak_bytes(cells, self.threads);
        if let Some(avail) = available_memory() {
            if estimate > avail {
                bail!(
                    "{what} needs about {:.1} GiB ({} threads) but only {:.1} GiB is available; {hint}",
                    gib(estimate),
                    self.threads,
                    gib(avail)
                );
            }
        }
        Ok(estimate)
    }

    /// Runs the cells of `cells` (the experiment or a shard of it) not yet done in `dir`.
    pub fn execute(&self, cells: &Experiment, dir: &ResultsDir, quiet: bool) -> Result<Executed> {
        let progress = Progress::new(cells.total_elements().unwrap_or(0), quiet);
        let ran = execute::run_all(cells, dir, self.threads, &progress, &self.cancel);
        progress.finish();
        let (timings, streams) = ran?;
        // Asked to stop after the last cell: still not finished.
        self.cancel.check()?;
        Ok(Executed { timings, streams })
    }

    /// What this session measured, for the manifest.
    pub fn outcome(&self, estimated_peak_bytes: u64, ran: &Executed) -> Outcome {
        Outcome {
            machine: self.machine.clone(),
            threads: self.threads,
            started_unix: self.started_unix,
            wall_secs: self.started.elapsed().as_secs_f64(),
            peak_rss_bytes: peak_rss(),
            estimated_peak_bytes,
            streams: ran.streams.iter().map(ManifestStream::of).collect(),
            cells: ran.timings.clone(),
        }
    }

    /// Finishes a results directory whose every cell is done: `raw.csv`, `derived.csv`,
    /// `streams.csv` and `gaps.csv`, `run.toml` and the paper values, the table and charts, the
    /// manifest (`outcome` is called then, so its wall time covers the whole run) and
    /// `cells.csv` (the cells' timings beside their final rows), the files `extra`
    /// writes from the manifest, and last the commit record ([`ResultsDir::commit`]), which
    /// makes the run finished. Then prints what `print` says; returns the manifest.
    pub fn finish(
        &self,
        dir: &ResultsDir,
        ran: &Executed,
        inputs: Inputs<'_>,
        outcome: impl FnOnce() -> Outcome,
        extra: impl FnOnce(&Manifest) -> Result<()>,
        print: Print,
    ) -> Result<Manifest> {
        let exp = &self.exp;
        let measured = dir.write_raw(exp)?;
        let (rows, derived) = report::with_derived(exp, measured.clone());
        dir.write_derived(&derived)?;
        dir.write_streams(&ran.streams)?;
        match inputs {
            Inputs::Write => dir.write_inputs(exp)?,
            Inputs::CopyFrom(part) => dir.copy_inputs_from(part, exp)?,
        }
        let md = report::write_timed(exp, dir, &rows, &ran.timings)?;
        let manifest = Manifest::new(exp, &self.id, outcome());
        dir.write_manifest(&manifest)?;
        dir.write_cells(&measured, &manifest.cells)?;
        extra(&manifest)?;
        // Asked to stop while finishing: no commit record, so the run stays resumable.
        self.cancel.check()?;
        dir.commit(exp)?;
        if print != Print::Nothing {
            outln!("{md}")?;
        }
        if print == Print::TableAndSummary {
            summary(&manifest);
        }
        Ok(manifest)
    }
}

/// Bytes in GiB.
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Per-cell wall time and the total, on stderr.
fn summary(m: &Manifest) {
    eprintln!(
        "\n{:>5}  {:<32} {:>10} {:>12}",
        "cell", "structure", "wall (s)", "ns/element"
    );
    for t in &m.cells {
        eprintln!(
            "{:>5}  {:<32} {:>10.2} {:>12.2}{}",
            t.cell,
            t.label,
            t.wall_secs,
            t.ns_per_element,
            if t.resumed { "  (resumed)" } else { "" }
        );
    }
    eprintln!(
        "total wall time {:.1} s, peak memory {}",
        m.wall_secs_total,
        m.peak_rss_bytes
            .map_or("unknown".into(), |b| format!("{:.2} GiB", gib(b)))
    );
}
