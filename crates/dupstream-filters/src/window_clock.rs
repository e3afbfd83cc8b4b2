//! A window of elements or of seconds, for the structures that take either (the aged cuckoo
//! filter, the Timing Bloom filter): the parameters' validation, `--scale`, and the batch of
//! timestamped elements.

use crate::error::{Error, Result, ensure};

/// A validated window: `W` elements, or `T` seconds at a mean `rate` elements per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Window {
    /// `W` elements.
    Count(u64),
    /// `T` seconds, at `rate` elements per second (the structure's sizing, and plain `step`'s
    /// clock: element `i` at `i / rate` seconds).
    Time { seconds: f64, rate: f64 },
}

impl Window {
    /// `window` (elements) or `window_seconds` with `rate`, exactly one of the two windows.
    pub(crate) fn new(
        window: Option<u64>,
        window_seconds: Option<f64>,
        rate: Option<f64>,
    ) -> Result<Self> {
        match (window, window_seconds) {
            (Some(w), None) => {
                ensure(w >= 1, "window", w, "must be at least 1")?;
                Ok(Self::Count(w))
            }
            (None, Some(t)) => {
                ensure(
                    t.is_finite() && t > 0.0,
                    "window_seconds",
                    t,
                    "must be a positive number of seconds",
                )?;
                let rate = rate.unwrap_or(f64::NAN);
                ensure(
                    rate.is_finite() && rate > 0.0,
                    "rate",
                    rate,
                    "a time window needs a positive rate (elements per second)",
                )?;
                Ok(Self::Time { seconds: t, rate })
            }
            _ => Err(Error::InvalidParameter {
                name: "window",
                value: format!("{window:?}/{window_seconds:?}"),
                reason: "give `window` (elements) or `window_seconds` (with `rate`), not both"
                    .into(),
            }),
        }
    }
}

/// `(window, window_seconds)` at `--scale factor`: a count window divided like the stream, a
/// time window's seconds too (its rate is kept, as the TLBF's: a scaled timestamped stream keeps
/// its rates and shortens its phases).
pub(crate) fn scaled(
    window: Option<u64>,
    window_seconds: Option<f64>,
    factor: u64,
) -> (Option<u64>, Option<f64>) {
    let f = factor.max(1);
    (
        window.map(|w| crate::structure::scaled_count(w, f)),
        window_seconds.map(|t| t / f as f64),
    )
}

/// [`crate::DuplicateFilter::step_batch_at`] as `step_at` in a loop.
pub(crate) fn timed_batch<F: crate::DuplicateFilter + ?Sized>(
    f: &mut F,
    hashes: &[u64],
    times: &[f64],
    out: &mut [bool],
) {
    assert!(out.len() >= hashes.len() && times.len() >= hashes.len());
    for ((o, &h), &t) in out.iter_mut().zip(hashes).zip(times) {
        *o = f.step_at(h, t);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::DuplicateFilter;
    use crate::hash::hash_key;

    /// Steps `f` through `keys` at times advancing by `gaps` and checks that every key seen
    /// within `window` seconds is reported (no false negatives in a time window).
    pub(crate) fn no_false_negatives_in_time(
        f: &mut dyn DuplicateFilter,
        keys: &[u64],
        gaps: &[f64],
        window: f64,
    ) -> Result<(), String> {
        let mut last: std::collections::HashMap<u64, f64> = Default::default();
        let mut now = 0.0;
        for (i, &key) in keys.iter().enumerate() {
            now += gaps[i];
            let truth = last.insert(key, now).is_some_and(|l| now - l <= window);
            if !f.step_at(hash_key(key, 3), now) && truth {
                return Err(format!("false negative at {i}"));
            }
        }
        Ok(())
    }
}
