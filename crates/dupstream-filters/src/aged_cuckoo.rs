//! The aged cuckoo filter: a cuckoo filter whose fingerprints carry a coarse age (a clock) and
//! are retired as they leave the window, for count windows (`window`, elements) and time
//! windows (`window_seconds`). The construction Alluxio deploys as its `ClockCuckooFilter`
//! (`ConcurrentClockCuckooFilter`, Apache-2.0, `alluxio.client.file.cache.cuckoofilter`, the
//! shadow cache's working-set estimator), over Fan, Andersen, Kaminsky, Mitzenmacher, *Cuckoo
//! Filter: Practically Better Than Bloom*, CoNEXT 2014 (partial-key cuckoo hashing, 4 slots per
//! bucket).
//!
//! **Structure.** `n_b` buckets of 4 slots; a slot holds an `f`-bit fingerprint (`0` = empty)
//! and a `c`-bit clock, `M = 2^c − 1` at most. An element with key hash `h` has fingerprint
//! `fp ∈ 1..2^f`, buckets `i1 = reduce(h, n_b)` and `i2 = alt(i1, fp)`, with
//! `alt(i, fp) = (c(fp) − i) mod n_b` as the streaming cuckoo filter's
//! ([`crate::cuckoo`]).
//!
//! **The aging rule.**
//! - *What the age counts.* The clock counts sweeps still to survive. A sweep pointer walks
//!   the buckets in order, all `n_b` once per *period* of `P = ⌈W / M⌉` elements (count
//!   window) or `T / M` seconds (time window), advancing continuously: after `t` elements (or
//!   seconds) it has aged `⌊t·n_b / P⌋` buckets in all.
//! - *When a sweep retires entries.* Visiting a bucket, the sweep decrements every clock above
//!   0 and empties every slot whose clock is already 0 (Alluxio's `agingBucket`).
//! - *A step* first moves the sweep to the current time, then looks `fp` up in `i1` and `i2`:
//!   found, it answers DUPLICATE and resets that slot's clock to `M` (Alluxio's
//!   `mightContainAndResetClock`); not found, it answers UNSEEN and inserts `fp` with clock
//!   `M` (Alluxio's `put` after a failed lookup, the order its shadow cache uses).
//! - *What an insert does when both buckets are full.* Cuckoo relocation (Fan et al.'s
//!   Algorithm 1): swap with a random slot of `i1` or `i2`, move the victim to its other bucket,
//!   up to `max_kicks` (500) times; if every kick fails, the victim in hand is dropped. A moved
//!   entry keeps its count of visits to go, measured from the same round: from bucket `x` to
//!   `y` with the pointer at `p`, `c' = c + [x < p] − [y < p]` (within `0..=M`). Its retirement
//!   then moves by `(y − x)/n_b` of a period, and over any number of moves by the difference
//!   between its first and last bucket: less than one period either way, never accumulating.
//!   (Rounding each move up instead would keep every lifetime, but a round trip `x → y → x`
//!   would then gain a period, and entries kicked to and fro would never retire: measured, the
//!   load climbed past the window's and the table overflowed.)
//! - *What that does to false negatives.* An entry last seen at `t₀` is first visited at some
//!   `t₁ > t₀` and retired at the `(M+1)`-th visit, `t₁ + M·P > t₀ + M·P`: every re-occurrence
//!   within `W ≤ M·P` finds it, unless the table could not keep it: a dropped victim (the table
//!   too full for 500 kicks), or an entry relocated to a bucket earlier in the sweep order
//!   (retired up to one period early) that re-occurs in the window's last period. Entries live
//!   up to `(M + 1)·P` after their last occurrence (one period of slack), and up to one period
//!   more when relocated.
//!
//! **False positives.** A never-seen element matches an occupied slot of its two buckets with
//! probability `1/(2^f − 1)` each: given the buckets' occupancies `o_b`, the rate is
//! `1 − S²`, `S = mean_b (1 − 1/(2^f − 1))^{o_b}` ([`AgedCuckoo::false_positive_rate`], the two
//! buckets independent and uniform).
//!
//! Readings (where ours differs from Alluxio's code, read at commit
//! `0982684366d2d5f82925a46d670020a9a9487ca2`):
//! - Alluxio's period is `W >> c`, `W / 2^c`: an entry is retired `M` to `M + 1` periods after
//!   its last occurrence, so up to one period *before* the window ends (false negatives in the
//!   window's last `W/2^c`). Ours is `⌈W / M⌉`, which keeps the whole window.
//! - Alluxio ages lazily, per lock segment, from `put` and `delete` and a full `aging()` its
//!   caller schedules; ours sweeps every step, at the same pace in total.
//! - Alluxio's relocation is a breadth-first search (`MAX_BFS_PATH_LEN = 5`), and its search
//!   reads the first bucket's slots at every node, so in effect an insertion into two full
//!   buckets fails and the new fingerprint is not stored. Ours relocates by random walk.
//! - Alluxio's slot also holds a size and a scope (its cache accounting); ours fingerprint and
//!   clock only.
//! - `f` is given, or the largest whose table holds the window's elements at the target
//!   `load`: `n_live = W + P` (count) or `rate·T·(1 + 1/M)` (time) live entries at most, so
//!   `f = ⌊budget·load / n_live⌋ − c`, within `1..=57 − c`. A time window is sized for the
//!   mean `rate`: in bursts above it the table fills, relocations fail and victims are dropped
//!   (false negatives); a `load` below mean/peak leaves room for them.
//! - Time windows: plain [`DuplicateFilter::step`] uses an internal clock at `rate`, as the
//!   TLBF's does; an earlier time than the latest seen counts as the latest.

