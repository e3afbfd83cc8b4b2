//! Paper-style tables: our final error rates beside the paper's, with the difference.
//! [`build()`] groups the final rows into table cells; [`markdown()`] renders them for
//! `table.md`, [`text()`] for a terminal.

mod build;
mod cell;
mod markdown;
mod text;

pub use build::{build, metric_value};
pub use cell::TableCell;
pub use markdown::{markdown, md_cell};
pub use text::{WIDTH, text};

use crate::plan::TableLayout;
use crate::record::{atomic_write, write_csv};
use anyhow::Result;
use std::path::Path;

/// A table as written: its cells and what `table.md` holds, for printing.
#[derive(Debug, Clone)]
pub struct Table {
    pub title: String,
    pub note: String,
    pub layout: TableLayout,
    pub cells: Vec<TableCell>,
    /// The text of `table.md`.
    pub markdown: String,
}

impl Table {
    /// The table as aligned plain text that fits [`WIDTH`] columns (see [`text`]); `diff`
    /// adds each cell's difference from the paper.
    pub fn text(&self, diff: bool) -> String {
        text(
            &self.title,
            &self.note,
            &self.layout,
            &self.cells,
            diff,
            WIDTH,
        )
    }
}

/// Writes `table.csv` and `table.md`; returns the table.
pub fn write(
    dir: &Path,
    title: &str,
    note: &str,
    layout: &TableLayout,
    cells: Vec<TableCell>,
) -> Result<Table> {
    write_csv(&dir.join("table.csv"), &cells)?;
    let md = markdown(title, note, layout, &cells);
    atomic_write(&dir.join("table.md"), md.as_bytes())?;
    Ok(Table {
        title: title.to_string(),
        note: note.to_string(),
        layout: layout.clone(),
        cells,
        markdown: md,
    })
}
