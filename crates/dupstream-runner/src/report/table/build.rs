//! Grouping the final rows into table cells: rows by the layout's dimensions (plus any other
//! that varies), columns by one dimension, seeds averaged.

use super::TableCell;
use crate::plan::{Dim, TableLayout};
use crate::record::RawRow;
use crate::report::reference::{PaperValue, paper_value, parameter_mismatch};
use crate::report::stats::{mean_ci, within_tolerance};
use std::collections::{BTreeMap, BTreeSet};

/// Per dimension, the numeric value's bits (`u64::MAX` when not finite) and the label.
type DimKey = Vec<(u64, String)>;
/// A group of final rows: its (row, column) key and members.
type Group<'a> = ((DimKey, DimKey), Vec<&'a RawRow>);

/// Every dimension a table may split on, in the order extra row dimensions are added.
const DIMS: [Dim; 6] = [
    Dim::Memory,
    Dim::Algorithm,
    Dim::K,
    Dim::Distinct,
    Dim::N,
    Dim::Stream,
];

/// Builds the table from the final rows of each cell.
pub fn build(rows: &[RawRow], layout: &TableLayout, reference: &[PaperValue]) -> Vec<TableCell> {
    let finals = RawRow::finals(rows);
    let row_dims = row_dims(&finals, layout);
    let split = swept_varies_within_label(&finals);
    let groups = groups(&finals, &row_dims, split, layout.columns);
    // The error E = FPR + FNR (QHT paper, Section 6.1) is shown when the paper prints it.
    let mut metrics = vec!["fpr", "fnr"];
    if reference.iter().any(|p| p.metric == "error") {
        metrics.push("error");
    }
    let mut out = Vec::new();
    for ((rk, ck), members) in sorted(&groups) {
        for &metric in &metrics {
            out.extend(cell(rk, ck, members, metric, reference));
        }
    }
    out
}

/// A dimension's numeric value (for ordering) and label of a row.
fn dim_value(d: Dim, r: &RawRow) -> (f64, String) {
    match d {
        Dim::Memory => (r.memory_nominal_bits as f64, r.memory.clone()),
        Dim::Algorithm => (0.0, r.label.clone()),
        // Rows without a K sort last.
        Dim::K => (
            r.k.map_or(f64::MAX, |k| k as f64),
            format!("k={}", r.k.map_or(String::new(), |k| k.to_string())),
        ),
        Dim::Distinct => (
            r.distinct_target.unwrap_or(-1.0),
            r.distinct_target
                .map_or("-".into(), |d| format!("{}% distinct", d * 100.0)),
        ),
        Dim::N => (r.n_nominal as f64, format!("N={}", r.n_nominal)),
        Dim::Stream => (0.0, r.stream.clone()),
    }
}

/// The row dimensions: the layout's, then any other dimension that varies (seeds are
/// averaged). K is added only when it varies within one label at one memory size (it usually
/// follows from the structure), and the stream label only when distinct fraction and length
/// do not already tell the streams apart.
fn row_dims(finals: &[&RawRow], layout: &TableLayout) -> Vec<Dim> {
    let mut dims = layout.rows.clone();
    for d in DIMS {
        if d == layout.columns || dims.contains(&d) {
            continue;
        }
        let first = finals.first().map(|r| dim_value(d, r).1);
        let varies = finals.iter().any(|r| Some(dim_value(d, r).1) != first);
        let by_label = dims.contains(&Dim::Algorithm) || layout.columns == Dim::Algorithm;
        if varies && !(d == Dim::K && by_label && !k_varies_within_label(finals)) {
            dims.push(d);
        }
    }
    if dims.contains(&Dim::Stream)
        && layout.columns != Dim::Stream
        && !layout.rows.contains(&Dim::Stream)
    {
        let count = |f: &dyn Fn(&RawRow) -> String| {
            finals.iter().map(|r| f(r)).collect::<BTreeSet<_>>().len()
        };
        if count(&|r| r.stream.clone())
            <= count(&|r| format!("{:?}/{}", r.distinct_target, r.n_nominal))
        {
            dims.retain(|d| *d != Dim::Stream);
        }
    }
    dims
}

