//! SWAMP as published: Assaf, Ben Basat, Einziger, Friedman, *Pay for a Sliding Bloom Filter
//! and Get Counting, Distinct Elements, and Entropy for Free*, IEEE INFOCOM 2018 (arXiv
//! 1707.01850), Section III: sliding-window membership over the last `W` elements, with the
//! fingerprint counts in a succinct table.
//!
//! **Structure.** A cyclic fingerprint buffer (CFB) of the `W` most recent elements' `f`-bit
//! fingerprints, and a table of the count of each distinct fingerprint in the buffer. An
//! element's update overwrites the oldest fingerprint (decrementing its count, removing it at
//! zero) and adds its own (incrementing). Membership is "count > 0". A duplicate detector
//! queries first, then updates, so an element is reported iff its fingerprint occurs among the
//! `W` elements before it: the windowed truth with window `W`, plus fingerprint collisions.
//! There are no false negatives within the window.
//!
//! **False positives.** A non-member collides with each of the `D ≤ W` distinct fingerprints
//! in the window with probability `2^−f`: its false positive probability is exactly `D·2^−f`
//! given them, `1 − (1 − 2^−f)^D ≤ W·2^−f` ([`false_positive_rate`], [`false_positive_bound`],
//! the paper's Theorem 1 with `f = ⌈log₂(W/ε)⌉`: [`fingerprint_bits_for`]).
//!
//! **The count table (a reading).** The paper keeps the counts in a TinyTable (Einziger &
//! Friedman, IEEE Access 2019): a compact hash table that stores each fingerprint's remainder
//! after its bucket index, with variable-length counters. Here an equivalent quotient table
//! whose every bit is stated (`compact_table` module): each slot holds the fingerprint's
//! remainder `r = f − q` after its `q = min(f, ⌊log₂ C⌋)` quotient bits (which pick its home
//! slot), two metadata bits (Cleary's and the quotient filter's "occupied" and "run start"),
//! and a small count of `v` bits. Counts do not fit a few bits in general (a key recurring
//! `W` times has count `W`), so, as TinyTable's variable counters do, large counts take extra
//! space, here in a second table:
//! - the main table has `C₁ = ⌊5·min(W, 2^f)/4⌋ + 1` slots (load at most 0.8: at most
//!   `min(W, 2^f)` fingerprints are distinct), each `r₁ + v + 2` bits; a count below
//!   `K = 2^v − 1` is stored in the slot, the value `K` says "`K` or more: see the overflow
//!   table";
//! - the overflow table holds the full `⌈log₂(W+1)⌉`-bit count of each fingerprint with count
//!   at least `K`; at most `⌊W/K⌋` fingerprints can have that many copies among `W`, so it has
//!   `C₂ = ⌊5·⌊W/K⌋/4⌋ + 1` slots of `r₂ + ⌈log₂(W+1)⌉ + 2` bits (none when `K > W`).
//!
//! Memory, all charged ([`memory_bits`]): `W·f + C₁·(r₁ + v + 2) + C₂·(r₂ + ⌈log₂(W+1)⌉ + 2)`
//! bits. `v` is the width that minimises it for the given `f`; from a budget, `f` is the widest
//! that fits, and the main table then takes the rest of the budget as extra slots, up to 4
//! times its size (a lower load, shorter clusters; the verdicts do not change), so the
//! structure holds its budget to within a slot's bits except where the cap binds (at `f` = 1
//! or 2, the smallest budgets). Because the table stores remainders only and one slot per *distinct*
//! fingerprint (`C₁` follows `min(W, 2^f)`), it fits every budget from about 2 bits per window
//! element: at 2 bits, `f = 1` and the table has 3 slots (the error is then about 100 %).
//!
//! TinyTable's own layout (fixed-size groups with per-group index words, chains of items)
//! is not reproduced; its per-entry overhead is about the same two or three bits plus the
//! counter, so the memory stated here is the reading's, not TinyTable's to the bit.
//! The table's behaviour was checked against an exact model (a map of counts), not against
//! Caffeine's Java TinyTable, whose source was not reachable when this was written.
//!
//! Other readings, as in [`crate::swamp_plain`]:
//! - The fingerprint is `f` bits of a rehash of the key hash.
//! - Before `W` elements have arrived the buffer is partly empty and nothing is evicted.
//! - The distinct-count and entropy estimators are not built.
//! - Occupancy is the filled fraction of the main table.