use crate::bits::PackedArray;
use crate::error::{Error, Result, ensure};
use crate::hash::{mix64, reduce, rehash};
use crate::rng::{FilterRng, Rng, filter_rng};
use crate::window_clock::{Window, scaled, timed_batch};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Slots per bucket.
pub const SLOTS: u64 = 4;
/// Default relocation limit (Fan et al.'s `MaxNumKicks`).
pub const MAX_KICKS: u32 = 500;

/// Parameters of an [`AgedCuckoo`]: a count window (`window`) or a time window
/// (`window_seconds`, with `rate`).
///
/// ```toml
/// window = 65536        # or: window_seconds = 64.0 and rate = 1024.0
/// clock_bits = 3        # default 3: c
/// fingerprint_bits = 12 # default: the largest that holds a window at `load`
/// load = 0.95           # default 0.95 (Alluxio's 0.955, rounded)
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct AgedCuckooParams {
    /// `W`, the window in elements (a count window).
    #[cfg_attr(feature = "serde", serde(default))]
    pub window: Option<u64>,
    /// `T`, the window in seconds (a time window).
    #[cfg_attr(feature = "serde", serde(default))]
    pub window_seconds: Option<f64>,
    /// Expected elements per second (time windows: `f`'s default and plain `step`'s clock).
    #[cfg_attr(feature = "serde", serde(default))]
    pub rate: Option<f64>,
    /// `c`, clock bits (1..=16; default 3).
    #[cfg_attr(feature = "serde", serde(default))]
    pub clock_bits: Option<u32>,
    /// `f`, fingerprint bits.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fingerprint_bits: Option<u32>,
    /// Target load at the most live entries, choosing `f` (default 0.95).
    #[cfg_attr(feature = "serde", serde(default))]
    pub load: Option<f64>,
    /// Relocations before a victim is dropped (default 500).
    #[cfg_attr(feature = "serde", serde(default))]
    pub max_kicks: Option<u32>,
}

