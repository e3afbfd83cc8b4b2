//! Stage 5, distribution: every way a run is carried out. [`pipeline`] is the one open →
//! execute → finish path; [`run`] takes it on one machine; sweeps that outgrow one machine
//! are split into shards ([`assign`]), each run as a part ([`part`]), and merged into the
//! results a single run gives, byte for byte ([`merge`]); [`slurm`] writes the job scripts
//! that do all that on a cluster.

pub mod assign;
pub mod merge;
pub mod part;
pub mod pipeline;
pub mod slurm;

pub use assign::{ShardSpec, assign};
pub use pipeline::{Inputs, Print, Session};

use crate::plan::{Registry, cost};
use crate::record::{Purpose, ResultsDir};
use anyhow::{Result, bail};
use pipeline::gib;
use std::path::PathBuf;

/// What `dupstream run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub experiment: PathBuf,
    pub scale: Option<u64>,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    pub resume: bool,
    pub results_root: PathBuf,
    pub quiet: bool,
    pub shard: Option<ShardSpec>,
}

/// `dupstream run`: the whole experiment on this machine (or one shard of it).
pub fn run(opts: &RunOptions, registry: &Registry) -> Result<()> {
    let session = Session::open(&opts.experiment, opts.scale, opts.threads, registry)?;
    if let Some(shard) = opts.shard {
        let args = part::PartArgs {
            shard,
            out: opts.out.clone(),
            results_root: opts.results_root.clone(),
            resume: opts.resume,
            quiet: opts.quiet,
        };
        return part::run(&session, &args);
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
    if ResultsDir::has_finished_run(&path) && !opts.resume {
        bail!(
            "{} already holds a finished run; choose another --out",
            path.display()
        );
    }
    let time = if cost::has_unknown_len(exp) {
        format!(
            "~{:.0} s (a replay's length is unknown: counted as {} elements)",
            cost::run_secs(exp, session.threads),
            cost::UNKNOWN_LEN
        )
    } else {
        format!("{:.0} s", cost::run_secs(exp, session.threads))
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
    let ran = session.execute(exp, &dir, opts.quiet)?;
    let outcome = || session.outcome(estimate, &ran);
    let print = if opts.quiet {
        Print::Table
    } else {
        Print::TableAndSummary
    };
    session.finish(&dir, &ran, Inputs::Write, outcome, |_| Ok(()), print)?;
    if !opts.quiet {
        eprintln!("dupstream: results in {}", path.display());
    }
    Ok(())
}
