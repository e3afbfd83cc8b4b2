//! Element timestamps, for time windows (the time-limited Bloom filter, the windowed truth in
//! seconds).
//!
//! A stream with times fills a key buffer and a parallel buffer of arrival times in seconds
//! ([`TimedStream`]). Replayed logs read them from the file ([`crate::ReplayStream::timed`]:
//! the bracketed date of a Common Log Format line, [`parse_clf_time`], or a numeric column of
//! a CSV/TSV file); synthetic streams get them from a [`Clock`]: a fixed rate, Poisson
//! arrivals at that rate, or a Markov-modulated Poisson process alternating bursts and lulls,
//! deterministic from a seed ([`Clocked`]). Keys are unchanged: a stream's key sequence is the
//! same with or without times.
//!
//! [`TimeSpec`] is the arrival process as an experiment file writes it (`[stream] time = {
//! process = "mmpp", ... }`), and [`open_timed`] starts a [`crate::StreamSpec`] with it.

use dupstream_core::rng::{FilterRng, Rng, filter_rng, unit_f64};
use rand_distr::{Distribution, Exp1};
use serde::{Deserialize, Serialize};

pub use crate::timed::{OutOfOrder, TimedStream, parse_clf_time};
use crate::{BadLinePolicy, Error, KeyStream, ReplayFormat, Result, StreamSpec};

/// How the phases of a [`TimeSpec::Mmpp`] last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phases {
    /// Exponential lengths of the declared means: the two-state Markov-modulated Poisson
    /// process.
    #[default]
    Exponential,
    /// Every burst and every lull lasts exactly its declared length (an on-off cycle).
    Fixed,
}

impl Phases {
    /// The name as written in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exponential => "exponential",
            Self::Fixed => "fixed",
        }
    }
}

/// The arrival process of a timestamped stream, as written in an experiment file's
/// `[stream] time = { process = "...", ... }`. Times are in seconds.
///
/// ```toml
/// time = { process = "poisson", rate = 1000.0 }
/// time = { process = "mmpp", burst_rate = 8000.0, lull_rate = 500.0, burst_seconds = 2.0, lull_seconds = 8.0 }
/// time = { process = "log" }                    # a replayed CLF file's own [date]s
/// time = { process = "log", column = "time" }   # a CSV/TSV column of seconds
/// time = { process = "log", out_of_order = "clamp" }   # times that go back: clamp, or "fail"
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "process", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeSpec {
    /// Evenly spaced arrivals: element `i` (from 0) at `i / rate`.
    Even {
        /// Elements per second.
        rate: f64,
    },
    /// A Poisson process: exponential gaps of mean `1 / rate`; the first element at 0.
    Poisson {
        /// Elements per second.
        rate: f64,
    },
    /// A two-state Markov-modulated Poisson process: Poisson arrivals at `burst_rate` during
    /// bursts and at `lull_rate` during lulls, bursts and lulls alternating with lengths of
    /// mean `burst_seconds` and `lull_seconds` (exponential, or fixed with
    /// `phases = "fixed"`). Started in its stationary state: a burst with probability
    /// `burst_seconds / (burst_seconds + lull_seconds)`, part-way through it. Mean rate
    /// [`TimeSpec::mean_rate`].
    Mmpp {
        /// Elements per second during a burst (> 0).
        burst_rate: f64,
        /// Elements per second during a lull (≥ 0, at most `burst_rate`; 0 is an on-off
        /// source).
        lull_rate: f64,
        /// Mean length of a burst, in seconds.
        burst_seconds: f64,
        /// Mean length of a lull, in seconds.
        lull_seconds: f64,
        /// Phase lengths: `exponential` (default) or `fixed`.
        #[serde(default)]
        phases: Phases,
    },
    /// A replayed file's own times: a `clf` line's `[date]` (no column), or the `column` of
    /// a `csv`/`tsv` file, in seconds ([`crate::ReplayStream::timed`]).
    Log {
        /// The time column of a `csv`/`tsv` file (a header name or a 0-based index).
        #[serde(default)]
        column: Option<String>,
        /// A time earlier than the element before it: `fail` (default, naming the line) or
        /// `clamp` (taken as the previous time).
        #[serde(default)]
        out_of_order: OutOfOrder,
    },
}

