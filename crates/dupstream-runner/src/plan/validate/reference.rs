//! `[reference]`: the paper's values, a CSV file relative to the experiment file. A copy of a
//! catalogue experiment made elsewhere keeps working: when the file is not beside the copy,
//! the catalogue's own (`experiments/` under the current directory, or the catalogue built into
//! the binary) is used, with a warning naming it.

use crate::plan::catalogue;
use crate::plan::error::{ConfigError, Source};
use crate::plan::schema::RawReference;
use crate::plan::units::parse_bits;
use std::path::{Path, PathBuf};

/// A resolved reference (file and table name), and a warning when the file was found in the
/// catalogue instead of beside the experiment file.
pub type Resolved = (Option<(PathBuf, String)>, Option<String>);

/// The resolved reference file and table name, and a warning when the file was found in the
/// catalogue instead of beside the experiment file (`name` is the experiment's `name`). A
/// reference found nowhere is refused, naming where it was looked for.
pub fn resolve(
    src: Source<'_>,
    name: &str,
    reference: Option<&RawReference>,
) -> Result<Resolved, ConfigError> {
    let Some(r) = reference else {
        return Ok((None, None));
    };
    let base = src.file.parent().unwrap_or(Path::new("."));
    let beside = base.join(&r.file);
    if beside.is_dir() {
        return Err(src.at_table_key(
            "reference",
            "file",
            format!(
                "{} is a directory; give the CSV file of the paper's values",
                beside.display()
            ),
        ));
    }
    let (path, warning) = if beside.is_file() {
        (beside, None)
    } else if let Some((original, path)) = catalogue_reference(src.file, name, r) {
        let w = format!(
            "{}: reference {} is not beside this file; using {}, the paper values of the catalogue's `{name}` ({}){}",
            src.file.display(),
            r.file,
            path.display(),
            original.display(),
            if path.exists() {
                ""
            } else {
                ", the catalogue built into dupstream"
            }
        );
        (path, Some(w))
    } else {
        return Err(src.at_table_key(
            "reference",
            "file",
            format!(
                "reference file {} does not exist, and no catalogue experiment named `{name}` holds it (looked under {CATALOGUE}/ and in the catalogue built into dupstream); copy it from the directory of the original experiment file, beside this one",
                beside.display(),
            ),
        ));
    };
    load(&path, &r.table).map_err(|e| match e.line {
        // The CSV itself is at fault: the error names the CSV's line and column.
        Some(_) => e,
        None => src.at_table_key("reference", "table", e.message),
    })?;
    Ok((Some((path, r.table.clone())), warning))
}

/// The catalogue directory under the current directory.
const CATALOGUE: &str = "experiments";

/// The catalogue's experiment files: those of `experiments/` under the current directory,
/// then those of the catalogue built into the binary (`plan::catalogue`) that are not on disk.
fn catalogue_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    toml_files(Path::new(CATALOGUE), &mut files);
    files.sort();
    files.extend(
        catalogue::embedded_experiments()
            .map(PathBuf::from)
            .filter(|p| !p.exists()),
    );
    files
}

/// The catalogue experiment named `name` with the same reference file name and table whose
/// reference file exists (not `file` itself): its path and the reference's, both under
/// `experiments/`.
fn catalogue_reference(file: &Path, name: &str, r: &RawReference) -> Option<(PathBuf, PathBuf)> {
    let own = file.canonicalize().ok();
    let wanted = Path::new(&r.file).file_name()?;
    for f in catalogue_files() {
        if f.exists() && f.canonicalize().ok() == own {
            continue;
        }
        let Ok(doc) = catalogue::read_to_string(&f)
            .map_err(|_| ())
            .and_then(|t| toml::from_str::<toml::Table>(&t).map_err(|_| ()))
        else {
            continue;
        };
        let theirs = doc.get("reference").and_then(|v| v.as_table());
        let (Some(their_file), Some(their_table)) = (
            theirs.and_then(|t| t.get("file")).and_then(|v| v.as_str()),
            theirs.and_then(|t| t.get("table")).and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let path = f.parent().unwrap_or(Path::new(".")).join(their_file);
        if doc.get("name").and_then(|v| v.as_str()) == Some(name)
            && their_table == r.table
            && Path::new(their_file).file_name() == Some(wanted)
            && catalogue::is_file(&path)
        {
            return Some((f, path));
        }
    }
    None
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") && p.is_file() {
            out.push(p);
        }
    }
}

