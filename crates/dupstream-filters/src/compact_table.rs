//! A compact (quotient) hash table of `f`-bit fingerprints with a small value each: the count
//! table of [`crate::swamp`] and the dictionary of [`crate::naor_yogev`].
//!
//! **Quotienting.** The table has `C` slots. A fingerprint's top `q = min(f, ⌊log₂ C⌋)` bits
//! (its quotient) pick its home slot `⌊quotient·C / 2^q⌋` (monotone and one-to-one, as
//! `C ≥ 2^q`); only its low `r = f − q` bits (its remainder) are stored. Two fingerprints are
//! equal iff their homes and remainders are.
//!
//! **Layout: a quotient filter with two metadata bits** (Cleary, *Compact Hash Tables Using
//! Bidirectional Linear Probing*, IEEE TC 1984; Bender et al., *Don't Thrash*, VLDB 2012, with
//! the emptiness bit folded into the value). Entries are kept by linear probing in home order:
//! the entries of one home form a *run* (sorted by remainder), runs follow one another in home
//! order, and each entry sits at `max(its home, the previous entry's slot + 1)` (the canonical
//! placement: no entry is further from its home than it must be). A maximal stretch of
//! non-empty slots is a *cluster*. A slot holds, in `r + v + 2` bits:
//! - bit 0, *occupied*: some stored fingerprint has this slot as its home;
//! - bit 1, *run start*: the entry in this slot is the first of its run;
//! - `v` value bits; the value 0 marks an empty slot (callers store values `1..2^v`);
//! - the `r` remainder bits.
//!
//! The `k`-th run of a cluster belongs to its `k`-th occupied slot. A lookup
//! ([`QuotientTable::locate`]) goes left from the home to the cluster's start counting the
//! occupied and run-start bits there, which says how many run starts from the home on precede
//! its own run, then walks to that run and compares remainders; it returns the entry's slot or
//! the slot an insertion takes. A caller updates at that spot without a second lookup: an
//! insertion moves the entries from there to the cluster's end up one slot (their contents;
//! an occupied bit belongs to its slot and stays), a deletion moves the entries after it down
//! one slot until one sits at its home, each in one pass. An update thus costs about the
//! cluster's length: about `1/(1 − α)²` slots at load `α` (25 at 0.8; SWAMP's table at 64 bits
//! per window element, load 0.76, has clusters of 22 slots on average over its entries, the
//! longest near 180). A sweep ([`QuotientTable::retain_cluster`]) compacts a cluster in one
//! pass, each kept entry to its canonical slot. Nothing is allocated after construction.
//! Memory: `C·(r + v + 2)` bits in one packed array (plus one spare host word, padding).

use crate::error::{Error, Result, ensure};
use crate::raw;
use dupstream_core::CapacityError;
use dupstream_core::error::words_for_bits;

/// The fingerprint width a structure's parameters give: `fingerprint_bits` (1 to 57), or the
/// width `for_fpr` derives from a target `fpr` in (0, 1) (at most 57), or, with neither, `None`
/// (the caller takes the widest within its budget). Both given is an error.
pub(crate) fn given_fingerprint_bits(
    fingerprint_bits: Option<u32>,
    fpr: Option<f64>,
    for_fpr: impl Fn(f64) -> u32,
) -> Result<Option<u32>> {
    match (fingerprint_bits, fpr) {
        (Some(f), None) => {
            ensure(
                (1..=57).contains(&f),
                "fingerprint_bits",
                f,
                "must be in 1..=57",
            )?;
            Ok(Some(f))
        }
        (None, Some(fpr)) => {
            ensure(fpr > 0.0 && fpr < 1.0, "fpr", fpr, "must be in (0, 1)")?;
            let f = for_fpr(fpr);
            ensure(f <= 57, "fpr", fpr, "needs fingerprints wider than 57 bits")?;
            Ok(Some(f))
        }
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(Error::InvalidParameter {
            name: "fingerprint_bits",
            value: format!("{fingerprint_bits:?}"),
            reason: "give at most one of `fingerprint_bits` and `fpr`".into(),
        }),
    }
}

