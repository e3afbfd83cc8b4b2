//! Finding results directories: the one rule of what a finished run's directory is.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Whether `dir` is a finished results directory (its `raw.csv`, plain or compressed).
pub fn is_results_dir(dir: &Path) -> bool {
    crate::record::result_path(dir, "raw.csv").is_some()
}

/// The results directories under `root` (itself included), sorted; `cells/` directories
/// are not searched.
pub fn results_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
        if is_results_dir(dir) {
            out.push(dir.to_path_buf());
        }
        if depth == 0 {
            return Ok(());
        }
        for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let e = e?;
            let name = e.file_name();
            if e.file_type()?.is_dir()
                && name != "cells"
                && !name.to_string_lossy().starts_with('.')
            {
                walk(&e.path(), depth - 1, out)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, 4, &mut out)?;
    out.sort();
    Ok(out)
}
