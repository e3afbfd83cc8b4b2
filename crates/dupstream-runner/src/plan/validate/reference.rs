//! `[reference]`: the paper's values, a CSV file relative to the experiment file.

use crate::plan::error::{ConfigError, Source};
use crate::plan::schema::RawReference;
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
        return Err(src.at_key(
            src.whole(),
            "file",
            format!("reference file {} does not exist", path.display()),
        ));
    }
    Ok(Some((path, r.table.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_to_the_experiment_and_requires_the_file() {
        let dir = std::env::temp_dir().join(format!("dupstream-ref-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("values.csv"), "table,metric,value_pct\n").unwrap();
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
