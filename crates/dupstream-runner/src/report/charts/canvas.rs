//! What the panels, the legend and the chart share to draw: the pixel scale of a rendering,
//! the bundled font and its sizes, and the marker shapes.

use anyhow::{Result, anyhow};
use plotters::prelude::*;
use std::sync::Once;

static FONT: Once = Once::new();

pub(super) fn register_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
        // The bundled font always parses; if registration failed, text would be missing, not wrong.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, bytes);
    });
}

/// Font sizes in SVG pixels.
pub(super) const TITLE_PX: f64 = 17.0;
pub(super) const CAPTION_PX: f64 = 15.0;
pub(super) const TEXT_PX: f64 = 12.0;

/// Marker shapes, so that series stay apart in print without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    InvTriangle,
}

pub(super) const SHAPES: [Shape; 5] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::InvTriangle,
];

/// Width of a text in SVG pixels at `px` (from the bundled font's metrics).
pub(super) fn text_width(text: &str, px: f64) -> f64 {
    register_font();
    ("sans-serif", px)
        .into_font()
        .box_size(text)
        .map_or(text.chars().count() as f64 * px * 0.6, |(w, _)| w as f64)
}

/// The pixel scale of a rendering: 1 for SVG, `PNG_DPI / SVG_DPI` for the PNG.
#[derive(Debug, Clone, Copy)]
pub(super) struct Px(pub(super) f64);

impl Px {
    pub(super) fn i(self, v: f64) -> i32 {
        (v * self.0).round() as i32
    }
    pub(super) fn u(self, v: f64) -> u32 {
        (v * self.0).round().max(1.0) as u32
    }
    pub(super) fn font(self, v: f64) -> (&'static str, f64) {
        ("sans-serif", v * self.0)
    }
}

pub(super) fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("chart: {e}")
}

/// Draws one marker of `shape` at `at` (in the area's coordinates), `r` pixels in radius.
pub(super) fn shape_at<DB, CT>(
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
