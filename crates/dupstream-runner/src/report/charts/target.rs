//! What a chart kind is given: where to write, the paper's values and each row's origin.

use super::panel::Panel;
use super::render::{file_name, render};
use crate::record::RawRow;
use crate::report::reference::PaperValue;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the charts need of a cell's row besides the configuration they draw it under.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The label as run (the paper's values are keyed by it).
    pub label: String,
    /// The structure its configuration belongs to ([`RawRow::structure`]).
    pub structure: String,
}

/// Where and for what a chart is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub dir: &'a Path,
    pub experiment: &'a str,
    pub reference: &'a [PaperValue],
    /// Each cell's label and structure, by cell: the rows the chart kinds see are labelled
    /// with their configuration ([`RawRow::config`]).
    pub origin: &'a BTreeMap<usize, Origin>,
    /// ns per element of each measured cell (from the run's cell timings).
    pub ns_per_element: &'a BTreeMap<usize, f64>,
    /// The chart's `log_y` (`None`: automatic per panel).
    pub log_y: Option<bool>,
    /// The run's `[metrics] warmup`: windowed Pareto errors are taken after it.
    pub warmup: Option<u64>,
}

impl Target<'_> {
    /// Renders panels to `<dir>/<name parts joined by ->.png|svg`, titled with the
    /// experiment, `stream` and the scale and length of the stream as run (from `rows`).
    pub fn render(
        &self,
        name: &[&str],
        stream: &str,
        rows: &[&RawRow],
        mut panels: Vec<Panel>,
    ) -> Result<Vec<PathBuf>> {
        for p in &mut panels {
            if p.log_y.is_none() {
                p.log_y = self.log_y;
            }
        }
        let title = title(self.experiment, stream, rows);
        render(&self.dir.join(file_name(name)), &title, &panels)
    }

    /// The paper's value of `metric` (a fraction) for a row, if any.
    pub fn paper(&self, r: &RawRow, metric: &str) -> Option<f64> {
        let as_run;
        let r = match self.origin.get(&r.cell) {
            Some(o) if o.label != r.label => {
                as_run = RawRow {
                    label: o.label.clone(),
                    ..r.clone()
                };
                &as_run
            }
            _ => r,
        };
        crate::report::reference::paper_value(self.reference, metric, r)
            .map(|p| p.value_pct / 100.0)
    }

    /// The structure a row's configuration belongs to.
    pub fn structure<'r>(&'r self, r: &'r RawRow) -> &'r str {
        self.origin
            .get(&r.cell)
            .map_or(r.label.as_str(), |o| o.structure.as_str())
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A chart's title: the experiment and the stream (without its nominal `n=`), then the
/// scale and the stream length as run, from the rows drawn.
pub fn title(experiment: &str, stream: &str, rows: &[&RawRow]) -> String {
    let stream: Vec<&str> = stream.split(' ').filter(|t| !t.starts_with("n=")).collect();
    let head = if stream.is_empty() {
        experiment.to_string()
    } else {
        format!("{experiment}: {}", stream.join(" "))
    };
    let mut ns: Vec<(u64, u64, u64)> = rows.iter().map(|r| (r.n, r.n_nominal, r.scale)).collect();
    ns.sort_unstable();
    ns.dedup();
    let scale = ns.first().map_or(1, |t| t.2);
    let length = match (ns.first(), ns.last()) {
        (Some(a), Some(b)) if a.0 != b.0 => format!(
            "n = {} to {} elements as run",
            thousands(a.0),
            thousands(b.0)
        ),
        (Some(a), _) => format!("n = {} elements as run", thousands(a.0)),
        _ => String::new(),
    };
    let how = match (scale, ns.first()) {
        (1, _) => "full scale".to_string(),
        (s, Some(a)) if ns.len() == 1 => format!(
            "scale 1/{s} (nominal n = {}, memory nominal/{s})",
            thousands(a.1)
        ),
        (s, _) => format!("scale 1/{s} (stream length and memory / {s})"),
    };
    if length.is_empty() {
        format!("{head}\n{how}")
    } else {
        format!("{head}\n{length} — {how}")
    }
}
