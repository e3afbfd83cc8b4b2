//! Rendering: a chart is a title and a row of [`Panel`]s, each a set of [`Series`] (and the
//! paper's values as markers), written as SVG and as a 300 dpi PNG. Nothing here knows what
//! is plotted.
//!
//! - The legend sits below the panels, outside every plot area, one entry per series label
//!   across the whole chart (a label keeps its colour and marker shape in every panel).
//! - A panel's y axis is logarithmic when it asks ([`Panel::log_y`]) or, by default, when its
//!   positive values span more than two decades and none is negative. A value of 0 has no
//!   place on a log axis: it is drawn as a hollow marker on the bottom edge, and the legend
//!   says so.
//! - Ticks are chosen here ([`XScale`]): integer parameters get integer ticks; log2 axes get
//!   ticks at the values measured when there are few of them. The tick arithmetic and number
//!   formats themselves are in [`ticks`](super::ticks).

use super::ticks::{
    few_distinct, human_count, log_label, log_ticks, min_max, nice_ticks, pad, trim,
};
use crate::plan::units::format_bits;
use crate::record::atomic_write;
use anyhow::{Context, Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
        // The bundled font always parses; if registration failed, text would be missing, not wrong.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, bytes);
    });
}

/// The resolution of the PNG beside each SVG.
pub const PNG_DPI: f64 = 300.0;
/// The SVG's pixels per inch (CSS pixels): the PNG is this layout scaled by `PNG_DPI / SVG_DPI`.
const SVG_DPI: f64 = 96.0;
/// One panel's size in SVG pixels (5.8 × 4.2 inches).
const PANEL_W: f64 = 560.0;
const PANEL_H: f64 = 400.0;
/// Font sizes in SVG pixels.
const TITLE_PX: f64 = 17.0;
const CAPTION_PX: f64 = 15.0;
const TEXT_PX: f64 = 12.0;

/// One line on a panel, with an optional 95 % band (`lo`, `hi` per point).
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub band: Option<Vec<(f64, f64, f64)>>,
}

/// How a panel's x values are placed and labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XScale {
    /// Linear, labelled `250K`, `1.5M`, ...
    #[default]
    Linear,
    /// Linear, integer ticks only (K, Max, ...).
    Integer,
    /// Memory in bits on a log2 axis, labelled in bytes (`64MB`).
    Log2Bytes,
    /// A log2 axis labelled with the values (4, 8, 16, ...).
    Log2,
    /// A log10 axis labelled with the values (timings).
    Log10,
}

impl XScale {
    fn tx(self, x: f64) -> f64 {
        match self {
            XScale::Log2Bytes | XScale::Log2 => x.log2(),
            XScale::Log10 => x.log10(),
            XScale::Linear | XScale::Integer => x,
        }
    }

    fn is_log(self) -> bool {
        matches!(self, XScale::Log2Bytes | XScale::Log2 | XScale::Log10)
    }
}

/// How a panel draws its series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Lines with a dozen markers each.
    #[default]
    Lines,
    /// Markers at every point, joined by a thin line (configurations of one structure).
    Joined,
    /// Markers only.
    Points,
}

/// A panel: title, axis names and series; `markers` are the paper's values.
#[derive(Debug, Clone, Default)]
pub struct Panel {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub x_scale: XScale,
    /// `Some` as the chart asks; `None`: log where the positive values span more than two
    /// decades and none is negative.
    pub log_y: Option<bool>,
    pub series: Vec<Series>,
    pub markers: Vec<Series>,
    /// How series are drawn: thick lines (default), or markers at every point.
    pub style: Style,
    /// A Pareto front, drawn as a dashed staircase.
    pub front: Vec<(f64, f64)>,
    /// Fronts of parts of the panel (a structure's own front over its settings): each drawn
    /// as a dotted staircase in the colour of the series whose label it names.
    pub fronts: Vec<(String, Vec<(f64, f64)>)>,
    /// A lower bound, drawn as a thin black line (the sliding-window space bound).
    pub bound: Vec<(f64, f64)>,
}

