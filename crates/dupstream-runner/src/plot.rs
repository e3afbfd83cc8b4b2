//! Charts in the style of the papers' figures, drawn from `raw.csv` (so `dupstream plot`
//! re-draws them without recomputing). Each chart is written as PNG and SVG.

use crate::experiment::ChartKind;
use crate::output::{RawRow, atomic_write};
use crate::table::{PaperValue, mean_ci};
use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../assets/DejaVuSans.ttf");
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

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let xs = || {
        p.series
            .iter()
            .chain(&p.markers)
            .flat_map(|s| s.points.iter().map(|&(x, _)| x))
    };
    let ys = || {
        p.series.iter().chain(&p.markers).flat_map(|s| {
            s.points
                .iter()
                .map(|&(_, y)| y)
                .chain(s.band.iter().flatten().map(|&(_, _, hi)| hi))
        })
    };
    let tx = |x: f64| if p.x_log2 { x.max(1.0).log2() } else { x };
    let (mut x0, mut x1) = xs()
        .map(tx)
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if x0 == x1 {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    }
    let y1 = ys().fold(0.0f64, f64::max).max(1e-6) * 1.08;
    let title = if p.markers.is_empty() {
        p.title.clone()
    } else {
        format!("{} (× = paper)", p.title)
    };
    // Differences (derived series, theory charts) can be negative: extend the axis below 0.
    let y0 = p
        .series
        .iter()
        .chain(&p.markers)
        .flat_map(|s| {
            s.points
                .iter()
                .map(|&(_, y)| y)
                .chain(s.band.iter().flatten().map(|&(_, lo, _)| lo))
        })
        .fold(0.0f64, f64::min)
        * 1.08;
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
            crate::units::format_bits(2f64.powf(x.round()).round() as u64)
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

/// Per label, the values seen at each x (keyed by the x's bits).
type LabelledPoints = Vec<(String, BTreeMap<u64, Vec<f64>>)>;
/// A named metric of a row.
type Metric<'a> = (&'a str, Box<dyn Fn(&RawRow) -> Option<f64>>);

/// Groups rows by `key`, then by label, averaging over seeds at each x.
pub fn series_by<K: Ord + Clone>(
    rows: &[&RawRow],
    key: impl Fn(&RawRow) -> K,
    x: impl Fn(&RawRow) -> f64,
    y: impl Fn(&RawRow) -> Option<f64>,
) -> BTreeMap<K, Vec<Series>> {
    let mut out: BTreeMap<K, LabelledPoints> = BTreeMap::new();
    for r in rows {
        let Some(v) = y(r) else { continue };
        let group = out.entry(key(r)).or_default();
        let idx = match group.iter().position(|(l, _)| *l == r.label) {
            Some(i) => i,
            None => {
                group.push((r.label.clone(), BTreeMap::new()));
                group.len() - 1
            }
        };
        group[idx]
            .1
            .entry(x(r).to_bits())
            .or_default()
            .push(v * 100.0);
    }
    out.into_iter()
        .map(|(k, groups)| {
            let series = groups
                .into_iter()
                .map(|(label, pts)| {
                    let mut points = Vec::new();
                    let mut band = Vec::new();
                    let mut multi = false;
                    let mut sorted: Vec<(f64, Vec<f64>)> = pts
                        .into_iter()
                        .map(|(x, v)| (f64::from_bits(x), v))
                        .collect();
                    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
                    for (x, vals) in sorted {
                        let (m, ci) = mean_ci(&vals);
                        multi |= vals.len() > 1;
                        points.push((x, m));
                        let ci = if ci.is_finite() { ci } else { 0.0 };
                        let lo = if m >= 0.0 { (m - ci).max(0.0) } else { m - ci };
                        band.push((x, lo, m + ci));
                    }
                    Series {
                        label,
                        points,
                        band: multi.then_some(band),
                    }
                })
                .collect();
            (k, series)
        })
        .collect()
}

