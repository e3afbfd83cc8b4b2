//! `dupstream run EXP --shard I/N`: run shard `I`'s cells, computing the ground truth of only
//! the streams it has cells of, and write a self-describing part: the per-cell files of
//! `dupstream run` (so `--resume` works unchanged), `streams.csv` for its streams,
//! `run.toml`, and last `shard.json` ([`ShardRecord`]), which marks the part finished.
//!
//! Not a stable API: public, and hidden from the documentation, only for the fuzz targets
//! (`fuzz/harness.rs` reads a part's record with [`read_record`]); `dupstream run --shard` and
//! `merge` are the way to use parts.

use super::ShardSpec;
use super::assign::assign;
use super::pipeline::{Session, gib};
use crate::record::probe::{hostname, peak_rss, slurm_job};
use crate::record::{
    CellState, CellTiming, Identity, ManifestStream, Purpose, ResultsDir, read_json, write_json,
};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The file that marks a shard part finished and describes it.
pub const SHARD_FILE: &str = "shard.json";

/// A stream's ground truth as computed in a shard.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardStream {
    pub stream_index: usize,
    #[serde(flatten)]
    pub stats: ManifestStream,
}

/// `shard.json`: what a part is and what produced it. Written last: its presence marks the
/// part finished.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardRecord {
    /// What produced the part: parts merge only if their experiment digests (file, scale) and
    /// revisions are equal.
    #[serde(flatten)]
    pub id: Identity,
    pub scale: u64,
    pub shard: usize,
    pub shards: usize,
    /// Cells of this shard, ascending.
    pub cells: Vec<usize>,
    /// Streams whose ground truth this shard computed, ascending.
    pub streams: Vec<usize>,
    /// The shard's estimated wall time on its threads, as it printed before starting.
    pub estimated_secs: f64,
    pub estimated_peak_bytes: u64,
    pub threads: usize,
    pub host: String,
    /// `$SLURM_ARRAY_JOB_ID_$SLURM_ARRAY_TASK_ID` or `$SLURM_JOB_ID`, when run by Slurm.
    pub slurm_job: Option<String>,
    pub machine: serde_json::Value,
    pub command: Vec<String>,
    pub started_unix: u64,
    pub wall_secs: f64,
    pub peak_rss_bytes: Option<u64>,
    pub stream_stats: Vec<ShardStream>,
    pub timings: Vec<CellTiming>,
}

/// Reads a part's `shard.json`.
pub fn read_record(part: &Path) -> Result<ShardRecord> {
    read_json(&part.join(SHARD_FILE))
}

/// What `dupstream run --shard` was asked.
#[derive(Debug, Clone)]
pub struct PartArgs {
    pub shard: ShardSpec,
    pub out: Option<PathBuf>,
    pub results_root: PathBuf,
    pub resume: bool,
    pub quiet: bool,
}

