//! Drawing one [`Panel`] in its area, one concern per function, in this order (later ones on
//! top): the axes and grid ([`Axes`], [`chart`]), each series' 95 % band, its line and
//! markers, each structure's own front, the lower bound, the front of all, and the paper's
//! values as crosses.

use super::canvas::{CAPTION_PX, Px, TEXT_PX, err, shape_at};
use super::legend::{DASH, HOLLOW, Legend};
use super::panel::{Panel, Series, Style, XScale, YAxis, x_label, x_ticks, y_axis};
use super::ticks::{log_label, log_ticks, min_max, nice_ticks, pad, trim};
use anyhow::Result;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// A linear f64 axis over `lo..hi` with ticks (and grid lines) exactly at `ticks`.
#[derive(Debug, Clone)]
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        RangedCoordf64::from(self.lo..self.hi).map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// A panel's chart: its area with the two ticked axes.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<Ticked, Ticked>>;

/// A panel's axes: ranges and ticks in transformed space, and how y values are placed.
#[derive(Debug)]
struct Axes {
    x: Ticked,
    y: Ticked,
    ya: YAxis,
    /// Decimals of the y labels on a linear axis.
    y_decimals: usize,
}

impl Axes {
    fn of(p: &Panel) -> Self {
        let tx = |x: f64| p.x_scale.tx(x);
        let xs: Vec<f64> = p
            .series
            .iter()
            .chain(&p.markers)
            .flat_map(|s| s.points.iter().map(|q| tx(q.0)))
            .chain(p.front.iter().map(|q| tx(q.0)))
            .chain(p.fronts.iter().flat_map(|f| f.1.iter().map(|q| tx(q.0))))
            .filter(|x| x.is_finite())
            .collect();
        let (x0, x1) = pad(
            min_max(xs.iter().copied()),
            if p.x_scale.is_log() || p.x_scale == XScale::Integer {
                0.05
            } else {
                0.02
            },
        );
        let (ya, (y0, y1)) = y_axis(p);
        let xt = x_ticks(p.x_scale, (x0, x1), &xs);
        let yt = if ya.log {
            log_ticks(y0, y1)
        } else {
            nice_ticks(y0, y1, 6, 0.0)
        };
        let y_step = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
        let y_decimals = if y_step >= 1.0 {
            0
        } else {
            (-y_step.log10()).ceil() as usize
        };
        Self {
            x: Ticked {
                lo: x0,
                hi: x1,
                ticks: xt,
            },
            y: Ticked {
                lo: y0,
                hi: y1,
                ticks: yt,
            },
            ya,
            y_decimals,
        }
    }
}

/// The panel's chart in `area`: caption, axes, their labels and the grid.
fn chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    p: &Panel,
    axes: Axes,
    px: Px,
) -> Result<Chart<'a, DB>>
where
    DB::ErrorType: 'static,
{
    let Axes {
        x,
        y,
        ya,
        y_decimals,
    } = axes;
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, px.font(CAPTION_PX))
        .margin(px.i(10.0))
        .margin_right(px.i(22.0))
        .x_label_area_size(px.i(42.0))
        .y_label_area_size(px.i(58.0))
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    let scale = p.x_scale;
    let y_fmt = |y: &f64| {
        if ya.log {
            log_label(*y)
        } else {
            trim(*y, y_decimals)
        }
    };
    let y_desc = if ya.log {
        format!("{} — log scale", p.y_desc)
    } else {
        p.y_desc.clone()
    };
    chart
        .configure_mesh()
        .x_desc(&p.x_desc)
        .y_desc(&y_desc)
        .x_label_formatter(&|x: &f64| x_label(scale, *x))
        .y_label_formatter(&y_fmt)
        .label_style(px.font(TEXT_PX))
        .axis_desc_style(px.font(TEXT_PX + 1.0))
        .bold_line_style(BLACK.mix(0.12).stroke_width(px.u(1.0)))
        .axis_style(BLACK.stroke_width(px.u(1.0)))
        .set_all_tick_mark_size(px.i(4.0))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Draws panel `p` in `area`, its series in their looks from `legend`.
pub(super) fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    legend: &Legend,
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let axes = Axes::of(p);
    let ya = axes.ya;
    let mut chart = chart(area, p, axes, px)?;
    for (si, s) in p.series.iter().enumerate() {
        let color = legend.look(&s.label).color;
        if let Some(band) = &s.band {
            draw_band(&mut chart, p.x_scale, ya, s, band, color)?;
        }
        draw_series(&mut chart, p, ya, (si, s), legend, px)?;
    }
    draw_fronts(&mut chart, p, ya, legend, px)?;
    draw_bound(&mut chart, p, ya, px)?;
    if !p.front.is_empty() {
        let style = BLACK.mix(0.7).stroke_width(px.u(1.5));
        let dash = (px.i(6.0), px.i(4.0));
        draw_staircase(&mut chart, &p.front, p.x_scale, ya, dash, style)?;
    }
    draw_paper_values(&mut chart, p, ya, legend, px)
}

