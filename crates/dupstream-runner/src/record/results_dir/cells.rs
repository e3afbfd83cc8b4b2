//! A finished cell's files (`cells/cell-NNNNN.csv`, then its record): writing them, what
//! they say about the cell, and copying them from a shard part.

use super::ResultsDir;
use super::records::{CellRecord, CellState, checksum, verify_cell};
use crate::record::files::{atomic_write, csv_bytes, read_json, write_json};
use crate::record::{CellTiming, RawRow};
use anyhow::{Context, Result};
use std::path::PathBuf;

impl ResultsDir {
    /// The rows (`.csv`) and record (`.json`) files of a cell.
    pub fn cell_files(&self, cell: usize) -> (PathBuf, PathBuf) {
        let cells = self.path.join("cells");
        (
            cells.join(format!("cell-{cell:05}.csv")),
            cells.join(format!("cell-{cell:05}.json")),
        )
    }

    /// Writes a finished cell: its rows first, then its record (whose presence marks it
    /// done), each atomically.
    pub(crate) fn write_cell(
        &self,
        cell: usize,
        rows: &[RawRow],
        timing: &CellTiming,
    ) -> Result<()> {
        let (csv_path, json_path) = self.cell_files(cell);
        std::fs::create_dir_all(csv_path.parent().expect("cells dir"))?;
        let bytes = csv_bytes(rows)?;
        let record = CellRecord {
            digest: self
                .digest
                .clone()
                .context("a directory opened for writing")?,
            scale: rows.first().map_or(0, |r| r.scale),
            cell,
            rows: rows.len(),
            checksum: checksum(&bytes),
            timing: timing.clone(),
        };
        atomic_write(&csv_path, &bytes)?;
        write_json(&json_path, &record)
    }

    /// What a cell's files say, checked against the experiment (`digest`, `scale`): the
    /// record must be the cell's and the experiment's, and the rows must match its row count
    /// and checksum and be the cell's own rows at this scale.
    pub fn cell_state(&self, cell: usize, digest: &str, scale: u64) -> CellState {
        let (csv_path, json_path) = self.cell_files(cell);
        match (csv_path.is_file(), json_path.is_file()) {
            (false, false) => return CellState::Absent,
            (true, false) => return CellState::Bad("rows without a record (interrupted)".into()),
            (false, true) => return CellState::Bad("record without its rows file".into()),
            (true, true) => {}
        }
        match verify_cell(&csv_path, &json_path, cell, digest, scale) {
            Ok(timing) => CellState::Done(timing),
            Err(why) => CellState::Bad(why),
        }
    }

    /// The cell's record, when it reads.
    pub fn cell_record(&self, cell: usize) -> Result<CellRecord> {
        read_json(&self.cell_files(cell).1)
    }

    /// Copies a cell's files from another directory (a shard part), rows first.
    pub(crate) fn copy_cell_from(&self, other: &ResultsDir, cell: usize) -> Result<()> {
        let (from_csv, from_json) = other.cell_files(cell);
        let (to_csv, to_json) = self.cell_files(cell);
        std::fs::create_dir_all(to_csv.parent().expect("cells dir"))?;
        for (from, to) in [(from_csv, to_csv), (from_json, to_json)] {
            let bytes =
                std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
            atomic_write(&to, &bytes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::results_dir::digest;
    use crate::record::results_dir::records::{COMMIT_FILE, CommitRecord};
    use crate::record::results_dir::tests::{exp, scratch};

    #[test]
    fn cells_are_done_when_their_record_is_written_and_checks() {
        let e = exp(1);
        let d = digest(&e).unwrap();
        let dir = ResultsDir::open(&scratch("cells"), &d).unwrap();
        assert!(matches!(dir.cell_state(0, &d, 1), CellState::Absent));
        let t = CellTiming {
            cell: 0,
            label: "exact".into(),
            elements: 10,
            wall_secs: 1.0,
            ns_per_element: 2.0,
            estimated_secs: None,
            resumed: false,
        };
        let row = crate::record::rows::test_row("exact", 0, 0.0, 0.0);
        dir.write_cell(0, std::slice::from_ref(&row), &t).unwrap();
        match dir.cell_state(0, &d, 1) {
            CellState::Done(t) => assert_eq!(t.elements, 10),
            other => panic!("{other:?}"),
        }
        // Another experiment's digest, another scale: not this run's cell.
        assert!(matches!(
            dir.cell_state(0, "0123456789abcdef", 1),
            CellState::Bad(_)
        ));
        assert!(matches!(dir.cell_state(0, &d, 2), CellState::Bad(_)));
        assert!(!ResultsDir::has_finished_run(dir.path()));
        assert_eq!(dir.write_raw(&e).unwrap(), vec![row]);
        assert!(
            !ResultsDir::has_finished_run(dir.path()),
            "raw.csv alone does not finish a run"
        );
        dir.commit(&e).unwrap();
        assert!(ResultsDir::has_finished_run(dir.path()));
        let c: CommitRecord = read_json(&dir.join(COMMIT_FILE)).unwrap();
        assert_eq!(c.cells.len(), 1);
        assert!(c.files.iter().any(|f| f.path == "raw.csv"), "{c:?}");
        assert!(
            !c.files.iter().any(|f| f.path.starts_with("cells")),
            "{c:?}"
        );
        // A truncated rows file fails its checksum.
        let (csv, _) = dir.cell_files(0);
        let bytes = std::fs::read(&csv).unwrap();
        std::fs::write(&csv, &bytes[..bytes.len() / 2]).unwrap();
        match dir.cell_state(0, &d, 1) {
            CellState::Bad(why) => assert!(why.contains("checksum"), "{why}"),
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(dir.path());
    }
}