/// The sweep's period: `P` elements or seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Period {
    Count(u64),
    Time { seconds: f64, rate: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Geometry {
    buckets: u64,
    f: u32,
    c: u32,
    period: Period,
    kicks: u32,
}

fn resolve(budget_bits: u64, p: &AgedCuckooParams) -> Result<Geometry> {
    let c = p.clock_bits.unwrap_or(3);
    ensure((1..=16).contains(&c), "clock_bits", c, "must be in 1..=16")?;
    let m = (1u64 << c) - 1;
    let load = p.load.unwrap_or(0.95);
    ensure(load > 0.0 && load <= 1.0, "load", load, "must be in (0, 1]")?;
    let (period, live) = match Window::new(p.window, p.window_seconds, p.rate)? {
        Window::Count(w) => {
            let period = w.div_ceil(m);
            (Period::Count(period), (w + period) as f64)
        }
        Window::Time { seconds, rate } => {
            let period = seconds / m as f64;
            (
                Period::Time {
                    seconds: period,
                    rate,
                },
                rate * (seconds + period),
            )
        }
    };
    let max_f = PackedArray::MAX_WIDTH - c;
    let f = match p.fingerprint_bits {
        Some(f) => {
            ensure(
                (1..=max_f).contains(&f),
                "fingerprint_bits",
                f,
                &format!("must be in 1..={max_f} with {c} clock bits"),
            )?;
            f
        }
        None => {
            let per_entry = (budget_bits as f64 * load / live).floor() as i64 - i64::from(c);
            per_entry.clamp(1, i64::from(max_f)) as u32
        }
    };
    let buckets = budget_bits / (SLOTS * u64::from(f + c));
    if buckets == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "aged_cuckoo",
            budget_bits,
            needed_bits: SLOTS * u64::from(f + c),
        });
    }
    crate::error::words_for_bits("aged_cuckoo", buckets * SLOTS * u64::from(f + c))?;
    Ok(Geometry {
        buckets,
        f,
        c,
        period,
        kicks: p.max_kicks.unwrap_or(MAX_KICKS),
    })
}

/// The aged cuckoo filter (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, aged_cuckoo::{AgedCuckoo, AgedCuckooParams}};
/// let p = AgedCuckooParams { window: Some(100), ..Default::default() };
/// let mut f = AgedCuckoo::new(1 << 14, &p, 0).unwrap();
/// assert!(!f.step(7));
/// for h in 1000..1099u64 {
///     f.step(h);
/// }
/// assert!(f.step(7)); // gap 100: within the window
/// ```
#[derive(Debug, Clone)]
pub struct AgedCuckoo {
    /// Slot `4·b + j`: `fp << c | clock`.
    slots: PackedArray,
    g: Geometry,
    window: Option<u64>,
    window_seconds: Option<f64>,
    /// Buckets aged so far in all (`A`).
    aged: u64,
    /// Elements seen.
    steps: u64,
    /// Latest time seen.
    now: f64,
    filled: u64,
    dropped: u64,
    moves: u64,
    rng: FilterRng,
}

impl AgedCuckoo {
    /// An aged cuckoo filter within `budget_bits`, its relocations drawn from `seed`.
    pub fn new(budget_bits: u64, params: &AgedCuckooParams, seed: u64) -> Result<Self> {
        let g = resolve(budget_bits, params)?;
        Ok(Self {
            slots: PackedArray::new("aged_cuckoo", g.buckets * SLOTS, g.f + g.c)?,
            g,
            window: params.window,
            window_seconds: params.window_seconds,
            aged: 0,
            steps: 0,
            now: 0.0,
            filled: 0,
            dropped: 0,
            moves: 0,
            rng: filter_rng(seed, 0),
        })
    }

