//! Stage 4, the report: everything derived from result rows without running anything again:
//! derived series, paper-style tables with the paper's values, two runs side by side
//! (`runs.rs`), statistics, charts, timing, the analytic (theory) figures and the documents'
//! generated blocks ([`docs`]).
//!
//! Not a stable API: public, and hidden from the documentation, only for the Python package
//! (ranking a leaderboard's runs, [`leaderboard_page`]) and the runner's integration tests;
//! a user reads a run's results through [`crate::record`].

pub(crate) mod charts;
pub(crate) mod derived;
pub mod docs;
pub(crate) mod html;
pub mod leaderboard;
pub mod leaderboard_page;
pub mod readings;
pub(crate) mod reference;
pub(crate) mod runs;
pub(crate) mod stats;
pub(crate) mod table;
pub(crate) mod theory;
pub(crate) mod timing;

use crate::plan::{Experiment, Registry};
use crate::record::{CellTiming, RawRow, ResultsDir, read_result_json};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The measured rows of a run with its derived rows appended.
pub fn with_derived(exp: &Experiment, mut rows: Vec<RawRow>) -> (Vec<RawRow>, Vec<RawRow>) {
    let derived = derived::compute(&exp.derived, &rows, exp.cells.len());
    rows.extend(derived.iter().cloned());
    (rows, derived)
}

/// Writes the table (`table.csv`, `table.md`) and the charts from all rows (measured and
/// derived) of a finished results directory (cell timings from its manifest); returns the
/// table.
pub fn write(exp: &Experiment, dir: &ResultsDir, rows: &[RawRow]) -> Result<table::Table> {
    let ns = cell_ns(dir)?;
    write_with(exp, dir, rows, &ns)
}

/// [`write`](fn@write) for a run being finished, whose cell timings are `timings`.
pub fn write_timed(
    exp: &Experiment,
    dir: &ResultsDir,
    rows: &[RawRow],
    timings: &[CellTiming],
) -> Result<table::Table> {
    let ns = timings.iter().map(|t| (t.cell, t.ns_per_element)).collect();
    write_with(exp, dir, rows, &ns)
}

fn write_with(
    exp: &Experiment,
    dir: &ResultsDir,
    rows: &[RawRow],
    ns: &BTreeMap<usize, f64>,
) -> Result<table::Table> {
    let reference = reference::of(exp)?;
    let cells = table::build(rows, &exp.table, &reference);
    let table = table::write(dir.path(), &exp.name, &note(exp), &exp.table, cells)?;
    let mut written = charts::draw(dir.path(), exp, rows, &reference, ns)?;
    written.extend(["table.csv", "table.md"].map(|f| dir.join(f)));
    // A finished run rewritten (`compare`, `migrate`): its record follows what was written.
    crate::record::update_commit(dir.path(), &written)?;
    Ok(table)
}

/// The ns per element of each cell of a finished results directory, from its manifest
/// (empty when it has none).
pub fn cell_ns(dir: &ResultsDir) -> Result<BTreeMap<usize, f64>> {
    #[derive(serde::Deserialize)]
    struct Cells {
        cells: Vec<CellTiming>,
    }
    if !dir.has("manifest.json") {
        return Ok(BTreeMap::new());
    }
    let m: Cells = read_result_json(dir.path(), "manifest.json")?;
    Ok(m.cells
        .into_iter()
        .map(|t| (t.cell, t.ns_per_element))
        .collect())
}

/// The note under the table's title: the description, the scale, the streams and where the
/// paper's values come from.
fn note(exp: &Experiment) -> String {
    let source = match &exp.reference {
        Some((_, name)) => format!(
            "Paper values: {} `{name}`.",
            exp.paper.as_deref().unwrap_or("paper")
        ),
        None => "No paper values for this experiment.".to_string(),
    };
    format!(
        "{}\n\nScale 1/{}: memory sizes are nominal (as in the paper); each run used nominal/{}. Stream(s): {}. {source}",
        exp.description,
        exp.scale,
        exp.scale,
        exp.stream_labels().join("; ")
    )
}

