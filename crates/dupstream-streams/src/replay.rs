//! Replay of a real stream from a file.
//!
//! The file is streamed line by line (never loaded whole), from plain text or gzip; gzip is
//! recognised by its magic bytes `1f 8b`, not by the file name, and concatenated gzip members
//! are read as one stream. Line terminators `\n` and `\r\n` are both accepted.
//!
//! Each key becomes a 64-bit **fingerprint**: XXH3-64 (`XXH3_64bits_withSeed`) of the key's
//! bytes, seeded with the spec's `fingerprint_seed` ([`fingerprint`]). Deng & Rafiei used Rabin
//! fingerprints of the URLs; XXH3 plays the same role (a 64-bit digest whose collisions are
//! negligible at these stream sizes: about `D²/2^65` pairs for `D` distinct keys) and is
//! platform-stable.
//!
//! Formats ([`ReplayFormat`]):
//! - `lines`: the whole line is the key (one URL per line).
//! - `tsv`: tab-separated fields, no quoting. `column` picks the key field.
//! - `csv`: comma-separated fields, RFC 4180 quoting (`"a,b"` and `""` inside quotes); a quoted
//!   field may not span lines (that line is malformed).
//! - `clf`: Common Log Format, `host ident user [date] "METHOD url PROTOCOL" status bytes`; the
//!   key is the URL, the second word of the quoted request (the protocol may be missing, as in
//!   HTTP/0.9 requests).
//!
//! `offset` skips the first keys of the file and `limit` stops after as many keys: the
//! stream is keys `offset + 1 ..= offset + limit` of the file, counted after the bad-line
//! policy (a skipped line is not a key). An offset that leaves no key is an error at the first
//! read. With the file's own times ([`ReplayStream::timed`]), the times of the skipped keys are
//! skipped with them: the first element's time is that of key `offset + 1`.
//!
//! `column` is a header name (needs `header = true`) or a 0-based field index; `tsv` and `csv`
//! default to field 0. With `header = true` the first line is a header and is not a key (for
//! any format). A line with no key (too few fields, an empty key, an unparsable request, an
//! unterminated quote) is malformed: under [`BadLinePolicy::Fail`] reading stops with an error
//! naming the file and the line; under [`BadLinePolicy::Skip`] it is counted
//! ([`KeyStream::skipped_lines`]), the first [`SKIPPED_LINES_KEPT`] line numbers are kept
//! ([`KeyStream::first_skipped_lines`]), and it is skipped.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::{Error, KeyStream, Result};

/// The fingerprint of a replayed key: XXH3-64 of its bytes with `seed`.
#[inline]
pub fn fingerprint(key: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(key, seed)
}

/// How a replay file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayFormat {
    /// One key per line.
    Lines,
    /// Tab-separated values.
    Tsv,
    /// Comma-separated values (RFC 4180 quoting within a line).
    Csv,
    /// Common Log Format web-server log; the key is the request's URL.
    Clf,
}

impl ReplayFormat {
    /// Stable name, as in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lines => "lines",
            Self::Tsv => "tsv",
            Self::Csv => "csv",
            Self::Clf => "clf",
        }
    }

    fn has_columns(self) -> bool {
        matches!(self, Self::Tsv | Self::Csv)
    }
}

/// What to do with a line that holds no key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BadLinePolicy {
    /// Skip it and count it.
    Skip,
    /// Stop with an error naming the file and line (the default).
    #[default]
    Fail,
}

impl BadLinePolicy {
    /// Stable name, as in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Skip => "skip",
            Self::Fail => "fail",
        }
    }
}

const READ_BUFFER: usize = 1 << 18;

/// How many skipped line numbers a replay keeps (the first ones), for reports.
pub const SKIPPED_LINES_KEPT: usize = 5;

/// Opens `path`, decompressing if it starts with the gzip magic bytes.
fn open_reader(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        line: None,
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut magic = Vec::with_capacity(2);
    (&mut file).take(2).read_to_end(&mut magic).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let file = BufReader::with_capacity(READ_BUFFER, file);
    if magic == [0x1f, 0x8b] {
        Ok(Box::new(BufReader::with_capacity(
            READ_BUFFER,
            MultiGzDecoder::new(file),
        )))
    } else {
        Ok(Box::new(file))
    }
}

