//! SWAMP with a plain count table (`swamp_plain`): Assaf, Ben Basat, Einziger, Friedman, *Pay for a Sliding Bloom Filter and Get
//! Counting, Distinct Elements, and Entropy for Free*, IEEE INFOCOM 2018 (arXiv 1707.01850),
//! Section III (the SWAMP algorithm): sliding-window membership over the last `W` elements.
//!
//! **Structure.** A cyclic fingerprint buffer (CFB) of the `W` most recent elements'
//! `f`-bit fingerprints, and a table of the count of each distinct fingerprint in the buffer.
//! An element's update overwrites the oldest fingerprint (decrementing its count, removing it
//! at zero) and adds its own (incrementing). Membership is "count > 0". A duplicate detector
//! queries first, then updates, so an element is reported iff its fingerprint occurs among the
//! `W` elements before it: the windowed truth with window `W`, plus fingerprint collisions.
//!
//! **False positives.** A non-member collides with each of the at most `W` distinct
//! fingerprints in the window with probability `2^−f`, so its false positive probability is
//! `1 − (1 − 2^−f)^D ≤ W·2^−f` for `D ≤ W` distinct fingerprints
//! ([`false_positive_rate`], [`false_positive_bound`]). The paper sizes `f = ⌈log₂(W/ε)⌉` for a
//! target `ε` ([`fingerprint_bits_for`]). There are no false negatives within the window.
//!
//! This is the plainer of the project's two readings of SWAMP: [`crate::swamp`] (`swamp`) keeps
//! the counts in a succinct quotient table as the paper's TinyTable does, so that it fits from
//! 2 bits per window element; this one spends a full fingerprint and a `⌈log₂(W+1)⌉`-bit count
//! per slot, is faster, and fits only from about `f + 2.25·(f + log₂ W)` bits per element.
//! The leaderboard runs committed before the split name this structure `swamp`.
//!
//! **The count table (a reading).** The paper stores the counts in a TinyTable (Einziger &
//! Friedman), a compact hash table whose per-entry cost is the fingerprint's remainder after
//! its bucket index plus a few bits. This implementation uses a plainer table whose memory is
//! exactly what it charges: open addressing with linear probing over
//! `C = ⌈W / 0.8⌉` slots (load at most 0.8, as at most `W` fingerprints are distinct), each
//! slot holding the full `f`-bit fingerprint and a count of `⌈log₂(W + 1)⌉` bits (count 0 marks
//! an empty slot); deletions shift back the following run (no tombstones). Its memory is
//! `W·f + C·(f + ⌈log₂(W+1)⌉)` bits ([`memory_bits`]); a TinyTable would store about
//! `log₂ C` fewer bits per slot at a higher load, so this reading is the more expensive one
//! and SWAMP's accuracy at a given budget is, if anything, understated here.
//!
//! The table is kept in Robin Hood order (Celis, 1986): each run of occupied slots is sorted by
//! home slot (cyclically), so a search stops at the first entry whose home lies after the
//! fingerprint's, and an unsuccessful search costs about what a successful one does (about 3
//! slots at load 0.8, where first-come linear probing scans to the end of the run, about 12).
//! An insertion moves the entries after its place up by one, a deletion the displaced entries
//! after it back by one. The home slot is the fingerprint's leading bits scaled to `C` (one
//! multiplication; fingerprints are uniform). The order of the table decides nothing but
//! speed: it holds exactly the multiset of fingerprints in the window, so the verdicts are
//! those of any exact table.
//!
//! **Host layout.** A slot lives in one host word, the fingerprint above the count (a `u64`
//! when `f + ⌈log₂(W+1)⌉ ≤ 64`, a `u128` otherwise), so a probe is one load and one compare;
//! the charged state stays the `f + ⌈log₂(W+1)⌉` bits per slot above (the rest of the word is
//! padding, as in a packed array's spare word). The cyclic buffer stays packed.
//!
//! A step removes the oldest fingerprint first, then one search answers the query and gives
//! the insertion slot: the element is a duplicate iff its fingerprint is among the `W − 1`
//! newest (in the table once the oldest is out) or is the oldest itself, in which case the
//! table does not change at all.
//!
//! Other readings:
//! - The fingerprint is `f` bits of a rehash of the key hash; the table slot of a fingerprint
//!   depends on the fingerprint alone (the buffer holds only fingerprints).
//! - Before `W` elements have arrived the buffer is partly empty and nothing is evicted.
//! - The distinct-count and entropy estimators of the paper are not built (duplicate detection
//!   needs membership only).
//! - Occupancy is the filled fraction of the count table.

