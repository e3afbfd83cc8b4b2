//! Documents that cannot go stale: every count, rate and time the reference documents state
//! about results is written here, from the committed results and the experiments'
//! `paper-values.csv`, into blocks between two markers:
//!
//! ```text
//! <!-- generated: table bera-journal-table7 -->
//! … rewritten by `dupstream docs --write` …
//! <!-- end generated -->
//! ```
//!
//! The runs are the canonical run of each experiment, declared in `results/canonical.toml`
//! (experiment name = directory name under `results/<experiment>/`). `results/` holds those
//! and nothing else: a results directory that is not canonical is reported as a difference,
//! as is a canonical run that is missing.
//!
//! The blocks, by name:
//! - `table EXPERIMENT`: the canonical run's `table.md`, from "Each cell" on (or its table);
//! - `run EXPERIMENT`: one paragraph naming the run, its scale, threads, wall time against
//!   the estimate, peak memory, machine, load, revision and date;
//! - `papers`: per paper, the experiment files, those with a committed run, and the cells
//!   within tolerance of the paper over the cells compared, apart for each reading of a column
//!   ([`readings`](super::readings): faithful, hypotheses, pseudo-code, the authors' code,
//!   E of saturated filters, stand-in data);
//! - `catalogue`: the same per experiment file, with scale, wall time, peak memory and
//!   revision;
//! - `timing`: the canonical runs' wall times and peak memory beside their estimates;
//! - `results-index`: the kept runs, for `results/README.md`.

use super::html::results_dirs;
use super::readings::{Counts, Reading, Readings};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The marker opening a generated block; the block's name follows it.
pub const BEGIN: &str = "<!-- generated: ";
/// The marker closing a generated block.
pub const END: &str = "<!-- end generated -->";
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

/// A generated block that differs from what is committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The document, relative to the root.
    pub file: String,
    /// The block's name.
    pub block: String,
    /// Its line in the document.
    pub line: usize,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: generated block `{}` differs from what `dupstream docs --write` writes",
            self.file, self.line, self.block
        )
    }
}

/// A document with its blocks regenerated.
#[derive(Debug)]
pub struct Document {
    /// Relative to the root.
    pub file: String,
    pub text: String,
    pub regenerated: String,
    pub stale: Vec<Stale>,
}

