//! Rendering: a chart is a row of [`Panel`]s, each a set of [`Series`] (and the paper's
//! values as markers), written as PNG and SVG. Nothing here knows what is plotted.

use crate::plan::units::format_bits;
use crate::record::atomic_write;
use anyhow::{Result, anyhow};
use plotters::coord::Shift;
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

/// One line on a panel, with an optional 95 % band (`lo`, `hi` per point).
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub band: Option<Vec<(f64, f64, f64)>>,
}

/// A panel: title, axis names and series; `markers` are the paper's values.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub x_log2: bool,
    pub series: Vec<Series>,
    pub markers: Vec<Series>,
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The axis ranges of a panel (x transformed by `tx`): `(x0, x1, y0, y1)`. The y axis starts
/// at 0 unless a value (a difference) is negative.
fn ranges(p: &Panel, tx: impl Fn(f64) -> f64) -> (f64, f64, f64, f64) {
    let all = || p.series.iter().chain(&p.markers);
    let (mut x0, mut x1) = all()
        .flat_map(|s| s.points.iter().map(|&(x, _)| x))
        .map(tx)
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if x0 == x1 {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    }
    let ys = |band: fn(&(f64, f64, f64)) -> f64| {
        all()
            .flat_map(move |s| {
                s.points
                    .iter()
                    .map(|&(_, y)| y)
                    .chain(s.band.iter().flatten().map(band))
            })
            .collect::<Vec<f64>>()
    };
    let y1 = ys(|b| b.2).into_iter().fold(0.0f64, f64::max).max(1e-6) * 1.08;
    let y0 = ys(|b| b.1).into_iter().fold(0.0f64, f64::min) * 1.08;
    (x0, x1, y0, y1)
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let tx = |x: f64| if p.x_log2 { x.max(1.0).log2() } else { x };
    let (x0, x1, y0, y1) = ranges(p, tx);
    let title = if p.markers.is_empty() {
        p.title.clone()
    } else {
        format!("{} (× = paper)", p.title)
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&title, ("sans-serif", 18))
        .margin(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| anyhow!("chart: {e}"))?;
    let x_fmt = |x: &f64| {
        if p.x_log2 {
            if (x - x.round()).abs() > 1e-9 {
                return String::new();
            }
            format_bits(2f64.powf(x.round()).round() as u64)
        } else if x.abs() >= 1e6 {
            format!("{:.0}M", x / 1e6)
        } else {
            format!("{x}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(&p.x_desc)
        .y_desc(&p.y_desc)
        .x_labels(if p.x_log2 {
            ((x1 - x0).round() as usize + 1).min(16)
        } else {
            8
        })
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&|y: &f64| {
            if y1 < 0.1 {
                format!("{y:.3}")
            } else if y1 < 10.0 {
                format!("{y:.2}")
            } else {
                format!("{y:.0}")
            }
        })
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(|e| anyhow!("chart: {e}"))?;
    for (i, s) in p.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        if let Some(band) = &s.band {
            let mut poly: Vec<(f64, f64)> = band.iter().map(|&(x, lo, _)| (tx(x), lo)).collect();
            poly.extend(band.iter().rev().map(|&(x, _, hi)| (tx(x), hi)));
            chart
                .draw_series(std::iter::once(Polygon::new(poly, color.mix(0.2).filled())))
                .map_err(|e| anyhow!("chart: {e}"))?;
        }
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|&(x, y)| (tx(x), y)),
                color.stroke_width(2),
            ))
            .map_err(|e| anyhow!("chart: {e}"))?
            .label(&s.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&(x, y)| Circle::new((tx(x), y), 3, color.filled())),
            )
            .map_err(|e| anyhow!("chart: {e}"))?;
    }
    for m in &p.markers {
        let idx = p
            .series
            .iter()
            .position(|s| s.label == m.label)
            .unwrap_or(0);
        let color = PALETTE[idx % PALETTE.len()];
        chart
            .draw_series(
                m.points
                    .iter()
                    .map(|&(x, y)| Cross::new((tx(x), y), 6, color.stroke_width(2))),
            )
            .map_err(|e| anyhow!("chart: {e}"))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| anyhow!("chart: {e}"))?;
    Ok(())
}

fn draw_all<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    panels: &[Panel],
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow!("chart: {e}"))?;
    let root = root
        .titled(title, ("sans-serif", 20))
        .map_err(|e| anyhow!("chart: {e}"))?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (area, p) in areas.iter().zip(panels) {
        draw_panel(area, p)?;
    }
    root.present().map_err(|e| anyhow!("chart: {e}"))?;
    Ok(())
}

/// Writes `<base>.png` and `<base>.svg`, each atomically.
pub fn render(base: &Path, title: &str, panels: &[Panel]) -> Result<Vec<PathBuf>> {
    register_font();
    let size = (560 * panels.len().max(1) as u32, 440);
    let mut svg = String::new();
    draw_all(
        SVGBackend::with_string(&mut svg, size).into_drawing_area(),
        title,
        panels,
    )?;
    let svg_path = base.with_extension("svg");
    atomic_write(&svg_path, svg.as_bytes())?;
    let png_path = base.with_extension("png");
    let tmp = base.with_file_name(format!(
        ".{}.partial.png",
        base.file_name().and_then(|n| n.to_str()).unwrap_or("chart")
    ));
    draw_all(
        BitMapBackend::new(&tmp, size).into_drawing_area(),
        title,
        panels,
    )?;
    std::fs::rename(&tmp, &png_path)?;
    Ok(vec![png_path, svg_path])
}