use crate::bits::PackedArray;
use crate::error::{Error, Result, ensure};
use crate::hash::{reduce, rehash};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest fingerprint width.
pub const MAX_FINGERPRINT_BITS: u32 = PackedArray::MAX_WIDTH;
/// Maximum load of the count table: `C = ⌈W / MAX_LOAD⌉` slots (`⌈5W/4⌉`).
pub const MAX_LOAD: f64 = 0.8;

const FP_SALT: u64 = 0x5a4d_5046_7072_696e;

/// Expected false positive rate when the window holds `keys` distinct keys: a non-member
/// collides with some key's `f`-bit fingerprint with probability `1 − (1 − 2^−f)^keys`.
/// (Given `D` distinct fingerprints in the table, the rate is exactly `D·2^−f`.)
pub fn false_positive_rate(keys: u64, f: u32) -> f64 {
    let q = (-(0.5f64).powi(f as i32)).ln_1p();
    -(q * keys as f64).exp_m1()
}

/// The paper's bound on the false positive rate with window `W` and `f`-bit fingerprints:
/// `W·2^−f` (a union bound over at most `W` distinct fingerprints; capped at 1).
pub fn false_positive_bound(window: u64, f: u32) -> f64 {
    (window as f64 * (0.5f64).powi(f as i32)).min(1.0)
}

/// The fingerprint width the paper uses for window `W` and target rate `ε`:
/// `⌈log₂(W/ε)⌉`, so that [`false_positive_bound`] `≤ ε`.
pub fn fingerprint_bits_for(window: u64, fpr: f64) -> u32 {
    (window as f64 / fpr).log2().ceil().max(1.0) as u32
}

/// Bits of a count that can reach `W`: `⌈log₂(W + 1)⌉`.
pub fn count_bits(window: u64) -> u32 {
    64 - window.leading_zeros()
}

/// Slots of the count table for window `W`: `⌈W / MAX_LOAD⌉ = ⌈5W/4⌉`.
pub fn table_slots(window: u64) -> u64 {
    (window.saturating_mul(5)).div_ceil(4)
}

/// Memory of a SWAMP with window `W` and `f`-bit fingerprints, as this implementation
/// allocates it: `W·f` (buffer) `+ C·(f + ⌈log₂(W+1)⌉)` (count table).
pub fn memory_bits(window: u64, f: u32) -> Option<u64> {
    let c = table_slots(window);
    let buffer = window.checked_mul(u64::from(f))?;
    let table = c.checked_mul(u64::from(f + count_bits(window)))?;
    buffer.checked_add(table)
}

/// Parameters of a SWAMP ([`SwampPlain`], and `crate::swamp::Swamp`, which re-exports them): the window `W`, and the fingerprint width given
/// (`fingerprint_bits`), derived from a target rate (`fpr`, [`fingerprint_bits_for`]), or, with
/// neither, the widest that fits the budget.
///
/// ```toml
/// window = 100000
/// fingerprint_bits = 24   # or fpr = 0.01, or neither (widest within the budget)
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SwampParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `f`, fingerprint bits.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fingerprint_bits: Option<u32>,
    /// Target false positive rate: `f =` [`fingerprint_bits_for`]`(W, fpr)`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fpr: Option<f64>,
}

impl SwampParams {
    /// Window `W`, widest fingerprints within the budget.
    pub fn window(window: u64) -> Self {
        Self {
            window,
            ..Self::default()
        }
    }
}

/// Parameters of a [`SwampPlain`]: [`SwampParams`].
pub type SwampPlainParams = SwampParams;

/// Both SWAMP readings' window `W` (checked, in `1..=2^40`) and the fingerprint width the
/// parameters give, directly or by a target rate (`None`: the widest that fits the budget).
pub(crate) fn window_and_given_bits(p: &SwampParams) -> Result<(u64, Option<u32>)> {
    let w = p.window;
    ensure(
        (1..=1u64 << 40).contains(&w),
        "window",
        w,
        "must be in 1..=2^40",
    )?;
    let given = crate::compact_table::given_fingerprint_bits(p.fingerprint_bits, p.fpr, |fpr| {
        fingerprint_bits_for(w, fpr)
    })?;
    Ok((w, given))
}

