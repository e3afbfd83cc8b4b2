//! `rates_vs_length` and `occupancy_vs_length`: FPR and FNR (or occupancy) against stream
//! length, one chart per memory size and stream, with the paper's final values as markers.

use super::series::series_by;
use super::{Panel, Series, Target};
use crate::plan::units::format_bits;
use crate::record::RawRow;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A named metric of a row.
type Metric<'a> = (&'a str, fn(&RawRow) -> Option<f64>);

/// Draws the charts (see the module doc).
pub fn draw(
    t: Target<'_>,
    all: &[&RawRow],
    finals: &[&RawRow],
    occupancy: bool,
) -> Result<Vec<PathBuf>> {
    let kind = if occupancy {
        "occupancy_vs_length"
    } else {
        "rates_vs_length"
    };
    let group = |r: &RawRow| (r.memory_nominal_bits, r.stream.clone());
    let metrics: Vec<Metric> = if occupancy {
        vec![("occupancy", |r| Some(r.occupancy))]
    } else {
        vec![("FPR", |r| r.fpr), ("FNR", |r| r.fnr)]
    };
    let per_metric: Vec<BTreeMap<_, Vec<Series>>> = metrics
        .iter()
        .map(|(_, f)| series_by(all, group, |r| r.position as f64, f))
        .collect();
    let mut written = Vec::new();
    for (gi, key) in per_metric[0].keys().enumerate() {
        let memory = format_bits(key.0);
        let panels: Vec<Panel> = metrics
            .iter()
            .zip(&per_metric)
            .map(|((name, _), m)| Panel {
                title: format!("{name} vs stream length ({memory})"),
                x_desc: "elements".into(),
                y_desc: if occupancy {
                    "occupancy (%)".into()
                } else {
                    format!("{name} (%)")
                },
                x_log2: false,
                series: m.get(key).cloned().unwrap_or_default(),
                markers: if occupancy {
                    Vec::new()
                } else {
                    markers(t, finals, key, &name.to_lowercase())
                },
            })
            .collect();
        written.extend(t.render(&format!("{kind}-{memory}-{gi}"), &key.1, &panels)?);
    }
    Ok(written)
}

/// The paper's final values for the rows of one chart, at the stream's end.
fn markers(t: Target<'_>, finals: &[&RawRow], key: &(u64, String), metric: &str) -> Vec<Series> {
    finals
        .iter()
        .filter(|r| (r.memory_nominal_bits, r.stream.clone()) == *key)
        .filter_map(|r| {
            t.paper(r, metric).map(|v| Series {
                label: r.label.clone(),
                points: vec![(r.position as f64, v * 100.0)],
                band: None,
            })
        })
        .collect()
}