impl Panel {
    /// A panel with no series yet, linear axes and automatic log y.
    pub fn new(
        title: impl Into<String>,
        x_desc: impl Into<String>,
        y_desc: impl Into<String>,
    ) -> Self {
        Self {
            title: title.into(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            ..Self::default()
        }
    }

    /// Whether the y axis is logarithmic (see [`Panel::log_y`]).
    pub fn is_log_y(&self) -> bool {
        let ys = || {
            self.series
                .iter()
                .chain(&self.markers)
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain(self.front.iter().map(|p| p.1))
                .chain(self.fronts.iter().flat_map(|f| f.1.iter().map(|p| p.1)))
                .filter(|y| y.is_finite())
        };
        let positive = || ys().filter(|y| *y > 0.0);
        let (lo, hi) = positive().fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
        if lo > hi {
            return false; // nothing positive: nothing to place on a log axis
        }
        match self.log_y {
            Some(on) => on,
            None => !ys().any(|y| y < 0.0) && hi / lo > 100.0,
        }
    }
}

/// Series colours: Tableau's ten, then fifteen more picked to stay apart from them and from
/// each other (after Kelly's colours of maximum contrast), so that a chart of 25 series gives
/// each its own colour; with the five marker shapes, no two of the first 25 series look alike.
/// Black and grey are kept for the fronts and the paper's values.
const PALETTE: [RGBColor; 25] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 0),
    RGBColor(0, 128, 128),
    RGBColor(243, 195, 0),
    RGBColor(96, 78, 151),
    RGBColor(141, 182, 0),
    RGBColor(101, 69, 34),
    RGBColor(230, 143, 172),
    RGBColor(43, 61, 38),
    RGBColor(255, 0, 255),
    RGBColor(174, 199, 232),
    RGBColor(255, 187, 120),
    RGBColor(152, 223, 138),
    RGBColor(255, 152, 150),
    RGBColor(197, 176, 213),
    RGBColor(226, 88, 34),
];

/// Marker shapes, so that series stay apart in print without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    InvTriangle,
}

const SHAPES: [Shape; 5] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::InvTriangle,
];

/// A series label's colour and shape, the same in every panel of a chart.
#[derive(Debug, Clone, Copy)]
struct Look {
    color: RGBColor,
    shape: Shape,
}

/// The series labels of a chart in order of first appearance, each with its look.
#[derive(Debug)]
struct Legend {
    entries: Vec<(String, Look)>,
    paper: bool,
    front: bool,
    fronts: bool,
    bound: bool,
    zeros: bool,
}

impl Legend {
    fn of(panels: &[Panel]) -> Self {
        let mut entries: Vec<(String, Look)> = Vec::new();
        for s in panels.iter().flat_map(|p| &p.series) {
            if !entries.iter().any(|(l, _)| *l == s.label) {
                let i = entries.len();
                // Past the palette, colours repeat with the next shape, so no two series of
                // the first 125 share both.
                let look = Look {
                    color: PALETTE[i % PALETTE.len()],
                    shape: SHAPES[(i + i / PALETTE.len()) % SHAPES.len()],
                };
                entries.push((s.label.clone(), look));
            }
        }
        Self {
            entries,
            paper: panels.iter().any(|p| !p.markers.is_empty()),
            front: panels.iter().any(|p| !p.front.is_empty()),
            fronts: panels.iter().any(|p| !p.fronts.is_empty()),
            bound: panels.iter().any(|p| !p.bound.is_empty()),
            zeros: panels.iter().any(|p| {
                p.is_log_y()
                    && p.series
                        .iter()
                        .chain(&p.markers)
                        .any(|s| s.points.iter().any(|pt| pt.1 <= 0.0))
            }),
        }
    }

    fn look(&self, label: &str) -> Look {
        self.entries.iter().find(|(l, _)| l == label).map_or(
            Look {
                color: PALETTE[0],
                shape: Shape::Circle,
            },
            |e| e.1,
        )
    }