fn resolve(budget_bits: u64, p: &SwampPlainParams) -> Result<(u64, u32)> {
    let (w, given) = window_and_given_bits(p)?;
    let f = match given {
        Some(f) => f,
        None => {
            // Widest f with W·f + C·(f + cb) ≤ budget.
            let c = table_slots(w);
            let fixed = c.saturating_mul(u64::from(count_bits(w)));
            let f = budget_bits.saturating_sub(fixed) / (w + c);
            if f == 0 {
                return Err(Error::BudgetTooSmall {
                    structure: "swamp_plain",
                    budget_bits,
                    needed_bits: memory_bits(w, 1).unwrap_or(u64::MAX),
                });
            }
            f.min(u64::from(MAX_FINGERPRINT_BITS)) as u32
        }
    };
    let bits = memory_bits(w, f).ok_or(Error::CapacityTooLarge {
        structure: "swamp_plain",
        bits: u64::MAX,
    })?;
    if bits > budget_bits {
        return Err(Error::BudgetTooSmall {
            structure: "swamp_plain",
            budget_bits,
            needed_bits: bits,
        });
    }
    crate::error::words_for_bits("swamp_plain", bits)?;
    Ok((w, f))
}

/// Host bits of a count-table slot holding an `f`-bit fingerprint and a `cb`-bit count: a `u64`
/// when they fit, else a `u128` ([`Slot`]).
fn slot_bits(f: u32, cb: u32) -> u64 {
    if f + cb <= 64 { 64 } else { 128 }
}

/// One count-table slot in its host word: the fingerprint above the low `cb` bits, the count
/// in them; the word 0 is an empty slot (a stored fingerprint has count ≥ 1). A `u64` when
/// `f + cb ≤ 64`, a `u128` otherwise.
trait Slot: Copy + Eq + std::fmt::Debug {
    const EMPTY: Self;
    fn pack(fp: u64, count: u64, cb: u32) -> Self;
    fn fp(self, cb: u32) -> u64;
    fn count(self, cb: u32) -> u64;
    /// The same fingerprint with the count moved by `delta` (which keeps it in `1..=W`).
    fn add(self, delta: i64) -> Self;
}

impl Slot for u64 {
    const EMPTY: Self = 0;
    #[inline(always)]
    fn pack(fp: u64, count: u64, cb: u32) -> Self {
        (fp << cb) | count
    }
    #[inline(always)]
    fn fp(self, cb: u32) -> u64 {
        self >> cb
    }
    #[inline(always)]
    fn count(self, cb: u32) -> u64 {
        self & ((1 << cb) - 1)
    }
    #[inline(always)]
    fn add(self, delta: i64) -> Self {
        self.wrapping_add_signed(delta)
    }
}

impl Slot for u128 {
    const EMPTY: Self = 0;
    #[inline(always)]
    fn pack(fp: u64, count: u64, cb: u32) -> Self {
        (u128::from(fp) << cb) | u128::from(count)
    }
    #[inline(always)]
    fn fp(self, cb: u32) -> u64 {
        (self >> cb) as u64
    }
    #[inline(always)]
    fn count(self, cb: u32) -> u64 {
        (self & ((1 << cb) - 1)) as u64
    }
    #[inline(always)]
    fn add(self, delta: i64) -> Self {
        self.wrapping_add(delta as i128 as u128)
    }
}

/// The count table's host layout (see the module documentation): one word per slot.
#[derive(Debug, Clone)]
enum Table {
    Narrow(Box<[u64]>),
    Wide(Box<[u128]>),
}

/// Where a fingerprint is, or where it would go.
enum Probe {
    /// The slot holding it.
    Found(usize),
    /// The slot it would take (the first empty one, or the first whose entry has a home
    /// after its own); the entries from there to the next empty slot move up by one.
    Absent(usize),
}

/// The count table's geometry: slots, count bits, fingerprint bits.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    slots: usize,
    cb: u32,
    f: u32,
}

impl Geometry {
    /// The home slot of a fingerprint: its position scaled to the table (monotone in `fp`).
    #[inline(always)]
    fn home(self, fp: u64) -> usize {
        reduce(fp << (64 - self.f), self.slots as u64) as usize
    }

