//! Element timestamps, for time windows (the time-limited Bloom filter, the windowed truth in
//! seconds).
//!
//! A stream with times fills a key buffer and a parallel buffer of arrival times in seconds
//! ([`TimedStream`]). Replayed logs read them from the file ([`crate::ReplayStream::timed`]:
//! the bracketed date of a Common Log Format line, [`parse_clf_time`], or a numeric column of
//! a CSV/TSV file); synthetic streams get them from a [`Clock`]: a fixed rate, or Poisson
//! arrivals at that rate, deterministic from a seed ([`Clocked`]). Keys are unchanged: a
//! stream's key sequence is the same with or without times.

use dupstream_core::rng::{FilterRng, Rng, filter_rng, unit_f64};

use crate::{Error, KeyStream, Result};

/// A stream whose elements carry arrival times.
pub trait TimedStream: Send {
    /// Writes the next keys into `keys` and their times (seconds, non-decreasing) into `times`;
    /// returns how many were written, as [`KeyStream::fill`] does.
    ///
    /// # Panics
    /// If `times` is shorter than `keys`.
    fn fill_timed(&mut self, keys: &mut [u64], times: &mut [f64]) -> Result<usize>;

    /// Lines skipped so far as malformed.
    fn skipped_lines(&self) -> u64 {
        0
    }
}

/// Arrival times at `rate` elements per second: evenly spaced (`i / rate`), or a Poisson
/// process (exponential gaps of mean `1/rate`) drawn from its own seeded generator.
#[derive(Debug, Clone)]
pub struct Clock {
    rate: f64,
    rng: Option<FilterRng>,
    now: f64,
    i: u64,
}

impl Clock {
    /// A clock at `rate` elements per second; `poisson` draws exponential gaps from `seed`.
    ///
    /// # Errors
    /// [`Error::InvalidSpec`] unless `rate` is finite and positive.
    pub fn new(rate: f64, poisson: bool, seed: u64) -> Result<Self> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(Error::InvalidSpec {
                stream: "clock",
                field: "rate",
                value: rate.to_string(),
                reason: "must be a positive number of elements per second".into(),
            });
        }
        Ok(Self {
            rate,
            rng: poisson.then(|| filter_rng(seed, 0x7469_6d65)),
            now: 0.0,
            i: 0,
        })
    }

    /// The next arrival time (the first element arrives at 0).
    #[inline]
    pub fn next_time(&mut self) -> f64 {
        let t = match &mut self.rng {
            None => self.i as f64 / self.rate,
            Some(rng) => {
                let t = self.now;
                // Exponential gap: −ln(1 − U)/rate, U in [0, 1).
                self.now += -(-unit_f64(rng.next_u64())).ln_1p() / self.rate;
                t
            }
        };
        self.i += 1;
        t
    }
}

/// A key stream with times from a [`Clock`].
pub struct Clocked {
    inner: Box<dyn KeyStream>,
    clock: Clock,
}

impl std::fmt::Debug for Clocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clocked")
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl Clocked {
    /// Times `inner`'s elements with `clock`.
    pub fn new(inner: Box<dyn KeyStream>, clock: Clock) -> Self {
        Self { inner, clock }
    }
}

impl TimedStream for Clocked {
    fn fill_timed(&mut self, keys: &mut [u64], times: &mut [f64]) -> Result<usize> {
        assert!(times.len() >= keys.len(), "a time per key");
        let k = self.inner.fill(keys)?;
        for t in &mut times[..k] {
            *t = self.clock.next_time();
        }
        Ok(k)
    }

    fn skipped_lines(&self) -> u64 {
        self.inner.skipped_lines()
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

    #[test]
    fn clocks() {
        let mut c = Clock::new(4.0, false, 0).unwrap();
        let t: Vec<f64> = (0..5).map(|_| c.next_time()).collect();
        assert_eq!(t, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        // Poisson: deterministic from the seed; mean gap 1/rate within 5 sd (sd of the mean of
        // n exponential gaps = 1/(rate·sqrt(n))).
        let draw = |seed| {
            let mut c = Clock::new(1000.0, true, seed).unwrap();
            (0..100_001).map(|_| c.next_time()).collect::<Vec<f64>>()
        };
        let a = draw(7);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        assert!(a.windows(2).all(|w| w[1] >= w[0]));
        let mean_gap = a[100_000] / 100_000.0;
        assert!((mean_gap - 1e-3).abs() < 5.0 * 1e-3 / (100_000f64).sqrt());
        assert!(Clock::new(0.0, false, 0).is_err());
    }
}
