//! What a chart shows, before any drawing: a [`Panel`] of [`Series`] (and the paper's values
//! as markers), how its x values are placed ([`XScale`]) and its y axis (linear, or
//! logarithmic with a floor for the values of 0). Nothing here knows what is plotted.
//!
//! - A panel's y axis is logarithmic when it asks ([`Panel::log_y`]) or, by default, when its
//!   positive values span more than two decades and none is negative. A value of 0 has no
//!   place on a log axis: it is drawn as a hollow marker on the bottom edge, and the legend
//!   says so.
//! - Ticks are chosen here ([`XScale`]): integer parameters get integer ticks; log2 axes get
//!   ticks at the values measured when there are few of them. The tick arithmetic and number
//!   formats themselves are in [`ticks`](super::ticks).

use super::ticks::{few_distinct, human_count, log_label, log_ticks, min_max, nice_ticks, pad};
use crate::plan::units::format_bits;

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
    pub(super) fn tx(self, x: f64) -> f64 {
        match self {
            XScale::Log2Bytes | XScale::Log2 => x.log2(),
            XScale::Log10 => x.log10(),
            XScale::Linear | XScale::Integer => x,
        }
    }

    pub(super) fn is_log(self) -> bool {
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
    /// A lower bound, drawn as a thin black line (the sliding-window space bound); the y axis
    /// takes it in, the x axis does not.
    pub bound: Vec<(f64, f64)>,
    /// The bound's legend text (default: the slack-W sliding-window bound's).
    pub bound_label: Option<String>,
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
                .chain(self.bound.iter().map(|p| p.1))
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

/// The x ticks (in transformed space) for data at transformed positions `xs`.
pub(super) fn x_ticks(scale: XScale, (lo, hi): (f64, f64), xs: &[f64]) -> Vec<f64> {
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

pub(super) fn x_label(scale: XScale, x: f64) -> String {
    match scale {
        XScale::Linear | XScale::Integer => human_count(x),
        XScale::Log2Bytes => format_bits(2f64.powf(x).round() as u64),
        XScale::Log2 => human_count(2f64.powf(x)),
        XScale::Log10 => log_label(x),
    }
}

/// How y values are placed: identity, or log10 with a floor for values ≤ 0.
#[derive(Debug, Clone, Copy)]
pub(super) struct YAxis {
    pub(super) log: bool,
    floor: f64,
}

impl YAxis {
    pub(super) fn ty(self, y: f64) -> f64 {
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
pub(super) fn y_axis(p: &Panel) -> (YAxis, (f64, f64)) {
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
            .chain(p.bound.iter().map(|q| q.1))
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

/// A panel of one series `a` with values `ys` at x = 0, 1, 2, …
#[cfg(test)]
pub(super) fn test_panel(ys: &[f64]) -> Panel {
    let mut p = Panel::new("t", "x", "y");
    p.series.push(Series {
        label: "a".into(),
        points: ys.iter().enumerate().map(|(i, y)| (i as f64, *y)).collect(),
        band: None,
    });
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_panel as panel;

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
}
