//! Paper-style tables: our final error rates beside the paper's, with the difference.
//!
//! The reference CSV has a `table` column, a `metric` column (`fpr` / `fnr` / `error`, the
//! last being FPR + FNR as the QHT paper prints it), a value column
//! (`value_pct`, in percent) and any of the matching columns `memory`, `algorithm`, `k`, `n`,
//! `distinct_pct`. A reference row matches a result when every matching column it fills
//! agrees with the result.

use crate::experiment::{Dim, TableLayout};
use crate::output::{RawRow, atomic_write};
use crate::units::parse_bits;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A transcribed paper value.
#[derive(Debug, Clone)]
pub struct PaperValue {
    pub metric: String,
    pub value_pct: f64,
    pub keys: Vec<(String, String)>,
}

/// Loads the rows of `table` from a reference CSV.
pub fn load_reference(path: &Path, table: &str) -> Result<Vec<PaperValue>> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let headers = r.headers()?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(t_col), Some(m_col)) = (col("table"), col("metric")) else {
        bail!("{}: needs `table` and `metric` columns", path.display());
    };
    let v_col = col("value_pct")
        .with_context(|| format!("{}: needs a `value_pct` column", path.display()))?;
    let keys: Vec<(usize, &str)> = ["memory", "algorithm", "k", "n", "distinct_pct"]
        .iter()
        .filter_map(|&k| col(k).map(|i| (i, k)))
        .collect();
    let mut out = Vec::new();
    for (line, rec) in r.records().enumerate() {
        let rec = rec.with_context(|| format!("{}: line {}", path.display(), line + 2))?;
        if rec.get(t_col) != Some(table) {
            continue;
        }
        let value_pct: f64 = rec
            .get(v_col)
            .unwrap_or("")
            .trim()
            .parse()
            .with_context(|| {
                format!(
                    "{}: line {}: field `value_pct` is not a number",
                    path.display(),
                    line + 2
                )
            })?;
        out.push(PaperValue {
            metric: rec.get(m_col).unwrap_or("").trim().to_lowercase(),
            value_pct,
            keys: keys
                .iter()
                .filter_map(|&(i, k)| {
                    rec.get(i)
                        .map(str::trim)
                        .filter(|v| !v.is_empty())
                        .map(|v| (k.to_string(), v.to_string()))
                })
                .collect(),
        });
    }
    Ok(out)
}

/// Whether a reference value applies to a result row.
pub fn reference_matches(p: &PaperValue, row: &RawRow) -> bool {
    p.keys.iter().all(|(k, v)| match k.as_str() {
        "memory" => parse_bits(v).is_ok_and(|b| b == row.memory_nominal_bits),
        "algorithm" => v.eq_ignore_ascii_case(&row.algorithm),
        "k" => v == &row.k,
        "n" => v.parse::<u64>().is_ok_and(|n| n == row.n_nominal),
        "distinct_pct" => match (v.parse::<f64>(), row.distinct_target) {
            (Ok(pct), Some(d)) => (pct - d * 100.0).abs() < 1e-6,
            _ => false,
        },
        _ => true,
    })
}

/// The match criterion of the reproduction: within 3 % relative or 0.05 percentage points,
/// whichever is larger.
pub fn within_tolerance(ours_pct: f64, paper_pct: f64) -> bool {
    (ours_pct - paper_pct).abs() <= (0.03 * paper_pct.abs()).max(0.05)
}

/// Two-sided 95 % Student-t quantile for `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if df == 0 {
        f64::NAN
    } else {
        T.get(df - 1).copied().unwrap_or(1.96)
    }
}

/// Mean and 95 % confidence half-width (NaN for a single value).
pub fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, t95(xs.len() - 1) * (var / n).sqrt())
}

/// One cell of `table.csv`.
#[derive(Debug, Clone, Serialize)]
pub struct TableCell {
    pub row: String,
    pub metric: String,
    pub column: String,
    pub ours_pct: f64,
    pub ours_ci95_pct: Option<f64>,
    pub seeds: usize,
    pub paper_pct: Option<f64>,
    pub diff_pp: Option<f64>,
    pub rel_diff: Option<f64>,
    pub within_tolerance: Option<bool>,
}

