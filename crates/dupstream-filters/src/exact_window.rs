//! The exact windowed baseline: a FIFO of the last `W` key hashes and a hash table from each
//! hash in it to its newest position, charged the memory it allocates.
//!
//! It answers the windowed question exactly: an element is a DUPLICATE iff its hash occurs
//! among the `W` elements before it (the runner's `[metrics] window` truth; hashes are a
//! bijection of keys for a fixed seed, [`crate::hash::hash_key`]). Unlike [`crate::exact`],
//! which keeps every hash since the start and is left out of memory comparisons, this one is
//! a contender: its memory is fixed by `W` and counted exactly.
//!
//! **Structure.** A ring of `W` 64-bit hashes (the FIFO) and an open-addressing table of
//! `C` 32-bit slots, `C` the power of two at least `4W/3` (load at most 3/4: at most `W`
//! distinct hashes are in the window). A slot holds `1 +` the ring position of a hash's newest
//! occurrence (0 is empty); the hash itself is read from the ring, so the table stores no
//! key. Linear probing from the hash's top `log₂ C` bits; deletions shift the following run
//! back (no tombstones). A step looks the element up (duplicate iff found), then retires the
//! oldest hash (its slot goes only if that slot still points at the retired position, i.e.
//! no newer occurrence), then records the element at the retired position.
//!
//! **Memory.** `64·W + 32·C` bits ([`memory_bits`]): the ring and the table as allocated
//! (`u64` and `u32` words, no padding), which is what a practitioner's hash map plus FIFO
//! costs at its best; a general-purpose map would also store each key a second time.
//!
//! **Géraud-Stewart et al.'s exact-window construction.** Géraud-Stewart, Lombard-Platet and
//! Naccache, *Approaching Optimal Duplicate Detection in a Sliding Window* (arXiv 2005.04740,
//! 2020) observe that a perfect (zero-error) windowed filter can be used up to a largest window
//! `w_max` for a given memory. Reading: with `window` left out, this structure is that
//! construction for the budget: `W = w_max`, the largest window whose [`memory_bits`] fit
//! ([`max_window`]). It is then exact for any scoring window up to `w_max` and forgets
//! everything older (false negatives at gaps beyond `w_max`). The paper's own memory
//! accounting (its encoding of the window) was not available here; this one is the ring and
//! table above.
//!
//! Readings:
//! - Before `W` elements have arrived nothing is retired.
//! - The window is at most `2^32 − 2` (32-bit slots).
//! - Occupancy is the filled fraction of the table.

use crate::error::{Error, Result, ensure};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest window (32-bit slots hold `1 +` a ring position).
pub const MAX_WINDOW: u64 = (u32::MAX - 1) as u64;

/// Slots of the table for window `W`: the power of two at least `⌈4W/3⌉`.
pub fn table_slots(window: u64) -> u64 {
    window
        .saturating_mul(4)
        .div_ceil(3)
        .max(1)
        .next_power_of_two()
}

/// Memory of the structure for window `W`: `64·W + 32·`[`table_slots`]`(W)` bits.
pub fn memory_bits(window: u64) -> u64 {
    64 * window + 32 * table_slots(window)
}

