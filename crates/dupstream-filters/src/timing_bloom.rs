//! The Timing Bloom filter (TBF): Zhang, Guan, *Detecting Click Fraud in Pay-Per-Click
//! Streams of Online Advertising Networks*, ICDCS 2008: a Bloom filter whose cells hold the
//! time of their last insertion, `O(log W)` bits each, instead of a bit; a cell is live while its
//! stamp is within the window. For count windows (`window`, elements) and time windows
//! (`window_seconds`).
//!
//! **Structure (our reading; the paper's full text was not available here, only its summary
//! in the sliding-window literature).** `m = ⌊budget / b⌋` cells of `b` bits and `k` hash
//! positions ([`DoubleHash`]). Time is counted in *ticks* of `q` elements (count window) or `q`
//! seconds (time window); a cell holds `0` (empty) or `(τ mod R) + 1`, `R = 2^b − 1`, for the
//! tick `τ` of its last insertion, and its *age* at tick `τ'` is `(τ' − τ) mod R`.
//! A step at tick `τ'` answers DUPLICATE iff all `k` cells are non-empty with age `≤ L`, then
//! stamps all `k` with `τ'`.
//!
//! **Ticks and the live span `L`.** With `Q = 2^(b−1) − 1`:
//! - count window with `W ≤ Q` (the default `b = ⌈log2(W + 1)⌉ + 1`, at least 3): `q = 1` element,
//!   `L = W`: the window exactly;
//! - count window with `W > Q`: `q = ⌈W/Q⌉` elements, `L = ⌊W/q⌋ + 1` ticks;
//! - time window: `q = T/Q` seconds, `L = Q + 1` ticks.
//!
//! A re-occurrence at gap `d ≤ W` (or `≤ T`) is `≤ ⌊d/q⌋ + 1 ≤ L` ticks later, so nothing in
//! the window is forgotten: no false negatives. With `q > 1` cells stay live for up to one tick
//! more than the window (false positives from just past it). *Slack* of a time window: a
//! re-occurrence `L + 1` or more ticks later is UNSEEN (up to a Bloom false positive), so only
//! gaps `d < (L + 1)·q = T + 2q = T·(1 + 2/Q)` are reported, however long the silence before it.
//!
//! **Wrap-around and cleaning.** Ages are read modulo `R`, which is right while every stored
//! stamp is younger than `R` ticks. A cleaning pointer makes sure of it: at each tick it
//! visits the next `⌈m / G⌉` cells, `G = R − L − 1 ≥ ⌊R/2⌋ − 1` ticks of margin, and empties
//! those older than `L`. Every cell is visited within any `G` consecutive ticks, so a stamp
//! that turns stale at age `L + 1` is emptied by age `L + G = R − 1`, before its age could
//! wrap. When time jumps by `Δ` ticks (a time window's silence; a count window moves one tick
//! at a time) the pointer visits `min(m, Δ·⌈m/G⌉)` cells, every cell when `Δ ≥ G`, and takes
//! each visited cell's age at the new tick as its age at the previous tick (exact, by the
//! invariant) plus `Δ`, never modulo `R` at the new tick: a jump of any length empties every
//! visited stamp older than `L`, and leaves unvisited only cells visited or stamped within the
//! last `G − 1` ticks, younger than `R − 1`. So no stale stamp ever reads as live, whatever the
//! silence.
//!
//! **False positives.** Given the fraction `r` of live cells (non-empty, age `≤ L`), a
//! never-seen element is reported with probability `r^k` ([`TimingBloom::live_fraction`], exact given
//! the state up to double hashing's repeats). On a stream of distinct keys with `q = 1`, `W`
//! elements are live and `E[r] = 1 − (1 − 1/m)^{kW}` ([`expected_live_fraction`]).
//!
//! Readings:
//! - The stamp range `R = 2^b − 1` with `0` for empty, the margin `G` and the cleaning pointer's
//!   pace are ours (the construction needs a range beyond the window and some cleaning; the
//!   values are the smallest that provably never let a stale stamp read as live).
//! - `k` is given, or the Bloom optimum for the elements of a window (`W`, or `rate·T`).
//! - Time windows: plain [`DuplicateFilter::step`] uses an internal clock at `rate`
//!   (element `i` at `i / rate` seconds), as the TLBF's does; an earlier time than the latest
//!   seen counts as the latest.