use crate::bits::PackedArray;
use crate::compact_table::{self, QuotientTable, Spot};
use crate::error::{Error, Result};
use crate::hash::rehash;
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

pub use crate::swamp_plain::{count_bits, false_positive_bound, fingerprint_bits_for};

/// Largest fingerprint width.
pub const MAX_FINGERPRINT_BITS: u32 = PackedArray::MAX_WIDTH;

const FP_SALT: u64 = 0x5a4d_5046_7072_696e;

/// Expected false positive rate when the window holds `keys` distinct keys: `1 − (1 − 2^−f)^keys`.
pub fn false_positive_rate(keys: u64, f: u32) -> f64 {
    crate::swamp_plain::false_positive_rate(keys, f)
}

/// Slots of a table that holds at most `entries` keys at load at most 0.8: `⌊5·entries/4⌋ + 1`.
pub fn slots_for(entries: u64) -> u64 {
    entries.saturating_mul(5) / 4 + 1
}

/// The geometry of a SWAMP: window, fingerprint width, count bits in the main table, the two
/// tables' slots (`c2 = 0`: no overflow table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// `W`.
    pub window: u64,
    /// `f`.
    pub f: u32,
    /// `v`, the main table's count bits.
    pub v: u32,
    /// `C₁`, the main table's slots.
    pub c1: u64,
    /// `C₂`, the overflow table's slots (0: none).
    pub c2: u64,
}

impl Geometry {
    /// The smallest geometry for `W`, `f` and `v`.
    pub fn new(window: u64, f: u32, v: u32) -> Self {
        let distinct = window.min(1u64 << f.min(62));
        let k = (1u64 << v) - 1;
        let c2 = if k > window { 0 } else { slots_for(window / k) };
        Self {
            window,
            f,
            v,
            c1: slots_for(distinct),
            c2,
        }
    }

    /// `K = 2^v − 1`: counts from `K` on live in the overflow table.
    pub fn overflow_at(&self) -> u64 {
        (1u64 << self.v) - 1
    }

    /// Bits of state: `W·f + C₁·(r₁ + v + 2) + C₂·(r₂ + ⌈log₂(W+1)⌉ + 2)`.
    pub fn memory_bits(&self) -> Option<u64> {
        let cfb = self.window.checked_mul(u64::from(self.f))?;
        let t1 = self
            .c1
            .checked_mul(u64::from(compact_table::slot_bits(self.f, self.c1, self.v)))?;
        let t2 = if self.c2 == 0 {
            0
        } else {
            self.c2.checked_mul(u64::from(compact_table::slot_bits(
                self.f,
                self.c2,
                count_bits(self.window),
            )))?
        };
        cfb.checked_add(t1)?.checked_add(t2)
    }

    /// Whether each table's slot fits a packed cell.
    fn widths_fit(&self) -> bool {
        compact_table::slot_bits(self.f, self.c1, self.v) <= PackedArray::MAX_WIDTH
            && (self.c2 == 0
                || compact_table::slot_bits(self.f, self.c2, count_bits(self.window))
                    <= PackedArray::MAX_WIDTH)
    }
}

/// The cheapest geometry for `W` and `f` (over the count width `v`), if any fits a packed cell.
pub fn geometry_for(window: u64, f: u32) -> Option<Geometry> {
    (1..=count_bits(window))
        .map(|v| Geometry::new(window, f, v))
        .filter(Geometry::widths_fit)
        .min_by_key(|g| g.memory_bits().unwrap_or(u64::MAX))
}

/// Memory of the cheapest SWAMP with window `W` and `f`-bit fingerprints ([`geometry_for`]).
pub fn memory_bits(window: u64, f: u32) -> Option<u64> {
    geometry_for(window, f)?.memory_bits()
}

pub use crate::swamp_plain::SwampParams;

fn too_small(budget_bits: u64, needed_bits: u64) -> Error {
    Error::BudgetTooSmall {
        structure: "swamp",
        budget_bits,
        needed_bits,
    }
}