/// Whether a label runs several configurations that differ in a swept parameter other than
/// `k` (which has its own dimension): those get a row each, never one averaged row.
fn swept_varies_within_label(finals: &[&RawRow]) -> bool {
    let mut seen: BTreeMap<(&str, u64), String> = BTreeMap::new();
    finals.iter().any(|r| {
        let other = swept_other_than_k(r);
        *seen
            .entry((r.label.as_str(), r.memory_nominal_bits))
            .or_insert_with(|| other.clone())
            != other
    })
}

/// The swept parameters of a row other than `k`, as `name=value` words.
fn swept_other_than_k(r: &RawRow) -> String {
    r.swept
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("k"))
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn k_varies_within_label(finals: &[&RawRow]) -> bool {
    let mut seen: BTreeMap<(&str, u64), Option<u64>> = BTreeMap::new();
    finals.iter().any(|r| {
        *seen
            .entry((r.label.as_str(), r.memory_nominal_bits))
            .or_insert(r.k)
            != r.k
    })
}

fn key(dims: &[Dim], r: &RawRow) -> DimKey {
    dims.iter()
        .map(|&d| {
            let (num, text) = dim_value(d, r);
            let bits = if num.is_finite() {
                num.to_bits()
            } else {
                u64::MAX
            };
            (bits, text)
        })
        .collect()
}

/// The final rows grouped by (row, column), in order of first appearance; with `split`, the
/// row key ends with the swept parameters other than `k`.
fn groups<'a>(finals: &[&'a RawRow], row_dims: &[Dim], split: bool, column: Dim) -> Vec<Group<'a>> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    for r in finals {
        let mut rk = key(row_dims, r);
        if split {
            rk.push((0, swept_other_than_k(r)));
        }
        let k = (rk, key(&[column], r));
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, v)) => v.push(r),
            None => groups.push((k, vec![r])),
        }
    }
    groups
}

/// The groups sorted numerically where a dimension is numeric, by first appearance otherwise.
fn sorted<'g, 'a>(groups: &'g [Group<'a>]) -> Vec<&'g Group<'a>> {
    let appearance = |dim_idx: usize, text: &str, col: bool| {
        groups
            .iter()
            .position(|((rk, ck), _)| {
                if col {
                    ck[0].1 == text
                } else {
                    rk[dim_idx].1 == text
                }
            })
            .unwrap_or(0)
    };
    let order = |i: usize, (num, text): &(u64, String), col: bool| {
        if *num == 0 {
            (0.0, appearance(i, text, col))
        } else {
            (f64::from_bits(*num), 0)
        }
    };
    let sort_key = |rk: &DimKey, ck: &DimKey| {
        let mut k: Vec<(f64, usize)> = rk
            .iter()
            .enumerate()
            .map(|(i, d)| order(i, d, false))
            .collect();
        k.push(order(0, &ck[0], true));
        k
    };
    let mut sorted: Vec<&Group<'a>> = groups.iter().collect();
    sorted.sort_by(|a, b| {
        let (ka, kb) = (sort_key(&a.0.0, &a.0.1), sort_key(&b.0.0, &b.0.1));
        ka.partial_cmp(&kb).unwrap_or(std::cmp::Ordering::Equal)
    });
    sorted
}

