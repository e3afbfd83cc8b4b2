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
//! - `raw.csv` (every cell's rows in cell order: its presence marks a run finished),
//!   `derived.csv`, `streams.csv`, `run.toml`, `paper-values.csv`, `manifest.json`.

use crate::plan::Experiment;
use crate::record::files::{atomic_write, csv_bytes, read_rows, write_csv, write_json};
use crate::record::probe::{git_revision, today};
use crate::record::{CellTiming, Manifest, RawRow, StreamRow};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

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
}

impl ResultsDir {
    /// The default directory of `exp` under `root`, one rule for all: runs and sweeps go to
    /// `<root>/<experiment>/<date>-<rev>[-scale<F>][-slurm]`, numbered `-2`, `-3`… past
    /// directories that cannot be used; shard parts go to
    /// `<root>/<experiment>/shards-<rev>-<digest8>/shard-I-of-N`, stable across days and
    /// machines so that parts run by hand land in one place.
    pub fn default_path(root: &Path, exp: &Experiment, digest: &str, purpose: Purpose) -> PathBuf {
        let base = root.join(&exp.name);
        if let Purpose::Part { index, count } = purpose {
            return base
                .join(format!("shards-{}-{}", git_revision(), &digest[..8]))
                .join(format!("shard-{index}-of-{count}"));
        }
        if purpose == Purpose::Resume {
            if let Some(dir) = newest_unfinished(&base, digest) {
                return dir;
            }
        }
        let mut name = format!("{}-{}", today(), git_revision());
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
                    && !p.join("raw.csv").exists()
        };
        std::iter::once(base.join(&name))
            .chain((2..).map(|i| base.join(format!("{name}-{i}"))))
            .find(|p| usable(p))
            .expect("some free name")
    }

    /// Opens `path` for results of the experiment with `digest`, creating it and recording the
    /// digest; refuses a directory that holds results of another experiment or scale.
    pub fn open(path: &Path, digest: &str) -> Result<Self> {
        Self::check(path, digest)?;
        std::fs::create_dir_all(path).with_context(|| format!("creating {}", path.display()))?;
        atomic_write(&path.join(".digest"), digest.as_bytes())?;
        Ok(Self {
            path: path.to_path_buf(),
        })
    }

    /// Refuses a directory that holds results of another experiment or scale (without
    /// creating anything).
    pub fn check(path: &Path, digest: &str) -> Result<()> {
        match std::fs::read_to_string(path.join(".digest")) {
            Ok(old) if old.trim() != digest => bail!(
                "{} holds results of a different experiment or scale; choose another --out",
                path.display()
            ),
            _ => Ok(()),
        }
    }

    /// An existing directory, to read.
    pub fn existing(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file of the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Whether the directory holds a finished run (`raw.csv`).
    pub fn has_finished_run(path: &Path) -> bool {
        path.join("raw.csv").exists()
    }

    /// The rows (`.csv`) and timing (`.json`) files of a cell.
    pub fn cell_files(&self, cell: usize) -> (PathBuf, PathBuf) {
        let cells = self.path.join("cells");
        (
            cells.join(format!("cell-{cell:05}.csv")),
            cells.join(format!("cell-{cell:05}.json")),
        )
    }

    /// Whether both files of a cell are present.
    pub fn has_cell(&self, cell: usize) -> bool {
        let (csv, json) = self.cell_files(cell);
        csv.is_file() && json.is_file()
    }

    /// Writes a finished cell: its timing first, then its rows (whose presence marks it done).
    pub fn write_cell(&self, cell: usize, rows: &[RawRow], timing: &CellTiming) -> Result<()> {
        let (csv_path, json_path) = self.cell_files(cell);
        std::fs::create_dir_all(csv_path.parent().expect("cells dir"))?;
        write_json(&json_path, timing)?;
        atomic_write(&csv_path, &csv_bytes(rows)?)
    }

    /// The timing of a cell already finished here, if it is.
    pub fn finished_cell(&self, cell: usize) -> Option<CellTiming> {
        let (csv_path, json_path) = self.cell_files(cell);
        if !csv_path.is_file() {
            return None;
        }
        serde_json::from_slice(&std::fs::read(json_path).ok()?).ok()
    }

    /// Copies a cell's files from another directory (a shard part).
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

    /// Concatenates every cell's rows, in cell order, into `raw.csv`; returns the rows.
    pub fn write_raw(&self, exp: &Experiment) -> Result<Vec<RawRow>> {
        let mut all = Vec::new();
        for cell in &exp.cells {
            all.extend(read_rows::<RawRow>(&self.cell_files(cell.index).0)?);
        }
        write_csv(&self.join("raw.csv"), &all)?;
        Ok(all)
    }

    /// The rows of `raw.csv`.
    pub fn read_raw(&self) -> Result<Vec<RawRow>> {
        read_rows(&self.join("raw.csv"))
    }

    /// Writes `derived.csv` (when there are derived rows).
    pub fn write_derived(&self, rows: &[RawRow]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        write_csv(&self.join("derived.csv"), rows)
    }

    /// Writes `streams.csv`.
    pub fn write_streams(&self, rows: &[StreamRow]) -> Result<()> {
        write_csv(&self.join("streams.csv"), rows)
    }

    /// The rows of `streams.csv`.
    pub fn read_streams(&self) -> Result<Vec<StreamRow>> {
        read_rows(&self.join("streams.csv"))
    }

    /// Writes the experiment as run (`run.toml`) and a copy of its paper values
    /// (`paper-values.csv`, which `run.toml` then names), so the directory stands alone.
    pub fn write_inputs(&self, exp: &Experiment) -> Result<()> {
        let reference_name = match &exp.reference {
            Some((path, _)) => {
                let bytes =
                    std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
                atomic_write(&self.join(PAPER_VALUES), &bytes)?;
                Some(PAPER_VALUES)
            }
            None => None,
        };
        atomic_write(
            &self.join("run.toml"),
            run_toml(exp, reference_name)?.as_bytes(),
        )
    }

    /// Copies `run.toml` and the paper values from another directory (a shard part).
    pub fn copy_inputs_from(&self, other: &ResultsDir, exp: &Experiment) -> Result<()> {
        let mut names = vec!["run.toml"];
        if exp.reference.is_some() {
            names.insert(0, PAPER_VALUES);
        }
        for name in names {
            let from = other.join(name);
            let bytes =
                std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
            atomic_write(&self.join(name), &bytes)?;
        }
        Ok(())
    }

    /// Writes `manifest.json`.
    pub fn write_manifest(&self, manifest: &Manifest) -> Result<()> {
        write_json(&self.join("manifest.json"), manifest)
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
    let mut run = toml::Table::new();
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

/// A short, stable digest of the experiment as run (FNV-1a 64 of its `run.toml`), to tie
/// results to their input: equal for the same file at the same scale.
pub fn digest(exp: &Experiment) -> Result<String> {
    Ok(fnv1a(&run_toml(exp, None)?))
}

fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
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
        assert!(name.ends_with("-scale4"), "{name}");
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
    fn cells_are_done_when_their_rows_are_written() {
        let e = exp(1);
        let dir = ResultsDir::open(&scratch("cells"), &digest(&e).unwrap()).unwrap();
        assert!(dir.finished_cell(0).is_none());
        let t = CellTiming {
            cell: 0,
            label: "exact".into(),
            elements: 10,
            wall_secs: 1.0,
            ns_per_element: 2.0,
            resumed: false,
        };
        let row = crate::record::rows::test_row("exact", 0, 0.0, 0.0);
        dir.write_cell(0, std::slice::from_ref(&row), &t).unwrap();
        assert!(dir.has_cell(0));
        assert_eq!(dir.finished_cell(0).unwrap().elements, 10);
        assert_eq!(dir.write_raw(&e).unwrap(), vec![row]);
        assert!(ResultsDir::has_finished_run(dir.path()));
        let _ = std::fs::remove_dir_all(dir.path());
    }
}
