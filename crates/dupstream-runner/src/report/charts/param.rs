//! `{ rates_vs_param = "x" }`: final FPR and FNR against any parameter (Singh & Batra Fig. 5
//! and 7: FN and FP against `m`, `f`, `k`, the FP target, the gap and `Max`). `x` is looked up
//! in the structure's parameters (e.g. `f`, `k`, `fps`, `max`), then in the stream's label
//! (e.g. `universe`, whose size sets the mean gap of a uniform stream), or is `memory` / `n`.
//! A series is a label with its own `x=value` part removed, so the default labels of a swept
//! parameter (`fpsbf f=4`) join into one line; a series without the parameter (SBF in a sweep
//! of FP-SBF's `f`) is drawn flat across the range, as the paper does.

use super::series::{Acc, slot, to_series};
use super::{Panel, Series, Target, XScale};
use crate::plan::ChartSpec;
use crate::record::RawRow;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The value of `param` for a row: `memory`, `n`, a structure parameter or a stream field.
pub fn param_value(r: &RawRow, param: &str) -> Option<f64> {
    match param {
        "memory" => return Some(r.memory_nominal_bits as f64),
        "n" => return Some(r.n_nominal as f64),
        _ => {}
    }
    r.params
        .number(param)
        .or_else(|| stream_field(&r.stream, param))
}

/// A numeric field of a stream label (`uniform n=100000 universe=4096`).
pub fn stream_field(label: &str, field: &str) -> Option<f64> {
    label.split(' ').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == field).then(|| v.parse::<f64>().ok())?
    })
}

/// Whether `param` is a field of the stream (so panels are not split by stream).
fn is_stream_param(rows: &[&RawRow], param: &str) -> bool {
    rows.iter().any(|r| {
        r.stream
            .split(' ')
            .any(|kv| kv.split_once('=').is_some_and(|(k, _)| k == param))
    })
}

