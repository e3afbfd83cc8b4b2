//! [`ResultsDir`]: one results directory (a run, a shard part, a merge or a Slurm sweep) and
//! every file in it. It owns the directory names, the digest that ties the directory to one
//! experiment at one scale, the per-cell parts that make a run resumable, `raw.csv`,
//! `streams.csv`, `run.toml` and the manifest.
//!
//! Layout:
//! - `.digest`: [`digest`] of the experiment as run; a directory holding another digest is
//!   refused;
//! - `cells/cell-NNNNN.json` then `cells/cell-NNNNN.csv`: a finished cell's timing, then its
//!   rows (whose presence marks the cell done);
//! - `raw.csv` (every cell's rows in cell order), `derived.csv`, `cells.csv`, `streams.csv`,
//!   `gaps.csv`, `run.toml`, `paper-values.csv`, `manifest.json`, and last `commit.json`,
//!   whose presence marks a run finished. `SCHEMA.md` describes every file. Under
//!   `[output] compress`, `raw.csv`, `cells.csv` and `manifest.json` are stored as
//!   `raw.csv.gz`, `cells.csv.gz` and `manifest.json.gz` ([`files`](super::files)).

mod cells;
mod commit;
mod migrate;
mod names;
mod records;
mod run_toml;

pub use names::Purpose;
pub use records::{
    COMMIT_FILE, CellRecord, CellState, CommitRecord, CommittedCell, CommittedFile, checksum,
    is_page,
};
pub use run_toml::{digest, rebase_replay_paths, run_toml, run_toml_differs};

use crate::plan::Experiment;
use crate::record::files::{
    atomic_write, read_result_rows, read_rows, result_path, write_csv, write_result,
};
use crate::record::lock::DirLock;
use crate::record::tidy::{
    GapRow, attach_gaps, cell_rows, cells_csv_bytes, gap_rows, raw_csv_bytes,
};
use crate::record::{CellTiming, Manifest, RawRow, StreamRow};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name of the copy of the paper's values in a results directory.
pub const PAPER_VALUES: &str = "paper-values.csv";

/// One results directory (see the module doc).
#[derive(Debug, Clone)]
pub struct ResultsDir {
    path: PathBuf,
    /// The experiment digest the directory holds (when opened for writing).
    digest: Option<String>,
    /// The directory's lock, held as long as any clone of this value lives.
    _lock: Option<Arc<DirLock>>,
    /// Whether `raw.csv`, `cells.csv` and `manifest.json` are written gzip-compressed
    /// (`[output] compress`; see [`compressed`](Self::compressed)).
    compress: bool,
}

impl ResultsDir {
    /// The default directory of `exp` under `root`, one rule for all: runs and sweeps go to
    /// `<root>/<experiment>/<date>-<host>-<rev>[-scale<F>][-slurm]` (the host as
    /// `record::probe::host_tag` gives it, the revision the binary was
    /// built from), numbered `-2`, `-3`… past directories that cannot be used; shard parts go
    /// to `<root>/<experiment>/shards-<rev>-<digest8>/shard-I-of-N`, stable across days and
    /// machines so that parts run by hand land in one place.
    pub(crate) fn default_path(
        root: &Path,
        exp: &Experiment,
        digest: &str,
        purpose: Purpose,
    ) -> PathBuf {
        names::default_path(root, exp, digest, purpose)
    }

    /// Opens `path` for results of the experiment with `digest`: takes the directory's
    /// exclusive lock first (a directory another process holds is refused, see
    /// [`Locked`](crate::record::lock::Locked)), then refuses a directory that holds results
    /// of another experiment or scale, removes temporary files an earlier interruption left,
    /// and records the digest. The lock is held while the returned value (or a clone) lives.
    pub(crate) fn open(path: &Path, digest: &str) -> Result<Self> {
        if path.exists() && !path.is_dir() {
            return Err(crate::plan::refuse(format!(
                "{}: not a directory; --out names the results directory to write",
                path.display()
            )));
        }
        let lock = DirLock::acquire(path)?;
        Self::check(path, digest)?;
        remove_partials(path)?;
        atomic_write(&path.join(".digest"), digest.as_bytes())?;
        Ok(Self {
            path: path.to_path_buf(),
            digest: Some(digest.to_string()),
            _lock: Some(Arc::new(lock)),
            compress: false,
        })
    }