fn strip_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Field `idx` of a tab-separated line.
fn tsv_field(line: &[u8], idx: usize) -> std::result::Result<&[u8], usize> {
    let mut fields = line.split(|&c| c == b'\t');
    match fields.nth(idx) {
        Some(f) => Ok(f),
        None => Err(line.split(|&c| c == b'\t').count()),
    }
}

/// Splits a CSV line into fields (RFC 4180 quoting), calling `f(index, bytes)` for each until it
/// returns true. Quoted fields are unescaped into `scratch`. Returns the number of fields, or an
/// error for an unterminated quote.
fn csv_fields<'a>(
    line: &'a [u8],
    scratch: &'a mut Vec<u8>,
    want: usize,
) -> std::result::Result<Option<&'a [u8]>, String> {
    let mut i = 0;
    let mut idx = 0;
    loop {
        if line.get(i) == Some(&b'"') {
            // Quoted field.
            let begin = scratch.len();
            i += 1;
            loop {
                match line.get(i) {
                    None => return Err(format!("field {idx}: unterminated quote")),
                    Some(b'"') if line.get(i + 1) == Some(&b'"') => {
                        scratch.push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(&c) => {
                        scratch.push(c);
                        i += 1;
                    }
                }
            }
            match line.get(i) {
                None | Some(b',') => {}
                Some(_) => return Err(format!("field {idx}: text after closing quote")),
            }
            if idx == want {
                return Ok(Some(&scratch[begin..]));
            }
        } else {
            let end = line[i..]
                .iter()
                .position(|&c| c == b',')
                .map_or(line.len(), |p| i + p);
            if idx == want {
                return Ok(Some(&line[i..end]));
            }
            i = end;
        }
        if i >= line.len() {
            return Ok(None);
        }
        i += 1; // the comma
        idx += 1;
    }
}

/// Number of fields of a CSV line (for error messages and header parsing).
fn csv_all_fields(line: &[u8]) -> std::result::Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    loop {
        let mut scratch = Vec::new();
        match csv_fields(line, &mut scratch, out.len())? {
            Some(f) => out.push(f.to_vec()),
            None => return Ok(out),
        }
    }
}

/// The URL of a Common Log Format line: second word of the first quoted string.
fn clf_url(line: &[u8]) -> std::result::Result<&[u8], &'static str> {
    let open = line
        .iter()
        .position(|&c| c == b'"')
        .ok_or("no quoted request")?;
    let rest = &line[open + 1..];
    let close = rest
        .iter()
        .position(|&c| c == b'"')
        .ok_or("unterminated quoted request")?;
    let mut words = rest[..close]
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty());
    let _method = words.next().ok_or("empty request")?;
    words.next().ok_or("request has no URL")
}

/// Resolves `column` against a header line, for the formats with columns.
fn resolve_column(
    path: &Path,
    format: ReplayFormat,
    column: Option<&str>,
    header: Option<&[u8]>,
) -> Result<usize> {
    let Some(col) = column else { return Ok(0) };
    if let Some(h) = header {
        let names: Vec<Vec<u8>> = match format {
            ReplayFormat::Csv => csv_all_fields(h).map_err(|e| Error::Malformed {
                path: path.to_path_buf(),
                line: 1,
                reason: format!("header: {e}"),
            })?,
            _ => h.split(|&c| c == b'\t').map(<[u8]>::to_vec).collect(),
        };
        if let Some(i) = names.iter().position(|n| n == col.as_bytes()) {
            return Ok(i);
        }
        if let Ok(i) = col.parse::<usize>() {
            return Ok(i);
        }
        let list: Vec<String> = names
            .iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        return Err(Error::Malformed {
            path: path.to_path_buf(),
            line: 1,
            reason: format!(
                "column `{col}` not in header (columns: {})",
                list.join(", ")
            ),
        });
    }
    col.parse::<usize>().map_err(|_| Error::InvalidSpec {
        stream: "replay",
        field: "column",
        value: format!("\"{col}\""),
        reason: "a column name needs `header = true`; otherwise give a 0-based index".into(),
    })
}

/// Reads the header line (if any) and resolves the key column; shared by validation and open.
pub(crate) fn probe(
    path: &Path,
    format: ReplayFormat,
    column: Option<&str>,
    header: bool,
) -> Result<(Box<dyn BufRead + Send>, usize, u64)> {
    let mut reader = open_reader(path)?;
    let mut line_no = 0;
    let mut col = 0;
    if header {
        let mut h = Vec::new();
        reader
            .read_until(b'\n', &mut h)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                line: Some(1),
                source,
            })?;
        line_no = 1;
        if format.has_columns() {
            col = resolve_column(path, format, column, Some(strip_eol(&h)))?;
        }
    } else if format.has_columns() {
        col = resolve_column(path, format, column, None)?;
    }
    Ok((reader, col, line_no))
}

