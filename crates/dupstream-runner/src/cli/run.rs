//! `dupstream run`.

use crate::orchestrate::{self, RunOptions, ShardSpec};
use crate::plan::Registry;
use anyhow::Result;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Divide the stream length, every memory size and the key universe by F (keeps N/M and
    /// N/U fixed). Overrides the file's [run] scale; its [run] max_scale caps it.
    #[arg(long, value_name = "F", value_parser = crate::plan::validate::grid::parse_scale_flag)]
    pub scale: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Output directory (default: results/<experiment>/<date>-<host>-<rev>[-scale<F>]).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue an interrupted run: skip the cells already finished in the output directory.
    #[arg(long)]
    pub resume: bool,
    /// Root of the default output directories.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_root: PathBuf,
    /// Nothing on stderr but warnings and errors (no progress, per-cell lines or summary); the
    /// table still goes to stdout.
    #[arg(long, short)]
    pub quiet: bool,
    /// Run only shard I of N (0 <= I < N): the cells assigned to it, balanced by estimated
    /// cost. Writes a part for `dupstream merge` (default: results/<experiment>/shards-<rev>-<digest>/shard-I-of-N).
    #[arg(long, value_name = "I/N", allow_hyphen_values = true)]
    pub shard: Option<ShardSpec>,
    /// Print the end-of-run summary (each cell's wall time and ns per element beside the
    /// estimate, the total) as JSON on stdout instead of the table (field names in SCHEMA.md).
    /// Not with --shard: a part has no such summary (its record is shard.json).
    #[arg(long, conflicts_with = "shard")]
    pub json: bool,
    /// Show each cell's difference from the paper's value (in percentage points) in the
    /// printed table.
    #[arg(long)]
    pub diff: bool,
}

pub fn run(a: RunArgs, registry: &Registry) -> Result<()> {
    let opts = RunOptions {
        experiment: a.experiment,
        scale: a.scale,
        threads: a.threads,
        out: a.out,
        resume: a.resume,
        results_root: a.results_root,
        quiet: a.quiet,
        shard: a.shard,
        json: a.json,
        diff: a.diff,
    };
    orchestrate::run(&opts, registry)
}
