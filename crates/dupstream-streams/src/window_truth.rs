//! Exact windowed ground truth: position `i` is a duplicate iff the previous occurrence of its
//! key is at most `W` elements earlier (`i − j ≤ W`), or, for a timestamped stream, at most `W`
//! seconds earlier (`t_i − t_j ≤ W`). This is the question a sliding-window structure (APBF,
//! SWAMP, the time-limited Bloom filter) answers; [`crate::GroundTruth`] answers "seen at any
//! time since the start?".
//!
//! **Oracle.** The last position (or time) of each key, kept exactly by one of three tables,
//! chosen automatically and recorded in [`WindowStats::oracle`]: the dense table when the
//! universe is declared and it needs at most 1 GiB (or less than the others), else the one of
//! least memory:
//! - [`WindowOracle::Recent`] (element windows only): the keys of the last `W` positions in a
//!   ring, and a hashbrown table of `(key, last position)` for those keys only: at each
//!   position the key leaving the window is removed unless it occurred again since. Memory
//!   `8·W` bytes plus a table of at most `min(W, U)` entries, whatever the stream's length; for
//!   `W ≪ N` it stays in cache.
//! - [`WindowOracle::Dense`]: one slot per key of a declared universe `0..U` (uniform, Zipf):
//!   4 bytes when the window counts elements and the declared length is below `2^32`, else 8.
//!   Its probes are prefetched a fixed distance ahead.
//! - [`WindowOracle::HashMap`]: a hashbrown table of `(key, last)` pairs, 16 bytes per entry
//!   plus a control byte, pre-sized to `min(N, U)` when the length is declared.
//!
//! Memory: [`WindowTruth::heap_bytes_estimate`] states it before computing (the labels,
//! `N/8` bytes, plus the table); a table the platform cannot allocate is refused with
//! [`Error::TooLarge`], as for the since-start truth. Unlike the since-start truth's bitmap
//! (one bit per key) a last-position table needs 64 bits per key, so the windowed truth costs
//! more memory; its speed against the since-start truth is measured by
//! `cargo bench -p dupstream-streams` (`window_truth` beside `ground_truth`).
//!
//! A slot holds `position + 1`, or a time's bits with the top bit set (times are finite and
//! non-negative, so their sign bit is free); 0 means "never seen".

use dupstream_core::raw::prefetch_word;
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use serde::{Deserialize, Serialize};

use crate::labels::{LabelWriter, Labels};
use crate::truth::{SliceStream, replay_len_estimate, set_hash, table_bytes};
use crate::{Error, KeyStream, Result, StreamSpec};

const BATCH: usize = 4096;
const PREFETCH_AHEAD: usize = 32;
/// Largest dense table at all: `2^34` slots (128 GiB).
const DENSE_MAX_SLOTS: u64 = 1 << 34;
const SEEN: u64 = 1 << 63;
/// Largest dense table chosen even when another needs less memory: 1 GiB (the dense table is
/// the fastest by far: one prefetched access per element, against two hash-table operations).
const DENSE_ALWAYS_BYTES: u64 = 1 << 30;

/// The window of the windowed truth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// `W` elements: a duplicate iff the previous occurrence is at most `W` positions earlier.
    Elements(u64),
    /// `W` seconds: a duplicate iff the previous occurrence is at most `W` seconds earlier.
    Seconds(f64),
}

/// Which exact last-occurrence table labelled the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowOracle {
    /// One slot per key of the bounded universe.
    Dense,
    /// A hash table of the keys seen.
    HashMap,
    /// A ring of the last `W` keys and a hash table of theirs.
    Recent,
}

impl WindowOracle {
    /// Stable name for result files: `dense` or `hash_map`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dense => "dense",
            Self::HashMap => "hash_map",
            Self::Recent => "recent",
        }
    }
}

/// Statistics of a windowed labelling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowStats {
    /// Number of elements.
    pub n: u64,
    /// The window.
    pub window: Window,
    /// Positions labelled duplicate within the window.
    pub duplicates: u64,
    /// The table used.
    pub oracle: WindowOracle,
    /// Heap bytes of the table at its largest.
    pub oracle_bytes: u64,
}

