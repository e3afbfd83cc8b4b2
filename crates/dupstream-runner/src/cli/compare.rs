//! `dupstream compare`: a results directory beside the paper's values (rewrites the table and
//! charts, prints the table), or two results directories side by side, cell by cell.

use crate::plan::Registry;
use crate::record::{ResultsDir, read_result_json};
use crate::report;
use crate::report::runs::{self, Run};
use anyhow::Result;
use serde::Serialize;
use std::path::PathBuf;

pub const COMPARE_EXAMPLES: &str = "\
Examples:
  dupstream compare results/bera-journal-table7/<dir>
      the run beside the paper's values (rewrites table.csv and table.md; --diff shows
      each cell's difference from the paper)
  dupstream compare results/bera-journal-table7/<dir-a> results/bera-journal-table7/<dir-b>
      run B against run A, cell by cell: the difference, flagged where it exceeds the
      combined 95 % confidence interval of the two runs' seeds
  dupstream compare A B --json                 the same as JSON (fields in SCHEMA.md)";

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// One results directory (compared with the paper's values), or two (run B against run A).
    #[arg(required = true, num_args = 1..=2, value_name = "RESULTS_DIR")]
    dirs: Vec<PathBuf>,
    /// Print JSON (field names in SCHEMA.md) instead of the table.
    #[arg(long)]
    json: bool,
    /// Beside the paper: show each cell's difference from the paper's value (in percentage
    /// points) in the terminal table.
    #[arg(long)]
    diff: bool,
    /// Run against run: show every checkpoint, not only the last of each cell (JSON always
    /// has every checkpoint).
    #[arg(long)]
    all_checkpoints: bool,
}

/// `compare RUN --json`.
#[derive(Debug, Serialize)]
struct PaperComparison<'a> {
    experiment: &'a str,
    dir: String,
    /// Cells with a paper value, and those within the reproduction's tolerance of it.
    compared: usize,
    within_tolerance: usize,
    cells: &'a [report::table::TableCell],
}

pub fn run(args: CompareArgs, registry: &Registry) -> Result<()> {
    if let [a, b] = args.dirs.as_slice() {
        let c = runs::compare(&side(a, registry)?, &side(b, registry)?);
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&c)?)?;
        } else {
            out!("{}", c.markdown(args.all_checkpoints))?;
        }
        return Ok(());
    }
    let dir = ResultsDir::existing(&args.dirs[0]);
    let (exp, rows) = report::load(&dir, registry)?;
    if exp.reference.is_none() {
        return Err(crate::plan::refuse(format!(
            "{} has no paper values to compare with (give a second results directory to compare two runs)",
            dir.path().display()
        )));
    }
    let table = report::write(&exp, &dir, &rows)?;
    if args.json {
        let cells = &table.cells;
        let out = PaperComparison {
            experiment: &exp.name,
            dir: dir.path().display().to_string(),
            compared: cells
                .iter()
                .filter(|c| c.within_tolerance.is_some())
                .count(),
            within_tolerance: cells
                .iter()
                .filter(|c| c.within_tolerance == Some(true))
                .count(),
            cells,
        };
        outln!("{}", serde_json::to_string_pretty(&out)?)?;
    } else {
        out!("{}", table.text(args.diff))?;
    }
    Ok(())
}

/// A results directory as one side of a run-against-run comparison.
fn side(path: &std::path::Path, registry: &Registry) -> Result<Run> {
    let dir = ResultsDir::existing(path);
    let (exp, rows) = report::load(&dir, registry)?;
    let revision = read_result_json::<serde_json::Value>(dir.path(), "manifest.json")
        .ok()
        .and_then(|m| m.get("git_revision")?.as_str().map(str::to_string));
    Ok(Run {
        name: path.display().to_string(),
        experiment: exp.name,
        scale: exp.scale,
        revision,
        rows,
    })
}
