//! The leaderboard's runs and its page in `dupstream report`.
//!
//! - [`rank`]: the latest run of each leaderboard experiment under some directories, and
//!   its [`boards`]: the one computation behind both renderings, LEADERBOARD.md
//!   (`dupstream leaderboard`) and the page.
//! - [`write`](fn@write): `leaderboard/index.html` under a report's root (the runs, each
//!   track's summary and transfer table, a link per board) and a page per board,
//!   `board-N.html`: its front chart first ([`board_panels`]), then its tables (the numbers of
//!   LEADERBOARD.md), and the numbers behind them as `board-N.csv`.

use super::charts::{self, Panel, Series, Style, XScale, pareto};
use super::html::{INDEX, escape, figure, href, markdown, page};
use super::leaderboard::{Board, Track, boards, summary};
use crate::plan::{Registry, Sizing, refuse};
use crate::record::ResultsDir;
use anyhow::{Context, Result};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The page's directory under a report's root.
pub const DIR: &str = "leaderboard";

/// A run the leaderboard ranks.
#[derive(Debug, Clone)]
pub struct Run {
    pub experiment: String,
    /// Its results directory, as found under the directories given.
    pub path: PathBuf,
    /// The same written with `/` (`results/...`), as LEADERBOARD.md shows it.
    pub dir: String,
    pub date: String,
    pub revision: String,
    pub scale: u64,
    pub wall_secs: f64,
}

/// The runs ranked and their boards, each board with its id ([`board_ids`]).
#[derive(Debug)]
pub struct Ranked {
    pub runs: Vec<Run>,
    pub boards: Vec<(String, Board)>,
}

/// Each board's short id: its experiment without the `leaderboard-` prefix, numbered when
/// an experiment has several boards.
pub fn board_ids(boards: &[Board]) -> Vec<String> {
    boards
        .iter()
        .map(|b| {
            let base = b
                .experiment
                .strip_prefix("leaderboard-")
                .unwrap_or(&b.experiment)
                .to_string();
            let same: Vec<&Board> = boards
                .iter()
                .filter(|o| o.experiment == b.experiment)
                .collect();
            if same.len() > 1 {
                let i = same.iter().position(|o| std::ptr::eq(*o, b)).unwrap_or(0);
                format!("{base} #{}", i + 1)
            } else {
                base
            }
        })
        .collect()
}

/// A results directory with its manifest (`null` when it has none).
fn with_manifest(d: PathBuf) -> (PathBuf, Value) {
    let m = crate::record::read_result_json(&d, "manifest.json").unwrap_or(Value::Null);
    (d, m)
}