/// Windowed labels of every position (1 = duplicate within the window) and their statistics.
#[derive(Debug, Clone)]
pub struct WindowTruth {
    labels: Labels,
    stats: WindowStats,
}

/// The table of least memory for `window` (ties: dense, then recent, then hash map), and the
/// bound on distinct keys.
fn plan(
    window: Window,
    len_hint: Option<u64>,
    universe: Option<u64>,
) -> (WindowOracle, Option<u64>) {
    let bound = match (len_hint, universe) {
        (Some(n), Some(u)) => Some(n.min(u)),
        (n, u) => n.or(u),
    };
    let hash = bound.map_or(u64::MAX, |b| table_bytes(b, 16));
    let dense = match universe {
        Some(u) if u <= DENSE_MAX_SLOTS => u * dense_slot_bytes(window, len_hint),
        _ => u64::MAX,
    };
    let recent = match window {
        Window::Elements(w) => w
            .saturating_mul(8)
            .saturating_add(table_bytes(bound.map_or(w, |b| b.min(w)), 16)),
        Window::Seconds(_) => u64::MAX,
    };
    let oracle = if dense <= recent.min(hash) || dense <= DENSE_ALWAYS_BYTES {
        WindowOracle::Dense
    } else if recent <= hash {
        WindowOracle::Recent
    } else {
        WindowOracle::HashMap
    };
    (oracle, bound)
}

/// Bytes of a dense slot: 4 when the window counts elements and the stream's declared length
/// keeps `position + 1` below `2^32`, else 8.
fn dense_slot_bytes(window: Window, len_hint: Option<u64>) -> u64 {
    match (window, len_hint) {
        (Window::Elements(_), Some(n)) if n < u64::from(u32::MAX) => 4,
        _ => 8,
    }
}

/// The dense table: one slot per key of a declared universe `0..slots`, 32-bit slots (two per
/// word) when `narrow`, else 64-bit.
struct Dense {
    words: Vec<u64>,
    narrow: bool,
    slots: u64,
}

/// The hash map: `(key, last)` of every key seen.
struct LastSeen {
    table: HashTable<(u64, u64)>,
}

/// The recent keys: the keys of the last `W` positions (slot `n mod W` = position `n − W`
/// before it is overwritten) and `(key, position + 1)` of those keys.
struct Recent {
    ring: Vec<u64>,
    table: HashTable<(u64, u64)>,
}

/// A hash table of `(key, last)` pairs with room for `cap` keys, or `too_large`.
fn last_position_table(
    cap: u64,
    too_large: &dyn Fn(String) -> Error,
) -> Result<HashTable<(u64, u64)>> {
    let cap = usize::try_from(cap)
        .map_err(|_| too_large(format!("last-position table of {cap} keys")))?;
    let mut t = HashTable::new();
    t.try_reserve(cap, |e: &(u64, u64)| set_hash(e.0))
        .map_err(|_| {
            too_large(format!(
                "last-position table of {cap} keys: allocation failed"
            ))
        })?;
    Ok(t)
}

impl Dense {
    fn new(
        universe: u64,
        window: Window,
        len_hint: Option<u64>,
        too_large: &dyn Fn(String) -> Error,
    ) -> Result<Self> {
        let u = universe;
        let narrow = dense_slot_bytes(window, len_hint) == 4;
        let words = if narrow { u.div_ceil(2) } else { u };
        let words = usize::try_from(words)
            .map_err(|_| too_large(format!("last-position table of {u} keys")))?;
        Ok(Self {
            words: dupstream_core::raw::zeroed_words(words),
            narrow,
            slots: u,
        })
    }

