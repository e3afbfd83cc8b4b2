//! `dupstream migrate`: a finished directory's result files rewritten in the current layout.

use super::ResultsDir;
use crate::record::RawRow;
use crate::record::files::{
    atomic_write, is_compressed, read_result_rows, read_rows, result_path, write_result,
};
use crate::record::lock::DirLock;
use crate::record::tidy::{cells_csv_bytes, raw_csv_bytes};
use anyhow::Result;
use std::path::Path;
use std::sync::Arc;

impl ResultsDir {
    /// Opens an existing results directory to rewrite its files in place (`migrate`): takes
    /// its lock, as a run does, and refuses a directory without `raw.csv`.
    pub(crate) fn open_finished(path: &Path) -> Result<Self> {
        if result_path(path, "raw.csv").is_none() {
            return Err(crate::plan::refuse(format!(
                "{}: not a results directory (no raw.csv)",
                path.display()
            )));
        }
        let lock = DirLock::acquire(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            digest: None,
            _lock: Some(Arc::new(lock)),
            compress: false,
        })
    }

    /// Rewrites the result files of a finished directory in the current layout: `raw.csv`,
    /// `derived.csv` and `cells.csv` read back (columns an older version did not write are
    /// filled: a missing `config` is the label) and written again, each in the form it was
    /// stored in (plain or compressed); every value they held is kept. Returns the rows of
    /// `raw.csv`.
    pub(crate) fn migrate_rows(&self) -> Result<Vec<RawRow>> {
        let upgrade = |mut rows: Vec<RawRow>| {
            for r in &mut rows {
                if r.config.is_empty() {
                    r.config = r.label.clone();
                }
            }
            rows
        };
        let raw = upgrade(self.read_raw()?);
        let gz = |name: &str| is_compressed(&self.path, name);
        write_result(&self.path, "raw.csv", &raw_csv_bytes(&raw)?, gz("raw.csv"))?;
        if self.join("derived.csv").is_file() {
            let derived = upgrade(read_rows::<RawRow>(&self.join("derived.csv"))?);
            atomic_write(&self.join("derived.csv"), &raw_csv_bytes(&derived)?)?;
        }
        if self.has("cells.csv") {
            let mut cells = read_result_rows::<crate::record::CellRow>(&self.path, "cells.csv")?;
            for c in &mut cells {
                if c.config.is_empty() {
                    c.config = c.label.clone();
                }
            }
            let bytes = cells_csv_bytes(&cells)?;
            write_result(&self.path, "cells.csv", &bytes, gz("cells.csv"))?;
        }
        Ok(raw)
    }
}