    /// How far slot `i` lies past `home`, cyclically.
    #[inline(always)]
    fn distance(self, i: usize, home: usize) -> usize {
        if i >= home {
            i - home
        } else {
            i + self.slots - home
        }
    }

    #[inline(always)]
    fn next(self, i: usize) -> usize {
        if i + 1 == self.slots { 0 } else { i + 1 }
    }

    /// Finds `fp`: from its home, past the entries whose homes come before it (their
    /// distance exceeds the probe's), through those sharing its home; an empty slot or an
    /// entry whose home comes after it ends the search.
    #[inline(always)]
    fn probe<S: Slot>(self, t: &[S], fp: u64) -> Probe {
        let mut i = self.home(fp);
        let mut d = 0;
        loop {
            let s = t[i];
            if s == S::EMPTY {
                return Probe::Absent(i);
            }
            let sfp = s.fp(self.cb);
            if sfp == fp {
                return Probe::Found(i);
            }
            if self.distance(i, self.home(sfp)) < d {
                return Probe::Absent(i);
            }
            i = self.next(i);
            d += 1;
        }
    }

    /// Stores `fp` with count 1 at `at` (from [`Probe::Absent`]), moving the entries from
    /// there to the next empty slot up by one.
    #[inline(always)]
    fn insert_at<S: Slot>(self, t: &mut [S], at: usize, fp: u64) {
        let mut carry = S::pack(fp, 1, self.cb);
        let mut i = at;
        loop {
            let s = std::mem::replace(&mut t[i], carry);
            if s == S::EMPTY {
                return;
            }
            carry = s;
            i = self.next(i);
        }
    }

    /// Removes one occurrence of `fp` (present): decrements its count, and at zero empties the
    /// slot and shifts the following entries that are not at their home back by one. Returns
    /// whether the slot was emptied.
    #[inline(always)]
    fn remove<S: Slot>(self, t: &mut [S], fp: u64) -> bool {
        let Probe::Found(mut hole) = self.probe(t, fp) else {
            unreachable!("a buffered fingerprint is in the table")
        };
        if t[hole].count(self.cb) > 1 {
            t[hole] = t[hole].add(-1);
            return false;
        }
        loop {
            let j = self.next(hole);
            let s = t[j];
            if s == S::EMPTY || self.home(s.fp(self.cb)) == j {
                break;
            }
            t[hole] = s;
            hole = j;
        }
        t[hole] = S::EMPTY;
        true
    }

    /// The table's part of a step: removes `old` (if some), then looks `fp` up and counts it
    /// in. Returns the change of the distinct count and whether `fp` was in the table after
    /// the removal.
    #[inline(always)]
    fn update<S: Slot>(self, t: &mut [S], old: Option<u64>, fp: u64) -> (i64, bool) {
        let emptied = old.is_some_and(|old| self.remove(t, old));
        match self.probe(t, fp) {
            Probe::Found(i) => {
                t[i] = t[i].add(1);
                (-i64::from(emptied), true)
            }
            Probe::Absent(i) => {
                self.insert_at(t, i, fp);
                (1 - i64::from(emptied), false)
            }
        }
    }

    #[inline(always)]
    fn count<S: Slot>(self, t: &[S], fp: u64) -> u64 {
        match self.probe(t, fp) {
            Probe::Found(i) => t[i].count(self.cb),
            Probe::Absent(_) => 0,
        }
    }
}

/// SWAMP's sliding-window membership (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, swamp_plain::{SwampPlain, SwampPlainParams}, hash::hash_key};
/// let p = SwampPlainParams { window: 100, fingerprint_bits: Some(32), fpr: None };
/// let mut s = SwampPlain::new(1 << 16, &p, 0).unwrap();
/// for key in 0..1000u64 {
///     s.step(hash_key(key, 0));
/// }
/// assert!(s.contains(hash_key(999, 0)) && s.contains(hash_key(900, 0)));
/// assert!(!s.contains(hash_key(899, 0))); // slid out (up to a 2^-32 collision)
/// ```
#[derive(Debug, Clone)]
pub struct SwampPlain {
    /// Cyclic fingerprint buffer.
    cfb: PackedArray,
    /// Count table: fingerprints and counts, one host word per slot.
    table: Table,
    geometry: Geometry,
    window: u64,
    /// Next buffer position to overwrite.
    cur: u64,
    /// Elements in the buffer (`W` once full).
    filled: u64,
    /// Occupied table slots (distinct fingerprints in the window).
    distinct: u64,
}

