//! A figure written: its points as CSV and its chart.

use super::figures::Point;
use crate::record::write_csv;
use crate::report::charts::{Panel, Series, XScale, render};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Writes `<name>.csv` and the chart (one panel per `panel` value).
pub fn write(dir: &Path, name: &str, points: &[Point]) -> Result<Vec<PathBuf>> {
    let csv = dir.join(format!("{name}.csv"));
    write_csv(&csv, points)?;
    type PanelSeries<'a> = Vec<(String, Vec<&'a Point>)>;
    let mut panels: Vec<(String, PanelSeries)> = Vec::new();
    for p in points {
        let pi = match panels.iter().position(|(t, _)| *t == p.panel) {
            Some(i) => i,
            None => {
                panels.push((p.panel.clone(), Vec::new()));
                panels.len() - 1
            }
        };
        let series = &mut panels[pi].1;
        match series.iter_mut().find(|(s, _)| *s == p.series) {
            Some((_, v)) => v.push(p),
            None => series.push((p.series.clone(), vec![p])),
        }
    }
    // Fig. 1 is against K (integer ticks); Fig. 2 against the gap δ on a log axis (the
    // points hold log10 δ).
    let fig1 = name == "deng-fig1";
    let (x_desc, y_desc) = if fig1 {
        ("K", "FN rate (%)")
    } else {
        ("gap δ", "FN rate difference (percentage points)")
    };
    let x = |v: f64| if fig1 { v } else { 10f64.powf(v) };
    let panels: Vec<Panel> = panels
        .into_iter()
        .map(|(title, series)| Panel {
            x_scale: if fig1 { XScale::Integer } else { XScale::Log10 },
            series: series
                .into_iter()
                .map(|(label, pts)| {
                    let band = pts.iter().any(|p| p.ci95_pct.is_some()).then(|| {
                        pts.iter()
                            .map(|p| {
                                let ci = p.ci95_pct.unwrap_or(0.0);
                                (x(p.x), p.y_pct - ci, p.y_pct + ci)
                            })
                            .collect()
                    });
                    Series {
                        label,
                        points: pts.iter().map(|p| (x(p.x), p.y_pct)).collect(),
                        band,
                    }
                })
                .collect(),
            ..Panel::new(title, x_desc, y_desc)
        })
        .collect();
    let title = if name == "deng-fig1" {
        "Deng & Rafiei Fig. 1: FN rate vs K (Eq. 19, 9, 17, 18)"
    } else {
        "Deng & Rafiei Fig. 2: FN rate difference Max=3 − Max=1 vs gap (Eq. 16, 9)"
    };
    let mut written = vec![csv];
    written.extend(render(&dir.join(name), title, &panels)?);
    Ok(written)
}
