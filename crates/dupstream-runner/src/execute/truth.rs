//! The exact ground truth of a stream, computed once and shared by every cell on it: since
//! the start, and over the last `[metrics] window` elements (or `window_seconds` seconds of a
//! timestamped stream) when one is configured.

use crate::execute::{Cancel, Progress};
use crate::plan::ConfigError;
use crate::plan::cost;
use crate::plan::{Experiment, StreamCase};
use crate::record::StreamRow;
use anyhow::{Context, Result};
use dupstream_streams::{GroundTruth, KeyStream, TimedStream, WindowTruth};
use std::time::Instant;

/// A stream's labels: since the start, and within the window when one is configured. The
/// window's `u64` is its number of elements: `W` for a count window; for a time window of `T`
/// seconds, the stream's mean number of elements per window, `(n − 1)·T / (t_last − t_first)`
/// (its mean rate measured on its own times, times `T`), rounded.
#[derive(Debug)]
pub struct Truths {
    pub since_start: GroundTruth,
    pub window: Option<(u64, WindowTruth)>,
    /// The stream's keys held for its cells (when [`label`] was asked to hold them and they fit:
    /// [`cost::holds_keys`]); `None` when it is not held
    /// (each cell reads it).
    pub held: Option<Held>,
}

/// A stream's keys, with their arrival times for a timestamped stream (empty otherwise), read
/// once and held in memory so that its cells do not read or generate it again.
#[derive(Debug, Default)]
pub struct Held {
    pub keys: Vec<u64>,
    pub times: Vec<f64>,
}

/// A stream's elements as a cell (or [`hold`]) reads them: keys, or keys with their arrival
/// times, from the stream itself or from the copy held in memory (from element `.1` on).
pub(crate) enum Elements<'a> {
    Keys(Box<dyn KeyStream>),
    Timed(Box<dyn TimedStream>),
    Held(&'a Held, usize),
}

impl<'a> Elements<'a> {
    /// Stream `case` (with its times when it is timestamped), or `held`, its copy in memory.
    pub(crate) fn open(case: &StreamCase, held: Option<&'a Held>) -> Result<Self> {
        Ok(match (held, &case.time) {
            (Some(held), _) => Elements::Held(held, 0),
            (None, None) => Elements::Keys(case.spec.open()?),
            (None, Some(t)) => {
                Elements::Timed(dupstream_streams::open_timed(&case.spec, t, case.seed)?)
            }
        })
    }

    /// Whether the elements come with times (which go to the structure).
    pub(crate) fn timed(&self) -> bool {
        match self {
            Elements::Keys(_) => false,
            Elements::Timed(_) => true,
            Elements::Held(h, _) => !h.times.is_empty(),
        }
    }

    /// The next keys, at most `keys.len()`, and their times when [`timed`](Self::timed)
    /// (else empty): read into `keys` and `times`, or borrowed from the held copy without a
    /// copy. Empty at the end.
    pub(crate) fn next<'s>(
        &'s mut self,
        keys: &'s mut [u64],
        times: &'s mut [f64],
    ) -> Result<(&'s [u64], &'s [f64])> {
        Ok(match self {
            Elements::Keys(s) => {
                let got = s.fill(keys)?;
                (&keys[..got], &[])
            }
            Elements::Timed(s) => {
                let got = s.fill_timed(keys, times)?;
                (&keys[..got], &times[..got])
            }
            Elements::Held(h, at) => {
                let (from, got) = (*at, keys.len().min(h.keys.len() - *at));
                *at += got;
                let held_times = if h.times.is_empty() {
                    &[][..]
                } else {
                    &h.times[from..from + got]
                };
                (&h.keys[from..from + got], held_times)
            }
        })
    }
}

/// Reads stream `index` of `exp` into memory ([`Held`]); `None` when it outgrows
/// [`cost::HOLD_MAX_BYTES`] (a replay of unknown length, [`cost::holdable`]). Stops within a
/// batch once `cancel` is set. Its buffers grow by doubling up to the bound, never past it.
fn hold(exp: &Experiment, index: usize, cancel: &Cancel) -> Result<Option<Held>> {
    let case = &exp.streams[index];
    let most = (cost::HOLD_MAX_BYTES / cost::held_bytes_per_element(case)) as usize;
    let timed_stream = case.time.is_some();
    let mut held = Held::default();
    if let Some(n) = case.spec.declared_len() {
        let n = (n as usize).min(most);
        held.keys.reserve_exact(n);
        if timed_stream {
            held.times.reserve_exact(n);
        }
    }
    let mut keys = vec![0u64; cost::BATCH];
    let mut times = vec![0f64; cost::BATCH];
    let mut stream = Elements::open(case, None)?;
    loop {
        cancel.check()?;
        let (k, t) = stream.next(&mut keys, &mut times)?;
        let got = k.len();
        if got == 0 {
            return Ok(Some(held));
        }
        let len = held.keys.len() + got;
        if len > most {
            return Ok(None);
        }
        if len > held.keys.capacity() {
            let grown = (2 * held.keys.capacity()).clamp(len, most);
            held.keys.reserve_exact(grown - held.keys.len());
            if timed_stream {
                held.times.reserve_exact(grown - held.times.len());
            }
        }
        held.keys.extend_from_slice(k);
        held.times.extend_from_slice(t);
    }
}