/// Runs one shard of an opened experiment into its part directory.
pub fn run(session: &Session, args: &PartArgs) -> Result<()> {
    let (exp, shard) = (&session.exp, args.shard);
    let plan = assign(exp, shard.count);
    let mine = &plan[shard.index];
    let sub = exp.restrict(mine);
    let estimate = session.check_memory(
        &sub,
        &format!("shard {shard}"),
        "use fewer --threads, more shards or a larger --scale",
    )?;
    let purpose = Purpose::Part {
        index: shard.index,
        count: shard.count,
    };
    let path = args.out.clone().unwrap_or_else(|| {
        ResultsDir::default_path(&args.results_root, exp, &session.digest, purpose)
    });
    // The lock comes first: nothing in the directory is read before it is held.
    let dir = ResultsDir::open(&path, &session.digest)?;
    if ResultsDir::has_finished_run(&path) {
        return Err(crate::plan::refuse(format!(
            "{} holds a finished run, not a shard part; choose another --out",
            path.display()
        )));
    }
    if already_finished(session, &dir, shard, mine, args)? {
        return Ok(());
    }
    let streams: BTreeSet<usize> = sub.cells.iter().map(|c| c.stream).collect();
    let est_secs = session.estimate_secs(&sub, &dir);
    if !args.quiet {
        eprintln!(
            "dupstream: {} shard {shard} — {} of {} cells, {} of {} streams, scale {}, {} threads; estimated peak memory {:.2} GiB, estimated time {:.0} s",
            exp.name,
            mine.len(),
            exp.cells.len(),
            streams.len(),
            exp.streams.len(),
            exp.scale,
            session.threads,
            gib(estimate),
            est_secs,
        );
        eprintln!("dupstream: writing part to {}", path.display());
    }
    let ran = session
        .execute(&sub, &dir, args.quiet)
        .map_err(|e| super::stop::stopped(e, session, &dir, &sub, Some(shard)))?;
    dir.write_streams(&ran.streams)?;
    dir.write_inputs(exp)?;
    let outcome = session.outcome(estimate, est_secs, &ran);
    let record = ShardRecord {
        id: session.id.clone(),
        scale: exp.scale,
        shard: shard.index,
        shards: shard.count,
        cells: mine.clone(),
        streams: streams.into_iter().collect(),
        estimated_secs: est_secs,
        estimated_peak_bytes: estimate,
        threads: session.threads,
        host: hostname(),
        slurm_job: slurm_job(),
        machine: serde_json::to_value(&session.machine)?,
        command: std::env::args().collect(),
        started_unix: outcome.started_unix,
        wall_secs: outcome.wall_secs,
        peak_rss_bytes: peak_rss(),
        stream_stats: ran
            .streams
            .iter()
            .map(|s| ShardStream {
                stream_index: s.stream_index,
                stats: ManifestStream::of(s),
            })
            .collect(),
        timings: ran.timings,
    };
    write_json(&dir.join(SHARD_FILE), &record)?;
    report(&record, &path, args.quiet);
    Ok(())
}

/// Whether the part in `path` is finished already (a requeued task: nothing to do). A finished
/// part is kept only under `--resume`; a stale one is reopened.
fn already_finished(
    session: &Session,
    dir: &ResultsDir,
    shard: ShardSpec,
    mine: &[usize],
    args: &PartArgs,
) -> Result<bool> {
    let path = dir.path();
    if !path.join(SHARD_FILE).exists() {
        return Ok(false);
    }
    if !args.resume {
        return Err(crate::plan::refuse(format!(
            "{} already holds a finished shard part; use --resume to keep it or choose another --out",
            path.display()
        )));
    }
    if let Ok(rec) = read_record(path)
        && rec.id.experiment_sha == session.digest
        && rec.shards == shard.count
        && rec.shard == shard.index
        && rec.cells == mine
        && mine.iter().all(|&c| {
            matches!(
                dir.cell_state(c, &session.digest, session.exp.scale),
                CellState::Done(_)
            )
        })
    {
        if !args.quiet {
            eprintln!(
                "dupstream: shard {shard} of {} is already finished in {}",
                session.exp.name,
                path.display()
            );
        }
        return Ok(true);
    }
    std::fs::remove_file(path.join(SHARD_FILE))?;
    Ok(false)
}

fn report(record: &ShardRecord, path: &Path, quiet: bool) {
    if quiet {
        return;
    }
    for t in &record.timings {
        eprintln!(
            "{:>5}  {:<32} {:>10.2} s{}",
            t.cell,
            t.label,
            t.wall_secs,
            if t.resumed { "  (resumed)" } else { "" }
        );
    }
    let resumed = record.timings.iter().filter(|t| t.resumed).count();
    eprintln!(
        "dupstream: shard {} finished in {:.1} s ({} cells run, {resumed} resumed); part in {}",
        ShardSpec {
            index: record.shard,
            count: record.shards
        },
        record.wall_secs,
        record.timings.len() - resumed,
        path.display()
    );
}