    /// Refuses a directory that holds results of another experiment or scale (without
    /// creating anything).
    pub(crate) fn check(path: &Path, digest: &str) -> Result<()> {
        match std::fs::read_to_string(path.join(".digest")) {
            Ok(old) if old.trim() != digest => Err(crate::plan::refuse(format!(
                "{} holds results of a different experiment or scale; choose another --out",
                path.display()
            ))),
            _ => Ok(()),
        }
    }

    /// An existing directory, to read.
    pub fn existing(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            digest: None,
            _lock: None,
            compress: false,
        }
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This directory, writing `raw.csv`, `cells.csv` and `manifest.json` gzip-compressed
    /// (`raw.csv.gz`, …) when `compress` (`[output] compress`), plainly otherwise.
    #[must_use]
    pub(crate) fn compressed(mut self, compress: bool) -> Self {
        self.compress = compress;
        self
    }

    /// Whether the result file `name` is there, plain or compressed.
    pub fn has(&self, name: &str) -> bool {
        result_path(&self.path, name).is_some()
    }

    /// The experiment digest, when opened for writing.
    pub(crate) fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// A file of the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Whether the directory holds a finished run: its commit record is there and readable.
    /// A run interrupted anywhere before the commit record was written is unfinished.
    pub fn has_finished_run(path: &Path) -> bool {
        records::is_finished(path)
    }

    /// Concatenates every cell's rows, in cell order, into `raw.csv`; returns the rows.
    pub(crate) fn write_raw(&self, exp: &Experiment) -> Result<Vec<RawRow>> {
        let mut all = Vec::new();
        for cell in &exp.cells {
            all.extend(read_rows::<RawRow>(&self.cell_files(cell.index).0)?);
        }
        write_result(&self.path, "raw.csv", &raw_csv_bytes(&all)?, self.compress)?;
        Ok(all)
    }

    /// The rows of `raw.csv` (or `raw.csv.gz`).
    pub fn read_raw(&self) -> Result<Vec<RawRow>> {
        read_result_rows(&self.path, "raw.csv")
    }

    /// Writes `derived.csv` (when there are derived rows).
    pub(crate) fn write_derived(&self, rows: &[RawRow]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        atomic_write(&self.join("derived.csv"), &raw_csv_bytes(rows)?)
    }

    /// Writes `cells.csv`: each measured cell's last row (`rows`) with its timing.
    pub(crate) fn write_cells(&self, rows: &[RawRow], timings: &[CellTiming]) -> Result<()> {
        let bytes = cells_csv_bytes(&cell_rows(rows, timings))?;
        write_result(&self.path, "cells.csv", &bytes, self.compress)
    }

    /// Writes `streams.csv` and the streams' gap histograms, `gaps.csv`.
    pub(crate) fn write_streams(&self, rows: &[StreamRow]) -> Result<()> {
        write_csv(&self.join("streams.csv"), rows)?;
        write_csv(&self.join("gaps.csv"), &gap_rows(rows))
    }

    /// The rows of `streams.csv`, with their gap histograms from `gaps.csv`.
    pub fn read_streams(&self) -> Result<Vec<StreamRow>> {
        let mut rows: Vec<StreamRow> = read_rows(&self.join("streams.csv"))?;
        let gaps_path = self.join("gaps.csv");
        // A histogram with no non-empty bucket writes no row (and an empty file, no header).
        let gaps: Vec<GapRow> = if std::fs::metadata(&gaps_path).is_ok_and(|m| m.len() > 0) {
            read_rows(&gaps_path)?
        } else {
            Vec::new()
        };
        attach_gaps(&mut rows, &gaps)
            .with_context(|| format!("reading {}", gaps_path.display()))?;
        Ok(rows)
    }

    /// Writes the experiment as run (`run.toml`) and a copy of its paper values
    /// (`paper-values.csv`, which `run.toml` then names), so the directory stands alone. A
    /// replayed file's relative path is written relative to this directory, so that
    /// `dupstream run DIR/run.toml` reads the same file.
    pub(crate) fn write_inputs(&self, exp: &Experiment) -> Result<()> {
        let reference_name = match &exp.reference {
            Some((path, _)) => {
                let bytes = crate::plan::catalogue::read(path)
                    .with_context(|| format!("reading {}", path.display()))?;
                atomic_write(&self.join(PAPER_VALUES), &bytes)?;
                Some(PAPER_VALUES)
            }
            None => None,
        };
        let text = run_toml(exp, reference_name)?;
        let base = exp.file.parent().unwrap_or(Path::new("."));
        atomic_write(
            &self.join("run.toml"),
            rebase_replay_paths(&text, base, &self.path)?.as_bytes(),
        )
    }