impl TimeSpec {
    /// The process's name, as written in `process = "..."`.
    pub fn process(&self) -> &'static str {
        match self {
            Self::Even { .. } => "even",
            Self::Poisson { .. } => "poisson",
            Self::Mmpp { .. } => "mmpp",
            Self::Log { .. } => "log",
        }
    }

    /// The long-run mean arrival rate, elements per second: `rate`, or for the MMPP
    /// `(burst_rate·burst_seconds + lull_rate·lull_seconds) / (burst_seconds + lull_seconds)`;
    /// `None` for a log's own times.
    pub fn mean_rate(&self) -> Option<f64> {
        match *self {
            Self::Even { rate } | Self::Poisson { rate } => Some(rate),
            Self::Mmpp {
                burst_rate,
                lull_rate,
                burst_seconds: b,
                lull_seconds: l,
                ..
            } => Some((burst_rate * b + lull_rate * l) / (b + l)),
            Self::Log { .. } => None,
        }
    }

    /// Checks the process's values, and that it fits `stream` (a log's times need a replayed
    /// `clf` file, or a `csv`/`tsv` one with `column`).
    ///
    /// # Errors
    /// [`Error::InvalidSpec`] naming the field (`time.rate`, ...).
    pub fn validate(&self, stream: &StreamSpec) -> Result<()> {
        self.check_values()?;
        let Self::Log { column, .. } = self else {
            return Ok(());
        };
        let bad = |field: &'static str, value: String, reason: String| Error::InvalidSpec {
            stream: "timed",
            field,
            value,
            reason,
        };
        // The truths read the keys without the times: a line skipped for a bad time only in
        // the timed stream would shift every label after it.
        if let StreamSpec::Replay {
            bad_lines: BadLinePolicy::Skip,
            ..
        } = stream
        {
            return Err(bad(
                "bad_lines",
                "\"skip\"".into(),
                "a log's own times need bad_lines = \"fail\": a line skipped for a bad time would be left out of the cells' stream but not of the truth's".into(),
            ));
        }
        match (stream, column) {
            (
                StreamSpec::Replay {
                    format: ReplayFormat::Clf,
                    ..
                },
                None,
            )
            | (
                StreamSpec::Replay {
                    format: ReplayFormat::Csv | ReplayFormat::Tsv,
                    ..
                },
                Some(_),
            ) => Ok(()),
            (StreamSpec::Replay { format, .. }, _) => Err(bad(
                "time.column",
                format!("{column:?}"),
                format!(
                    "a `{}` file's times: clf takes its [date] (no column), csv/tsv need the column of seconds, lines have none",
                    format.as_str()
                ),
            )),
            _ => Err(bad(
                "time.process",
                "\"log\"".into(),
                format!(
                    "only a replayed file has its own times; give a `{}` stream a rate (`even`, `poisson` or `mmpp`)",
                    stream.kind()
                ),
            )),
        }
    }

    /// The checks of the process's own values.
    fn check_values(&self) -> Result<()> {
        let bad = |field: &'static str, value: String, reason: &str| Error::InvalidSpec {
            stream: "timed",
            field,
            value,
            reason: reason.into(),
        };
        let positive = |field: &'static str, x: f64, what: &str| {
            if x.is_finite() && x > 0.0 {
                Ok(())
            } else {
                Err(bad(
                    field,
                    x.to_string(),
                    &format!("must be a positive {what}"),
                ))
            }
        };
        match *self {
            Self::Even { rate } | Self::Poisson { rate } => {
                positive("time.rate", rate, "number of elements per second")
            }
            Self::Mmpp {
                burst_rate,
                lull_rate,
                burst_seconds,
                lull_seconds,
                ..
            } => {
                positive(
                    "time.burst_rate",
                    burst_rate,
                    "number of elements per second",
                )?;
                if !(lull_rate.is_finite() && (0.0..=burst_rate).contains(&lull_rate)) {
                    return Err(bad(
                        "time.lull_rate",
                        lull_rate.to_string(),
                        &format!(
                            "must be between 0 and burst_rate = {burst_rate} elements per second"
                        ),
                    ));
                }
                positive("time.burst_seconds", burst_seconds, "number of seconds")?;
                positive("time.lull_seconds", lull_seconds, "number of seconds")
            }
            Self::Log { .. } => Ok(()),
        }
    }

    /// The process for a run scaled down by `factor` (`--scale`): the phase lengths divided by
    /// it, the rates kept, so a scaled stream (`n / factor` elements) spans as many bursts and
    /// lulls as the full one, each `factor` times shorter; a time window divided by `factor`
    /// then holds `1/factor` of the elements and the same share of a phase. `factor <= 1`
    /// returns the process unchanged.
    pub fn scaled(&self, factor: u64) -> TimeSpec {
        let mut t = self.clone();
        if factor > 1
            && let Self::Mmpp {
                burst_seconds,
                lull_seconds,
                ..
            } = &mut t
        {
            *burst_seconds /= factor as f64;
            *lull_seconds /= factor as f64;
        }
        t
    }

    /// A [`Clock`] running this process from `seed`; `None` for a log's own times.
    ///
    /// # Errors
    /// [`Error::InvalidSpec`] for invalid values.
    pub fn clock(&self, seed: u64) -> Result<Option<Clock>> {
        Ok(Some(match *self {
            Self::Even { rate } => Clock::new(rate, false, seed)?,
            Self::Poisson { rate } => Clock::new(rate, true, seed)?,
            Self::Mmpp {
                burst_rate,
                lull_rate,
                burst_seconds,
                lull_seconds,
                phases,
            } => Clock::mmpp(
                [burst_rate, lull_rate],
                [burst_seconds, lull_seconds],
                phases,
                seed,
            )?,
            Self::Log { .. } => return Ok(None),
        }))
    }
}

