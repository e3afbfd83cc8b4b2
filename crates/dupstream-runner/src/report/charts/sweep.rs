//! `rates_vs_memory` and `rates_vs_k`: final FPR and FNR against memory (log2 axis labelled in
//! bytes) or K, one chart per stream. Against memory, a series is a configuration
//! ([`RawRow::config`]). Against K, a series is a configuration without its `k` at one memory
//! size (`BSBF 64MB`), and structures without a K are left out.

use super::param::series_label;
use super::series::series_by;
use super::{Panel, Series, Target, XScale};
use crate::record::RawRow;
use anyhow::Result;
use std::path::PathBuf;

/// Draws the charts (see the module doc).
pub fn draw(t: Target<'_>, finals: &[&RawRow], by_memory: bool) -> Result<Vec<PathBuf>> {
    let (kind, what) = if by_memory {
        ("rates_vs_memory", "memory")
    } else {
        ("rates_vs_k", "K")
    };
    let x = move |r: &RawRow| {
        if by_memory {
            r.memory_nominal_bits as f64
        } else {
            r.k.map_or(f64::NAN, |k| k as f64)
        }
    };
    let mut relabelled: Vec<RawRow> = finals
        .iter()
        .filter(|r| by_memory || r.k.is_some())
        .map(|r| (*r).clone())
        .collect();
    if !by_memory {
        for r in &mut relabelled {
            r.label = format!("{} {}", series_label(&r.label, "k"), r.memory);
        }
    }
    if relabelled.is_empty() {
        return Ok(Vec::new());
    }
    let rel: Vec<&RawRow> = relabelled.iter().collect();
    let pct = |v: Option<f64>| v.map(|v| v * 100.0);
    let fpr = series_by(&rel, |r| r.stream.clone(), x, |r| pct(r.fpr));
    let fnr = series_by(&rel, |r| r.stream.clone(), x, |r| pct(r.fnr));
    let mut written = Vec::new();
    for (gi, (stream, fpr_series)) in fpr.iter().enumerate() {
        let markers = |metric: &str| -> Vec<Series> {
            rel.iter()
                .filter(|r| r.stream == *stream)
                .filter_map(|r| {
                    t.paper(r, metric).map(|v| Series {
                        label: r.label.clone(),
                        points: vec![(x(r), v * 100.0)],
                        band: None,
                    })
                })
                .collect()
        };
        let panel = |name: &str, metric: &str, series: Vec<Series>| Panel {
            x_scale: if by_memory {
                XScale::Log2Bytes
            } else {
                XScale::Integer
            },
            series,
            markers: markers(metric),
            ..Panel::new(
                format!("{name} vs {what}"),
                if by_memory { "memory (nominal)" } else { "K" },
                format!("{name} (%)"),
            )
        };
        let panels = vec![
            panel("FPR", "fpr", fpr_series.clone()),
            panel("FNR", "fnr", fnr.get(stream).cloned().unwrap_or_default()),
        ];
        let in_chart: Vec<&RawRow> = rel
            .iter()
            .copied()
            .filter(|r| r.stream == *stream)
            .collect();
        written.extend(t.render(&[kind, &gi.to_string()], stream, &in_chart, panels)?);
    }
    Ok(written)
}
