//! The canonical runs (`results/canonical.toml`) and the experiment files the blocks are
//! written from: reading them, and what is wrong with them.

use crate::report::html::dirs::results_dirs;
use crate::report::readings::{Counts, Readings};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file naming each experiment's canonical run, relative to the repository root.
pub const CANONICAL: &str = "results/canonical.toml";

/// An experiment file of the catalogue.
#[derive(Debug, Clone)]
pub struct ExperimentFile {
    /// Relative to the repository root, with `/` separators.
    pub path: String,
    /// Its `name`, which names its results directories.
    pub name: String,
    /// The directory it sits in under `experiments/` (`bera-journal`).
    pub paper: String,
    /// The rows of its `[reference]` file that belong to its table.
    pub paper_values: usize,
}

/// A committed, canonical run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Relative to the repository root, with `/` separators, ending in `/`.
    pub dir: String,
    pub manifest: Value,
    /// `(within tolerance, compared)` cells of its `table.csv`, by reading.
    pub tolerance: Option<Counts>,
}

/// The runs a `canonical.toml` names (`[runs] experiment = "directory"`), in its order of
/// keys: `(experiment, directory under results/<experiment>/)`.
pub fn canonical_runs(path: &Path) -> Result<Vec<(String, String)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let doc: toml::Table =
        toml::from_str(&text).with_context(|| format!("{}: malformed", path.display()))?;
    let Some(listed) = doc.get("runs").and_then(|r| r.as_table()) else {
        bail!(
            "{}: no `[runs]` table (`[runs]` then `experiment = \"directory\"` lines)",
            path.display()
        );
    };
    listed
        .iter()
        .map(|(experiment, dir)| match dir.as_str() {
            Some(d) => Ok((experiment.clone(), d.to_string())),
            None => bail!(
                "{}: key `runs.{experiment}`: a directory name, in quotes",
                path.display()
            ),
        })
        .collect()
}

/// What the generated blocks are written from.
#[derive(Debug)]
pub struct Catalogue {
    pub root: PathBuf,
    pub experiments: Vec<ExperimentFile>,
    /// The canonical run of each experiment that has one, by experiment name.
    pub runs: BTreeMap<String, Run>,
    /// What is wrong with `results/canonical.toml`: a canonical run that is missing or
    /// belongs to another experiment.
    pub problems: Vec<String>,
    /// Runs under `results/` that `results/canonical.toml` does not name (a user's own runs,
    /// superseded ones): the documents cite none of them. The repository commits none of them
    /// either (a test checks the tracked files), but their presence is no error: a user who
    /// runs an experiment and then the tests must not see the tests fail.
    pub uncited: Vec<String>,
}

pub(super) fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The rows of the CSV `file` whose `table` column is `table`.
fn paper_values(file: &Path, table: &str) -> usize {
    let Ok(mut r) = csv::Reader::from_path(file) else {
        return 0;
    };
    let Some(col) = r
        .headers()
        .ok()
        .and_then(|h| h.iter().position(|c| c == "table"))
    else {
        return 0;
    };
    r.records()
        .filter_map(|rec| rec.ok())
        .filter(|rec| rec.get(col) == Some(table))
        .count()
}

fn experiment_file(root: &Path, path: &Path) -> Result<ExperimentFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let doc: toml::Table =
        toml::from_str(&text).with_context(|| format!("{}: malformed", path.display()))?;
    let Some(name) = doc.get("name").and_then(|v| v.as_str()) else {
        bail!("{}: no `name`", path.display());
    };
    let reference = doc.get("reference").and_then(|r| r.as_table());
    let field = |k: &str| reference.and_then(|r| r.get(k)).and_then(|v| v.as_str());
    let paper_values = match (field("file"), field("table")) {
        (Some(file), Some(table)) => paper_values(&path.parent().unwrap_or(root).join(file), table),
        _ => 0,
    };
    let paper = path
        .parent()
        .and_then(|p| p.file_name())
        .map_or(String::new(), |n| n.to_string_lossy().to_string());
    Ok(ExperimentFile {
        path: rel(root, path),
        name: name.to_string(),
        paper,
        paper_values,
    })
}

