//! Errors in experiment files: one line naming the file, line and key; exit code 2.

use std::path::{Path, PathBuf};

/// A problem in an experiment file, found before any work starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The experiment file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The key (dotted path) at fault, when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl ConfigError {
    pub fn new(
        file: &Path,
        line: Option<usize>,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        let message: String = message.into();
        // Keep it to one line: the TOML crate's messages may span several.
        let message = message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        Self {
            file: file.to_path_buf(),
            line,
            key: key.map(str::to_string),
            message,
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

/// 1-based line number of byte offset `offset` in `src`.
pub fn line_of(src: &str, offset: usize) -> usize {
    src[..offset.min(src.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// The line on which `key = ` is written in the table that starts at `span.start` (a table's
/// span may cover only its header, so the search runs to the next table header); falls back
/// to the line of `span.start`.
pub fn line_of_key(src: &str, span: std::ops::Range<usize>, key: &str) -> usize {
    let start = span.start.min(src.len());
    let mut offset = start;
    let mut headers = 0;
    for l in src[start..].split_inclusive('\n') {
        let t = l.trim_start();
        if t.starts_with('[') {
            headers += 1;
            if headers > 1 {
                break;
            }
        } else if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                return line_of(src, offset);
            }
        }
        offset += l.len();
    }
    line_of(src, start)
}