fn dim_value(d: Dim, r: &RawRow) -> (f64, String) {
    match d {
        Dim::Memory => (r.memory_nominal_bits as f64, r.memory.clone()),
        Dim::Algorithm => (0.0, r.label.clone()),
        Dim::K => (r.k.parse().unwrap_or(f64::MAX), format!("k={}", r.k)),
        Dim::Distinct => (
            r.distinct_target.unwrap_or(-1.0),
            r.distinct_target
                .map_or("-".into(), |d| format!("{}% distinct", d * 100.0)),
        ),
        Dim::N => (r.n_nominal as f64, format!("N={}", r.n_nominal)),
        Dim::Stream => (0.0, r.stream.clone()),
    }
}

/// A sort key: per dimension, the numeric value's bits and the label.
type DimKey = Vec<(u64, String)>;

/// Builds the table from the final rows of each cell.
pub fn build(rows: &[RawRow], layout: &TableLayout, reference: &[PaperValue]) -> Vec<TableCell> {
    // Final checkpoint of each cell.
    let mut finals: BTreeMap<usize, &RawRow> = BTreeMap::new();
    for r in rows {
        let e = finals.entry(r.cell).or_insert(r);
        if r.position >= e.position {
            *e = r;
        }
    }
    let finals: Vec<&RawRow> = finals.into_values().collect();
    // Row dimensions: the layout's, then any other dimension that varies (seeds are averaged).
    let mut row_dims = layout.rows.clone();
    for d in [
        Dim::Memory,
        Dim::Algorithm,
        Dim::K,
        Dim::Distinct,
        Dim::N,
        Dim::Stream,
    ] {
        if d == layout.columns || row_dims.contains(&d) {
            continue;
        }
        let first = finals.first().map(|r| dim_value(d, r).1);
        // k usually follows from the algorithm (its label): only split on it when it varies
        // within one label at one memory size.
        let k_within_label = || {
            let mut seen: BTreeMap<(&str, u64), &str> = BTreeMap::new();
            finals.iter().any(|r| {
                *seen
                    .entry((r.label.as_str(), r.memory_nominal_bits))
                    .or_insert(r.k.as_str())
                    != r.k.as_str()
            })
        };
        if finals.iter().any(|r| Some(dim_value(d, r).1) != first)
            && !(d == Dim::K
                && (row_dims.contains(&Dim::Algorithm) || layout.columns == Dim::Algorithm)
                && !k_within_label())
        {
            row_dims.push(d);
        }
    }
    // The stream label only needs its own dimension when distinct fraction and length do not
    // already tell the streams apart.
    if row_dims.contains(&Dim::Stream)
        && layout.columns != Dim::Stream
        && !layout.rows.contains(&Dim::Stream)
    {
        let count = |f: &dyn Fn(&RawRow) -> String| {
            finals
                .iter()
                .map(|r| f(r))
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        if count(&|r| r.stream.clone())
            <= count(&|r| format!("{:?}/{}", r.distinct_target, r.n_nominal))
        {
            row_dims.retain(|d| *d != Dim::Stream);
        }
    }
    let order_key = |dims: &[Dim], r: &RawRow| -> Vec<(u64, String)> {
        dims.iter()
            .map(|&d| {
                let (num, text) = dim_value(d, r);
                (
                    if num.is_finite() {
                        num.to_bits()
                    } else {
                        u64::MAX
                    },
                    text,
                )
            })
            .collect()
    };
    // Groups keyed by (row, column) with first-appearance ordering for text dimensions.
    let mut groups: Vec<((DimKey, DimKey), Vec<&RawRow>)> = Vec::new();
    for r in &finals {
        let key = (order_key(&row_dims, r), order_key(&[layout.columns], r));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    // Sort rows numerically where the dimension is numeric, keeping first appearance otherwise.
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
    let sort_key = |rk: &[(u64, String)], ck: &[(u64, String)]| {
        let mut k: Vec<(f64, usize)> = rk
            .iter()
            .enumerate()
            .map(|(i, (num, text))| {
                if *num == 0 {
                    (0.0, appearance(i, text, false))
                } else {
                    (f64::from_bits(*num), 0)
                }
            })
            .collect();
        let (num, text) = &ck[0];
        k.push(if *num == 0 {
            (0.0, appearance(0, text, true))
        } else {
            (f64::from_bits(*num), 0)
        });
        k
    };
    let mut sorted: Vec<_> = groups.iter().collect();
    sorted.sort_by(|a, b| {
        let ka = sort_key(&a.0.0, &a.0.1);
        let kb = sort_key(&b.0.0, &b.0.1);
        ka.partial_cmp(&kb).unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut out = Vec::new();
    // The error E = FPR + FNR (QHT paper, Section 6.1) is shown when the paper prints it.
    let mut metrics = vec!["fpr", "fnr"];
    if reference.iter().any(|p| p.metric == "error") {
        metrics.push("error");
    }
    for ((rk, ck), members) in sorted {
        for &metric in &metrics {
            let vals: Vec<f64> = members
                .iter()
                .filter_map(|r| metric_value(r, metric))
                .map(|v| v * 100.0)
                .collect();
            if vals.is_empty() {
                continue;
            }
            let (mean, ci) = mean_ci(&vals);
            let paper = reference
                .iter()
                .find(|p| p.metric == metric && reference_matches(p, members[0]))
                .map(|p| p.value_pct);
            out.push(TableCell {
                row: rk
                    .iter()
                    .map(|(_, t)| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" / "),
                metric: metric.to_string(),
                column: ck[0].1.clone(),
                ours_pct: mean,
                ours_ci95_pct: ci.is_finite().then_some(ci),
                seeds: vals.len(),
                paper_pct: paper,
                diff_pp: paper.map(|p| mean - p),
                rel_diff: paper.filter(|p| *p != 0.0).map(|p| (mean - p) / p),
                within_tolerance: paper.map(|p| within_tolerance(mean, p)),
            });
        }
    }
    out
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

fn fmt_pct(v: f64) -> String {
    format!("{v:.4}")
}

/// Renders the table as Markdown in the paper's layout.
pub fn markdown(title: &str, note: &str, layout: &TableLayout, cells: &[TableCell]) -> String {
    let mut columns: Vec<&str> = Vec::new();
    let mut rows: Vec<(&str, &str)> = Vec::new();
    for c in cells {
        if !columns.contains(&c.column.as_str()) {
            columns.push(&c.column);
        }
        if !rows.contains(&(c.row.as_str(), c.metric.as_str())) {
            rows.push((&c.row, &c.metric));
        }
    }
    let mut s = String::new();
    let _ = writeln!(s, "# {title}\n\n{note}\n");
    let has_paper = cells.iter().any(|c| c.paper_pct.is_some());
    if has_paper {
        let _ = writeln!(
            s,
            "Each cell: **ours** / paper (difference in percentage points); ✓ = within 3 % relative or 0.05 pp of the paper.\n"
        );
    } else {
        let _ = writeln!(
            s,
            "Each cell: **ours** (the paper prints no number for it).\n"
        );
    }
    let rows_head = layout
        .rows
        .iter()
        .map(|d| d.as_str())
        .collect::<Vec<_>>()
        .join(" / ");
    let _ = writeln!(s, "| {rows_head} | % | {} |", columns.join(" | "));
    let _ = writeln!(s, "|---|---|{}", "---|".repeat(columns.len()));
    for (row, metric) in &rows {
        let mut line = format!("| {row} | {} |", metric.to_uppercase());
        for col in &columns {
            let text = cells
                .iter()
                .find(|c| c.row == *row && c.metric == *metric && c.column == *col)
                .map(|c| {
                    let ours = match c.ours_ci95_pct {
                        Some(ci) => format!("**{}** ± {}", fmt_pct(c.ours_pct), fmt_pct(ci)),
                        None => format!("**{}**", fmt_pct(c.ours_pct)),
                    };
                    match (c.paper_pct, c.diff_pp, c.within_tolerance) {
                        (Some(p), Some(d), Some(ok)) => format!(
                            "{ours} / {} ({d:+.4}) {}",
                            fmt_pct(p),
                            if ok { "✓" } else { "✗" }
                        ),
                        _ => ours,
                    }
                })
                .unwrap_or_default();
            line.push_str(&format!(" {text} |"));
        }
        let _ = writeln!(s, "{line}");
    }
    let compared: Vec<&TableCell> = cells
        .iter()
        .filter(|c| c.within_tolerance.is_some())
        .collect();
    if !compared.is_empty() {
        let ok = compared
            .iter()
            .filter(|c| c.within_tolerance == Some(true))
            .count();
        let _ = writeln!(
            s,
            "\n{ok} of {} cells within tolerance of the paper.",
            compared.len()
        );
    }
    s
}

/// Writes `table.csv` and `table.md`.
pub fn write(
    dir: &Path,
    title: &str,
    note: &str,
    layout: &TableLayout,
    cells: &[TableCell],
) -> Result<String> {
    atomic_write(&dir.join("table.csv"), &crate::output::csv_bytes(cells)?)?;
    let md = markdown(title, note, layout, cells);
    atomic_write(&dir.join("table.md"), md.as_bytes())?;
    Ok(md)
}