    /// The state size for this budget: `4·n_b·(f + c)` (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &AgedCuckooParams) -> Result<u64> {
        let g = resolve(budget_bits, params)?;
        Ok(g.buckets * SLOTS * u64::from(g.f + g.c))
    }

    /// `f`.
    pub fn fingerprint_bits(&self) -> u32 {
        self.g.f
    }

    /// `n_b`.
    pub fn buckets(&self) -> u64 {
        self.g.buckets
    }

    /// Fingerprints dropped after `max_kicks` failed relocations.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Entries relocated so far.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    #[inline(always)]
    fn max_clock(&self) -> u64 {
        (1u64 << self.g.c) - 1
    }

    #[inline(always)]
    fn fingerprint(&self, hash: u64) -> u64 {
        1 + reduce(rehash(hash, 0xa9ed), (1u64 << self.g.f) - 1)
    }

    #[inline(always)]
    fn alt(&self, i: u64, fp: u64) -> u64 {
        let n = self.g.buckets;
        let c = reduce(mix64(fp ^ 0x5a17_c10c), n);
        if c >= i { c - i } else { c + n - i }
    }

    /// The slot of bucket `b` holding `fp`.
    #[inline]
    fn find(&self, b: u64, fp: u64) -> Option<u64> {
        (b * SLOTS..(b + 1) * SLOTS).find(|&s| self.slots.get(s) >> self.g.c == fp)
    }

    /// Membership query without update.
    pub fn contains(&self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let i1 = reduce(hash, self.g.buckets);
        self.find(i1, fp).is_some() || self.find(self.alt(i1, fp), fp).is_some()
    }

    /// The probability that a never-seen element matches, given the state: `1 − S²`,
    /// `S = mean_b (1 − 1/(2^f − 1))^{o_b}`.
    pub fn false_positive_rate(&self) -> f64 {
        let miss = 1.0 - 1.0 / ((1u64 << self.g.f) - 1) as f64;
        let s = (0..self.g.buckets)
            .map(|b| {
                let o = (b * SLOTS..(b + 1) * SLOTS)
                    .filter(|&s| self.slots.get(s) != 0)
                    .count();
                miss.powi(o as i32)
            })
            .sum::<f64>()
            / self.g.buckets as f64;
        1.0 - s * s
    }

    /// Ages buckets until `target` have been aged in all (a whole table at most
    /// `M + 1` times: after that every entry is gone).
    fn age_to(&mut self, target: u64) {
        if target <= self.aged {
            return;
        }
        let n = self.g.buckets;
        let rounds = self.max_clock() + 1;
        let todo = (target - self.aged).min(rounds * n);
        let mut b = (target - todo) % n;
        for _ in 0..todo {
            for s in b * SLOTS..(b + 1) * SLOTS {
                let v = self.slots.get(s);
                if v == 0 {
                    continue;
                }
                if v & self.max_clock() == 0 {
                    self.slots.set(s, 0);
                    self.filled -= 1;
                } else {
                    self.slots.set(s, v - 1);
                }
            }
            b = if b + 1 == n { 0 } else { b + 1 };
        }
        self.aged = target;
    }

    /// Query, refresh or insert.
    fn detect_insert(&mut self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let full = (fp << self.g.c) | self.max_clock();
        let i1 = reduce(hash, self.g.buckets);
        let i2 = self.alt(i1, fp);
        if let Some(s) = self.find(i1, fp).or_else(|| self.find(i2, fp)) {
            self.slots.set(s, full);
            return true;
        }
        for b in [i1, i2] {
            if let Some(s) = (b * SLOTS..(b + 1) * SLOTS).find(|&s| self.slots.get(s) == 0) {
                self.slots.set(s, full);
                self.filled += 1;
                return false;
            }
        }
        self.relocate(i1, i2, full);
        false
    }

    /// Fan et al.'s random walk from `i1` or `i2` with entry `entry` in hand.
    fn relocate(&mut self, i1: u64, i2: u64, mut entry: u64) {
        let mut b = if self.rng.next_u64() >> 63 == 0 {
            i1
        } else {
            i2
        };
        for _ in 0..self.g.kicks {
            let s = b * SLOTS + reduce(self.rng.next_u64(), SLOTS);
            let victim = self.slots.replace(s, entry);
            let vfp = victim >> self.g.c;
            let to = self.alt(b, vfp);
            entry = self.moved(victim, b, to);
            if let Some(e) = (to * SLOTS..(to + 1) * SLOTS).find(|&s| self.slots.get(s) == 0) {
                self.slots.set(e, entry);
                self.filled += 1;
                return;
            }
            b = to;
        }
        self.dropped += 1;
    }

    /// `entry` moved from bucket `x` to `y`: its clock counted from the same round
    /// (`c + [x < p] − [y < p]`, within `0..=M`).
    #[inline]
    fn moved(&mut self, entry: u64, x: u64, y: u64) -> u64 {
        self.moves += 1;
        let p = self.aged % self.g.buckets;
        let clock = entry & self.max_clock();
        let adjusted = (clock + u64::from(x < p))
            .saturating_sub(u64::from(y < p))
            .min(self.max_clock());
        (entry & !self.max_clock()) | adjusted
    }

    fn step_time(&mut self, hash: u64, time: f64) -> bool {
        if time > self.now {
            self.now = time;
        }
        if let Period::Time { seconds, .. } = self.g.period {
            let target = (self.now / seconds * self.g.buckets as f64).floor() as u64;
            self.age_to(target);
        }
        self.detect_insert(hash)
    }
}