    /// The legend's items: what to draw as the sample, and the text.
    fn items(&self) -> Vec<(Sample, String)> {
        let mut out: Vec<(Sample, String)> = self
            .entries
            .iter()
            .map(|(l, look)| (Sample::Series(*look), l.clone()))
            .collect();
        if self.paper {
            out.push((Sample::Paper, "paper's value".into()));
        }
        if self.front {
            let what = if self.fronts {
                "Pareto front of all"
            } else {
                "Pareto front"
            };
            out.push((Sample::Front, what.into()));
        }
        if self.fronts {
            out.push((
                Sample::StructureFront,
                "a structure's front over its settings (its colour)".into(),
            ));
        }
        if self.bound {
            out.push((
                Sample::Bound,
                "lower bound at FNR 0 (Naor & Yogev, slack W)".into(),
            ));
        }
        if self.zeros {
            out.push((Sample::Zero, "0, drawn on the log axis's floor".into()));
        }
        out
    }

    /// The legend's rows (item indices) and its height, laid out in `width` (SVG pixels).
    fn layout(&self, width: f64) -> (Vec<Vec<usize>>, f64) {
        let items = self.items();
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut used = f64::MAX;
        for (i, (_, text)) in items.iter().enumerate() {
            let w = item_width(text);
            if used + w > width - 2.0 * LEGEND_PAD {
                rows.push(Vec::new());
                used = 0.0;
            }
            rows.last_mut().expect("a row was pushed").push(i);
            used += w;
        }
        let h = if rows.is_empty() {
            0.0
        } else {
            rows.len() as f64 * LEGEND_ROW + 2.0 * LEGEND_PAD
        };
        (rows, h)
    }
}

const LEGEND_PAD: f64 = 8.0;
const LEGEND_ROW: f64 = 20.0;
const SAMPLE_W: f64 = 26.0;

/// What a legend item shows.
#[derive(Debug, Clone, Copy)]
enum Sample {
    Series(Look),
    Paper,
    Front,
    StructureFront,
    Bound,
    Zero,
}

/// Width of a text in SVG pixels at `px` (from the bundled font's metrics).
fn text_width(text: &str, px: f64) -> f64 {
    register_font();
    ("sans-serif", px)
        .into_font()
        .box_size(text)
        .map_or(text.chars().count() as f64 * px * 0.6, |(w, _)| w as f64)
}

fn item_width(text: &str) -> f64 {
    SAMPLE_W + 6.0 + text_width(text, TEXT_PX) + 18.0
}

/// The chart's title as lines that fit `width`: each `\n` starts a line, and a line too
/// long is broken at its ` — ` separators.
fn title_lines(title: &str, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in title.split('\n') {
        let mut current = String::new();
        for piece in part.split(" — ") {
            let candidate = if current.is_empty() {
                piece.to_string()
            } else {
                format!("{current} — {piece}")
            };
            if !current.is_empty() && text_width(&candidate, TITLE_PX) > width - 24.0 {
                lines.push(std::mem::replace(&mut current, piece.to_string()));
            } else {
                current = candidate;
            }
        }
        lines.push(current);
    }
    lines
}

/// The x ticks (in transformed space) for data at transformed positions `xs`.
fn x_ticks(scale: XScale, (lo, hi): (f64, f64), xs: &[f64]) -> Vec<f64> {
    match scale {
        XScale::Linear => nice_ticks(lo, hi, 6, 0.0),
        XScale::Integer => match few_distinct(xs, 12) {
            Some(v) if v.iter().all(|x| (x - x.round()).abs() < 1e-9) => v,
            _ => nice_ticks(lo, hi, 8, 1.0),
        },
        XScale::Log2Bytes | XScale::Log2 => match few_distinct(xs, 9) {
            Some(v) => v,
            None => {
                let (a, b) = (lo.ceil() as i64, hi.floor() as i64);
                let stride = ((b - a + 1) as f64 / 9.0).ceil().max(1.0) as i64;
                (a..=b)
                    .filter(|i| (i - a) % stride == 0)
                    .map(|i| i as f64)
                    .collect()
            }
        },
        XScale::Log10 => log_ticks(lo, hi),
    }
}

