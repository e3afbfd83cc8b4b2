//! The crate's typed error. Every message is one line and names the field, or the file and
//! line number, it is about.

use std::path::PathBuf;

use thiserror::Error;

/// Why a stream could not be validated, opened, read, or labelled.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A field of a [`StreamSpec`](crate::StreamSpec) is outside its valid range.
    #[error("invalid {stream} stream: `{field}` = {value}: {reason}")]
    InvalidSpec {
        /// The stream kind, as spelled in experiment files (`uniform`, `deng_b_model`, ...).
        stream: &'static str,
        /// The field, as spelled in experiment files.
        field: &'static str,
        /// The offending value, rendered.
        value: String,
        /// What the valid range is.
        reason: String,
    },
    /// The replay file could not be opened or read.
    #[error("{}{}: {source}", path.display(), line_suffix(*line))]
    Io {
        /// The replay file.
        path: PathBuf,
        /// The line being read when the error happened (1-based), if any.
        line: Option<u64>,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line of the replay file does not hold a key (reported under the `fail` policy).
    #[error("{}:{line}: {reason}", path.display())]
    Malformed {
        /// The replay file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong with it (names the column where relevant).
        reason: String,
    },
    /// The ground truth would need more memory than this platform can address.
    #[error("ground truth for {stream}: {reason}")]
    TooLarge {
        /// The stream, as [`StreamSpec::describe`](crate::StreamSpec::describe) renders it.
        stream: String,
        /// What is too large.
        reason: String,
    },
}

fn line_suffix(line: Option<u64>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

/// Shorthand for `Result<T, Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns `Err(InvalidSpec)` unless `ok`.
pub(crate) fn ensure(
    ok: bool,
    stream: &'static str,
    field: &'static str,
    value: impl std::fmt::Display,
    reason: &str,
) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidSpec {
            stream,
            field,
            value: value.to_string(),
            reason: reason.to_string(),
        })
    }
}
