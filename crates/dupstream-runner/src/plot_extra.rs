//! Chart kinds for the experiment catalogue, drawn with [`crate::plot::render`]:
//!
//! - `{ rates_vs_param = "x" }`: final FPR and FNR against any parameter (Singh & Batra Fig. 5
//!   and 7: FN and FP against `m`, `f`, `k`, the FP target, the gap and `Max`). `x` is looked up
//!   in the structure's `params` (e.g. `f`, `k`, `fps`, `max`), then in the stream's label (e.g.
//!   `universe`, whose size sets the mean gap of a uniform stream), or is `memory` / `n`.
//!   A series is a label with its own `x=value` part removed, so the default labels of a swept
//!   parameter (`fpsbf f=4`) join into one line; a series without the parameter (SBF in a sweep
//!   of FP-SBF's `f`) is drawn flat across the range, as the paper does.
//! - `ones_difference`: the change in the number of ones (non-zero cells) between successive
//!   checkpoints (Bera et al. conference Fig. 6–7), from each checkpoint's occupancy.
//! - `load_vs_length`: the load (fraction of ones, i.e. of non-zero cells) against stream
//!   length (Bera et al. journal Fig. 11); structures reporting a zero fraction (SBF, FP-SBF)
//!   are converted (`1 − zero fraction`), others are drawn as they report.
//! - `fn_difference`: the FN rate of each `difference` series (`[[derived]]`) against memory
//!   (Deng & Rafiei Fig. 5: FPBuffering − SBF at several allowed FP rates).

use crate::output::RawRow;
use crate::plot::{Panel, Series, render};
use crate::table::{PaperValue, mean_ci};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The value of `param` for a row: `memory`, `n`, a structure parameter or a stream field.
pub fn param_value(r: &RawRow, param: &str) -> Option<f64> {
    match param {
        "memory" => return Some(r.memory_nominal_bits as f64),
        "n" => return Some(r.n_nominal as f64),
        _ => {}
    }
    let find = |text: &str, sep: char| {
        text.split(sep).find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k.trim() == param).then(|| v.trim().parse::<f64>().ok())?
        })
    };
    find(&r.params, ';').or_else(|| find(&r.stream, ' '))
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

#[derive(Default)]
struct Acc {
    by_x: BTreeMap<u64, Vec<f64>>,
    flat: Vec<f64>,
}

fn to_series(label: String, acc: &Acc, x_range: (f64, f64)) -> Series {
    let mut points = Vec::new();
    let mut band = Vec::new();
    let mut multi = false;
    let mut xs: Vec<(f64, &Vec<f64>)> = acc
        .by_x
        .iter()
        .map(|(x, v)| (f64::from_bits(*x), v))
        .collect();
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    if xs.is_empty() && !acc.flat.is_empty() {
        let (m, ci) = mean_ci(&acc.flat);
        multi = acc.flat.len() > 1;
        let ci = if ci.is_finite() { ci } else { 0.0 };
        for x in [x_range.0, x_range.1] {
            points.push((x, m));
            band.push((x, m - ci, m + ci));
        }
    }
    for (x, vals) in xs {
        let (m, ci) = mean_ci(vals);
        multi |= vals.len() > 1;
        let ci = if ci.is_finite() { ci } else { 0.0 };
        points.push((x, m));
        band.push((x, m - ci, m + ci));
    }
    Series {
        label,
        points,
        band: multi.then_some(band),
    }
}