/// A table of `slots` slots grown into the rest of `budget_bits`, to at most 4 times as many:
/// the most slots for which `memory(slots)` stays within the budget and `fits(slots)` holds,
/// found by adding what the leftover pays for at `slot_bits(slots)` each (a slot may get
/// narrower as the table grows, which leaves more), then stepping back while over.
pub(crate) fn grow_slots(
    budget_bits: u64,
    mut slots: u64,
    memory: impl Fn(u64) -> Option<u64>,
    fits: impl Fn(u64) -> bool,
    slot_bits: impl Fn(u64) -> u64,
) -> u64 {
    let cap = slots.saturating_mul(4);
    loop {
        let used = memory(slots).expect("the starting table fits");
        let extra = budget_bits.saturating_sub(used) / slot_bits(slots);
        if extra == 0 || slots >= cap {
            return slots;
        }
        let mut next = (slots + extra).min(cap);
        while next > slots && (!fits(next) || memory(next).is_none_or(|b| b > budget_bits)) {
            next -= 1;
        }
        if next == slots {
            return slots;
        }
        slots = next;
    }
}

const OCCUPIED: u64 = 1;
const RUN_START: u64 = 2;

/// The slots: `C` cells of `width ≤ 57` bits in a little-endian bit string, as
/// [`crate::bits::PackedArray`] lays them out, read and written without a branch on whether a
/// cell straddles two words (a cluster walk reads one slot after another, and about a third of
/// them straddle: the branch was mispredicted often). Always two words: the spare one at the
/// end keeps the second in bounds.
#[derive(Debug, Clone)]
struct Slots {
    words: Vec<u64>,
    len: u64,
    width: u32,
    mask: u64,
}

impl Slots {
    fn new(structure: &'static str, len: u64, width: u32) -> Result<Self> {
        debug_assert!((1..=57).contains(&width));
        let bits = len.checked_mul(u64::from(width)).ok_or(CapacityError {
            structure,
            bits: u64::MAX,
        })?;
        Ok(Self {
            words: raw::zeroed_words(words_for_bits(structure, bits)? + 1),
            len,
            width,
            mask: (1u64 << width) - 1,
        })
    }

    fn state_bits(&self) -> u64 {
        self.len * u64::from(self.width)
    }

    #[inline(always)]
    fn get(&self, i: u64) -> u64 {
        debug_assert!(i < self.len);
        let bit = i * u64::from(self.width);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        let (a, b) = (self.words[w], self.words[w + 1]);
        // `b`'s bits above position `64 − off`, shifted in two steps so `off = 0` gives none.
        ((a >> off) | ((b << 1) << (63 - off))) & self.mask
    }

    #[inline(always)]
    fn set(&mut self, i: u64, v: u64) {
        debug_assert!(i < self.len);
        let v = v & self.mask;
        let bit = i * u64::from(self.width);
        let w = (bit >> 6) as usize;
        let off = (bit & 63) as u32;
        let (a, b) = (self.words[w], self.words[w + 1]);
        self.words[w] = (a & !(self.mask << off)) | (v << off);
        // The part of the cell in the next word (none when it does not straddle).
        self.words[w + 1] = (b & !((self.mask >> 1) >> (63 - off))) | ((v >> 1) >> (63 - off));
    }

    #[inline(always)]
    fn prefetch(&self, i: u64) {
        raw::prefetch_word(&self.words, ((i * u64::from(self.width)) >> 6) as usize);
    }
}

/// Where a fingerprint is stored, or would be inserted ([`QuotientTable::locate`]): its
/// entry's slot if stored, else the slot its insertion takes; and its value (0 if not stored)
/// with three flags in `bits` (two words, returned in registers).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spot {
    pub(crate) slot: u64,
    bits: u64,
}

const FOUND: u64 = 1;
/// The entry is (or would be) its run's first.
const HEAD: u64 = 2;
/// Its home was occupied.
const HOME_OCCUPIED: u64 = 4;