fn x_label(scale: XScale, x: f64) -> String {
    match scale {
        XScale::Linear | XScale::Integer => human_count(x),
        XScale::Log2Bytes => format_bits(2f64.powf(x).round() as u64),
        XScale::Log2 => human_count(2f64.powf(x)),
        XScale::Log10 => log_label(x),
    }
}

/// How y values are placed: identity, or log10 with a floor for values ≤ 0.
#[derive(Debug, Clone, Copy)]
struct YAxis {
    log: bool,
    floor: f64,
}

impl YAxis {
    fn ty(self, y: f64) -> f64 {
        if !self.log {
            y
        } else if y > 0.0 {
            y.log10()
        } else {
            self.floor
        }
    }
}

/// The y axis and its range (transformed) for a panel.
fn y_axis(p: &Panel) -> (YAxis, (f64, f64)) {
    let all = || p.series.iter().chain(&p.markers);
    let values = || {
        all()
            .flat_map(|s| {
                s.points
                    .iter()
                    .map(|q| q.1)
                    .chain(s.band.iter().flatten().flat_map(|&(_, lo, hi)| [lo, hi]))
            })
            .chain(p.front.iter().map(|q| q.1))
            .chain(p.fronts.iter().flat_map(|f| f.1.iter().map(|q| q.1)))
    };
    if p.is_log_y() {
        let (lo, hi) = min_max(values().filter(|y| *y > 0.0).map(f64::log10));
        let (lo, hi) = pad((lo, hi), 0.06);
        let has_zero = values().any(|y| y <= 0.0);
        // Values of 0 sit on the floor, a little below the smallest positive one.
        let floor = if has_zero {
            lo - 0.06 * (hi - lo).max(1.0)
        } else {
            lo
        };
        (YAxis { log: true, floor }, (floor, hi))
    } else {
        let (lo, hi) = min_max(values());
        let (lo, hi) = if lo > hi { (0.0, 1.0) } else { (lo, hi) };
        let y1 = hi.max(1e-6) * 1.08;
        let y0 = if lo < 0.0 { lo * 1.08 } else { 0.0 };
        (
            YAxis {
                log: false,
                floor: 0.0,
            },
            (y0, y1),
        )
    }
}

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

/// The pixel scale of a rendering: 1 for SVG, `PNG_DPI / SVG_DPI` for the PNG.
#[derive(Debug, Clone, Copy)]
struct Px(f64);

impl Px {
    fn i(self, v: f64) -> i32 {
        (v * self.0).round() as i32
    }
    fn u(self, v: f64) -> u32 {
        (v * self.0).round().max(1.0) as u32
    }
    fn font(self, v: f64) -> (&'static str, f64) {
        ("sans-serif", v * self.0)
    }
}

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("chart: {e}")
}