use crate::bits::PackedArray;
use crate::bloom::{MAX_K, optimal_k};
use crate::error::{Error, Result, ensure};
use crate::hash::DoubleHash;
use crate::window_clock::{Window, scaled, timed_batch};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest stamp width.
pub const MAX_STAMP_BITS: u32 = 32;
/// Smallest stamp width (`b = 3`: `R = 7`, `Q = 3`).
pub const MIN_STAMP_BITS: u32 = 3;

/// Parameters of a [`TimingBloom`]: a count window (`window`) or a time window
/// (`window_seconds`, with `rate`).
///
/// ```toml
/// window = 65536      # or: window_seconds = 64.0 and rate = 1024.0
/// stamp_bits = 8      # default: ⌈log2(W + 1)⌉ + 1 for a count window (exact; at least 3), 8 for time
/// k = 3               # default: optimal for a window's elements
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct TimingBloomParams {
    /// `W`, the window in elements (a count window).
    #[cfg_attr(feature = "serde", serde(default))]
    pub window: Option<u64>,
    /// `T`, the window in seconds (a time window).
    #[cfg_attr(feature = "serde", serde(default))]
    pub window_seconds: Option<f64>,
    /// Expected elements per second (time windows: `k`'s default and plain `step`'s clock).
    #[cfg_attr(feature = "serde", serde(default))]
    pub rate: Option<f64>,
    /// `b`, bits per cell (3..=32).
    #[cfg_attr(feature = "serde", serde(default))]
    pub stamp_bits: Option<u32>,
    /// `k`, cells per element.
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
}

/// The clock: ticks of `q` elements or seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Clock {
    /// Count window: `q` elements per tick.
    Count { q: u64 },
    /// Time window: `q` seconds per tick, `rate` for plain `step`.
    Time { q: f64, rate: f64 },
}

/// The resolved geometry.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Geometry {
    m: u64,
    b: u32,
    k: u32,
    /// Live span in ticks.
    live: u64,
    clock: Clock,
    /// Cells cleaned per tick.
    per_tick: u64,
}

/// `⌈log2(W + 1)⌉ + 1`: the stamp width that holds a count window exactly.
pub fn exact_stamp_bits(window: u64) -> u32 {
    (64 - window.leading_zeros()) + 1
}

/// `1 − (1 − 1/m)^{kn}`: the expected fraction of live cells after `n` distinct insertions.
pub fn expected_live_fraction(m: u64, k: u32, n: u64) -> f64 {
    1.0 - (f64::from(k) * n as f64 * (-1.0 / m as f64).ln_1p()).exp()
}

fn resolve(budget_bits: u64, p: &TimingBloomParams) -> Result<Geometry> {
    let window = Window::new(p.window, p.window_seconds, p.rate)?;
    let b = match window {
        Window::Count(w) => p
            .stamp_bits
            .unwrap_or_else(|| exact_stamp_bits(w).clamp(MIN_STAMP_BITS, MAX_STAMP_BITS)),
        Window::Time { .. } => p.stamp_bits.unwrap_or(8),
    };
    check_bits(b)?;
    let cap = (1u64 << (b - 1)) - 1;
    let (clock, live, n) = match window {
        Window::Count(w) if w <= cap => (Clock::Count { q: 1 }, w, w),
        Window::Count(w) => {
            let q = w.div_ceil(cap);
            (Clock::Count { q }, w / q + 1, w)
        }
        Window::Time { seconds, rate } => (
            Clock::Time {
                q: seconds / cap as f64,
                rate,
            },
            cap + 1,
            (rate * seconds).ceil() as u64,
        ),
    };
    let m = budget_bits / u64::from(b);
    if m == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "timing_bloom",
            budget_bits,
            needed_bits: u64::from(b),
        });
    }
    let k = match p.k {
        Some(k) => {
            ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=256")?;
            k
        }
        None => optimal_k(m, n),
    };
    let range = (1u64 << b) - 1;
    let margin = range - live - 1;
    debug_assert!(margin >= 1);
    crate::error::words_for_bits("timing_bloom", m * u64::from(b))?;
    Ok(Geometry {
        m,
        b,
        k,
        live,
        clock,
        per_tick: m.div_ceil(margin),
    })
}

