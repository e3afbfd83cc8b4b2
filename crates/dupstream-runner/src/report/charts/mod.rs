//! Charts in the style of the papers' figures, drawn from `raw.csv` (so `dupstream plot`
//! re-draws them without recomputing). Each chart kind ([`ChartKind`]) is a function from
//! rows to [`Panel`]s in its own file; [`render`](mod@render) draws panels as SVG and 300 dpi
//! PNG (a panel's drawing in `plot_area.rs`, the legend in `legend.rs`, their shared pixel
//! scale, font and marker shapes in `canvas.rs`, ticks and number formats in [`ticks`]).
//!
//! - `rates_vs_length`, `occupancy_vs_length` ([`length`]): against stream length, one chart
//!   per memory size (overlaid in one chart when the run has one structure);
//! - `rates_vs_memory`, `rates_vs_k` ([`sweep`]): final rates against memory or K;
//! - `{ rates_vs_param = "x" }` ([`param`]): final rates against any parameter;
//! - `ones_difference`, `load_vs_length`, `fn_difference` ([`state`]): the structures' state
//!   and derived differences;
//! - `pareto` ([`pareto`]): the leaderboard view, error against bits per distinct element and
//!   against ns per element; drawn for every run of two structures or more.
//!
//! Every chart's title names the experiment, the stream, the scale and the stream length as
//! run; file names hold no spaces.

mod canvas;
mod legend;
pub mod length;
pub mod panel;
pub mod param;
pub mod pareto;
mod plot_area;
pub mod render;
pub mod series;
pub mod state;
pub mod sweep;
pub mod ticks;

pub use panel::{Panel, Series, Style, XScale};
pub use render::{file_name, render};
pub use ticks::human_count;

use crate::plan::{ChartKind, ChartSpec, Experiment};
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
        if i > 0 && (s.len() - i) % 3 == 0 {
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

/// Draws the charts experiment `exp` asks for into `dir`, and the Pareto chart of a run of
/// two structures or more unless it lists one; returns the files written. `ns_per_element`
/// holds each measured cell's time per element (empty when unknown).
pub fn draw(
    dir: &Path,
    exp: &Experiment,
    rows: &[RawRow],
    reference: &[PaperValue],
    ns_per_element: &BTreeMap<usize, f64>,
) -> Result<Vec<PathBuf>> {
    let (experiment, charts) = (exp.name.as_str(), exp.charts.as_slice());
    // Every chart draws configurations: a row is labelled with its configuration, so that only
    // replicate seeds of one configuration are pooled into a point or a line.
    let origin: BTreeMap<usize, Origin> = rows
        .iter()
        .map(|r| {
            let o = Origin {
                label: r.label.clone(),
                structure: r.structure().to_string(),
            };
            (r.cell, o)
        })
        .collect();
    let rows: Vec<RawRow> = rows
        .iter()
        .map(|r| RawRow {
            label: r.config().to_string(),
            ..r.clone()
        })
        .collect();
    let rows = rows.as_slice();
    let all: Vec<&RawRow> = rows.iter().collect();
    let finals = RawRow::finals(rows);
    let mut written = Vec::new();
    let mut specs: Vec<ChartSpec> = charts.to_vec();
    if !specs.iter().any(|c| c.kind == ChartKind::Pareto) && pareto::applies(&finals) {
        specs.push(ChartKind::Pareto.into());
    }
    for chart in &specs {
        let t = Target {
            dir,
            experiment,
            reference,
            origin: &origin,
            ns_per_element,
            log_y: chart.log_y,
            warmup: exp.warmup,
        };
        written.extend(match &chart.kind {
            ChartKind::RatesVsLength => length::draw(t, &all, &finals, false)?,
            ChartKind::OccupancyVsLength => length::draw(t, &all, &finals, true)?,
            ChartKind::RatesVsMemory => sweep::draw(t, &finals, true)?,
            ChartKind::RatesVsK => sweep::draw(t, &finals, false)?,
            ChartKind::RatesVsParam(p) => param::draw(t, &finals, p, chart)?,
            ChartKind::OnesDifference => state::ones_difference(t, &all)?,
            ChartKind::LoadVsLength => state::load_vs_length(t, &all)?,
            ChartKind::FnDifference => state::fn_difference(t, &finals)?,
            ChartKind::Pareto => pareto::draw(t, &all, &finals, chart.error.unwrap_or_default())?,
        });
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_state_the_scale_and_the_length_as_run() {
        let mut r = crate::record::rows::test_row("SBF", 0, 0.1, 0.2);
        r.stream = "uniform distinct_fraction=0.15 n=1000000000".into();
        r.n_nominal = 1_000_000_000;
        r.n = 15_625_000;
        r.scale = 64;
        let t = title("table7", &r.stream.clone(), &[&r]);
        assert_eq!(
            t,
            "table7: uniform distinct_fraction=0.15\nn = 15,625,000 elements as run — scale 1/64 (nominal n = 1,000,000,000, memory nominal/64)"
        );
        r.scale = 1;
        r.n = 1000;
        assert!(title("x", "s", &[&r]).ends_with("n = 1,000 elements as run — full scale"));
    }
}
