//! The aged cuckoo filter: a cuckoo filter whose fingerprints carry a coarse age and are retired
//! as they leave the window, for count windows (`window`, elements) and time windows
//! (`window_seconds`). Two aging rules: Alluxio's clock (`aging = "clock"`, the default) and a
//! timestamp (`aging = "stamp"`, ours: Alluxio has only the clock). The clock rule is the
//! construction Alluxio deploys as its `ClockCuckooFilter` (`ConcurrentClockCuckooFilter`,
//! Apache-2.0, `alluxio.client.file.cache.cuckoofilter`, the shadow cache's working-set
//! estimator), over Fan, Andersen, Kaminsky, Mitzenmacher, *Cuckoo Filter: Practically Better
//! Than Bloom*, CoNEXT 2014 (partial-key cuckoo hashing, 4 slots per bucket).
//!
//! **Structure.** `n_b` buckets of 4 slots; a slot holds an `f`-bit fingerprint (`0` = empty)
//! and a `c`-bit age field (a clock, or a stamp). An element with key hash `h` has fingerprint
//! `fp ∈ 1..2^f`, buckets `i1 = reduce(h, n_b)` and `i2 = alt(i1, fp)`, with
//! `alt(i, fp) = (c(fp) − i) mod n_b` as the streaming cuckoo filter's
//! ([`crate::cuckoo`]).
//!
//! **The clock rule** (`aging = "clock"`, `c = clock_bits`, `M = 2^c − 1`).
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
//!   up to `(M + 1)·P` after their last occurrence (one period of slack, `W/M`), and up to one
//!   period more when relocated. Each bucket is visited `M` times per window: the sweep's cost
//!   grows as `2^c`.
//!
//! **The stamp rule** (`aging = "stamp"`, `c = stamp_bits`, `R = 2^c`, `L₀ = R/2`; ours, in
//! the style of the Timing Bloom filter's stamps, [`crate::timing_bloom`]).
//! - *Ticks.* Time is counted in ticks of `q` elements (count window: `q = ⌈W/L₀⌉`, live span
//!   `L = ⌈W/q⌉ ≤ L₀` ticks; `W ≤ L₀` gives `q = 1`, `L = W`, the window exactly) or `q`
//!   seconds (time window: `q = T/(L₀ − 1/16)`, `L = L₀`). Element `i` of a count window is at
//!   tick `⌊i/q⌋`; an element at `t` seconds at tick `⌊t/q⌋`.
//! - *What a slot stores.* Its fingerprint and the stamp `τ mod R` of the tick `τ` of its
//!   last occurrence; at tick `τ'` its *age* is `(τ' − τ) mod R`, and it is *live* iff its age
//!   is at most `L`. A lookup matches live slots only; an insert takes an empty slot or an
//!   expired one (an expired slot counts as empty).
//! - *A step* moves the clock (and the cleaning pointer) to the current tick, then looks `fp`
//!   up among the live slots of `i1` and `i2`: found, DUPLICATE, and the slot's stamp becomes
//!   the current tick's; not found, UNSEEN, and `fp` is inserted with the current stamp (into
//!   two full buckets by the same relocation as the clock rule's; only live entries are ever
//!   moved, and a moved entry keeps its stamp, so relocation changes no lifetime).
//! - *Why stamps never alias.* An age read modulo `R` is right while every stored stamp is
//!   younger than `R` ticks. A cleaning pointer visits the next `⌈n_b/G⌉` buckets per tick,
//!   `G = R − L − 1 ≥ R/2 − 1` ticks of margin, and empties the expired slots it finds: every
//!   bucket is visited within any `G` consecutive ticks, so an entry that expires at age
//!   `L + 1` is emptied by age `L + G = R − 1`, before its age could wrap. When time jumps by
//!   `Δ` ticks the pointer visits `⌈n_b/G⌉` buckets for each tick passed, each at its own tick
//!   (its age computed from the previous tick's, exact under the invariant), or, when that is
//!   `n_b` or more, every bucket at the new tick: a jump of any length leaves no stale stamp.
//!   Each bucket is visited about once per window (`L/G ≈ 1`), whatever `c`.
//! - *False negatives.* A re-occurrence at gap `d ≤ W` (or `d ≤ T`) is at most `⌈d/q⌉ ≤ L`
//!   ticks later (`⌊a + b⌋ ≤ ⌊a⌋ + ⌈b⌉`; a time window keeps 1/16 tick of margin against
//!   the rounding of `t/q`), so it finds its live entry: no false negatives while the table
//!   keeps every entry (a dropped victim, when 500 kicks fail, is the only loss).
//! - *Slack.* An entry stays live until its tick is `L + 1` ticks past its stamp's: up to
//!   `(L + 1)·q` after its last occurrence: for a count window, gaps up to `(L + 1)·q − 1`
//!   elements, `(L + 1)·q − 1 − W` past the window (at least `q − 1`, less than `2q`), and for
//!   a time window between `q/16` and `17q/16` past `T` (`9q/16 ≈ 9T/(16L₀)` on average). An
//!   element whose previous occurrence is in that slack is reported DUPLICATE (a windowed
//!   false positive). At equal `c` that is a few times the clock rule's slack (`P/2 = W/(2M)`
//!   on average), but the cleaning does not grow with `c`: the clock rule visits every bucket
//!   `M` times per window, the stamp rule about once, so `c` can be 10 or 12 where the clock's
//!   sweep would cost 1,000 visits.
//!
//! **False positives.** A step stores no fingerprint that its two buckets already hold live
//! (it would have matched), and an entry with fingerprint `x` in bucket `b` belongs to the
//! pair `{b, alt(b, x)}`: so a bucket pair holds each fingerprint at most once, and a
//! never-seen element with fingerprint `x` matches the live slots of its two buckets in
//! disjoint events of probability `1/(2^f − 1)` each. Given `N` live slots, the rate is
//! `2N / (n_b·(2^f − 1)) = 8ℓ/(2^f − 1)` at a load `ℓ` of live slots
//! ([`AgedCuckoo::false_positive_rate`], the buckets uniform; treating the slots as
//! independent instead, `1 − (1 − 1/(2^f − 1))^{o₁+o₂}`, is about 3 % low at `f = 7`,
//! measured). Elements re-seen just past the window add the slack's.
//!
//! Readings (where ours differs from Alluxio's code, read at commit
//! `0982684366d2d5f82925a46d670020a9a9487ca2`):
//! - Alluxio's period is `W >> c`, `W / 2^c`: an entry is retired `M` to `M + 1` periods after
//!   its last occurrence, so up to one period *before* the window ends (false negatives in the
//!   window's last `W/2^c`). Ours is `⌈W / M⌉`, which keeps the whole window.
//! - Alluxio ages lazily, per lock segment, from `put` and `delete` and a full `aging()` its
//!   caller schedules; ours sweeps every step, at the same pace in total. With one `aging()`
//!   per period, its bucket is visited once per period but anywhere in it, so an entry retires
//!   `M − 1` to `M + 2` periods after its last occurrence (ours: `M` to `M + 1`).
//! - Alluxio's relocation is a breadth-first search (`MAX_BFS_PATH_LEN = 5`), and its search
//!   reads the first bucket's slots at every node, so in effect an insertion into two full
//!   buckets fails and the new fingerprint is not stored (on the conformance stream at load
//!   0.6, 7,472 of 218k insertions: its FNR 2.98 %). Ours relocates by random walk.
//! - Alluxio's tag is the hash's low `f` bits with `0` mapped to `1`, so tag 1 is twice as
//!   likely (FPR higher by a relative `≈ 2^−f`); ours is uniform on `1..=2^f − 1`.
//! - Checked against Alluxio's code on the conformance stream (the crate README,
//!   "Conformance"): at equal `c`, `f`, buckets and period, the FPR past both lifetimes agrees.
//! - Alluxio's slot also holds a size and a scope (its cache accounting); ours fingerprint and
//!   age only.
//! - The stamp rule is not Alluxio's: its tick, live span, margin and cleaning pace are ours
//!   (the Timing Bloom filter's argument, with `0` for empty carried by the fingerprint, so
//!   all `2^c` stamps are usable).
//! - `f` is given, or the largest whose table holds the window's elements at the target
//!   `load`: `n_live` live entries at most, `W + P` (clock, count), `rate·T·(1 + 1/M)` (clock,
//!   time), `(L + 1)·q` (stamp, count) or `rate·(L + 1)·q` (stamp, time), so
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
/// Smallest stamp width of the stamp rule (`R = 4`, `L = 2`, one tick of margin).
pub const MIN_STAMP_BITS: u32 = 2;
/// Largest stamp width of the stamp rule.
pub const MAX_STAMP_BITS: u32 = 32;
/// The stamp rule's default stamp width.
pub const DEFAULT_STAMP_BITS: u32 = 8;