impl DuplicateFilter for AgedCuckoo {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        match self.g.period {
            Period::Count(p) => {
                let target =
                    (u128::from(self.steps) * u128::from(self.g.buckets) / u128::from(p)) as u64;
                self.age_to(target);
                self.steps += 1;
                self.detect_insert(hash)
            }
            Period::Time { rate, .. } => {
                let t = self.steps as f64 / rate;
                self.steps += 1;
                self.step_time(hash, t)
            }
        }
    }

    fn step_at(&mut self, hash: u64, time: f64) -> bool {
        match self.g.period {
            Period::Count(_) => self.step(hash),
            Period::Time { .. } => self.step_time(hash, time),
        }
    }

    fn step_batch_at(&mut self, hashes: &[u64], times: &[f64], out: &mut [bool]) {
        timed_batch(self, hashes, times, out);
    }

    fn memory_bits(&self) -> u64 {
        self.slots.state_bits()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let period = match self.g.period {
            Period::Count(p) => p as f64,
            Period::Time { seconds, .. } => seconds,
        };
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("window_seconds", self.window_seconds),
            crate::Param::new("clock_bits", self.g.c),
            crate::Param::new("fingerprint_bits", self.g.f),
            crate::Param::new("buckets", self.g.buckets),
            crate::Param::new("period", period),
            crate::Param::new("max_kicks", self.g.kicks),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.filled as f64 / (self.g.buckets * SLOTS) as f64,
        }
    }
}

// Until `just roofline` writes its row into the calibration table, the cost model prices it at
// this many k = 2 Bloom steps: its roofline row (aged_cuckoo) at 1 Mbit over the Bloom filter's, key
// generation and hashing excluded, measured in one run beside the others.
crate::structure::impl_structure!(AgedCuckoo {
    name: "aged_cuckoo",
    params: AgedCuckooParams,
    cost: 27.0,
    memory_bits_for: AgedCuckoo::memory_bits_for,
}
    /// 2 random buckets (a lookup reads both; an insertion writes one of them) plus the
    /// sweep's buckets, read in sequence
    /// ([`cleared_lines_per_element`](crate::Structure::cleared_lines_per_element)).
    fn cells_per_element(params: &AgedCuckooParams, budget_bits: u64) -> f64 {
        2.0 + swept_lines(params, budget_bits)
    }

    /// The sweep's lines per element: `n_b·4·(f + c) / 512` bits per period of `P` elements.
    fn cleared_lines_per_element(params: &AgedCuckooParams, budget_bits: u64) -> f64 {
        swept_lines(params, budget_bits)
    }

    /// A count window scales with the stream (`--scale`); a time window's seconds too, its
    /// rate kept (as the TLBF's).
    fn scaled_params(params: &AgedCuckooParams, factor: u64) -> AgedCuckooParams {
        let (window, window_seconds) = scaled(params.window, params.window_seconds, factor);
        AgedCuckooParams {
            window,
            window_seconds,
            ..params.clone()
        }
    }
);

