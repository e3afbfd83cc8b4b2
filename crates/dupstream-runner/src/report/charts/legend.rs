//! The legend: each series label's look (a colour of the palette and a marker shape, the same
//! in every panel of a chart), and the legend drawn below the panels, outside every plot
//! area, one entry per series label across the whole chart, then the entries for the
//! paper's values, the fronts, the bound and the zeros on a log axis where a panel has them.
//!
//! A series that lies on an earlier one (three in four of its points or more within 0.25 % of
//! the axis's span, about a line's width, of the earlier series' at the same x, as SBF-rand31
//! on SBF) is drawn dashed with hollow,
//! larger markers, so that the one under it shows through, and its legend entry says so.

use super::canvas::{Px, SHAPES, Shape, TEXT_PX, err, shape_at, text_width};
use super::panel::{Panel, Style};
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
    /// Drawn dashed with hollow markers: it lies on an earlier series.
    pub(super) dashed: bool,
}

/// The series labels of a chart in order of first appearance, each with its look.
#[derive(Debug)]
pub(super) struct Legend {
    /// Each label, its look, and the earlier label it lies on, if any.
    entries: Vec<(String, Look, Option<String>)>,
    paper: bool,
    front: bool,
    fronts: bool,
    /// The bound's legend text, when a panel draws one.
    bound: Option<String>,
    pub(super) zeros: bool,
}

impl Legend {
    pub(super) fn of(panels: &[Panel]) -> Self {
        let mut entries: Vec<(String, Look, Option<String>)> = Vec::new();
        for s in panels.iter().flat_map(|p| &p.series) {
            if !entries.iter().any(|(l, _, _)| *l == s.label) {
                let i = entries.len();
                let under = entries
                    .iter()
                    .map(|(l, _, _)| l)
                    .find(|l| lies_on(panels, &s.label, l))
                    .cloned();
                // Past the palette, colours repeat with the next shape, so no two series of
                // the first 125 share both.
                let look = Look {
                    color: PALETTE[i % PALETTE.len()],
                    shape: SHAPES[(i + i / PALETTE.len()) % SHAPES.len()],
                    dashed: under.is_some(),
                };
                entries.push((s.label.clone(), look, under));
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
        self.entries.iter().find(|(l, _, _)| l == label).map_or(
            Look {
                color: PALETTE[0],
                shape: Shape::Circle,
                dashed: false,
            },
            |e| e.1,
        )
    }

    /// The legend's items: what to draw as the sample, and the text.
    fn items(&self) -> Vec<(Sample, String)> {
        let mut out: Vec<(Sample, String)> = self
            .entries
            .iter()
            .map(|(l, look, under)| {
                let text = match under {
                    Some(u) => format!("{l} (dashed: lies on {u})"),
                    None => l.clone(),
                };
                (Sample::Series(*look), text)
            })
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

/// The dash and gap (SVG pixels) of a series that lies on an earlier one.
pub(super) const DASH: (f64, f64) = (7.0, 5.0);
/// How much larger its hollow markers are than a filled one, to ring the marker under them.
pub(super) const HOLLOW: f64 = 1.6;

/// Whether series `b` lies on series `a` in some panel of lines (a chart of unjoined points
/// shows each point's own marker): three in four of `b`'s points or more (two at least) have a point of `a` at the same x within 0.25 % of the panel's y span (of
/// the logarithms on a log axis; about a line's width), so that `b`, drawn over `a`, would
/// hide it.
fn lies_on(panels: &[Panel], b: &str, a: &str) -> bool {
    panels.iter().filter(|p| p.style != Style::Points).any(|p| {
        let find = |l: &str| p.series.iter().find(|s| s.label == l);
        let (Some(sa), Some(sb)) = (find(a), find(b)) else {
            return false;
        };
        let log = p.is_log_y();
        // On a log axis a value of 0 or less sits on the floor: it has no logarithm, takes
        // no part in the span, and lies only on another such value.
        let y = |v: f64| match log {
            true if v > 0.0 => Some(v.log10()),
            true => None,
            false => Some(v),
        };
        let ys = p
            .series
            .iter()
            .flat_map(|s| &s.points)
            .filter_map(|pt| y(pt.1));
        let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let tol = 0.0025 * (hi - lo).max(f64::EPSILON);
        let near = |a: f64, b: f64| match (y(a), y(b)) {
            (Some(a), Some(b)) => (a - b).abs() <= tol,
            (None, None) => true,
            _ => false,
        };
        let close = sb
            .points
            .iter()
            .filter(|pb| sa.points.iter().any(|pa| pa.0 == pb.0 && near(pa.1, pb.1)))
            .count();
        close >= 2 && 4 * close >= 3 * sb.points.len()
    })
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
                Sample::Series(look) if look.dashed => {
                    area.draw(&DashedPathElement::new(
                        vec![(sx, sy), (px.i(x + SAMPLE_W), sy)],
                        px.i(DASH.0),
                        px.i(DASH.1),
                        look.color.stroke_width(px.u(2.0)),
                    ))
                    .map_err(err)?;
                    let hollow = look.color.stroke_width(px.u(1.5));
                    shape_at(area, mid, look.shape, px.i(3.5 * HOLLOW), hollow)?;
                }
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

    #[test]
    fn a_series_on_another_is_dashed_and_named_so() {
        use crate::report::charts::Series;
        let series = |label: &str, ys: &[f64]| Series {
            label: label.into(),
            points: ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect(),
            band: None,
        };
        let mut p = panel(&[0.0, 10.0]);
        p.log_y = Some(false);
        // B on A but for one point in five; C apart by 0.5 % of the span (0.05 of 10).
        p.series = vec![
            series("A", &[0.0, 1.0, 2.0, 3.0, 4.0, 10.0]),
            series("B", &[0.0, 1.0, 2.02, 3.0, 9.0]),
            series("C", &[0.05, 1.05, 2.05, 3.05, 4.05]),
        ];
        let legend = Legend::of(std::slice::from_ref(&p));
        assert!(!legend.look("A").dashed && legend.look("B").dashed && !legend.look("C").dashed);
        // On a log axis, a 0 elsewhere (on the floor) does not widen the span: 10 % apart
        // is apart.
        let mut q = p.clone();
        q.log_y = Some(true);
        q.series = vec![
            series("A", &[1.0, 2.0, 3.0, 40.0]),
            series("B", &[1.1, 2.2, 3.3, 44.0]),
            series("Z", &[0.0, 0.0, 5.0, 0.0]),
        ];
        assert!(!Legend::of(&[q]).look("B").dashed);
        let texts: Vec<String> = legend.items().into_iter().map(|i| i.1).collect();
        assert_eq!(texts, ["A", "B (dashed: lies on A)", "C"]);
    }
}