impl Spot {
    /// Whether the fingerprint is stored.
    #[inline(always)]
    pub(crate) fn found(&self) -> bool {
        self.bits & FOUND != 0
    }

    /// Its value if stored (else 0).
    #[inline(always)]
    pub(crate) fn value(&self) -> u64 {
        self.bits >> 3
    }

    #[inline(always)]
    fn head(&self) -> bool {
        self.bits & HEAD != 0
    }

    #[inline(always)]
    fn occupied(&self) -> bool {
        self.bits & HOME_OCCUPIED != 0
    }
}

/// The quotient table (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct QuotientTable {
    slots: Slots,
    c: u64,
    q: u32,
    r: u32,
    v: u32,
    len: u64,
}

/// The quotient bits of an `f`-bit fingerprint in a table of `c` slots.
pub(crate) fn quotient_bits(f: u32, c: u64) -> u32 {
    f.min(63 - c.max(1).leading_zeros())
}

/// Bits per slot of a table of `c` slots over `f`-bit fingerprints with `v`-bit values.
pub(crate) fn slot_bits(f: u32, c: u64, v: u32) -> u32 {
    f - quotient_bits(f, c) + v + 2
}

impl QuotientTable {
    /// An empty table of `c ≥ 2` slots for `f`-bit fingerprints and `v`-bit values; the caller
    /// keeps at least one slot empty (`c` above the most entries it stores).
    pub(crate) fn new(structure: &'static str, f: u32, c: u64, v: u32) -> Result<Self> {
        let q = quotient_bits(f, c);
        let r = f - q;
        Ok(Self {
            slots: Slots::new(structure, c, r + v + 2)?,
            c,
            q,
            r,
            v,
            len: 0,
        })
    }

    /// Bits of state: `C·(r + v + 2)`.
    pub(crate) fn memory_bits(&self) -> u64 {
        self.slots.state_bits()
    }

    /// Slots `C`.
    pub(crate) fn slots(&self) -> u64 {
        self.c
    }

    /// Entries stored.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    #[inline(always)]
    fn split(&self, fp: u64) -> (u64, u64) {
        let quot = fp >> self.r;
        let home = ((u128::from(quot) * u128::from(self.c)) >> self.q) as u64;
        (home, fp & ((1u64 << self.r) - 1))
    }

