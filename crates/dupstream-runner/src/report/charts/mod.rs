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
mod target;
pub mod ticks;

pub use panel::{Panel, Series, Style, XScale};
pub use render::render;
pub use target::{Origin, Target, thousands};

use crate::plan::{ChartKind, ChartSpec, Experiment};
use crate::record::RawRow;
use crate::report::reference::PaperValue;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    use super::target::title;

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
