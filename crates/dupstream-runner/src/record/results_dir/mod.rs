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

use crate::plan::Experiment;
use crate::record::files::{
    atomic_write, csv_bytes, is_compressed, read_json, read_result_rows, read_rows, result_path,
    sync_dir, write_csv, write_json, write_result,
};
use crate::record::lock::DirLock;
use crate::record::probe::{git_revision, host_tag, today};
use crate::record::tidy::{
    GapRow, attach_gaps, cell_rows, cells_csv_bytes, gap_rows, raw_csv_bytes,
};
use crate::record::{CellTiming, Manifest, RawRow, StreamRow};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// The name of the copy of the paper's values in a results directory.
pub const PAPER_VALUES: &str = "paper-values.csv";

/// What a default directory is for (see [`ResultsDir::default_path`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A new run.
    Run,
    /// The newest unfinished run of the same experiment, else a new one.
    Resume,
    /// A Slurm sweep: parts, scripts and the merged results (reused while unfinished).
    Slurm,
    /// Shard `index` of `count`.
    Part { index: usize, count: usize },
}

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

/// What a cell's files say about it (see [`ResultsDir::cell_state`]).
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
    /// [`digest`] of the experiment (file and scale) that produced the rows.
    pub digest: String,
    pub scale: u64,
    pub cell: usize,
    /// Data rows in the rows file (header excluded).
    pub rows: usize,
    /// [`checksum`] of the rows file's bytes.
    pub checksum: String,
    pub timing: CellTiming,
}

/// The commit record (`commit.json`), written last and atomically: every cell and every
/// output file with its checksum. Its presence marks the run finished.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommitRecord {
    pub digest: String,
    pub scale: u64,
    pub cells: Vec<CommittedCell>,
    pub files: Vec<CommittedFile>,
}

/// A cell as committed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommittedCell {
    pub cell: usize,
    pub rows: usize,
    pub checksum: String,
}

/// An output file as committed (path relative to the directory).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommittedFile {
    pub path: String,
    pub bytes: u64,
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

impl ResultsDir {
    /// The default directory of `exp` under `root`, one rule for all: runs and sweeps go to
    /// `<root>/<experiment>/<date>-<host>-<rev>[-scale<F>][-slurm]` (the host as
    /// [`host_tag`] gives it, the revision the binary was built from), numbered `-2`, `-3`…
    /// past directories that cannot be used; shard parts go to
    /// `<root>/<experiment>/shards-<rev>-<digest8>/shard-I-of-N`, stable across days and
    /// machines so that parts run by hand land in one place.
    pub fn default_path(root: &Path, exp: &Experiment, digest: &str, purpose: Purpose) -> PathBuf {
        let base = root.join(&exp.name);
        if let Purpose::Part { index, count } = purpose {
            return base
                .join(format!("shards-{}-{}", git_revision(), &digest[..8]))
                .join(format!("shard-{index}-of-{count}"));
        }
        if purpose == Purpose::Resume
            && let Some(dir) = newest_unfinished(&base, digest)
        {
            return dir;
        }
        let mut name = format!("{}-{}-{}", today(), host_tag(), git_revision());
        if exp.scale != 1 {
            name.push_str(&format!("-scale{}", exp.scale));
        }
        if purpose == Purpose::Slurm {
            name.push_str("-slurm");
        }
        let usable = |p: &Path| {
            !p.exists()
                || purpose == Purpose::Slurm
                    && holds_digest(p, digest)
                    && !ResultsDir::has_finished_run(p)
        };
        std::iter::once(base.join(&name))
            .chain((2..).map(|i| base.join(format!("{name}-{i}"))))
            .find(|p| usable(p))
            .expect("some free name")
    }