/// The largest window whose [`memory_bits`] fit in `budget_bits` (0 if none does): the
/// Géraud-Stewart et al. `w_max` of this construction.
pub fn max_window(budget_bits: u64) -> u64 {
    // memory_bits is increasing in W: binary search.
    let (mut lo, mut hi) = (0u64, (budget_bits / 64).min(MAX_WINDOW));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if memory_bits(mid) <= budget_bits {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Parameters of an [`ExactWindow`]: the window `W`, or none for the largest window the budget
/// holds ([`max_window`]).
///
/// ```toml
/// window = 65536   # or leave it out: W = w_max of the budget
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ExactWindowParams {
    /// `W`, the window in elements.
    #[cfg_attr(feature = "serde", serde(default))]
    pub window: Option<u64>,
}

fn resolve(budget_bits: u64, p: &ExactWindowParams) -> Result<u64> {
    let w = match p.window {
        Some(w) => {
            ensure(
                (1..=MAX_WINDOW).contains(&w),
                "window",
                w,
                "must be in 1..=2^32 - 2",
            )?;
            w
        }
        None => max_window(budget_bits).max(1),
    };
    let bits = memory_bits(w);
    if bits > budget_bits {
        return Err(Error::BudgetTooSmall {
            structure: "exact_window",
            budget_bits,
            needed_bits: bits,
        });
    }
    crate::error::words_for_bits("exact_window", bits)?;
    Ok(w)
}

/// Exact sliding-window duplicate detection (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, exact_window::{ExactWindow, ExactWindowParams}};
/// let p = ExactWindowParams { window: Some(3) };
/// let mut f = ExactWindow::new(1 << 12, &p, 0).unwrap();
/// let verdicts: Vec<bool> = [1u64, 2, 1, 3, 4, 5, 1].iter().map(|&h| f.step(h)).collect();
/// // 1 recurs at gap 2 (reported), then at gap 4 > W (not reported).
/// assert_eq!(verdicts, [false, false, true, false, false, false, false]);
/// ```
#[derive(Debug, Clone)]
pub struct ExactWindow {
    ring: Box<[u64]>,
    table: Box<[u32]>,
    /// `64 − log₂ C`: a hash's home slot is its top bits.
    shift: u32,
    window: u64,
    /// Next ring position to write.
    cur: usize,
    /// Hashes in the ring (`W` once full).
    filled: usize,
    /// Occupied table slots.
    distinct: u64,
}

impl ExactWindow {
    /// An exact window within `budget_bits`; the structure draws nothing random (`seed` unused).
    pub fn new(budget_bits: u64, params: &ExactWindowParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let w = resolve(budget_bits, params)?;
        let c = table_slots(w);
        Ok(Self {
            ring: vec![0u64; w as usize].into_boxed_slice(),
            table: vec![0u32; c as usize].into_boxed_slice(),
            shift: 64 - c.trailing_zeros(),
            window: w,
            cur: 0,
            filled: 0,
            distinct: 0,
        })
    }

    /// The state size an exact window built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &ExactWindowParams) -> Result<u64> {
        Ok(memory_bits(resolve(budget_bits, params)?))
    }

    /// `W`.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// Distinct hashes in the window.
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    #[inline(always)]
    fn home(&self, h: u64) -> usize {
        if self.shift == 64 {
            0
        } else {
            (h >> self.shift) as usize
        }
    }

    #[inline(always)]
    fn next(&self, i: usize) -> usize {
        (i + 1) & (self.table.len() - 1)
    }

    /// The table slot holding `h`, or the empty slot where it would go.
    #[inline(always)]
    fn find(&self, h: u64) -> std::result::Result<usize, usize> {
        let mut i = self.home(h);
        loop {
            let s = self.table[i];
            if s == 0 {
                return Err(i);
            }
            if self.ring[(s - 1) as usize] == h {
                return Ok(i);
            }
            i = self.next(i);
        }
    }

    /// Empties slot `hole` and shifts back the entries of its run that may move.
    fn remove_at(&mut self, mut hole: usize) {
        let mask = self.table.len() - 1;
        let mut j = hole;
        loop {
            j = self.next(j);
            let s = self.table[j];
            if s == 0 {
                break;
            }
            let home = self.home(self.ring[(s - 1) as usize]);
            // The entry at j may fill the hole iff its home is not cyclically in (hole, j].
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.table[hole] = s;
                hole = j;
            }
        }
        self.table[hole] = 0;
        self.distinct -= 1;
    }

    /// Whether `h` is among the last `W` hashes (no update).
    pub fn contains(&self, h: u64) -> bool {
        self.find(h).is_ok()
    }
}