    /// Copies `run.toml` and the paper values from another directory (a shard part), a
    /// replayed file's path in `run.toml` made relative to this directory.
    pub(crate) fn copy_inputs_from(&self, other: &ResultsDir, exp: &Experiment) -> Result<()> {
        let mut names = vec!["run.toml"];
        if exp.reference.is_some() {
            names.insert(0, PAPER_VALUES);
        }
        for name in names {
            let from = other.join(name);
            let mut bytes =
                std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
            if name == "run.toml" {
                let text = String::from_utf8(bytes)
                    .with_context(|| format!("reading {}", from.display()))?;
                bytes = rebase_replay_paths(&text, &other.path, &self.path)?.into_bytes();
            }
            atomic_write(&self.join(name), &bytes)?;
        }
        Ok(())
    }

    /// Writes `manifest.json` (or `manifest.json.gz`).
    pub(crate) fn write_manifest(&self, manifest: &Manifest) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(manifest)?;
        write_result(&self.path, "manifest.json", &bytes, self.compress)
    }
}

/// Removes temporary files (`*.partial`) an interrupted writer left in `dir` and `dir/cells`.
fn remove_partials(dir: &Path) -> Result<()> {
    for d in [dir.to_path_buf(), dir.join("cells")] {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "partial") && p.is_file() {
                std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::probe::{git_revision, host_tag, today};

    pub(super) fn exp(scale: u64) -> Experiment {
        let text = "name = \"rd\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n";
        crate::plan::parse(Path::new("rd.toml"), text, Some(scale)).unwrap()
    }

    pub(super) fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dupstream-rd-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn digest_ties_a_directory_to_one_experiment_and_scale() {
        let (a, b) = (digest(&exp(1)).unwrap(), digest(&exp(2)).unwrap());
        assert_ne!(a, b);
        assert_eq!(a, digest(&exp(1)).unwrap());
        let dir = scratch("digest");
        ResultsDir::open(&dir, &a).unwrap();
        ResultsDir::open(&dir, &a).unwrap();
        let e = ResultsDir::open(&dir, &b).unwrap_err();
        assert!(
            e.to_string().contains("different experiment or scale"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn default_paths_follow_one_rule() {
        let root = scratch("names");
        let e = exp(4);
        let d = digest(&e).unwrap();
        let run = ResultsDir::default_path(&root, &e, &d, Purpose::Run);
        let name = run.file_name().unwrap().to_str().unwrap().to_string();
        let expected = format!("{}-{}-{}-scale4", today(), host_tag(), git_revision());
        assert_eq!(name, expected);
        std::fs::create_dir_all(&run).unwrap();
        let next = ResultsDir::default_path(&root, &e, &d, Purpose::Run);
        assert_eq!(next, run.with_file_name(format!("{name}-2")));
        // An unfinished run of the same experiment is resumed; a sweep reuses its directory.
        ResultsDir::open(&run, &d).unwrap();
        assert_eq!(
            ResultsDir::default_path(&root, &e, &d, Purpose::Resume),
            run
        );
        let slurm = ResultsDir::default_path(&root, &e, &d, Purpose::Slurm);
        assert!(slurm.to_str().unwrap().ends_with("-scale4-slurm"));
        let part = ResultsDir::default_path(&root, &e, &d, Purpose::Part { index: 1, count: 3 });
        assert!(part.ends_with("shard-1-of-3"));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn opening_removes_stray_temporary_files() {
        let path = scratch("partials");
        std::fs::create_dir_all(path.join("cells")).unwrap();
        std::fs::write(path.join(".raw.csv.1.partial"), b"x").unwrap();
        std::fs::write(path.join("cells/.cell-00000.csv.1.partial"), b"x").unwrap();
        let dir = ResultsDir::open(&path, "0123456789abcdef").unwrap();
        assert!(!path.join(".raw.csv.1.partial").exists());
        assert!(!path.join("cells/.cell-00000.csv.1.partial").exists());
        drop(dir);
        let _ = std::fs::remove_dir_all(&path);
    }
}
