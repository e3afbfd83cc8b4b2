//! Paper-style tables: our final error rates beside the paper's, with the difference.
//! [`build`] groups the final rows into table cells; [`markdown`] renders them.

mod build;
mod cell;
mod markdown;

pub use build::{build, metric_value};
pub use cell::TableCell;
pub use markdown::{markdown, md_cell};

use crate::plan::TableLayout;
use crate::record::{atomic_write, write_csv};
use anyhow::Result;
use std::path::Path;

/// Writes `table.csv` and `table.md`; returns the Markdown.
pub fn write(
    dir: &Path,
    title: &str,
    note: &str,
    layout: &TableLayout,
    cells: &[TableCell],
) -> Result<String> {
    write_csv(&dir.join("table.csv"), cells)?;
    let md = markdown(title, note, layout, cells);
    atomic_write(&dir.join("table.md"), md.as_bytes())?;
    Ok(md)
}
