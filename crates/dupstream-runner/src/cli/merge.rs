//! `dupstream merge`: combine shard parts into the results a single run gives.

use crate::orchestrate::merge::merge;
use crate::plan::Registry;
use anyhow::Result;
use std::path::PathBuf;

pub const MERGE_EXAMPLES: &str = "\
Examples:
  dupstream run my.toml --shard 0/2 --out parts/0      (on one machine)
  dupstream run my.toml --shard 1/2 --out parts/1      (on another)
  dupstream merge parts/0 parts/1 --out results/my
  dupstream merge parts --out results/my               a directory of parts works too

The merged raw.csv is byte-identical to `dupstream run my.toml`'s. Parts from different
experiment files, scales or git revisions are refused; missing shards are named.";

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard parts (directories written by `dupstream run --shard`), or directories holding them.
    #[arg(required = true, value_name = "PARTS")]
    pub parts: Vec<PathBuf>,
    /// Where to write the merged results.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Print no table or summary.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: MergeArgs, registry: &Registry) -> Result<()> {
    merge(&args.parts, &args.out, args.quiet, registry)
}
