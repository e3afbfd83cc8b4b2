//! What replayed logs and clocks share about arrival times: a stream with times
//! ([`TimedStream`]), what a log's out-of-order time does ([`OutOfOrder`]), and the time of a
//! Common Log Format line ([`parse_clf_time`]). [`crate::time`] re-exports them.

use crate::Result;
use serde::{Deserialize, Serialize};

/// A stream whose elements carry arrival times.
pub trait TimedStream: Send {
    /// Writes the next keys into `keys` and their times (seconds, non-decreasing) into `times`;
    /// returns how many were written, as [`KeyStream::fill`](crate::KeyStream::fill) does.
    ///
    /// # Panics
    /// If `times` is shorter than `keys`.
    fn fill_timed(&mut self, keys: &mut [u64], times: &mut [f64]) -> Result<usize>;

    /// Lines skipped so far as malformed.
    fn skipped_lines(&self) -> u64 {
        0
    }
}

/// What a log's own times do when one goes back (earlier than the element before it):
/// `time = { process = "log", out_of_order = "..." }`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutOfOrder {
    /// Stop at the first such line, naming it (the default): a log out of order gives
    /// time windows that mean nothing unless the reader says what to do.
    #[default]
    Fail,
    /// Take the earlier time as the previous element's (time windows need non-decreasing
    /// times); the keys keep the log's order.
    Clamp,
}

impl OutOfOrder {
    /// The name as written in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fail => "fail",
            Self::Clamp => "clamp",
        }
    }
}

/// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian; Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The time of a Common Log Format line, from its bracketed date
/// `[01/Aug/1995:00:00:01 -0400]`, as Unix seconds (UTC: the offset is subtracted). `None` if
/// the line has no well-formed date.
///
/// ```
/// use dupstream_streams::time::parse_clf_time;
/// let line = br#"host - - [01/Aug/1995:00:00:01 -0400] "GET / HTTP/1.0" 200 7"#;
/// assert_eq!(parse_clf_time(line), Some(807_249_601.0));
/// ```
pub fn parse_clf_time(line: &[u8]) -> Option<f64> {
    let open = line.iter().position(|&c| c == b'[')?;
    let rest = &line[open + 1..];
    let close = rest.iter().position(|&c| c == b']')?;
    let s = std::str::from_utf8(&rest[..close]).ok()?;
    // dd/Mon/yyyy:HH:MM:SS +zzzz
    let (date, zone) = s.split_once(' ')?;
    let mut parts = date.splitn(4, [':', '/']);
    let (d, mon, y) = (parts.next()?, parts.next()?, parts.next()?);
    let hms: Vec<&str> = parts.next()?.split(':').collect();
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|&m| m == mon)? as i64
        + 1;
    let (d, y): (i64, i64) = (d.parse().ok()?, y.parse().ok()?);
    if hms.len() != 3 || !(1..=31).contains(&d) {
        return None;
    }
    let (h, mi, se): (i64, i64, i64) = (
        hms[0].parse().ok()?,
        hms[1].parse().ok()?,
        hms[2].parse().ok()?,
    );
    if !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0..=60).contains(&se) {
        return None;
    }
    let zone = zone.trim();
    if zone.len() != 5 {
        return None;
    }
    let sign = match &zone[..1] {
        "+" => 1,
        "-" => -1,
        _ => return None,
    };
    let (zh, zm): (i64, i64) = (zone[1..3].parse().ok()?, zone[3..5].parse().ok()?);
    let local = days_from_civil(y, month, d) * 86_400 + h * 3600 + mi * 60 + se;
    Some((local - sign * (zh * 3600 + zm * 60)) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clf_dates() {
        // 1995-08-01T04:00:01Z = 807249601 Unix seconds; 2000-02-29T00:00Z = 951782400.
        assert_eq!(
            parse_clf_time(b"[01/Aug/1995:00:00:01 -0400]"),
            Some(807_249_601.0)
        );
        assert_eq!(parse_clf_time(b"[01/Jan/1970:00:00:00 +0000]"), Some(0.0));
        assert_eq!(
            parse_clf_time(b"[29/Feb/2000:12:30:00 +0130]"),
            Some(951_782_400.0 + 45_000.0 - 5400.0)
        );
        for bad in [
            &b"no date"[..],
            b"[01/Foo/1995:00:00:01 -0400]",
            b"[01/Aug/1995:00:00 -0400]",
            b"[01/Aug/1995:00:00:01]",
            b"[01/Aug/1995:25:00:01 -0400]",
        ] {
            assert_eq!(
                parse_clf_time(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
