//! The paper's values: rows of a reference CSV, matched to result rows.
//!
//! The reference CSV has a `table` column, a `metric` column (`fpr` / `fnr` / `error`, the
//! last being FPR + FNR as the QHT paper prints it, or `us_per_element`), a value column
//! (`value_pct`, in percent) and any of the matching columns `memory`, `algorithm`, `k`, `n`,
//! `distinct_pct`. A reference row matches a result when every matching column it fills
//! agrees with the result.

use crate::plan::Experiment;
use crate::plan::units::parse_bits;
use crate::record::RawRow;
use anyhow::{Context, Result, bail};
use std::path::Path;

/// A transcribed paper value.
#[derive(Debug, Clone)]
pub struct PaperValue {
    pub metric: String,
    pub value_pct: f64,
    pub keys: Vec<(String, String)>,
}

impl PaperValue {
    /// Whether this value applies to a result row.
    pub fn matches(&self, row: &RawRow) -> bool {
        self.keys.iter().all(|(k, v)| match k.as_str() {
            "memory" => parse_bits(v).is_ok_and(|b| b == row.memory_nominal_bits),
            "algorithm" => v.eq_ignore_ascii_case(&row.algorithm),
            "k" => row.k.is_some_and(|k| k.to_string() == *v),
            "n" => v.parse::<u64>().is_ok_and(|n| n == row.n_nominal),
            "distinct_pct" => match (v.parse::<f64>(), row.distinct_target) {
                (Ok(pct), Some(d)) => (pct - d * 100.0).abs() < 1e-6,
                _ => false,
            },
            _ => true,
        })
    }
}

/// The paper's value of `metric` for a row, if the reference has one.
pub fn paper_value<'a>(
    reference: &'a [PaperValue],
    metric: &str,
    row: &RawRow,
) -> Option<&'a PaperValue> {
    reference
        .iter()
        .find(|p| p.metric == metric && p.matches(row))
}

/// The paper's values of an experiment (none without a `[reference]`).
pub fn of(exp: &Experiment) -> Result<Vec<PaperValue>> {
    match &exp.reference {
        Some((path, name)) => load(path, name),
        None => Ok(Vec::new()),
    }
}

/// Loads the rows of `table` from a reference CSV.
pub fn load(path: &Path, table: &str) -> Result<Vec<PaperValue>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row;

    #[test]
    fn values_match_on_every_column_they_fill() {
        let p = |keys: &[(&str, &str)]| PaperValue {
            metric: "fpr".into(),
            value_pct: 1.0,
            keys: keys
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let r = test_row("SBF", 0, 0.1, 0.2);
        assert!(p(&[("memory", "1KB"), ("algorithm", "SBF"), ("k", "2")]).matches(&r));
        assert!(!p(&[("k", "3")]).matches(&r));
        assert!(!p(&[("memory", "2KB")]).matches(&r));
        assert!(p(&[("n", "1000")]).matches(&r));
        assert!(!p(&[("distinct_pct", "50")]).matches(&r));
        let mut no_k = r.clone();
        no_k.k = None;
        assert!(!p(&[("k", "2")]).matches(&no_k));
    }

    #[test]
    fn loads_one_table_and_names_bad_values() {
        let path = std::env::temp_dir().join(format!("dupstream-refs-{}.csv", std::process::id()));
        std::fs::write(
            &path,
            "table,metric,value_pct,memory\nT,FPR,1.5,64MB\nU,fpr,2,64MB\nT,fnr,x,\n",
        )
        .unwrap();
        let e = load(&path, "T").unwrap_err();
        assert!(format!("{e:#}").contains("line 4"), "{e:#}");
        let u = load(&path, "U").unwrap();
        assert_eq!(
            (u.len(), u[0].metric.as_str(), u[0].value_pct),
            (1, "fpr", 2.0)
        );
        let _ = std::fs::remove_file(&path);
    }
}