/// How entries age (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Aging {
    /// Alluxio's clock: `M = 2^c − 1` decrement sweeps per window.
    #[default]
    Clock,
    /// A `c`-bit stamp of the last occurrence's tick, with a cleaning pointer (ours).
    Stamp,
}

impl Aging {
    /// Whether this is the default, [`Aging::Clock`] (left out when serialized).
    pub fn is_clock(&self) -> bool {
        *self == Aging::Clock
    }
}

/// Parameters of an [`AgedCuckoo`]: a count window (`window`) or a time window
/// (`window_seconds`, with `rate`).
///
/// ```toml
/// window = 65536        # or: window_seconds = 64.0 and rate = 1024.0
/// clock_bits = 3        # default 3: c of the clock rule
/// # aging = "stamp"     # the stamp rule instead, with stamp_bits = 8 (default 8) for c
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
    /// The aging rule: `"clock"` (default, Alluxio's) or `"stamp"` (ours).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Aging::is_clock")
    )]
    pub aging: Aging,
    /// `c` of the clock rule, clock bits (1..=16; default 3).
    #[cfg_attr(feature = "serde", serde(default))]
    pub clock_bits: Option<u32>,
    /// `c` of the stamp rule, stamp bits (2..=32; default 8).
    #[cfg_attr(feature = "serde", serde(default))]
    pub stamp_bits: Option<u32>,
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