fn resolve(budget_bits: u64, p: &SwampParams) -> Result<Geometry> {
    let (w, fixed) = crate::swamp_plain::window_and_given_bits(p)?;
    let g = match fixed {
        Some(f) => {
            let g = geometry_for(w, f).ok_or(Error::InvalidParameter {
                name: "fingerprint_bits",
                value: f.to_string(),
                reason: "a table slot would exceed 57 bits".into(),
            })?;
            let bits = g.memory_bits().unwrap_or(u64::MAX);
            if bits > budget_bits {
                return Err(too_small(budget_bits, bits));
            }
            g
        }
        None => {
            let fits = |f: u32| {
                geometry_for(w, f).filter(|g| g.memory_bits().is_some_and(|b| b <= budget_bits))
            };
            let Some(mut g) = (1..=MAX_FINGERPRINT_BITS).rev().find_map(fits) else {
                return Err(too_small(
                    budget_bits,
                    memory_bits(w, 1).unwrap_or(u64::MAX),
                ));
            };
            // The rest of the budget as extra main-table slots (at most 4 times as many).
            g.c1 = compact_table::grow_slots(
                budget_bits,
                g.c1,
                |c1| Geometry { c1, ..g }.memory_bits(),
                |c1| Geometry { c1, ..g }.widths_fit(),
                |c1| u64::from(compact_table::slot_bits(g.f, c1, g.v)),
            );
            g
        }
    };
    crate::error::words_for_bits("swamp", g.memory_bits().unwrap_or(u64::MAX))?;
    Ok(g)
}

/// SWAMP with a succinct count table (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, swamp::{Swamp, SwampParams}, hash::hash_key};
/// let p = SwampParams { window: 100, fingerprint_bits: Some(32), fpr: None };
/// let mut s = Swamp::new(1 << 16, &p, 0).unwrap();
/// for key in 0..1000u64 {
///     s.step(hash_key(key, 0));
/// }
/// assert!(s.contains(hash_key(999, 0)) && s.contains(hash_key(900, 0)));
/// assert!(!s.contains(hash_key(899, 0))); // slid out (up to a 2^-32 collision)
/// ```
#[derive(Debug, Clone)]
pub struct Swamp {
    /// Cyclic fingerprint buffer.
    cfb: PackedArray,
    /// Main count table: counts below `K`, or `K` ("see `overflow`").
    main: QuotientTable,
    /// Full counts of the fingerprints with count ≥ `K`.
    overflow: Option<QuotientTable>,
    geometry: Geometry,
    k: u64,
    /// Next buffer position to overwrite.
    cur: u64,
    /// Elements in the buffer (`W` once full).
    filled: u64,
}

impl Swamp {
    /// A SWAMP within `budget_bits`. SWAMP draws no random numbers; `seed` is unused.
    pub fn new(budget_bits: u64, params: &SwampParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let g = resolve(budget_bits, params)?;
        let overflow = if g.c2 == 0 {
            None
        } else {
            Some(QuotientTable::new(
                "swamp",
                g.f,
                g.c2,
                count_bits(g.window),
            )?)
        };
        Ok(Self {
            cfb: PackedArray::new("swamp", g.window, g.f)?,
            main: QuotientTable::new("swamp", g.f, g.c1, g.v)?,
            overflow,
            geometry: g,
            k: g.overflow_at(),
            cur: 0,
            filled: 0,
        })
    }

