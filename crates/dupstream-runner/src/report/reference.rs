//! The paper's values: rows of a reference CSV, matched to result rows.
//!
//! The reference CSV has a `table` column, a `metric` column (`fpr` / `fnr` / `error`, the
//! last being FPR + FNR as the QHT paper prints it, or `us_per_element`), a value column
//! (`value_pct`, in percent) and any of the matching columns: the context `memory`,
//! `algorithm`, `n`, `distinct_pct`, and the structure parameters `k` and `param_<name>` (any
//! parameter of the structure, as in `raw.csv`'s `param_<name>` columns). A reference row
//! matches a result when every matching column it fills agrees with the result. A result that
//! agrees with a reference row on the context but not on a parameter the row names is not
//! scored against it: [`parameter_mismatch`] says which parameter differs, and the table
//! shows it instead of a score.

pub use crate::plan::validate::reference::PaperValue;

use crate::plan::Experiment;
use crate::plan::units::parse_bits;
use crate::plan::validate::reference::PARAM_PREFIX;
use crate::record::RawRow;
use anyhow::Result;
use std::path::Path;

impl PaperValue {
    /// Whether this value applies to a result row.
    pub fn matches(&self, row: &RawRow) -> bool {
        self.keys.iter().all(|(k, v)| key_matches(k, v, row))
    }

    /// Whether this value is about the result row's context (memory, structure, stream),
    /// whatever the structure's parameters.
    fn matches_context(&self, row: &RawRow) -> bool {
        self.keys
            .iter()
            .filter(|(k, _)| !is_parameter(k))
            .all(|(k, v)| key_matches(k, v, row))
    }

    /// The parameters this value names that the row does not share, as `name=value`.
    fn differing_parameters(&self, row: &RawRow) -> Vec<(String, String)> {
        self.keys
            .iter()
            .filter(|(k, v)| is_parameter(k) && !key_matches(k, v, row))
            .map(|(k, v)| {
                (
                    k.strip_prefix(PARAM_PREFIX).unwrap_or(k).to_string(),
                    v.clone(),
                )
            })
            .collect()
    }
}

fn is_parameter(key: &str) -> bool {
    key == "k" || key.starts_with(PARAM_PREFIX)
}

fn key_matches(key: &str, v: &str, row: &RawRow) -> bool {
    match key {
        "memory" => parse_bits(v).is_ok_and(|b| b == row.memory_nominal_bits),
        "algorithm" => v.eq_ignore_ascii_case(&row.algorithm),
        "k" => row.k.is_some_and(|k| k.to_string() == *v),
        "n" => v.parse::<u64>().is_ok_and(|n| n == row.n_nominal),
        "distinct_pct" => match (v.parse::<f64>(), row.distinct_target) {
            (Ok(pct), Some(d)) => (pct - d * 100.0).abs() < 1e-6,
            _ => false,
        },
        k => match k.strip_prefix(PARAM_PREFIX) {
            Some(name) => row.params.get(name).is_some_and(|ours| same_value(ours, v)),
            None => true,
        },
    }
}