/// Lines of 512 bits the cleaning pointer reads per element.
fn swept_lines_per_element(g: &Geometry) -> f64 {
    let elements_per_tick = match g.clock {
        Clock::Count { q } => q as f64,
        Clock::Time { q, rate } => q * rate,
    };
    g.per_tick as f64 * f64::from(g.b) / 512.0 / elements_per_tick
}

fn check_bits(b: u32) -> Result<()> {
    ensure(
        (MIN_STAMP_BITS..=MAX_STAMP_BITS).contains(&b),
        "stamp_bits",
        b,
        &format!("must be in {MIN_STAMP_BITS}..={MAX_STAMP_BITS}"),
    )
}

/// The Timing Bloom filter (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, timing_bloom::{TimingBloom, TimingBloomParams}};
/// let p = TimingBloomParams { window: Some(100), k: Some(4), ..Default::default() };
/// let mut f = TimingBloom::new(1 << 14, &p, 0).unwrap();
/// assert!(!f.step(7));
/// for h in 1000..1099u64 {
///     f.step(h);
/// }
/// assert!(f.step(7)); // gap 100: within the window
/// for h in 2000..2100u64 {
///     f.step(h);
/// }
/// assert!(!f.step(7)); // gap 101: gone (up to a false positive)
/// ```
#[derive(Debug, Clone)]
pub struct TimingBloom {
    cells: PackedArray,
    g: Geometry,
    window: Option<u64>,
    window_seconds: Option<f64>,
    /// Current tick.
    tick: u64,
    /// Elements seen (the count clock, and plain `step`'s time clock).
    steps: u64,
    /// Latest time seen.
    now: f64,
    /// The cleaning pointer.
    sweep: u64,
    filled: u64,
}

impl TimingBloom {
    /// A Timing Bloom filter within `budget_bits`; it draws nothing random (`seed` unused).
    pub fn new(budget_bits: u64, params: &TimingBloomParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let g = resolve(budget_bits, params)?;
        Ok(Self {
            cells: PackedArray::new("timing_bloom", g.m, g.b)?,
            g,
            window: params.window,
            window_seconds: params.window_seconds,
            tick: 0,
            steps: 0,
            now: 0.0,
            sweep: 0,
            filled: 0,
        })
    }