fn rel(root: &Path, p: &Path) -> String {
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
                    tolerance: super::readings::count(
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

    fn run(&self, experiment: &str) -> Result<&Run> {
        self.runs
            .get(experiment)
            .with_context(|| format!("{experiment} has no canonical run in {CANONICAL}"))
    }

    /// The text of the block `name` in the document `doc` (relative to the root; links are
    /// made relative to it), without the markers, ending in a newline.
    pub fn block(&self, name: &str, doc: &str) -> Result<String> {
        let (kind, arg) = name.split_once(' ').unwrap_or((name, ""));
        match (kind, arg) {
            ("table", e) if !e.is_empty() => self.table(e, doc),
            ("run", e) if !e.is_empty() => Ok(self.run_paragraph(self.run(e)?, doc)),
            ("papers", "") => Ok(self.papers()),
            ("catalogue", "") => Ok(self.catalogue(doc)),
            ("timing", "") => Ok(self.timing(doc)),
            ("results-index", "") => Ok(self.results_index(doc)),
            _ => bail!(
                "unknown generated block `{name}` (known: table EXPERIMENT, run EXPERIMENT, papers, catalogue, timing, results-index)"
            ),
        }
    }

    fn table(&self, experiment: &str, doc: &str) -> Result<String> {
        let run = self.run(experiment)?;
        let path = self.root.join(&run.dir).join("table.md");
        let md = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let lines: Vec<&str> = md.lines().collect();
        let from = lines
            .iter()
            .position(|l| l.starts_with("Each cell"))
            .or_else(|| lines.iter().position(|l| l.starts_with('|')))
            .with_context(|| format!("{}: no table", path.display()))?;
        let mut out = format!(
            "From [`{dir}table.md`]({}):\n\n",
            href(doc, &format!("{}table.md", run.dir)),
            dir = run.dir
        );
        for l in &lines[from..] {
            out.push_str(l);
            out.push('\n');
        }
        Ok(out)
    }

    fn run_paragraph(&self, run: &Run, doc: &str) -> String {
        let m = &run.manifest;
        format!(
            "[`{dir}`]({}): {}; {} wall (estimated {}), peak memory {} (estimated {}); {}.\n",
            href(doc, &run.dir),
            run_facts(m),
            secs(m["wall_secs_total"].as_f64()),
            secs(m["estimated_secs"].as_f64()),
            bytes(m["peak_rss_bytes"].as_u64()),
            bytes(m["estimated_peak_bytes"].as_u64()),
            machine(m),
            dir = run.dir
        )
    }

    /// The counts of an experiment file's runs: its canonical run's, with the authors'-code
    /// columns taken from its own `<experiment>-authors` run where there is one (made at full
    /// scale from the same file, those columns alone).
    fn counts_of(&self, e: &ExperimentFile) -> Option<Counts> {
        let main = self.runs.get(&e.name)?.tolerance.unwrap_or_default();
        let Some(own) = self
            .runs
            .get(&format!("{}-authors", e.name))
            .and_then(|r| r.tolerance)
        else {
            return Some(main);
        };
        let mut c = main.without(Reading::Authors);
        c += own;
        Some(c)
    }

    fn papers(&self) -> String {
        let mut out = String::from("| experiments | files | with a committed run |");
        for r in Reading::ALL {
            let _ = write!(out, " {} |", r.heading());
        }
        out.push_str("\n|---|---|---|");
        out.push_str(&"---|".repeat(Reading::ALL.len()));
        out.push('\n');
        let mut papers: Vec<&str> = self.experiments.iter().map(|e| e.paper.as_str()).collect();
        papers.dedup();
        let row = |out: &mut String, name: &str, files: usize, runs: usize, c: &Counts| {
            let _ = write!(out, "| {name} | {files} | {runs} |");
            for r in Reading::ALL {
                let (ok, of) = c.get(r);
                let _ = write!(out, " {} |", ratio(ok, of));
            }
            out.push('\n');
        };
        let mut all = Counts::default();
        for paper in papers {
            let files: Vec<&ExperimentFile> = self
                .experiments
                .iter()
                .filter(|e| e.paper == paper)
                .collect();
            let runs = files
                .iter()
                .filter(|e| self.runs.contains_key(&e.name))
                .count();
            let mut c = Counts::default();
            for e in &files {
                c += self.counts_of(e).unwrap_or_default();
            }
            all += c;
            row(&mut out, &paper_name(paper), files.len(), runs, &c);
        }
        let runs = self
            .experiments
            .iter()
            .filter(|e| self.runs.contains_key(&e.name))
            .count();
        row(&mut out, "all", self.experiments.len(), runs, &all);
        out
    }

    fn catalogue(&self, doc: &str) -> String {
        let mut out = String::from(
            "| experiment file | paper values | canonical run | scale | within tolerance / compared | wall time | threads | peak memory | revision |\n|---|---|---|---|---|---|---|---|---|\n",
        );
        for e in &self.experiments {
            let Some(run) = self.runs.get(&e.name) else {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | not committed | | | | | | |",
                    e.path, e.paper_values
                );
                continue;
            };
            let m = &run.manifest;
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                e.path,
                e.paper_values,
                link(run, doc),
                text(&m["scale"]),
                run.tolerance.map_or("—".into(), |c| c.summary()),
                secs(m["wall_secs_total"].as_f64()),
                text(&m["threads"]),
                bytes(m["peak_rss_bytes"].as_u64()),
                text(&m["git_revision"])
            );
        }
        out
    }

    fn timing(&self, doc: &str) -> String {
        let mut machines: Vec<String> = self.runs.values().map(|r| machine(&r.manifest)).collect();
        machines.sort();
        machines.dedup();
        let mut out = format!(
            "Machine{}: {}. Wall time and peak memory as each run's `manifest.json` records them, beside the estimate `dupstream run` printed before starting; the load average is the one-minute figure when the run started.\n\n",
            if machines.len() == 1 { "" } else { "s" },
            machines.join("; ")
        );
        out.push_str(
            "| experiment | run | scale | threads | cells | wall time | estimated | measured / estimated | peak memory | estimated peak | load at start |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for (experiment, run) in &self.runs {
            let m = &run.manifest;
            let wall = m["wall_secs_total"].as_f64();
            let est = m["estimated_secs"].as_f64();
            let ratio = match (wall, est) {
                (Some(w), Some(e)) if e > 0.0 => format!("{:.2}×", w / e),
                _ => "—".into(),
            };
            let _ = writeln!(
                out,
                "| {experiment} | {} | {} | {} | {} | {} | {} | {ratio} | {} | {} | {} |",
                link(run, doc),
                text(&m["scale"]),
                text(&m["threads"]),
                cells(m),
                secs(wall),
                secs(est),
                bytes(m["peak_rss_bytes"].as_u64()),
                bytes(m["estimated_peak_bytes"].as_u64()),
                m["machine"]["load_average"][0]
                    .as_f64()
                    .map_or("—".into(), |l| format!("{l:.2}"))
            );
        }
        out
    }

    fn results_index(&self, doc: &str) -> String {
        let mut out = String::from(
            "| experiment | run | scale | cells | within tolerance / compared | revision | date |\n|---|---|---|---|---|---|---|\n",
        );
        for (experiment, run) in &self.runs {
            let m = &run.manifest;
            let _ = writeln!(
                out,
                "| {experiment} | {} | {} | {} | {} | {} | {} |",
                link(run, doc),
                text(&m["scale"]),
                cells(m),
                run.tolerance.map_or("—".into(), |c| c.summary()),
                text(&m["git_revision"]),
                date(m)
            );
        }
        out
    }

    /// `text` (the document `file`, relative to the root) with every generated block
    /// rewritten, and the blocks that differed.
    pub fn regenerate(&self, file: &str, text: &str) -> Result<(String, Vec<Stale>)> {
        let mut out = String::with_capacity(text.len());
        let mut stale = Vec::new();
        let mut lines = text.split_inclusive('\n').enumerate();
        while let Some((i, line)) = lines.next() {
            out.push_str(line);
            let Some(name) = line
                .trim_end()
                .strip_prefix(BEGIN)
                .and_then(|r| r.strip_suffix("-->"))
            else {
                continue;
            };
            let name = name.trim();
            let mut old = String::new();
            let mut closed = None;
            for (_, l) in lines.by_ref() {
                if l.trim_end() == END {
                    closed = Some(l);
                    break;
                }
                old.push_str(l);
            }
            let Some(end) = closed else {
                bail!("{file}:{}: generated block `{name}` has no `{END}`", i + 1);
            };
            let new = self
                .block(name, file)
                .with_context(|| format!("{file}:{}", i + 1))?;
            if new != old {
                stale.push(Stale {
                    file: file.to_string(),
                    block: name.to_string(),
                    line: i + 1,
                });
            }
            out.push_str(&new);
            out.push_str(end);
        }
        Ok((out, stale))
    }

    /// Every document that may hold generated blocks, regenerated.
    pub fn documents(&self) -> Result<Vec<Document>> {
        let mut out = Vec::new();
        for path in documents(&self.root)? {
            let file = rel(&self.root, &path);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            if !text.contains(BEGIN) {
                continue;
            }
            let (regenerated, stale) = self.regenerate(&file, &text)?;
            out.push(Document {
                file,
                text,
                regenerated,
                stale,
            });
        }
        Ok(out)
    }
}