/// Two parameter values are the same when their text is, or when both are numbers that are
/// equal (`4` and `4.0`).
fn same_value(a: &str, b: &str) -> bool {
    a.trim() == b.trim()
        || matches!((a.trim().parse::<f64>(), b.trim().parse::<f64>()), (Ok(x), Ok(y)) if x == y)
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

/// Why a row has no paper value of `metric` although the paper has one for its context: the
/// parameters it names that the row's structure does not share, e.g. `k=3 ≠ paper k=2`
/// (several candidate rows: `k=6 ≠ paper k=1, 2, 3`). `None` when the row is scored, or when
/// the paper has no value for its context at all.
pub fn parameter_mismatch(reference: &[PaperValue], metric: &str, row: &RawRow) -> Option<String> {
    if paper_value(reference, metric, row).is_some() {
        return None;
    }
    let near: Vec<&PaperValue> = reference
        .iter()
        .filter(|p| p.metric == metric && p.matches_context(row))
        .collect();
    let mut names: Vec<String> = Vec::new();
    for p in &near {
        for (name, _) in p.differing_parameters(row) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let parts: Vec<String> = names
        .iter()
        .map(|name| {
            let ours = if name == "k" {
                row.k.map(|k| k.to_string())
            } else {
                row.params.get(name).map(str::to_string)
            };
            let mut theirs: Vec<String> = Vec::new();
            for p in &near {
                for (n, v) in p.differing_parameters(row) {
                    if n == *name && !theirs.contains(&v) {
                        theirs.push(v);
                    }
                }
            }
            format!(
                "{name}={} ≠ paper {name}={}",
                ours.as_deref().unwrap_or("none"),
                theirs.join(", ")
            )
        })
        .collect();
    Some(parts.join("; "))
}

/// The paper's values of an experiment (none without a `[reference]`).
pub fn of(exp: &Experiment) -> Result<Vec<PaperValue>> {
    match &exp.reference {
        Some((path, name)) => load(path, name),
        None => Ok(Vec::new()),
    }
}

/// Loads the rows of `table` from a reference CSV (checked when the experiment was
/// validated: see [`crate::plan::validate::reference::load`]).
pub fn load(path: &Path, table: &str) -> Result<Vec<PaperValue>> {
    Ok(crate::plan::validate::reference::load(path, table)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Params;
    use crate::record::rows::test_row;

    /// A paper value of FPR matching on `keys`.
    fn p(keys: &[(&str, &str)]) -> PaperValue {
        PaperValue {
            metric: "fpr".into(),
            value_pct: 1.0,
            keys: keys
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn values_match_on_every_column_they_fill() {
        let r = test_row("SBF", 0, 0.1, 0.2);
        assert!(p(&[("memory", "1KB"), ("algorithm", "SBF"), ("k", "2")]).matches(&r));
        assert!(!p(&[("k", "3")]).matches(&r));
        assert!(!p(&[("memory", "2KB")]).matches(&r));
        assert!(p(&[("n", "1000")]).matches(&r));
        assert!(!p(&[("distinct_pct", "50")]).matches(&r));
        let mut no_k = r.clone();
        no_k.k = None;
        assert!(!p(&[("k", "2")]).matches(&no_k));
        // Any structure parameter, by its `param_` column; numbers compare as numbers.
        assert!(p(&[("param_fps", "0.10")]).matches(&r));
        assert!(!p(&[("param_fps", "0.2")]).matches(&r));
        assert!(
            !p(&[("param_max", "1")]).matches(&r),
            "a parameter the row lacks"
        );
    }

    #[test]
    fn a_row_whose_parameters_differ_is_not_scored_and_says_why() {
        let mut r = test_row("SBF", 0, 0.1, 0.2);
        r.k = Some(3);
        r.params = Params::parse("max=1;k=3;p=4");
        let paper = vec![p(&[
            ("algorithm", "sbf"),
            ("param_k", "2"),
            ("param_max", "1"),
        ])];
        assert!(paper_value(&paper, "fpr", &r).is_none());
        assert_eq!(
            parameter_mismatch(&paper, "fpr", &r).as_deref(),
            Some("k=3 ≠ paper k=2")
        );
        assert_eq!(
            parameter_mismatch(&paper, "fnr", &r),
            None,
            "no fnr value at all"
        );
        let several = vec![
            p(&[("algorithm", "sbf"), ("k", "1")]),
            p(&[("algorithm", "sbf"), ("k", "2")]),
            p(&[("algorithm", "bsbf"), ("k", "3")]),
        ];
        assert_eq!(
            parameter_mismatch(&several, "fpr", &r).as_deref(),
            Some("k=3 ≠ paper k=1, 2")
        );
        r.k = Some(2);
        r.params = Params::parse("max=1;k=2;p=4");
        assert!(paper_value(&paper, "fpr", &r).is_some());
        assert_eq!(parameter_mismatch(&paper, "fpr", &r), None);
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
        assert!(format!("{e:#}").contains(":4: key `value_pct`"), "{e:#}");
        let u = load(&path, "U").unwrap();
        assert_eq!(
            (u.len(), u[0].metric.as_str(), u[0].value_pct),
            (1, "fpr", 2.0)
        );
        let _ = std::fs::remove_file(&path);
    }
}