    /// The state size for this budget: `⌊budget/b⌋·b` (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &TimingBloomParams) -> Result<u64> {
        let g = resolve(budget_bits, params)?;
        Ok(g.m * u64::from(g.b))
    }

    /// `k`.
    pub fn k(&self) -> u32 {
        self.g.k
    }

    /// `m`, the cells.
    pub fn cells(&self) -> u64 {
        self.g.m
    }

    /// `L`, the live span in ticks.
    pub fn live_span(&self) -> u64 {
        self.g.live
    }

    #[inline(always)]
    fn range(&self) -> u64 {
        (1u64 << self.g.b) - 1
    }

    /// The age of a non-empty stored value at the current tick, read modulo `R` (exact while
    /// the value is younger than `R` ticks: the cleaning's invariant).
    #[inline(always)]
    fn age(&self, v: u64) -> u64 {
        let r = self.range();
        let now = self.tick % r + 1;
        if now >= v { now - v } else { now + r - v }
    }

    /// Whether a stored value is live at the current tick.
    #[inline(always)]
    fn live(&self, v: u64) -> bool {
        v != 0 && self.age(v) <= self.g.live
    }

    /// The fraction of live cells (non-empty, age `≤ L`).
    pub fn live_fraction(&self) -> f64 {
        let live = (0..self.g.m)
            .filter(|&i| self.live(self.cells.get(i)))
            .count();
        live as f64 / self.g.m as f64
    }

    /// Membership query at the current tick, without update.
    pub fn contains(&self, hash: u64) -> bool {
        DoubleHash::new(hash)
            .indices(self.g.k, self.g.m)
            .all(|i| self.live(self.cells.get(i)))
    }

    /// Moves the clock to tick `t` (not backwards), cleaning `⌈m/G⌉` cells per tick passed (all
    /// `m` at most). A visited cell's age at `t` is its age at the previous tick (exact: no
    /// stored stamp is `R` ticks old) plus the ticks passed, so a jump of any length empties
    /// exactly the cells older than `L` at `t`, none read modulo `R` at `t`.
    fn advance(&mut self, t: u64) {
        if t <= self.tick {
            return;
        }
        let passed = t - self.tick;
        let n = passed.saturating_mul(self.g.per_tick).min(self.g.m);
        for _ in 0..n {
            let i = self.sweep;
            let v = self.cells.get(i);
            if v != 0 && self.age(v).saturating_add(passed) > self.g.live {
                self.cells.set(i, 0);
                self.filled -= 1;
            }
            self.sweep = if i + 1 == self.g.m { 0 } else { i + 1 };
        }
        self.tick = t;
    }

    /// Query, then stamp the element's cells at the current tick.
    #[inline]
    fn detect_insert(&mut self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let dup = self.contains(hash);
        let stamp = self.tick % self.range() + 1;
        for i in dh.indices(self.g.k, self.g.m) {
            self.filled += u64::from(self.cells.replace(i, stamp) == 0);
        }
        dup
    }

    /// The time of plain `step`'s next element (a time window's internal clock).
    fn tick_of_time(&self, time: f64) -> u64 {
        match self.g.clock {
            Clock::Time { q, .. } => (time / q).floor() as u64,
            Clock::Count { .. } => self.tick,
        }
    }
}

impl DuplicateFilter for TimingBloom {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        match self.g.clock {
            Clock::Count { q } => {
                self.advance(self.steps / q);
                self.steps += 1;
                self.detect_insert(hash)
            }
            Clock::Time { rate, .. } => {
                let t = self.steps as f64 / rate;
                self.steps += 1;
                self.step_time(hash, t)
            }
        }
    }

    fn step_at(&mut self, hash: u64, time: f64) -> bool {
        match self.g.clock {
            Clock::Count { .. } => self.step(hash),
            Clock::Time { .. } => self.step_time(hash, time),
        }
    }

    fn step_batch_at(&mut self, hashes: &[u64], times: &[f64], out: &mut [bool]) {
        timed_batch(self, hashes, times, out);
    }

    fn memory_bits(&self) -> u64 {
        self.cells.state_bits()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let q = match self.g.clock {
            Clock::Count { q } => q as f64,
            Clock::Time { q, .. } => q,
        };
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("window_seconds", self.window_seconds),
            crate::Param::new("stamp_bits", self.g.b),
            crate::Param::new("k", self.g.k),
            crate::Param::new("m", self.g.m),
            crate::Param::new("tick", q),
            crate::Param::new("live_ticks", self.g.live),
            crate::Param::new("cleaned_per_tick", self.g.per_tick),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.filled as f64 / self.g.m as f64,
        }
    }
}

impl TimingBloom {
    fn step_time(&mut self, hash: u64, time: f64) -> bool {
        if time > self.now {
            self.now = time;
        }
        self.advance(self.tick_of_time(self.now));
        self.detect_insert(hash)
    }
}

