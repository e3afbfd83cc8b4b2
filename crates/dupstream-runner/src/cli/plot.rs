//! `dupstream plot`: re-draw a results directory's charts from its `raw.csv`.

use crate::plan::Registry;
use crate::record::ResultsDir;
use crate::report;
use anyhow::Result;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// A results directory written by `dupstream run`.
    results_dir: PathBuf,
}

pub fn run(args: PlotArgs, registry: &Registry) -> Result<()> {
    for p in report::redraw(&ResultsDir::existing(&args.results_dir), registry)? {
        outln!("{}", p.display())?;
    }
    Ok(())
}
