//! `dupstream merge PARTS... --out DIR`: check the parts (one experiment digest, one revision,
//! every shard present, each with exactly the cells the assignment gives it), gather their
//! cell files, and finish as a single run does ([`Session::finish`]): `raw.csv` is the
//! cells' rows in cell order, so it is identical to a single run's; so are `streams.csv`, the
//! tables, the charts and `run.toml`. In the merged `manifest.json`, `wall_secs_total` is the
//! longest shard's wall time; `shards.json` lists every part's host, job and timings.

use super::assign::assign;
use super::part::{SHARD_FILE, ShardRecord, ShardStream, read_record};
use super::pipeline::{Executed, Inputs, Print, Session};
use crate::plan::{BadInput, Experiment, Registry, refuse};
use crate::record::probe::{Machine, unix_now};
use crate::record::{CellState, Manifest, Outcome, ResultsDir, StreamRow, write_json};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A finished part: its directory and record.
type Part = (PathBuf, ShardRecord);

/// Merges the parts named by `args` (a directory of parts stands for its parts) into `out`.
pub fn merge(args: &[PathBuf], out: &Path, quiet: bool, registry: &Registry) -> Result<()> {
    let (first_path, first, exp, by_shard) = checked_parts(args, registry).map_err(bad_input)?;
    let n = first.shards;
    let dir = ResultsDir::open(out, &first.id.experiment_sha)?;
    let ran = gather(&dir, &exp, &by_shard)?;
    let records: Vec<&ShardRecord> = by_shard.values().map(|(_, r)| r).collect();
    let id = first.id.clone();
    let threads = records.iter().map(|r| r.threads).max().unwrap_or(1);
    let session = Session::new(exp, first.id.experiment_sha.clone(), id, threads);
    let first_part = ResultsDir::existing(&first_path);
    let machine = session.machine.clone();
    let outcome = || combined(machine, &records, &ran);
    let shards = |m: &Manifest| write_json(&dir.join("shards.json"), &shards_json(m, &by_shard));
    session.finish(
        &dir,
        &ran,
        Inputs::CopyFrom(&first_part),
        outcome,
        shards,
        if quiet {
            Print::Nothing
        } else {
            Print::TableAndSummary { diff: false }
        },
    )?;
    if !quiet {
        eprintln!(
            "dupstream: merged {n} shard(s) of {} into {}",
            session.exp.name,
            out.display()
        );
    }
    Ok(())
}

/// The parts named by `args`, checked: the first part and its record, the experiment they
/// recorded, and one finished part per shard, each holding exactly its shard's cells.
fn checked_parts(
    args: &[PathBuf],
    registry: &Registry,
) -> Result<(PathBuf, ShardRecord, Experiment, BTreeMap<usize, Part>)> {
    let (finished, unfinished) = collect(&expand_parts(args)?)?;
    let (first_path, first) = finished[0].clone();
    check_compatible(&finished)?;
    let n = first.shards;
    let by_shard = by_shard(finished, &unfinished, n)?;
    // The experiment, as recorded by the parts; its split must be the parts' split.
    let exp = crate::plan::load_recorded(&first_path.join("run.toml"), registry)?;
    if exp.name != first.id.experiment || exp.scale != first.scale {
        bail!(
            "{}: run.toml does not match its {SHARD_FILE}",
            first_path.display()
        );
    }
    check_cells(&exp, &by_shard, n)?;
    Ok((first_path, first, exp, by_shard))
}

/// A refusal of the parts: bad input (exit 2), whatever the check that failed.
fn bad_input(e: anyhow::Error) -> anyhow::Error {
    if e.is::<BadInput>() || e.is::<crate::plan::ConfigError>() {
        e
    } else {
        refuse(format!("{e:#}"))
    }
}

/// The cells whose files a part holds (`cells/cell-NNNNN.csv` or `.json`), ascending.
fn cells_held(part: &Path) -> Result<Vec<usize>> {
    let dir = part.join("cells");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut held = std::collections::BTreeSet::new();
    for e in entries {
        let name = e?.file_name();
        let name = name.to_string_lossy();
        let index = name
            .strip_prefix("cell-")
            .and_then(|r| r.strip_suffix(".csv").or_else(|| r.strip_suffix(".json")))
            .and_then(|i| i.parse::<usize>().ok());
        if let Some(i) = index {
            held.insert(i);
        }
    }
    Ok(held.into_iter().collect())
}

fn is_part(p: &Path) -> bool {
    p.join(SHARD_FILE).is_file() || p.join(".digest").is_file() || p.join("cells").is_dir()
}

