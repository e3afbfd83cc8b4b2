//! Writing and reading result files. Every file is written to a temporary name in the same
//! directory and renamed into place, so an interruption never leaves a truncated file behind.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Writes `bytes` to `path` atomically (temporary file in the same directory, then rename).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Writes an executable script atomically.
pub fn write_executable(path: &Path, text: &str) -> Result<()> {
    atomic_write(path, text.as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// Serialises rows as CSV with a header.
pub fn csv_bytes<T: Serialize>(rows: &[T]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))
}

/// Writes rows as CSV, atomically.
pub fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    atomic_write(path, &csv_bytes(rows)?)
}

/// Reads rows from a CSV file.
pub fn read_rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (i, row) in r.deserialize().enumerate() {
        out.push(
            row.with_context(|| format!("{}: line {}: malformed row", path.display(), i + 2))?,
        );
    }
    Ok(out)
}

/// Reads a JSON file.
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{}: malformed", path.display()))
}

/// Writes a value as pretty JSON, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    atomic_write(path, &serde_json::to_vec_pretty(value)?)
}
