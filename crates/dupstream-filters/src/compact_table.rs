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
//! The `k`-th run of a cluster belongs to its `k`-th occupied slot. A search goes left from
//! the home to the cluster's start, counts the occupied bits up to the home, walks to that
//! run and compares remainders. An insertion or deletion decodes the cluster, edits the list of
//! (home, remainder, value) and writes it back canonically; the cost is the cluster's length,
//! about `1/(1 − α)²` slots at load `α` (25 at 0.8). Memory: `C·(r + v + 2)` bits in one packed
//! array (plus one spare host word, padding).

use crate::bits::PackedArray;
use crate::error::Result;

const OCCUPIED: u64 = 1;
const RUN_START: u64 = 2;

/// One decoded entry: home slot, remainder, value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    home: u64,
    rem: u64,
    value: u64,
}

/// The quotient table (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct QuotientTable {
    slots: PackedArray,
    c: u64,
    q: u32,
    r: u32,
    v: u32,
    len: u64,
    scratch: Vec<Entry>,
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
            slots: PackedArray::new(structure, c, r + v + 2)?,
            c,
            q,
            r,
            v,
            len: 0,
            scratch: Vec::new(),
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
        let (home, rem) = self.split(fp);
        let w = self.slots.get(home);
        if w & OCCUPIED == 0 {
            return None;
        }
        // The run of `home` is the k-th run of its cluster, k the occupied slots up to it.
        let start = self.cluster_start(home);
        let mut k = 0u64;
        let mut i = start;
        loop {
            k += self.slots.get(i) & OCCUPIED;
            if i == home {
                break;
            }
            i = self.next(i);
        }
        let mut i = start;
        loop {
            k -= (self.slots.get(i) & RUN_START) >> 1;
            if k == 0 {
                break;
            }
            i = self.next(i);
        }
        // Slot i starts the run; scan it (sorted by remainder).
        loop {
            let w = self.slots.get(i);
            let r = self.rem_of(w);
            if r == rem {
                return Some((i, self.value_of(w)));
            }
            if r > rem {
                return None;
            }
            i = self.next(i);
            let w = self.slots.get(i);
            if self.value_of(w) == 0 || w & RUN_START != 0 {
                return None;
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

    /// Decodes the cluster starting at `start` into `scratch`; returns the slots it spans.
    fn decode(&mut self, start: u64) -> u64 {
        self.scratch.clear();
        // The k-th run start belongs to the k-th occupied slot, which lies at or before it:
        // `hp` walks the occupied bits behind the entries.
        let mut hp = start;
        let mut home = start;
        let mut i = start;
        let mut span = 0;
        loop {
            let w = self.slots.get(i);
            if self.value_of(w) == 0 {
                break;
            }
            if w & RUN_START != 0 {
                while self.slots.get(hp) & OCCUPIED == 0 {
                    hp = self.next(hp);
                }
                home = hp;
                hp = self.next(hp);
            }
            self.scratch.push(Entry {
                home,
                rem: self.rem_of(w),
                value: self.value_of(w),
            });
            span += 1;
            i = self.next(i);
        }
        span
    }

    /// Clears `span` slots from `start` (their occupied bits too: every occupied home of the
    /// cluster lies in it) and writes `scratch` back canonically from `start`, setting the
    /// occupied bit of each home that keeps an entry (every home in `scratch` lies at or after
    /// `start`, cyclically).
    fn encode(&mut self, start: u64, span: u64) {
        let mut i = start;
        for _ in 0..span {
            self.slots.set(i, 0);
            i = self.next(i);
        }
        let rel = |h: u64| {
            if h >= start {
                h - start
            } else {
                h + self.c - start
            }
        };
        let mut pos: Option<u64> = None;
        let mut last_home = u64::MAX;
        for n in 0..self.scratch.len() {
            let e = self.scratch[n];
            let h = rel(e.home);
            let p = match pos {
                Some(p) => h.max(p + 1),
                None => h,
            };
            pos = Some(p);
            let slot = (start + p) % self.c;
            let mut w = (e.rem << (2 + self.v)) | (e.value << 2);
            if e.home != last_home {
                w |= RUN_START;
                last_home = e.home;
            }
            let old = self.slots.get(slot);
            self.slots.set(slot, w | (old & OCCUPIED));
            let hw = self.slots.get(e.home);
            self.slots.set(e.home, hw | OCCUPIED);
        }
    }

    /// Inserts `fp` (not stored) with `value ≥ 1`.
    pub(crate) fn insert(&mut self, fp: u64, value: u64) {
        debug_assert!(value >= 1 && value < 1 << self.v);
        debug_assert!(self.len + 1 < self.c, "the table keeps an empty slot");
        let (home, rem) = self.split(fp);
        let (start, span) = if self.is_empty_slot(home) {
            self.scratch.clear();
            (home, 0)
        } else {
            let s = self.cluster_start(home);
            (s, self.decode(s))
        };
        let e = Entry { home, rem, value };
        let rel = |h: u64| {
            if h >= start {
                h - start
            } else {
                h + self.c - start
            }
        };
        let at = self
            .scratch
            .iter()
            .position(|x| (rel(x.home), x.rem) > (rel(home), rem))
            .unwrap_or(self.scratch.len());
        self.scratch.insert(at, e);
        self.encode(start, span);
        self.len += 1;
    }

    /// Removes `fp` (stored).
    pub(crate) fn remove(&mut self, fp: u64) {
        let (home, rem) = self.split(fp);
        let start = self.cluster_start(home);
        let span = self.decode(start);
        let at = self
            .scratch
            .iter()
            .position(|x| x.home == home && x.rem == rem)
            .expect("remove: the fingerprint is stored");
        self.scratch.remove(at);
        self.encode(start, span);
        self.len -= 1;
    }

    /// Removes the entries whose value fails `keep` from the cluster holding slot `i` (nothing
    /// if `i` is empty); returns the slot after that cluster's end (after `i` if it is empty).
    pub(crate) fn retain_cluster(&mut self, i: u64, keep: impl Fn(u64) -> bool) -> u64 {
        if self.is_empty_slot(i) {
            return self.next(i);
        }
        let start = self.cluster_start(i);
        // Read the values first; decode only a cluster that loses an entry.
        let mut j = start;
        let mut all_kept = true;
        loop {
            let v = self.value_of(self.slots.get(j));
            if v == 0 {
                break;
            }
            all_kept &= keep(v);
            j = self.next(j);
        }
        if all_kept {
            return j;
        }
        let span = self.decode(start);
        let end = (start + span) % self.c;
        let before = self.scratch.len();
        self.scratch.retain(|e| keep(e.value));
        self.len -= (before - self.scratch.len()) as u64;
        self.encode(start, span);
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
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
}
