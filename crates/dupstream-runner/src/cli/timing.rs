//! `dupstream timing`: time per element of each structure beside the paper's.

use crate::plan::Registry;
use crate::record::ResultsDir;
use crate::report;
use anyhow::Result;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct TimingArgs {
    /// A results directory written by `dupstream run`.
    results_dir: PathBuf,
}

pub fn run(args: TimingArgs, registry: &Registry) -> Result<()> {
    let dir = ResultsDir::existing(&args.results_dir);
    let exp = crate::plan::load_recorded(&dir.join("run.toml"), registry)?;
    let rows = dir.read_raw()?;
    outln!("{}", report::timing::timing(dir.path(), &exp, &rows)?)?;
    Ok(())
}