/// `{ rates_vs_param = "x" }` (see the module doc).
pub fn rates_vs_param(
    dir: &Path,
    experiment: &str,
    finals: &[&RawRow],
    param: &str,
    reference: &[PaperValue],
) -> Result<Vec<PathBuf>> {
    let by_stream = !is_stream_param(finals, param);
    let xs: Vec<f64> = finals
        .iter()
        .filter_map(|r| param_value(r, param))
        .collect();
    if xs.is_empty() {
        anyhow::bail!("rates_vs_param: no series has a parameter `{param}`");
    }
    let lo = xs.iter().copied().fold(f64::MAX, f64::min);
    let hi = xs.iter().copied().fold(f64::MIN, f64::max);
    // Memory on a log2 axis labelled in bytes; other wide ranges on a log2 axis of the value.
    let log_memory = param == "memory";
    let log_other = !log_memory && lo > 0.0 && hi / lo >= 16.0;
    let tx = |x: f64| if log_other { x.log2() } else { x };
    let x_desc = if log_other {
        format!("log2 {param}")
    } else {
        param.to_string()
    };
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
        let mut panels = Vec::new();
        let labels = series_labels(rows, param);
        for (metric, name) in [("fpr", "FPR"), ("fnr", "FNR")] {
            let mut accs: Vec<(String, Acc)> = Vec::new();
            for (r, label) in rows.iter().zip(&labels) {
                let Some(v) = (if metric == "fpr" { r.fpr } else { r.fnr }) else {
                    continue;
                };
                let label = label.clone();
                let idx = match accs.iter().position(|(l, _)| *l == label) {
                    Some(i) => i,
                    None => {
                        accs.push((label, Acc::default()));
                        accs.len() - 1
                    }
                };
                match param_value(r, param) {
                    Some(x) => accs[idx]
                        .1
                        .by_x
                        .entry(tx(x).to_bits())
                        .or_default()
                        .push(v * 100.0),
                    None => accs[idx].1.flat.push(v * 100.0),
                }
            }
            let series: Vec<Series> = accs
                .into_iter()
                .map(|(l, a)| to_series(l, &a, (tx(lo), tx(hi))))
                .collect();
            let markers: Vec<Series> = rows
                .iter()
                .zip(&labels)
                .filter_map(|(r, label)| {
                    let x = param_value(r, param)?;
                    let p = reference
                        .iter()
                        .find(|p| p.metric == metric && crate::table::reference_matches(p, r))?;
                    Some(Series {
                        label: label.clone(),
                        points: vec![(tx(x), p.value_pct)],
                        band: None,
                    })
                })
                .collect();
            panels.push(Panel {
                title: format!("{name} vs {param}"),
                x_desc: x_desc.clone(),
                y_desc: format!("{name} (%)"),
                x_log2: log_memory,
                series,
                markers,
            });
        }
        let base = dir.join(format!("rates_vs_param-{param}-{gi}"));
        let title = if stream.is_empty() {
            experiment.to_string()
        } else {
            format!("{experiment}: {stream}")
        };
        written.extend(render(&base, &title, &panels)?);
    }
    Ok(written)
}

/// Fraction of non-zero cells a row's occupancy stands for.
fn load(r: &RawRow) -> f64 {
    match r.occupancy_kind.as_str() {
        "zero_fraction" => 1.0 - r.occupancy,
        _ => r.occupancy,
    }
}

/// Number of ones (non-zero cells, counted as bits) a row's occupancy stands for.
fn ones(r: &RawRow) -> f64 {
    load(r) * r.memory_bits_used as f64
}

/// `load_vs_length` (see the module doc).
pub fn load_vs_length(dir: &Path, experiment: &str, rows: &[&RawRow]) -> Result<Vec<PathBuf>> {
    let mut converted: Vec<RawRow> = rows.iter().map(|r| (*r).clone()).collect();
    for r in &mut converted {
        // series_by scales by 100: store the load as a fraction in `fpr`.
        r.fpr = Some(load(r));
    }
    let refs: Vec<&RawRow> = converted.iter().collect();
    let groups = crate::plot::series_by(
        &refs,
        |r| (r.memory_nominal_bits, r.stream.clone()),
        |r| r.position as f64,
        |r| r.fpr,
    );
    let mut written = Vec::new();
    for (gi, ((memory, stream), series)) in groups.into_iter().enumerate() {
        let mem = crate::units::format_bits(memory);
        let panel = Panel {
            title: format!("load vs stream length ({mem})"),
            x_desc: "elements".into(),
            y_desc: "load: ones / cells (%)".into(),
            x_log2: false,
            series,
            markers: Vec::new(),
        };
        let base = dir.join(format!("load_vs_length-{mem}-{gi}"));
        written.extend(render(&base, &format!("{experiment}: {stream}"), &[panel])?);
    }
    Ok(written)
}