    /// Prefetches the home slot of `fp`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, fp: u64) {
        self.slots.prefetch(self.split(fp).0);
    }

    #[inline(always)]
    fn next(&self, i: u64) -> u64 {
        if i + 1 == self.c { 0 } else { i + 1 }
    }

    #[inline(always)]
    fn prev(&self, i: u64) -> u64 {
        if i == 0 { self.c - 1 } else { i - 1 }
    }

    #[inline(always)]
    fn value_of(&self, word: u64) -> u64 {
        (word >> 2) & ((1u64 << self.v) - 1)
    }

    #[inline(always)]
    fn rem_of(&self, word: u64) -> u64 {
        word >> (2 + self.v)
    }

    /// The value in slot `i`, `None` if it is empty.
    pub(crate) fn value_at(&self, i: u64) -> Option<u64> {
        Some(self.value_of(self.slots.get(i))).filter(|&v| v != 0)
    }

    #[inline(always)]
    fn is_empty_slot(&self, i: u64) -> bool {
        self.value_of(self.slots.get(i)) == 0
    }

    /// The first slot of the cluster holding the non-empty slot `i`.
    fn cluster_start(&self, mut i: u64) -> u64 {
        loop {
            let p = self.prev(i);
            if self.is_empty_slot(p) {
                return i;
            }
            i = p;
        }
    }

    /// The slot and value of `fp`, if stored.
    #[inline]
    pub(crate) fn find(&self, fp: u64) -> Option<(u64, u64)> {
        if self.slots.get(self.split(fp).0) & OCCUPIED == 0 {
            return None;
        }
        let s = self.locate(fp);
        s.found().then_some((s.slot, s.value()))
    }

    /// Where `fp` is stored, or where its insertion would put it.
    #[inline]
    pub(crate) fn locate(&self, fp: u64) -> Spot {
        let (home, rem) = self.split(fp);
        let hw = self.slots.get(home);
        let occupied = if hw & OCCUPIED != 0 { HOME_OCCUPIED } else { 0 };
        if self.value_of(hw) == 0 {
            return Spot {
                slot: home,
                bits: HEAD | occupied,
            };
        }
        // Left of the home to the cluster's start: the homes there number `O`, the runs that
        // start there `R ≤ O` (a run starts at or after its home). The other `O − R` runs of
        // those homes start at or after this home, then comes its own (or, if the home holds
        // none, the next home's run, before which a new run goes): the `(O − R + 1)`-th run
        // start from the home on, or the cluster's end.
        // (A suffix of that stretch may hold more run starts than homes: signed counts.)
        let mut need = 1i64;
        let mut j = self.prev(home);
        loop {
            let pw = self.slots.get(j);
            if self.value_of(pw) == 0 {
                break;
            }
            need += (pw & OCCUPIED) as i64 - ((pw & RUN_START) >> 1) as i64;
            j = self.prev(j);
        }
        let mut i = home;
        loop {
            let w = self.slots.get(i);
            if self.value_of(w) == 0 {
                break;
            }
            need -= ((w & RUN_START) >> 1) as i64;
            if need == 0 {
                break;
            }
            i = self.next(i);
        }
        if occupied == 0 {
            return Spot {
                slot: i,
                bits: HEAD,
            };
        }
        // Slot i starts the run; scan it (sorted by remainder).
        let mut head = HEAD;
        loop {
            let w = self.slots.get(i);
            let r = self.rem_of(w);
            if r >= rem {
                let found = if r == rem {
                    (self.value_of(w) << 3) | FOUND
                } else {
                    0
                };
                return Spot {
                    slot: i,
                    bits: found | head | occupied,
                };
            }
            i = self.next(i);
            head = 0;
            let w = self.slots.get(i);
            if self.value_of(w) == 0 || w & RUN_START != 0 {
                return Spot {
                    slot: i,
                    bits: occupied,
                };
            }
        }
    }

    /// Overwrites the value at `slot` (from [`find`](Self::find)) with `value ≥ 1`.
    #[inline]
    pub(crate) fn set_value(&mut self, slot: u64, value: u64) {
        debug_assert!(value >= 1 && value < 1 << self.v);
        let w = self.slots.get(slot);
        let mask = ((1u64 << self.v) - 1) << 2;
        self.slots.set(slot, (w & !mask) | (value << 2));
    }

    /// The content bits of a slot word (remainder, value, run start), without its occupied bit.
    #[inline(always)]
    fn content(word: u64) -> u64 {
        word & !OCCUPIED
    }

    /// Empties slot `i` (its occupied bit stays).
    #[inline(always)]
    fn clear_content(&mut self, i: u64) {
        let occ = self.slots.get(i) & OCCUPIED;
        self.slots.set(i, occ);
    }

    /// Clears the occupied bit of slot `i`.
    #[inline(always)]
    fn clear_occupied(&mut self, i: u64) {
        let w = self.slots.get(i);
        self.slots.set(i, w & !OCCUPIED);
    }

    /// Position of `a` relative to `start`, cyclically.
    #[inline(always)]
    fn rel(&self, a: u64, start: u64) -> u64 {
        if a >= start {
            a - start
        } else {
            a + self.c - start
        }
    }

    /// Inserts `fp` (not stored) with `value ≥ 1`.
    pub(crate) fn insert(&mut self, fp: u64, value: u64) {
        self.insert_at(fp, self.locate(fp), value);
    }

    /// Inserts `fp` at its `spot` (from [`locate`](Self::locate), not found, the table
    /// unchanged since) with `value ≥ 1`: its entry goes to the spot's slot, and the entries
    /// from there to the cluster's end move up one slot (their contents; occupied bits belong
    /// to slots and stay), in one pass.
    pub(crate) fn insert_at(&mut self, fp: u64, spot: Spot, value: u64) {
        debug_assert!(!spot.found());
        let (home, rem) = self.split(fp);
        debug_assert!(value >= 1 && value < 1 << self.v);
        debug_assert!(self.len + 1 < self.c, "the table keeps an empty slot");
        self.len += 1;
        let flag = if spot.head() { RUN_START } else { 0 };
        let mut carry = (rem << (2 + self.v)) | (value << 2) | flag;
        // A new first entry of an existing run: that run's old head, at the slot, stops being
        // a run start.
        let demote = spot.occupied() && spot.head();
        let mut j = spot.slot;
        loop {
            let w = self.slots.get(j);
            self.slots.set(j, carry | (w & OCCUPIED));
            if self.value_of(w) == 0 {
                break;
            }
            carry = Self::content(w);
            if j == spot.slot && demote {
                carry &= !RUN_START;
            }
            j = self.next(j);
        }
        if !spot.occupied() {
            let hw = self.slots.get(home);
            self.slots.set(home, hw | OCCUPIED);
        }
    }

    /// Removes `fp` (stored).
    pub(crate) fn remove(&mut self, fp: u64) {
        let spot = self.locate(fp);
        debug_assert!(spot.found(), "remove: the fingerprint is stored");
        self.remove_at(fp, spot.slot);
    }

    /// Removes the entry of `fp` at `slot` (from [`locate`](Self::locate), the table
    /// unchanged since): the entries after it move down one slot until one sits at its home or
    /// the cluster ends. A run start's home is the next occupied slot after the previous run's:
    /// a cursor walks the occupied bits from `fp`'s home.
    pub(crate) fn remove_at(&mut self, fp: u64, slot: u64) {
        let home = self.split(fp).0;
        // The word last read at `j`, the slot to fill (its occupied bit stays).
        let mut jw = self.slots.get(slot);
        let was_start = jw & RUN_START != 0;
        let mut run_left = false;
        let mut hp = self.next(home);
        let mut j = slot;
        loop {
            let src = self.next(j);
            let sw = self.slots.get(src);
            if self.value_of(sw) == 0 {
                break;
            }
            let mut moved = Self::content(sw);
            if sw & RUN_START != 0 {
                while self.slots.get(hp) & OCCUPIED == 0 {
                    hp = self.next(hp);
                }
                if hp == src {
                    break;
                }
                hp = self.next(hp);
            } else if j == slot {
                // The removed entry's run goes on: its next entry may become its head.
                run_left = true;
                if was_start {
                    moved |= RUN_START;
                }
            }
            self.slots.set(j, moved | (jw & OCCUPIED));
            j = src;
            jw = sw;
        }
        self.slots.set(j, jw & OCCUPIED);
        if was_start && !run_left {
            self.clear_occupied(home);
        }
        self.len -= 1;
    }

    /// Removes the entries whose value fails `keep` from whole clusters, from slot `at` on,
    /// until at least `quota` slots are covered; returns the slot after the last covered
    /// (as [`retain_cluster`](Self::retain_cluster) in a loop, with empty slots passed over
    /// in place).
    pub(crate) fn sweep(&mut self, mut at: u64, quota: u64, keep: impl Fn(u64) -> bool) -> u64 {
        let mut done = 0;
        while done < quota {
            if self.is_empty_slot(at) {
                at = self.next(at);
                done += 1;
                continue;
            }
            let next = self.retain_cluster(at, &keep);
            done += self.rel(next, at);
            at = next;
        }
        at
    }

    /// Removes the entries whose value fails `keep` from the cluster holding slot `i` (nothing
    /// if `i` is empty); returns the slot after that cluster's end (after `i` if it is empty).
    pub(crate) fn retain_cluster(&mut self, i: u64, keep: impl Fn(u64) -> bool) -> u64 {
        if self.is_empty_slot(i) {
            return self.next(i);
        }
        let s0 = self.cluster_start(i);
        // The values alone first: most clusters lose nothing.
        let mut e0 = s0;
        let mut any = false;
        loop {
            let v = self.value_of(self.slots.get(e0));
            if v == 0 {
                break;
            }
            any |= !keep(v);
            e0 = self.next(e0);
        }
        if !any {
            return e0;
        }
        // One pass: each kept entry moves down to its canonical slot, the greater of its home
        // and the slot after the previous kept entry (entries only move down, so the slots
        // written have been read); a home that keeps no entry loses its occupied bit.
        let mut hp = s0;
        let mut run: Option<(u64, bool)> = None; // the current run's home and whether it kept one
        let mut dst = s0;
        let mut dropped = 0;
        let mut i = s0;
        while i != e0 {
            let w = self.slots.get(i);
            if w & RUN_START != 0 {
                if let Some((home, false)) = run {
                    self.clear_occupied(home);
                }
                while self.slots.get(hp) & OCCUPIED == 0 {
                    hp = self.next(hp);
                }
                run = Some((hp, false));
                hp = self.next(hp);
            }
            let (home, kept) = run.expect("a cluster starts with a run start");
            if keep(self.value_of(w)) {
                let pos = if self.rel(home, s0) > self.rel(dst, s0) {
                    home
                } else {
                    dst
                };
                while dst != pos {
                    self.clear_content(dst);
                    dst = self.next(dst);
                }
                let flag = if kept { 0 } else { RUN_START };
                let occ = self.slots.get(pos) & OCCUPIED;
                self.slots
                    .set(pos, (Self::content(w) & !RUN_START) | flag | occ);
                run = Some((home, true));
                dst = self.next(pos);
            } else {
                dropped += 1;
            }
            i = self.next(i);
        }
        if let Some((home, false)) = run {
            self.clear_occupied(home);
        }
        while dst != e0 {
            self.clear_content(dst);
            dst = self.next(dst);
        }
        self.len -= dropped;
        e0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// The slots hold what a `PackedArray` of the same width holds after the same writes
        /// (every cell read back, so a write that spilled into a neighbour shows), for every
        /// width and offset within a word.
        #[test]
        fn slots_equal_a_packed_array(width in 1u32..=57, len in 1u64..80,
                                      writes in prop::collection::vec((0u64..80, any::<u64>()), 0..200)) {
            let mut s = Slots::new("test", len, width).unwrap();
            let mut p = crate::bits::PackedArray::new("test", len, width).unwrap();
            prop_assert_eq!(s.state_bits(), p.state_bits());
            for (i, v) in writes {
                let i = i % len;
                s.set(i, v);
                p.set(i, v);
            }
            for i in 0..len {
                prop_assert_eq!(s.get(i), p.get(i), "cell {}", i);
            }
        }

        /// Against a HashMap on random inserts, value updates, removals and sweeps, with small
        /// tables (long clusters, wrap-around) and fingerprint widths both below and above
        /// `log₂ C` (no remainder, and remainders): every fingerprint's value agrees.
        #[test]
        fn equals_a_hash_map(ops in prop::collection::vec((0u8..4, 0u64..1 << 12, 1u64..8), 1..600),
                             f in 1u32..11, c in 2u64..200) {
            let mut t = QuotientTable::new("test", f, c, 3).unwrap();
            let mut m: HashMap<u64, u64> = HashMap::new();
            let mask = (1u64 << f) - 1;
            for (n, (op, x, v)) in ops.into_iter().enumerate() {
                let fp = x & mask;
                match op {
                    0 | 1 => {
                        if let Some((slot, _)) = t.find(fp) {
                            t.set_value(slot, v);
                        } else if (m.len() as u64) + 2 < c {
                            t.insert(fp, v);
                        } else {
                            continue;
                        }
                        m.insert(fp, v);
                    }
                    2 => {
                        if m.remove(&fp).is_some() {
                            t.remove(fp);
                        }
                    }
                    _ => {
                        // A full sweep, cluster by cluster from slot x mod C, dropping the
                        // values ≥ v.
                        let mut p = x % c;
                        let mut covered = 0;
                        while covered < c {
                            let n = t.retain_cluster(p, |val| val < v);
                            covered += (n + c - p) % c;
                            p = n;
                        }
                        m.retain(|_, val| *val < v);
                    }
                }
                prop_assert_eq!(t.len(), m.len() as u64);
                prop_assert_eq!(t.find(fp).map(|x| x.1), m.get(&fp).copied());
                if n % 8 != 0 {
                    continue;
                }
                for fp in 0..=mask {
                    prop_assert_eq!(t.find(fp).map(|x| x.1), m.get(&fp).copied(), "fp {}", fp);
                }
            }
        }
    }

    /// A long random run at the loads the structures use (0.76 to 0.8, clusters of tens of
    /// slots, wrap-around), with remainders from none to over 40 bits, against a HashMap: inserts and
    /// removals at their located spots, value updates and sweeps; every 4096 operations every
    /// stored fingerprint's value and the table's layout invariants are checked (the values of
    /// the keys not stored are checked per operation).
    #[test]
    fn equals_a_hash_map_at_high_load() {
        for (f, c) in [(12u32, 4096u64), (30, 5000), (54, 3001)] {
            let mut t = QuotientTable::new("test", f, c, 5).unwrap();
            let mut m: HashMap<u64, u64> = HashMap::new();
            let most = c * 4 / 5;
            for n in 0..200_000u64 {
                let x = crate::hash::mix64(n ^ (u64::from(f) << 40));
                // Fingerprints from a pool of 2·most values, so that removals and updates hit.
                let fp = crate::hash::mix64(x % (2 * most)) >> (64 - f);
                let v = 1 + (x >> 40) % 31;
                let spot = t.locate(fp);
                assert_eq!(spot.found(), m.contains_key(&fp), "f {f} op {n}");
                if spot.found() {
                    assert_eq!(spot.value(), m[&fp]);
                    if (x >> 20).is_multiple_of(3) {
                        t.remove_at(fp, spot.slot);
                        m.remove(&fp);
                    } else {
                        t.set_value(spot.slot, v);
                        m.insert(fp, v);
                    }
                } else if (m.len() as u64) < most {
                    t.insert_at(fp, spot, v);
                    m.insert(fp, v);
                }
                if n % 997 == 0 {
                    // A sweep of a tenth of the table, dropping values above 28.
                    let mut p = x % c;
                    let mut covered = 0;
                    while covered < c / 10 {
                        let next = t.retain_cluster(p, |val| val <= 28);
                        covered += (next + c - p) % c;
                        p = next;
                    }
                    // Only values above 28 may have gone (those in the clusters swept).
                    m.retain(|&k, &mut val| {
                        let kept = t.find(k).is_some();
                        assert!(kept || val > 28, "f {f} op {n}: value {val} swept");
                        kept
                    });
                }
                assert_eq!(t.len(), m.len() as u64);
                if n % 4096 == 0 {
                    for (&k, &val) in &m {
                        assert_eq!(t.find(k).map(|x| x.1), Some(val), "f {f} op {n}");
                    }
                    // Entries are in canonical places: a slot holding an entry is either its
                    // cluster's first (at its home, so occupied and a run start) or follows
                    // another entry; a count of the occupied bits equals one of the run starts.
                    let (mut occ, mut starts) = (0, 0);
                    for i in 0..c {
                        let w = t.slots.get(i);
                        occ += w & OCCUPIED;
                        starts += (w & RUN_START) >> 1;
                        if t.value_of(w) != 0 && t.is_empty_slot(t.prev(i)) {
                            assert_eq!(w & (OCCUPIED | RUN_START), OCCUPIED | RUN_START);
                        }
                    }
                    assert_eq!(occ, starts);
                }
            }
        }
    }
}