    /// The state size a SWAMP built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &SwampParams) -> Result<u64> {
        Ok(resolve(budget_bits, params)?
            .memory_bits()
            .expect("checked in resolve"))
    }

    /// The geometry built.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// `f`, fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.geometry.f
    }

    /// Distinct fingerprints in the window (the paper's `Z`).
    pub fn distinct(&self) -> u64 {
        self.main.len()
    }

    #[inline(always)]
    fn fingerprint(&self, hash: u64) -> u64 {
        rehash(hash, FP_SALT) >> (64 - self.geometry.f)
    }

    fn count_of(&self, fp: u64) -> u64 {
        match self.main.find(fp) {
            None => 0,
            Some((_, c)) if c < self.k => c,
            Some(_) => {
                self.overflow
                    .as_ref()
                    .and_then(|t| t.find(fp))
                    .expect("a count at K is in the overflow table")
                    .1
            }
        }
    }

    /// The count of `hash`'s fingerprint in the window (the paper's frequency query).
    pub fn frequency(&self, hash: u64) -> u64 {
        self.count_of(self.fingerprint(hash))
    }

    /// Membership query without update.
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        self.main.find(self.fingerprint(hash)).is_some()
    }

    /// Moves the count of `fp`, at `spot` in the main table (from `locate`), from `old` to
    /// `new` (`old + 1` or `old − 1`).
    #[inline(always)]
    fn recount(&mut self, fp: u64, spot: Spot, old: u64, new: u64) {
        // The common case in place: a count that stays in the main table, above 0.
        if spot.found() && new > 0 && old < self.k && new < self.k {
            self.main.set_value(spot.slot, new);
        } else {
            self.recount_moved(fp, spot, old, new);
        }
    }

    /// [`recount`](Self::recount) when an entry comes or goes, or the overflow table is involved.
    #[inline(never)]
    fn recount_moved(&mut self, fp: u64, spot: Spot, old: u64, new: u64) {
        let k = self.k;
        match (spot.found(), new) {
            (false, _) => self.main.insert_at(fp, spot, new.min(k)),
            (true, 0) => self.main.remove_at(fp, spot.slot),
            (true, _) => self.main.set_value(spot.slot, new.min(k)),
        }
        if old < k && new < k {
            return;
        }
        let t = self.overflow.as_mut().expect("K ≤ W: an overflow table");
        match (old >= k, new >= k) {
            (false, true) => t.insert(fp, new),
            (true, false) => t.remove(fp),
            _ => {
                let (s, _) = t.find(fp).expect("a count at K is in the overflow table");
                t.set_value(s, new);
            }
        }
    }

    /// Where `fp` is in the main table, and its count.
    fn count_and_spot(&self, fp: u64) -> (Spot, u64) {
        let spot = self.main.locate(fp);
        let c = match spot.value() {
            c if c < self.k => c,
            _ => self.count_of(fp),
        };
        (spot, c)
    }
}

impl DuplicateFilter for Swamp {
    /// The element is a duplicate iff its fingerprint is among the `W` before it: among the
    /// `W − 1` newest (in the table once the oldest is removed) or the oldest itself. Equal to
    /// the oldest, the table does not change at all (one out, the same one in).
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let w = self.geometry.window;
        let old = if self.filled == w {
            Some(self.cfb.replace(self.cur, fp))
        } else {
            self.cfb.set(self.cur, fp);
            self.filled += 1;
            None
        };
        self.cur = if self.cur + 1 == w { 0 } else { self.cur + 1 };
        if old == Some(fp) {
            return true;
        }
        if let Some(o) = old {
            let (spot, c) = self.count_and_spot(o);
            self.recount(o, spot, c, c - 1);
        }
        let (spot, c) = self.count_and_spot(fp);
        self.recount(fp, spot, c, c + 1);
        c > 0
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.main.prefetch(self.fingerprint(hash));
    }

    fn memory_bits(&self) -> u64 {
        self.cfb.state_bits()
            + self.main.memory_bits()
            + self.overflow.as_ref().map_or(0, QuotientTable::memory_bits)
    }

    fn name(&self) -> &'static str {
        "swamp"
    }

    fn params(&self) -> Vec<crate::Param> {
        let g = self.geometry;
        vec![
            crate::Param::new("window", g.window),
            crate::Param::new("fingerprint_bits", g.f),
            crate::Param::new("count_bits", g.v),
            crate::Param::new("table_slots", g.c1),
            crate::Param::new("overflow_slots", g.c2),
            crate::Param::new("fpr_bound", false_positive_bound(g.window, g.f)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.main.len() as f64 / self.main.slots() as f64,
        }
    }
}

