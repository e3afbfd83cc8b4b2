//! The one path every run takes: [`Session::open`] (load and validate the experiment, fix the
//! thread count and the revision, check memory), [`Session::execute`] (run the cells not yet
//! done in a results directory) and [`Session::finish`] (`raw.csv`, derived series, streams,
//! inputs, table, charts, manifest). `dupstream run` takes all three steps; a shard part
//! opens and executes its own cells, then records itself ([`super::part`]); a merge gathers
//! the parts' cells instead of executing, then finishes exactly as a run does
//! ([`super::merge`]).

use crate::execute::{self, Cancel, Progress};
use crate::plan::{self, Experiment, Registry, cost};
use crate::record::probe::{Machine, available_memory, peak_rss, process_cpu_secs, unix_now};
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
    /// The table as text (stdout), with each cell's difference from the paper when `diff`.
    Table { diff: bool },
    /// The table (stdout) and the per-cell summary (stderr).
    TableAndSummary { diff: bool },
    /// The per-cell summary as JSON (stdout; `run --json`), no table.
    Json,
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
        if let Some(avail) = available_memory()
            && estimate > avail
        {
            bail!(
                "{what} needs about {:.1} GiB ({} threads) but only {:.1} GiB is available; {hint}",
                gib(estimate),
                self.threads,
                gib(avail)
            );
        }
        Ok(estimate)
    }

    /// The estimated wall time of running the cells of `cells` (the experiment or a shard of
    /// it) not yet done in `dir` on this session's threads ([`cost::run_secs`]): a resumed run
    /// is estimated for what it has left.
    pub fn estimate_secs(&self, cells: &Experiment, dir: &ResultsDir) -> f64 {
        cost::run_secs(&cells.restrict(&self.pending(cells, dir)), self.threads)
    }

    /// The cells of `cells` not yet done in `dir`.
    pub fn pending(&self, cells: &Experiment, dir: &ResultsDir) -> Vec<usize> {
        match dir.digest() {
            Some(digest) => cells
                .cells
                .iter()
                .filter(|c| {
                    !matches!(
                        dir.cell_state(c.index, digest, cells.scale),
                        crate::record::CellState::Done(_)
                    )
                })
                .map(|c| c.index)
                .collect(),
            None => cells.cells.iter().map(|c| c.index).collect(),
        }
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
    pub fn outcome(
        &self,
        estimated_peak_bytes: u64,
        estimated_secs: f64,
        ran: &Executed,
    ) -> Outcome {
        Outcome {
            machine: self.machine.clone(),
            threads: self.threads,
            started_unix: self.started_unix,
            wall_secs: self.started.elapsed().as_secs_f64(),
            cpu_secs: process_cpu_secs(),
            estimated_secs,
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
        let dir = &dir.clone().compressed(exp.compress);
        let measured = dir.write_raw(exp)?;
        let (rows, derived) = report::with_derived(exp, measured.clone());
        dir.write_derived(&derived)?;
        dir.write_streams(&ran.streams)?;
        match inputs {
            Inputs::Write => dir.write_inputs(exp)?,
            Inputs::CopyFrom(part) => dir.copy_inputs_from(part, exp)?,
        }
        let table = report::write_timed(exp, dir, &rows, &ran.timings)?;
        let manifest = Manifest::new(exp, &self.id, outcome());
        dir.write_manifest(&manifest)?;
        dir.write_cells(&measured, &manifest.cells)?;
        extra(&manifest)?;
        // Asked to stop while finishing: no commit record, so the run stays resumable.
        self.cancel.check()?;
        dir.commit(exp)?;
        match print {
            Print::Nothing => {}
            Print::Table { diff } => out!("{}", table.text(diff))?,
            Print::TableAndSummary { diff } => {
                out!("{}", table.text(diff))?;
                summary(exp, &manifest);
            }
            Print::Json => outln!(
                "{}",
                serde_json::to_string_pretty(&summary_json(&manifest, dir.path()))?
            )?,
        }
        Ok(manifest)
    }
}

/// Bytes in GiB.
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// The end-of-run summary as JSON (`run --json`; SCHEMA.md): what [`summary`] prints.
fn summary_json(m: &Manifest, dir: &Path) -> serde_json::Value {
    serde_json::json!({
        "experiment": m.experiment,
        "dir": dir.display().to_string(),
        "scale": m.scale,
        "threads": m.threads,
        "wall_secs_total": m.wall_secs_total,
        "cpu_secs_total": m.cpu_secs_total,
        "estimated_secs": m.estimated_secs,
        "peak_rss_bytes": m.peak_rss_bytes,
        "cells": m.cells.iter().map(|t| serde_json::json!({
            "cell": t.cell,
            "label": t.label,
            "wall_secs": t.wall_secs,
            "ns_per_element": t.ns_per_element,
            "estimated_ns_per_element": t.estimated_ns_per_element(),
            "resumed": t.resumed,
        })).collect::<Vec<_>>(),
    })
}

/// Per-cell wall time beside the cost model's estimate, with each cell's memory, stream and
/// seed, and the total, on stderr.
fn summary(exp: &Experiment, m: &Manifest) {
    // Streams are numbered in the list and named once below it (replicates share a label).
    let streams: Vec<String> = exp.stream_labels();
    let stream_of = |cell: usize| {
        let case = exp.streams.get(exp.cells.get(cell)?.stream)?;
        streams.iter().position(|l| *l == case.label())
    };
    eprintln!(
        "\n{:>5}  {:<24} {:>9} {:>6} {:>6} {:>9} {:>10} {:>10}",
        "cell", "structure", "memory", "stream", "seed", "wall (s)", "ns/elem", "estimated"
    );
    for t in &m.cells {
        let cell = exp.cells.get(t.cell);
        let memory = cell.map_or("-".into(), |c| {
            crate::plan::units::format_bits(c.memory_nominal_bits)
        });
        let seed = cell
            .and_then(|c| exp.streams.get(c.stream))
            .map_or("-".into(), |s| s.seed.to_string());
        eprintln!(
            "{:>5}  {:<24} {:>9} {:>6} {:>6} {:>9.2} {:>10.2} {:>10}{}",
            t.cell,
            t.label,
            memory,
            stream_of(t.cell).map_or("-".into(), |s| s.to_string()),
            seed,
            t.wall_secs,
            t.ns_per_element,
            t.estimated_ns_per_element()
                .map_or("-".into(), |e| format!("{e:.2}")),
            if t.resumed { "  (resumed)" } else { "" }
        );
    }
    for (i, s) in streams.iter().enumerate() {
        eprintln!("stream {i}: {s}");
    }
    eprintln!(
        "total wall time {:.1} s (estimated {:.0} s){}, peak memory {}",
        m.wall_secs_total,
        m.estimated_secs,
        m.cpu_secs_total.map_or(String::new(), |c| format!(
            ", CPU time {c:.1} s ({:.1} s per thread)",
            c / m.threads.max(1) as f64
        )),
        m.peak_rss_bytes
            .map_or("unknown".into(), |b| format!("{:.2} GiB", gib(b)))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXP: &str = "name = \"estimate\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 20000\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"8KB\", \"64KB\"]\n[[algorithm]]\nname = \"bloom\"\nk = 2\n[[algorithm]]\nname = \"sbf\"\np = 4\n";

    /// A resumed run is estimated for the cells it has left, not for the whole experiment.
    #[test]
    fn a_resumed_run_is_estimated_for_the_cells_it_has_left() {
        let root = std::env::temp_dir().join(format!("dupstream-estimate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let file = root.join("estimate.toml");
        std::fs::write(&file, EXP).unwrap();
        let session = Session::open(&file, None, Some(1), &Registry::builtin()).unwrap();
        let exp = &session.exp;
        assert_eq!(exp.cells.len(), 4);
        let dir = ResultsDir::open(&root.join("out"), &session.digest).unwrap();
        let all = session.estimate_secs(exp, &dir);
        assert_eq!(all, cost::run_secs(exp, 1));
        // Finish cells 0 and 2; the estimate is then the other two's.
        session.execute(&exp.restrict(&[0, 2]), &dir, true).unwrap();
        let left = session.estimate_secs(exp, &dir);
        assert_eq!(left, cost::run_secs(&exp.restrict(&[1, 3]), 1));
        assert!(left < all, "{left} vs {all}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