    /// Labels `chunk` into `dups`: `value(i)` is the slot value of its `i`-th key, `is_dup` the
    /// window test of a stored value against a new one. Its probes are prefetched.
    fn label(
        &mut self,
        chunk: &[u64],
        value: impl Fn(usize) -> u64,
        is_dup: impl Fn(u64, u64) -> bool,
        dups: &mut [bool],
    ) -> Result<()> {
        let (u, narrow, words) = (self.slots, self.narrow, &mut self.words);
        if let Some(&bad) = chunk.iter().find(|&&k| k >= u) {
            return Err(Error::TooLarge {
                stream: "dense windowed oracle".into(),
                reason: format!("key {bad} outside the declared universe 0..{u}"),
            });
        }
        let word = |k: u64| (if narrow { k >> 1 } else { k }) as usize;
        for &k in chunk.iter().take(PREFETCH_AHEAD) {
            prefetch_word(words, word(k));
        }
        for (i, &k) in chunk.iter().enumerate() {
            if let Some(&ahead) = chunk.get(i + PREFETCH_AHEAD) {
                prefetch_word(words, word(ahead));
            }
            let new = value(i);
            let w = &mut words[word(k)];
            if narrow {
                let shift = (k & 1) * 32;
                let old = (*w >> shift) & 0xffff_ffff;
                dups[i] = is_dup(old, new);
                *w = (*w & !(0xffff_ffff << shift)) | (new << shift);
            } else {
                dups[i] = is_dup(*w, new);
                *w = new;
            }
        }
        Ok(())
    }

    fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }
}

impl LastSeen {
    fn new(bound: Option<u64>, too_large: &dyn Fn(String) -> Error) -> Result<Self> {
        Ok(Self {
            table: last_position_table(bound.unwrap_or(0), too_large)?,
        })
    }

    /// As [`Dense::label`].
    fn label(
        &mut self,
        chunk: &[u64],
        value: impl Fn(usize) -> u64,
        is_dup: impl Fn(u64, u64) -> bool,
        dups: &mut [bool],
    ) {
        let t = &mut self.table;
        for (i, &k) in chunk.iter().enumerate() {
            let new = value(i);
            dups[i] = match t.entry(set_hash(k), |e| e.0 == k, |e| set_hash(e.0)) {
                Entry::Occupied(mut o) => {
                    let last = &mut o.get_mut().1;
                    let d = is_dup(*last, new);
                    *last = new;
                    d
                }
                Entry::Vacant(v) => {
                    v.insert((k, new));
                    false
                }
            };
        }
    }

    fn bytes(&self) -> u64 {
        table_bytes(self.table.capacity() as u64, 16)
    }
}

impl Recent {
    fn new(w: u64, bound: Option<u64>, too_large: &dyn Fn(String) -> Error) -> Result<Self> {
        // Twice the live entries: removals leave tombstones, and the slack keeps in-place
        // rehashes rare.
        let cap = bound.map_or(w, |b| b.min(w)).saturating_mul(2);
        let (w, _) = match (usize::try_from(w), usize::try_from(cap)) {
            (Ok(w), Ok(c)) => (w, c),
            _ => return Err(too_large(format!("window of {w} elements"))),
        };
        let mut ring = Vec::new();
        ring.try_reserve_exact(w)
            .map_err(|_| too_large(format!("ring of {w} keys: allocation failed")))?;
        ring.resize(w, 0);
        Ok(Self {
            ring,
            table: last_position_table(cap, too_large)?,
        })
    }

    /// As [`Dense::label`], for an element window (values are `position + 1`): a key in the
    /// table is a duplicate.
    fn label(&mut self, chunk: &[u64], value: impl Fn(usize) -> u64, dups: &mut [bool]) {
        let (ring, t) = (&mut self.ring, &mut self.table);
        let w = ring.len() as u64;
        for (i, &k) in chunk.iter().enumerate() {
            let new = value(i);
            dups[i] = match t.entry(set_hash(k), |e| e.0 == k, |e| set_hash(e.0)) {
                Entry::Occupied(mut o) => {
                    o.get_mut().1 = new;
                    true
                }
                Entry::Vacant(v) => {
                    v.insert((k, new));
                    false
                }
            };
            // Position new − 1 − W leaves the window of the next position: drop its key
            // unless it occurred again since.
            let slot = ((new - 1) % w) as usize;
            if new > w {
                let old = ring[slot];
                let leaving = new - w;
                if let Ok(e) = t.find_entry(set_hash(old), |e| e.0 == old)
                    && e.get().1 == leaving
                {
                    e.remove();
                }
            }
            ring[slot] = k;
        }
    }

