//! `dupstream compare`: a results directory beside the paper's values (rewrites the table and
//! charts, prints the table).

use crate::plan::Registry;
use crate::record::ResultsDir;
use crate::report;
use anyhow::{Result, bail};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// A results directory written by `dupstream run`.
    results_dir: PathBuf,
}

pub fn run(args: CompareArgs, registry: &Registry) -> Result<()> {
    let dir = ResultsDir::existing(&args.results_dir);
    let (exp, rows) = report::load(&dir, registry)?;
    if exp.reference.is_none() {
        bail!(
            "{} has no paper values to compare with",
            dir.path().display()
        );
    }
    outln!("{}", report::write(&exp, &dir, &rows)?)?;
    Ok(())
}