/// Starts `stream` with times from `time`: a clock seeded by `seed` for a synthetic process
/// (the keys are exactly `stream`'s), or the replayed file's own times.
///
/// # Errors
/// As [`StreamSpec::open`], and [`TimeSpec::validate`].
pub fn open_timed(stream: &StreamSpec, time: &TimeSpec, seed: u64) -> Result<Box<dyn TimedStream>> {
    time.validate(stream)?;
    match time {
        TimeSpec::Log {
            column,
            out_of_order,
        } => {
            let replay = stream
                .open_replay()
                .expect("validated: a log's times need a replay")?;
            Ok(Box::new(
                replay.timed(column.as_deref())?.out_of_order(*out_of_order),
            ))
        }
        _ => {
            let clock = time.clock(seed)?.expect("a synthetic process has a clock");
            Ok(Box::new(Clocked::new(stream.open()?, clock)))
        }
    }
}

/// The arrival process a [`Clock`] runs.
#[derive(Debug, Clone)]
enum Process {
    Even {
        rate: f64,
    },
    Poisson {
        rate: f64,
    },
    /// Phase 0 is a burst, 1 a lull; `end` is when the current phase ends.
    Mmpp {
        rates: [f64; 2],
        means: [f64; 2],
        fixed: bool,
        phase: usize,
        end: f64,
    },
}

/// Arrival times: evenly spaced at `rate` (`i / rate`), a Poisson process (exponential gaps
/// of mean `1/rate`), or a two-state Markov-modulated Poisson process; random ones drawn
/// from their own seeded generator.
#[derive(Debug, Clone)]
pub struct Clock {
    process: Process,
    rng: Option<FilterRng>,
    now: f64,
    i: u64,
}

/// An exponential variate of mean 1 (`rand_distr`'s ziggurat: several times faster than
/// `−ln(1 − U)`; `cargo bench -p dupstream-streams timed`).
#[inline]
fn exp1(rng: &mut FilterRng) -> f64 {
    Exp1.sample(rng)
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
            process: if poisson {
                Process::Poisson { rate }
            } else {
                Process::Even { rate }
            },
            rng: poisson.then(|| filter_rng(seed, 0x7469_6d65)),
            now: 0.0,
            i: 0,
        })
    }

    /// A two-state Markov-modulated Poisson process: arrivals at `rates[0]` during bursts
    /// and `rates[1]` during lulls, phases of mean lengths `means[0]` and `means[1]` seconds
    /// (`phases`), started in the stationary state (see [`TimeSpec::Mmpp`]).
    ///
    /// # Errors
    /// [`Error::InvalidSpec`] for a rate or a length out of range.
    pub fn mmpp(rates: [f64; 2], means: [f64; 2], phases: Phases, seed: u64) -> Result<Self> {
        let spec = TimeSpec::Mmpp {
            burst_rate: rates[0],
            lull_rate: rates[1],
            burst_seconds: means[0],
            lull_seconds: means[1],
            phases,
        };
        spec.check_values()?;
        let mut rng = filter_rng(seed, 0x6d6d_7070);
        let fixed = phases == Phases::Fixed;
        // Stationary start: the phase with probability its share of time, and the time left
        // in it (exponential: memoryless, the full law; fixed: uniform over its length).
        let phase = usize::from(unit_f64(rng.next_u64()) >= means[0] / (means[0] + means[1]));
        let end = if fixed {
            means[phase] * (1.0 - unit_f64(rng.next_u64()))
        } else {
            means[phase] * exp1(&mut rng)
        };
        Ok(Self {
            process: Process::Mmpp {
                rates,
                means,
                fixed,
                phase,
                end,
            },
            rng: Some(rng),
            now: 0.0,
            i: 0,
        })
    }

    /// Whether the latest arrival fell in a burst (`None` for a clock without phases).
    pub fn in_burst(&self) -> Option<bool> {
        match self.process {
            Process::Mmpp { phase, .. } => Some(phase == 0),
            _ => None,
        }
    }

    /// The next arrival time (a fixed-rate or Poisson clock's first element arrives at 0).
    #[inline]
    pub fn next_time(&mut self) -> f64 {
        let t = match (&mut self.process, &mut self.rng) {
            (Process::Even { rate }, _) => self.i as f64 / *rate,
            (Process::Poisson { rate }, Some(rng)) => {
                let t = self.now;
                self.now += exp1(rng) / *rate;
                t
            }
            (
                Process::Mmpp {
                    rates,
                    means,
                    fixed,
                    phase,
                    end,
                },
                Some(rng),
            ) => loop {
                // Memoryless: an arrival gap cut by the end of its phase restarts in the next.
                let r = rates[*phase];
                let gap = if r > 0.0 {
                    exp1(rng) / r
                } else {
                    f64::INFINITY
                };
                if self.now + gap < *end {
                    self.now += gap;
                    break self.now;
                }
                self.now = *end;
                *phase ^= 1;
                let len = if *fixed {
                    means[*phase]
                } else {
                    means[*phase] * exp1(rng)
                };
                *end = self.now + len;
            },
            _ => unreachable!("a random process has its generator"),
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

#[cfg(test)]
mod tests {
    use super::*;

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