    fn bytes(&self) -> u64 {
        self.ring.len() as u64 * 8 + table_bytes(self.table.capacity() as u64, 16)
    }
}

/// The oracle strategy a labelling runs: one of the three tables.
enum Table {
    Dense(Dense),
    HashMap(LastSeen),
    Recent(Recent),
}

impl Table {
    /// The table of `oracle` for `window` (`Recent` needs an element window, `Dense` a
    /// universe: checked by the caller).
    fn new(
        oracle: WindowOracle,
        window: Window,
        len_hint: Option<u64>,
        universe: Option<u64>,
        bound: Option<u64>,
        too_large: &dyn Fn(String) -> Error,
    ) -> Result<Self> {
        Ok(match oracle {
            WindowOracle::Recent => {
                let Window::Elements(w) = window else {
                    unreachable!("recent is planned for element windows only")
                };
                Self::Recent(Recent::new(w, bound, too_large)?)
            }
            WindowOracle::Dense => {
                let u = universe.expect("dense needs a universe");
                Self::Dense(Dense::new(u, window, len_hint, too_large)?)
            }
            WindowOracle::HashMap => Self::HashMap(LastSeen::new(bound, too_large)?),
        })
    }

    /// Labels `chunk` into `dups` (see [`Dense::label`]).
    fn label(
        &mut self,
        chunk: &[u64],
        value: impl Fn(usize) -> u64,
        is_dup: impl Fn(u64, u64) -> bool,
        dups: &mut [bool],
    ) -> Result<()> {
        match self {
            Self::Dense(t) => t.label(chunk, value, is_dup, dups)?,
            Self::HashMap(t) => t.label(chunk, value, is_dup, dups),
            Self::Recent(t) => t.label(chunk, value, dups),
        }
        Ok(())
    }

    /// Which oracle it is, and its heap bytes.
    fn stats(&self) -> (WindowOracle, u64) {
        match self {
            Self::Dense(t) => (WindowOracle::Dense, t.bytes()),
            Self::HashMap(t) => (WindowOracle::HashMap, t.bytes()),
            Self::Recent(t) => (WindowOracle::Recent, t.bytes()),
        }
    }
}

struct Labeller {
    table: Table,
    window: Window,
    labels: LabelWriter,
    /// Previous time (timed windows), to check the times do not decrease.
    last_time: f64,
}

impl Labeller {
    fn new(
        window: Window,
        len_hint: Option<u64>,
        universe: Option<u64>,
        force: Option<WindowOracle>,
        what: &dyn Fn() -> String,
    ) -> Result<Self> {
        let too_large = |reason: String| Error::TooLarge {
            stream: what(),
            reason,
        };
        match window {
            Window::Elements(w) if w >= 1 => {}
            Window::Seconds(s) if s.is_finite() && s >= 0.0 => {}
            _ => {
                return Err(Error::InvalidSpec {
                    stream: "windowed truth",
                    field: "window",
                    value: format!("{window:?}"),
                    reason:
                        "must be at least 1 element, or a finite non-negative number of seconds"
                            .into(),
                });
            }
        }
        let (planned, bound) = plan(window, len_hint, universe);
        let oracle = force.unwrap_or(planned);
        match (oracle, window, universe) {
            (WindowOracle::Recent, Window::Seconds(_), _) | (WindowOracle::Dense, _, None) => {
                return Err(Error::InvalidSpec {
                    stream: "windowed truth",
                    field: "oracle",
                    value: oracle.as_str().into(),
                    reason: "recent needs an element window; dense needs a universe".into(),
                });
            }
            _ => {}
        }
        let table = Table::new(oracle, window, len_hint, universe, bound, &too_large)?;
        Ok(Self {
            table,
            window,
            labels: LabelWriter::new(len_hint, too_large)?,
            last_time: 0.0,
        })
    }

