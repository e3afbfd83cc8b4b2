//! Charts in the style of the papers' figures, drawn from `raw.csv` (so `dupstream plot`
//! re-draws them without recomputing). Each chart kind ([`ChartKind`]) is a function from
//! rows to panels in its own file; [`render`] draws panels as PNG and SVG.
//!
//! - `rates_vs_length`, `occupancy_vs_length` ([`length`]): against stream length, one chart
//!   per memory size;
//! - `rates_vs_memory`, `rates_vs_k` ([`sweep`]): final rates against memory or K;
//! - `{ rates_vs_param = "x" }` ([`param`]): final rates against any parameter;
//! - `ones_difference`, `load_vs_length`, `fn_difference` ([`state`]): the structures' state
//!   and derived differences.

pub mod length;
pub mod param;
pub mod render;
pub mod series;
pub mod state;
pub mod sweep;

pub use render::{Panel, Series, render};

use crate::plan::ChartKind;
use crate::record::RawRow;
use crate::report::reference::PaperValue;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Where and for what a chart is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub dir: &'a Path,
    pub experiment: &'a str,
    pub reference: &'a [PaperValue],
}

impl Target<'_> {
    /// Renders panels to `<dir>/<name>.png|svg`, titled `<experiment>: <subtitle>` (or the
    /// experiment alone).
    pub fn render(&self, name: &str, subtitle: &str, panels: &[Panel]) -> Result<Vec<PathBuf>> {
        let title = if subtitle.is_empty() {
            self.experiment.to_string()
        } else {
            format!("{}: {subtitle}", self.experiment)
        };
        render(&self.dir.join(name), &title, panels)
    }

    /// The paper's value of `metric` (a fraction) for a row, if any.
    pub fn paper(&self, r: &RawRow, metric: &str) -> Option<f64> {
        crate::report::reference::paper_value(self.reference, metric, r)
            .map(|p| p.value_pct / 100.0)
    }
}

/// Draws the charts an experiment asks for into `dir`; returns the files written.
pub fn draw(
    dir: &Path,
    experiment: &str,
    rows: &[RawRow],
    charts: &[ChartKind],
    reference: &[PaperValue],
) -> Result<Vec<PathBuf>> {
    let t = Target {
        dir,
        experiment,
        reference,
    };
    let all: Vec<&RawRow> = rows.iter().collect();
    let finals = RawRow::finals(rows);
    let mut written = Vec::new();
    for chart in charts {
        written.extend(match chart {
            ChartKind::RatesVsLength => length::draw(t, &all, &finals, false)?,
            ChartKind::OccupancyVsLength => length::draw(t, &all, &finals, true)?,
            ChartKind::RatesVsMemory => sweep::draw(t, &finals, true)?,
            ChartKind::RatesVsK => sweep::draw(t, &finals, false)?,
            ChartKind::RatesVsParam(p) => param::draw(t, &finals, p)?,
            ChartKind::OnesDifference => state::ones_difference(t, &all)?,
            ChartKind::LoadVsLength => state::load_vs_length(t, &all)?,
            ChartKind::FnDifference => state::fn_difference(t, &finals)?,
        });
    }
    Ok(written)
}