/// The Markdown files that may hold generated blocks: those at the root, under `docs/`, the
/// crates' READMEs and `results/README.md`.
pub fn documents(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let md = |dir: &Path, out: &mut Vec<PathBuf>| -> Result<()> {
        if !dir.is_dir() {
            return Ok(());
        }
        for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let p = e?.path();
            if p.is_file() && p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
        Ok(())
    };
    md(root, &mut out)?;
    md(&root.join("docs"), &mut out)?;
    if root.join("crates").is_dir() {
        for e in std::fs::read_dir(root.join("crates"))? {
            let p = e?.path().join("README.md");
            if p.is_file() {
                out.push(p);
            }
        }
    }
    let index = root.join("results/README.md");
    if index.is_file() {
        out.push(index);
    }
    out.sort();
    Ok(out)
}

/// The paper directory of `experiment`: that of the experiment file of that name, or of the
/// longest whose name and a `-` begin it (`qht-table2-4-u24-authors`).
fn paper_of(experiments: &[ExperimentFile], experiment: &str) -> Option<String> {
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

fn paper_name(dir: &str) -> String {
    match dir {
        "deng" => "Deng & Rafiei (SBF)",
        "bera-conference" => "Bera et al., conference (RSBF)",
        "bera-journal" => "Bera et al., journal (RSBF, BSBF, BSBFSD, RLBSBF)",
        "singh-batra" => "Singh & Batra (FP-SBF)",
        "qht" => "Géraud et al. (QHT)",
        "leaderboard" => "the leaderboard (every structure, no paper values)",
        other => other,
    }
    .to_string()
}

/// A Markdown link to the run's directory, named by its directory name, from the document
/// `doc`.
fn link(run: &Run, doc: &str) -> String {
    format!("[{}]({})", run_name(run), href(doc, &run.dir))
}

/// `target` as a relative link from the document `doc` (both relative to the root).
fn href(doc: &str, target: &str) -> String {
    let mut from: Vec<&str> = doc.split('/').collect();
    from.pop();
    let to: Vec<&str> = target.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    "../".repeat(from.len() - common) + &to[common..].join("/")
}

fn cells(m: &Value) -> usize {
    m["cells"].as_array().map_or(0, Vec::len)
}

/// The run's directory name (`2026-11-24-vm-090024e`).
fn run_name(run: &Run) -> &str {
    run.dir
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(&run.dir)
}

fn run_facts(m: &Value) -> String {
    format!(
        "scale {}, {} cells, {} thread{}, revision {}, {}",
        text(&m["scale"]),
        cells(m),
        text(&m["threads"]),
        if m["threads"].as_u64() == Some(1) {
            ""
        } else {
            "s"
        },
        text(&m["git_revision"]),
        date(m)
    )
}

fn machine(m: &Value) -> String {
    let mc = &m["machine"];
    let cpu = mc["cpu"].as_str().unwrap_or("unknown CPU");
    let mem = mc["memory_bytes"]
        .as_u64()
        .map_or(String::new(), |b| format!(", {} memory", bytes(Some(b))));
    format!("{cpu}, {} cores{mem}", text(&mc["cores"]))
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        other => other.to_string(),
    }
}