/// The clock rule's sweep period, or the stamp rule's tick: `P` (or `q`) elements or seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Period {
    Count(u64),
    Time { seconds: f64, rate: f64 },
}

/// The stamp rule's live span and cleaning pace.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stamps {
    /// `L`, ticks an entry stays live.
    live: u64,
    /// Buckets cleaned per tick, `⌈n_b / G⌉`.
    per_tick: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Geometry {
    buckets: u64,
    f: u32,
    c: u32,
    /// The clock's period, or the stamp rule's tick.
    period: Period,
    /// `Some` under the stamp rule.
    stamps: Option<Stamps>,
    kicks: u32,
}

/// The clock rule's `c`, its period and its most live entries.
fn clock_rule(p: &AgedCuckooParams, window: Window) -> Result<(u32, Period, f64)> {
    ensure(
        p.stamp_bits.is_none(),
        "stamp_bits",
        p.stamp_bits.unwrap_or(0),
        "applies to aging = \"stamp\" only",
    )?;
    let c = p.clock_bits.unwrap_or(3);
    ensure((1..=16).contains(&c), "clock_bits", c, "must be in 1..=16")?;
    let m = (1u64 << c) - 1;
    Ok(match window {
        Window::Count(w) => {
            let period = w.div_ceil(m);
            (c, Period::Count(period), (w + period) as f64)
        }
        Window::Time { seconds, rate } => {
            let period = seconds / m as f64;
            (
                c,
                Period::Time {
                    seconds: period,
                    rate,
                },
                rate * (seconds + period),
            )
        }
    })
}

/// The stamp rule's `c`, its tick, its live span `L` and its most live entries.
fn stamp_rule(p: &AgedCuckooParams, window: Window) -> Result<(u32, Period, u64, f64)> {
    ensure(
        p.clock_bits.is_none(),
        "clock_bits",
        p.clock_bits.unwrap_or(0),
        "applies to aging = \"clock\" only (the stamp rule's width is stamp_bits)",
    )?;
    let c = p.stamp_bits.unwrap_or(DEFAULT_STAMP_BITS);
    ensure(
        (MIN_STAMP_BITS..=MAX_STAMP_BITS).contains(&c),
        "stamp_bits",
        c,
        &format!("must be in {MIN_STAMP_BITS}..={MAX_STAMP_BITS}"),
    )?;
    let l0 = 1u64 << (c - 1);
    Ok(match window {
        Window::Count(w) => {
            let q = w.div_ceil(l0);
            let live = w.div_ceil(q);
            (c, Period::Count(q), live, ((live + 1) * q) as f64)
        }
        Window::Time { seconds, rate } => {
            let q = seconds / (l0 as f64 - 1.0 / 16.0);
            (
                c,
                Period::Time { seconds: q, rate },
                l0,
                rate * q * (l0 + 1) as f64,
            )
        }
    })
}