/// Keys of a replay file, fingerprinted.
pub struct ReplayStream {
    reader: Box<dyn BufRead + Send>,
    path: PathBuf,
    format: ReplayFormat,
    column: usize,
    column_name: Option<String>,
    seed: u64,
    policy: BadLinePolicy,
    limit: u64,
    /// Keys still to skip before the first one emitted (`offset`).
    offset_left: u64,
    /// The `offset` as given.
    offset: u64,
    emitted: u64,
    line_no: u64,
    skipped: u64,
    /// The first [`SKIPPED_LINES_KEPT`] skipped line numbers.
    first_skipped: Vec<u64>,
    line: Vec<u8>,
    scratch: Vec<u8>,
    done: bool,
    /// Where element times come from ([`ReplayStream::timed`]).
    time: Option<TimeSource>,
    last_time: f64,
    /// What a time earlier than the previous one does ([`ReplayStream::out_of_order`]).
    out_of_order: crate::timed::OutOfOrder,
}

/// Where a replayed element's time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeSource {
    /// The bracketed date of a Common Log Format line.
    Clf,
    /// A numeric field (seconds) of a CSV/TSV line.
    Column(usize),
}

impl std::fmt::Debug for ReplayStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayStream")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("column", &self.column)
            .field("line_no", &self.line_no)
            .field("emitted", &self.emitted)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

