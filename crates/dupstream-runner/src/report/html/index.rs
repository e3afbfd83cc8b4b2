//! The root page over many results directories, and which runs supersede which.

use super::dirs::results_dirs;
use super::grid::Grid;
use super::page::{INDEX, page};
use super::run_page::write_run;
use super::text::{duration, escape, href, value_text};
use anyhow::{Result, bail};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A run listed on the root index.
#[derive(Debug)]
struct IndexRun {
    /// Its directory, relative to the root.
    rel: PathBuf,
    manifest: Value,
    /// `(within tolerance, compared)` cells of its `table.csv`, when it has paper values.
    tolerance: Option<(usize, usize)>,
    /// Whether the root's `canonical.toml` names it: the run the documents cite.
    canonical: bool,
}

/// The file under a root of results naming each experiment's canonical run.
const CANONICAL: &str = "canonical.toml";

/// The runs `root/canonical.toml` names, as directories relative to `root`; none without
/// that file.
fn canonical_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let path = root.join(CANONICAL);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    Ok(crate::report::docs::canonical_runs(&path)?
        .into_iter()
        .map(|(experiment, dir)| Path::new(&experiment).join(dir))
        .collect())
}

/// The cells of a `table.csv` within tolerance of the paper and the cells compared, when
/// any is compared.
fn within_tolerance(table: &Path) -> Option<(usize, usize)> {
    let mut r = csv::Reader::from_path(table).ok()?;
    let col = r
        .headers()
        .ok()?
        .iter()
        .position(|h| h == "within_tolerance")?;
    let (mut ok, mut of) = (0, 0);
    for rec in r.records() {
        match rec.ok()?.get(col)? {
            "true" => (ok, of) = (ok + 1, of + 1),
            "false" => of += 1,
            _ => {}
        }
    }
    (of > 0).then_some((ok, of))
}

/// For each run `(directory, manifest)`, `None` when it is the latest of its experiment and
/// scale (started last, by `started_unix`, then by directory name), else the index of the run
/// that supersedes it. The index marks superseded runs with it; `dupstream leaderboard` ranks
/// the latest ones.
pub fn latest_runs(runs: &[(&Path, &Value)]) -> Vec<Option<usize>> {
    let key = |(_, m): &(&Path, &Value)| {
        (
            m["experiment"].as_str().unwrap_or("?").to_string(),
            m["scale"].as_u64().unwrap_or(1),
        )
    };
    let order =
        |(d, m): &(&Path, &Value)| (m["started_unix"].as_u64().unwrap_or(0), d.to_path_buf());
    (0..runs.len())
        .map(|i| {
            let newest = (0..runs.len())
                .filter(|&j| key(&runs[j]) == key(&runs[i]))
                .max_by_key(|&j| order(&runs[j]))
                .unwrap_or(i);
            (newest != i).then_some(newest)
        })
        .collect()
}