/// The latest results directory of each experiment and scale
/// ([`latest_runs`](super::html::latest_runs)), with its manifest, sorted by path.
fn latest(dirs: Vec<PathBuf>) -> Vec<(PathBuf, Value)> {
    let runs: Vec<(PathBuf, Value)> = dirs.into_iter().map(with_manifest).collect();
    let pairs: Vec<(&Path, &Value)> = runs.iter().map(|(d, m)| (d.as_path(), m)).collect();
    let superseded = super::html::latest_runs(&pairs);
    let mut out: Vec<(PathBuf, Value)> = runs
        .into_iter()
        .zip(superseded)
        .filter_map(|(run, by)| by.is_none().then_some(run))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The runs among `found` that `file` names (a `canonical.toml`, whose `[runs]` are
/// directories under the file's own directory), with their manifests. A run it names for an
/// experiment starting with `prefix` that is not among `found` is an error naming it: a
/// board would be left out silently.
fn canonical(
    found: Vec<PathBuf>,
    file: &Path,
    prefix: Option<&str>,
) -> Result<Vec<(PathBuf, Value)>> {
    let base = file.parent().unwrap_or(Path::new("."));
    let key = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    // Each named run: its `experiment = "directory"` line and where it is.
    let named: Vec<(String, String, PathBuf)> = super::docs::canonical_runs(file)?
        .into_iter()
        .map(|(e, d)| {
            let at = key(&base.join(&e).join(&d));
            (e, d, at)
        })
        .collect();
    let found: Vec<(PathBuf, PathBuf)> = found.into_iter().map(|d| (key(&d), d)).collect();
    let missing: Vec<String> = named
        .iter()
        .filter(|(e, _, at)| {
            prefix.is_none_or(|p| e.starts_with(p)) && !found.iter().any(|(k, _)| k == at)
        })
        .map(|(e, d, _)| format!("{e} = \"{d}\""))
        .collect();
    if !missing.is_empty() {
        return Err(refuse(format!(
            "{}: names runs not found under the directories given: {}",
            file.display(),
            missing.join(", ")
        )));
    }
    let mut out: Vec<(PathBuf, Value)> = found
        .into_iter()
        .filter(|(k, _)| named.iter().any(|(_, _, at)| at == k))
        .map(|(_, d)| with_manifest(d))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The latest run of every experiment under `dirs` (results directories or directories of
/// them) whose name starts with `prefix` — or, given `canonical` (a `canonical.toml`), the
/// runs it names — and the boards of each.
pub fn rank(
    dirs: &[PathBuf],
    prefix: Option<&str>,
    canonical_file: Option<&Path>,
    registry: &Registry,
) -> Result<Ranked> {
    let mut found = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            return Err(refuse(format!("{}: no such directory", d.display())));
        }
        found.extend(super::html::results_dirs(d)?);
    }
    let mut runs = Vec::new();
    let mut all: Vec<Board> = Vec::new();
    let chosen = match canonical_file {
        None => latest(found),
        Some(file) => canonical(found, file, prefix)?,
    };
    for (path, m) in chosen {
        let name = m["experiment"].as_str().unwrap_or("?");
        if prefix.is_some_and(|p| !name.starts_with(p)) {
            continue;
        }
        let dir = ResultsDir::existing(&path);
        let (exp, rows) =
            super::load(&dir, registry).with_context(|| format!("reading {}", path.display()))?;
        let ns = super::cell_ns(&dir).with_context(|| format!("reading {}", path.display()))?;
        // The published board (`--canonical`) refuses a run that breaks rule 3, or whose sizes
        // bound the state rather than what is held (rule 1); a ranking of any other runs (a
        // paper's sweeps of 16 settings, a user's) says so for rule 3 and goes on (a paper's
        // runs are sized to state, as the papers are, and ranking them is no board).
        let rule_1 = match canonical_file {
            Some(_) => held_budget(&path, exp.sizing),
            None => Ok(()),
        };
        if let Err(e) = grids_of_at_most(&path, &rows).and(rule_1) {
            if canonical_file.is_some() {
                return Err(e);
            }
            eprintln!("dupstream: warning: {e}");
        }
        let shown = path.display().to_string().replace('\\', "/");
        runs.push(Run {
            experiment: exp.name.clone(),
            dir: shown.clone(),
            date: m["started_unix"]
                .as_i64()
                .map_or("—".into(), crate::record::probe::date_of),
            revision: m["git_revision"].as_str().unwrap_or("—").to_string(),
            scale: exp.scale,
            wall_secs: m["wall_secs_total"].as_f64().unwrap_or(f64::NAN),
            path,
        });
        all.extend(boards(&exp, &rows, &ns));
    }
    let ids = board_ids(&all);
    Ok(Ranked {
        runs,
        boards: ids.into_iter().zip(all).collect(),
    })
}

/// The configurations a structure's grid may hold (the leaderboard's rule 3).
pub const MAX_GRID: usize = 8;

/// Rule 3, checked (refused with `--canonical`, warned otherwise): every structure of a run ([`RawRow::structure`](crate::record::RawRow::structure): its label, or its
/// registry name when the label is generated per configuration) declares at most
/// [`MAX_GRID`] configurations; a run that breaks it is refused, naming it and the structure.
fn grids_of_at_most(path: &Path, rows: &[crate::record::RawRow]) -> Result<()> {
    let mut configs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.params.get("derived").is_none()) {
        configs.entry(r.structure()).or_default().insert(r.config());
    }
    for (label, set) in configs {
        if set.len() > MAX_GRID {
            return Err(refuse(format!(
                "{}: `{label}` runs {} configurations; the leaderboard's rule 3 allows at most {MAX_GRID}",
                path.display(),
                set.len()
            )));
        }
    }
    Ok(())
}

/// Rule 1's sizing, checked as rule 3 is: the run's sizes bound the memory each structure
/// holds (`[grid] budget = "held"`), so that no structure's fixed part lands it a column up.
fn held_budget(path: &Path, sizing: Sizing) -> Result<()> {
    if sizing == Sizing::Held {
        return Ok(());
    }
    Err(refuse(format!(
        "{}: its sizes bound each structure's state; the leaderboard's rule 1 sizes every structure to the memory it holds: set [grid] budget = \"held\" and run it again",
        path.display()
    )))
}

/// The families a front chart's panel draws at most.
pub const PER_PANEL: usize = 8;

/// A board's front charts: total error against measured bits per element on log axes, each
/// family's tuned point at every size it ran and its front through them, at most
/// [`PER_PANEL`] families a panel in the board's order; on count windows, Naor & Yogev's
/// bound within the points' range.
pub fn board_panels(b: &Board) -> Vec<Panel> {
    let (x_desc, y_desc) = match b.track {
        Track::SinceStart => (
            "measured bits per distinct key",
            "FPR + FNR (%)".to_string(),
        ),
        Track::Windowed => (
            if b.window_seconds.is_some() {
                "measured bits per mean window element"
            } else {
                "measured bits per window element"
            },
            match b.warmup {
                Some(w) => format!("windowed FPR + FNR after the warm-up of {w} (%)"),
                None => "windowed FPR + FNR (%)".to_string(),
            },
        ),
    };
    let drawn: Vec<&super::leaderboard::FamilyRow> =
        b.rows.iter().filter(|r| !r.front.is_empty()).collect();
    let count = drawn.len().div_ceil(PER_PANEL).max(1);
    drawn
        .chunks(PER_PANEL)
        .enumerate()
        .map(|(i, chunk)| {
            let series: Vec<Series> = chunk
                .iter()
                .map(|r| Series {
                    label: r.family.clone(),
                    // Log axes: an error of 0 is drawn at the axis' floor by the renderer.
                    points: r
                        .front
                        .iter()
                        .map(|e| (e.bits_per_element, e.error_pct))
                        .collect(),
                    band: None,
                })
                .collect();
            let fronts: Vec<(String, Vec<(f64, f64)>)> = series
                .iter()
                .map(|s| (s.label.clone(), pareto::front(&s.points)))
                .filter(|f| f.1.len() > 1)
                .collect();
            let xy: Vec<(f64, f64)> = series.iter().flat_map(|s| s.points.clone()).collect();
            Panel {
                x_scale: XScale::Log2,
                log_y: Some(true),
                bound: match (b.track, b.window_seconds, b.window) {
                    (Track::Windowed, None, Some(w)) => zero_slack_bound(w, &xy),
                    _ => Vec::new(),
                },
                bound_label: Some(
                    "lower bound at FNR 0 and zero slack (Naor & Yogev, W as run; rule 10)".into(),
                ),
                series,
                style: Style::Points,
                fronts,
                ..Panel::new(
                    format!(
                        "families {}–{} of {} (panel {} of {count})",
                        i * PER_PANEL + 1,
                        i * PER_PANEL + chunk.len(),
                        drawn.len(),
                        i + 1
                    ),
                    x_desc,
                    y_desc.clone(),
                )
            }
        })
        .collect()
}

/// Naor & Yogev's bound at zero slack for a window of `w` elements (rule 10: the question the
/// board scores), as `(bits per window element, error in %)` over the x range of `points`.
fn zero_slack_bound(w: u64, points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let (lo, hi) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    (0..=80)
        .map(|i| {
            let eps = 1e-6 * (0.5f64 / 1e-6).powf(f64::from(i) / 80.0);
            let bits = dupstream_filters::theory::sliding_window_lower_bound_bits(w, eps);
            (bits / w as f64, eps * 100.0)
        })
        .filter(|p| p.0 >= lo && p.0 <= hi)
        .collect()
}

/// A board's title: the workload and track, then the length and scale as run.
fn board_title(id: &str, b: &Board) -> String {
    let (_, stream, track) = b.heading();
    let stream: Vec<&str> = stream.split(' ').filter(|t| !t.starts_with("n=")).collect();
    format!(
        "{id}: {} — {track}\nn = {} elements scored — scale 1/{}",
        stream.join(" "),
        charts::thousands(b.n),
        b.scale
    )
}

/// A board's page: the chart first, then its tables and the CSV behind them.
fn board_page(i: usize, id: &str, b: &Board, chart: &str, png: &str) -> String {
    let csv = format!("board-{i}.csv");
    let mut body = format!(
        "<nav><a href=\"{INDEX}\">leaderboard</a> · <a href=\"../{INDEX}\">all results</a></nav>\n<h1>{}</h1>\n",
        escape(id)
    );
    body.push_str(&figure(chart, Some(png)));
    let _ = writeln!(
        body,
        "<p>The numbers behind this page: <a href=\"{csv}\">{csv}</a> (every column entry and every front point, with its setting, memory held, FPR, FNR, confidence half-width and ns per element).</p>"
    );
    let _ = writeln!(
        body,
        "<div class=\"markdown scroll\">{}</div>",
        markdown(&b.markdown(id))
    );
    page(&format!("dupstream leaderboard: {id}"), &body)
}

/// Writes the leaderboard's pages of `ranked` into `<root>/leaderboard/`: the index (the
/// runs, each track's summary and transfer, a link per board) and a page, chart and CSV per
/// board. The runs' pages are `<run>/index.html` relative to `root`. Returns the index.
pub fn write(root: &Path, ranked: &Ranked) -> Result<PathBuf> {
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut body = format!(
        "<nav><a href=\"../{INDEX}\">all results</a></nav>\n<h1>Leaderboard</h1>\n<p>Every structure at equal measured memory, tuned on streams that are not scored (the numbers of LEADERBOARD.md, from the runs below). Each board has its own page: its front chart, its tables, and the numbers as CSV.</p>\n"
    );
    body.push_str("<div class=\"scroll\"><table>\n<tr><th>experiment</th><th>run</th><th>date</th><th>revision</th><th>scale</th><th>wall time</th></tr>\n");
    for r in &ranked.runs {
        let rel = r.path.strip_prefix(root).unwrap_or(&r.path);
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td><a href=\"../{}\">{}</a></td><td>{}</td><td>{}</td><td>1/{}</td><td>{:.0} s</td></tr>",
            escape(&r.experiment),
            href(&rel.join(INDEX)),
            escape(&rel.display().to_string()),
            escape(&r.date),
            escape(&r.revision),
            r.scale,
            r.wall_secs
        );
    }
    body.push_str("</table></div>\n<h2>Boards</h2>\n<ul>\n");
    for (i, (id, b)) in ranked.boards.iter().enumerate() {
        let _ = writeln!(
            body,
            "<li><a href=\"board-{i}.html\">{}</a> — {}{}</li>",
            escape(id),
            escape(b.track.title()),
            if b.real { ", real trace" } else { "" }
        );
    }
    body.push_str("</ul>\n");
    for track in [Track::SinceStart, Track::Windowed] {
        let of: Vec<(String, &Board)> = ranked
            .boards
            .iter()
            .filter(|(_, b)| b.track == track)
            .map(|(id, b)| (id.clone(), b))
            .collect();
        if !of.is_empty() {
            let _ = writeln!(
                body,
                "<div class=\"markdown scroll\">{}</div>",
                markdown(&summary::markdown(track, &of))
            );
        }
    }
    for (i, (id, b)) in ranked.boards.iter().enumerate() {
        let name = format!("board-{i}");
        let files = charts::render(&dir.join(&name), &board_title(id, b), &board_panels(b))?;
        let file = |ext: &str| {
            files
                .iter()
                .find(|f| f.extension().is_some_and(|x| x == ext))
                .and_then(|f| f.file_name())
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        crate::record::atomic_write(&dir.join(format!("{name}.csv")), b.csv().as_bytes())?;
        crate::record::atomic_write(
            &dir.join(format!("{name}.html")),
            board_page(i, id, b, &file("svg"), &file("png")).as_bytes(),
        )?;
    }
    body.push_str("<p class=\"muted\">Written by <code>dupstream report</code>.</p>\n");
    let path = dir.join(INDEX);
    crate::record::atomic_write(&path, page("dupstream leaderboard", &body).as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod grid_tests {
    use super::*;
    use crate::record::RawRow;
    use crate::record::rows::test_row;

    /// Rule 3 is checked, not only stated: a ninth configuration under one label is refused,
    /// naming the run and the label; eight pass, and other labels do not count.
    #[test]
    fn rule_3_refuses_a_structure_of_more_than_eight_configurations() {
        let rows = |n: usize| -> Vec<RawRow> {
            let mut v: Vec<RawRow> = (0..n)
                .map(|i| {
                    let mut r = test_row("Aged cuckoo", i, 0.1, 0.0);
                    r.config = format!("Aged cuckoo c={i}");
                    r
                })
                .collect();
            v.push(test_row("Bloom", n, 0.1, 0.0));
            v
        };
        let path = Path::new("results/board/run");
        assert!(grids_of_at_most(path, &rows(MAX_GRID)).is_ok());
        let err = grids_of_at_most(path, &rows(MAX_GRID + 1))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("results/board/run")
                && err.contains("`Aged cuckoo` runs 9 configurations"),
            "{err}"
        );
    }

    /// Rule 1's sizing is checked too: a run sized to its structures' state is refused,
    /// naming the run and the key that sizes it to what it holds.
    #[test]
    fn rule_1_refuses_a_run_sized_to_state() {
        let path = Path::new("results/board/run");
        assert!(held_budget(path, Sizing::Held).is_ok());
        let err = held_budget(path, Sizing::State).unwrap_err().to_string();
        assert!(
            err.contains("results/board/run") && err.contains("budget = \"held\""),
            "{err}"
        );
    }
}