/// Draws one marker of `shape` at `at` (in the area's coordinates), `r` pixels in radius.
fn shape_at<DB, CT>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    shape: Shape,
    r: i32,
    style: ShapeStyle,
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    CT: plotters::coord::CoordTranslate,
    CT::From: Clone,
{
    let e = EmptyElement::at(at);
    let outline = |pts: Vec<(i32, i32)>| {
        let mut closed = pts.clone();
        closed.push(pts[0]);
        closed
    };
    let tri = |dir: i32| vec![(0, -dir * r), (r, dir * r * 3 / 5), (-r, dir * r * 3 / 5)];
    let dia = vec![(0, -r), (r, 0), (0, r), (-r, 0)];
    let drawn = match (shape, style.filled) {
        (Shape::Circle, _) => area.draw(&(e + Circle::new((0, 0), r, style))),
        (Shape::Square, _) => {
            let q = r * 4 / 5;
            area.draw(&(e + Rectangle::new([(-q, -q), (q, q)], style)))
        }
        (Shape::Triangle, true) => area.draw(&(e + Polygon::new(tri(1), style))),
        (Shape::InvTriangle, true) => area.draw(&(e + Polygon::new(tri(-1), style))),
        (Shape::Diamond, true) => area.draw(&(e + Polygon::new(dia, style))),
        (Shape::Triangle, false) => area.draw(&(e + PathElement::new(outline(tri(1)), style))),
        (Shape::InvTriangle, false) => area.draw(&(e + PathElement::new(outline(tri(-1)), style))),
        (Shape::Diamond, false) => area.draw(&(e + PathElement::new(outline(dia), style))),
    };
    drawn.map_err(err)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    legend: &Legend,
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
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
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, px.font(CAPTION_PX))
        .margin(px.i(10.0))
        .margin_right(px.i(22.0))
        .x_label_area_size(px.i(42.0))
        .y_label_area_size(px.i(58.0))
        .build_cartesian_2d(
            Ticked {
                lo: x0,
                hi: x1,
                ticks: xt,
            },
            Ticked {
                lo: y0,
                hi: y1,
                ticks: yt.clone(),
            },
        )
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
    let scatter = p.style != Style::Lines;
    let line_w = if scatter { 1.0 } else { 2.0 };
    let r = px.i(if scatter { 5.0 } else { 3.5 });
    for (si, s) in p.series.iter().enumerate() {
        let look = legend.look(&s.label);
        let color = look.color;
        if let Some(band) = &s.band {
            // On a log axis a band that reaches 0 has no lower edge to draw: there, only its
            // upper half (from the mean) is drawn, rather than a wedge down to the floor.
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
        }
        // On a log axis, a line does not run through a 0 (drawn apart on the floor).
        let runs = s.points.split(|q| ya.log && q.1 <= 0.0);
        for run in runs.filter(|r| r.len() > 1 && p.style != Style::Points) {
            chart
                .draw_series(LineSeries::new(
                    run.iter().map(|&(x, y)| (tx(x), ya.ty(y))),
                    color.stroke_width(px.u(line_w)),
                ))
                .map_err(err)?;
        }
        // A long line gets about a dozen markers, staggered between series.
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
            let style = if zero {
                color.stroke_width(px.u(1.5))
            } else {
                color.filled()
            };
            shape_at(plot, (tx(x), ya.ty(y)), look.shape, r, style)?;
        }
    }
    for (label, front) in &p.fronts {
        let color = legend.look(label).color;
        let style = color.mix(0.9).stroke_width(px.u(2.5));
        draw_staircase(&mut chart, front, tx, ya, (px.i(2.0), px.i(3.0)), style)?;
    }
    if p.bound.len() > 1 {
        chart
            .draw_series(LineSeries::new(
                p.bound.iter().map(|&(x, y)| (tx(x), ya.ty(y))),
                BLACK.stroke_width(px.u(1.0)),
            ))
            .map_err(err)?;
    }
    if !p.front.is_empty() {
        let style = BLACK.mix(0.7).stroke_width(px.u(1.5));
        draw_staircase(&mut chart, &p.front, tx, ya, (px.i(6.0), px.i(4.0)), style)?;
    }
    for m in &p.markers {
        let color = legend.look(&m.label).color;
        chart
            .draw_series(m.points.iter().map(|&(x, y)| {
                Cross::new((tx(x), ya.ty(y)), px.i(6.0), color.stroke_width(px.u(2.0)))
            }))
            .map_err(err)?;
    }
    Ok(())
}

/// Draws a Pareto front as a dashed staircase (`dash`: dash and gap lengths): from each point
/// across to the next one's x, then down.
fn draw_staircase<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Ticked, Ticked>>,
    front: &[(f64, f64)],
    tx: impl Fn(f64) -> f64,
    ya: YAxis,
    dash: (i32, i32),
    style: ShapeStyle,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
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

