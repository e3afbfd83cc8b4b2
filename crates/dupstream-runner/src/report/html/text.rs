//! Text for the pages: escaped, linked, rendered from Markdown, sizes in binary units.

use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// Text escaped for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A relative link to `path` (components joined by `/`, each percent-encoded as needed).
pub fn href(path: &Path) -> String {
    path.components()
        .map(|c| {
            let s = c.as_os_str().to_string_lossy();
            let mut out = String::new();
            for b in s.bytes() {
                if b.is_ascii_alphanumeric() || b"-._~+=,".contains(&b) {
                    out.push(b as char);
                } else {
                    let _ = write!(out, "%{b:02X}");
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A Markdown file's text without its first line when that is a level-1 heading: the page
/// has its own title.
pub(super) fn without_title(md: &str) -> &str {
    match md.strip_prefix("# ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, body)| body),
        None => md,
    }
}

pub(super) fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// A duration for a person: `38.4 s`, `6 min 35 s`, `2 h 05 min` (`—` when unknown).
pub(super) fn duration(secs: Option<f64>) -> String {
    match secs {
        Some(s) if s.is_finite() && (0.0..1.0).contains(&s) => format!("{s:.2} s"),
        s => crate::report::docs::secs(s),
    }
}

/// A Unix time as an ISO 8601 date and time, UTC: `2026-11-24T05:58:04Z`.
pub(super) fn iso_utc(unix_secs: i64) -> String {
    let day = unix_secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        crate::record::probe::date_of(unix_secs),
        day / 3600,
        day % 3600 / 60,
        day % 60
    )
}

/// A JSON value as text for a table cell.
pub(super) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(a) => a.iter().map(value_text).collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_links_and_titles() {
        assert_eq!(escape("<a & 'b'>"), "&lt;a &amp; &#39;b&#39;&gt;");
        assert_eq!(
            href(Path::new("run 1/rates_vs_length-10000 bits-0.png")),
            "run%201/rates_vs_length-10000%20bits-0.png"
        );
        assert_eq!(without_title("# T\n\nbody\n"), "\nbody\n");
        assert_eq!(without_title("body"), "body");
    }

    #[test]
    fn times_for_a_person() {
        assert_eq!(duration(Some(143.2)), "2 min 23 s");
        assert_eq!(duration(Some(394.9)), "6 min 35 s");
        assert_eq!(duration(Some(7.22)), "7.2 s");
        assert_eq!(duration(Some(0.034)), "0.03 s");
        assert_eq!(duration(Some(7530.0)), "2 h 06 min");
        assert_eq!(duration(None), "—");
        // 1,795,499,884 s after 1970-01-01T00:00:00Z: 20,781 days and 5:58:04 (21,484 s).
        assert_eq!(iso_utc(1_795_499_884), "2026-11-24T05:58:04Z");
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
    }
}
