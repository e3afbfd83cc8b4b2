//! Errors in experiment files: one line naming the file, line and key; exit code 2.

use std::ops::Range;
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
    /// The input data the file names (a replayed file) when that is what is missing: the
    /// file itself may be valid, and `check` and `estimate` skip it with a warning.
    pub missing_input: Option<PathBuf>,
}

impl ConfigError {
    /// An error in `file`, at `line` and `key` when known, kept to one line.
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
            missing_input: None,
        }
    }

    /// An error that names a command-line flag (`--scale: must be ...`).
    pub fn flag(flag: &str, message: impl Into<String>) -> Self {
        Self::new(Path::new(flag), None, None, message)
    }

    /// This error, marked as the input data `path` missing.
    pub fn missing(mut self, path: &Path) -> Self {
        self.missing_input = Some(path.to_path_buf());
        self
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

/// A refused argument or directory that is not an experiment file (a results directory of
/// another experiment, a missing or mismatched shard, a damaged part, a path that is not what
/// the command reads): one line, exit code 2, as for a bad experiment file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// A [`BadInput`] as an error to return.
pub fn refuse(message: impl Into<String>) -> anyhow::Error {
    BadInput(message.into()).into()
}

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
        } else if let Some(rest) = t.strip_prefix(key)
            && rest.trim_start().starts_with('=')
        {
            return line_of(src, offset);
        }
        offset += l.len();
    }
    line_of(src, start)
}

/// The experiment text under validation: every error it makes names the file, the line and
/// the key.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The experiment file.
    pub file: &'a Path,
    /// Its text.
    pub text: &'a str,
}

impl<'a> Source<'a> {
    /// The whole text (for keys of the top-level table).
    pub fn whole(&self) -> Range<usize> {
        0..self.text.len()
    }

    /// An error at `key = ` in the table that starts at `span.start`.
    pub fn at_key(&self, span: Range<usize>, key: &str, msg: impl Into<String>) -> ConfigError {
        let line = line_of_key(self.text, span, key);
        ConfigError::new(self.file, Some(line), Some(key), msg)
    }

    /// An error at `key = ` in the table headed `[table]` (or `[[table]]`, the first one);
    /// the line of the header when the key is not written there, line 1 when the table is
    /// not written at all.
    pub fn at_table_key(&self, table: &str, key: &str, msg: impl Into<String>) -> ConfigError {
        let mut offset = 0;
        for l in self.text.split_inclusive('\n') {
            let t = l.trim();
            let name = t
                .strip_prefix("[[")
                .and_then(|r| r.strip_suffix("]]"))
                .or_else(|| t.strip_prefix('[').and_then(|r| r.strip_suffix(']')));
            if name.map(str::trim) == Some(table) {
                return self.at_key(offset..offset + l.len(), key, msg);
            }
            offset += l.len();
        }
        self.at_key(self.whole(), key, msg)
    }

    /// An error on the line of byte `offset`, naming `key`.
    pub fn at_offset(&self, offset: usize, key: &str, msg: impl Into<String>) -> ConfigError {
        let line = line_of(self.text, offset);
        ConfigError::new(self.file, Some(line), Some(key), msg)
    }

    /// An error with no line, naming `key`.
    pub fn at(&self, key: &str, msg: impl Into<String>) -> ConfigError {
        ConfigError::new(self.file, None, Some(key), msg)
    }
}

/// The field named by a serde "unknown field `x`" or "missing field `x`" message.
pub fn unknown_field(msg: &str) -> Option<String> {
    for marker in ["unknown field `", "missing field `", "unknown variant `"] {
        if let Some(rest) = msg.split(marker).nth(1) {
            return rest.split('`').next().map(str::to_string);
        }
    }
    None
}

/// The first of `keys` that `msg` names as a whole word (longest keys tried first, so `fps`
/// wins over `f`), to point an error at the value's own line.
pub fn mentioned_key<'k>(msg: &str, keys: impl IntoIterator<Item = &'k String>) -> Option<String> {
    let mut keys: Vec<&String> = keys.into_iter().collect();
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    keys.into_iter()
        .find(|k| {
            msg.match_indices(k.as_str()).any(|(i, _)| {
                !msg[..i].chars().next_back().is_some_and(word)
                    && !msg[i + k.len()..].chars().next().is_some_and(word)
            })
        })
        .cloned()
}

/// The key of `table` a deserialisation error is about, when its message names no key (serde's
/// "invalid type: string \"one\", expected u32" names none): for `unknown variant `x``, the
/// key whose value is `x`; else the first key, in the order of `lines` (the line each key is
/// written on), whose removal changes the error (a value of the wrong type or out of range
/// fails, a default or a "missing field" takes its place). `parse` is the deserialisation
/// that failed with `message`; keys in `skip` (a structure's `name`, a stream's `kind`) are
/// blamed only for an unknown variant.
pub fn culprit_key(
    table: &toml::Table,
    message: &str,
    skip: &[&str],
    line: impl Fn(&str) -> usize,
    parse: impl Fn(toml::Table) -> Result<(), String>,
) -> Option<String> {
    let mut keys: Vec<&String> = table.keys().collect();
    keys.sort_by_key(|k| line(k));
    if let Some(variant) = message
        .split("unknown variant `")
        .nth(1)
        .and_then(|r| r.split('`').next())
    {
        let holds = |v: &toml::Value| match v {
            toml::Value::String(s) => s == variant,
            toml::Value::Array(a) => a.iter().any(|x| x.as_str() == Some(variant)),
            _ => false,
        };
        return keys
            .into_iter()
            .find(|k| holds(&table[k.as_str()]))
            .cloned();
    }
    keys.into_iter()
        .filter(|k| !skip.contains(&k.as_str()))
        .find(|k| {
            let mut t = table.clone();
            t.remove(k.as_str());
            parse(t).err().as_deref() != Some(message)
        })
        .cloned()
}

/// The key written at the start of the line a span begins on.
pub fn key_at(source: &str, span: Option<Range<usize>>) -> Option<String> {
    let span = span?;
    let line_start = source[..span.start.min(source.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = source[line_start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    Some(key.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_keys() {
        let text = "name = \"x\"\n[grid]\nmemory = [\"1KB\"]\n[run]\nscale = 2\n";
        assert_eq!(line_of(text, 0), 1);
        let grid = text.find("[grid]").unwrap();
        assert_eq!(line_of_key(text, grid..grid + 6, "memory"), 3);
        // The search stops at the next table: `scale` is not in [grid].
        assert_eq!(line_of_key(text, grid..grid + 6, "scale"), 2);
        let src = Source {
            file: Path::new("f.toml"),
            text,
        };
        let e = src.at_key(src.whole(), "name", "bad");
        assert_eq!(e.to_string(), "f.toml:1: key `name`: bad");
        assert_eq!(src.at_table_key("grid", "memory", "x").line, Some(3));
        assert_eq!(src.at_table_key("run", "scale", "x").line, Some(5));
        assert_eq!(src.at_table_key("run", "seeds", "x").line, Some(4));
        let keys = ["f".to_string(), "fps".to_string(), "k".to_string()];
        assert_eq!(
            mentioned_key("fps must be below 1", &keys),
            Some("fps".into())
        );
        assert_eq!(
            mentioned_key("`k` = 0 is too small", &keys),
            Some("k".into())
        );
        assert_eq!(mentioned_key("kinds of fun", &keys), None);
        assert_eq!(
            unknown_field("unknown field `foo`, expected"),
            Some("foo".into())
        );
        assert_eq!(
            key_at(text, Some(grid + 7..grid + 8)),
            Some("memory".into())
        );
    }
}