// Until `just roofline` writes its row into the calibration table, the cost model prices it at
// this many k = 2 Bloom steps: its roofline row (timing_bloom) at 1 Mbit over the Bloom filter's, key
// generation and hashing excluded, measured in one run beside the others.
crate::structure::impl_structure!(TimingBloom {
    name: "timing_bloom",
    params: TimingBloomParams,
    cost: 6.0,
    memory_bits_for: TimingBloom::memory_bits_for,
}
    /// `k` random cells (read, then stamped: the same lines) plus the cleaning pointer's lines,
    /// read in sequence ([`cleared_lines_per_element`](crate::Structure::cleared_lines_per_element)).
    fn cells_per_element(params: &TimingBloomParams, budget_bits: u64) -> f64 {
        match resolve(budget_bits, params) {
            Ok(g) => f64::from(g.k) + swept_lines_per_element(&g),
            Err(_) => 1.0,
        }
    }

    /// The cleaning pointer's cache lines per element: `⌈m/G⌉·b/512` per tick, over the
    /// elements of a tick (`q`, or `q·rate` for a time window).
    fn cleared_lines_per_element(params: &TimingBloomParams, budget_bits: u64) -> f64 {
        resolve(budget_bits, params).map_or(0.0, |g| swept_lines_per_element(&g))
    }

    /// A count window scales with the stream (`--scale`); a time window's seconds too, its
    /// rate kept (as the TLBF's).
    fn scaled_params(params: &TimingBloomParams, factor: u64) -> TimingBloomParams {
        let (window, window_seconds) = scaled(params.window, params.window_seconds, factor);
        TimingBloomParams {
            window,
            window_seconds,
            ..params.clone()
        }
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    fn count(w: u64, b: Option<u32>, k: u32) -> TimingBloomParams {
        TimingBloomParams {
            window: Some(w),
            stamp_bits: b,
            k: Some(k),
            ..Default::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// No false negatives within the window, exact or coarse ticks, against the
        /// brute-force windowed truth; with exact ticks nothing is reported beyond the window
        /// but false positives (negligible here: 2^21 cells, k = 8, a few hundred live).
        #[test]
        fn no_false_negatives_within_the_window(keys in prop::collection::vec(0u64..200, 1..3000), w in 1u64..300, b in prop::option::of(3u32..8)) {
            let p = count(w, b, 8);
            let mut f = TimingBloom::new(8 << 21, &p, 0).unwrap();
            let exact = f.g.clock == Clock::Count { q: 1 };
            let hashes: Vec<u64> = keys.iter().map(|&k| hash_key(k, 3)).collect();
            let gaps = crate::test_support::gaps(&hashes);
            for (i, (&h, &gap)) in hashes.iter().zip(&gaps).enumerate() {
                let dup = f.step(h);
                if gap.is_some_and(|d| d <= w) {
                    prop_assert!(dup, "false negative at {} (gap {:?})", i, gap);
                }
                if dup && exact {
                    prop_assert!(gap.is_some_and(|d| d <= w), "reported at {} (gap {:?})", i, gap);
                }
            }
        }

        /// Time windows: no false negatives within T seconds, at random gaps.
        #[test]
        fn no_false_negatives_within_the_time_window(keys in prop::collection::vec(0u64..100, 1..1500), gaps in prop::collection::vec(0.0f64..3.0, 1500), b in 3u32..10) {
            let t = 20.0;
            let p = TimingBloomParams { window_seconds: Some(t), rate: Some(1.0), stamp_bits: Some(b), k: Some(8), ..Default::default() };
            // 2^16 cells: the cleaning pointer's sweep, not the verdicts, grows with the table.
            let mut f = TimingBloom::new(u64::from(b) << 16, &p, 0).unwrap();
            let r = crate::window_clock::tests::no_false_negatives_in_time(&mut f, &keys, &gaps, t);
            prop_assert!(r.is_ok(), "{:?}", r);
        }
    }

    fn time(t: f64, b: u32) -> TimingBloomParams {
        TimingBloomParams {
            window_seconds: Some(t),
            rate: Some(1.0),
            stamp_bits: Some(b),
            k: Some(8),
            ..Default::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Time windows with silences of up to 10 windows (many stamp wraps at small `b`):
        /// every verdict is the exact tick model's (reported iff the previous occurrence's tick
        /// is at most `L` ticks back), so no false negative within `T` (the brute-force truth)
        /// and nothing reported beyond `T + 2q`. At most 800 of 2^16 cells are ever stamped
        /// (100 keys, k = 8), so a never-seen element's `r^k` is below 10⁻¹⁵ (and below 10⁻¹⁰
        /// over every case): any mismatch is the rule's.
        #[test]
        fn time_window_verdicts_are_the_tick_model_across_silences(keys in prop::collection::vec(0u64..100, 1..1500), gaps in prop::collection::vec(prop_oneof![9 => 0.0f64..3.0, 1 => 0.0f64..200.0], 1500), b in 3u32..10) {
            let t = 20.0;
            let mut f = TimingBloom::new(u64::from(b) << 16, &time(t, b), 0).unwrap();
            let Clock::Time { q, .. } = f.g.clock else { unreachable!() };
            let live = f.live_span();
            let mut last: std::collections::HashMap<u64, (u64, f64)> = Default::default();
            let mut now = 0.0;
            for (i, (&key, &gap)) in keys.iter().zip(&gaps).enumerate() {
                now += gap;
                let tick = (now / q).floor() as u64;
                let prev = last.insert(key, (tick, now));
                let want = prev.is_some_and(|(l, _)| tick - l <= live);
                let got = f.step_at(hash_key(key, 3), now);
                prop_assert_eq!(got, want, "element {} (key {}, tick {}, previous {:?})",
                    i, key, tick, prev);
                let d = prev.map(|(_, l)| now - l);
                prop_assert!(got || !d.is_some_and(|d| d <= t),
                    "false negative at {} (gap {:?})", i, d);
                prop_assert!(!got || d.is_some_and(|d| d < t + 2.0 * q),
                    "reported at {} (gap {:?})", i, d);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Small tables and short time jumps (0 to 4 ticks between elements), where a cleaning
        /// pointer that judged a jump's cells modulo `R` at the new tick would miss a stale
        /// stamp now and then: every verdict is the cell model's (all `k` cells last stamped at
        /// most `L` ticks back, the true ages kept beside the filter), collisions included.
        #[test]
        fn verdicts_are_the_cell_model_at_short_jumps(keys in prop::collection::vec(0u64..1000, 1..2000), jumps in prop::collection::vec(0.0f64..4.0, 2000), b in 3u32..7, m in 5u64..200, k in 1u32..4) {
            let p = TimingBloomParams { k: Some(k), ..time(20.0, b) };
            let mut f = TimingBloom::new(m * u64::from(b), &p, 0).unwrap();
            let Clock::Time { q, .. } = f.g.clock else { unreachable!() };
            let live = f.live_span();
            let mut stamped: Vec<Option<u64>> = vec![None; m as usize];
            let mut now = 0.0;
            for (i, (&key, &jump)) in keys.iter().zip(&jumps).enumerate() {
                now += jump * q;
                let tick = (now / q).floor() as u64;
                let h = hash_key(key, 3);
                let cells: Vec<usize> =
                    DoubleHash::new(h).indices(k, m).map(|c| c as usize).collect();
                let want = cells.iter().all(|&c| stamped[c].is_some_and(|s| tick - s <= live));
                prop_assert_eq!(f.step_at(h, now), want, "element {} at tick {}", i, tick);
                for c in cells {
                    stamped[c] = Some(tick);
                }
            }
        }
    }

    #[test]
    fn stamps_never_alias_after_a_silence() {
        // A key seen, then re-seen after a silence (nothing in between) of `L + 1 + j` ticks
        // for every `j` in `0..R` plus whole multiples of the stamp range `R` (where a stamp
        // judged modulo `R` at the new tick reads young again); half a tick of margin against
        // the rounding of `t/q`. Every such re-occurrence must be UNSEEN, and the next one,
        // 0.9·T later, DUPLICATE.
        let t = 10.0;
        for b in [3u32, 4, 5, 8] {
            let mut f = TimingBloom::new(1 << 16, &time(t, b), 0).unwrap();
            let Clock::Time { q, .. } = f.g.clock else {
                unreachable!()
            };
            let (live, range) = (f.live_span(), (1u64 << b) - 1);
            let key = hash_key(7, 1);
            let mut now = 0.0;
            assert!(!f.step_at(key, now));
            for wraps in 0..if b <= 5 { 20 } else { 3 } {
                for j in 0..range {
                    let ticks = live + 1 + j + wraps * range;
                    now += (ticks as f64 + 0.5) * q;
                    assert!(
                        !f.step_at(key, now),
                        "b = {b}: stale stamp read as live after {ticks} silent ticks"
                    );
                    now += 0.9 * t;
                    assert!(f.step_at(key, now), "b = {b}: false negative at 0.9·T");
                }
            }
        }
        // The case first seen: T = 10 s, b = 4, a key re-seen 22.1 s later.
        let mut f = TimingBloom::new(1 << 16, &time(t, 4), 0).unwrap();
        assert!(!f.step_at(hash_key(1, 1), 3.0));
        assert!(!f.step_at(hash_key(1, 1), 25.1));
    }

    #[test]
    fn fpr_matches_the_live_cells_and_their_expectation() {
        // Distinct keys, then never-seen queries: binomial with rate r^k given the live
        // fraction r, 99.9 % two-sided (3.3 sd); and r against 1 − (1 − 1/m)^{kW} within 0.01
        // (the sd of a fill of m ≥ 20,000 cells is below 0.004).
        for (w, budget, b, k) in [
            (20_000u64, 600_000u64, None, 4u32),
            (10_000, 240_000, Some(6), 3),
        ] {
            let mut f = TimingBloom::new(budget, &count(w, b, k), 0).unwrap();
            for i in 0..(5 * w + 777) {
                f.step(hash_key(i, 8));
            }
            let r = f.live_fraction();
            if b.is_none() {
                let e = expected_live_fraction(f.cells(), k, w);
                assert!((r - e).abs() < 0.01, "live fraction {r} against {e}");
            }
            crate::test_support::check_never_seen_fpr(
                &format!("timing_bloom W={w} b={b:?}"),
                |h| f.contains(h),
                r.powi(k as i32),
            );
        }
    }

    #[test]
    fn stale_stamps_never_wrap_into_the_window() {
        // b = 3: R = 7, Q = 3, the tightest margin (G = 2 ticks); a key seen once and never
        // again must not come back as live at any later tick, whatever the traffic.
        let p = count(3, Some(3), 2);
        let mut f = TimingBloom::new(3 * 64, &p, 0).unwrap();
        f.step(hash_key(1, 0));
        for i in 0..500u64 {
            f.step(hash_key(1000 + i % 5, 0));
            if i >= 3 {
                // Live only if every cell was restamped by another key recently.
                let cells: Vec<u64> = DoubleHash::new(hash_key(1, 0))
                    .indices(2, f.cells())
                    .collect();
                let explained = cells.iter().all(|&c| {
                    (0..5).any(|j| {
                        DoubleHash::new(hash_key(1000 + j, 0))
                            .indices(2, f.cells())
                            .any(|x| x == c)
                    })
                });
                assert!(
                    !f.contains(hash_key(1, 0)) || explained,
                    "stale stamp read as live at {i}"
                );
            }
        }
    }

    #[test]
    fn sizing() {
        let f = TimingBloom::new(170_001, &count(65_536, None, 3), 0).unwrap();
        assert_eq!(exact_stamp_bits(65_536), 18);
        assert_eq!(f.memory_bits(), 170_001 / 18 * 18);
        assert_eq!(f.live_span(), 65_536);
        // The smallest windows take the smallest stamp (2 bits would hold W = 1 exactly).
        let tiny = TimingBloom::new(1 << 10, &count(1, None, 3), 0).unwrap();
        assert_eq!(
            (tiny.g.b, tiny.g.clock, tiny.live_span()),
            (3, Clock::Count { q: 1 }, 1)
        );
        let coarse = TimingBloom::new(1 << 20, &count(65_536, Some(8), 3), 0).unwrap();
        // Q = 127, q = ⌈65,536/127⌉ = 517, L = ⌊65,536/517⌋ + 1 = 127.
        assert_eq!(
            (coarse.g.clock, coarse.live_span()),
            (Clock::Count { q: 517 }, 127)
        );
        let bad = [
            TimingBloomParams::default(),
            TimingBloomParams {
                window: Some(10),
                window_seconds: Some(1.0),
                ..Default::default()
            },
            TimingBloomParams {
                window_seconds: Some(1.0),
                ..Default::default()
            },
            count(10, Some(2), 3),
            count(10, None, 0),
        ];
        for p in bad {
            assert!(matches!(
                TimingBloom::new(1 << 20, &p, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
    }
}
