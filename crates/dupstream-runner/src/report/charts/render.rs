//! Rendering: a chart is a title and a row of [`Panel`]s above their legend, written as SVG
//! and as a 300 dpi PNG of the same layout. What a panel shows is in
//! [`panel`](super::panel); it is drawn by `plot_area.rs`, and the legend by `legend.rs`.

use super::canvas::{Px, TITLE_PX, err, register_font, text_width};
use super::legend::{Legend, draw_legend};
use super::panel::Panel;
use super::plot_area::draw_panel;
use crate::record::atomic_write;
use anyhow::{Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The resolution of the PNG beside each SVG.
pub const PNG_DPI: f64 = 300.0;
/// The SVG's pixels per inch (CSS pixels): the PNG is this layout scaled by `PNG_DPI / SVG_DPI`.
const SVG_DPI: f64 = 96.0;
/// One panel's size in SVG pixels (5.8 × 4.2 inches).
const PANEL_W: f64 = 560.0;
const PANEL_H: f64 = 400.0;

/// The chart's title as lines that fit `width`: each `\n` starts a line, a line too long is
/// broken at its ` — ` separators, and a piece still too long at its spaces (a stream label
/// with many parameters).
fn title_lines(title: &str, width: f64) -> Vec<String> {
    let fits = |s: &str| text_width(s, TITLE_PX) <= width - 24.0;
    // Greedy: `pieces` joined by `sep` into lines that fit (a piece alone may not).
    let pack = |pieces: &mut dyn Iterator<Item = &str>, sep: &str, lines: &mut Vec<String>| {
        let mut current = String::new();
        for piece in pieces {
            let candidate = if current.is_empty() {
                piece.to_string()
            } else {
                format!("{current}{sep}{piece}")
            };
            if !current.is_empty() && !fits(&candidate) {
                lines.push(std::mem::replace(&mut current, piece.to_string()));
            } else {
                current = candidate;
            }
        }
        lines.push(current);
    };
    let mut lines: Vec<String> = Vec::new();
    for part in title.split('\n') {
        let mut by_dash = Vec::new();
        pack(&mut part.split(" — "), " — ", &mut by_dash);
        for line in by_dash {
            if fits(&line) {
                lines.push(line);
            } else {
                pack(&mut line.split(' '), " ", &mut lines);
            }
        }
    }
    lines
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
    use crate::report::charts::panel::{Series, test_panel as panel};

    #[test]
    fn a_title_too_wide_is_wrapped_at_its_separators_then_its_spaces() {
        let long = "leaderboard-window-time: uniform n=67108864 universe=8388608 time=mmpp time_burst_rate=53248.0 time_burst_seconds=32.0 time_lull_rate=4096.0 — windowed track\nscale 1/32";
        let lines = title_lines(long, PANEL_W);
        assert!(lines.len() > 3, "{lines:?}");
        for l in &lines {
            assert!(text_width(l, TITLE_PX) <= PANEL_W - 24.0, "{l}");
        }
        // Nothing lost or reordered: the words, in order.
        let words = |s: &str| {
            s.split([' ', '\n'])
                .filter(|w| !w.is_empty() && *w != "—")
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(words(&lines.join(" ")), words(long));
        // A title that fits is one line per `\n`, as before.
        assert_eq!(
            title_lines("Table 7\nscale 1/64", PANEL_W),
            ["Table 7", "scale 1/64"]
        );
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