impl ReplayStream {
    /// Opens the file and positions after the header. The first `offset` keys (counted after
    /// the bad-line policy: a skipped line is not a key) are read and dropped; then at most
    /// `limit` keys are emitted. A file that ends before a key past the offset is an error
    /// ([`Error::Malformed`], at the first read), never an empty stream.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        path: &Path,
        format: ReplayFormat,
        column: Option<&str>,
        header: bool,
        fingerprint_seed: u64,
        bad_lines: BadLinePolicy,
        offset: u64,
        limit: Option<u64>,
    ) -> Result<Self> {
        let (reader, col, line_no) = probe(path, format, column, header)?;
        Ok(Self {
            reader,
            path: path.to_path_buf(),
            format,
            column: col,
            column_name: column.map(str::to_owned),
            seed: fingerprint_seed,
            policy: bad_lines,
            limit: limit.unwrap_or(u64::MAX),
            offset_left: offset,
            offset,
            emitted: 0,
            line_no,
            skipped: 0,
            first_skipped: Vec::new(),
            line: Vec::with_capacity(1024),
            scratch: Vec::with_capacity(1024),
            done: false,
            time: None,
            last_time: 0.0,
            out_of_order: crate::timed::OutOfOrder::Fail,
        })
    }

    /// Reads element times as well, for [`TimedStream::fill_timed`](crate::time::TimedStream::fill_timed): the bracketed date of a
    /// `clf` line (Unix seconds, UTC; `time_column` must be `None`), or the field
    /// `time_column` (a header name or 0-based index) of a `csv`/`tsv` line, in seconds. A line
    /// whose time does not parse is malformed (handled by the bad-line policy). A time earlier
    /// than the previous element's stops the stream with an error naming its line, unless
    /// [`ReplayStream::out_of_order`] says to clamp it (time windows need non-decreasing
    /// times). Keys are read as by [`KeyStream::fill`].
    ///
    /// # Errors
    /// [`Error::InvalidSpec`] for `lines` (no time field) or a `clf` file given a column;
    /// the column errors of [`ReplayStream::open`].
    pub fn timed(mut self, time_column: Option<&str>) -> Result<Self> {
        let invalid = |reason: &str| Error::InvalidSpec {
            stream: "replay",
            field: "time_column",
            value: format!("{time_column:?}"),
            reason: reason.into(),
        };
        self.time = Some(match (self.format, time_column) {
            (ReplayFormat::Clf, None) => TimeSource::Clf,
            (ReplayFormat::Clf, Some(_)) => {
                return Err(invalid("a clf line's time is its [date]; give no column"));
            }
            (ReplayFormat::Lines, _) => return Err(invalid("a `lines` file has no time field")),
            (_, None) => return Err(invalid("csv/tsv need the time column")),
            (format, Some(col)) => {
                let header = self.line_no > 0;
                let (_, idx, _) = probe(&self.path, format, Some(col), header)?;
                TimeSource::Column(idx)
            }
        });
        Ok(self)
    }

    /// What a time earlier than the previous element's does: [`OutOfOrder::Fail`](crate::OutOfOrder::Fail)
    /// (the default: the line is refused, whatever the bad-line policy, since skipping it
    /// would shift the keys against the truth's) or [`OutOfOrder::Clamp`](crate::OutOfOrder::Clamp)
    /// (taken as the previous time).
    pub fn out_of_order(mut self, policy: crate::timed::OutOfOrder) -> Self {
        self.out_of_order = policy;
        self
    }

    /// The time of the current line, or why there is none.
    fn line_time(&mut self, source: TimeSource) -> std::result::Result<f64, String> {
        let line = strip_eol(&self.line);
        let t = match source {
            TimeSource::Clf => crate::timed::parse_clf_time(line)
                .ok_or_else(|| "no [dd/Mon/yyyy:HH:MM:SS +zzzz] date".to_string())?,
            TimeSource::Column(c) => {
                let field: Vec<u8> = match self.format {
                    ReplayFormat::Csv => {
                        self.scratch.clear();
                        match csv_fields(line, &mut self.scratch, c) {
                            Ok(Some(f)) => f.to_vec(),
                            Ok(None) => return Err(format!("time column {c} missing")),
                            Err(e) => return Err(e),
                        }
                    }
                    _ => tsv_field(line, c)
                        .map_err(|k| {
                            format!("time column {c} missing: line has {k} tab-separated fields")
                        })?
                        .to_vec(),
                };
                let text = String::from_utf8_lossy(&field);
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .ok_or_else(|| {
                        format!("time column {c}: `{text}` is not a number of seconds")
                    })?
            }
        };
        if t < self.last_time && self.out_of_order == crate::timed::OutOfOrder::Fail {
            return Err(format!(
                "time {t} is earlier than the previous element's, {}: the log is out of order; sort it, or give `out_of_order = \"clamp\"` in `[stream] time` to take such a time as the previous one",
                self.last_time
            ));
        }
        let t = t.max(self.last_time);
        self.last_time = t;
        Ok(t)
    }

    /// The key bytes of the current line, or why there is none.
    fn key(&mut self) -> std::result::Result<u64, String> {
        let line = strip_eol(&self.line);
        let col_desc = || match &self.column_name {
            Some(n) if n.parse::<usize>().is_err() => {
                format!("column `{n}` (index {})", self.column)
            }
            _ => format!("column {}", self.column),
        };
        let key: &[u8] = match self.format {
            ReplayFormat::Lines => line,
            ReplayFormat::Tsv => tsv_field(line, self.column).map_err(|k| {
                format!("{} missing: line has {k} tab-separated fields", col_desc())
            })?,
            ReplayFormat::Csv => {
                self.scratch.clear();
                match csv_fields(line, &mut self.scratch, self.column) {
                    Ok(Some(f)) => f,
                    Ok(None) => {
                        let k = csv_all_fields(line).map_or(0, |v| v.len());
                        return Err(format!(
                            "{} missing: line has {k} comma-separated fields",
                            col_desc()
                        ));
                    }
                    Err(e) => return Err(e),
                }
            }
            ReplayFormat::Clf => {
                clf_url(line).map_err(|e| format!("not a Common Log Format line: {e}"))?
            }
        };
        if key.is_empty() {
            return Err(match self.format {
                ReplayFormat::Lines => "empty line".to_string(),
                _ => format!("{} is empty", col_desc()),
            });
        }
        Ok(fingerprint(key, self.seed))
    }
}

