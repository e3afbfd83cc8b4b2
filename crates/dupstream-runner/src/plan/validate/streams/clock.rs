//! An arrival process's clock: it must advance, and not overflow, over the stream as run.

use crate::plan::validate::grid::{MAX_SECONDS, number};
use dupstream_streams::TimeSpec;

/// The fewest arrivals, on average, that a burst and a lull together must span: a clock that
/// changes phase more often than a million times per arrival spends its time switching, and
/// with phases shorter than the spacing of floating-point times it never advances.
pub const MIN_ARRIVALS_PER_CYCLE: f64 = 1e-6;

/// Refuses an arrival process (as run) whose clock cannot advance time or would overflow it
/// over a stream of `n` elements (`None`: a replay of unknown length): the span `n / mean
/// rate` must stay within [`MAX_SECONDS`], and an MMPP's cycle must
/// hold at least [`MIN_ARRIVALS_PER_CYCLE`] arrivals, each phase long enough to move the
/// clock at the end of the span. The message names the field (`time.rate`, ...).
pub fn clock_advances(time: &TimeSpec, n: Option<u64>) -> Result<(), String> {
    let Some(rate) = time.mean_rate() else {
        return Ok(());
    };
    let field = match time {
        TimeSpec::Mmpp { .. } => "time.burst_rate",
        _ => "time.rate",
    };
    let span = n.map(|n| n as f64 / rate);
    if let Some(t) = span.filter(|t| !(t.is_finite() && *t <= MAX_SECONDS)) {
        return Err(format!(
            "{field}: {} elements at a mean rate of {} per second span {t:e} seconds, past the {:e} seconds times can span: give a higher rate",
            n.unwrap_or(0),
            number(rate),
            MAX_SECONDS
        ));
    }
    if let TimeSpec::Mmpp {
        burst_seconds,
        lull_seconds,
        ..
    } = *time
    {
        let shortest = burst_seconds.min(lull_seconds);
        let key = if burst_seconds <= lull_seconds {
            "time.burst_seconds"
        } else {
            "time.lull_seconds"
        };
        if (burst_seconds + lull_seconds) * rate < MIN_ARRIVALS_PER_CYCLE {
            return Err(format!(
                "{key}: phases of {burst_seconds:e} and {lull_seconds:e} seconds at a mean rate of {} per second change more than {:e} times per arrival: the clock would not advance; give longer phases",
                number(rate),
                1.0 / MIN_ARRIVALS_PER_CYCLE
            ));
        }
        if let Some(t) = span.filter(|t| t + shortest == *t) {
            return Err(format!(
                "{key}: a phase of {shortest:e} seconds does not move a clock at {t:e} seconds (the end of the stream) in floating point: the clock would not advance; give longer phases"
            ));
        }
    }
    Ok(())
}