fn resolve(budget_bits: u64, p: &AgedCuckooParams) -> Result<Geometry> {
    let window = Window::new(p.window, p.window_seconds, p.rate)?;
    let (c, period, live_span, live) = match p.aging {
        Aging::Clock => {
            let (c, period, live) = clock_rule(p, window)?;
            (c, period, None, live)
        }
        Aging::Stamp => {
            let (c, period, span, live) = stamp_rule(p, window)?;
            (c, period, Some(span), live)
        }
    };
    let load = p.load.unwrap_or(0.95);
    ensure(load > 0.0 && load <= 1.0, "load", load, "must be in (0, 1]")?;
    let max_f = PackedArray::MAX_WIDTH - c;
    let age = if p.aging == Aging::Clock {
        "clock"
    } else {
        "stamp"
    };
    let f = match p.fingerprint_bits {
        Some(f) => {
            ensure(
                (1..=max_f).contains(&f),
                "fingerprint_bits",
                f,
                &format!("must be in 1..={max_f} with {c} {age} bits"),
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
    let stamps = live_span.map(|live| {
        let margin = (1u64 << c) - live - 1;
        Stamps {
            live,
            per_tick: buckets.div_ceil(margin),
        }
    });
    Ok(Geometry {
        buckets,
        f,
        c,
        period,
        stamps,
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
    /// Slot `4·b + j`: `fp << c | age` (a clock, or a stamp).
    slots: PackedArray,
    g: Geometry,
    window: Option<u64>,
    window_seconds: Option<f64>,
    /// Buckets aged (clock) or cleaned (stamp) so far in all (`A`).
    aged: u64,
    /// The current tick (stamp rule).
    tick: u64,
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
            tick: 0,
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

    /// The stamp rule's live span `L` in ticks (`None` under the clock rule).
    pub fn live_ticks(&self) -> Option<u64> {
        self.g.stamps.map(|s| s.live)
    }

    #[inline(always)]
    fn max_clock(&self) -> u64 {
        (1u64 << self.g.c) - 1
    }

    /// Whether a stored value answers lookups: non-empty, and under the stamp rule at most `L`
    /// ticks old (its age `(τ − stamp) mod 2^c`: the fingerprint's bits fall off the mask).
    #[inline(always)]
    fn is_live(&self, v: u64) -> bool {
        v != 0
            && self
                .g
                .stamps
                .is_none_or(|s| self.tick.wrapping_sub(v) & self.max_clock() <= s.live)
    }

    /// Whether an insert may take a slot holding `v`: empty, or expired (stamp rule).
    #[inline(always)]
    fn is_free(&self, v: u64) -> bool {
        !self.is_live(v)
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

    /// The live slot of bucket `b` holding `fp`.
    #[inline]
    fn find(&self, b: u64, fp: u64) -> Option<u64> {
        (b * SLOTS..(b + 1) * SLOTS).find(|&s| {
            let v = self.slots.get(s);
            v >> self.g.c == fp && self.is_live(v)
        })
    }

    /// Membership query without update.
    pub fn contains(&self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let i1 = reduce(hash, self.g.buckets);
        self.find(i1, fp).is_some() || self.find(self.alt(i1, fp), fp).is_some()
    }

    /// The probability that a never-seen element matches, given the state:
    /// `2N / (n_b·(2^f − 1))`, `N` the live slots (at most 1).
    pub fn false_positive_rate(&self) -> f64 {
        let live = (0..self.g.buckets * SLOTS)
            .filter(|&s| self.is_live(self.slots.get(s)))
            .count() as f64;
        let cells = self.g.buckets as f64 * ((1u64 << self.g.f) - 1) as f64;
        (2.0 * live / cells).min(1.0)
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

    /// Stamp rule: moves the clock to tick `t` (not backwards), the cleaning pointer visiting
    /// `⌈n_b/G⌉` buckets per tick passed, each at its own tick, or every bucket at `t` when
    /// that is `n_b` or more. An entry's age at the visit is its age at the previous tick (exact:
    /// no stored stamp is `R` ticks old) plus the ticks since.
    fn clean_to(&mut self, t: u64) {
        if t <= self.tick {
            return;
        }
        let Some(st) = self.g.stamps else { return };
        let n = self.g.buckets;
        let delta = t - self.tick;
        let whole = delta.saturating_mul(st.per_tick) >= n;
        let visits = if whole { n } else { delta * st.per_tick };
        let (before, mask) = (self.tick, self.max_clock());
        let mut b = self.aged % n;
        for j in 0..visits {
            let since = if whole { delta } else { 1 + j / st.per_tick };
            for s in b * SLOTS..(b + 1) * SLOTS {
                let v = self.slots.get(s);
                if v != 0 && (before.wrapping_sub(v) & mask) + since > st.live {
                    self.slots.set(s, 0);
                    self.filled -= 1;
                }
            }
            b = if b + 1 == n { 0 } else { b + 1 };
        }
        self.aged += visits;
        self.tick = t;
    }

    /// Query, refresh or insert.
    fn detect_insert(&mut self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let age = if self.g.stamps.is_some() {
            self.tick & self.max_clock()
        } else {
            self.max_clock()
        };
        let full = (fp << self.g.c) | age;
        let i1 = reduce(hash, self.g.buckets);
        let i2 = self.alt(i1, fp);
        if let Some(s) = self.find(i1, fp).or_else(|| self.find(i2, fp)) {
            self.slots.set(s, full);
            return true;
        }
        for b in [i1, i2] {
            if self.put_free(b, full) {
                return false;
            }
        }
        self.relocate(i1, i2, full);
        false
    }

    /// Puts `entry` into a free slot of bucket `b`, if it has one.
    #[inline]
    fn put_free(&mut self, b: u64, entry: u64) -> bool {
        match (b * SLOTS..(b + 1) * SLOTS).find(|&s| self.is_free(self.slots.get(s))) {
            Some(s) => {
                self.filled += u64::from(self.slots.replace(s, entry) == 0);
                true
            }
            None => false,
        }
    }

    /// Fan et al.'s random walk from `i1` or `i2` with entry `entry` in hand (the buckets it
    /// kicks from have no free slot: only live entries move).
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
            if self.put_free(to, entry) {
                return;
            }
            b = to;
        }
        self.dropped += 1;
    }

    /// `entry` moved from bucket `x` to `y`: under the clock rule its clock counted from the
    /// same round (`c + [x < p] − [y < p]`, within `0..=M`); a stamp is kept as it is.
    #[inline]
    fn moved(&mut self, entry: u64, x: u64, y: u64) -> u64 {
        self.moves += 1;
        if self.g.stamps.is_some() {
            return entry;
        }
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
            if self.g.stamps.is_some() {
                self.clean_to((self.now / seconds).floor() as u64);
            } else {
                let target = (self.now / seconds * self.g.buckets as f64).floor() as u64;
                self.age_to(target);
            }
        }
        self.detect_insert(hash)
    }
}

impl DuplicateFilter for AgedCuckoo {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        match self.g.period {
            Period::Count(p) => {
                if self.g.stamps.is_some() {
                    self.clean_to(self.steps / p);
                } else {
                    let target = (u128::from(self.steps) * u128::from(self.g.buckets)
                        / u128::from(p)) as u64;
                    self.age_to(target);
                }
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
        match self.g.stamps {
            None => vec![
                crate::Param::new("window", self.window),
                crate::Param::new("window_seconds", self.window_seconds),
                crate::Param::new("clock_bits", self.g.c),
                crate::Param::new("fingerprint_bits", self.g.f),
                crate::Param::new("buckets", self.g.buckets),
                crate::Param::new("period", period),
                crate::Param::new("max_kicks", self.g.kicks),
            ],
            Some(st) => vec![
                crate::Param::new("window", self.window),
                crate::Param::new("window_seconds", self.window_seconds),
                crate::Param::new("aging", "stamp"),
                crate::Param::new("stamp_bits", self.g.c),
                crate::Param::new("fingerprint_bits", self.g.f),
                crate::Param::new("buckets", self.g.buckets),
                crate::Param::new("tick", period),
                crate::Param::new("live_ticks", st.live),
                crate::Param::new("cleaned_per_tick", st.per_tick),
                crate::Param::new("max_kicks", self.g.kicks),
            ],
        }
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

    /// The sweep's lines per element: `n_b·4·(f + c) / 512` bits per period of `P` elements
    /// (clock), `⌈n_b/G⌉·4·(f + c) / 512` per tick of `q` elements (stamp).
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

/// Cache lines of 512 bits the sweep (clock) or the cleaning pointer (stamp) reads per element.
fn swept_lines(params: &AgedCuckooParams, budget_bits: u64) -> f64 {
    resolve(budget_bits, params).map_or(0.0, |g| {
        let elements = match g.period {
            Period::Count(p) => p as f64,
            Period::Time { seconds, rate } => seconds * rate,
        };
        let buckets = g.stamps.map_or(g.buckets, |s| s.per_tick.min(g.buckets));
        (buckets * SLOTS * u64::from(g.f + g.c)) as f64 / 512.0 / elements
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

    fn stamp(w: u64, c: u32, f: Option<u32>) -> AgedCuckooParams {
        AgedCuckooParams {
            window: Some(w),
            aging: Aging::Stamp,
            stamp_bits: Some(c),
            fingerprint_bits: f,
            ..Default::default()
        }
    }

    fn stamp_time(t: f64, c: u32, f: Option<u32>) -> AgedCuckooParams {
        AgedCuckooParams {
            window_seconds: Some(t),
            rate: Some(1.0),
            aging: Aging::Stamp,
            stamp_bits: Some(c),
            fingerprint_bits: f,
            ..Default::default()
        }
    }

    /// The stamp rule's exact model: an element is reported iff its previous occurrence's tick
    /// is at most `L` ticks before its own (`tick_of` gives an element's tick), checked
    /// verdict by verdict while nothing has been dropped. With 40-bit fingerprints a fingerprint
    /// false positive has probability about `8·3000/2^40 < 10⁻⁷` per run, so any mismatch is
    /// the rule's (a missed live entry, or a stale stamp read as live: aliasing).
    fn check_stamp_model(
        f: &mut AgedCuckoo,
        keys: &[u64],
        times: &[f64],
        tick_of: impl Fn(usize, f64) -> u64,
    ) -> std::result::Result<(), String> {
        let live = f.live_ticks().unwrap();
        let mut last: std::collections::HashMap<u64, u64> = Default::default();
        for (i, (&k, &t)) in keys.iter().zip(times).enumerate() {
            let tick = tick_of(i, t);
            let want = last.insert(k, tick).is_some_and(|l| tick - l <= live);
            let got = f.step_at(hash_key(k, 3), t);
            if f.dropped() > 0 {
                return Ok(());
            }
            if got != want {
                return Err(format!(
                    "element {i} (key {k}, tick {tick}): {got}, model {want}"
                ));
            }
        }
        Ok(())
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Stamp rule, count window: every verdict as the exact tick model's (no false negative
        /// within `W`: `⌈d/q⌉ ≤ L`; nothing reported past `L` ticks), in a large table and in
        /// a small one that relocates (a moved entry keeps its stamp, so the model still holds
        /// until a victim is dropped); and nothing reported beyond `(L + 1)·q` elements.
        #[test]
        fn stamp_count_window_verdicts_are_the_tick_model(keys in prop::collection::vec(0u64..300, 1..3000), w in 1u64..300, c in 2u32..7, small in any::<bool>()) {
            let budget = if small { 4 * 48 * (w + 64) } else { 1 << 20 };
            let mut f = AgedCuckoo::new(budget, &stamp(w, c, Some(40)), 1).unwrap();
            let Period::Count(q) = f.g.period else { unreachable!() };
            let live = f.live_ticks().unwrap();
            prop_assert!(live * q >= w && live <= 1 << (c - 1));
            let times = vec![0.0; keys.len()];
            let r = check_stamp_model(&mut f, &keys, &times, |i, _| i as u64 / q);
            prop_assert!(r.is_ok(), "{:?}", r);
        }

        /// Stamp rule, time window: every verdict as the exact tick model's, at random gaps
        /// with jumps of up to 10 windows (many stamp wraps at small `c`); no false negative
        /// within `T` (the brute-force truth); nothing reported beyond `T + 17q/16`.
        #[test]
        fn stamp_time_window_verdicts_are_the_tick_model(keys in prop::collection::vec(0u64..100, 1..1500), gaps in prop::collection::vec(prop_oneof![9 => 0.0f64..3.0, 1 => 0.0f64..200.0], 1500), c in 2u32..9) {
            let t = 20.0;
            let p = stamp_time(t, c, Some(40));
            let mut f = AgedCuckoo::new(1 << 18, &p, 0).unwrap();
            let Period::Time { seconds: q, .. } = f.g.period else { unreachable!() };
            let times: Vec<f64> = gaps.iter().scan(0.0, |now, g| { *now += g; Some(*now) }).take(keys.len()).collect();
            let r = check_stamp_model(&mut f, &keys, &times, |_, now| (now / q).floor() as u64);
            prop_assert!(r.is_ok(), "{:?}", r);
            let mut g = AgedCuckoo::new(1 << 18, &p, 0).unwrap();
            let r = crate::window_clock::tests::no_false_negatives_in_time(&mut g, &keys, &gaps, t);
            prop_assert!(r.is_ok(), "{:?}", r);
            let mut h = AgedCuckoo::new(1 << 18, &p, 0).unwrap();
            let mut last: std::collections::HashMap<u64, f64> = Default::default();
            for (&k, &now) in keys.iter().zip(&times) {
                let gap = last.insert(k, now).map(|l| now - l);
                if h.step_at(hash_key(k, 3), now) {
                    prop_assert!(gap.is_some_and(|d| d <= t + 17.0 / 16.0 * q), "reported at gap {:?}", gap);
                }
            }
        }
    }

    #[test]
    fn stamps_never_alias() {
        // A probe key re-seen at gaps just past its entry's lifetime, plus whole multiples of
        // the stamp range `R·q` (where an unchecked stamp would read young again), between
        // fresh keys that keep the table churning, over some 3,000 wraps of the stamps. Every
        // such re-occurrence must be UNSEEN; one at a gap of exactly `W` must be DUPLICATE.
        // 40-bit fingerprints: no fingerprint false positive (about 10⁻⁶ in all).
        let (w, c) = (1000u64, 4u32);
        let mut f = AgedCuckoo::new(1 << 20, &stamp(w, c, Some(40)), 0).unwrap();
        let Period::Count(q) = f.g.period else {
            unreachable!()
        };
        let (live, range) = (f.live_ticks().unwrap(), 1u64 << c);
        assert_eq!((q, live), (125, 8));
        let probe = hash_key(u64::MAX, 5);
        let mut fresh = 0u64;
        let mut filler = |f: &mut AgedCuckoo, n: u64| {
            for _ in 0..n {
                assert!(!f.step(hash_key(fresh, 5)));
                fresh += 1;
            }
        };
        assert!(!f.step(probe));
        for wraps in 0..40u64 {
            for extra in [0u64, 1, 7, q - 1, q, 2 * q + 3] {
                // The probe was just seen: re-see it past `(L + 1)` ticks (plus whole wraps),
                // then at a gap of `W`.
                let gap = (live + 1) * q + extra + wraps * range * q;
                filler(&mut f, gap - 1);
                assert!(
                    !f.step(probe),
                    "gap {gap}: stale stamp read as live after {wraps} wraps"
                );
                filler(&mut f, w - 1);
                assert!(f.step(probe), "gap {w}: false negative");
            }
        }
        assert_eq!(f.dropped(), 0);
        assert!(f.tick / range > 3000, "{} wraps", f.tick / range);

        // Time window: jumps of whole stamp ranges and of everything around them.
        let t = 10.0;
        let mut f = AgedCuckoo::new(1 << 20, &stamp_time(t, c, Some(40)), 0).unwrap();
        let Period::Time { seconds: q, .. } = f.g.period else {
            unreachable!()
        };
        let mut now = 0.0;
        let mut key = 0u64;
        for jump_ticks in [1u64, 7, 8, 9, 15, 16, 17, 31, 32, 33, 160, 1600, 16_000_001] {
            let probe = hash_key(u64::MAX - jump_ticks, 5);
            assert!(!f.step_at(probe, now));
            for _ in 0..200 {
                now += 0.05;
                f.step_at(hash_key(key, 6), now);
                key += 1;
            }
            now += jump_ticks as f64 * q;
            let age = (now / q).floor() as u64
                - ((now - jump_ticks as f64 * q - 10.0) / q).floor() as u64;
            assert_eq!(
                f.step_at(probe, now),
                age <= live,
                "jump of {jump_ticks} ticks (age {age})"
            );
        }
    }

    #[test]
    fn stamp_batch_equals_single_steps() {
        // `step_batch_at` and `step_at` in a loop: identical verdicts, on a bursty time stream
        // in a table small enough to relocate and drop.
        let p = AgedCuckooParams {
            window_seconds: Some(5.0),
            rate: Some(100.0),
            aging: Aging::Stamp,
            stamp_bits: Some(6),
            load: Some(0.9),
            ..Default::default()
        };
        let mut rng = filter_rng(9, 1);
        let mut now = 0.0;
        let (hashes, times): (Vec<u64>, Vec<f64>) = (0..20_000)
            .map(|_| {
                now += (rng.next_u64() % 1000) as f64 / 1000.0
                    * if (now as u64 / 20).is_multiple_of(2) {
                        0.002
                    } else {
                        0.02
                    };
                (hash_key(rng.next_u64() % 3000, 4), now)
            })
            .unzip();
        let mut a = AgedCuckoo::new(12_000, &p, 3).unwrap();
        let mut b = a.clone();
        let single: Vec<bool> = hashes
            .iter()
            .zip(&times)
            .map(|(&h, &t)| a.step_at(h, t))
            .collect();
        let mut batch = vec![false; hashes.len()];
        for ((h, t), o) in hashes
            .chunks(333)
            .zip(times.chunks(333))
            .zip(batch.chunks_mut(333))
        {
            b.step_batch_at(h, t, o);
        }
        assert_eq!(single, batch);
        assert!(a.moves() > 0, "the table never relocated");
    }

    #[test]
    fn stamp_fpr_matches_the_live_occupancy() {
        // Distinct keys, then never-seen queries: binomial with the rate given the buckets'
        // live slots (expired slots not yet cleaned are in the table and must not match),
        // 99.9 % two-sided (3.3 sd); `f = 7` tells this formula from the independent slots'
        // (3 % lower, 3.4 sd at these rates).
        for (w, budget, c, f) in [
            (20_000u64, 400_000u64, 8u32, Some(8u32)),
            (30_000, 500_000, 3, None),
            (20_000, 380_000, 8, Some(7)),
            (20_000, 380_000, 3, Some(7)),
            (20_000, 380_000, 12, Some(7)),
        ] {
            let mut filter = AgedCuckoo::new(budget, &stamp(w, c, f), 0).unwrap();
            for i in 0..(4 * w + 777) {
                filter.step(hash_key(i, 8));
            }
            assert_eq!(filter.dropped(), 0);
            let rate = filter.false_positive_rate();
            let live = (0..filter.buckets() * SLOTS)
                .filter(|&s| filter.is_live(filter.slots.get(s)))
                .count() as f64;
            assert!(filter.filled as f64 > live, "no expired slot left to test");
            crate::test_support::check_never_seen_fpr(
                &format!(
                    "aged_cuckoo stamp W={w} c={c} f={}",
                    filter.fingerprint_bits()
                ),
                |h| filter.contains(h),
                rate,
            );
        }
    }

    #[test]
    fn stamp_sizing() {
        // W = 65,536, c = 8: L₀ = 128, q = 512, L = 128, n_live = 129·512 = 66,048; 2^20 bits
        // at load 0.95: f = ⌊15.08⌋ − 8 = 7; G = 256 − 128 − 1 = 127.
        let f = AgedCuckoo::new(1 << 20, &stamp(65_536, 8, None), 0).unwrap();
        assert_eq!((f.fingerprint_bits(), f.live_ticks()), (7, Some(128)));
        assert_eq!(f.buckets(), (1 << 20) / (4 * 15));
        assert_eq!(f.g.stamps.unwrap().per_tick, f.buckets().div_ceil(127));
        assert_eq!(f.memory_bits(), f.buckets() * 4 * 15);
        // A window below L₀ is kept exactly: q = 1, L = W.
        let f = AgedCuckoo::new(1 << 16, &stamp(100, 8, None), 0).unwrap();
        assert_eq!((f.g.period, f.live_ticks()), (Period::Count(1), Some(100)));
        // Time: T = 4 s, c = 6: q = 4/31.9375 s, L = 32.
        let f = AgedCuckoo::new(1 << 20, &stamp_time(4.0, 6, None), 0).unwrap();
        assert_eq!(
            f.g.period,
            Period::Time {
                seconds: 4.0 / 31.9375,
                rate: 1.0
            }
        );
        for (p, key) in [
            (stamp(10, 0, None), "stamp_bits"),
            (stamp(10, 1, None), "stamp_bits"),
            (stamp(10, 33, None), "stamp_bits"),
            (stamp(10, 8, Some(50)), "fingerprint_bits"),
            (
                AgedCuckooParams {
                    clock_bits: Some(3),
                    ..stamp(10, 8, None)
                },
                "clock_bits",
            ),
            (
                AgedCuckooParams {
                    stamp_bits: Some(8),
                    ..count(10, 3, None)
                },
                "stamp_bits",
            ),
        ] {
            match AgedCuckoo::new(1 << 20, &p, 0) {
                Err(Error::InvalidParameter { name, .. }) => assert_eq!(name, key, "{p:?}"),
                other => panic!("{p:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn fpr_matches_the_occupancy() {
        // Distinct keys, then never-seen queries: binomial with the rate given the live
        // slots, 99.9 % two-sided (3.3 sd).
        for (w, budget, c, f) in [
            (20_000u64, 400_000u64, 3u32, Some(8u32)),
            (20_000, 380_000, 3, Some(7)),
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