/// A series' 95 % band, a translucent polygon in its colour. On a log axis a band that
/// reaches 0 has no lower edge to draw: there, only its upper half (from the mean) is drawn,
/// rather than a wedge down to the floor.
fn draw_band<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    scale: XScale,
    ya: YAxis,
    s: &Series,
    band: &[(f64, f64, f64)],
    color: RGBColor,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let tx = |x: f64| scale.tx(x);
    let lower = |i: usize, lo: f64| match s.points.get(i) {
        Some(&(_, mean)) if ya.log && lo <= 0.0 && mean > 0.0 => mean,
        _ => lo,
    };
    let mut poly: Vec<(f64, f64)> = band
        .iter()
        .enumerate()
        .map(|(i, &(x, lo, _))| (tx(x), ya.ty(lower(i, lo))))
        .collect();
    poly.extend(band.iter().rev().map(|&(x, _, hi)| (tx(x), ya.ty(hi))));
    chart
        .draw_series(std::iter::once(Polygon::new(
            poly,
            color.mix(0.18).filled(),
        )))
        .map_err(err)?;
    Ok(())
}

/// Series `si` of the panel: its line (but for [`Style::Points`]) and its markers, at every
/// point or, on a long line, about a dozen staggered between series. On a log axis a line
/// does not run through a 0, which is drawn apart on the floor as a hollow marker.
fn draw_series<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    p: &Panel,
    ya: YAxis,
    (si, s): (usize, &Series),
    legend: &Legend,
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let tx = |x: f64| p.x_scale.tx(x);
    let look = legend.look(&s.label);
    let color = look.color;
    let scatter = p.style != Style::Lines;
    let line_w = if scatter { 1.0 } else { 2.0 };
    let r = px.i(if scatter { 5.0 } else { 3.5 });
    let runs = s.points.split(|q| ya.log && q.1 <= 0.0);
    for run in runs.filter(|r| r.len() > 1 && p.style != Style::Points) {
        let line = run.iter().map(|&(x, y)| (tx(x), ya.ty(y)));
        let style = color.stroke_width(px.u(line_w));
        if look.dashed {
            let (dash, gap) = (px.i(DASH.0), px.i(DASH.1));
            chart
                .draw_series(DashedLineSeries::new(line, dash, gap, style))
                .map_err(err)?;
        } else {
            chart
                .draw_series(LineSeries::new(line, style))
                .map_err(err)?;
        }
    }
    let stride = if scatter {
        1
    } else {
        s.points.len().div_ceil(12).max(1)
    };
    let plot = chart.plotting_area();
    for (i, &(x, y)) in s.points.iter().enumerate() {
        let zero = ya.log && y <= 0.0;
        if !zero && (i + si) % stride != 0 && i + 1 != s.points.len() {
            continue;
        }
        let (style, r) = if look.dashed {
            (
                color.stroke_width(px.u(1.5)),
                (r as f64 * HOLLOW).round() as i32,
            )
        } else if zero {
            (color.stroke_width(px.u(1.5)), r)
        } else {
            (color.filled(), r)
        };
        shape_at(plot, (tx(x), ya.ty(y)), look.shape, r, style)?;
    }
    Ok(())
}

/// Each structure's own front, a dotted staircase in the colour of the series it names.
fn draw_fronts<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    p: &Panel,
    ya: YAxis,
    legend: &Legend,
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    for (label, front) in &p.fronts {
        let color = legend.look(label).color;
        let style = color.mix(0.9).stroke_width(px.u(2.5));
        let dash = (px.i(2.0), px.i(3.0));
        draw_staircase(chart, front, p.x_scale, ya, dash, style)?;
    }
    Ok(())
}

/// The lower bound, a thin black line.
fn draw_bound<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    p: &Panel,
    ya: YAxis,
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    if p.bound.len() > 1 {
        chart
            .draw_series(LineSeries::new(
                p.bound.iter().map(|&(x, y)| (p.x_scale.tx(x), ya.ty(y))),
                BLACK.stroke_width(px.u(1.0)),
            ))
            .map_err(err)?;
    }
    Ok(())
}

/// The paper's values, a cross each in the colour of their series.
fn draw_paper_values<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    p: &Panel,
    ya: YAxis,
    legend: &Legend,
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    for m in &p.markers {
        let color = legend.look(&m.label).color;
        chart
            .draw_series(m.points.iter().map(|&(x, y)| {
                Cross::new(
                    (p.x_scale.tx(x), ya.ty(y)),
                    px.i(6.0),
                    color.stroke_width(px.u(2.0)),
                )
            }))
            .map_err(err)?;
    }
    Ok(())
}

/// Draws a Pareto front as a dashed staircase (`dash`: dash and gap lengths): from each point
/// across to the next one's x, then down.
fn draw_staircase<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    front: &[(f64, f64)],
    scale: XScale,
    ya: YAxis,
    dash: (i32, i32),
    style: ShapeStyle,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let tx = |x: f64| scale.tx(x);
    let mut stairs: Vec<(f64, f64)> = Vec::new();
    for (i, &(x, y)) in front.iter().enumerate() {
        if i > 0 {
            stairs.push((tx(x), ya.ty(front[i - 1].1)));
        }
        stairs.push((tx(x), ya.ty(y)));
    }
    chart
        .draw_series(DashedLineSeries::new(stairs, dash.0, dash.1, style))
        .map_err(err)?;
    Ok(())
}