/// A transcribed paper value.
#[derive(Debug, Clone)]
pub struct PaperValue {
    pub metric: String,
    pub value_pct: f64,
    pub keys: Vec<(String, String)>,
}

/// The prefix of a reference column naming a structure parameter (`param_max`, `param_p`).
pub const PARAM_PREFIX: &str = "param_";

/// The metrics a reference row may give.
pub const METRICS: [&str; 4] = ["fpr", "fnr", "error", "us_per_element"];

/// Loads and checks the rows of `table` from a reference CSV: every row of the table has a
/// known metric, a numeric value and well-formed matching columns, and the table has rows.
/// An error names the CSV file, line and column (no line when the table is absent).
pub fn load(path: &Path, table: &str) -> Result<Vec<PaperValue>, ConfigError> {
    let err = |line: Option<usize>, key: Option<&str>, msg: String| {
        ConfigError::new(path, line, key, msg)
    };
    let bytes = catalogue::read(path)
        .map_err(|e| err(None, None, format!("cannot read reference file: {e}")))?;
    let mut r = csv::Reader::from_reader(&bytes[..]);
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
    let keys = key_columns(&headers);
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
        let row_keys = row_keys(path, line, &keys, &rec)?;
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

/// The columns a value's context and structure parameters are read from: `memory`,
/// `algorithm`, `n`, `distinct_pct` and `k`, then any `param_<name>` column (matched against
/// the structure's parameter `<name>`).
fn key_columns(headers: &csv::StringRecord) -> Vec<(usize, &str)> {
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let mut keys: Vec<(usize, &str)> = ["memory", "algorithm", "n", "distinct_pct", "k"]
        .iter()
        .filter_map(|&k| col(k).map(|i| (i, k)))
        .collect();
    keys.extend(
        headers
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                h.trim().len() > PARAM_PREFIX.len() && h.trim().starts_with(PARAM_PREFIX)
            })
            .map(|(i, h)| (i, h.trim())),
    );
    keys
}

/// The keys a row of the reference CSV gives (`keys`: its key columns), each checked: an error
/// names the file, the row's `line` and the column.
fn row_keys(
    path: &Path,
    line: Option<usize>,
    keys: &[(usize, &str)],
    rec: &csv::StringRecord,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut row_keys = Vec::new();
    for &(i, k) in keys {
        let v = rec.get(i).unwrap_or("").trim();
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
            return Err(ConfigError::new(
                path,
                line,
                Some(k),
                format!("`{v}` is not a valid {k}"),
            ));
        }
        row_keys.push((k.to_string(), v.to_string()));
    }
    Ok(row_keys)
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
        let (path, table) = resolve(src, "exp", Some(&r("values.csv")))
            .unwrap()
            .0
            .unwrap();
        assert_eq!((path, table.as_str()), (dir.join("values.csv"), "T"));
        let e = resolve(src, "exp", Some(&r("missing.csv"))).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("file"), Some(2)));
        assert!(
            e.message.contains("no catalogue experiment named `exp`"),
            "{e}"
        );
        assert!(resolve(src, "exp", None).unwrap().0.is_none());
        // Bad rows are refused naming the CSV's line and column; a missing table, the key.
        for (csv, line, key) in [
            ("T,fpr,x\n", Some(3), Some("value_pct")),
            ("T,fpx,1\n", Some(3), Some("metric")),
        ] {
            let text = format!("table,metric,value_pct\nT,fpr,1\n{csv}");
            std::fs::write(dir.join("bad.csv"), text).unwrap();
            let e = resolve(src, "exp", Some(&r("bad.csv"))).unwrap_err();
            assert_eq!((e.line, e.key.as_deref()), (line, key), "{csv}");
            assert_eq!(e.file, dir.join("bad.csv"));
        }
        std::fs::write(
            dir.join("bad.csv"),
            "table,metric,value_pct,memory\nT,fpr,1,64XB\n",
        )
        .unwrap();
        let e = resolve(src, "exp", Some(&r("bad.csv"))).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(2), Some("memory")));
        // A table the file does not hold: the experiment's `table` key.
        let other = RawReference {
            file: "values.csv".into(),
            table: "Z".into(),
        };
        let text = "[reference]\nfile = \"values.csv\"\ntable = \"Z\"\n";
        let src = Source { file: &file, text };
        let e = resolve(src, "exp", Some(&other)).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(3), Some("table")), "{e}");
        assert!(e.message.contains("tables there: T"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