fn ratio(ok: usize, of: usize) -> String {
    if of == 0 {
        "—".into()
    } else {
        format!("{ok} / {of}")
    }
}

/// Seconds as `12.3 s`, `6 min 35 s` or `1 h 02 min`.
pub fn secs(s: Option<f64>) -> String {
    let Some(s) = s.filter(|s| s.is_finite() && *s >= 0.0) else {
        return "—".into();
    };
    if s < 60.0 {
        return format!("{s:.1} s");
    }
    let whole = s.round() as u64;
    if whole < 3600 {
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        format!("{} h {:02} min", whole / 3600, (whole % 3600 + 30) / 60)
    }
}

/// Bytes in binary units: `74.0 MiB`, `1.12 GiB`.
pub fn bytes(b: Option<u64>) -> String {
    let Some(b) = b else {
        return "—".into();
    };
    let b = b as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    const GIB: f64 = (1u64 << 30) as f64;
    if b >= GIB {
        format!("{:.2} GiB", b / GIB)
    } else {
        format!("{:.1} MiB", b / MIB)
    }
}

/// The run's start date (UTC), from `started_unix`.
fn date(m: &Value) -> String {
    m["started_unix"]
        .as_i64()
        .map_or("—".into(), crate::record::probe::date_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_times_and_sizes() {
        let m = serde_json::json!({ "started_unix": 1_795_499_884 });
        assert_eq!(date(&m), "2026-11-24");
        assert_eq!(
            date(&serde_json::json!({ "started_unix": 0 })),
            "1970-01-01"
        );
        assert_eq!(secs(Some(12.34)), "12.3 s");
        assert_eq!(secs(Some(394.9)), "6 min 35 s");
        assert_eq!(secs(Some(3_780.0)), "1 h 03 min");
        assert_eq!(bytes(Some(1_207_197_696)), "1.12 GiB");
        assert_eq!(bytes(Some(77_594_624)), "74.0 MiB");
        assert_eq!(href("README.md", "results/a/b/"), "results/a/b/");
        assert_eq!(href("docs/timing.md", "results/a/b/"), "../results/a/b/");
        assert_eq!(href("results/README.md", "results/a/b/t.md"), "a/b/t.md");
    }

    fn empty() -> Catalogue {
        Catalogue {
            root: PathBuf::from("."),
            experiments: Vec::new(),
            runs: BTreeMap::new(),
            problems: Vec::new(),
            uncited: Vec::new(),
        }
    }

    #[test]
    fn blocks_are_rewritten_and_differences_named() {
        let cat = empty();
        let fresh = cat.block("papers", "README.md").unwrap();
        let doc = format!("# t\n\n{BEGIN}papers -->\n{fresh}{END}\nafter\n");
        let (same, stale) = cat.regenerate("README.md", &doc).unwrap();
        assert_eq!(same, doc);
        assert!(stale.is_empty());
        let edited = doc.replace("| all | 0 | 0 |", "| all | 1 | 0 |");
        assert_ne!(edited, doc);
        let (fixed, stale) = cat.regenerate("README.md", &edited).unwrap();
        assert_eq!(fixed, doc);
        assert_eq!(
            stale,
            vec![Stale {
                file: "README.md".into(),
                block: "papers".into(),
                line: 3
            }]
        );
    }

    #[test]
    fn unclosed_and_unknown_blocks_are_errors() {
        let cat = empty();
        let err = cat
            .regenerate("a.md", &format!("{BEGIN}papers -->\nx\n"))
            .unwrap_err();
        assert!(format!("{err:#}").contains("a.md:1"), "{err:#}");
        let err = cat
            .regenerate("a.md", &format!("x\n{BEGIN}nonsense -->\n{END}\n"))
            .unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown generated block"),
            "{err:#}"
        );
    }
}
