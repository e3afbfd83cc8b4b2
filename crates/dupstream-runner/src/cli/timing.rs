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
    let (exp, rows) = report::load(&dir, registry)?;
    let md = report::timing::timing(dir.path(), &exp, &rows)?;
    crate::record::update_commit(
        dir.path(),
        &["timing.csv", "timing.md"].map(|f| dir.join(f)),
    )?;
    outln!("{md}")?;
    Ok(())
}