/// A timed stream that notes its first and last times and its length, and stops once
/// `cancel` is set.
struct Span<'a> {
    inner: &'a mut dyn TimedStream,
    first: Option<f64>,
    last: f64,
    n: u64,
    cancel: &'a Cancel,
}

impl TimedStream for Span<'_> {
    fn fill_timed(
        &mut self,
        keys: &mut [u64],
        times: &mut [f64],
    ) -> dupstream_streams::Result<usize> {
        if self.cancel.check().is_err() {
            return Err(dupstream_streams::stopped_error());
        }
        let k = self.inner.fill_timed(keys, times)?;
        if k > 0 {
            self.first.get_or_insert(times[0]);
            self.last = times[k - 1];
            self.n += k as u64;
        }
        Ok(k)
    }
}

/// The time-window truth of stream `index` of `exp` and its mean number of elements per
/// window (see [`Truths`]).
fn time_window(
    exp: &Experiment,
    index: usize,
    seconds: f64,
    cancel: &Cancel,
) -> Result<(u64, WindowTruth)> {
    let case = &exp.streams[index];
    let time = case
        .time
        .as_ref()
        .context("a time window needs a timestamped stream (validated)")?;
    let mut stream = dupstream_streams::open_timed(&case.spec, time, case.seed)?;
    let mut span = Span {
        inner: &mut *stream,
        first: None,
        last: 0.0,
        n: 0,
        cancel,
    };
    let wt = WindowTruth::from_timed_stream(
        &mut span,
        case.spec.declared_len(),
        case.spec.universe(),
        seconds,
        None,
    )?;
    let elapsed = span.last - span.first.unwrap_or(0.0);
    if elapsed <= 0.0 {
        return Err(crate::plan::refuse(format!(
            "stream {}: its {} elements all arrive at time {}; a time window needs times that advance",
            case.spec.describe(),
            span.n,
            span.last
        )));
    }
    let per_window = (span.n.saturating_sub(1) as f64 * seconds / elapsed).round() as u64;
    Ok((per_window.max(1), wt))
}

/// Labels stream `index` of `exp`; returns the labels and the stream's statistics. Once
/// `cancel` is set (a signal), the labelling stops within a batch of keys and the result is
/// [`Interrupted`](crate::execute::Interrupted).
pub fn label(
    exp: &Experiment,
    index: usize,
    hold_keys: bool,
    progress: &Progress,
    cancel: &Cancel,
) -> Result<(Truths, StreamRow)> {
    // A stream stopped midway ends with an error: the signal is the cause.
    label_until(exp, index, hold_keys, progress, cancel).map_err(|e| match cancel.check() {
        Err(by) => by.into(),
        Ok(()) => e,
    })
}

fn label_until(
    exp: &Experiment,
    index: usize,
    hold_keys: bool,
    progress: &Progress,
    cancel: &Cancel,
) -> Result<(Truths, StreamRow)> {
    let case = &exp.streams[index];
    let start = Instant::now();
    progress.message(&format!("ground truth for {}", case.spec.describe()));
    let stop = || cancel.check().is_err();
    let truth = GroundTruth::compute_stoppable(&case.spec, None, &stop)
        .with_context(|| format!("ground truth for {}", case.spec.describe()))?;
    let row = StreamRow::new(index, case, &truth, 0.0);
    if truth.is_empty() {
        let why = match row.skipped_note() {
            Some(note) => format!("every line was malformed: {note}"),
            None => "an empty file".to_string(),
        };
        return Err(ConfigError::new(
            &exp.file,
            None,
            Some("stream"),
            format!(
                "{} has no keys ({why}); nothing to measure",
                case.spec.describe()
            ),
        )
        .into());
    }
    if let Some(note) = row.skipped_note() {
        progress.warn(&format!("{}: {note}", case.spec.describe()));
    }
    let window = if exp.windowed() {
        let what = match (exp.window, exp.window_seconds) {
            (Some(w), _) => format!("W = {w}"),
            (None, secs) => format!("T = {} s", secs.unwrap_or(0.0)),
        };
        progress.message(&format!(
            "windowed ground truth ({what}) for {}",
            case.spec.describe()
        ));
        let (w, wt) = match (exp.window, exp.window_seconds) {
            (Some(w), _) => WindowTruth::compute_stoppable(&case.spec, w, &stop)
                .map(|t| (w, t))
                .map_err(anyhow::Error::from),
            (None, secs) => time_window(exp, index, secs.unwrap_or(0.0), cancel),
        }
        .with_context(|| format!("windowed ground truth for {}", case.spec.describe()))?;
        if wt.len() != truth.len() {
            anyhow::bail!(
                "stream {} gave {} elements to the windowed truth, {} to the since-start one",
                case.spec.describe(),
                wt.len(),
                truth.len()
            );
        }
        Some((w, wt))
    } else {
        None
    };
    let held = if hold_keys {
        hold(exp, index, cancel)
            .with_context(|| format!("reading {} into memory", case.spec.describe()))?
    } else {
        None
    };
    if let Some(h) = &held
        && h.keys.len() as u64 != truth.len()
    {
        anyhow::bail!(
            "stream {} gave {} elements to be held, {} to the ground truth",
            case.spec.describe(),
            h.keys.len(),
            truth.len()
        );
    }
    let row = StreamRow {
        truth_secs: start.elapsed().as_secs_f64(),
        ..row
    };
    let truths = Truths {
        since_start: truth,
        window,
        held,
    };
    Ok((truths, row))
}