crate::structure::impl_structure!(Swamp {
    name: "swamp",
    params: SwampParams,
    // Calibrated by hand from the roofline at 1 Mbit (W = 16384): about 50 steps of a k = 2
    // Bloom filter, the cluster walks of the quotient tables (`just roofline` gives it a row).
    cost: 50.0,
    memory_bits_for: Swamp::memory_bits_for,
}
    crate::structure::window_scales!(SwampParams);

    /// 3: the main table at the arriving fingerprint's home (its query and insertion walk
    /// the same cluster), the main table at the evicted fingerprint's home, and the cyclic
    /// buffer's cell; the overflow table is touched only by counts at `K` or more. A cluster
    /// is a few adjacent cache lines, walked from its start on an update: that work is the table's own
    /// cost, not more cells.
    fn cells_per_element(_params: &SwampParams, _budget_bits: u64) -> f64 {
        3.0
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;
    use std::collections::{HashMap, VecDeque};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// Against an exact model of the window over fingerprints: a deque of the last W
        /// fingerprints and a HashMap of their counts. Verdicts, every frequency and the
        /// distinct count agree exactly, at every count width `v` (small `v` sends counts
        /// through the overflow table; small `f` forces collisions and long clusters).
        #[test]
        fn equals_the_exact_fingerprint_window(keys in prop::collection::vec(0u64..300, 1..2000),
                                               w in 1u64..300, f in 1u32..14, v in 1u32..5) {
            let v = v.min(count_bits(w));
            let g = Geometry::new(w, f, v);
            let mut s = Swamp::new(1 << 30, &SwampParams { window: w, fingerprint_bits: Some(f), fpr: None }, 0).unwrap();
            // Rebuild at the chosen count width.
            s.geometry = g;
            s.k = g.overflow_at();
            s.main = QuotientTable::new("swamp", f, g.c1, v).unwrap();
            s.overflow = (g.c2 > 0).then(|| QuotientTable::new("swamp", f, g.c2, count_bits(w)).unwrap());
            let mut q: VecDeque<u64> = VecDeque::new();
            let mut counts: HashMap<u64, u64> = HashMap::new();
            let mut seen = vec![];
            for (n, key) in keys.into_iter().enumerate() {
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
                seen.push(h);
                prop_assert_eq!(s.distinct(), counts.len() as u64);
                if n % 50 == 0 {
                    for &h in &seen {
                        prop_assert_eq!(s.frequency(h), counts.get(&s.fingerprint(h)).copied().unwrap_or(0));
                    }
                }
            }
        }
    }

    /// At the roofline's window (W = 16384) and budgets from 4 to 1024 bits per window
    /// element (64: the 1 Mbit row, a main table at load 0.76 with clusters of tens of slots),
    /// 150 000 elements against the exact fingerprint window: every verdict, and at intervals
    /// every window fingerprint's count and the distinct count, agree exactly.
    #[test]
    fn equals_the_exact_fingerprint_window_at_the_roofline_sizes() {
        let w = 16_384u64;
        for bits in [4u64, 16, 64, 1024] {
            let mut s = Swamp::new(bits * w, &SwampParams::window(w), 0).unwrap();
            let mut q: VecDeque<u64> = VecDeque::new();
            let mut counts: HashMap<u64, u64> = HashMap::new();
            let mut hashes: VecDeque<u64> = VecDeque::new();
            for t in 0..150_000u64 {
                // Mostly new keys, a third drawn again from a pool of 2W.
                let key = if t % 3 == 0 {
                    crate::hash::mix64(t) % (2 * w)
                } else {
                    t << 20
                };
                let h = hash_key(key, 5);
                let fp = s.fingerprint(h);
                let want = counts.get(&fp).copied().unwrap_or(0);
                assert_eq!(s.step(h), want > 0, "{bits} bits: element {t}");
                if q.len() as u64 == w {
                    let old = q.pop_front().unwrap();
                    hashes.pop_front();
                    let c = counts.get_mut(&old).unwrap();
                    *c -= 1;
                    if *c == 0 {
                        counts.remove(&old);
                    }
                }
                q.push_back(fp);
                hashes.push_back(h);
                *counts.entry(fp).or_insert(0) += 1;
                if t % 10_000 == 0 {
                    assert_eq!(s.distinct(), counts.len() as u64, "{bits} bits");
                    for &h in &hashes {
                        assert_eq!(s.frequency(h), counts[&s.fingerprint(h)], "{bits} bits");
                    }
                }
            }
        }
    }

    #[test]
    fn no_false_negative_within_the_window() {
        // Keys recur at gaps drawn up to W: each must be reported, at every budget from 2 to
        // 64 bits per window element.
        let w = 2000u64;
        for bits in [2u64, 3, 4, 8, 16, 32, 64] {
            let mut s = Swamp::new(bits * w, &SwampParams::window(w), 0).unwrap();
            let mut last: HashMap<u64, u64> = HashMap::new();
            for t in 0..20 * w {
                let key = crate::hash::mix64(t) % (3 * w);
                let dup = s.step(hash_key(key, 2));
                if let Some(&prev) = last.get(&key)
                    && t - prev <= w
                {
                    assert!(dup, "bits {bits}: key {key} at gap {} missed", t - prev);
                }
                last.insert(key, t);
            }
        }
    }

    #[test]
    fn fpr_matches_theory_and_the_paper_bound() {
        // A window of W distinct keys, then never-seen keys queried: given the D distinct
        // fingerprints held, each query collides with probability exactly D·2^−f (the count
        // is binomial: 3.3 sd, `check_never_seen_fpr`). The paper's bound W·2^−f holds.
        for (w, f) in [(10_000u64, 16u32), (50_000, 20), (2_000, 12), (4_096, 14)] {
            let p = SwampParams {
                window: w,
                fingerprint_bits: Some(f),
                fpr: None,
            };
            let mut s = Swamp::new(memory_bits(w, f).unwrap(), &p, 0).unwrap();
            for i in 0..3 * w {
                s.step(hash_key(i, 4));
            }
            let p_d = s.distinct() as f64 * 0.5f64.powi(f as i32);
            crate::test_support::check_never_seen_fpr(
                &format!(
                    "swamp W={w} f={f} (bound {:.6})",
                    false_positive_bound(w, f)
                ),
                |h| s.contains(h),
                p_d,
            );
            assert!(p_d <= false_positive_bound(w, f));
        }
    }

    #[test]
    fn sizing_fits_every_windowed_column_and_holds_the_budget() {
        for w in [32u64, 512, 1024, 4096, 1 << 16] {
            for bits in [2u64, 4, 8, 16, 32, 64] {
                let budget = bits * w;
                let s = Swamp::new(budget, &SwampParams::window(w), 0)
                    .unwrap_or_else(|e| panic!("W={w} {bits} bits: {e}"));
                let m = s.memory_bits();
                assert_eq!(
                    m,
                    Swamp::memory_bits_for(budget, &SwampParams::window(w)).unwrap()
                );
                assert_eq!(m, s.geometry().memory_bits().unwrap());
                assert!(m <= budget);
                // Within 1 % of the budget (or one main-table slot), unless the main table
                // reached its cap of 4 times its smallest size (at f = 1 or 2, where the budget
                // holds one fingerprint bit but not two).
                let slot = u64::from(compact_table::slot_bits(
                    s.geometry.f,
                    s.geometry.c1,
                    s.geometry.v,
                ));
                let smallest = Geometry::new(w, s.geometry.f, s.geometry.v).c1;
                assert!(
                    budget - m <= (budget / 100).max(slot) || s.geometry.c1 == 4 * smallest,
                    "W={w} {bits} bits: {m} of {budget} (f={})",
                    s.geometry.f
                );
                // The widest f that fits.
                assert!(
                    s.geometry.f == MAX_FINGERPRINT_BITS
                        || memory_bits(w, s.geometry.f + 1).is_none_or(|b| b > budget)
                );
            }
        }
        assert_eq!(slots_for(100), 126);
        // By hand: W = 1000, f = 20, v = 3: K = 7, C₁ = 1251 slots of 20 − 10 + 3 + 2 = 15
        // bits; ⌊1000/7⌋ = 142 overflow entries, C₂ = 178 slots of 20 − 7 + 10 + 2 = 25 bits.
        let g = Geometry::new(1000, 20, 3);
        assert_eq!((g.c1, g.c2), (1251, 178));
        assert_eq!(g.memory_bits(), Some(1000 * 20 + 1251 * 15 + 178 * 25));
        assert!(matches!(
            Swamp::new(10, &SwampParams::window(1000), 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        for bad in [
            SwampParams::window(0),
            SwampParams {
                window: 10,
                fingerprint_bits: Some(0),
                fpr: None,
            },
            SwampParams {
                window: 10,
                fingerprint_bits: Some(8),
                fpr: Some(0.1),
            },
        ] {
            assert!(matches!(
                Swamp::new(1 << 20, &bad, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
    }
}