/// A row's series label without its own `param=value` part.
pub fn series_label(label: &str, param: &str) -> String {
    let prefix = format!("{param}=");
    label
        .split(' ')
        .filter(|t| !t.starts_with(&prefix))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A label without any `key=value` part (`fpsbf c=3` → `fpsbf`).
fn base_label(label: &str) -> String {
    label
        .split(' ')
        .filter(|t| !t.contains('='))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The series labels for a sweep of `param`: the labels without any `key=value` part, so a
/// structure whose swept key has another name (FP-SBF's `c` for `Max = 2^c − 1`) joins into
/// one line; but if that would merge different cells at one point (two keys swept), only the
/// `param=value` part is removed.
fn series_labels(rows: &[&RawRow], param: &str) -> Vec<String> {
    let mut seen: BTreeMap<(String, u64, u64, u64), &str> = BTreeMap::new();
    let clash = rows.iter().any(|r| {
        let x = param_value(r, param).unwrap_or(f64::NAN).to_bits();
        let key = (base_label(&r.label), x, r.seed, r.memory_nominal_bits);
        let key = (format!("{}|{}", key.0, r.stream), key.1, key.2, key.3);
        *seen.entry(key).or_insert(r.label.as_str()) != r.label.as_str()
    });
    rows.iter()
        .map(|r| {
            if clash {
                series_label(&r.label, param)
            } else {
                base_label(&r.label)
            }
        })
        .collect()
}

/// The x axis of a parameter sweep: the values drawn (`2^value` with `x_pow2`), memory on a
/// log2 axis labelled in bytes, other ranges of 16× or more on a log2 axis labelled with the
/// values, integer parameters with integer ticks.
#[derive(Debug, Clone, Copy)]
struct Axis {
    lo: f64,
    hi: f64,
    pow2: bool,
    scale: XScale,
}

impl Axis {
    fn of(xs: &[f64], param: &str, pow2: bool) -> Self {
        let xs: Vec<f64> = xs
            .iter()
            .map(|&x| if pow2 { x.exp2() } else { x })
            .collect();
        let lo = xs.iter().copied().fold(f64::MAX, f64::min);
        let hi = xs.iter().copied().fold(f64::MIN, f64::max);
        let scale = if param == "memory" {
            XScale::Log2Bytes
        } else if lo > 0.0 && hi / lo >= 16.0 {
            XScale::Log2
        } else if xs.iter().all(|x| x.fract() == 0.0) {
            XScale::Integer
        } else {
            XScale::Linear
        };
        Self {
            lo,
            hi,
            pow2,
            scale,
        }
    }

    /// The x drawn for a parameter's value.
    fn x(&self, v: f64) -> f64 {
        if self.pow2 { v.exp2() } else { v }
    }
}

/// Draws the charts (see the module doc): one per stream, unless the parameter is a stream
/// field. `spec` may name the x quantity (`x_label`) and say it is 2^parameter (`x_pow2`).
pub fn draw(
    t: Target<'_>,
    finals: &[&RawRow],
    param: &str,
    spec: &ChartSpec,
) -> Result<Vec<PathBuf>> {
    let xs: Vec<f64> = finals
        .iter()
        .filter_map(|r| param_value(r, param))
        .collect();
    if xs.is_empty() {
        anyhow::bail!("rates_vs_param: no series has a parameter `{param}`");
    }
    let axis = Axis::of(&xs, param, spec.x_pow2);
    let x_desc = match (&spec.x_label, spec.x_pow2) {
        (Some(l), _) => l.clone(),
        (None, true) => format!("2^{param}"),
        (None, false) => param.to_string(),
    };
    let by_stream = !is_stream_param(finals, param);
    let mut groups: BTreeMap<String, Vec<&RawRow>> = BTreeMap::new();
    for r in finals {
        let g = if by_stream {
            r.stream.clone()
        } else {
            String::new()
        };
        groups.entry(g).or_default().push(r);
    }
    let mut written = Vec::new();
    for (gi, (stream, rows)) in groups.iter().enumerate() {
        let labels = series_labels(rows, param);
        let panels: Vec<Panel> = [("fpr", "FPR"), ("fnr", "FNR")]
            .into_iter()
            .map(|(metric, name)| panel(t, rows, &labels, (param, &x_desc), axis, (metric, name)))
            .collect();
        written.extend(t.render(
            &["rates_vs_param", param, &gi.to_string()],
            stream,
            rows,
            panels,
        )?);
    }
    Ok(written)
}

/// One metric's panel: a series per label, and the paper's values as markers.
fn panel(
    t: Target<'_>,
    rows: &[&RawRow],
    labels: &[String],
    (param, x_desc): (&str, &str),
    axis: Axis,
    (metric, name): (&str, &str),
) -> Panel {
    let mut accs: Vec<(String, Acc)> = Vec::new();
    for (r, label) in rows.iter().zip(labels) {
        let Some(v) = (if metric == "fpr" { r.fpr } else { r.fnr }) else {
            continue;
        };
        let x = param_value(r, param).map(|x| axis.x(x));
        slot(&mut accs, label).push(x, v * 100.0);
    }
    let series: Vec<Series> = accs
        .into_iter()
        .map(|(l, a)| to_series(l, &a, (axis.lo, axis.hi), false))
        .collect();
    let markers: Vec<Series> = rows
        .iter()
        .zip(labels)
        .filter_map(|(r, label)| {
            let x = param_value(r, param)?;
            let p = crate::report::reference::paper_value(t.reference, metric, r)?;
            Some(Series {
                label: label.clone(),
                points: vec![(axis.x(x), p.value_pct)],
                band: None,
            })
        })
        .collect();
    Panel {
        x_scale: axis.scale,
        series,
        markers,
        ..Panel::new(format!("{name} vs {x_desc}"), x_desc, format!("{name} (%)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Params;

    #[test]
    fn labels_and_parameters() {
        assert_eq!(series_label("fpsbf f=4 k=3", "f"), "fpsbf k=3");
        assert_eq!(series_label("SBF", "f"), "SBF");
        assert_eq!(base_label("fpsbf c=3 f=4"), "fpsbf");
        let mut r = crate::record::rows::test_row("SBF", 0, 0.1, 0.2);
        r.params = Params::parse("c=2;f=4;k=3");
        r.stream = "uniform n=100000 universe=4096".into();
        assert_eq!(param_value(&r, "f"), Some(4.0));
        assert_eq!(param_value(&r, "universe"), Some(4096.0));
        assert_eq!(param_value(&r, "memory"), Some(8192.0));
        assert_eq!(param_value(&r, "xi"), None);
    }
}