/// A finished results directory read back, once every file checks against its commit record
/// ([`verify_run`](crate::record::verify_run); a damaged run is refused naming the file):
/// the experiment as run and every row (derived ones recomputed).
pub fn load(dir: &ResultsDir, registry: &Registry) -> Result<(Experiment, Vec<RawRow>)> {
    crate::record::verify_run(dir.path())?;
    load_unverified(dir, registry)
}

/// [`load`] without the check, for a directory whose files were just rewritten (`migrate`).
pub fn load_unverified(dir: &ResultsDir, registry: &Registry) -> Result<(Experiment, Vec<RawRow>)> {
    let exp = crate::plan::load_recorded(&dir.join("run.toml"), registry)?;
    let raw = dir.read_raw()?;
    same_cells(&exp, &raw)?;
    let (rows, _) = with_derived(&exp, raw);
    Ok((exp, rows))
}

/// Whether the rows of a run are the cells its experiment plans today: the same structure
/// (by its registry name) and memory size, built within the same state budget, at each cell
/// number. Under held budgets (`[grid] budget = "held"`) the planner measures each
/// structure, so a build of the structures that holds another amount plans other cells;
/// their rows would be read as the wrong cells. Refused, naming the first cell that differs.
fn same_cells(exp: &Experiment, rows: &[RawRow]) -> Result<()> {
    for r in rows {
        let planned = exp.cells.get(r.cell);
        // The structure by its registry name: older files name configurations otherwise.
        if planned.is_none_or(|c| {
            (c.filter.name(), c.memory_nominal_bits, c.budget_bits)
                != (
                    r.algorithm.as_str(),
                    r.memory_nominal_bits,
                    r.memory_bits_budget,
                )
        }) {
            let today = planned.map_or("no such cell".to_string(), |c| {
                format!("`{}` within {} bits", c.config, c.budget_bits)
            });
            return Err(crate::plan::refuse(format!(
                "cell {} ran `{}` within a state budget of {} bits, but its experiment plans {today} with this build of the structures; run it again",
                r.cell,
                r.config(),
                r.memory_bits_budget
            )));
        }
    }
    Ok(())
}

/// Re-draws the charts of a finished results directory (every other file checked first, as by
/// [`load`]: a damaged chart is what redrawing mends); its commit record follows the charts
/// written.
pub fn redraw(dir: &ResultsDir, registry: &Registry) -> Result<Vec<PathBuf>> {
    crate::record::verify_run_but(dir.path(), crate::record::verify::is_chart)?;
    let (exp, rows) = load_unverified(dir, registry)?;
    let reference = reference::of(&exp)?;
    let ns = cell_ns(dir)?;
    let written = charts::draw(dir.path(), &exp, &rows, &reference, &ns)?;
    crate::record::update_commit(dir.path(), &written)?;
    Ok(written)
}

#[cfg(test)]
mod same_cells_tests {
    use super::*;
    use crate::record::rows::test_row;

    /// A run's rows are read only as the cells its experiment plans today: another state
    /// budget (a build of the structures that holds another amount, under held budgets),
    /// another structure or a cell number past the plan is refused, naming the cell.
    #[test]
    fn rows_sized_by_another_build_are_refused() {
        let text = "name = \"t\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nlabel = \"Bloom\"\nname = \"bloom\"\nk = 2\n";
        let exp = crate::plan::parse_with(
            std::path::Path::new("t.toml"),
            text,
            None,
            &Registry::builtin(),
        )
        .unwrap();
        let row = test_row("Bloom", 0, 0.1, 0.0);
        assert_eq!(row.algorithm, "bloom");
        assert!(same_cells(&exp, std::slice::from_ref(&row)).is_ok());
        let mut other = row.clone();
        other.memory_bits_budget = 8000;
        let err = same_cells(&exp, &[other]).unwrap_err().to_string();
        assert!(
            err.contains("cell 0 ran `Bloom` within a state budget of 8000 bits"),
            "{err}"
        );
        assert!(same_cells(&exp, &[test_row("Bloom", 1, 0.1, 0.0)]).is_err());
        assert!(same_cells(&exp, &[test_row("SBF", 0, 0.1, 0.0)]).is_err());
    }
}