/// Draws the charts an experiment asks for into `dir`.
pub fn draw(
    dir: &Path,
    experiment: &str,
    rows: &[RawRow],
    charts: &[ChartKind],
    reference: &[PaperValue],
) -> Result<Vec<PathBuf>> {
    let all: Vec<&RawRow> = rows.iter().collect();
    let finals: Vec<&RawRow> = {
        let mut last: BTreeMap<usize, &RawRow> = BTreeMap::new();
        for r in rows {
            let e = last.entry(r.cell).or_insert(r);
            if r.position >= e.position {
                *e = r;
            }
        }
        last.into_values().collect()
    };
    let paper_for = |r: &RawRow, metric: &str| {
        reference
            .iter()
            .find(|p| p.metric == metric && crate::table::reference_matches(p, r))
            .map(|p| p.value_pct / 100.0)
    };
    let mut written = Vec::new();
    for chart in charts {
        match chart {
            ChartKind::RatesVsLength | ChartKind::OccupancyVsLength => {
                let occupancy = *chart == ChartKind::OccupancyVsLength;
                let group = |r: &RawRow| (r.memory_nominal_bits, r.stream.clone());
                let metrics: Vec<Metric> = if occupancy {
                    vec![("occupancy", Box::new(|r: &RawRow| Some(r.occupancy)))]
                } else {
                    vec![
                        ("FPR", Box::new(|r: &RawRow| r.fpr)),
                        ("FNR", Box::new(|r: &RawRow| r.fnr)),
                    ]
                };
                let mut per_metric: Vec<BTreeMap<_, Vec<Series>>> = Vec::new();
                for (_, f) in &metrics {
                    per_metric.push(series_by(&all, group, |r| r.position as f64, f));
                }
                for (gi, key) in per_metric[0].keys().enumerate() {
                    let memory = crate::units::format_bits(key.0);
                    let panels: Vec<Panel> = metrics
                        .iter()
                        .zip(&per_metric)
                        .map(|((name, _), m)| {
                            let markers = if occupancy {
                                Vec::new()
                            } else {
                                finals
                                    .iter()
                                    .filter(|r| (r.memory_nominal_bits, r.stream.clone()) == *key)
                                    .filter_map(|r| {
                                        paper_for(r, &name.to_lowercase()).map(|v| Series {
                                            label: r.label.clone(),
                                            points: vec![(r.position as f64, v * 100.0)],
                                            band: None,
                                        })
                                    })
                                    .collect()
                            };
                            Panel {
                                title: format!("{name} vs stream length ({memory})"),
                                x_desc: "elements".into(),
                                y_desc: if occupancy {
                                    "occupancy (%)".into()
                                } else {
                                    format!("{name} (%)")
                                },
                                x_log2: false,
                                series: m.get(key).cloned().unwrap_or_default(),
                                markers,
                            }
                        })
                        .collect();
                    let base = dir.join(format!("{}-{memory}-{gi}", chart.as_str()));
                    written.extend(render(&base, &format!("{experiment}: {}", key.1), &panels)?);
                }
            }
            ChartKind::RatesVsParam(param) => {
                written.extend(crate::plot_extra::rates_vs_param(
                    dir, experiment, &finals, param, reference,
                )?);
            }
            ChartKind::OnesDifference => {
                written.extend(crate::plot_extra::ones_difference(dir, experiment, &all)?);
            }
            ChartKind::LoadVsLength => {
                written.extend(crate::plot_extra::load_vs_length(dir, experiment, &all)?);
            }
            ChartKind::FnDifference => {
                written.extend(crate::plot_extra::fn_difference(dir, experiment, &finals)?);
            }
            ChartKind::RatesVsMemory | ChartKind::RatesVsK => {
                let by_memory = *chart == ChartKind::RatesVsMemory;
                let x = |r: &RawRow| {
                    if by_memory {
                        r.memory_nominal_bits as f64
                    } else {
                        r.k.parse().unwrap_or(0.0)
                    }
                };
                let group = |r: &RawRow| {
                    if by_memory {
                        (r.stream.clone(), String::new())
                    } else {
                        (r.stream.clone(), r.memory.clone())
                    }
                };
                let mut relabelled: Vec<RawRow> = finals.iter().map(|r| (*r).clone()).collect();
                if !by_memory {
                    for r in &mut relabelled {
                        r.label = format!("{} {}", r.algorithm, r.memory);
                    }
                }
                let rel: Vec<&RawRow> = relabelled.iter().collect();
                let fpr = series_by(&rel, |r| group(r).0, x, |r| r.fpr);
                let fnr = series_by(&rel, |r| group(r).0, x, |r| r.fnr);
                for (gi, (stream, fpr_series)) in fpr.iter().enumerate() {
                    let markers = |metric: &str| -> Vec<Series> {
                        rel.iter()
                            .filter(|r| r.stream == *stream)
                            .filter_map(|r| {
                                paper_for(r, metric).map(|v| Series {
                                    label: r.label.clone(),
                                    points: vec![(x(r), v * 100.0)],
                                    band: None,
                                })
                            })
                            .collect()
                    };
                    let what = if by_memory { "memory" } else { "k" };
                    let panels = vec![
                        Panel {
                            title: format!("FPR vs {what}"),
                            x_desc: what.into(),
                            y_desc: "FPR (%)".into(),
                            x_log2: by_memory,
                            series: fpr_series.clone(),
                            markers: markers("fpr"),
                        },
                        Panel {
                            title: format!("FNR vs {what}"),
                            x_desc: what.into(),
                            y_desc: "FNR (%)".into(),
                            x_log2: by_memory,
                            series: fnr.get(stream).cloned().unwrap_or_default(),
                            markers: markers("fnr"),
                        },
                    ];
                    let base = dir.join(format!("{}-{gi}", chart.as_str()));
                    written.extend(render(&base, &format!("{experiment}: {stream}"), &panels)?);
                }
            }
        }
    }
    Ok(written)
}
