//! Writing and reading result files. Every file is written to a temporary name in the same
//! directory, synced to disk and renamed into place, so an interruption (or a power loss)
//! never leaves a truncated file behind under the final name.
//!
//! A results directory may store its largest files gzip-compressed (`[output] compress`):
//! `raw.csv.gz` for `raw.csv`, and so on ([`COMPRESSIBLE`]). Every reader of a result file
//! goes through [`result_path`] (and [`read_result`], [`read_result_rows`],
//! [`read_result_json`], built on it), which finds either form, and every writer of one
//! through [`write_result`].

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The result files `[output] compress = true` stores gzip-compressed, as `<name>.gz`.
pub const COMPRESSIBLE: [&str; 3] = ["raw.csv", "cells.csv", "manifest.json"];

/// What a compressed result file's name adds to the plain one's.
pub const GZ: &str = ".gz";

/// The gzip level of compressed result files: fixed, so that the same bytes compress to the
/// same bytes.
const GZ_LEVEL: u32 = 9;

/// Where the result file `name` (`raw.csv`) of `dir` is stored: `dir/name`, else
/// `dir/name.gz`; `None` when neither is a file. The one place that decides which form a
/// reader reads.
pub fn result_path(dir: &Path, name: &str) -> Option<PathBuf> {
    let plain = dir.join(name);
    if plain.is_file() {
        return Some(plain);
    }
    let gz = dir.join(format!("{name}{GZ}"));
    gz.is_file().then_some(gz)
}

/// The bytes of the result file `name` of `dir`, decompressed when it is stored as
/// `name.gz` ([`result_path`]).
pub fn read_result(dir: &Path, name: &str) -> Result<Vec<u8>> {
    let path = result_path(dir, name)
        .with_context(|| format!("reading {}: no such file", dir.join(name).display()))?;
    let stored = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    if !path.to_string_lossy().ends_with(GZ) {
        return Ok(stored);
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(stored.as_slice())
        .read_to_end(&mut out)
        .with_context(|| format!("{}: not a whole gzip file", path.display()))?;
    Ok(out)
}

/// The rows of the CSV result file `name` of `dir`, plain or compressed.
pub fn read_result_rows<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> Result<Vec<T>> {
    let bytes = read_result(dir, name)?;
    rows_from(&bytes).with_context(|| format!("reading {}", dir.join(name).display()))
}

/// The JSON result file `name` of `dir`, plain or compressed.
pub fn read_result_json<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> Result<T> {
    let bytes = read_result(dir, name)?;
    serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: malformed", dir.join(name).display()))
}

/// `bytes` gzip-compressed, the same output for the same input on every machine: a fixed
/// level, no file name, no time stamp and no operating system in the header.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut enc = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), flate2::Compression::new(GZ_LEVEL));
    enc.write_all(bytes)?;
    Ok(enc.finish()?)
}

/// Writes the result file `name` of `dir` atomically, as `name.gz` ([`gzip`]) when
/// `compress`, else as `name`; the other form, if an earlier run left it, is removed after,
/// so that a reader never finds two.
pub fn write_result(dir: &Path, name: &str, bytes: &[u8], compress: bool) -> Result<()> {
    let (path, other) = (dir.join(name), dir.join(format!("{name}{GZ}")));
    let (path, other) = if compress {
        (other, path)
    } else {
        (path, other)
    };
    if compress {
        atomic_write(&path, &gzip(bytes)?)?;
    } else {
        atomic_write(&path, bytes)?;
    }
    match std::fs::remove_file(&other) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", other.display()))
        }
        _ => Ok(()),
    }
}

/// Whether the result file `name` of `dir` is stored compressed (`name.gz`, and no plain
/// `name` beside it).
pub fn is_compressed(dir: &Path, name: &str) -> bool {
    result_path(dir, name).is_some_and(|p| p.to_string_lossy().ends_with(GZ))
}

/// Writes `bytes` to `path` atomically (temporary file in the same directory, synced, then
/// renamed). A failed write removes its temporary file.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("writing {}", tmp.display()));
    }
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Syncs a directory, so that the renames into it are on disk.
pub fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("syncing {}", dir.display()))?;
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

/// Parses rows from CSV bytes (with a header); an error names the 1-based line.
pub fn rows_from<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<Vec<T>> {
    let mut r = csv::Reader::from_reader(bytes);
    let mut out = Vec::new();
    for (i, row) in r.deserialize().enumerate() {
        out.push(row.with_context(|| format!("line {}: malformed row", i + 2))?);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_file_reads_the_same_plain_or_compressed() {
        let dir = std::env::temp_dir().join(format!("dupstream-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = b"a,b\n".to_vec();
        text.extend(b"1,2\n".repeat(1000));
        assert!(result_path(&dir, "raw.csv").is_none());
        assert!(read_result(&dir, "raw.csv").is_err());
        write_result(&dir, "raw.csv", &text, false).unwrap();
        assert_eq!(read_result(&dir, "raw.csv").unwrap(), text);
        assert!(!is_compressed(&dir, "raw.csv"));
        write_result(&dir, "raw.csv", &text, true).unwrap();
        assert!(!dir.join("raw.csv").exists(), "the plain form is removed");
        assert!(is_compressed(&dir, "raw.csv"));
        assert_eq!(read_result(&dir, "raw.csv").unwrap(), text);
        let stored = std::fs::read(dir.join("raw.csv.gz")).unwrap();
        assert!(stored.len() < text.len() / 10, "{} bytes", stored.len());
        // Deterministic: no time stamp, no name, a fixed OS byte.
        assert_eq!(stored, gzip(&text).unwrap());
        assert_eq!(&stored[3..10], &[0, 0, 0, 0, 0, 2, 255]);
        let rows: Vec<(u32, u32)> = read_result_rows(&dir, "raw.csv").unwrap();
        assert_eq!(rows.len(), 1000);
        // A truncated file is an error, not fewer rows.
        std::fs::write(dir.join("raw.csv.gz"), &stored[..stored.len() - 9]).unwrap();
        assert!(read_result(&dir, "raw.csv").is_err());
        write_result(&dir, "manifest.json", b"{\"a\": 1}", true).unwrap();
        let v: serde_json::Value = read_result_json(&dir, "manifest.json").unwrap();
        assert_eq!(v["a"], 1);
        write_result(&dir, "manifest.json", b"{\"a\": 2}", false).unwrap();
        assert!(!dir.join("manifest.json.gz").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
