//! The commit record, written last: every cell and every output file with its checksum.

use super::ResultsDir;
use super::records::{COMMIT_FILE, CommitRecord, CommittedCell, collect_files};
use crate::plan::Experiment;
use crate::record::files::{read_json, sync_dir, write_json};
use anyhow::{Context, Result};

impl ResultsDir {
    /// Writes the commit record, last: every cell of `exp` (from its record) and every file
    /// of the directory outside `cells/` with its checksum; written to a temporary file,
    /// synced, renamed into place and the directory synced, so it is either whole or absent.
    pub(crate) fn commit(&self, exp: &Experiment) -> Result<()> {
        let digest = self
            .digest
            .clone()
            .context("a directory opened for writing")?;
        let mut cells = Vec::with_capacity(exp.cells.len());
        for c in &exp.cells {
            let r = self.cell_record(c.index)?;
            cells.push(CommittedCell {
                cell: c.index,
                rows: r.rows,
                checksum: r.checksum,
            });
        }
        let mut files = Vec::new();
        collect_files(&self.path, &self.path, &mut files)?;
        let record = CommitRecord {
            digest,
            scale: exp.scale,
            cells,
            files,
        };
        write_json(&self.join(COMMIT_FILE), &record)?;
        sync_dir(&self.path)
    }

    /// Brings the commit record's file list up to date after files were rewritten in place
    /// (`migrate`, `plot`): the cells are kept as committed.
    pub(crate) fn refresh_commit_files(&self) -> Result<()> {
        let mut record: CommitRecord = read_json(&self.join(COMMIT_FILE))?;
        let mut files = Vec::new();
        collect_files(&self.path, &self.path, &mut files)?;
        record.files = files;
        write_json(&self.join(COMMIT_FILE), &record)?;
        sync_dir(&self.path)
    }
}
