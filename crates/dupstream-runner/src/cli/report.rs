//! `dupstream report`: static HTML pages over one results directory or a tree of them.

use crate::plan::{Registry, refuse};
use crate::record::ResultsDir;
use crate::report::{self, html, leaderboard_page};
use anyhow::Result;
use std::path::{Path, PathBuf};

pub const REPORT_EXAMPLES: &str = "\
Examples:
  dupstream report results/bera-journal-table7/<date>-<host>-<rev>-scale64
      index.html in that directory: table, charts, manifest, links to the CSVs
  dupstream report results
      the same in every results directory under results/, and results/index.html over them
  dupstream report results --plot
      re-draw every directory's charts from its raw.csv first (as `dupstream plot`)

Under a directory of results, the latest runs of the experiments named leaderboard-… are
ranked on results/leaderboard/index.html (the numbers of `dupstream leaderboard`, with a
Pareto chart per workload and track), linked from results/index.html.

Open the index.html in a browser: no server is needed and nothing is fetched.";

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results directory (holding raw.csv), or a directory of them (e.g. results/).
    path: PathBuf,
    /// Re-draw the charts of each results directory before writing its page.
    #[arg(long)]
    plot: bool,
    /// The experiments ranked on the leaderboard page (`leaderboard/index.html` under a
    /// directory of results, linked from its index): those whose name starts with this.
    #[arg(long, value_name = "PREFIX", default_value = "leaderboard-")]
    leaderboard_prefix: String,
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
        for d in &dirs {
            // A directory that cannot be re-drawn keeps its charts; the page is written all
            // the same. (A replay's input is not needed: charts are drawn from raw.csv.)
            if let Err(e) = report::redraw(&ResultsDir::existing(d), registry) {
                eprintln!(
                    "dupstream: warning: {}: charts not re-drawn: {e:#}",
                    d.display()
                );
            }
        }
    }
    // Nothing is shown from a run that does not check against its commit record: the first
    // one that fails is refused, naming its file (after --plot, which mends its charts).
    for d in &dirs {
        crate::record::verify_run(d)?;
    }
    if single {
        outln!("{}", html::write_run(&args.path, None)?.display())?;
    } else {
        let board = leaderboard_page(&args.path, &args.leaderboard_prefix, registry);
        let (root, pages) = html::write_root(&args.path, board.as_deref())?;
        eprintln!("dupstream: {} run pages", pages.len());
        if let Some(board) = board {
            eprintln!("dupstream: leaderboard page {}", board.display());
        }
        outln!("{}", root.display())?;
    }
    Ok(())
}

/// Writes the leaderboard page under `root` when runs of experiments named `prefix…` are
/// there; a leaderboard that cannot be read is left out with a warning, and the other pages
/// are written all the same.
fn leaderboard_page(root: &Path, prefix: &str, registry: &Registry) -> Option<PathBuf> {
    let written = leaderboard_page::rank(&[root.to_path_buf()], Some(prefix), None, registry)
        .and_then(|ranked| {
            if ranked.boards.is_empty() {
                Ok(None)
            } else {
                leaderboard_page::write(root, &ranked).map(Some)
            }
        });
    written.unwrap_or_else(|e| {
        eprintln!("dupstream: warning: no leaderboard page: {e:#}");
        None
    })
}