impl DuplicateFilter for ExactWindow {
    fn step(&mut self, hash: u64) -> bool {
        let found = self.find(hash);
        let pos = self.cur;
        if self.filled == self.ring.len() {
            // Retire the oldest hash unless a newer occurrence holds its slot.
            let old = self.ring[pos];
            if let Ok(i) = self.find(old)
                && self.table[i] as usize == pos + 1
            {
                self.remove_at(i);
            }
        } else {
            self.filled += 1;
        }
        self.ring[pos] = hash;
        // No slot points at `pos` any more (the retired hash's went above), so the lookup finds
        // `hash`'s slot (at an older position) or the empty one to take.
        let slot = match self.find(hash) {
            Ok(i) => i,
            Err(i) => {
                self.distinct += 1;
                i
            }
        };
        self.table[slot] = (pos + 1) as u32;
        self.cur = if pos + 1 == self.ring.len() {
            0
        } else {
            pos + 1
        };
        found.is_ok()
    }

    fn memory_bits(&self) -> u64 {
        memory_bits(self.window)
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("table_slots", self.table.len()),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.distinct as f64 / self.table.len() as f64,
        }
    }
}

crate::structure::impl_structure!(ExactWindow {
    name: "exact_window",
    params: ExactWindowParams,
    cost: 3.0,
    memory_bits_for: ExactWindow::memory_bits_for,
}
    crate::structure::window_scales!(ExactWindowParams);

    /// 3, as SWAMP: the table at the arriving hash's home, the table at the retired hash's
    /// home, and the ring cell.
    fn cells_per_element(_params: &ExactWindowParams, _budget_bits: u64) -> f64 {
        3.0
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Against the brute-force windowed truth: element i is a duplicate iff its key occurs
        /// in keys[i − W .. i]. Small universes force repeats, wrap-around and long runs.
        #[test]
        fn equals_the_brute_force_window(keys in prop::collection::vec(0u64..300, 1..3000), w in 1u64..400) {
            let p = ExactWindowParams { window: Some(w) };
            let mut f = ExactWindow::new(memory_bits(w), &p, 0).unwrap();
            let hashes: Vec<u64> = keys.iter().map(|&k| hash_key(k, 5)).collect();
            for (i, &h) in hashes.iter().enumerate() {
                let lo = i.saturating_sub(w as usize);
                let want = hashes[lo..i].contains(&h);
                prop_assert_eq!(f.step(h), want, "position {}", i);
                let hi = i + 1;
                let lo = hi.saturating_sub(w as usize);
                let mut d: Vec<u64> = hashes[lo..hi].to_vec();
                d.sort_unstable();
                d.dedup();
                prop_assert_eq!(f.distinct(), d.len() as u64);
            }
        }
    }

    #[test]
    fn sizing_and_w_max() {
        assert_eq!(table_slots(1), 2);
        assert_eq!(table_slots(3), 4);
        assert_eq!(table_slots(96), 128);
        assert_eq!(table_slots(97), 256);
        assert_eq!(memory_bits(96), 64 * 96 + 32 * 128);
        for budget in [100u64, 4096, 100_000, 3_000_017, 1 << 24] {
            let w = max_window(budget);
            if w > 0 {
                assert!(memory_bits(w) <= budget);
            }
            assert!(memory_bits(w + 1) > budget, "budget {budget}: w_max {w}");
        }
        let f = ExactWindow::new(1 << 20, &ExactWindowParams::default(), 0).unwrap();
        assert_eq!(f.window(), max_window(1 << 20));
        assert!(matches!(
            ExactWindow::new(1000, &ExactWindowParams { window: Some(100) }, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        assert!(matches!(
            ExactWindow::new(1 << 20, &ExactWindowParams { window: Some(0) }, 0),
            Err(Error::InvalidParameter { .. })
        ));
    }
}