impl SwampPlain {
    /// A SWAMP within `budget_bits`. SWAMP draws no random numbers; `seed` is unused.
    pub fn new(budget_bits: u64, params: &SwampPlainParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let (w, f) = resolve(budget_bits, params)?;
        let slots = table_slots(w);
        let cb = count_bits(w);
        // The charged state is W·f + C·(f + cb) bits ([`memory_bits`]); the host words are
        // wider. Their size is checked like the charged bits.
        let host_bits = slots.checked_mul(slot_bits(f, cb));
        crate::error::words_for_bits("swamp_plain", host_bits.unwrap_or(u64::MAX))?;
        let n = slots as usize;
        let table = if slot_bits(f, cb) == 64 {
            Table::Narrow(crate::raw::zeroed_words(n).into_boxed_slice())
        } else {
            Table::Wide(vec![0u128; n].into_boxed_slice())
        };
        Ok(Self {
            cfb: PackedArray::new("swamp_plain", w, f)?,
            table,
            geometry: Geometry { slots: n, cb, f },
            window: w,
            cur: 0,
            filled: 0,
            distinct: 0,
        })
    }

    /// The state size a SWAMP built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &SwampPlainParams) -> Result<u64> {
        let (w, f) = resolve(budget_bits, params)?;
        Ok(memory_bits(w, f).expect("checked in resolve"))
    }

    /// A SWAMP for window `W` and target rate `fpr` through the paper's `f = ⌈log₂(W/ε)⌉`.
    pub fn for_window_fpr(window: u64, fpr: f64) -> Result<Self> {
        let p = SwampPlainParams {
            window,
            fingerprint_bits: None,
            fpr: Some(fpr),
        };
        let f = fingerprint_bits_for(window, fpr);
        Self::new(memory_bits(window, f).unwrap_or(u64::MAX), &p, 0)
    }

    /// `f`, fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.geometry.f
    }

    /// Distinct fingerprints in the window (the paper's `Z`).
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    #[inline(always)]
    fn fingerprint(&self, hash: u64) -> u64 {
        rehash(hash, FP_SALT) >> (64 - self.geometry.f)
    }

    /// The count of `hash`'s fingerprint in the window (the paper's frequency query).
    pub fn frequency(&self, hash: u64) -> u64 {
        let fp = self.fingerprint(hash);
        match &self.table {
            Table::Narrow(t) => self.geometry.count(t, fp),
            Table::Wide(t) => self.geometry.count(t, fp),
        }
    }

    /// Membership query without update.
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        self.frequency(hash) > 0
    }
}

impl DuplicateFilter for SwampPlain {
    /// The element is a duplicate iff its fingerprint is among the `W` before it: among the
    /// `W − 1` newest (in the table once the oldest is removed) or the oldest itself. Equal to
    /// the oldest, the table does not change at all (one out, the same one in).
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let old = if self.filled == self.window {
            Some(self.cfb.replace(self.cur, fp))
        } else {
            self.cfb.set(self.cur, fp);
            self.filled += 1;
            None
        };
        self.cur = if self.cur + 1 == self.window {
            0
        } else {
            self.cur + 1
        };
        if old == Some(fp) {
            return true;
        }
        let g = self.geometry;
        let (delta, found) = match &mut self.table {
            Table::Narrow(t) => g.update(t, old, fp),
            Table::Wide(t) => g.update(t, old, fp),
        };
        self.distinct = self.distinct.wrapping_add_signed(delta);
        found
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let home = self.geometry.home(self.fingerprint(hash));
        match &self.table {
            Table::Narrow(t) => crate::raw::prefetch(t.as_ptr().wrapping_add(home)),
            Table::Wide(t) => crate::raw::prefetch(t.as_ptr().wrapping_add(home)),
        }
    }

    fn memory_bits(&self) -> u64 {
        memory_bits(self.window, self.geometry.f).expect("checked in resolve")
    }

    fn name(&self) -> &'static str {
        "swamp_plain"
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("fingerprint_bits", self.geometry.f),
            crate::Param::new("table_slots", self.geometry.slots as u64),
            crate::Param::new("count_bits", count_bits(self.window)),
            crate::Param::new(
                "fpr_bound",
                false_positive_bound(self.window, self.geometry.f),
            ),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.distinct as f64 / self.geometry.slots as f64,
        }
    }
}

