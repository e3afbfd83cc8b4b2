//! SWAMP: Assaf, Ben Basat, Einziger, Friedman, *Pay for a Sliding Bloom Filter and Get
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
//! **The count table (a reading).** The paper stores the counts in a TinyTable (Einziger &
//! Friedman), a compact hash table whose per-entry cost is the fingerprint's remainder after
//! its bucket index plus a few bits. This implementation uses a plainer table whose memory is
//! exactly what it allocates: open addressing with linear probing over
//! `C = ⌈W / 0.8⌉` slots (load at most 0.8, as at most `W` fingerprints are distinct), each
//! slot holding the full `f`-bit fingerprint and a count of `⌈log₂(W + 1)⌉` bits (count 0 marks
//! an empty slot); deletions shift back the following run (no tombstones). Its memory is
//! `W·f + C·(f + ⌈log₂(W+1)⌉)` bits ([`memory_bits`]); a TinyTable would store about
//! `log₂ C` fewer bits per slot at a higher load, so this reading is the more expensive one
//! and SWAMP's accuracy at a given budget is, if anything, understated here.
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
const SLOT_SALT: u64 = 0x736c_6f74_7377_6d70;

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

/// Parameters of a [`Swamp`]: the window `W`, and the fingerprint width given (`fingerprint_bits`),
/// derived from a target rate (`fpr`, [`fingerprint_bits_for`]), or, with neither, the widest
/// that fits the budget.
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

fn resolve(budget_bits: u64, p: &SwampParams) -> Result<(u64, u32)> {
    let w = p.window;
    ensure(
        (1..=1u64 << 40).contains(&w),
        "window",
        w,
        "must be in 1..=2^40",
    )?;
    let f = match (p.fingerprint_bits, p.fpr) {
        (Some(f), None) => {
            ensure(
                (1..=MAX_FINGERPRINT_BITS).contains(&f),
                "fingerprint_bits",
                f,
                "must be in 1..=57",
            )?;
            f
        }
        (None, Some(fpr)) => {
            ensure(fpr > 0.0 && fpr < 1.0, "fpr", fpr, "must be in (0, 1)")?;
            let f = fingerprint_bits_for(w, fpr);
            ensure(
                f <= MAX_FINGERPRINT_BITS,
                "fpr",
                fpr,
                "needs fingerprints wider than 57 bits",
            )?;
            f
        }
        (None, None) => {
            // Widest f with W·f + C·(f + cb) ≤ budget.
            let c = table_slots(w);
            let fixed = c.saturating_mul(u64::from(count_bits(w)));
            let f = budget_bits.saturating_sub(fixed) / (w + c);
            if f == 0 {
                return Err(Error::BudgetTooSmall {
                    structure: "swamp",
                    budget_bits,
                    needed_bits: memory_bits(w, 1).unwrap_or(u64::MAX),
                });
            }
            f.min(u64::from(MAX_FINGERPRINT_BITS)) as u32
        }
        (Some(_), Some(_)) => {
            return Err(Error::InvalidParameter {
                name: "fingerprint_bits",
                value: format!("{:?}", p.fingerprint_bits),
                reason: "give at most one of `fingerprint_bits` and `fpr`".into(),
            });
        }
    };
    let bits = memory_bits(w, f).ok_or(Error::CapacityTooLarge {
        structure: "swamp",
        bits: u64::MAX,
    })?;
    if bits > budget_bits {
        return Err(Error::BudgetTooSmall {
            structure: "swamp",
            budget_bits,
            needed_bits: bits,
        });
    }
    crate::error::words_for_bits("swamp", bits)?;
    Ok((w, f))
}

/// SWAMP's sliding-window membership (see the module documentation).
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
    /// Count table: fingerprints and counts (count 0 = empty slot).
    fps: PackedArray,
    counts: PackedArray,
    window: u64,
    f: u32,
    slots: u64,
    /// Next buffer position to overwrite.
    cur: u64,
    /// Elements in the buffer (`W` once full).
    filled: u64,
    /// Occupied table slots (distinct fingerprints in the window).
    distinct: u64,
}

impl Swamp {
    /// A SWAMP within `budget_bits`. SWAMP draws no random numbers; `seed` is unused.
    pub fn new(budget_bits: u64, params: &SwampParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let (w, f) = resolve(budget_bits, params)?;
        let slots = table_slots(w);
        Ok(Self {
            cfb: PackedArray::new("swamp", w, f)?,
            fps: PackedArray::new("swamp", slots, f)?,
            counts: PackedArray::new("swamp", slots, count_bits(w))?,
            window: w,
            f,
            slots,
            cur: 0,
            filled: 0,
            distinct: 0,
        })
    }