/// Writes a page in every results directory under `root` and `root/index.html` listing
/// them, each with its count of cells within tolerance of the paper: the canonical run of
/// each experiment (named in `root/canonical.toml`) in bold, the latest run of each
/// experiment and scale marked latest, the others superseded (greyed unless canonical);
/// linking to the `leaderboard` page when there is one (a path under `root`). Returns the
/// root page and the run pages.
pub fn write_root(root: &Path, leaderboard: Option<&Path>) -> Result<(PathBuf, Vec<PathBuf>)> {
    let dirs: Vec<PathBuf> = results_dirs(root)?
        .into_iter()
        .filter(|d| d != root)
        .collect();
    if dirs.is_empty() {
        bail!(
            "{}: no results directory (with raw.csv) under it",
            root.display()
        );
    }
    let canonical = canonical_dirs(root)?;
    let mut pages = Vec::new();
    let mut runs: Vec<IndexRun> = Vec::new();
    for d in &dirs {
        let rel = d.strip_prefix(root).unwrap_or(d).to_path_buf();
        let up = "../".repeat(rel.components().count()) + INDEX;
        pages.push(write_run(d, Some(&up))?);
        let manifest: Value = if crate::record::result_path(d, "manifest.json").is_some() {
            crate::record::read_result_json(d, "manifest.json")?
        } else {
            Value::Null
        };
        runs.push(IndexRun {
            tolerance: within_tolerance(&d.join("table.csv")),
            canonical: canonical.contains(&rel),
            rel,
            manifest,
        });
    }
    let board = leaderboard.map_or(String::new(), |page| {
        format!(
            "<p><a href=\"{}\">Leaderboard</a>: every structure at equal memory with its settings tuned on a held-out seed, per workload and track: the ranking tables and their Pareto charts.</p>\n",
            href(page.strip_prefix(root).unwrap_or(page))
        )
    });
    let legend = if canonical.is_empty() {
        format!(
            "No {CANONICAL} here names canonical runs. Of the runs of one experiment at one scale, the one started last is marked latest and the others superseded (grey)."
        )
    } else {
        format!(
            "<strong>canonical</strong> (the only bold): the run of its experiment that the documents cite, as {CANONICAL} names it. Of the runs of one experiment at one scale, the one started last is marked latest and the others superseded; a superseded run is grey unless it is canonical."
        )
    };
    let body = format!(
        "<h1>Results</h1>\n{board}<p class=\"muted\">{} results directories. {legend}</p>\n{}<p class=\"muted\">Written by <code>dupstream report</code>.</p>\n",
        dirs.len(),
        index_table(&runs)
    );
    let path = root.join(INDEX);
    crate::record::atomic_write(&path, page("dupstream results", &body).as_bytes())?;
    Ok((path, pages))
}

/// A run's status on the index, `(row class, text)`: canonical or not, and superseded by
/// `later` (a directory) or the latest.
fn status(canonical: bool, later: Option<&Path>) -> (&'static str, String) {
    let later = later.map(|p| escape(&p.display().to_string()));
    match (canonical, later) {
        (true, None) => ("canonical", "<strong>canonical</strong>, latest".into()),
        (true, Some(l)) => (
            "canonical",
            format!("<strong>canonical</strong>; a later run: {l}"),
        ),
        (false, None) => ("latest", "latest".into()),
        (false, Some(l)) => ("superseded", format!("superseded by {l}")),
    }
}

/// The index's table: the runs by experiment, each with its status ([`status`]).
fn index_table(runs: &[IndexRun]) -> String {
    let pairs: Vec<(&Path, &Value)> = runs
        .iter()
        .map(|r| (r.rel.as_path(), &r.manifest))
        .collect();
    let latest = latest_runs(&pairs);
    let mut grid = Grid::new(&[
        "run",
        "status",
        "revision",
        "scale",
        "cells",
        "within tolerance of the paper",
        "wall time",
        "description",
    ]);
    let mut last_experiment = None;
    for (i, run) in runs.iter().enumerate() {
        let m = &run.manifest;
        let experiment = m["experiment"].as_str().unwrap_or("?");
        if last_experiment != Some(experiment) {
            grid.group(escape(experiment));
            last_experiment = Some(experiment);
        }
        let (class, status) = status(run.canonical, latest[i].map(|j| runs[j].rel.as_path()));
        let tolerance = run
            .tolerance
            .map_or("—".into(), |(ok, of)| format!("{ok} of {of}"));
        let name = run.rel.file_name().unwrap_or(run.rel.as_os_str());
        grid.row_of_class(
            class,
            vec![
                format!(
                    "<a href=\"{}\">{}</a>",
                    href(&run.rel.join(INDEX)),
                    escape(&name.to_string_lossy())
                ),
                status,
                escape(&value_text(&m["git_revision"])),
                escape(&value_text(&m["scale"])),
                m["cells"].as_array().map_or(0, Vec::len).to_string(),
                tolerance,
                duration(m["wall_secs_total"].as_f64()),
                escape(&value_text(&m["description"])),
            ],
        );
    }
    grid.to_html()
}
