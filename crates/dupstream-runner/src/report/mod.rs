//! Stage 4, the report: everything derived from result rows without running anything again:
//! derived series, paper-style tables with the paper's values, two runs side by side
//! ([`runs`]), statistics, charts, timing and the analytic (theory) figures.

pub mod charts;
pub mod derived;
pub mod reference;
pub mod runs;
pub mod stats;
pub mod table;
pub mod theory;
pub mod timing;

use crate::plan::{Experiment, Registry};
use crate::record::{RawRow, ResultsDir};
use anyhow::Result;
use std::path::PathBuf;

/// The measured rows of a run with its derived rows appended.
pub fn with_derived(exp: &Experiment, mut rows: Vec<RawRow>) -> (Vec<RawRow>, Vec<RawRow>) {
    let derived = derived::compute(&exp.derived, &rows, exp.cells.len());
    rows.extend(derived.iter().cloned());
    (rows, derived)
}

/// Writes the table (`table.csv`, `table.md`) and the charts from all rows (measured and
/// derived); returns the Markdown table.
pub fn write(exp: &Experiment, dir: &ResultsDir, rows: &[RawRow]) -> Result<String> {
    let reference = reference::of(exp)?;
    let cells = table::build(rows, &exp.table, &reference);
    let md = table::write(dir.path(), &exp.name, &note(exp), &exp.table, &cells)?;
    charts::draw(dir.path(), &exp.name, rows, &exp.charts, &reference)?;
    Ok(md)
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

/// A finished results directory read back: the experiment as run and every row (derived
/// ones recomputed).
pub fn load(dir: &ResultsDir, registry: &Registry) -> Result<(Experiment, Vec<RawRow>)> {
    let exp = crate::plan::load_with(&dir.join("run.toml"), None, registry)?;
    let (rows, _) = with_derived(&exp, dir.read_raw()?);
    Ok((exp, rows))
}

/// Re-draws the charts of a finished results directory.
pub fn redraw(dir: &ResultsDir, registry: &Registry) -> Result<Vec<PathBuf>> {
    let (exp, rows) = load(dir, registry)?;
    let reference = reference::of(&exp)?;
    charts::draw(dir.path(), &exp.name, &rows, &exp.charts, &reference)
}
