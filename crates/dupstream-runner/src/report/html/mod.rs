//! `dupstream report`: static HTML pages to browse results, with no server, no network and
//! nothing outside the page (the style is inline, there is no script; every link is
//! relative, so a results tree can be copied or served as it is).
//!
//! - [`write_run`]: `index.html` in one results directory: the table (`table.md` and any
//!   other Markdown file of the directory, rendered by pulldown-cmark), every chart (SVG,
//!   linked to its 300 dpi PNG), what produced the run (`manifest.json`: summary, per-cell
//!   timings, the file itself) and links to every file.
//! - [`write_root`]: the same for every results directory under a root (a directory holding
//!   `raw.csv`), and `index.html` in the root listing them by experiment.

use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The page's file name.
pub const INDEX: &str = "index.html";

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 90em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.markdown table td { white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.latest { font-weight: 600; }
.superseded, .superseded a { color: #888; }
figure { margin: 1em 0 2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
nav { font-size: 0.9em; margin-bottom: 1em; }
.muted { color: #666; font-size: 0.9em; }
";

/// Whether `dir` is a finished results directory (its `raw.csv`, plain or compressed).
pub fn is_results_dir(dir: &Path) -> bool {
    crate::record::result_path(dir, "raw.csv").is_some()
}

/// Text escaped for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A relative link to `path` (components joined by `/`, each percent-encoded as needed).
pub fn href(path: &Path) -> String {
    path.components()
        .map(|c| {
            let s = c.as_os_str().to_string_lossy();
            let mut out = String::new();
            for b in s.bytes() {
                if b.is_ascii_alphanumeric() || b"-._~+=,".contains(&b) {
                    out.push(b as char);
                } else {
                    let _ = write!(out, "%{b:02X}");
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Markdown rendered as HTML (tables included). Raw HTML in the Markdown is shown as text,
/// never executed: a label or description is the user's text, and the page runs no script.
pub fn markdown(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let events = Parser::new_ext(md, Options::ENABLE_TABLES).map(|e| match e {
        Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
        e => e,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

/// A Markdown file's text without its first line when that is a level-1 heading: the page
/// has its own title.
fn without_title(md: &str) -> &str {
    match md.strip_prefix("# ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, body)| body),
        None => md,
    }
}

/// A whole page: `body` under `title`, with the inline style.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// The files of a directory (not hidden, not the page itself), sorted by name.
fn files(dir: &Path) -> Result<Vec<String>> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| !n.starts_with('.') && n != INDEX)
        .collect();
    out.sort();
    Ok(out)
}

fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// A JSON value as text for a table cell.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(a) => a.iter().map(value_text).collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    }
}

/// The manifest's summary: its scalar fields and the machine's, then per-cell timings when
/// `cells_table` (a run without `cells.csv`).
fn manifest_html(m: &Value, cells_table: bool) -> String {
    let mut out = String::from("<div class=\"scroll\"><table>\n");
    let Some(obj) = m.as_object() else {
        return String::new();
    };
    for (k, v) in obj {
        let text = match (k.as_str(), v) {
            ("streams" | "cells", _) => continue,
            (k, Value::Number(n)) if k.ends_with("bytes") => {
                n.as_u64().map_or(n.to_string(), human_bytes)
            }
            (k, Value::Number(n)) if k.ends_with("secs") || k.ends_with("secs_total") => {
                n.as_f64().map_or(n.to_string(), |s| format!("{s:.1} s"))
            }
            (_, Value::Object(o)) => o
                .iter()
                .map(|(k, v)| format!("{k}: {}", value_text(v)))
                .collect::<Vec<_>>()
                .join("; "),
            (_, v) => value_text(v),
        };
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(k),
            escape(&text)
        );
    }
    out.push_str("</table></div>\n");
    if let Some(streams) = m["streams"].as_array().filter(|s| !s.is_empty()) {
        out.push_str("<h3>Streams</h3>\n<div class=\"scroll\"><table>\n<tr><th>stream</th><th>n (as run)</th><th>distinct</th><th>ground truth</th></tr>\n");
        for s in streams {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2} s ({})</td></tr>",
                escape(&value_text(&s["stream"])),
                value_text(&s["n"]),
                value_text(&s["distinct"]),
                s["ground_truth_secs"].as_f64().unwrap_or(f64::NAN),
                escape(&value_text(&s["oracle"]))
            );
        }
        out.push_str("</table></div>\n");
    }
    if let Some(cells) = m["cells"]
        .as_array()
        .filter(|c| !c.is_empty() && cells_table)
    {
        out.push_str("<h3>Cells</h3>\n<div class=\"scroll\"><table>\n<tr><th>cell</th><th>structure</th><th>elements</th><th>wall (s)</th><th>ns/element</th></tr>\n");
        for c in cells {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.1}</td></tr>",
                value_text(&c["cell"]),
                escape(&value_text(&c["label"])),
                value_text(&c["elements"]),
                c["wall_secs"].as_f64().unwrap_or(f64::NAN),
                c["ns_per_element"].as_f64().unwrap_or(f64::NAN)
            );
        }
        out.push_str("</table></div>\n");
    }
    out
}

/// Charts of a directory: each SVG (or a PNG without one). They come in the order of
/// `kinds` (the experiment's charts as it lists them; a kind it does not list, such as the
/// Pareto chart added to a run of several structures, after them), and within a kind in
/// the order they were drawn (the number that ends the name: memory sizes in numeric order).
fn charts(names: &[String], kinds: &[String]) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for n in names {
        let (stem, ext) = match n.rsplit_once('.') {
            Some(p) => p,
            None => continue,
        };
        let png = format!("{stem}.png");
        let has_png = names.contains(&png);
        match ext {
            "svg" => out.push((n.clone(), has_png.then_some(png))),
            "png" if !names.contains(&format!("{stem}.svg")) => out.push((n.clone(), None)),
            _ => {}
        }
    }
    let rank = |name: &str| {
        let stem = name.rsplit_once('.').map_or(name, |p| p.0);
        let kind = stem.split('-').next().unwrap_or(stem);
        let listed = kinds.iter().position(|k| k == kind).unwrap_or(kinds.len());
        let drawn: u64 = stem
            .rsplit('-')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(u64::MAX);
        (listed, kind.to_string(), drawn, name.to_string())
    };
    out.sort_by_key(|(n, _)| rank(n));
    out
}

/// The chart kinds an experiment file lists (`[output] charts`), by their file-name stem, in
/// its order; empty when it cannot be read.
fn chart_kinds(run_toml: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(run_toml) else {
        return Vec::new();
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let Some(list) = doc
        .get("output")
        .and_then(|o| o.get("charts"))
        .and_then(|c| c.as_array())
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|c| match c {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Table(t) => t
                .get("chart")
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .or_else(|| t.keys().next().cloned()),
            _ => None,
        })
        .collect()
}

/// The cells table of a run page, from `cells.csv`: each cell's configuration, memory,
/// seed, parameters, final rates and timing.
fn cells_html(rows: &[crate::record::CellRow]) -> String {
    let pct = |v: Option<f64>| v.map_or("—".into(), |v| format!("{:.4}", v * 100.0));
    let mut out = String::from(
        "<h3>Cells</h3>\n<div class=\"scroll\"><table>\n<tr><th>cell</th><th>configuration</th><th>memory</th><th>stream</th><th>seed</th><th>FPR (%)</th><th>FNR (%)</th><th>wall (s)</th><th>ns/element</th><th>parameters as run</th></tr>\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.1}</td><td>{}</td></tr>",
            r.cell,
            escape(&r.config),
            escape(&r.memory),
            escape(&r.stream),
            r.seed,
            pct(r.fpr),
            pct(r.fnr),
            r.wall_secs,
            r.ns_per_element,
            escape(&r.params.to_string().replace(';', "; "))
        );
    }
    out.push_str("</table></div>\n");
    out
}

/// What a run page shows, read from its results directory before any HTML is written.
#[derive(Debug)]
struct RunPage {
    /// The directory's own name.
    dir_name: String,
    /// The experiment's name (`results` without a manifest).
    experiment: String,
    manifest: Option<Value>,
    /// The Markdown files `(name, text)`, `table.md` first.
    tables: Vec<(String, String)>,
    /// The charts in page order ([`charts`]).
    charts: Vec<(String, Option<String>)>,
    /// The rows of `cells.csv`, when the run has a manifest and that file.
    cells: Option<Vec<crate::record::CellRow>>,
    /// Every file `(name, size in bytes)`.
    files: Vec<(String, u64)>,
}

impl RunPage {
    /// Reads the results directory `dir`.
    fn read(dir: &Path) -> Result<Self> {
        if !is_results_dir(dir) {
            bail!("{}: not a results directory (no raw.csv)", dir.display());
        }
        let names = files(dir)?;
        let manifest: Option<Value> = if crate::record::result_path(dir, "manifest.json").is_some()
        {
            Some(crate::record::read_result_json(dir, "manifest.json")?)
        } else {
            None
        };
        let dir_name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let experiment = manifest
            .as_ref()
            .and_then(|m| m["experiment"].as_str())
            .unwrap_or("results")
            .to_string();
        let (first, rest): (Vec<&String>, Vec<&String>) = names
            .iter()
            .filter(|n| n.ends_with(".md"))
            .partition(|n| n.as_str() == "table.md");
        let mut tables = Vec::new();
        for n in first.into_iter().chain(rest) {
            let md = std::fs::read_to_string(dir.join(n))
                .with_context(|| format!("reading {}", dir.join(n).display()))?;
            tables.push((n.clone(), md));
        }
        let cells = match (&manifest, crate::record::result_path(dir, "cells.csv")) {
            (Some(_), Some(_)) => Some(crate::record::read_result_rows(dir, "cells.csv")?),
            _ => None,
        };
        Ok(Self {
            dir_name,
            experiment,
            tables,
            charts: charts(&names, &chart_kinds(&dir.join("run.toml"))),
            cells,
            files: names
                .iter()
                .map(|n| {
                    let size = std::fs::metadata(dir.join(n)).map_or(0, |m| m.len());
                    (n.clone(), size)
                })
                .collect(),
            manifest,
        })
    }

    /// The heading: a link up to the root page (`up`), the experiment, the directory and the
    /// run's description; then the links to the sections.
    fn head_html(&self, up: Option<&str>) -> String {
        let mut out = String::new();
        if let Some(up) = up {
            let _ = writeln!(out, "<nav><a href=\"{up}\">all results</a></nav>");
        }
        let _ = writeln!(
            out,
            "<h1>{}</h1>\n<p class=\"muted\">{}</p>",
            escape(&self.experiment),
            escape(&self.dir_name)
        );
        if let Some(d) = self
            .manifest
            .as_ref()
            .and_then(|m| m["description"].as_str())
        {
            let _ = writeln!(out, "<p>{}</p>", escape(d));
        }
        let mut toc = vec![("table", "Table")];
        if !self.charts.is_empty() {
            toc.push(("charts", "Charts"));
        }
        if self.manifest.is_some() {
            toc.push(("manifest", "Manifest"));
        }
        toc.push(("files", "Files"));
        let _ = writeln!(
            out,
            "<nav>{}</nav>",
            toc.iter()
                .map(|(id, t)| format!("<a href=\"#{id}\">{t}</a>"))
                .collect::<Vec<_>>()
                .join(" · ")
        );
        out
    }

    /// The tables: every Markdown file of the directory, rendered.
    fn tables_html(&self) -> String {
        let mut out = String::from("<h2 id=\"table\">Table</h2>\n");
        if self.tables.first().is_none_or(|t| t.0 != "table.md") {
            out.push_str("<p class=\"muted\">No table.md in this directory.</p>\n");
        }
        for (n, md) in &self.tables {
            let _ = writeln!(
                out,
                "<div class=\"markdown scroll\">{}</div>\n<p class=\"muted\">From <a href=\"{}\">{}</a>.</p>",
                markdown(without_title(md)),
                href(Path::new(n)),
                escape(n)
            );
        }
        out
    }

    /// The charts, each SVG linked to its PNG (none without charts).
    fn charts_html(&self) -> String {
        if self.charts.is_empty() {
            return String::new();
        }
        figures_html(&self.charts)
    }

    /// The manifest: its summary, the cells and the file itself (none without a manifest).
    fn manifest_html(&self) -> Result<String> {
        let Some(m) = &self.manifest else {
            return Ok(String::new());
        };
        let mut out = String::from("<h2 id=\"manifest\">Manifest</h2>\n");
        out.push_str(&manifest_html(m, self.cells.is_none()));
        if let Some(cells) = &self.cells {
            out.push_str(&cells_html(cells));
        }
        let _ = writeln!(
            out,
            "<details><summary><a href=\"manifest.json\">manifest.json</a></summary><pre>{}</pre></details>",
            escape(&serde_json::to_string_pretty(m)?)
        );
        Ok(out)
    }

    /// Every file of the directory, linked, with its size.
    fn files_html(&self) -> String {
        let mut out = String::from(
            "<h2 id=\"files\">Files</h2>\n<div class=\"scroll\"><table>\n<tr><th>file</th><th>size</th></tr>\n",
        );
        for (n, size) in &self.files {
            let _ = writeln!(
                out,
                "<tr><td><a href=\"{}\">{}</a></td><td>{}</td></tr>",
                href(Path::new(n)),
                escape(n),
                human_bytes(*size)
            );
        }
        out.push_str(
            "</table></div>\n<p class=\"muted\">Written by <code>dupstream report</code>.</p>\n",
        );
        out
    }
}

/// The charts section: each chart `(image, PNG)` as a [`figure`].
fn figures_html(charts: &[(String, Option<String>)]) -> String {
    let mut out = String::from("<h2 id=\"charts\">Charts</h2>\n");
    for (img, png) in charts {
        out.push_str(&figure(img, png.as_deref()));
    }
    out
}

/// A chart as a figure: the image `img` (a relative path), linked to its `png` when there
/// is one, captioned with its name and links to both files.
pub fn figure(img: &str, png: Option<&str>) -> String {
    let mut out = format!(
        "<figure><a href=\"{}\"><img src=\"{}\" alt=\"{}\" loading=\"lazy\"></a>\n<figcaption>{}",
        href(Path::new(png.unwrap_or(img))),
        href(Path::new(img)),
        escape(img),
        escape(img.rsplit_once('.').map_or(img, |p| p.0))
    );
    if let Some(png) = png {
        let _ = write!(
            out,
            " — <a href=\"{}\">PNG (300 dpi)</a> · <a href=\"{}\">SVG</a>",
            href(Path::new(png)),
            href(Path::new(img))
        );
    }
    out.push_str("</figcaption></figure>\n");
    out
}

/// Writes `index.html` in the results directory `dir`; `up` is the relative link to a root
/// index above it, if any. Returns the page's path.
pub fn write_run(dir: &Path, up: Option<&str>) -> Result<PathBuf> {
    let run = RunPage::read(dir)?;
    let body = [
        run.head_html(up),
        run.tables_html(),
        run.charts_html(),
        run.manifest_html()?,
        run.files_html(),
    ]
    .concat();
    let path = dir.join(INDEX);
    crate::record::atomic_write(
        &path,
        page(&format!("{} — {}", run.experiment, run.dir_name), &body).as_bytes(),
    )?;
    Ok(path)
}

/// The results directories under `root` (itself included), sorted; `cells/` directories
/// are not searched.
pub fn results_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
        if is_results_dir(dir) {
            out.push(dir.to_path_buf());
        }
        if depth == 0 {
            return Ok(());
        }
        for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let e = e?;
            let name = e.file_name();
            if e.file_type()?.is_dir()
                && name != "cells"
                && !name.to_string_lossy().starts_with('.')
            {
                walk(&e.path(), depth - 1, out)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, 4, &mut out)?;
    out.sort();
    Ok(out)
}

/// A run listed on the root index.
#[derive(Debug)]
struct IndexRun {
    /// Its directory, relative to the root.
    rel: PathBuf,
    manifest: Value,
    /// `(within tolerance, compared)` cells of its `table.csv`, when it has paper values.
    tolerance: Option<(usize, usize)>,
}

/// The cells of a `table.csv` within tolerance of the paper and the cells compared, when
/// any is compared.
pub(crate) fn within_tolerance(table: &Path) -> Option<(usize, usize)> {
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
/// them (the latest run of each experiment and scale marked, the others superseded, each
/// with its count of cells within tolerance of the paper), linking to the `leaderboard`
/// page when there is one (a path under `root`); returns the root page and the run pages.
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
            rel,
            manifest,
        });
    }
    let pairs: Vec<(&Path, &Value)> = runs
        .iter()
        .map(|r| (r.rel.as_path(), &r.manifest))
        .collect();
    let latest = latest_runs(&pairs);
    let mut rows = String::new();
    let mut last_experiment = String::new();
    for (i, run) in runs.iter().enumerate() {
        let m = &run.manifest;
        let experiment = m["experiment"].as_str().unwrap_or("?").to_string();
        if experiment != last_experiment {
            let _ = writeln!(
                rows,
                "<tr><th colspan=\"8\">{}</th></tr>",
                escape(&experiment)
            );
            last_experiment = experiment;
        }
        let (class, status) = match latest[i] {
            None => ("latest", "latest".to_string()),
            Some(j) => (
                "superseded",
                format!(
                    "superseded by {}",
                    escape(&runs[j].rel.display().to_string())
                ),
            ),
        };
        let tolerance = run
            .tolerance
            .map_or("—".into(), |(ok, of)| format!("{ok} of {of}"));
        let cells = m["cells"].as_array().map_or(0, Vec::len);
        let _ = writeln!(
            rows,
            "<tr class=\"{class}\"><td><a href=\"{}\">{}</a></td><td>{status}</td><td>{}</td><td>{}</td><td>{}</td><td>{tolerance}</td><td>{}</td><td>{}</td></tr>",
            href(&run.rel.join(INDEX)),
            escape(&run.rel.display().to_string()),
            escape(&value_text(&m["git_revision"])),
            escape(&value_text(&m["scale"])),
            cells,
            m["wall_secs_total"]
                .as_f64()
                .map_or("—".into(), |s| format!("{s:.1} s")),
            escape(&value_text(&m["description"]))
        );
    }
    let board = leaderboard.map_or(String::new(), |page| {
        format!(
            "<p><a href=\"{}\">Leaderboard</a>: every structure at equal memory with its settings tuned on a held-out seed, per workload and track: the ranking tables and their Pareto charts.</p>\n",
            href(page.strip_prefix(root).unwrap_or(page))
        )
    });
    let body = format!(
        "<h1>Results</h1>\n{board}<p class=\"muted\">{} results directories. Of the runs of one experiment at one scale, the one started last is marked latest and the others superseded.</p>\n<div class=\"scroll\"><table>\n<tr><th>directory</th><th>status</th><th>revision</th><th>scale</th><th>cells</th><th>within tolerance of the paper</th><th>wall time</th><th>description</th></tr>\n{rows}</table></div>\n<p class=\"muted\">Written by <code>dupstream report</code>.</p>\n",
        dirs.len()
    );
    let path = root.join(INDEX);
    crate::record::atomic_write(&path, page("dupstream results", &body).as_bytes())?;
    Ok((path, pages))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_links_and_markdown_tables() {
        assert_eq!(escape("<a & 'b'>"), "&lt;a &amp; &#39;b&#39;&gt;");
        assert_eq!(
            href(Path::new("run 1/rates_vs_length-10000 bits-0.png")),
            "run%201/rates_vs_length-10000%20bits-0.png"
        );
        let html = markdown("| a | b |\n|---|---|\n| **1** | 2 |\n");
        assert!(
            html.contains("<table>") && html.contains("<strong>1</strong>"),
            "{html}"
        );
        // A label's HTML is text, in a table cell as in a paragraph.
        for md in [
            "| a |\n|---|\n| <script>alert(1)</script> |\n",
            "<img src=x onerror=alert(1)>\n",
            "x <b onclick=alert(1)>y</b>\n",
        ] {
            let html = markdown(md);
            assert!(
                !html.contains("<script") && !html.contains("<img") && !html.contains("<b "),
                "{html}"
            );
            assert!(html.contains("&lt;"), "{html}");
        }
        assert_eq!(without_title("# T\n\nbody\n"), "\nbody\n");
        assert_eq!(without_title("body"), "body");
    }

    #[test]
    fn charts_prefer_svg_and_put_the_pareto_chart_first() {
        let names: Vec<String> = [
            "a.png",
            "a.svg",
            "b.png",
            "pareto-0.png",
            "pareto-0.svg",
            "raw.csv",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = charts(&names, &["pareto".to_string()]);
        assert_eq!(
            c,
            vec![
                ("pareto-0.svg".to_string(), Some("pareto-0.png".to_string())),
                ("a.svg".to_string(), Some("a.png".to_string())),
                ("b.png".to_string(), None),
            ]
        );
        // In the experiment's order, and in drawing order (memory sizes numerically).
        let names: Vec<String> = [
            "rates_vs_length-128MB-1.svg",
            "rates_vs_length-64MB-0.svg",
            "rates_vs_length-1GB-3.svg",
            "rates_vs_memory-0.svg",
            "pareto-0.svg",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let kinds = ["rates_vs_memory".to_string(), "rates_vs_length".to_string()];
        let order: Vec<String> = charts(&names, &kinds).into_iter().map(|c| c.0).collect();
        assert_eq!(
            order,
            [
                "rates_vs_memory-0.svg",
                "rates_vs_length-64MB-0.svg",
                "rates_vs_length-128MB-1.svg",
                "rates_vs_length-1GB-3.svg",
                "pareto-0.svg"
            ]
        );
    }
}