/// The part directories named by the arguments (a directory of parts stands for its parts).
fn expand_parts(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in args {
        if is_part(p) {
            out.push(p.clone());
            continue;
        }
        let entries = std::fs::read_dir(p).with_context(|| format!("reading {}", p.display()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|c| c.is_dir() && is_part(c))
            .collect();
        if found.is_empty() {
            bail!("{}: not a shard part and holds none", p.display());
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The finished parts (with a record, sorted by shard) and the unfinished ones.
fn collect(parts: &[PathBuf]) -> Result<(Vec<Part>, Vec<PathBuf>)> {
    let mut finished = Vec::new();
    let mut unfinished = Vec::new();
    for p in parts {
        if p.join(SHARD_FILE).is_file() {
            finished.push((p.clone(), read_record(p)?));
        } else {
            unfinished.push(p.clone());
        }
    }
    if finished.is_empty() {
        bail!(
            "no finished shard part among {} (parts without {SHARD_FILE} are still running or were interrupted)",
            list(&unfinished)
        );
    }
    finished.sort_by_key(|(_, r)| r.shard);
    Ok((finished, unfinished))
}

/// Every part must come from one experiment digest, one revision and one split.
fn check_compatible(finished: &[Part]) -> Result<()> {
    let (first_path, first) = &finished[0];
    for (p, r) in &finished[1..] {
        if r.id.experiment_sha != first.id.experiment_sha {
            bail!(
                "{}: part of a different experiment file or scale ({} `{}`, digest {}) than {} ({} `{}`, digest {}); refusing to merge",
                p.display(),
                r.id.experiment,
                r.id.experiment_file,
                r.id.experiment_sha,
                first_path.display(),
                first.id.experiment,
                first.id.experiment_file,
                first.id.experiment_sha
            );
        }
        if r.id.git_revision != first.id.git_revision {
            bail!(
                "{}: run at git revision {}, but {} at {}; refusing to merge parts of different revisions",
                p.display(),
                r.id.git_revision,
                first_path.display(),
                first.id.git_revision
            );
        }
        if r.shards != first.shards {
            bail!(
                "{}: shard {}/{}, but {} is shard {}/{}; refusing to merge different splits",
                p.display(),
                r.shard,
                r.shards,
                first_path.display(),
                first.shard,
                first.shards
            );
        }
    }
    Ok(())
}

/// One part per shard (a duplicate with the same cells is ignored); every shard present.
fn by_shard(
    finished: Vec<Part>,
    unfinished: &[PathBuf],
    n: usize,
) -> Result<BTreeMap<usize, Part>> {
    let experiment = finished[0].1.id.experiment.clone();
    let file = finished[0].1.id.experiment_file.clone();
    let mut by_shard: BTreeMap<usize, Part> = BTreeMap::new();
    for (p, r) in finished {
        if let Some((q, s)) = by_shard.get(&r.shard) {
            if s.cells != r.cells {
                bail!(
                    "{} and {} both claim shard {}/{n} with different cells",
                    q.display(),
                    p.display(),
                    r.shard
                );
            }
            eprintln!(
                "dupstream: {} duplicates shard {}/{n} of {}; using the latter",
                p.display(),
                r.shard,
                q.display()
            );
            continue;
        }
        by_shard.insert(r.shard, (p, r));
    }
    let missing: Vec<usize> = (0..n).filter(|i| !by_shard.contains_key(i)).collect();
    if !missing.is_empty() {
        let unf = if unfinished.is_empty() {
            String::new()
        } else {
            format!("; unfinished parts (no {SHARD_FILE}): {}", list(unfinished))
        };
        bail!(
            "missing shard{} {} of experiment {experiment} (have {} of {n}){unf}; run them (`dupstream run {file} --shard I/{n} --resume`) and merge again",
            if missing.len() == 1 { "" } else { "s" },
            missing
                .iter()
                .map(|i| format!("{i}/{n}"))
                .collect::<Vec<_>>()
                .join(", "),
            n - missing.len(),
        );
    }
    for p in unfinished {
        eprintln!(
            "dupstream: ignoring {} (unfinished, and every shard has a finished part)",
            p.display()
        );
    }
    Ok(by_shard)
}

/// Each part holds exactly the cells this split assigns to its shard, with their files.
fn check_cells(exp: &Experiment, by_shard: &BTreeMap<usize, Part>, n: usize) -> Result<()> {
    let plan = assign(exp, n);
    for (i, (p, r)) in by_shard {
        if plan[*i] != r.cells {
            bail!(
                "{}: its cells are not those this dupstream assigns to shard {i}/{n}; merge with the dupstream that ran the shards",
                p.display()
            );
        }
        if let Some(extra) = cells_held(p)?.into_iter().find(|c| !r.cells.contains(c)) {
            bail!(
                "{}: holds cell {extra}, which is not one of shard {i}/{n}'s; refusing to merge a part with cells it did not run (remove the cell's files or rerun the shard)",
                p.display()
            );
        }
        let part = ResultsDir::existing(p);
        for &c in &r.cells {
            match part.cell_state(c, &r.id.experiment_sha, r.scale) {
                CellState::Done(_) => {}
                CellState::Absent => bail!(
                    "{}: cell {c} of shard {i}/{n} is missing; rerun the shard with --resume",
                    p.display()
                ),
                CellState::Bad(why) => bail!(
                    "{}: cell {c} of shard {i}/{n} cannot be trusted: {why}; refusing to merge (rerun the shard with --resume)",
                    p.display()
                ),
            }
        }
    }
    Ok(())
}

/// Copies every part's cells into `dir`; returns their timings and the streams' statistics
/// (each stream from the first part that computed it).
fn gather(
    dir: &ResultsDir,
    exp: &Experiment,
    by_shard: &BTreeMap<usize, Part>,
) -> Result<Executed> {
    let mut timings = Vec::new();
    let mut streams: BTreeMap<usize, StreamRow> = BTreeMap::new();
    for (p, r) in by_shard.values() {
        let part = ResultsDir::existing(p);
        for &c in &r.cells {
            dir.copy_cell_from(&part, c)?;
        }
        timings.extend(r.timings.iter().cloned());
        for row in part.read_streams()? {
            streams.entry(row.stream_index).or_insert(row);
        }
    }
    timings.sort_by_key(|t| t.cell);
    if let Some(s) = (0..exp.streams.len()).find(|s| !streams.contains_key(s)) {
        bail!("no part computed the ground truth of stream {s}, which has cells");
    }
    Ok(Executed {
        timings,
        streams: streams.into_values().collect(),
    })
}

/// The parts' outcomes combined: the longest wall time, the largest memory, the earliest start.
fn combined(machine: Machine, records: &[&ShardRecord], ran: &Executed) -> Outcome {
    let mut stats: BTreeMap<usize, &ShardStream> = BTreeMap::new();
    for r in records {
        for s in &r.stream_stats {
            stats.entry(s.stream_index).or_insert(s);
        }
    }
    Outcome {
        machine,
        threads: records.iter().map(|r| r.threads).max().unwrap_or(1),
        started_unix: records.iter().map(|r| r.started_unix).min().unwrap_or(0),
        wall_secs: records.iter().map(|r| r.wall_secs).fold(0.0, f64::max),
        cpu_secs: None,
        estimated_secs: records.iter().map(|r| r.estimated_secs).fold(0.0, f64::max),
        peak_rss_bytes: records.iter().filter_map(|r| r.peak_rss_bytes).max(),
        estimated_peak_bytes: records
            .iter()
            .map(|r| r.estimated_peak_bytes)
            .max()
            .unwrap_or(0),
        streams: stats.values().map(|s| s.stats.clone()).collect(),
        cells: ran.timings.clone(),
    }
}

/// `shards.json`: every part's host, job and timings.
fn shards_json(manifest: &Manifest, by_shard: &BTreeMap<usize, Part>) -> serde_json::Value {
    serde_json::json!({
        "experiment": manifest.experiment,
        "experiment_sha": manifest.experiment_sha,
        "git_revision": manifest.git_revision,
        "shards": by_shard.len(),
        "merged_unix": unix_now(),
        "wall_secs_max": manifest.wall_secs_total,
        "wall_secs_sum": by_shard.values().map(|(_, r)| r.wall_secs).sum::<f64>(),
        "parts": by_shard.iter().map(|(i, (p, r))| serde_json::json!({
            "shard": i,
            "part": p.display().to_string(),
            "host": r.host,
            "slurm_job": r.slurm_job,
            "cells": r.cells.len(),
            "streams": r.streams,
            "threads": r.threads,
            "estimated_secs": r.estimated_secs,
            "wall_secs": r.wall_secs,
            "estimated_peak_bytes": r.estimated_peak_bytes,
            "peak_rss_bytes": r.peak_rss_bytes,
            "resumed_cells": r.timings.iter().filter(|t| t.resumed).count(),
        })).collect::<Vec<_>>(),
    })
}