    /// Labels a batch of keys (element window) or of keys with times (time window).
    fn batch(&mut self, keys: &[u64], times: Option<&[f64]>) -> Result<()> {
        // The stored value for position n / time t, and the duplicate test against a stored one.
        let w = self.window;
        if let Some(times) = times {
            for &t in &times[..keys.len()] {
                if !(t.is_finite() && t >= self.last_time) {
                    return Err(Error::InvalidSpec {
                        stream: "windowed truth",
                        field: "time",
                        value: t.to_string(),
                        reason: format!(
                            "times must be finite, non-negative and non-decreasing (previous {})",
                            self.last_time
                        ),
                    });
                }
                self.last_time = t;
            }
        }
        let mut dups = [false; BATCH];
        let n0 = self.labels.len();
        let is_dup = |old: u64, new: u64| -> bool {
            old != 0
                && match w {
                    Window::Elements(w) => new - old <= w,
                    Window::Seconds(s) => {
                        f64::from_bits(new & !SEEN) - f64::from_bits(old & !SEEN) <= s
                    }
                }
        };
        for (chunk_start, chunk) in keys.chunks(BATCH).enumerate().map(|(c, k)| (c * BATCH, k)) {
            let value = |i: usize| match times {
                None => n0 + (chunk_start + i) as u64 + 1,
                Some(ts) => ts[chunk_start + i].to_bits() | SEEN,
            };
            self.table.label(chunk, value, is_dup, &mut dups)?;
            self.labels.extend(&dups[..chunk.len()], |_, &d, _| d);
        }
        Ok(())
    }

    fn finish(self) -> WindowTruth {
        let (oracle, oracle_bytes) = self.table.stats();
        let (labels, duplicates) = self.labels.finish();
        WindowTruth {
            stats: WindowStats {
                n: labels.len(),
                window: self.window,
                duplicates,
                oracle,
                oracle_bytes,
            },
            labels,
        }
    }
}

/// Feeds every key of `stream` to `l` in batches and returns the finished labels.
fn drain(stream: &mut dyn KeyStream, mut l: Labeller) -> Result<WindowTruth> {
    let mut buf = vec![0u64; BATCH];
    loop {
        let k = stream.fill(&mut buf)?;
        if k == 0 {
            break;
        }
        l.batch(&buf[..k], None)?;
    }
    Ok(l.finish())
}

impl WindowTruth {
    /// Labels `spec`'s stream with an element window of `window` elements.
    pub fn compute(spec: &StreamSpec, window: u64) -> Result<WindowTruth> {
        Self::compute_stoppable(spec, window, &|| false)
    }

