//! Deterministic key streams and their exact ground truth.
//!
//! A [`StreamSpec`] describes a stream; [`StreamSpec::open`] starts it as a [`KeyStream`], a
//! seeded iterator of `u64` keys read in batches with [`KeyStream::fill`]. Restarting is opening
//! again. Two runs of the same spec give the same keys, whatever runs alongside: every generator
//! owns its Xoshiro256++ state ([`dupstream_core::rng::filter_rng`]), seeded from the spec
//! alone. Generators use O(1) memory; replay streams the file.
//!
//! | kind | model | module |
//! |---|---|---|
//! | `uniform` | uniform over a finite universe (Bera et al., journal §3.1) | [`uniform`] |
//! | `zipf` | Zipf over a finite universe | [`uniform`] |
//! | `zipf_drift` | Zipf whose rank-to-key mapping shifts over time (the hot set drifts) | [`drift`] |
//! | `deng_poisson`, `deng_b_model` | Deng & Rafiei's synthetic model (SBF paper §5.1, Fig. 6) | [`deng`] |
//! | `replay` | a real stream from a file (lines, TSV, CSV, Common Log Format; plain or gzip) | [`replay`] |
//!
//! [`GroundTruth::compute`] labels every position of a stream unseen or duplicate, once per
//! stream, as a bit vector shared read-only by every filter run, with [`StreamStats`].
//!
//! Keys are not hashed here: the runner hashes each key once with
//! [`dupstream_core::hash::hash_key`] (replayed keys are already 64-bit fingerprints).
//!
//! ```
//! use dupstream_streams::{GroundTruth, StreamSpec};
//! let spec = StreamSpec::Uniform { n: 100_000, universe: None, distinct_fraction: Some(0.6), seed: 1 };
//! let truth = GroundTruth::compute(&spec)?;
//! assert!((truth.stats().distinct_fraction - 0.6).abs() < 0.01);
//! # Ok::<(), dupstream_streams::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod deng;
pub mod drift;
mod error;
mod labels;
pub mod replay;
pub mod shuffled;
mod spec;
pub mod time;
mod timed;
pub mod truth;
pub mod uniform;
pub mod window_truth;

pub use error::{Error, Result};
pub use replay::{BadLinePolicy, ReplayFormat, ReplayStream};
pub use spec::{MAX_LEN, StreamSpec};
pub use time::{Clock, Clocked, OutOfOrder, Phases, TimeSpec, TimedStream, open_timed};
pub use truth::{GroundTruth, Oracle, StreamStats, replay_len_estimate};
pub use window_truth::{Window, WindowOracle, WindowStats, WindowTruth};

/// A started stream: fills buffers with keys until it ends.
pub trait KeyStream: Send {
    /// Writes the next keys into `buf` and returns how many were written. Fills `buf`
    /// completely unless the stream ends; returns 0 only at the end (or for an empty `buf`).
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize>;

    /// Lines skipped so far as malformed (replay under the `skip` policy); 0 for generators.
    fn skipped_lines(&self) -> u64 {
        0
    }

    /// The line numbers (1-based) of the first skipped lines, at most
    /// [`replay::SKIPPED_LINES_KEPT`] of them, ascending; empty for generators.
    fn first_skipped_lines(&self) -> &[u64] {
        &[]
    }
}

/// A key stream that ends with an error (an [`Error::Io`] of kind
/// [`Interrupted`](std::io::ErrorKind::Interrupted)) once `stop` returns true, checked before
/// each batch: a caller's way to stop a long labelling (a run asked to stop by a signal while
/// its ground truth is computed, [`GroundTruth::compute_stoppable`]).
pub struct StopWhen<'a> {
    inner: &'a mut dyn KeyStream,
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl std::fmt::Debug for StopWhen<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StopWhen").finish_non_exhaustive()
    }
}

impl<'a> StopWhen<'a> {
    /// `inner`, stopped once `stop` returns true.
    pub fn new(inner: &'a mut dyn KeyStream, stop: &'a (dyn Fn() -> bool + Sync)) -> Self {
        Self { inner, stop }
    }
}

/// The error a stopped stream returns.
pub fn stopped_error() -> Error {
    Error::Io {
        path: std::path::PathBuf::from("(stream)"),
        line: None,
        source: std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped"),
    }
}

impl KeyStream for StopWhen<'_> {
    fn fill(&mut self, buf: &mut [u64]) -> Result<usize> {
        if (self.stop)() {
            return Err(stopped_error());
        }
        self.inner.fill(buf)
    }

    fn skipped_lines(&self) -> u64 {
        self.inner.skipped_lines()
    }

    fn first_skipped_lines(&self) -> &[u64] {
        self.inner.first_skipped_lines()
    }
}

/// Reads a whole stream into memory (for tests and small streams).
pub fn collect_keys(spec: &StreamSpec) -> Result<Vec<u64>> {
    let mut s = spec.open()?;
    let mut out = Vec::with_capacity(spec.declared_len().unwrap_or(0).min(1 << 24) as usize);
    let mut buf = vec![0u64; 4096];
    loop {
        let k = s.fill(&mut buf)?;
        if k == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..k]);
    }
}
