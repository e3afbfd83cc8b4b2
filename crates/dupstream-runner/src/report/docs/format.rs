//! How the blocks write times, sizes, dates, ratios and links.

use serde_json::Value;

/// `target` as a relative link from the document `doc` (both relative to the root).
pub(super) fn href(doc: &str, target: &str) -> String {
    let mut from: Vec<&str> = doc.split('/').collect();
    from.pop();
    let to: Vec<&str> = target.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    "../".repeat(from.len() - common) + &to[common..].join("/")
}

pub(super) fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        other => other.to_string(),
    }
}

pub(super) fn ratio(ok: usize, of: usize) -> String {
    if of == 0 {
        "—".into()
    } else {
        format!("{ok} / {of}")
    }
}

/// Seconds as `12.3 s`, `6 min 35 s` or `1 h 02 min`.
pub fn secs(s: Option<f64>) -> String {
    let Some(s) = s.filter(|s| s.is_finite() && *s >= 0.0) else {
        return "—".into();
    };
    if s < 60.0 {
        return format!("{s:.1} s");
    }
    let whole = s.round() as u64;
    if whole < 3600 {
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        let minutes = (whole + 30) / 60;
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    }
}

/// Bytes in binary units: `74.0 MiB`, `1.12 GiB`.
pub fn bytes(b: Option<u64>) -> String {
    let Some(b) = b else {
        return "—".into();
    };
    let b = b as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    const GIB: f64 = (1u64 << 30) as f64;
    if b >= GIB {
        format!("{:.2} GiB", b / GIB)
    } else {
        format!("{:.1} MiB", b / MIB)
    }
}

/// The run's start date (UTC), from `started_unix`.
pub(super) fn date(m: &Value) -> String {
    m["started_unix"]
        .as_i64()
        .map_or("—".into(), crate::record::probe::date_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_times_and_sizes() {
        let m = serde_json::json!({ "started_unix": 1_795_499_884 });
        assert_eq!(date(&m), "2026-11-24");
        assert_eq!(
            date(&serde_json::json!({ "started_unix": 0 })),
            "1970-01-01"
        );
        assert_eq!(secs(Some(12.34)), "12.3 s");
        assert_eq!(secs(Some(394.9)), "6 min 35 s");
        assert_eq!(secs(Some(3_780.0)), "1 h 03 min");
        // Minutes round over the hour: 1 h 59 min 40 s is 2 h 00 min, not 1 h 60 min.
        assert_eq!(secs(Some(7_180.0)), "2 h 00 min");
        assert_eq!(bytes(Some(1_207_197_696)), "1.12 GiB");
        assert_eq!(bytes(Some(77_594_624)), "74.0 MiB");
        assert_eq!(href("README.md", "results/a/b/"), "results/a/b/");
        assert_eq!(href("docs/timing.md", "results/a/b/"), "../results/a/b/");
        assert_eq!(href("results/README.md", "results/a/b/t.md"), "a/b/t.md");
    }
}