/// Why the canonical run in `path` (`results/{experiment}/{dir}/`) no longer describes its
/// experiment file as it stands, if it does not: its `run.toml` differs from the file (a key
/// added, removed or changed since the run; [`run_toml_differs`](crate::record::run_toml_differs)).
/// A run of an experiment that no
/// file under `experiments/` names (the QHT authors'-code runs, made from derived files) is
/// not checked.
fn stale_run(
    root: &Path,
    experiments: &[ExperimentFile],
    experiment: &str,
    path: &Path,
) -> Result<Option<String>> {
    let Some(file) = experiments.iter().find(|e| e.name == experiment) else {
        return Ok(None);
    };
    let exp_path = root.join(&file.path);
    let exp_dir = exp_path.parent().unwrap_or(root);
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("reading {}", p.display()));
    let source = String::from_utf8_lossy(&read(&exp_path)?).into_owned();
    let run_text = String::from_utf8_lossy(&read(&path.join("run.toml"))?).into_owned();
    let run_dir = rel(root, path);
    let stale = |why: String| {
        format!(
            "{}: changed after its canonical run {run_dir}/ ({why}); run it again and name the new run in {CANONICAL}",
            file.path
        )
    };
    if let Some(key) = crate::record::run_toml_differs(&run_text, path, &source, exp_dir)
        .with_context(|| format!("comparing {run_dir}/run.toml with {}", file.path))?
    {
        return Ok(Some(stale(format!("its run.toml differs at key `{key}`"))));
    }
    Ok(None)
}

impl Catalogue {
    /// Reads the experiment files under `root/experiments`, `root/results/canonical.toml`
    /// and the canonical runs.
    pub fn load(root: &Path) -> Result<Self> {
        let experiments = crate::plan::experiment_files(&root.join("experiments"))?
            .iter()
            .map(|f| experiment_file(root, f))
            .collect::<Result<Vec<_>>>()?;
        let mut problems = Vec::new();
        let mut runs = BTreeMap::new();
        // Every run named, read or not (a damaged one is a problem, not an uncited run).
        let mut named = Vec::new();
        for (experiment, dir) in canonical_runs(&root.join(CANONICAL))? {
            let path = root.join("results").join(&experiment).join(&dir);
            named.push(format!("{}/", rel(root, &path)));
            if !path.is_dir() {
                problems.push(format!(
                    "{CANONICAL}: the canonical run of {experiment}, results/{experiment}/{dir}/, is missing"
                ));
                continue;
            }
            if crate::record::result_path(&path, "manifest.json").is_none() {
                problems.push(format!(
                    "{CANONICAL}: the canonical run of {experiment}, results/{experiment}/{dir}/, has no manifest.json"
                ));
                continue;
            }
            // Nothing is written from a run that does not check against its commit record.
            if let Err(e) = crate::record::verify_run(&path) {
                problems.push(format!(
                    "{CANONICAL}: the canonical run of {experiment}: {e:#}"
                ));
                continue;
            }
            let manifest: Value = crate::record::read_result_json(&path, "manifest.json")?;
            if manifest["experiment"].as_str() != Some(experiment.as_str()) {
                problems.push(format!(
                    "{CANONICAL}: results/{experiment}/{dir}/ is a run of {}, not of {experiment}",
                    manifest["experiment"]
                ));
            }
            if let Some(stale) = stale_run(root, &experiments, &experiment, &path)? {
                problems.push(stale);
            }
            let readings = Readings::load(
                &root
                    .join("experiments")
                    .join(paper_of(&experiments, &experiment).unwrap_or_default()),
            )?;
            runs.insert(
                experiment.clone(),
                Run {
                    dir: format!("{}/", rel(root, &path)),
                    tolerance: crate::report::readings::count(
                        &path.join("table.csv"),
                        &experiment,
                        &readings,
                    ),
                    manifest,
                },
            );
        }
        let mut uncited = Vec::new();
        let results = root.join("results");
        if results.is_dir() {
            for d in results_dirs(&results)? {
                let dir = format!("{}/", rel(root, &d));
                if !named.contains(&dir) {
                    uncited.push(dir);
                }
            }
        }
        Ok(Self {
            root: root.to_path_buf(),
            experiments,
            runs,
            problems,
            uncited,
        })
    }

    pub(super) fn run(&self, experiment: &str) -> Result<&Run> {
        self.runs
            .get(experiment)
            .with_context(|| format!("{experiment} has no canonical run in {CANONICAL}"))
    }
}

/// The paper directory of `experiment`: that of the experiment file of that name, or of the
/// longest whose name and a `-` begin it (`qht-table2-4-u24-authors`).
pub(super) fn paper_of(experiments: &[ExperimentFile], experiment: &str) -> Option<String> {
    experiments
        .iter()
        .filter(|e| {
            e.name == experiment
                || experiment
                    .strip_prefix(e.name.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
        })
        .max_by_key(|e| e.name.len())
        .map(|e| e.paper.clone())
}