crate::structure::impl_structure!(SwampPlain {
    name: "swamp_plain",
    params: SwampPlainParams,
    cost: 3.0,
    memory_bits_for: SwampPlain::memory_bits_for,
}
    crate::structure::window_scales!(SwampPlainParams);

    /// 3: the count table at the arriving fingerprint's home (its query and its insertion
    /// probe the same run), the count table at the evicted fingerprint's home (its removal),
    /// and the cyclic fingerprint buffer's cell (the oldest fingerprint read, the new one
    /// written). The first two are random; the buffer cell advances sequentially, so out of
    /// cache it costs less than a random cell: 3 is the count of locations, not a discount for
    /// the probes a linear-probing run takes past its home (those are the table's own cost).
    fn cells_per_element(_params: &SwampPlainParams, _budget_bits: u64) -> f64 {
        3.0
    }

    /// The host layout: the packed buffer of `W·f` bits and one host word per count-table slot
    /// (64 or 128 bits, wider than its charged `f + cb`).
    fn heap_bytes_estimate(params: &SwampPlainParams, budget_bits: u64, _distinct_hint: u64) -> u64 {
        let Ok((w, f)) = resolve(budget_bits, params) else {
            return budget_bits / 8 + 4096;
        };
        (w * u64::from(f)).div_ceil(8) + table_slots(w) * slot_bits(f, count_bits(w)) / 8 + 4096
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;
    use std::collections::{HashMap, VecDeque};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Against an exact model of the window over fingerprints: a deque of the last W
        /// fingerprints and a map of their counts. Verdicts, frequencies and the distinct count
        /// agree exactly (small f forces collisions and long probe runs).
        #[test]
        fn equals_the_exact_fingerprint_window(keys in prop::collection::vec(0u64..500, 1..3000), w in 1u64..200, f in 1u32..12) {
            let p = SwampPlainParams { window: w, fingerprint_bits: Some(f), fpr: None };
            let mut s = SwampPlain::new(1 << 24, &p, 0).unwrap();
            let mut q: VecDeque<u64> = VecDeque::new();
            let mut counts: HashMap<u64, u64> = HashMap::new();
            for key in keys {
                let h = hash_key(key, 9);
                let fp = s.fingerprint(h);
                let want = counts.get(&fp).copied().unwrap_or(0);
                prop_assert_eq!(s.frequency(h), want);
                prop_assert_eq!(s.step(h), want > 0);
                if q.len() as u64 == w {
                    let old = q.pop_front().unwrap();
                    let c = counts.get_mut(&old).unwrap();
                    *c -= 1;
                    if *c == 0 { counts.remove(&old); }
                }
                q.push_back(fp);
                *counts.entry(fp).or_insert(0) += 1;
                prop_assert_eq!(s.distinct(), counts.len() as u64);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The Robin Hood table in both host layouts (`u64` slots, and `u128` slots for
        /// `f + ⌈log₂(W+1)⌉ > 64`), on longer windows with few repeats (long runs, wrap-around,
        /// deletions from the middle of runs), against the same exact model: verdicts, the
        /// frequency of every fingerprint stepped so far, and the distinct count agree.
        #[test]
        fn both_host_layouts_equal_the_exact_fingerprint_window(
            keys in prop::collection::vec(0u64..4000, 1..4000), w in 1u64..1500, f in prop::sample::select(vec![9u32, 16, 30, 49, 50, 57]),
        ) {
            let p = SwampPlainParams { window: w, fingerprint_bits: Some(f), fpr: None };
            let mut s = SwampPlain::new(1 << 30, &p, 0).unwrap();
            let wide = f + count_bits(w) > 64;
            prop_assert_eq!(matches!(s.table, Table::Wide(_)), wide);
            let mut q: VecDeque<u64> = VecDeque::new();
            let mut counts: HashMap<u64, u64> = HashMap::new();
            let mut seen: Vec<u64> = vec![];
            for (n, key) in keys.into_iter().enumerate() {
                let h = hash_key(key, 3);
                let fp = s.fingerprint(h);
                prop_assert_eq!(s.step(h), counts.contains_key(&fp));
                if q.len() as u64 == w {
                    let old = q.pop_front().unwrap();
                    let c = counts.get_mut(&old).unwrap();
                    *c -= 1;
                    if *c == 0 { counts.remove(&old); }
                }
                q.push_back(fp);
                *counts.entry(fp).or_insert(0) += 1;
                seen.push(h);
                if n % 97 == 0 {
                    for &h in &seen {
                        let want = counts.get(&s.fingerprint(h)).copied().unwrap_or(0);
                        prop_assert_eq!(s.frequency(h), want);
                    }
                }
            }
            prop_assert_eq!(s.distinct(), counts.len() as u64);
            for &h in &seen {
                let want = counts.get(&s.fingerprint(h)).copied().unwrap_or(0);
                prop_assert_eq!(s.frequency(h), want);
            }
        }
    }

    #[test]
    fn fpr_matches_theory_and_the_paper_bound() {
        // A window of W distinct keys, then t never-seen keys queried: the count of false
        // positives is binomial(t, 1 − (1 − 2^−f)^W); 5 sd. The paper's bound W·2^−f holds.
        for (w, f) in [(10_000u64, 16u32), (50_000, 20), (2_000, 12)] {
            let p = SwampPlainParams {
                window: w,
                fingerprint_bits: Some(f),
                fpr: None,
            };
            let mut s = SwampPlain::new(memory_bits(w, f).unwrap(), &p, 0).unwrap();
            for i in 0..3 * w {
                s.step(hash_key(i, 4));
            }
            let d = s.distinct();
            let t = 400_000u64;
            let fp = (0..t)
                .filter(|&j| s.contains(hash_key((1 << 40) + j, 4)))
                .count() as u64;
            // Given the D distinct fingerprints held, each query collides with probability
            // exactly D·2^−f.
            let p_d = d as f64 * 0.5f64.powi(f as i32);
            let sd = (t as f64 * p_d * (1.0 - p_d)).sqrt();
            let rate = fp as f64 / t as f64;
            let expected = false_positive_rate(w, f);
            eprintln!(
                "swamp W={w} f={f}: measured {rate:.6}, D·2^-f {p_d:.6} (D={d}), 1-(1-2^-f)^W {expected:.6}, bound W·2^-f {:.6}",
                false_positive_bound(w, f)
            );
            assert!((fp as f64 - t as f64 * p_d).abs() < 5.0 * sd + 1.0);
            // D is W keys' fingerprints without repeats: E[D]·2^−f = 1 − (1 − 2^−f)^W, and D
            // has variance below W·p(1−p) (p = the collision chance); 5 sd of it.
            let sd_d = (w as f64 * expected * (1.0 - expected)).sqrt() * 0.5f64.powi(f as i32);
            assert!((p_d - expected).abs() < 5.0 * sd_d + 1e-12);
            assert!(p_d <= false_positive_bound(w, f));
            assert!(rate < false_positive_bound(w, f) + 5.0 * sd / t as f64);
            assert!(d <= w);
        }
    }

    #[test]
    fn sizing() {
        assert_eq!(count_bits(1), 1);
        assert_eq!(count_bits(100), 7);
        assert_eq!(table_slots(100), 125);
        assert_eq!(memory_bits(100, 10), Some(100 * 10 + 125 * 17));
        assert_eq!(fingerprint_bits_for(1 << 10, 1.0 / 1024.0), 20);
        // From the budget: the widest fingerprint that fits.
        let p = SwampPlainParams::window(1000);
        let bits = SwampPlain::memory_bits_for(100_000, &p).unwrap();
        let f = SwampPlain::new(100_000, &p, 0).unwrap().fingerprint_bits();
        assert_eq!(bits, memory_bits(1000, f).unwrap());
        assert!(bits <= 100_000 && memory_bits(1000, f + 1).unwrap() > 100_000);
        let s = SwampPlain::for_window_fpr(10_000, 0.01).unwrap();
        assert_eq!(s.fingerprint_bits(), 20);
        assert!(false_positive_bound(10_000, 20) <= 0.01);
        assert!(matches!(
            SwampPlain::new(1000, &p, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        for bad in [
            SwampPlainParams::window(0),
            SwampPlainParams {
                window: 10,
                fingerprint_bits: Some(0),
                fpr: None,
            },
            SwampPlainParams {
                window: 10,
                fingerprint_bits: Some(8),
                fpr: Some(0.1),
            },
        ] {
            assert!(matches!(
                SwampPlain::new(1 << 20, &bad, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
    }
}