/// Draws the legend's rows in `area`.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &Legend,
    rows: &[Vec<usize>],
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let items = legend.items();
    let (w, _) = area.dim_in_pixel();
    let style = TextStyle::from(px.font(TEXT_PX)).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Left,
        plotters::style::text_anchor::VPos::Center,
    ));
    for (ri, row) in rows.iter().enumerate() {
        let row_w: f64 = row.iter().map(|&i| item_width(&items[i].1)).sum();
        let mut x = (w as f64 / px.0 - row_w) / 2.0;
        let y = LEGEND_PAD + (ri as f64 + 0.5) * LEGEND_ROW;
        for &i in row {
            let (sample, text) = &items[i];
            let (sx, sy) = (px.i(x), px.i(y));
            let mid = (px.i(x + SAMPLE_W / 2.0), sy);
            match sample {
                Sample::Series(look) => {
                    area.draw(&PathElement::new(
                        vec![(sx, sy), (px.i(x + SAMPLE_W), sy)],
                        look.color.stroke_width(px.u(2.0)),
                    ))
                    .map_err(err)?;
                    shape_at(area, mid, look.shape, px.i(3.5), look.color.filled())?;
                }
                Sample::Paper => {
                    area.draw(&Cross::new(mid, px.i(6.0), BLACK.stroke_width(px.u(2.0))))
                        .map_err(err)?;
                }
                Sample::Front => {
                    area.draw(&DashedPathElement::new(
                        vec![(sx, sy), (px.i(x + SAMPLE_W), sy)],
                        px.i(6.0),
                        px.i(4.0),
                        BLACK.mix(0.7).stroke_width(px.u(1.5)),
                    ))
                    .map_err(err)?;
                }
                Sample::StructureFront => {
                    area.draw(&DashedPathElement::new(
                        vec![(sx, sy), (px.i(x + SAMPLE_W), sy)],
                        px.i(2.0),
                        px.i(3.0),
                        BLACK.mix(0.6).stroke_width(px.u(2.5)),
                    ))
                    .map_err(err)?;
                }
                Sample::Bound => {
                    area.draw(&PathElement::new(
                        vec![(sx, sy), (px.i(x + SAMPLE_W), sy)],
                        BLACK.stroke_width(px.u(1.0)),
                    ))
                    .map_err(err)?;
                }
                Sample::Zero => {
                    shape_at(
                        area,
                        mid,
                        Shape::Circle,
                        px.i(3.5),
                        BLACK.stroke_width(px.u(1.5)),
                    )?;
                }
            }
            area.draw_text(text, &style, (px.i(x + SAMPLE_W + 6.0), sy))
                .map_err(err)?;
            x += item_width(text);
        }
    }
    Ok(())
}

/// The layout of a chart in SVG pixels: title lines, legend rows, total size.
#[derive(Debug)]
struct Layout {
    title: Vec<String>,
    title_h: f64,
    legend: Legend,
    rows: Vec<Vec<usize>>,
    legend_h: f64,
    width: f64,
    height: f64,
}

impl Layout {
    fn of(title: &str, panels: &[Panel]) -> Self {
        let width = PANEL_W * panels.len().max(1) as f64;
        let title = title_lines(title, width);
        let title_h = 10.0 + title.len() as f64 * TITLE_PX * 1.35;
        let legend = Legend::of(panels);
        let (rows, legend_h) = legend.layout(width);
        Self {
            height: title_h + PANEL_H + legend_h,
            title,
            title_h,
            legend,
            rows,
            legend_h,
            width,
        }
    }

    fn size(&self, px: Px) -> (u32, u32) {
        (px.u(self.width), px.u(self.height))
    }
}