/// `ones_difference` (see the module doc).
pub fn ones_difference(dir: &Path, experiment: &str, rows: &[&RawRow]) -> Result<Vec<PathBuf>> {
    // (memory, stream) → label → seed → [(position, ones)].
    type PerSeed = BTreeMap<u64, Vec<(u64, f64)>>;
    let mut groups: BTreeMap<(u64, String), Vec<(String, PerSeed)>> = BTreeMap::new();
    for r in rows {
        let g = groups
            .entry((r.memory_nominal_bits, r.stream.clone()))
            .or_default();
        let idx = match g.iter().position(|(l, _)| *l == r.label) {
            Some(i) => i,
            None => {
                g.push((r.label.clone(), BTreeMap::new()));
                g.len() - 1
            }
        };
        g[idx]
            .1
            .entry(r.seed)
            .or_default()
            .push((r.position, ones(r)));
    }
    let mut written = Vec::new();
    for (gi, ((memory, stream), labels)) in groups.iter().enumerate() {
        let mut series = Vec::new();
        for (label, seeds) in labels {
            let mut by_pos: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
            for pts in seeds.values() {
                let mut pts = pts.clone();
                pts.sort_by_key(|p| p.0);
                let mut prev = 0.0;
                for (pos, o) in pts {
                    by_pos.entry(pos).or_default().push(o - prev);
                    prev = o;
                }
            }
            let acc = Acc {
                by_x: by_pos
                    .into_iter()
                    .map(|(p, v)| ((p as f64).to_bits(), v))
                    .collect(),
                flat: Vec::new(),
            };
            series.push(to_series(label.clone(), &acc, (0.0, 0.0)));
        }
        let mem = crate::units::format_bits(*memory);
        let panel = Panel {
            title: format!("change in the number of ones between checkpoints ({mem})"),
            x_desc: "elements".into(),
            y_desc: "Δ ones".into(),
            x_log2: false,
            series,
            markers: Vec::new(),
        };
        let base = dir.join(format!("ones_difference-{mem}-{gi}"));
        written.extend(render(&base, &format!("{experiment}: {stream}"), &[panel])?);
    }
    Ok(written)
}

/// `fn_difference` (see the module doc).
pub fn fn_difference(dir: &Path, experiment: &str, finals: &[&RawRow]) -> Result<Vec<PathBuf>> {
    let diffs: Vec<&RawRow> = finals
        .iter()
        .copied()
        .filter(|r| r.algorithm == "difference")
        .collect();
    if diffs.is_empty() {
        anyhow::bail!("fn_difference: no `difference` series ([[derived]] kind = \"difference\")");
    }
    let fnr = crate::plot::series_by(
        &diffs,
        |r| r.stream.clone(),
        |r| r.memory_nominal_bits as f64,
        |r| r.fnr,
    );
    let mut written = Vec::new();
    for (gi, (stream, series)) in fnr.into_iter().enumerate() {
        let panel = Panel {
            title: "FN rate difference vs memory".into(),
            x_desc: "memory".into(),
            y_desc: "FN rate difference (percentage points)".into(),
            x_log2: true,
            series,
            markers: Vec::new(),
        };
        let base = dir.join(format!("fn_difference-{gi}"));
        written.extend(render(&base, &format!("{experiment}: {stream}"), &[panel])?);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_parameters() {
        assert_eq!(series_label("fpsbf f=4 k=3", "f"), "fpsbf k=3");
        assert_eq!(series_label("SBF", "f"), "SBF");
        assert_eq!(base_label("fpsbf c=3 f=4"), "fpsbf");
        let mut r = crate::derived::tests_row();
        r.params = "c=2;f=4;k=3".into();
        r.stream = "uniform n=100000 universe=4096".into();
        assert_eq!(param_value(&r, "f"), Some(4.0));
        assert_eq!(param_value(&r, "universe"), Some(4096.0));
        assert_eq!(param_value(&r, "memory"), Some(8192.0));
        assert_eq!(param_value(&r, "xi"), None);
        r.occupancy_kind = "zero_fraction".into();
        r.occupancy = 0.25;
        assert!((ones(&r) - 0.75 * 8192.0).abs() < 1e-9);
    }
}
