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
    let (rows, _) = with_derived(&exp, dir.read_raw()?);
    Ok((exp, rows))
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