    /// The state size a SWAMP built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &SwampParams) -> Result<u64> {
        let (w, f) = resolve(budget_bits, params)?;
        Ok(memory_bits(w, f).expect("checked in resolve"))
    }

    /// A SWAMP for window `W` and target rate `fpr` through the paper's `f = ⌈log₂(W/ε)⌉`.
    pub fn for_window_fpr(window: u64, fpr: f64) -> Result<Self> {
        let p = SwampParams {
            window,
            fingerprint_bits: None,
            fpr: Some(fpr),
        };
        let f = fingerprint_bits_for(window, fpr);
        Self::new(memory_bits(window, f).unwrap_or(u64::MAX), &p, 0)
    }

    /// `f`, fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.f
    }

    /// Distinct fingerprints in the window (the paper's `Z`).
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    #[inline(always)]
    fn fingerprint(&self, hash: u64) -> u64 {
        rehash(hash, FP_SALT) >> (64 - self.f)
    }

    #[inline(always)]
    fn home(&self, fp: u64) -> u64 {
        reduce(rehash(fp, SLOT_SALT), self.slots)
    }

    #[inline(always)]
    fn next(&self, i: u64) -> u64 {
        if i + 1 == self.slots { 0 } else { i + 1 }
    }

    /// Slot of `fp`, or `Err(first empty slot of its run)`.
    #[inline]
    fn find(&self, fp: u64) -> std::result::Result<u64, u64> {
        let mut i = self.home(fp);
        loop {
            if self.counts.get(i) == 0 {
                return Err(i);
            }
            if self.fps.get(i) == fp {
                return Ok(i);
            }
            i = self.next(i);
        }
    }

    /// The count of `hash`'s fingerprint in the window (the paper's frequency query).
    pub fn frequency(&self, hash: u64) -> u64 {
        self.find(self.fingerprint(hash))
            .map_or(0, |i| self.counts.get(i))
    }

    /// Membership query without update.
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        self.find(self.fingerprint(hash)).is_ok()
    }

    fn increment(&mut self, fp: u64) {
        match self.find(fp) {
            Ok(i) => self.counts.set(i, self.counts.get(i) + 1),
            Err(i) => {
                self.fps.set(i, fp);
                self.counts.set(i, 1);
                self.distinct += 1;
            }
        }
    }

    fn decrement(&mut self, fp: u64) {
        let i = self
            .find(fp)
            .expect("a buffered fingerprint is in the table");
        let c = self.counts.get(i);
        if c > 1 {
            self.counts.set(i, c - 1);
            return;
        }
        self.distinct -= 1;
        // Backward-shift deletion: move later entries of the run into the hole when their home
        // does not lie cyclically in (hole, j].
        let mut hole = i;
        let mut j = self.next(i);
        loop {
            let cj = self.counts.get(j);
            if cj == 0 {
                break;
            }
            let h = self.home(self.fps.get(j));
            let stays = if hole <= j {
                hole < h && h <= j
            } else {
                hole < h || h <= j
            };
            if !stays {
                self.fps.set(hole, self.fps.get(j));
                self.counts.set(hole, cj);
                hole = j;
            }
            j = self.next(j);
        }
        self.counts.set(hole, 0);
    }
}

impl DuplicateFilter for Swamp {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let fp = self.fingerprint(hash);
        let dup = self.find(fp).is_ok();
        if self.filled == self.window {
            let old = self.cfb.get(self.cur);
            self.decrement(old);
        } else {
            self.filled += 1;
        }
        self.cfb.set(self.cur, fp);
        self.increment(fp);
        self.cur = if self.cur + 1 == self.window {
            0
        } else {
            self.cur + 1
        };
        dup
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let home = self.home(self.fingerprint(hash));
        self.counts.prefetch(home);
        self.fps.prefetch(home);
    }

    fn memory_bits(&self) -> u64 {
        self.cfb.state_bits() + self.fps.state_bits() + self.counts.state_bits()
    }

    fn name(&self) -> &'static str {
        "swamp"
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("fingerprint_bits", self.f),
            crate::Param::new("table_slots", self.slots),
            crate::Param::new("count_bits", count_bits(self.window)),
            crate::Param::new("fpr_bound", false_positive_bound(self.window, self.f)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.distinct as f64 / self.slots as f64,
        }
    }
}

crate::structure::impl_structure!(Swamp {
    name: "swamp",
    params: SwampParams,
    cost: 3.0,
    memory_bits_for: Swamp::memory_bits_for,
});

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
            let p = SwampParams { window: w, fingerprint_bits: Some(f), fpr: None };
            let mut s = Swamp::new(1 << 24, &p, 0).unwrap();
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

    #[test]
    fn fpr_matches_theory_and_the_paper_bound() {
        // A window of W distinct keys, then t never-seen keys queried: the count of false
        // positives is binomial(t, 1 − (1 − 2^−f)^W); 5 sd. The paper's bound W·2^−f holds.
        for (w, f) in [(10_000u64, 16u32), (50_000, 20), (2_000, 12)] {
            let p = SwampParams {
                window: w,
                fingerprint_bits: Some(f),
                fpr: None,
            };
            let mut s = Swamp::new(memory_bits(w, f).unwrap(), &p, 0).unwrap();
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
        let p = SwampParams::window(1000);
        let bits = Swamp::memory_bits_for(100_000, &p).unwrap();
        let f = Swamp::new(100_000, &p, 0).unwrap().fingerprint_bits();
        assert_eq!(bits, memory_bits(1000, f).unwrap());
        assert!(bits <= 100_000 && memory_bits(1000, f + 1).unwrap() > 100_000);
        let s = Swamp::for_window_fpr(10_000, 0.01).unwrap();
        assert_eq!(s.fingerprint_bits(), 20);
        assert!(false_positive_bound(10_000, 20) <= 0.01);
        assert!(matches!(
            Swamp::new(1000, &p, 0),
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
