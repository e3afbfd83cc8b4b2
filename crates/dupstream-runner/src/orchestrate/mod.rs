//! Stage 5, orchestration: every way a run is carried out, on one machine or many. It puts
//! the stages below it together: `pipeline` is the one open → execute → finish path every
//! run takes; [`run`] takes it on one machine; sweeps that outgrow one machine
//! are split into shards ([`assign`](mod@assign)), each run as a part (`part`), and merged into the
//! results a single run gives, byte for byte (`merge`); `slurm` writes the job scripts
//! that do all that on a cluster.
//!
//! The public API is [`run`] and [`run_hosted`] with their [`RunOptions`], and the shard
//! split; the parts, the merge and Slurm are the command's (`dupstream run --shard`,
//! `merge`, `slurm`).

pub mod assign;
pub(crate) mod merge;
#[doc(hidden)]
pub mod part;
pub(crate) mod pipeline;
pub(crate) mod slurm;
mod stop;

pub use crate::execute::Interrupted;
pub use assign::{ShardSpec, assign};
pub(crate) use pipeline::{Inputs, Print, Session};
pub use stop::Stopped;

use crate::plan::{Registry, cost};
use crate::record::{Purpose, ResultsDir};
use anyhow::Result;
use pipeline::gib;
use std::path::PathBuf;

/// What `dupstream run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The experiment file (a path under `experiments/` not on disk reads the built-in
    /// catalogue).
    pub experiment: PathBuf,
    /// `--scale F`: divide the stream length, every memory size and the key universe by `F`
    /// (`None`: the file's `[run] scale`, else 1).
    pub scale: Option<u64>,
    /// `--threads`: worker threads (`None`: every core); never more than there are cells.
    pub threads: Option<usize>,
    /// `--out`: the results directory (`None`: a new one under `results_root`).
    pub out: Option<PathBuf>,
    /// `--resume`: finish an interrupted run in `out`, keeping its finished cells.
    pub resume: bool,
    /// Where default results directories go (`results/` for the command).
    pub results_root: PathBuf,
    /// `--quiet`: nothing on stderr but warnings and errors (no progress or summary).
    pub quiet: bool,
    /// `--shard I/N`: run only shard `I` of `N` as a part to merge later.
    pub shard: Option<ShardSpec>,
    /// Print the end-of-run summary as JSON on stdout instead of the table.
    pub json: bool,
    /// Show each cell's difference from the paper's value in the printed table.
    pub diff: bool,
}

/// `dupstream run`: the whole experiment on this machine (or one shard of it).
/// SIGINT or SIGTERM stop it cleanly: every finished cell is kept, nothing else is written,
/// and the error is [`Stopped`], saying how to resume.
pub fn run(opts: &RunOptions, registry: &Registry) -> Result<()> {
    run_with(opts, registry, true).map(|_| ())
}

/// [`run`] inside a host process (the Python package): the host keeps its own SIGINT and
/// SIGTERM handling (none is installed), and the results directory is returned. A shard
/// is refused: a part is `dupstream run --shard`'s.
pub fn run_hosted(opts: &RunOptions, registry: &Registry) -> Result<PathBuf> {
    if opts.shard.is_some() {
        return Err(crate::plan::refuse("a shard runs from the command line"));
    }
    run_with(opts, registry, false)
}

/// [`run`], with or without the signal handlers; returns the results directory (empty for a
/// shard, whose part directory [`part::run`] chooses).
fn run_with(opts: &RunOptions, registry: &Registry, signals: bool) -> Result<PathBuf> {
    let session = Session::open(&opts.experiment, opts.scale, opts.threads, registry)?;
    let session = if signals {
        session.stop_on_signals()?
    } else {
        session
    };
    if let Some(shard) = opts.shard {
        let args = part::PartArgs {
            shard,
            out: opts.out.clone(),
            results_root: opts.results_root.clone(),
            resume: opts.resume,
            quiet: opts.quiet,
        };
        return part::run(&session, &args).map(|()| PathBuf::new());
    }
    let exp = &session.exp;
    let estimate =
        session.check_memory(exp, "this run", "use fewer --threads or a larger --scale")?;
    let purpose = if opts.resume {
        Purpose::Resume
    } else {
        Purpose::Run
    };
    let path = opts.out.clone().unwrap_or_else(|| {
        ResultsDir::default_path(&opts.results_root, exp, &session.digest, purpose)
    });
    // The lock comes first: nothing in the directory is read before it is held.
    let dir = ResultsDir::open(&path, &session.digest)?;
    // A shard part (finished, or in its default directory) resumed without --shard would
    // become a full run in the part's place.
    let part_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("shard-"))
        .and_then(|n| n.split_once("-of-"))
        .is_some_and(|(i, c)| i.parse::<usize>().is_ok() && c.parse::<usize>().is_ok());
    if path.join(part::SHARD_FILE).exists() || (opts.resume && part_name) {
        return Err(crate::plan::refuse(format!(
            "{} is a shard part; resume it with the same --shard I/N",
            path.display()
        )));
    }
    if ResultsDir::has_finished_run(&path) && !opts.resume {
        return Err(crate::plan::refuse(format!(
            "{} already holds a finished run; choose another --out",
            path.display()
        )));
    }
    let est_secs = session.estimate_secs(exp, &dir);
    if opts.resume && !opts.quiet {
        let left = session.pending(exp, &dir).len();
        eprintln!(
            "dupstream: resuming: {} of {} cells finished, {left} to run",
            exp.cells.len() - left,
            exp.cells.len()
        );
    }
    let time = if cost::has_unknown_len(exp) {
        format!(
            "~{est_secs:.0} s (a replay's length is unknown: counted as {} elements)",
            cost::UNKNOWN_LEN
        )
    } else {
        format!("{est_secs:.0} s")
    };
    if !opts.quiet {
        eprintln!(
            "dupstream: {} — {} cells, {} streams, scale {}, {} threads; estimated peak memory {:.2} GiB, estimated time {time}",
            exp.name,
            exp.cells.len(),
            exp.streams.len(),
            exp.scale,
            session.threads,
            gib(estimate),
        );
        eprintln!("dupstream: writing to {}", path.display());
    }
    let stopped = |e| stop::stopped(e, &session, &dir, exp, None);
    let ran = session.execute(exp, &dir, opts.quiet).map_err(stopped)?;
    let outcome = || session.outcome(estimate, est_secs, &ran);
    let print = match (opts.json, opts.quiet) {
        (true, _) => Print::Json,
        (false, true) => Print::Table { diff: opts.diff },
        (false, false) => Print::TableAndSummary { diff: opts.diff },
    };
    session
        .finish(&dir, &ran, Inputs::Write, outcome, |_| Ok(()), print)
        .map_err(stopped)?;
    if !opts.quiet {
        eprintln!("dupstream: results in {}", path.display());
    }
    Ok(path)
}
