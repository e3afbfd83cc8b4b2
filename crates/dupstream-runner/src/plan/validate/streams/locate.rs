//! Where a stream's errors point: at `[stream]`'s keys, and for a tuning stream at the keys
//! `[tuning] stream` replaces.

use crate::plan::error::{ConfigError, Source, line_of_key};
use std::ops::Range;
use toml::Spanned;

/// Where a stream's errors point: at `[stream]`'s keys, and for a tuning stream at the keys
/// `[tuning] stream` replaces.
pub(super) struct Locate<'a> {
    pub(super) src: Source<'a>,
    pub(super) span: Range<usize>,
    pub(super) tuning: Option<&'a Spanned<toml::Table>>,
}

impl Locate<'_> {
    /// An error at `key`, its message prefixed with the table it is about.
    pub(super) fn at(&self, key: &str, msg: impl std::fmt::Display) -> ConfigError {
        match self.tuning {
            Some(t) if t.get_ref().contains_key(key) => {
                tuning_error(self.src, t, key, format!("[tuning] stream: {msg}"))
            }
            Some(_) => self.src.at_key(
                self.span.clone(),
                key,
                format!("[stream] with [tuning]'s fields: {msg}"),
            ),
            None => self.src.at_key(self.span.clone(), key, msg.to_string()),
        }
    }

    /// `msg` about `[stream]` as a whole: prefixed `[stream]{sep}` for an ordinary stream (a
    /// tuning stream's errors are prefixed by [`Locate::at`]).
    pub(super) fn about_stream(&self, sep: &str, msg: impl std::fmt::Display) -> String {
        match self.tuning {
            None => format!("[stream]{sep}{msg}"),
            Some(_) => msg.to_string(),
        }
    }
}

/// An error at `key` of `[tuning] stream` (its line when written on one, else the line of
/// `stream =`), named `tuning.stream.<key>`.
pub(super) fn tuning_error(
    src: Source<'_>,
    tuning: &Spanned<toml::Table>,
    key: &str,
    msg: String,
) -> ConfigError {
    let line = line_of_key(src.text, tuning.span(), key);
    ConfigError::new(
        src.file,
        Some(line),
        Some(&format!("tuning.stream.{key}")),
        msg,
    )
}