    /// Opens `path` for results of the experiment with `digest`: takes the directory's
    /// exclusive lock first (a directory another process holds is refused, see
    /// [`Locked`](crate::record::lock::Locked)), then refuses a directory that holds results
    /// of another experiment or scale, removes temporary files an earlier interruption left,
    /// and records the digest. The lock is held while the returned value (or a clone) lives.
    pub fn open(path: &Path, digest: &str) -> Result<Self> {
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
    pub fn check(path: &Path, digest: &str) -> Result<()> {
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

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This directory, writing `raw.csv`, `cells.csv` and `manifest.json` gzip-compressed
    /// (`raw.csv.gz`, …) when `compress` (`[output] compress`), plainly otherwise.
    #[must_use]
    pub fn compressed(mut self, compress: bool) -> Self {
        self.compress = compress;
        self
    }

    /// Whether the result file `name` is there, plain or compressed.
    pub fn has(&self, name: &str) -> bool {
        result_path(&self.path, name).is_some()
    }

    /// The experiment digest, when opened for writing.
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// A file of the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Whether the directory holds a finished run: its commit record is there and readable.
    /// A run interrupted anywhere before the commit record was written is unfinished.
    pub fn has_finished_run(path: &Path) -> bool {
        read_json::<CommitRecord>(&path.join(COMMIT_FILE)).is_ok()
    }

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
    pub fn write_cell(&self, cell: usize, rows: &[RawRow], timing: &CellTiming) -> Result<()> {
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
    pub fn copy_cell_from(&self, other: &ResultsDir, cell: usize) -> Result<()> {
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

    /// Writes the commit record, last: every cell of `exp` (from its record) and every file
    /// of the directory outside `cells/` with its checksum; written to a temporary file,
    /// synced, renamed into place and the directory synced, so it is either whole or absent.
    pub fn commit(&self, exp: &Experiment) -> Result<()> {
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

    /// Opens an existing results directory to rewrite its files in place (`migrate`): takes
    /// its lock, as a run does, and refuses a directory without `raw.csv`.
    pub fn open_finished(path: &Path) -> Result<Self> {
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
    pub fn migrate_rows(&self) -> Result<Vec<RawRow>> {
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

    /// Brings the commit record's file list up to date after files were rewritten in place
    /// (`migrate`, `plot`): the cells are kept as committed.
    pub fn refresh_commit_files(&self) -> Result<()> {
        let mut record: CommitRecord = read_json(&self.join(COMMIT_FILE))?;
        let mut files = Vec::new();
        collect_files(&self.path, &self.path, &mut files)?;
        record.files = files;
        write_json(&self.join(COMMIT_FILE), &record)?;
        sync_dir(&self.path)
    }

    /// Concatenates every cell's rows, in cell order, into `raw.csv`; returns the rows.
    pub fn write_raw(&self, exp: &Experiment) -> Result<Vec<RawRow>> {
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
    pub fn write_derived(&self, rows: &[RawRow]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        atomic_write(&self.join("derived.csv"), &raw_csv_bytes(rows)?)
    }

    /// Writes `cells.csv`: each measured cell's last row (`rows`) with its timing.
    pub fn write_cells(&self, rows: &[RawRow], timings: &[CellTiming]) -> Result<()> {
        let bytes = cells_csv_bytes(&cell_rows(rows, timings))?;
        write_result(&self.path, "cells.csv", &bytes, self.compress)
    }

    /// Writes `streams.csv` and the streams' gap histograms, `gaps.csv`.
    pub fn write_streams(&self, rows: &[StreamRow]) -> Result<()> {
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
    pub fn write_inputs(&self, exp: &Experiment) -> Result<()> {
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
    pub fn copy_inputs_from(&self, other: &ResultsDir, exp: &Experiment) -> Result<()> {
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
    pub fn write_manifest(&self, manifest: &Manifest) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(manifest)?;
        write_result(&self.path, "manifest.json", &bytes, self.compress)
    }
}

fn holds_digest(dir: &Path, digest: &str) -> bool {
    std::fs::read_to_string(dir.join(".digest")).is_ok_and(|d| d.trim() == digest)
}

/// The newest unfinished run of an experiment (same digest) under `base`.
fn newest_unfinished(base: &Path, digest: &str) -> Option<PathBuf> {
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(base)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| !ResultsDir::has_finished_run(p) && holds_digest(p, digest))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    candidates.sort();
    candidates.pop().map(|(_, p)| p)
}

/// The run's own record of itself, stored in `run.toml` beside the experiment's keys.
pub fn run_toml(exp: &Experiment, reference_name: Option<&str>) -> Result<String> {
    let mut doc: toml::Table = toml::from_str(&exp.source)?;
    // `[run] scale` becomes the scale as run; the table's other keys (`max_scale`) stay.
    let mut run = match doc.remove("run") {
        Some(toml::Value::Table(t)) => t,
        _ => toml::Table::new(),
    };
    run.insert("scale".into(), toml::Value::Integer(exp.scale as i64));
    doc.insert("run".into(), toml::Value::Table(run));
    if let (Some(name), Some(toml::Value::Table(r))) = (reference_name, doc.get_mut("reference")) {
        r.insert("file".into(), toml::Value::String(name.to_string()));
    }
    Ok(format!(
        "# The experiment exactly as run (generated by dupstream from {}).\n{}",
        exp.file.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
        toml::to_string(&doc)?
    ))
}

/// Where a run's `run.toml` (`run_text`, in the results directory `run_dir`) no longer
/// describes the experiment file `source` (in `exp_dir`) as it stands: the first key whose
/// value differs, `None` when they agree. What only the run decides is left out: `[run]
/// scale` (a scale today's `[run] max_scale` would clamp is a difference), the name of the
/// paper values' copy (`[reference] file`; their bytes are compared by the caller), and a
/// replayed file's path as written (compared as the file it names).
pub fn run_toml_differs(
    run_text: &str,
    run_dir: &Path,
    source: &str,
    exp_dir: &Path,
) -> Result<Option<String>> {
    let mut run: toml::Table = toml::from_str(run_text)?;
    let mut file: toml::Table = toml::from_str(source)?;
    let int = |t: &toml::Table, k: &str| {
        t.get("run")
            .and_then(|r| r.get(k))
            .and_then(toml::Value::as_integer)
    };
    if let (Some(scale), Some(max)) = (int(&run, "scale"), int(&file, "max_scale"))
        && scale > max
    {
        return Ok(Some(format!(
            "run.max_scale (run at scale {scale}, the file allows {max})"
        )));
    }
    for (doc, dir) in [(&mut run, run_dir), (&mut file, exp_dir)] {
        if let Some(toml::Value::Table(r)) = doc.get_mut("run") {
            r.remove("scale");
            r.remove("max_scale");
            if r.is_empty() {
                doc.remove("run");
            }
        }
        if let Some(toml::Value::Table(r)) = doc.get_mut("reference") {
            r.remove("file");
        }
        let replay = doc
            .get("stream")
            .and_then(|s| s.get("kind"))
            .and_then(|k| k.as_str())
            == Some("replay");
        if let (true, Some(toml::Value::Table(s))) = (replay, doc.get_mut("stream")) {
            let resolve = |v: &mut toml::Value| {
                if let toml::Value::String(p) = v {
                    *p = lexical(&dir.join(p.as_str()))
                        .to_string_lossy()
                        .into_owned();
                }
            };
            match s.get_mut("path") {
                Some(toml::Value::Array(a)) => a.iter_mut().for_each(resolve),
                Some(p) => resolve(p),
                None => {}
            }
        }
    }
    Ok(first_difference(
        "",
        &toml::Value::Table(run),
        &toml::Value::Table(file),
    ))
}

/// `p` made absolute and without `.` and `..` components (symbolic links followed when the
/// path exists).
fn lexical(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The first key (dotted, arrays indexed) whose values differ between `a` and `b`.
fn first_difference(at: &str, a: &toml::Value, b: &toml::Value) -> Option<String> {
    let key = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (toml::Value::Table(x), toml::Value::Table(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(u), Some(v)) => first_difference(&key(k), u, v),
                _ => Some(key(k)),
            })
        }
        (toml::Value::Array(x), toml::Value::Array(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(&format!("{at}[{i}]"), u, v))
            .or_else(|| (x.len() != y.len()).then(|| format!("{at}[{}]", x.len().min(y.len())))),
        _ => (a != b).then(|| at.to_string()),
    }
}

/// `run_toml` text (written for an experiment file in `from`) with a replayed file's relative
/// `[stream] path` (or each of a swept array of them), and `[tuning] stream`'s `path`, made
/// relative to the directory `to`; text without one is returned unchanged. Absolute paths are
/// kept.
pub fn rebase_replay_paths(text: &str, from: &Path, to: &Path) -> Result<String> {
    let header: String = text
        .split_inclusive('\n')
        .take_while(|l| l.starts_with('#'))
        .collect();
    let mut doc: toml::Table = toml::from_str(&text[header.len()..])?;
    let Some(toml::Value::Table(stream)) = doc.get_mut("stream") else {
        return Ok(text.to_string());
    };
    let replay = stream.get("kind").and_then(|v| v.as_str()) == Some("replay");
    if !replay {
        return Ok(text.to_string());
    }
    let rebase = |v: &mut toml::Value| {
        if let toml::Value::String(p) = v
            && Path::new(p.as_str()).is_relative()
        {
            let rel = relative_path(&from.join(p.as_str()), to);
            *p = rel.to_string_lossy().into_owned();
        }
    };
    let mut changed = false;
    match stream.get_mut("path") {
        Some(toml::Value::Array(paths)) => paths.iter_mut().for_each(rebase),
        Some(path) => rebase(path),
        None => {}
    }
    changed |= stream.contains_key("path");
    if let Some(toml::Value::Table(tuning)) = doc.get_mut("tuning")
        && let Some(toml::Value::Table(t)) = tuning.get_mut("stream")
        && let Some(path) = t.get_mut("path")
    {
        rebase(path);
        changed = true;
    }
    if !changed {
        return Ok(text.to_string());
    }
    Ok(format!("{header}{}", toml::to_string(&doc)?))
}

/// `target` as a path relative to the directory `base` (both resolved, symbolic links
/// followed, when they exist); `target` made absolute when nothing shorter joins them.
fn relative_path(target: &Path, base: &Path) -> PathBuf {
    let resolve = |p: &Path| {
        p.canonicalize()
            .or_else(|_| std::path::absolute(p))
            .unwrap_or(p.into())
    };
    let (t, b) = (resolve(target), resolve(base));
    let (tc, bc): (Vec<_>, Vec<_>) = (t.components().collect(), b.components().collect());
    let common = tc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t;
    }
    let mut out = PathBuf::new();
    for _ in common..bc.len() {
        out.push("..");
    }
    for c in &tc[common..] {
        out.push(c);
    }
    out
}

/// A short, stable digest of the experiment as run ([`checksum`] of its `run.toml`), to tie
/// results to their input: equal for the same file at the same scale.
pub fn digest(exp: &Experiment) -> Result<String> {
    Ok(checksum(run_toml(exp, None)?.as_bytes()))
}

/// Checks a cell's rows against its record; returns its timing or why it cannot be trusted.
fn verify_cell(
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

/// Every regular file under `dir` except the lock, the commit record, temporary files, pages
/// (`index.html`, rewritten by `dupstream report`) and the `cells/` and `shards/`/`slurm/` subdirectories, sorted by path, with checksums.
fn collect_files(root: &Path, dir: &Path, out: &mut Vec<CommittedFile>) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(scale: u64) -> Experiment {
        let text = "name = \"rd\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n";
        crate::plan::parse(Path::new("rd.toml"), text, Some(scale)).unwrap()
    }

    fn scratch(name: &str) -> PathBuf {
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

    #[test]
    fn replay_paths_are_rebased_onto_the_results_directory() {
        let root = scratch("rebase");
        std::fs::create_dir_all(root.join("exp")).unwrap();
        std::fs::create_dir_all(root.join("results/a/b")).unwrap();
        std::fs::write(root.join("keys.txt"), "a\n").unwrap();
        let text = "# header\n[stream]\nkind = \"replay\"\npath = \"../keys.txt\"\n";
        let out = rebase_replay_paths(text, &root.join("exp"), &root.join("results/a/b")).unwrap();
        assert!(out.starts_with("# header\n"), "{out}");
        assert!(out.contains("path = \"../../../keys.txt\""), "{out}");
        // Swept paths too; absolute paths and generated streams are kept as they are.
        let swept = "[stream]\nkind = \"replay\"\npath = [\"../keys.txt\", \"/abs/k.txt\"]\n";
        let out = rebase_replay_paths(swept, &root.join("exp"), &root).unwrap();
        assert!(
            out.contains("\"keys.txt\"") && out.contains("\"/abs/k.txt\""),
            "{out}"
        );
        let uniform = "[stream]\nkind = \"uniform\"\nn = 5\n";
        assert_eq!(rebase_replay_paths(uniform, &root, &root).unwrap(), uniform);
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
