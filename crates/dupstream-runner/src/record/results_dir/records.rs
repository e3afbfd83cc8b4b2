//! What a results directory's records say: a finished cell's record and the commit record
//! that marks a run finished, their checksums, and the checks of a cell's files against them.

use crate::record::files::read_json;
use crate::record::{CellTiming, RawRow};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// What a cell's files say about it (see [`ResultsDir::cell_state`](crate::record::ResultsDir::cell_state)).
#[derive(Debug, Clone)]
pub enum CellState {
    /// Neither file is there: the cell was never finished.
    Absent,
    /// Both files are there and agree with each other and with the experiment.
    Done(CellTiming),
    /// Something is there but cannot be trusted: why.
    Bad(String),
}

/// A cell's record (`cells/cell-NNNNN.json`), written after its rows: what produced the rows
/// and how to check them. Its presence marks the cell done.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellRecord {
    /// [`digest`](crate::record::digest) of the experiment (file and scale) that produced the rows.
    pub digest: String,
    /// The scale it ran at.
    pub scale: u64,
    /// The cell's index in the experiment's grid.
    pub cell: usize,
    /// Data rows in the rows file (header excluded).
    pub rows: usize,
    /// [`checksum`] of the rows file's bytes.
    pub checksum: String,
    /// The cell's timing.
    pub timing: CellTiming,
}

/// The commit record (`commit.json`), written last and atomically: every cell and every
/// output file with its checksum. Its presence marks the run finished.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommitRecord {
    /// [`digest`](crate::record::digest) of the experiment as run.
    pub digest: String,
    /// The scale it ran at.
    pub scale: u64,
    /// Every cell, in cell order.
    pub cells: Vec<CommittedCell>,
    /// Every output file, sorted by path (not the lock, the commit record, pages, `cells/`).
    pub files: Vec<CommittedFile>,
}

/// A cell as committed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommittedCell {
    /// The cell's index.
    pub cell: usize,
    /// Its data rows.
    pub rows: usize,
    /// [`checksum`] of its rows file's bytes.
    pub checksum: String,
}

/// An output file as committed (path relative to the directory).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommittedFile {
    /// The path, relative to the directory.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// [`checksum`] of its bytes.
    pub checksum: String,
}

/// The name of the commit record.
pub const COMMIT_FILE: &str = "commit.json";

/// Whether a file of a run is a page (`index.html`), which `dupstream report` rewrites and
/// the commit record neither lists nor checks.
pub fn is_page(path: &str) -> bool {
    Path::new(path)
        .file_name()
        .is_some_and(|n| n == "index.html")
}

/// The checksum of a file's bytes: XXH3-64, as 16 hex digits.
pub fn checksum(bytes: &[u8]) -> String {
    format!("{:016x}", xxh3_64(bytes))
}

/// Whether the directory `path` holds a finished run: its commit record is there and
/// readable. A run interrupted anywhere before the commit record was written is unfinished.
pub fn is_finished(path: &Path) -> bool {
    read_json::<CommitRecord>(&path.join(COMMIT_FILE)).is_ok()
}

/// Checks a cell's rows against its record; returns its timing or why it cannot be trusted.
pub(super) fn verify_cell(
    csv_path: &Path,
    json_path: &Path,
    cell: usize,
    digest: &str,
    scale: u64,
) -> std::result::Result<CellTiming, String> {
    let record: CellRecord =
        read_json(json_path).map_err(|_| "its record is unreadable".to_string())?;
    if record.digest != digest {
        return Err(format!(
            "written by another experiment or scale (digest {}, this run {digest})",
            record.digest
        ));
    }
    if record.cell != cell || record.timing.cell != cell {
        return Err(format!("its record is of cell {}", record.cell));
    }
    if record.scale != scale {
        return Err(format!(
            "written at scale {}, this run is at {scale}",
            record.scale
        ));
    }
    let bytes = std::fs::read(csv_path).map_err(|e| format!("rows unreadable: {e}"))?;
    if checksum(&bytes) != record.checksum {
        return Err("its rows do not match their checksum (edited, truncated or replaced)".into());
    }
    let rows: Vec<RawRow> =
        crate::record::files::rows_from(&bytes).map_err(|e| format!("rows malformed: {e}"))?;
    if rows.is_empty() || rows.len() != record.rows {
        return Err(format!(
            "{} rows, its record says {}",
            rows.len(),
            record.rows
        ));
    }
    if let Some(r) = rows.iter().find(|r| r.cell != cell || r.scale != scale) {
        return Err(format!(
            "holds a row of cell {} at scale {}",
            r.cell, r.scale
        ));
    }
    Ok(record.timing)
}

/// Every regular file under `dir` except the lock, the commit record, temporary files, pages
/// (`index.html`, rewritten by `dupstream report`) and the `cells/` and `shards/`/`slurm/` subdirectories, sorted by path, with checksums.
pub(super) fn collect_files(root: &Path, dir: &Path, out: &mut Vec<CommittedFile>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if dir == root && matches!(name, "cells" | "shards" | "slurm") {
                continue;
            }
            collect_files(root, &p, out)?;
        } else if p.is_file()
            && name != crate::record::lock::LOCK_FILE
            && name != COMMIT_FILE
            && !name.ends_with(".partial")
            && !is_page(name)
        {
            let bytes = std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
            out.push(CommittedFile {
                path: p
                    .strip_prefix(root)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .into_owned(),
                bytes: bytes.len() as u64,
                checksum: checksum(&bytes),
            });
        }
    }
    Ok(())
}
