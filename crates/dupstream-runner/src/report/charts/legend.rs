//! The legend: each series label's look (a colour of the palette and a marker shape, the same
//! in every panel of a chart), and the legend drawn below the panels, outside every plot
//! area, one entry per series label across the whole chart, then the entries for the
//! paper's values, the fronts, the bound and the zeros on a log axis where a panel has them.

use super::canvas::{Px, SHAPES, Shape, TEXT_PX, err, shape_at, text_width};
use super::panel::Panel;
use anyhow::Result;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

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

/// A series label's colour and shape, the same in every panel of a chart.
#[derive(Debug, Clone, Copy)]
pub(super) struct Look {
    pub(super) color: RGBColor,
    pub(super) shape: Shape,
}

/// The series labels of a chart in order of first appearance, each with its look.
#[derive(Debug)]
pub(super) struct Legend {
    entries: Vec<(String, Look)>,
    paper: bool,
    front: bool,
    fronts: bool,
    /// The bound's legend text, when a panel draws one.
    bound: Option<String>,
    pub(super) zeros: bool,
}

impl Legend {
    pub(super) fn of(panels: &[Panel]) -> Self {
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
            bound: panels.iter().find(|p| !p.bound.is_empty()).map(|p| {
                p.bound_label
                    .clone()
                    .unwrap_or_else(|| "lower bound at FNR 0 (Naor & Yogev, slack W)".into())
            }),
            zeros: panels.iter().any(|p| {
                p.is_log_y()
                    && p.series
                        .iter()
                        .chain(&p.markers)
                        .any(|s| s.points.iter().any(|pt| pt.1 <= 0.0))
            }),
        }
    }

    pub(super) fn look(&self, label: &str) -> Look {
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
        if let Some(label) = &self.bound {
            out.push((Sample::Bound, label.clone()));
        }
        if self.zeros {
            out.push((Sample::Zero, "0, drawn on the log axis's floor".into()));
        }
        out
    }

    /// The legend's rows (item indices) and its height, laid out in `width` (SVG pixels).
    pub(super) fn layout(&self, width: f64) -> (Vec<Vec<usize>>, f64) {
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

fn item_width(text: &str) -> f64 {
    SAMPLE_W + 6.0 + text_width(text, TEXT_PX) + 18.0
}

/// Draws the legend's rows in `area`.
pub(super) fn draw_legend<DB: DrawingBackend>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::panel::{test_panel as panel, y_axis};

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
}