    /// [`compute`](Self::compute), ended early with the error of a
    /// [`StopWhen`](crate::StopWhen) stream once `stop` returns true (checked before each
    /// batch of keys).
    pub fn compute_stoppable(
        spec: &StreamSpec,
        window: u64,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<WindowTruth> {
        spec.validate()?;
        let l = Labeller::new(
            Window::Elements(window),
            spec.declared_len(),
            spec.universe(),
            None,
            &|| spec.describe(),
        )?;
        let mut stream = spec.open()?;
        drain(&mut crate::StopWhen::new(&mut *stream, stop), l)
    }

    /// Labels any key stream with an element window; `universe` (keys `0..U`) enables the
    /// dense table; `oracle` forces a table (`None`: the planned one).
    pub fn from_stream(
        stream: &mut dyn KeyStream,
        len_hint: Option<u64>,
        universe: Option<u64>,
        window: u64,
        oracle: Option<WindowOracle>,
    ) -> Result<WindowTruth> {
        let l = Labeller::new(
            Window::Elements(window),
            len_hint,
            universe,
            oracle,
            &|| "key stream".to_string(),
        )?;
        drain(stream, l)
    }

    /// Labels an in-memory key sequence with an element window (`oracle` as in
    /// [`from_stream`](Self::from_stream)).
    pub fn from_keys(
        keys: &[u64],
        universe: Option<u64>,
        window: u64,
        oracle: Option<WindowOracle>,
    ) -> Result<WindowTruth> {
        Self::from_stream(
            &mut SliceStream { keys },
            Some(keys.len() as u64),
            universe,
            window,
            oracle,
        )
    }

    /// Labels an in-memory timestamped sequence with a window of `seconds`; `times[i]` is the
    /// arrival time of `keys[i]` (finite, non-negative, non-decreasing).
    ///
    /// # Panics
    /// If `times` is shorter than `keys`.
    pub fn from_timed_keys(
        keys: &[u64],
        times: &[f64],
        universe: Option<u64>,
        seconds: f64,
        oracle: Option<WindowOracle>,
    ) -> Result<WindowTruth> {
        assert!(times.len() >= keys.len(), "a time per key");
        let mut l = Labeller::new(
            Window::Seconds(seconds),
            Some(keys.len() as u64),
            universe,
            oracle,
            &|| "timed key stream".to_string(),
        )?;
        for (k, t) in keys.chunks(BATCH).zip(times.chunks(BATCH)) {
            l.batch(k, Some(t))?;
        }
        Ok(l.finish())
    }

    /// Labels a timestamped stream with a window of `seconds`, batch by batch (the stream is
    /// not held in memory); `len_hint` and `universe` as in [`from_stream`](Self::from_stream).
    pub fn from_timed_stream(
        stream: &mut dyn crate::TimedStream,
        len_hint: Option<u64>,
        universe: Option<u64>,
        seconds: f64,
        oracle: Option<WindowOracle>,
    ) -> Result<WindowTruth> {
        // Without a universe only the hash table can label a time window (the plan's memory
        // comparison cannot price it without a length either).
        let oracle = oracle.or(universe.is_none().then_some(WindowOracle::HashMap));
        let mut l = Labeller::new(
            Window::Seconds(seconds),
            len_hint,
            universe,
            oracle,
            &|| "timed key stream".to_string(),
        )?;
        let (mut keys, mut times) = (vec![0u64; BATCH], vec![0f64; BATCH]);
        loop {
            let k = stream.fill_timed(&mut keys, &mut times)?;
            if k == 0 {
                return Ok(l.finish());
            }
            l.batch(&keys[..k], Some(&times[..k]))?;
        }
    }

    /// Number of positions.
    pub fn len(&self) -> u64 {
        self.stats.n
    }

    /// True for an empty stream.
    pub fn is_empty(&self) -> bool {
        self.stats.n == 0
    }

    /// Whether position `i` is a duplicate within the window.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn is_duplicate(&self, i: u64) -> bool {
        assert!(i < self.stats.n, "position {i} beyond {}", self.stats.n);
        self.labels.get(i)
    }

    /// The labels, laid out as [`crate::GroundTruth::label_words`].
    pub fn label_words(&self) -> &[u64] {
        self.labels.words()
    }

    /// Statistics.
    pub fn stats(&self) -> &WindowStats {
        &self.stats
    }

    /// The table [`compute`](Self::compute) would choose for `spec`.
    pub fn planned_oracle(spec: &StreamSpec, window: u64) -> WindowOracle {
        plan(
            Window::Elements(window),
            spec.declared_len(),
            spec.universe(),
        )
        .0
    }

    /// Estimated peak heap bytes of [`compute`](Self::compute) for `spec`: labels, table and
    /// buffers (a replay without `limit` is sized from its file, and its table's growth
    /// counted, as [`crate::GroundTruth::heap_bytes_estimate`] does).
    pub fn heap_bytes_estimate(spec: &StreamSpec, window: u64) -> u64 {
        let n = spec
            .declared_len()
            .unwrap_or_else(|| replay_len_estimate(spec));
        let (oracle, bound) = plan(
            Window::Elements(window),
            spec.declared_len(),
            spec.universe(),
        );
        let table = match oracle {
            WindowOracle::Recent => {
                window * 8 + table_bytes(bound.map_or(window, |b| b.min(window)), 16)
            }
            WindowOracle::Dense => {
                spec.universe().unwrap_or(0)
                    * dense_slot_bytes(Window::Elements(window), spec.declared_len())
            }
            WindowOracle::HashMap => match bound {
                Some(d) => table_bytes(d, 16),
                None => table_bytes(n, 16) * 3 / 2,
            },
        };
        n.div_ceil(64) * 8 + table + (BATCH * 9) as u64
    }
}
