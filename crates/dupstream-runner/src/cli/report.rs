//! `dupstream report`: static HTML pages over one results directory or a tree of them.

use crate::plan::{Registry, refuse};
use crate::record::ResultsDir;
use crate::report::{self, html};
use anyhow::Result;
use std::path::PathBuf;

pub const REPORT_EXAMPLES: &str = "\
Examples:
  dupstream report results/bera-journal-table7/<date>-<host>-<rev>-scale64
      index.html in that directory: table, charts, manifest, links to the CSVs
  dupstream report results
      the same in every results directory under results/, and results/index.html over them
  dupstream report results --plot
      re-draw every directory's charts from its raw.csv first (as `dupstream plot`)

Open the index.html in a browser: no server is needed and nothing is fetched.";

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results directory (holding raw.csv), or a directory of them (e.g. results/).
    path: PathBuf,
    /// Re-draw the charts of each results directory before writing its page.
    #[arg(long)]
    plot: bool,
}

pub fn run(args: ReportArgs, registry: &Registry) -> Result<()> {
    if !args.path.is_dir() {
        return Err(refuse(format!(
            "{}: not a directory (give a results directory or a directory of them)",
            args.path.display()
        )));
    }
    let single = html::is_results_dir(&args.path);
    let dirs = if single {
        vec![args.path.clone()]
    } else {
        html::results_dirs(&args.path)
            .map_err(|e| refuse(format!("{e:#}")))?
            .into_iter()
            .filter(|d| *d != args.path)
            .collect()
    };
    if dirs.is_empty() {
        return Err(refuse(format!(
            "{}: no results directory (with raw.csv) under it",
            args.path.display()
        )));
    }
    // A raw.csv that does not read as rows would give an empty page.
    if single {
        let why = match ResultsDir::existing(&args.path).read_raw() {
            Ok(rows) if rows.is_empty() => Some("raw.csv holds no rows".to_string()),
            Ok(_) => None,
            Err(e) => Some(format!("raw.csv is not a results table: {e:#}")),
        };
        if let Some(why) = why {
            return Err(refuse(format!("{}: {why}", args.path.display())));
        }
    }
    if args.plot {
        for d in dirs {
            // A directory that cannot be re-drawn keeps its charts; the page is written all
            // the same. (A replay's input is not needed: charts are drawn from raw.csv.)
            if let Err(e) = report::redraw(&ResultsDir::existing(&d), registry) {
                eprintln!(
                    "dupstream: warning: {}: charts not re-drawn: {e:#}",
                    d.display()
                );
            }
        }
    }
    if single {
        outln!("{}", html::write_run(&args.path, None)?.display())?;
    } else {
        let (root, pages) = html::write_root(&args.path)?;
        eprintln!("dupstream: {} run pages", pages.len());
        outln!("{}", root.display())?;
    }
    Ok(())
}