/// The table cell of one group and metric (none when no member has the metric).
fn cell(
    rk: &DimKey,
    ck: &DimKey,
    members: &[&RawRow],
    metric: &str,
    reference: &[PaperValue],
) -> Option<TableCell> {
    let vals: Vec<f64> = members
        .iter()
        .filter_map(|r| metric_value(r, metric))
        .map(|v| v * 100.0)
        .collect();
    if vals.is_empty() {
        return None;
    }
    let (mean, ci) = mean_ci(&vals);
    let paper = paper_value(reference, metric, members[0]).map(|p| p.value_pct);
    let paper_mismatch = parameter_mismatch(reference, metric, members[0]);
    /// A value every member shares, else `None`.
    fn shared<T: PartialEq>(members: &[&RawRow], f: impl Fn(&RawRow) -> Option<T>) -> Option<T> {
        let first = f(members[0])?;
        members[1..]
            .iter()
            .all(|r| f(r).as_ref() == Some(&first))
            .then_some(first)
    }
    Some(TableCell {
        row: rk
            .iter()
            .map(|(_, t)| t.as_str())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" / "),
        metric: metric.to_string(),
        column: ck[0].1.clone(),
        label: shared(members, |r| Some(r.label.clone())),
        config: shared(members, |r| Some(r.config().to_string())),
        memory_nominal_bits: shared(members, |r| Some(r.memory_nominal_bits)),
        k: shared(members, |r| r.k),
        distinct_target: shared(members, |r| r.distinct_target),
        n_nominal: shared(members, |r| Some(r.n_nominal)),
        stream: shared(members, |r| Some(r.stream.clone())),
        swept: shared(members, |r| Some(r.swept.to_string())),
        ours_pct: mean,
        ours_ci95_pct: ci.is_finite().then_some(ci),
        seeds: vals.len(),
        paper_pct: paper,
        paper_mismatch,
        diff_pp: paper.map(|p| mean - p),
        rel_diff: paper.filter(|p| *p != 0.0).map(|p| (mean - p) / p),
        within_tolerance: paper.map(|p| within_tolerance(mean, p)),
    })
}

/// A row's value of a metric: `fpr`, `fnr`, or `error` (FPR + FNR).
pub fn metric_value(r: &RawRow, metric: &str) -> Option<f64> {
    match metric {
        "fpr" => r.fpr,
        "fnr" => r.fnr,
        "error" => r.fpr.zip(r.fnr).map(|(a, b)| a + b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row;

    #[test]
    fn seeds_are_averaged_and_varying_dimensions_become_rows() {
        let mut rows = Vec::new();
        for (cell, (label, mem, seed, fpr)) in [
            ("SBF", 8192, 1, 0.10),
            ("SBF", 8192, 2, 0.20),
            ("BSBF", 8192, 1, 0.30),
            ("SBF", 16384, 1, 0.05),
        ]
        .into_iter()
        .enumerate()
        {
            let mut r = test_row(label, cell, fpr, 0.5);
            r.memory_nominal_bits = mem;
            r.memory = crate::plan::units::format_bits(mem);
            r.seed = seed;
            rows.push(r);
        }
        let cells = build(&rows, &TableLayout::default(), &[]);
        let fpr: Vec<(&str, &str, f64, usize)> = cells
            .iter()
            .filter(|c| c.metric == "fpr")
            .map(|c| (c.row.as_str(), c.column.as_str(), c.ours_pct, c.seeds))
            .collect();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert_eq!(fpr.len(), 3);
        assert_eq!((fpr[0].0, fpr[0].1, fpr[0].3), ("1KB", "SBF", 2));
        assert!(close(fpr[0].2, 15.0));
        assert_eq!((fpr[1].0, fpr[1].1), ("1KB", "BSBF"));
        assert_eq!((fpr[2].0, fpr[2].1), ("2KB", "SBF"));
        // K varies only across labels: no K rows.
        rows[2].k = Some(3);
        let cells = build(&rows, &TableLayout::default(), &[]);
        assert!(cells.iter().all(|c| !c.row.contains("k=")));
        // K varying within a label splits rows.
        rows[1].k = Some(4);
        let cells = build(&rows, &TableLayout::default(), &[]);
        assert!(cells.iter().any(|c| c.row.contains("k=4")));
    }
}
