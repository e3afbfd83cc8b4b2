//! `[reference]`: the paper's values, a CSV file relative to the experiment file.

use crate::plan::error::{ConfigError, Source};
use crate::plan::schema::RawReference;
use crate::plan::units::parse_bits;
use std::path::{Path, PathBuf};

/// The reference file (resolved against the experiment file's directory) and table name; the
/// file must exist.
pub fn resolve(
    src: Source<'_>,
    reference: Option<&RawReference>,
) -> Result<Option<(PathBuf, String)>, ConfigError> {
    let Some(r) = reference else {
        return Ok(None);
    };
    let base = src.file.parent().unwrap_or(Path::new("."));
    let path = base.join(&r.file);
    if !path.is_file() {
        return Err(src.at_table_key(
            "reference",
            "file",
            format!("reference file {} does not exist", path.display()),
        ));
    }
    load(&path, &r.table).map_err(|e| match e.line {
        // The CSV itself is at fault: the error names the CSV's line and column.
        Some(_) => e,
        None => src.at_table_key("reference", "table", e.message),
    })?;
    Ok(Some((path, r.table.clone())))
}

/// A transcribed paper value.
#[derive(Debug, Clone)]
pub struct PaperValue {
    pub metric: String,
    pub value_pct: f64,
    pub keys: Vec<(String, String)>,
}

/// The metrics a reference row may give.
pub const METRICS: [&str; 4] = ["fpr", "fnr", "error", "us_per_element"];

/// Loads and checks the rows of `table` from a reference CSV: every row of the table has a
/// known metric, a numeric value and well-formed matching columns, and the table has rows.
/// An error names the CSV file, line and column (no line when the table is absent).
pub fn load(path: &Path, table: &str) -> Result<Vec<PaperValue>, ConfigError> {
    let err = |line: Option<usize>, key: Option<&str>, msg: String| {
        ConfigError::new(path, line, key, msg)
    };
    let mut r = csv::Reader::from_path(path)
        .map_err(|e| err(None, None, format!("cannot read reference file: {e}")))?;
    let headers = r
        .headers()
        .map_err(|e| err(Some(1), None, e.to_string()))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(t_col), Some(m_col), Some(v_col)) = (col("table"), col("metric"), col("value_pct"))
    else {
        return Err(err(
            Some(1),
            None,
            "needs `table`, `metric` and `value_pct` columns".into(),
        ));
    };
    let keys: Vec<(usize, &str)> = ["memory", "algorithm", "k", "n", "distinct_pct"]
        .iter()
        .filter_map(|&k| col(k).map(|i| (i, k)))
        .collect();
    let mut out = Vec::new();
    let mut tables = std::collections::BTreeSet::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map(|p| p.line() as usize);
            err(line, None, format!("malformed row: {e}"))
        })?;
        let line = rec.position().map(|p| p.line() as usize);
        let name = rec.get(t_col).unwrap_or("").trim();
        tables.insert(name.to_string());
        if name != table {
            continue;
        }
        let field = |i: usize| rec.get(i).unwrap_or("").trim();
        let metric = field(m_col).to_lowercase();
        if !METRICS.contains(&metric.as_str()) {
            return Err(err(
                line,
                Some("metric"),
                format!(
                    "unknown metric `{}` (known: {})",
                    field(m_col),
                    METRICS.join(", ")
                ),
            ));
        }
        let value_pct: f64 = field(v_col)
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                err(
                    line,
                    Some("value_pct"),
                    format!("`{}` is not a number", field(v_col)),
                )
            })?;
        let mut row_keys = Vec::new();
        for &(i, k) in &keys {
            let v = field(i);
            if v.is_empty() {
                continue;
            }
            let ok = match k {
                "memory" => parse_bits(v).is_ok(),
                "k" | "n" => v.parse::<u64>().is_ok(),
                "distinct_pct" => v.parse::<f64>().is_ok_and(f64::is_finite),
                _ => true,
            };
            if !ok {
                return Err(err(line, Some(k), format!("`{v}` is not a valid {k}")));
            }
            row_keys.push((k.to_string(), v.to_string()));
        }
        out.push(PaperValue {
            metric,
            value_pct,
            keys: row_keys,
        });
    }
    if out.is_empty() {
        tables.remove("");
        return Err(err(
            None,
            None,
            format!(
                "reference table `{table}` has no rows in {} (tables there: {})",
                path.display(),
                tables.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_to_the_experiment_and_requires_the_file() {
        let dir = std::env::temp_dir().join(format!("dupstream-ref-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("values.csv"), "table,metric,value_pct\nT,fpr,1\n").unwrap();
        let file = dir.join("exp.toml");
        let text = "[reference]\nfile = \"values.csv\"\n";
        let src = Source { file: &file, text };
        let r = |f: &str| RawReference {
            file: f.into(),
            table: "T".into(),
        };
        let (path, table) = resolve(src, Some(&r("values.csv"))).unwrap().unwrap();
        assert_eq!((path, table.as_str()), (dir.join("values.csv"), "T"));
        let e = resolve(src, Some(&r("missing.csv"))).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("file"), Some(2)));
        assert!(resolve(src, None).unwrap().is_none());
        // Bad rows are refused naming the CSV's line and column; a missing table, the key.
        for (csv, line, key) in [
            ("T,fpr,x\n", Some(3), Some("value_pct")),
            ("T,fpx,1\n", Some(3), Some("metric")),
        ] {
            let text = format!("table,metric,value_pct\nT,fpr,1\n{csv}");
            std::fs::write(dir.join("bad.csv"), text).unwrap();
            let e = resolve(src, Some(&r("bad.csv"))).unwrap_err();
            assert_eq!((e.line, e.key.as_deref()), (line, key), "{csv}");
            assert_eq!(e.file, dir.join("bad.csv"));
        }
        std::fs::write(
            dir.join("bad.csv"),
            "table,metric,value_pct,memory\nT,fpr,1,64XB\n",
        )
        .unwrap();
        let e = resolve(src, Some(&r("bad.csv"))).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(2), Some("memory")));
        // A table the file does not hold: the experiment's `table` key.
        let other = RawReference {
            file: "values.csv".into(),
            table: "Z".into(),
        };
        let text = "[reference]\nfile = \"values.csv\"\ntable = \"Z\"\n";
        let src = Source { file: &file, text };
        let e = resolve(src, Some(&other)).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(3), Some("table")), "{e}");
        assert!(e.message.contains("tables there: T"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
