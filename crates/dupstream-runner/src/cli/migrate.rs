//! `dupstream migrate`: rewrite finished results directories written by an older version in
//! the current layout (SCHEMA.md), keeping every value: `raw.csv`, `derived.csv` and
//! `cells.csv` gain the columns added since (a missing `config` is the label), the table and
//! the charts are drawn again from the rows, and the commit record lists the new files.

use crate::plan::Registry;
use crate::plan::refuse;
use crate::record::ResultsDir;
use crate::report;
use crate::report::html::results_dirs;
use anyhow::{Context, Result};
use std::path::PathBuf;

pub const MIGRATE_EXAMPLES: &str = "\
Examples:
  dupstream migrate results/bera-journal-table7/2026-11-24-vm-090024e
  dupstream migrate results          every finished results directory under results/";

#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    /// Results directories, or directories to search for them.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

pub fn run(args: MigrateArgs, registry: &Registry) -> Result<()> {
    let mut found = Vec::new();
    for d in &args.dirs {
        if !d.is_dir() {
            return Err(refuse(format!("{}: no such directory", d.display())));
        }
        found.extend(results_dirs(d)?);
    }
    if found.is_empty() {
        return Err(refuse(
            "no results directory (with raw.csv) under the directories given",
        ));
    }
    for path in found {
        let dir = ResultsDir::open_finished(&path)?;
        // A finished run is migrated only as it was finished (an older one has no record).
        if ResultsDir::has_finished_run(&path) {
            crate::record::verify_run(&path)?;
        }
        let rows = dir
            .migrate_rows()
            .with_context(|| format!("migrating {}", path.display()))?;
        let (exp, all) = report::load_unverified(&dir, registry)
            .with_context(|| format!("reading {} back", path.display()))?;
        report::write(&exp, &dir, &all)?;
        if ResultsDir::has_finished_run(&path) {
            dir.refresh_commit_files()?;
        } else {
            eprintln!(
                "warning: {}: no commit record (written by a version before it, or unfinished); rewritten without one",
                path.display()
            );
        }
        outln!("{}: {} rows", path.display(), rows.len())?;
    }
    Ok(())
}
