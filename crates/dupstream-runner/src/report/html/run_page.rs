//! A results directory's page: read the directory, then write its sections.

use super::dirs::is_results_dir;
use super::figures::{chart_kinds, charts, figures_html};
use super::grid::Grid;
use super::grid::markdown;
use super::manifest::{cells_html, manifest_html};
use super::page::{INDEX, page};
use super::text::{escape, href, human_bytes, without_title};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The files of a directory (not hidden, not the page itself), sorted by name.
pub(super) fn files(dir: &Path) -> Result<Vec<String>> {
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
                "<div class=\"markdown\">{}</div>\n<p class=\"muted\">From <a href=\"{}\">{}</a>.</p>",
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
        let mut grid = Grid::new(&["file", "size"]);
        for (n, size) in &self.files {
            grid.row(vec![
                format!("<a href=\"{}\">{}</a>", href(Path::new(n)), escape(n)),
                human_bytes(*size),
            ]);
        }
        format!(
            "<h2 id=\"files\">Files</h2>\n{}<p class=\"muted\">Written by <code>dupstream report</code>.</p>\n",
            grid.to_html()
        )
    }
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