impl ReplayStream {
    /// The next element (key, and time when `timed`), or `None` at the end.
    fn next_element(&mut self, timed: bool) -> Result<Option<(u64, f64)>> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.emitted >= self.limit {
                self.done = true;
                return Ok(None);
            }
            self.line.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.line)
                .map_err(|source| Error::Io {
                    path: self.path.clone(),
                    line: Some(self.line_no + 1),
                    source,
                })?;
            if read == 0 {
                self.done = true;
                if self.offset > 0 && self.emitted == 0 {
                    return Err(Error::Malformed {
                        path: self.path.clone(),
                        line: self.line_no,
                        reason: format!(
                            "`offset` = {} leaves no key: the file ends after {} keys{}",
                            self.offset,
                            self.offset - self.offset_left,
                            if self.skipped > 0 {
                                format!(" ({} malformed lines skipped)", self.skipped)
                            } else {
                                String::new()
                            }
                        ),
                    });
                }
                return Ok(None);
            }
            self.line_no += 1;
            let element = self.key().and_then(|h| match (timed, self.time) {
                (true, Some(source)) => self.line_time(source).map(|t| (h, t)),
                _ => Ok((h, 0.0)),
            });
            match element {
                Ok(_) if self.offset_left > 0 => self.offset_left -= 1,
                Ok(e) => {
                    self.emitted += 1;
                    return Ok(Some(e));
                }
                Err(reason) => match self.policy {
                    BadLinePolicy::Skip => {
                        self.skipped += 1;
                        if self.first_skipped.len() < SKIPPED_LINES_KEPT {
                            self.first_skipped.push(self.line_no);
                        }
                    }
                    BadLinePolicy::Fail => {
                        self.done = true;
                        return Err(Error::Malformed {
                            path: self.path.clone(),
                            line: self.line_no,
                            reason,
                        });
                    }
                },
            }
        }
    }
}

impl KeyStream for ReplayStream {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        let mut k = 0;
        while k < buf.len() {
            match self.next_element(false)? {
                Some((h, _)) => {
                    buf[k] = h;
                    k += 1;
                }
                None => break,
            }
        }
        Ok(k)
    }

    fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    fn first_skipped_lines(&self) -> &[u64] {
        &self.first_skipped
    }
}

impl crate::timed::TimedStream for ReplayStream {
    /// # Panics
    /// If the stream was not made [`timed`](ReplayStream::timed), or `times` is shorter than
    /// `keys`.
    fn fill_timed(&mut self, keys: &mut [u64], times: &mut [f64]) -> Result<usize> {
        assert!(self.time.is_some(), "call ReplayStream::timed first");
        assert!(times.len() >= keys.len(), "a time per key");
        let mut k = 0;
        while k < keys.len() {
            match self.next_element(true)? {
                Some((h, t)) => {
                    keys[k] = h;
                    times[k] = t;
                    k += 1;
                }
                None => break,
            }
        }
        Ok(k)
    }

    fn skipped_lines(&self) -> u64 {
        self.skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        let mut s = Vec::new();
        let line = br#"a,"b,c","d""e",,f"#;
        let f = |i| {
            let mut s = Vec::new();
            csv_fields(line, &mut s, i).unwrap().map(<[u8]>::to_vec)
        };
        assert_eq!(f(0).unwrap(), b"a");
        assert_eq!(f(1).unwrap(), b"b,c");
        assert_eq!(f(2).unwrap(), b"d\"e");
        assert_eq!(f(3).unwrap(), b"");
        assert_eq!(f(4).unwrap(), b"f");
        assert_eq!(f(5), None);
        assert!(csv_fields(br#"a,"b"#, &mut s, 1).is_err());
        assert!(csv_fields(br#""a"x,b"#, &mut s, 1).is_err());
        assert_eq!(csv_all_fields(b"x,y,").unwrap().len(), 3);
    }

    #[test]
    fn clf_urls() {
        let l = br#"in24.inetnebr.com - - [01/Aug/1995:00:00:01 -0400] "GET /shuttle/missions/sts-68/news/sts-68-mcc-05.txt HTTP/1.0" 200 1839"#;
        assert_eq!(
            clf_url(l).unwrap(),
            b"/shuttle/missions/sts-68/news/sts-68-mcc-05.txt"
        );
        let l = br#"h - - [01/Aug/1995:00:00:01 -0400] "GET /index.html" 200 1839"#;
        assert_eq!(clf_url(l).unwrap(), b"/index.html");
        assert!(clf_url(br#"h - - [x] "GET" 400 -"#).is_err());
        assert!(clf_url(b"garbage").is_err());
    }

    #[test]
    fn tsv_fields() {
        assert_eq!(tsv_field(b"a\tb\t\tc", 3).unwrap(), b"c");
        assert_eq!(tsv_field(b"a\tb\t\tc", 2).unwrap(), b"");
        assert_eq!(tsv_field(b"a\tb", 2), Err(2));
    }
}
