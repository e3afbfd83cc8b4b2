//! The leaderboard's runs and its page in `dupstream report`.
//!
//! - [`rank`]: the latest run of each leaderboard experiment under some directories, and
//!   its [`boards`]: the one computation behind both renderings, LEADERBOARD.md
//!   (`dupstream leaderboard`) and the page.
//! - [`write`](fn@write): `leaderboard/index.html` under a report's root: for each workload
//!   and track, what was scored, the ranking table (the numbers of LEADERBOARD.md, with the
//!   tuned setting beside each score) and a Pareto chart ([`board_panel`]), linked from the
//!   root index.

use super::charts::{self, Panel, Series, Style, XScale, pareto};
use super::html::{INDEX, escape, figure, href, page};
use super::leaderboard::{Board, Track, boards};
use crate::plan::{Registry, refuse};
use crate::record::ResultsDir;
use anyhow::{Context, Result};
use serde_json::Value;
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

/// The runs ranked and their boards, each board with its run's `dir`.
#[derive(Debug)]
pub struct Ranked {
    pub runs: Vec<Run>,
    pub boards: Vec<(String, Board)>,
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
    let mut ranked = Ranked {
        runs: Vec::new(),
        boards: Vec::new(),
    };
    let chosen = match canonical_file {
        None => latest(found),
        Some(file) => canonical(found, file, prefix)?,
    };
    for (path, m) in chosen {
        let name = m["experiment"].as_str().unwrap_or("?");
        if prefix.is_some_and(|p| !name.starts_with(p)) {
            continue;
        }
        let (exp, rows) = super::load(&ResultsDir::existing(&path), registry)
            .with_context(|| format!("reading {}", path.display()))?;
        let shown = path.display().to_string().replace('\\', "/");
        ranked.runs.push(Run {
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
        ranked
            .boards
            .extend(boards(&exp, &rows).into_iter().map(|b| (shown.clone(), b)));
    }
    Ok(ranked)
}

/// A board's Pareto chart: error against bits per element, one series per structure, each
/// point its tuned setting at one memory size scored on the held-out seeds (the table's
/// numbers); each structure's own front as a staircase in its colour; on the windowed track,
/// the sliding-window lower bound ([`pareto::window_bound`]) within the points' range.
pub fn board_panel(b: &Board) -> Panel {
    let mut series: Vec<Series> = Vec::new();
    for e in &b.entries {
        let point = (e.bits_per_element, e.error_pct);
        match series.iter_mut().find(|s| s.label == e.structure) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                label: e.structure.clone(),
                points: vec![point],
                band: None,
            }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let fronts: Vec<(String, Vec<(f64, f64)>)> = series
        .iter()
        .map(|s| (s.label.clone(), pareto::front(&s.points)))
        .filter(|f| f.1.len() > 1)
        .collect();
    let xy: Vec<(f64, f64)> = series.iter().flat_map(|s| s.points.clone()).collect();
    let (lo, hi) = xy
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (x_desc, y_desc) = match b.track {
        Track::SinceStart => ("bits per stream element", "FPR + FNR (%)".to_string()),
        Track::Windowed => (
            "bits per window element",
            match b.warmup {
                Some(w) => format!("windowed FPR + FNR after the warm-up of {w} (%)"),
                None => "windowed FPR + FNR (%)".to_string(),
            },
        ),
    };
    Panel {
        x_scale: if lo > 0.0 && hi / lo >= 4.0 {
            XScale::Log2
        } else {
            XScale::Linear
        },
        bound: match b.track {
            Track::Windowed => pareto::bound_within(&xy),
            Track::SinceStart => Vec::new(),
        },
        series,
        style: Style::Points,
        fronts,
        ..Panel::new(
            "each structure at its tuned setting, scored on the held-out seeds",
            x_desc,
            y_desc,
        )
    }
}

/// A board's title: the workload and track, then the length and scale as run.
fn board_title(b: &Board) -> String {
    let (experiment, stream, track) = b.heading();
    let stream: Vec<&str> = stream.split(' ').filter(|t| !t.starts_with("n=")).collect();
    format!(
        "{experiment}: {} — {track}\nn = {} elements as run — scale 1/{}",
        stream.join(" "),
        charts::thousands(b.n),
        b.scale
    )
}

/// A table's memory columns as header cells.
fn header_cells(columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| format!("<th>{}</th>", escape(c)))
        .collect()
}

/// A board's section: heading, what was scored, the ranking table and the chart.
fn board_html(i: usize, b: &Board, chart: &str, png: &str) -> String {
    let (experiment, stream, track) = b.heading();
    let table = b.table();
    let per = match b.track {
        Track::SinceStart => "stream",
        Track::Windowed => "window",
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<h2 id=\"board-{i}\">{}: {} — {track}</h2>\n<p>{} Each cell: error in % (± the 95 % half-width over the scored seeds) and, below it, the setting tuned on the tuning seed; bold: the least error at that memory size.</p>",
        escape(experiment),
        escape(stream),
        escape(&b.description())
    );
    let _ = writeln!(
        out,
        "<div class=\"scroll\"><table class=\"board\">\n<tr><th rowspan=\"2\">rank</th><th rowspan=\"2\">structure</th><th colspan=\"{}\">memory (bits per {per} element)</th><th rowspan=\"2\">mean rank</th></tr>\n<tr>{}</tr>",
        table.columns.len(),
        header_cells(&table.columns)
    );
    for row in &table.rows {
        let cells: String = row
            .cells
            .iter()
            .map(|c| match c {
                None => "<td>—</td>".to_string(),
                Some(c) => {
                    let error = if c.best {
                        format!("<strong>{}</strong>", escape(&c.error))
                    } else {
                        escape(&c.error)
                    };
                    let ci = c
                        .ci95
                        .as_ref()
                        .map_or(String::new(), |ci| format!(" ± {}", escape(ci)));
                    let setting = if c.setting.is_empty() {
                        String::new()
                    } else {
                        format!("<br><span class=\"muted\">{}</span>", escape(&c.setting))
                    };
                    format!("<td>{error}{ci}{setting}</td>")
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td>{cells}<td>{}</td></tr>",
            row.place,
            escape(&row.structure),
            escape(&row.mean_rank)
        );
    }
    out.push_str("</table></div>\n");
    if b.track == Track::Windowed {
        let _ = writeln!(
            out,
            "<p>{}</p>\n<div class=\"scroll\"><table class=\"board\">\n<tr><th>structure</th>{}</tr>",
            escape(super::leaderboard::BOUND_NOTE),
            header_cells(&table.columns)
        );
        for row in &table.rows {
            let cells: String = row
                .cells
                .iter()
                .map(|c| {
                    let v = c
                        .as_ref()
                        .and_then(|c| c.above_bound.as_deref())
                        .unwrap_or("—");
                    format!("<td>{}</td>", escape(v))
                })
                .collect();
            let _ = writeln!(
                out,
                "<tr class=\"above-bound\"><td>{}</td>{cells}</tr>",
                escape(&row.structure)
            );
        }
        out.push_str("</table></div>\n");
    }
    out.push_str(&figure(chart, Some(png)));
    out
}

/// Writes the leaderboard page of `ranked` and its charts into `<root>/leaderboard/`; the
/// runs' pages are `<run>/index.html` relative to `root`. Returns the page's path.
pub fn write(root: &Path, ranked: &Ranked) -> Result<PathBuf> {
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut body = format!(
        "<nav><a href=\"../{INDEX}\">all results</a></nav>\n<h1>Leaderboard</h1>\n<p>Every structure at equal memory, with its settings tuned on one seed and scored on the others (the numbers of LEADERBOARD.md, from the runs below). Each chart draws every structure's tuned setting at each memory size, each structure's own front over them and, on the windowed track, Naor &amp; Yogev's lower bound for sliding-window membership. Each run's own page draws every configuration it ran.</p>\n"
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
    body.push_str("</table></div>\n");
    let _ = writeln!(
        body,
        "<nav>{}</nav>",
        ranked
            .boards
            .iter()
            .enumerate()
            .map(|(i, (_, b))| {
                let (experiment, stream, track) = b.heading();
                format!(
                    "<a href=\"#board-{i}\">{}: {} — {track}</a>",
                    escape(experiment),
                    escape(stream)
                )
            })
            .collect::<Vec<_>>()
            .join("<br>\n")
    );
    for (i, (_, b)) in ranked.boards.iter().enumerate() {
        let track = match b.track {
            Track::SinceStart => "since",
            Track::Windowed => "window",
        };
        let name = charts::file_name(&[&i.to_string(), &b.experiment, track]);
        let files = charts::render(&dir.join(&name), &board_title(b), &[board_panel(b)])?;
        let file = |ext: &str| {
            files
                .iter()
                .find(|f| f.extension().is_some_and(|x| x == ext))
                .and_then(|f| f.file_name())
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        body.push_str(&board_html(i, b, &file("svg"), &file("png")));
    }
    body.push_str("<p class=\"muted\">Written by <code>dupstream report</code>.</p>\n");
    let path = dir.join(INDEX);
    crate::record::atomic_write(&path, page("dupstream leaderboard", &body).as_bytes())?;
    Ok(path)
}