/// Cache lines of 512 bits the sweep reads per element.
fn swept_lines(params: &AgedCuckooParams, budget_bits: u64) -> f64 {
    resolve(budget_bits, params).map_or(0.0, |g| {
        let elements = match g.period {
            Period::Count(p) => p as f64,
            Period::Time { seconds, rate } => seconds * rate,
        };
        (g.buckets * SLOTS * u64::from(g.f + g.c)) as f64 / 512.0 / elements
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    fn count(w: u64, c: u32, f: Option<u32>) -> AgedCuckooParams {
        AgedCuckooParams {
            window: Some(w),
            clock_bits: Some(c),
            fingerprint_bits: f,
            ..Default::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// No false negatives within the window, against the brute-force windowed truth, while
        /// nothing has been relocated or dropped (a large table; a small one relocates, where a
        /// moved entry may retire up to a period early); with 40-bit fingerprints (false
        /// positives negligible) nothing is reported beyond `(M + 2)·P` (the window plus a
        /// period of slack, plus one for a relocated entry).
        #[test]
        fn no_false_negatives_within_the_window(keys in prop::collection::vec(0u64..300, 1..3000), w in 1u64..300, c in 1u32..5, small in any::<bool>()) {
            // A small table (some relocations) or a large one.
            let budget = if small { 4 * 44 * (w + 64) } else { 1 << 20 };
            let p = count(w, c, Some(40));
            let mut f = AgedCuckoo::new(budget, &p, 1).unwrap();
            let period = w.div_ceil((1 << c) - 1);
            let hashes: Vec<u64> = keys.iter().map(|&k| hash_key(k, 3)).collect();
            let gaps = crate::test_support::gaps(&hashes);
            for (i, (&h, &gap)) in hashes.iter().zip(&gaps).enumerate() {
                let dup = f.step(h);
                if gap.is_some_and(|d| d <= w) && f.dropped() == 0 && f.moves() == 0 {
                    prop_assert!(dup, "false negative at {} (gap {:?})", i, gap);
                }
                if dup {
                    prop_assert!(gap.is_some_and(|d| d <= ((1 << c) + 1) * period), "reported at {} (gap {:?})", i, gap);
                }
            }
        }

        /// Time windows: no false negatives within T seconds, at random gaps.
        #[test]
        fn no_false_negatives_within_the_time_window(keys in prop::collection::vec(0u64..100, 1..1500), gaps in prop::collection::vec(0.0f64..3.0, 1500), c in 1u32..5) {
            let t = 20.0;
            let p = AgedCuckooParams { window_seconds: Some(t), rate: Some(1.0), clock_bits: Some(c), fingerprint_bits: Some(40), ..Default::default() };
            let mut f = AgedCuckoo::new(1 << 18, &p, 0).unwrap();
            let r = crate::window_clock::tests::no_false_negatives_in_time(&mut f, &keys, &gaps, t);
            prop_assert!(r.is_ok(), "{:?}", r);
        }
    }

    #[test]
    fn fpr_matches_the_occupancy() {
        // Distinct keys, then never-seen queries: binomial with the rate given the buckets'
        // occupancies, 99.9 % two-sided (3.3 sd).
        for (w, budget, c, f) in [
            (20_000u64, 400_000u64, 3u32, Some(8u32)),
            (30_000, 500_000, 2, None),
        ] {
            let mut filter = AgedCuckoo::new(budget, &count(w, c, f), 0).unwrap();
            for i in 0..(4 * w + 777) {
                filter.step(hash_key(i, 8));
            }
            assert_eq!(filter.dropped(), 0);
            let rate = filter.false_positive_rate();
            crate::test_support::check_never_seen_fpr(
                &format!("aged_cuckoo W={w} c={c} f={}", filter.fingerprint_bits()),
                |h| filter.contains(h),
                rate,
            );
        }
    }

    #[test]
    fn sizing() {
        // W = 65,536, c = 3: P = 9,363, n_live = 74,899; 2^20 bits at load 0.95: f = 13 − 3 = 10.
        let f = AgedCuckoo::new(1 << 20, &count(65_536, 3, None), 0).unwrap();
        assert_eq!(f.fingerprint_bits(), 10);
        assert_eq!(f.buckets(), (1 << 20) / (4 * 13));
        assert_eq!(f.memory_bits(), f.buckets() * 4 * 13);
        let bad = [
            AgedCuckooParams::default(),
            AgedCuckooParams {
                window: Some(10),
                window_seconds: Some(1.0),
                ..Default::default()
            },
            AgedCuckooParams {
                window_seconds: Some(1.0),
                ..Default::default()
            },
            count(10, 0, None),
            count(10, 3, Some(55)),
            AgedCuckooParams {
                load: Some(1.5),
                ..count(10, 3, None)
            },
        ];
        for p in bad {
            assert!(matches!(
                AgedCuckoo::new(1 << 20, &p, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
        assert!(matches!(
            AgedCuckoo::new(10, &count(10, 3, Some(8)), 0),
            Err(Error::BudgetTooSmall { .. })
        ));
    }
}