fn draw_all<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    layout: &Layout,
    panels: &[Panel],
    px: Px,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
    let style = TextStyle::from(px.font(TITLE_PX)).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Top,
    ));
    for (i, line) in layout.title.iter().enumerate() {
        root.draw_text(
            line,
            &style,
            ((w / 2) as i32, px.i(6.0 + i as f64 * TITLE_PX * 1.35)),
        )
        .map_err(err)?;
    }
    let (_, rest) = root.split_vertically(px.i(layout.title_h));
    let (plots, legend_area) = rest.split_vertically(px.i(PANEL_H));
    let areas = plots.split_evenly((1, panels.len().max(1)));
    for (area, p) in areas.iter().zip(panels) {
        draw_panel(area, p, &layout.legend, px)?;
    }
    if layout.legend_h > 0.0 {
        draw_legend(&legend_area, &layout.legend, &layout.rows, px)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// A PNG of RGB pixels with its resolution recorded (`pHYs`).
fn encode_png(rgb: &[u8], (w, h): (u32, u32), dpi: f64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let ppm = (dpi / 0.0254).round() as u32;
    enc.set_pixel_dims(Some(png::PixelDimensions {
        xppu: ppm,
        yppu: ppm,
        unit: png::Unit::Meter,
    }));
    enc.write_header()
        .and_then(|mut w| w.write_image_data(rgb))
        .context("encoding PNG")?;
    Ok(out)
}

/// Writes `<base>.svg` and a 300 dpi `<base>.png` of the same layout, each atomically.
pub fn render(base: &Path, title: &str, panels: &[Panel]) -> Result<Vec<PathBuf>> {
    register_font();
    let layout = Layout::of(title, panels);
    let mut svg = String::new();
    let one = Px(1.0);
    draw_all(
        SVGBackend::with_string(&mut svg, layout.size(one)).into_drawing_area(),
        &layout,
        panels,
        one,
    )?;
    let svg_path = base.with_extension("svg");
    atomic_write(&svg_path, svg.as_bytes())?;
    let hi = Px(PNG_DPI / SVG_DPI);
    let size = layout.size(hi);
    let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
    draw_all(
        BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area(),
        &layout,
        panels,
        hi,
    )?;
    let png_path = base.with_extension("png");
    atomic_write(&png_path, &encode_png(&rgb, size, PNG_DPI)?)?;
    Ok(vec![png_path, svg_path])
}

/// A file name made of `parts` joined by `-`, with anything but letters, digits, `.` and
/// `_` left out or turned into `_` (no spaces, no `=`).
pub fn file_name(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| {
            let mut s = String::new();
            for c in p.trim().chars() {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                    s.push(c);
                } else if c != ' ' && !s.ends_with('_') {
                    s.push('_');
                }
            }
            s
        })
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(ys: &[f64]) -> Panel {
        let mut p = Panel::new("t", "x", "y");
        p.series.push(Series {
            label: "a".into(),
            points: ys.iter().enumerate().map(|(i, y)| (i as f64, *y)).collect(),
            band: None,
        });
        p
    }

    #[test]
    fn log_y_is_automatic_past_two_decades_and_explicit_wins() {
        assert!(!panel(&[1.0, 50.0]).is_log_y(), "1.7 decades");
        assert!(panel(&[0.1, 50.0]).is_log_y(), "2.7 decades");
        assert!(panel(&[0.0, 0.1, 50.0]).is_log_y(), "zeros do not count");
        assert!(
            !panel(&[-1.0, 0.1, 50.0]).is_log_y(),
            "a difference stays linear"
        );
        let mut p = panel(&[0.1, 50.0]);
        p.log_y = Some(false);
        assert!(!p.is_log_y());
        let mut p = panel(&[1.0, 2.0]);
        p.log_y = Some(true);
        assert!(p.is_log_y());
        let mut p = panel(&[0.0, 0.0]);
        p.log_y = Some(true);
        assert!(!p.is_log_y(), "nothing positive to place");
    }

    #[test]
    fn zeros_on_a_log_axis_sit_below_every_positive_value_and_are_named() {
        let p = panel(&[0.0, 0.01, 30.0]);
        let (ya, (y0, y1)) = y_axis(&p);
        assert!(ya.log);
        assert_eq!(ya.ty(0.0), y0, "0 is drawn on the floor");
        assert!(y0 < 0.01f64.log10() && y1 > 30f64.log10());
        assert!(Legend::of(&[p]).zeros);
        assert!(
            !Legend::of(&[panel(&[0.0, 1.0])]).zeros,
            "linear axis: 0 is a value"
        );
    }

    #[test]
    fn ticks() {
        // Integer parameters: integer ticks, at the measured values when few.
        assert_eq!(
            x_ticks(XScale::Integer, (0.8, 5.2), &[1.0, 2.0, 3.0, 4.0, 5.0]),
            vec![1.0, 2.0, 3.0, 4.0, 5.0]
        );
        let many: Vec<f64> = (1..=40).map(f64::from).collect();
        let t = x_ticks(XScale::Integer, (1.0, 40.0), &many);
        assert!(t.iter().all(|x| x.fract() == 0.0) && t.len() <= 10, "{t:?}");
        assert!(
            nice_ticks(0.0, 5.0, 8, 1.0)
                .iter()
                .all(|x| x.fract() == 0.0)
        );
        // Log2: the measured values when few, else whole powers of two.
        assert_eq!(
            x_ticks(XScale::Log2, (1.5, 6.5), &[2.0, 4.0, 6.0]),
            vec![2.0, 4.0, 6.0]
        );
        assert_eq!(x_label(XScale::Log2, 6.0), "64");
        assert_eq!(x_label(XScale::Log2Bytes, 29.0), "64MB");
        // Log10: decades, or 1-2-5 within fewer than three decades.
        assert_eq!(log_ticks(-2.5, 1.2), vec![-2.0, -1.0, 0.0, 1.0]);
        assert_eq!(
            log_ticks(-0.8, 2.1).len(),
            9,
            "0.2, 0.5, 1, 2, 5, 10, 20, 50, 100"
        );
        assert_eq!(log_ticks(0.0, 1.0).len(), 4, "1, 2, 5, 10");
        assert_eq!(log_label(-3.0), "0.001");
        assert_eq!(log_label(2.0), "100");
        assert_eq!(human_count(15_600_000.0), "15.6M");
        assert_eq!(human_count(1_500_000.0), "1.5M");
        assert_eq!(human_count(500_000.0), "500K");
        assert_eq!(human_count(3.5791), "3.58");
        assert_eq!(human_count(0.25), "0.25");
    }

    #[test]
    fn file_names_have_no_spaces() {
        assert_eq!(
            file_name(&["rates_vs_length", "10000 bits", "0"]),
            "rates_vs_length-10000bits-0"
        );
        assert_eq!(
            file_name(&["rates_vs_param", "s=2", "1"]),
            "rates_vs_param-s_2-1"
        );
    }

    #[test]
    fn png_is_300_dpi_and_legend_is_outside_the_panels() {
        let dir = std::env::temp_dir().join(format!("dupstream-render-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut p = panel(&[0.0, 0.01, 30.0]);
        p.markers.push(Series {
            label: "a".into(),
            points: vec![(1.0, 0.02)],
            band: None,
        });
        let files = render(&dir.join("c"), "title", &[p.clone(), p]).unwrap();
        let bytes = std::fs::read(&files[0]).unwrap();
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let reader = dec.read_info().unwrap();
        let info = reader.info();
        let dims = info.pixel_dims.expect("pHYs chunk");
        assert_eq!((dims.xppu, dims.unit), (11811, png::Unit::Meter), "300 dpi");
        let layout = Layout::of("title", &[panel(&[1.0]), panel(&[1.0])]);
        assert_eq!(info.width, Px(PNG_DPI / SVG_DPI).u(layout.width));
        assert!(layout.legend_h > 0.0);
        let svg = std::fs::read_to_string(&files[1]).unwrap();
        assert!(svg.contains("paper&apos;s value") || svg.contains("paper's value"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
