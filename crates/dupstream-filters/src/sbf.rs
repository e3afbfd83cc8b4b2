//! The Stable Bloom filter: Deng & Rafiei, *Approximately Detecting Duplicates for Streaming Data
//! using Stable Bloom Filters*, SIGMOD 2006, Section 3.2 (Definition 1, Algorithm 1), Section 4.1
//! (parameter setting, Eq. 17) and Section 5.2 (implementation).
//!
//! An array of `m` cells of `d = ⌈log₂(Max + 1)⌉` bits, `m = ⌊budget / d⌋`, all zero at first.
//! For each element (Algorithm 1):
//! 1. probe its `K` cells: the element is a DUPLICATE iff none of them is zero;
//! 2. decrement `P` cells by one (cells already at zero stay zero);
//! 3. set its `K` cells to `Max`.
//!
//! Once stable, the fraction of zero cells is [`stable_zero_fraction`] (Theorem 3) and the false
//! positive rate is at most [`fp_bound`] (Eq. 8), reached on a uniform stream; `P` can be derived
//! from a target false positive rate with [`p_for_fps`] (Eq. 17). The formulas live in
//! [`crate::theory`] and are re-exported here.
//!
//! # Readings of the paper
//! - **The decrement never changes the answer.** Algorithm 1's decrement loop reads
//!   `if SBF[j] ≥ 1 then DuplicateFlag = "Yes"; SBF[j] = SBF[j] − 1`. Nothing in the analysis
//!   (Theorems 1–3, Eq. 8, 14) lets a random cell change the verdict, and the prose says the
//!   detection is "probing whether all the cells the element is hashed to are non-zero". We
//!   follow the analysis: the verdict depends on the `K` probed cells only, and the decrement is
//!   `if SBF[j] ≥ 1 then SBF[j] −= 1` (papers README, inconsistency 1).
//! - **Which cells are decremented.** Algorithm 1 selects "P different cells uniformly at
//!   random" ([`Decrement::Independent`], the default: `P` distinct cells, drawn by rejection).
//!   Section 5.2 describes what the authors ran: "generate a random number, decrement the
//!   corresponding cell and (P−1) cells adjacent to it" ([`Decrement::Adjacent`]: cells
//!   `j, j+1, …, j+P−1`, wrapping from `m − 1` to 0 so that every cell keeps the decrement
//!   probability `P/m` the analysis assumes). Both are offered (inconsistency 2).
//! - **`P` from a target rate.** With `fps` instead of `p`, `P` is Eq. 17 rounded down by
//!   default, as the paper does (it runs `P = 4` for `FPS = 10%`, `Max = 1`, `K = 2`, where
//!   Eq. 17 gives 4.33; also `P = 10` for 10.9 and `P = 141` for 141.3), so the actual bound
//!   [`fp_bound`] is slightly above the target (11.1% for that setting). `p_rounding = "ceil"`
//!   keeps the bound at or below the target instead. `P` is at least 1.
//! - **`Max` need not be `2^d − 1`.** Definition 1 ties `Max = 2^d − 1`; any `Max ≥ 1` is
//!   accepted and `d` is the smallest width holding it (Section 4.1 explains why other values
//!   waste bits).
//! - **Decrement range (a hypothesis, off by default).** `decrement_range_bits = b` draws the
//!   decrement positions from `[0, min(m, 2^b))` instead of `[0, m)`: what an implementation
//!   whose generator yields `b` random bits (C's `rand()`: 31) would do. With `m ≤ 2^b` it
//!   changes nothing (same draws, same verdicts); above, the cells at `2^b` and beyond are
//!   never decremented. Bera et al.'s 512 MB SBF cells (`m = 2^32`) fit `b = 31`
//!   (`experiments/bera-journal/SETUP.md`); no paper states it. A scaled run (`--scale f`)
//!   uses `b − log2 f` bits ([`Structure::scaled_params`](crate::Structure::scaled_params)),
//!   keeping the undecremented fraction of the cells.
//! - The `K` indices come from double hashing of the pre-hashed key, standing in for the
//!   paper's independent hash functions; they are not forced distinct (nor are the paper's).
//! - **Lookup rule (the QHT authors' code, off by default).** [`Lookup::All`], the default, is
//!   Algorithm 1's: DUPLICATE iff *all* `K` cells are non-zero. [`Lookup::Any`] answers
//!   DUPLICATE when *any* of them is non-zero, as the benchmark code of Géraud et al. does
//!   (github.com/mariuslp/duplicate_sliding_benchmark, commit 4d600e2, the code its README says
//!   ran the QHT paper's benchmark: `src/filter_stablebloom.cpp` lines 33–40, an early
//!   `return true` inside the loop over the cells). With about 86 % zero cells (the QHT paper's
//!   setting) that turns a 2 % false positive rate into about 26 %, the paper's Table 4 value;
//!   the rest of that code is Algorithm 1 with `P` = ⌊Eq. 17⌋ and adjacent decrements.
//!
//! # Randomness and prefetching
//! The decrement positions come from the structure's seeded generator. They are drawn ahead into
//! a small ring of `R` groups (`R ≤ 32`, one group per future element), and each element
//! consumes the oldest group and draws a replacement. The draws therefore happen in one fixed
//! order whatever the calling pattern, so [`DuplicateFilter::step`] and the overridden
//! [`DuplicateFilter::step_batch`] give identical verdicts, while the decrement cells of an
//! element `min(AHEAD, R − 1)` elements ahead can be prefetched (not in a filter of at most
//! [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS) bits): by `step_batch`, or, for more
//! than 4 independent decrements in a filter above 1 MiB, one per decrement inside the
//! decrement loop (in `step` too). The ring, like
//! the generator, is random-number state, not filter state, and is not charged to the budget.

use crate::bits::PackedArray;
use crate::error::{Error, Result, ensure};
use crate::hash::{DoubleHash, reduce};
use crate::rng::{FilterRng, Rng, filter_rng};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// How many elements ahead `step_batch` prefetches: with `K + P` cells and `P` draws per
/// element, 16 already cover a miss, and more is no faster (`benches/roofline.rs`; the
/// crate's [`PREFETCH_DISTANCE`](crate::PREFETCH_DISTANCE) is for lighter structures).
const AHEAD: usize = 16;

/// Decrement groups of more cells than this, in a filter larger than [`SPREAD_FROM_BITS`],
/// issue one prefetch per cell inside the decrement loop rather than a burst per element: a
/// large burst is mostly dropped, while 4 or fewer gain from it (`just roofline draws`).
const SPREAD_ABOVE: usize = 4;

/// Filters of at most this many bits (1 MiB, within L2) keep the burst whatever `P`:
/// spreading pays only out of cache (`just roofline draws`).
const SPREAD_FROM_BITS: u64 = 1 << 23;

pub use crate::theory::{fp_bound, p_for_fps, stable_zero_fraction};

/// `P`, the cells decremented per element, as a filter of `m` cells with `params` uses it:
/// `p` as given, or Eq. 17 from `fps` rounded by `p_rounding` (at least 1); `None` when
/// neither is given. The one place `P` follows from `fps`: the filter, its cost and the
/// runner's estimate all read it here.
pub fn decrement_cells(params: &SbfParams, m: u64) -> Option<f64> {
    match (params.p, params.fps) {
        (Some(p), _) => Some(p as f64),
        (None, Some(fps)) => {
            let real = p_for_fps(m.max(2), params.k, params.max, fps);
            Some(params.p_rounding.apply(real).max(1.0))
        }
        (None, None) => None,
    }
}

/// Largest accepted `K`.
pub const MAX_K: u32 = 256;
/// Largest accepted `P` (each element costs `O(P)` work).
pub const MAX_P: u64 = 1 << 16;
/// Largest accepted `Max` (cells of at most [`PackedArray::MAX_WIDTH`] bits).
pub const MAX_MAX: u64 = (1 << PackedArray::MAX_WIDTH) - 1;

/// Which `P` cells are decremented in each iteration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Decrement {
    /// `P` distinct cells drawn uniformly at random (Algorithm 1).
    #[default]
    Independent,
    /// One random cell and the `P − 1` cells after it, wrapping around (Section 5.2).
    Adjacent,
}

impl Decrement {
    /// The name used in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Independent => "independent",
            Self::Adjacent => "adjacent",
        }
    }
}

/// Which probed cells make an element a DUPLICATE.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Lookup {
    /// All `K` cells non-zero (Algorithm 1).
    #[default]
    All,
    /// Any of the `K` cells non-zero: the QHT paper's benchmark code
    /// (`src/filter_stablebloom.cpp` lines 33–40 at commit 4d600e2 of
    /// github.com/mariuslp/duplicate_sliding_benchmark; see the module documentation).
    Any,
}

impl Lookup {
    /// The name used in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Any => "any",
        }
    }
}

/// How `P` is rounded when it is derived from `fps` by Eq. 17.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PRounding {
    /// Round down, as the paper does (the bound of Eq. 8 then slightly exceeds `fps`).
    #[default]
    Floor,
    /// Round up (the bound of Eq. 8 is then at most `fps`).
    Ceil,
}

impl PRounding {
    /// `P` from Eq. 17's real value.
    pub fn apply(self, real: f64) -> f64 {
        match self {
            PRounding::Floor => real.floor(),
            PRounding::Ceil => real.ceil(),
        }
    }
}

#[cfg(feature = "serde")] // only the serde default uses it
fn default_max() -> u64 {
    1
}

#[cfg(feature = "serde")] // only the serde default uses it
fn default_k() -> u32 {
    2
}

/// Parameters of a [`StableBloomFilter`]. Give exactly one of `p` and `fps`.
///
/// The defaults `max = 1`, `k = 2` are the paper's setting for `FPS = 10%` (Section 5.2, used in
/// Fig. 3, 4 and 6), which goes with `p = 4`:
///
/// ```toml
/// p = 4                     # or: fps = 0.1  (P from Eq. 17)
/// max = 1                   # default
/// k = 2                     # default
/// decrement = "adjacent"    # default "independent"
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SbfParams {
    /// `Max`, the value cells are set to (default 1).
    #[cfg_attr(feature = "serde", serde(default = "default_max"))]
    pub max: u64,
    /// `K`, the number of cells probed and set per element (default 2).
    #[cfg_attr(feature = "serde", serde(default = "default_k"))]
    pub k: u32,
    /// `P`, the number of cells decremented per element.
    #[cfg_attr(feature = "serde", serde(default))]
    pub p: Option<u64>,
    /// `FPS`, the acceptable false positive rate; `P` then follows from Eq. 17.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fps: Option<f64>,
    /// How the `P` cells are chosen (default independent).
    #[cfg_attr(feature = "serde", serde(default))]
    pub decrement: Decrement,
    /// How Eq. 17's real `P` is rounded when `fps` is given (default floor, as the paper).
    #[cfg_attr(feature = "serde", serde(default))]
    pub p_rounding: PRounding,
    /// Decrement positions drawn from `[0, min(m, 2^bits))` instead of `[0, m)` (default: the
    /// full range). A hypothesis about an implementation detail, not a reading of the paper:
    /// a generator of `bits` output bits, such as C's `rand()` with 31, never reaches the cells
    /// above `2^bits` (Bera et al. experiments, `SBF-rand31`; see the module documentation).
    #[cfg_attr(feature = "serde", serde(default))]
    pub decrement_range_bits: Option<u32>,
    /// Which probed cells make a DUPLICATE (default all, as Algorithm 1; `any` models the QHT
    /// paper's benchmark code, see [`Lookup::Any`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub lookup: Lookup,
}

impl SbfParams {
    /// `Max`, `K` and `P` given directly, independent decrement.
    pub fn new(max: u64, k: u32, p: u64) -> Self {
        Self {
            max,
            k,
            p: Some(p),
            fps: None,
            decrement: Decrement::Independent,
            p_rounding: PRounding::Floor,
            decrement_range_bits: None,
            lookup: Lookup::All,
        }
    }

    /// `Max`, `K` and the acceptable false positive rate (`P` by Eq. 17).
    pub fn with_fps(max: u64, k: u32, fps: f64) -> Self {
        Self {
            max,
            k,
            p: None,
            fps: Some(fps),
            decrement: Decrement::Independent,
            p_rounding: PRounding::Floor,
            decrement_range_bits: None,
            lookup: Lookup::All,
        }
    }

    /// The same parameters with another decrement mode.
    pub fn decrement(self, decrement: Decrement) -> Self {
        Self { decrement, ..self }
    }
}

/// `d`, the bits per cell holding `Max`: `⌈log₂(Max + 1)⌉` (Definition 1).
pub fn cell_bits(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// Parameters after validation.
#[derive(Debug, Clone, Copy)]
struct Resolved {
    max: u64,
    k: u32,
    p: u64,
    d: u32,
    m: u64,
}

fn resolve(budget_bits: u64, params: &SbfParams) -> Result<Resolved> {
    let SbfParams { max, k, p, fps, .. } = *params;
    ensure(
        (1..=MAX_MAX).contains(&max),
        "max",
        max,
        "must be in 1..=2^57-1",
    )?;
    ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=256")?;
    let d = cell_bits(max);
    let m = budget_bits / u64::from(d);
    // At least K + 1 cells (Eq. 17 needs 1/K - 1/m > 0) and room for P distinct cells.
    let min_cells = |p: u64| (u64::from(k) + 1).max(p);
    let too_small = |needed: u64| Error::BudgetTooSmall {
        structure: "sbf",
        budget_bits,
        needed_bits: needed.saturating_mul(u64::from(d)),
    };
    let p = match (p, fps) {
        (Some(p), None) => {
            ensure((1..=MAX_P).contains(&p), "p", p, "must be in 1..=65536")?;
            p
        }
        (None, Some(fps)) => {
            ensure(
                fps > 0.0 && fps < 1.0,
                "fps",
                fps,
                "must be strictly between 0 and 1",
            )?;
            if m <= u64::from(k) {
                return Err(too_small(min_cells(1)));
            }
            let real = p_for_fps(m, k, max, fps);
            let rounded = params.p_rounding.apply(real);
            ensure(
                rounded.is_finite() && rounded <= MAX_P as f64,
                "fps",
                fps,
                &format!("Eq. 17 gives P = {real:.1}, above the largest supported P = 65536"),
            )?;
            (rounded as u64).max(1)
        }
        (Some(p), Some(_)) => {
            return Err(Error::InvalidParameter {
                name: "p",
                value: p.to_string(),
                reason: "give either `p` or `fps` (which derives P by Eq. 17), not both".into(),
            });
        }
        (None, None) => {
            return Err(Error::InvalidParameter {
                name: "p",
                value: "(none)".into(),
                reason: "give either `p` or `fps` (which derives P by Eq. 17)".into(),
            });
        }
    };
    if m < min_cells(p) {
        return Err(too_small(min_cells(p)));
    }
    let bits = m.checked_mul(u64::from(d)).ok_or(Error::CapacityTooLarge {
        structure: "sbf",
        bits: u64::MAX,
    })?;
    crate::error::words_for_bits("sbf", bits)?;
    if let Some(b) = params.decrement_range_bits {
        // At least P positions in range, so that P distinct cells can be drawn.
        ensure(
            (1..=63).contains(&b) && (1u64 << b) >= p,
            "decrement_range_bits",
            b,
            "must be in 1..=63 with 2^bits >= P",
        )?;
    }
    Ok(Resolved { max, k, p, d, m })
}

/// Whether `x` is among the cells drawn so far: the rare path of [`StableBloomFilter`]'s draw,
/// kept out of line so that the common path keeps the generator in registers.
#[cold]
#[inline(never)]
fn repeats(drawn: &[u64], x: u64) -> bool {
    drawn.contains(&x)
}

/// Empties the bitmap of a group's drawn cells (a power of two of words) and returns the shift
/// that masks a cell's index onto it, for [`draw_distinct`].
#[inline(always)]
fn clear_seen(seen: &mut [u64]) -> u32 {
    seen.fill(0);
    64 - (seen.len() * 64).trailing_zeros()
}

/// One decrement position in `[0, m)` not among `drawn` (the group's earlier cells): drawn by
/// rejection, a repeat being redrawn. `seen` is a bitmap of the drawn cells (indexed by the
/// cell's low `64 − shift` bits); only when it says the new cell may be a repeat is `drawn`
/// searched, and not even then when every cell has its own bit (`m ≤ 2^(64 − shift)`): the
/// bitmap is then exact. Small filters with a large `P` (the QHT paper's at 10^4 bits: 38 of
/// 78 cells at `--scale 64`) redraw often, and each search was a mispredicted branch.
#[inline(always)]
fn draw_distinct(rng: &mut FilterRng, m: u64, seen: &mut [u64], shift: u32, drawn: &[u64]) -> u64 {
    let exact = m - 1 <= u64::MAX >> shift; // every x < m is its own mask value
    loop {
        let x = reduce(rng.next_u64(), m);
        let b = (x & (u64::MAX >> shift)) as usize;
        let (word, bit) = (b >> 6, 1u64 << (b & 63));
        if seen[word] & bit == 0 || (!exact && !repeats(drawn, x)) {
            seen[word] |= bit;
            return x;
        }
    }
}

/// Groups of at most this many cells check a draw against the group's earlier cells by
/// comparing it with each (at most 7 comparisons, and no bitmap to clear per group); larger
/// groups use the bitmap of [`draw_distinct`].
const LINEAR_CHECK_MAX: usize = 8;

/// One decrement position in `[0, m)` not among `drawn`, by rejection as [`draw_distinct`] (the
/// same draws), checked by comparing it with each of `drawn`.
#[inline(always)]
fn draw_distinct_linear(rng: &mut FilterRng, m: u64, drawn: &[u64]) -> u64 {
    loop {
        let x = reduce(rng.next_u64(), m);
        if !drawn.iter().fold(false, |hit, &y| hit | (y == x)) {
            return x;
        }
    }
}

/// Groups of pre-drawn decrement positions kept ahead (a power of two).
fn ring_groups(group_len: usize) -> usize {
    let mut r = 32;
    while r > 1 && r * group_len > 8192 {
        r /= 2;
    }
    r
}

/// A Stable Bloom filter (Deng & Rafiei, Algorithm 1).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, hash::hash_key, sbf::{StableBloomFilter, SbfParams}};
/// let mut sbf = StableBloomFilter::new(1 << 16, &SbfParams::with_fps(1, 2, 0.1), 7).unwrap();
/// assert_eq!(sbf.p(), 4); // Eq. 17 gives 4.33, rounded down as in the paper
/// assert!(!sbf.step(hash_key(1, 0)));
/// assert!(sbf.step(hash_key(1, 0))); // a duplicate right after its predecessor is always caught
/// ```
#[derive(Debug, Clone)]
pub struct StableBloomFilter {
    cells: PackedArray,
    m: u64,
    k: u32,
    max: u64,
    p: u64,
    d: u32,
    fps: Option<f64>,
    decrement: Decrement,
    /// Decrement positions are drawn from `[0, draw_range)`: `m`, or `min(m, 2^bits)` with
    /// `decrement_range_bits`.
    draw_range: u64,
    decrement_range_bits: Option<u32>,
    lookup: Lookup,
    zeros: u64,
    rng: FilterRng,
    /// `R` groups of pre-drawn positions, `group_len` each (`P`, or 1 start cell if adjacent).
    ring: Vec<u64>,
    group_len: usize,
    ring_mask: usize,
    /// Whether those prefetches are spread over the decrement loop ([`SPREAD_ABOVE`]).
    spread: bool,
    head: usize,
    /// Bitmap of the cells drawn so far in a group (at least 32 bits per cell, a power of
    /// two), which spares most draws the search for a repeat; unused in groups of at most
    /// [`LINEAR_CHECK_MAX`] cells.
    seen: Vec<u64>,
}

impl StableBloomFilter {
    /// A filter using at most `budget_bits` bits; `seed` drives the random decrements.
    pub fn new(budget_bits: u64, params: &SbfParams, seed: u64) -> Result<Self> {
        let Resolved { max, k, p, d, m } = resolve(budget_bits, params)?;
        let group_len = match params.decrement {
            Decrement::Independent => p as usize,
            Decrement::Adjacent => 1,
        };
        let groups = ring_groups(group_len);
        let mut f = Self {
            cells: PackedArray::new("sbf", m, d)?,
            m,
            k,
            max,
            p,
            d,
            fps: params.fps,
            decrement: params.decrement,
            draw_range: params.decrement_range_bits.map_or(m, |b| m.min(1u64 << b)),
            decrement_range_bits: params.decrement_range_bits,
            lookup: params.lookup,
            zeros: m,
            rng: filter_rng(seed, 0),
            ring: vec![0; groups * group_len],
            group_len,
            ring_mask: groups - 1,
            spread: params.decrement == Decrement::Independent
                && group_len > SPREAD_ABOVE
                && m * u64::from(d) > SPREAD_FROM_BITS,
            head: 0,
            seen: vec![0; (32 * group_len).next_power_of_two().max(64) / 64],
        };
        for g in 0..groups {
            f.draw_group(g);
        }
        Ok(f)
    }

    /// The state size a filter built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &SbfParams) -> Result<u64> {
        resolve(budget_bits, params).map(|r| r.m * u64::from(r.d))
    }

    /// `m`, the number of cells.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// `K`.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// `P`, the number of cells decremented per element (given, or derived by Eq. 17).
    pub fn p(&self) -> u64 {
        self.p
    }

    /// `Max`.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// `d`, bits per cell.
    pub fn d(&self) -> u32 {
        self.d
    }

    /// Eq. 8 for this filter's `K`, `Max`, `P` and `m`: its stable false positive rate on a
    /// uniform stream, and an upper bound at all times.
    pub fn fps_bound(&self) -> f64 {
        fp_bound(self.k, self.max, self.p as f64, self.m)
    }

    /// Theorem 3 for this filter: its stable fraction of zero cells on a uniform stream.
    pub fn stable_zero_fraction(&self) -> f64 {
        stable_zero_fraction(self.k, self.max, self.p as f64, self.m)
    }

    /// The probe of Algorithm 1 without the update: true iff none of the `K` cells is zero
    /// (with [`Lookup::Any`]: iff one of them is not).
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let nonzero = |i| self.cells.get(dh.index(i, self.m)) != 0;
        match self.lookup {
            Lookup::All => (0..self.k).all(nonzero),
            Lookup::Any => (0..self.k).any(nonzero),
        }
    }

    /// Fills ring group `g` with fresh positions: `P` distinct cells, each drawn by
    /// rejection (a repeat is redrawn), in the generator's order ([`Self::refill`]).
    fn draw_group(&mut self, g: usize) {
        self.refill::<0, false>(g);
    }

    /// Decrements one cell (if non-zero), keeping the zero count. Branch-free: whether a random
    /// cell is zero is unpredictable, and a mispredicted branch costs more than the store.
    #[inline(always)]
    fn decrement_cell(&mut self, j: u64) {
        self.zeros += u64::from(self.cells.decrement_saturating(j) == 1);
    }

    /// Step 2 of Algorithm 1 with the head group of the ring, and redraws that group.
    #[inline(always)]
    fn decrement(&mut self) {
        let g = self.head;
        match self.decrement {
            // The cell width as a constant where one divides 64 (no cell straddles words).
            Decrement::Independent => match self.d {
                1 => self.refill::<1, true>(g),
                2 => self.refill::<2, true>(g),
                4 => self.refill::<4, true>(g),
                _ => self.refill::<0, true>(g),
            },
            Decrement::Adjacent => {
                let mut j = self.ring[g * self.group_len];
                for _ in 0..self.p {
                    self.decrement_cell(j);
                    j += 1;
                    if j == self.m {
                        j = 0;
                    }
                }
                self.draw_group(g);
            }
        }
        self.head = (g + 1) & self.ring_mask;
    }

    /// Redraws ring group `g`: `P` distinct cells, each drawn by rejection (a repeat
    /// is redrawn), in the generator's order. With `DECREMENT`, step 2 with independent draws
    /// on the way: slot `s` is decremented, then refilled with the group's next draw, in one
    /// loop; the draws are the same either way (the repeat check sees slots `..s`, already
    /// redrawn), so the verdicts are too, and fused, the generator's dependency chain overlaps
    /// the cell updates. `W` is the cell width when it divides 64, 0 for any width.
    ///
    /// In a group of at most [`LINEAR_CHECK_MAX`] cells a repeat is found by comparing the draw
    /// with each cell drawn so far ([`draw_distinct_linear`]). In a larger one, by a linear
    /// search of those cells, which runs only when a bitmap of them (about 32 bits per cell,
    /// indexed by the cell's low bits) says the new one may be among them: rarely, so a group
    /// costs `O(P)` whatever `P`; and not at all when the bitmap has a bit for every cell
    /// ([`draw_distinct`]). Both draw the same cells.
    #[inline(always)]
    fn refill<const W: u32, const DECREMENT: bool>(&mut self, g: usize) {
        let m = self.draw_range;
        // A local copy of the generator: its state stays in registers while the group (which
        // the compiler cannot tell apart from `self`) is written.
        let mut rng = self.rng.clone();
        let len = self.group_len;
        // The group whose cells are decremented `ahead` elements later: if `spread`, one of
        // them is prefetched per slot here, spread over the group's work (otherwise
        // [`Self::step_batch`] prefetches them at once).
        let spread = self.spread;
        let base = g * len;
        let ahead = (g + self.ahead()) & self.ring_mask;
        let Self {
            ring,
            cells,
            zeros,
            seen,
            ..
        } = self;
        let (group, next): (&mut [u64], &[u64]) = match (ahead * len).cmp(&base) {
            std::cmp::Ordering::Greater => {
                let (lo, hi) = ring.split_at_mut(ahead * len);
                (&mut lo[base..base + len], &hi[..len])
            }
            std::cmp::Ordering::Less => {
                let (lo, hi) = ring.split_at_mut(base);
                (&mut hi[..len], &lo[ahead * len..ahead * len + len])
            }
            // A ring of one group (`P` > 4096): nothing ahead to prefetch.
            std::cmp::Ordering::Equal => (&mut ring[base..base + len], &[]),
        };
        let linear = len <= LINEAR_CHECK_MAX;
        let shift = if linear { 0 } else { clear_seen(seen) };
        let mut hit_zero = 0;
        for s in 0..group.len() {
            if DECREMENT {
                if spread && !next.is_empty() {
                    cells.prefetch(next[s]);
                }
                let old = if W == 0 {
                    cells.decrement_saturating(group[s])
                } else {
                    cells.decrement_saturating_w::<W>(group[s])
                };
                hit_zero += u64::from(old == 1);
            }
            group[s] = if linear {
                draw_distinct_linear(&mut rng, m, &group[..s])
            } else {
                draw_distinct(&mut rng, m, seen, shift, &group[..s])
            };
        }
        *zeros += hit_zero;
        self.rng = rng;
    }

    /// How many elements ahead the decrement cells are prefetched: `min(AHEAD, R − 1)`.
    #[inline(always)]
    fn ahead(&self) -> usize {
        AHEAD.min(self.ring_mask)
    }

    /// Prefetches the decrement cells of the element `ahead` positions after the next one.
    #[inline(always)]
    fn prefetch_group(&self, ahead: usize) {
        let g = (self.head + ahead) & self.ring_mask;
        let group = &self.ring[g * self.group_len..(g + 1) * self.group_len];
        match self.decrement {
            Decrement::Independent => group.iter().for_each(|&j| self.cells.prefetch(j)),
            Decrement::Adjacent => {
                let j = group[0];
                self.cells.prefetch(j);
                // The run spans (P·d) bits; touch its last cell too (wrapping).
                let last = j + self.p - 1;
                self.cells
                    .prefetch(if last >= self.m { last - self.m } else { last });
            }
        }
    }

    /// The running zero count against a recount of the cells (O(m); for tests).
    #[cfg(test)]
    fn zeros_consistent(&self) -> bool {
        self.zeros == self.cells.count_zeros()
    }
}

impl StableBloomFilter {
    /// [`DuplicateFilter::step`] with the cell width `W` a constant where it divides 64 (0: any
    /// width).
    #[inline(always)]
    fn step_w<const W: u32>(&mut self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let m = self.m;
        // 1. Detect: duplicate iff none of the K cells is zero (or, `Lookup::Any`, iff one
        // is not). The rule is fixed per filter, so its branch is predicted.
        let probe = |i: u32| {
            let j = dh.index(i, m);
            let v = if W == 0 {
                self.cells.get(j)
            } else {
                self.cells.get_w::<W>(j)
            };
            v != 0
        };
        let dup = match self.lookup {
            Lookup::All => {
                let mut all = true;
                for i in 0..self.k {
                    all &= probe(i);
                }
                all
            }
            Lookup::Any => {
                let mut any = false;
                for i in 0..self.k {
                    any |= probe(i);
                }
                any
            }
        };
        // 2. Decrement P cells (never changes the verdict; see the module doc).
        self.decrement();
        // 3. Set the K cells to Max.
        for i in 0..self.k {
            let j = dh.index(i, m);
            let old = if W == 0 {
                self.cells.replace(j, self.max)
            } else {
                self.cells.replace_w::<W>(j, self.max)
            };
            self.zeros -= u64::from(old == 0);
        }
        dup
    }
}

impl DuplicateFilter for StableBloomFilter {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        match self.d {
            1 => self.step_w::<1>(hash),
            2 => self.step_w::<2>(hash),
            4 => self.step_w::<4>(hash),
            _ => self.step_w::<0>(hash),
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let dh = DoubleHash::new(hash);
        for i in 0..self.k {
            self.cells.prefetch(dh.index(i, self.m));
        }
    }

    /// As the default, and also prefetches the pre-drawn decrement cells of the element
    /// `min(AHEAD, R − 1)` ahead: here, or, for more than 4 independent decrements in a filter
    /// above 1 MiB, one per decrement, spread over the decrement loop (where [`Self::step`]
    /// issues them too; the groups ahead of a batch were prefetched by the elements before it).
    /// Verdicts are identical to [`Self::step`]. A filter of at most
    /// [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS) bits of state prefetches nothing:
    /// there the prefetches cost more than they save.
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        if self.m * u64::from(self.d) <= crate::PREFETCH_ABOVE_BITS {
            return crate::plain_batch(self, hashes, out);
        }
        assert!(out.len() >= hashes.len(), "output buffer too short");
        let group_ahead = self.ahead();
        let per_element = !self.spread;
        for (i, &h) in hashes.iter().take(AHEAD).enumerate() {
            self.prefetch(h);
            if per_element && i < group_ahead {
                self.prefetch_group(i);
            }
        }
        for (i, &h) in hashes.iter().enumerate() {
            if let Some(&ahead) = hashes.get(i + AHEAD) {
                self.prefetch(ahead);
            }
            if per_element && group_ahead > 0 && i + group_ahead < hashes.len() {
                self.prefetch_group(group_ahead);
            }
            out[i] = self.step(h);
        }
    }

    fn memory_bits(&self) -> u64 {
        self.cells.state_bits()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let mut v = vec![
            crate::Param::new("max", self.max),
            crate::Param::new("k", self.k),
            crate::Param::new("p", self.p),
            crate::Param::new("fps", self.fps),
            crate::Param::new("decrement", self.decrement.as_str()),
            crate::Param::new("d", self.d),
            crate::Param::new("m", self.m),
            crate::Param::new("fps_bound", self.fps_bound()),
            crate::Param::new("stable_zero_fraction", self.stable_zero_fraction()),
        ];
        if let Some(b) = self.decrement_range_bits {
            v.push(crate::Param::new("decrement_range_bits", b));
        }
        // Recorded only when not the default, so that default filters' parameters (and the
        // files that pin them) are unchanged.
        if self.lookup != Lookup::All {
            v.push(crate::Param::new("lookup", self.lookup.as_str()));
        }
        v
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::ZeroFraction,
            value: self.zeros as f64 / self.m as f64,
        }
    }
}

crate::structure::impl_structure!(StableBloomFilter {
    name: "sbf",
    params: SbfParams,
    cost: 3.0,
    memory_bits_for: StableBloomFilter::memory_bits_for,
}

    /// An SBF touches K probe cells and P decrement cells (P from Eq. 17 when given as `fps`),
    /// half a Bloom step per cell.
    fn cost_at(params: &SbfParams, budget_bits: u64) -> f64 {
        let m = budget_bits / u64::from(cell_bits(params.max.max(1))).max(1);
        let cells = decrement_cells(params, m).unwrap_or(4.0);
        let cost = (f64::from(params.k) + cells) / 2.0;
        if cost.is_finite() {
            cost.max(1.0)
        } else {
            Self::RELATIVE_COST
        }
    }

    /// `K + P` cells: `K` probes and `P` decrements (`P` from Eq. 17 when given as `fps`,
    /// rounded as the filter rounds it; 4 when neither is given).
    fn cells_per_element(params: &SbfParams, budget_bits: u64) -> f64 {
        let cells = budget_bits / u64::from(cell_bits(params.max.max(1))).max(1);
        let p = decrement_cells(params, cells).unwrap_or(4.0);
        let total = f64::from(params.k) + p;
        if total.is_finite() { total } else { 2.0 }
    }

    /// Scaling the memory by `1/factor` scales the number of cells by `1/factor`, so a
    /// `b`-bit decrement range becomes `b − log2 factor` bits (rounded down for a factor that is
    /// not a power of two): at `--scale 64`, Bera et al.'s 31-bit hypothesis at `m = 2^32` cells
    /// runs as 25 bits at `2^26` cells, the same half of the cells left undecremented.
    fn scaled_params(params: &SbfParams, factor: u64) -> SbfParams {
        let mut p = params.clone();
        p.decrement_range_bits = p
            .decrement_range_bits
            .map(|b| crate::structure::scaled_range_bits(b, factor));
        p
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    /// Runs an all-distinct stream of `n` elements (keys `offset..offset+n`); returns the number
    /// of false positives (every DUPLICATE answer is one).
    fn distinct_run(f: &mut StableBloomFilter, offset: u64, n: u64) -> u64 {
        (offset..offset + n)
            .filter(|&key| f.step(hash_key(key, 99)))
            .count() as u64
    }

    /// Mean zero fraction sampled every `every` elements over `n` distinct elements.
    fn mean_zero_fraction(f: &mut StableBloomFilter, offset: u64, n: u64, every: u64) -> f64 {
        let mut sum = 0.0;
        let mut samples = 0;
        for key in offset..offset + n {
            f.step(hash_key(key, 99));
            if (key - offset) % every == every - 1 {
                sum += f.occupancy().value;
                samples += 1;
            }
        }
        sum / samples as f64
    }

    // Tolerances for the convergence tests. With m = 2^14 cells the zero count of a stable
    // filter fluctuates with sd ≈ sqrt(m·z(1−z)) / m ≈ 0.004 (z ≈ 2/3; cells are nearly
    // independent for the independent decrement), and its autocorrelation time is about
    // m / (K + P) ≈ 2700 elements. A window of 2^17 elements therefore holds ~48 independent
    // stretches: the sd of a windowed mean is ~0.0006, and 0.004 is > 6 sd. The adjacent mode
    // decrements runs of P cells, which correlates neighbours and inflates the variance by up to
    // ~P (sd x2 for P = 4): its tolerance is 0.008.
    const M_CELLS: u64 = 1 << 14;
    const WARMUP: u64 = 1 << 16; // ~24 autocorrelation times: e^{-24} of the start remains
    const WINDOW: u64 = 1 << 17;

    #[test]
    fn decrement_range_covering_m_changes_nothing_and_a_short_range_spares_the_upper_cells() {
        let base = SbfParams::new(1, 2, 4);
        let ranged = |bits| SbfParams {
            decrement_range_bits: Some(bits),
            ..base.clone()
        };
        // m = 2^12: a 12-bit range covers it, so the draws and verdicts are the default's.
        let mut a = StableBloomFilter::new(1 << 12, &base, 5).unwrap();
        let mut b = StableBloomFilter::new(1 << 12, &ranged(12), 5).unwrap();
        for key in 0..20_000 {
            let h = hash_key(key % 3_000, 1);
            assert_eq!(a.step(h), b.step(h), "key {key}");
        }
        // An 11-bit range: cells 2^11.. are set by insertions and never decremented, so once
        // set they stay at Max, while the lower half keeps decaying.
        let mut c = StableBloomFilter::new(1 << 12, &ranged(11), 5).unwrap();
        distinct_run(&mut c, 0, 50_000);
        let upper_zeros = ((1 << 11)..(1 << 12))
            .filter(|&j| c.cells.get(j) == 0)
            .count();
        let lower_zeros = (0..(1 << 11)).filter(|&j| c.cells.get(j) == 0).count();
        // 50,000 elements x K = 2 probes spread over 4096 cells: each upper cell is missed with
        // probability e^{-50000*2/4096} < 1e-10; the lower half holds its stable share of zeros
        // (Theorem 3 for m = 2^11, P = 4: about 2/3).
        assert_eq!(upper_zeros, 0);
        assert!(lower_zeros > 1 << 9, "lower zeros {lower_zeros}");
        assert!(c.zeros_consistent());
        assert!(
            StableBloomFilter::new(1 << 12, &ranged(1), 5).is_err(),
            "2^1 < P positions"
        );
    }

    fn check_convergence(decrement: Decrement, max: u64, tol: f64) {
        let params = SbfParams::new(max, 2, 4).decrement(decrement);
        let budget = M_CELLS * u64::from(cell_bits(max));
        let mut f = StableBloomFilter::new(budget, &params, 3).unwrap();
        let want = f.stable_zero_fraction();
        distinct_run(&mut f, 0, WARMUP * u64::from(cell_bits(max)));
        for w in 0..3 {
            let z = mean_zero_fraction(&mut f, (1 << 30) + w * WINDOW, WINDOW, 64);
            assert!(
                (z - want).abs() < tol,
                "{decrement:?} Max={max} window {w}: zeros {z} vs Theorem 3 {want}"
            );
        }
        assert!(f.zeros_consistent());
    }

    #[test]
    fn any_lookup_is_the_or_of_the_probes_and_leaves_the_state_alone() {
        // Same seed, same stream: the verdict never feeds back into the state, so the two
        // filters hold the same cells throughout; `all` answers the AND of the K probes and
        // `any` their OR, read from the cells before each step.
        let base = SbfParams::with_fps(3, 2, 0.02).decrement(Decrement::Adjacent);
        let any = SbfParams {
            lookup: Lookup::Any,
            ..base.clone()
        };
        let mut a = StableBloomFilter::new(1 << 12, &base, 9).unwrap();
        let mut b = StableBloomFilter::new(1 << 12, &any, 9).unwrap();
        let (mut and_true, mut or_only) = (0, 0);
        for key in 0..50_000u64 {
            let h = hash_key(key % 7_000, 2);
            let dh = DoubleHash::new(h);
            let probes: Vec<bool> = (0..a.k)
                .map(|i| a.cells.get(dh.index(i, a.m)) != 0)
                .collect();
            let (and, or) = (probes.iter().all(|&x| x), probes.iter().any(|&x| x));
            assert_eq!(b.contains(h), or, "key {key}");
            assert_eq!((a.step(h), b.step(h)), (and, or), "key {key}");
            and_true += u64::from(and);
            or_only += u64::from(or && !and);
        }
        assert_eq!(a.occupancy(), b.occupancy());
        assert!(and_true > 1000 && or_only > 1000, "{and_true} {or_only}");
        assert!(b.params().contains(&crate::Param::new("lookup", "any")));
        assert!(!a.params().iter().any(|p| p.name == "lookup"));
    }

    #[test]
    fn any_lookup_gives_the_qht_papers_rate_at_the_stable_point() {
        // The QHT paper's SBF (Max 3, K 2, fps 0.02, P from Eq. 17) on an all-distinct stream:
        // at the stable point a fraction z of the cells is zero (Theorem 3), so AND reports
        // (1 − z)^K and OR 1 − z^K. m = 2^14 cells; independent decrements keep the cells
        // nearly independent. The zero count's sd is about sqrt(z(1 − z)/m) = 0.0027 per
        // snapshot, autocorrelated over m/(K + P) ≈ 410 elements, so over 2^18 elements the
        // windowed mean is within 0.0003; the binomial sd of the rate is 0.0009: 0.006 is
        // more than 5 sd of both together (the slope of 1 − z^2 is 2z ≈ 1.7).
        let params = SbfParams {
            lookup: Lookup::Any,
            ..SbfParams::with_fps(3, 2, 0.02)
        };
        let mut f = StableBloomFilter::new(2 * M_CELLS, &params, 4).unwrap();
        let z = f.stable_zero_fraction();
        distinct_run(&mut f, 0, 1 << 17);
        let n = 1u64 << 18;
        let rate = distinct_run(&mut f, 1 << 30, n) as f64 / n as f64;
        let want = 1.0 - z * z;
        assert!(
            (rate - want).abs() < 0.006,
            "OR rate {rate} vs 1 - z^2 = {want} (z = {z})"
        );
        // The QHT paper's Table 4 prints 25.1-26.5 % for this SBF: the OR rule's range.
        assert!((0.24..0.28).contains(&want), "{want}");
    }

    #[test]
    fn zero_fraction_converges_to_the_stable_point() {
        check_convergence(Decrement::Independent, 1, 0.004);
        // Max = 3: zeros (2/3)^3 = 0.296; slower to mix (cells need 3 decrements), longer warmup.
        check_convergence(Decrement::Independent, 3, 0.006);
    }

    #[test]
    fn adjacent_decrement_also_converges() {
        check_convergence(Decrement::Adjacent, 1, 0.008);
    }

    #[test]
    fn fpr_stays_at_the_eq8_bound_after_convergence() {
        // Corollary 4: on a uniform all-distinct stream the stable FP rate is FPS (Eq. 8).
        // Max = 1, K = 2, P = 4: FPS ≈ 1/9. Per window of 2^17 elements the FP count is binomial
        // (sd 0.0009 in rate) plus the state's fluctuation (d(1−z)^2 = 2(1−z)·dz, with the
        // windowed sd of z ~0.0006 above: ~0.0004). 0.005 is > 5 sd of the sum; 0.006 for the
        // adjacent mode (state fluctuation doubled).
        for decrement in [Decrement::Independent, Decrement::Adjacent] {
            let mut f =
                StableBloomFilter::new(M_CELLS, &SbfParams::new(1, 2, 4).decrement(decrement), 11)
                    .unwrap();
            let bound = f.fps_bound();
            assert!((bound - 1.0 / 9.0).abs() < 1e-4);
            // Corollary 5: during the fill the rate is below the bound.
            let early = distinct_run(&mut f, 0, 4096) as f64 / 4096.0;
            assert!(
                early < bound,
                "{decrement:?}: early FPR {early} above bound {bound}"
            );
            distinct_run(&mut f, 4096, WARMUP);
            let tol = if decrement == Decrement::Adjacent {
                0.006
            } else {
                0.005
            };
            for w in 0..4 {
                let rate =
                    distinct_run(&mut f, (1 << 30) + w * WINDOW, WINDOW) as f64 / WINDOW as f64;
                assert!(
                    rate < bound + tol,
                    "{decrement:?} window {w}: FPR {rate} above Eq. 8 {bound}"
                );
                assert!(
                    (rate - bound).abs() < tol,
                    "{decrement:?} window {w}: FPR {rate} not at Eq. 8 {bound}"
                );
            }
        }
    }

    #[test]
    fn fpr_with_derived_p_for_several_targets() {
        // P from Eq. 17 (ceil: bound ≤ target); the stable FPR of a uniform stream is the bound.
        for (max, k, fps) in [(1u64, 2u32, 0.2), (3, 4, 0.01), (1, 3, 0.05)] {
            let mut params = SbfParams::with_fps(max, k, fps);
            params.p_rounding = PRounding::Ceil;
            let budget = M_CELLS * u64::from(cell_bits(max));
            let mut f = StableBloomFilter::new(budget, &params, 5).unwrap();
            let bound = f.fps_bound();
            assert!(bound <= fps);
            distinct_run(&mut f, 0, WARMUP);
            let n = 1 << 18;
            let rate = distinct_run(&mut f, 1 << 30, n) as f64 / n as f64;
            // 5 binomial sd plus 5% of the bound for the state's fluctuation: the rate is
            // (1 − z)^K, so a windowed sd of z of ~0.0006 moves it by K·0.0006/(1 − z) ≤ 1%
            // relative in these settings; 5% is 5 sd.
            let tol = 5.0 * (bound * (1.0 - bound) / n as f64).sqrt() + 0.05 * bound;
            assert!(
                (rate - bound).abs() < tol,
                "Max={max} K={k} FPS={fps} P={}: {rate} vs {bound}",
                f.p()
            );
        }
    }

    #[test]
    fn step_batch_gives_the_same_verdicts_as_step() {
        let hashes: Vec<u64> = (0..50_000u64)
            .map(|i| hash_key(i * 7919 % 20_000, 1))
            .collect();
        let spread = 1 << 24; // above SPREAD_FROM_BITS: P > 4 spreads its prefetches
        for (params, bits) in [
            (SbfParams::new(1, 2, 4), 1 << 15),
            (SbfParams::new(3, 3, 40), 1 << 15),
            (SbfParams::new(3, 3, 40), spread),
            (
                SbfParams::new(3, 2, 10).decrement(Decrement::Adjacent),
                1 << 15,
            ),
            (SbfParams::new(1, 2, 600), spread), // 600·R ≤ 8192: R = 8
            (SbfParams::new(1, 2, 5000), spread), // a ring of one group: nothing ahead
        ] {
            // Large P costs O(P) per element: fewer elements.
            let hashes = &hashes[..hashes.len() / (1 + params.p.unwrap() as usize / 50)];
            let mut a = StableBloomFilter::new(bits, &params, 42).unwrap();
            assert_eq!(a.spread, bits == spread, "{params:?}");
            let mut b = a.clone();
            // The same filter with its prefetches in a burst: spreading them changes nothing.
            let mut c = a.clone();
            c.spread = false;
            let one: Vec<bool> = hashes.iter().map(|&h| a.step(h)).collect();
            let mut batch = vec![false; hashes.len()];
            let mut burst = vec![false; hashes.len()];
            // Uneven chunks exercise the chunk boundaries.
            let mut start = 0;
            for len in [1usize, 23, 24, 25, 1000, 7777].into_iter().cycle() {
                let end = (start + len).min(hashes.len());
                b.step_batch(&hashes[start..end], &mut batch[start..end]);
                c.step_batch(&hashes[start..end], &mut burst[start..end]);
                start = end;
                if start == hashes.len() {
                    break;
                }
            }
            assert_eq!(one, batch, "{params:?}");
            assert_eq!(one, burst, "{params:?}");
            assert_eq!(a.occupancy(), b.occupancy());
            assert_eq!(b.occupancy(), c.occupancy());
            assert_eq!(b.ring, c.ring);
            assert!(a.zeros_consistent() && b.zeros_consistent());
        }
    }

    #[test]
    fn same_seed_same_verdicts_other_seed_other_decrements() {
        let hashes: Vec<u64> = (0..30_000u64).map(|i| hash_key(i % 9000, 2)).collect();
        let run = |seed| {
            let mut f = StableBloomFilter::new(1 << 12, &SbfParams::new(1, 2, 4), seed).unwrap();
            hashes.iter().map(|&h| f.step(h)).collect::<Vec<bool>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn independent_draws_are_distinct_cells() {
        for p in [4u64, 16, 17, 300] {
            let f = StableBloomFilter::new(1000, &SbfParams::new(1, 2, p), 1).unwrap();
            for g in f.ring.chunks(f.group_len) {
                let mut v = g.to_vec();
                v.sort_unstable();
                v.dedup();
                assert_eq!(v.len() as u64, p);
                assert!(v.iter().all(|&j| j < f.m));
            }
        }
        // P = m: every cell, every time.
        let mut f = StableBloomFilter::new(40, &SbfParams::new(1, 2, 40), 1).unwrap();
        f.step(hash_key(1, 0));
        f.step(hash_key(2, 0));
        // The second element's decrement cleared every cell; it then set at most K = 2.
        assert!(f.cells.count_zeros() >= f.m - 2);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Model test: a duplicate whose predecessor is at most `Max` positions back sees at most
        /// `Max − 1` decrements of each of its cells (each cell is decremented at most once per
        /// element, and not after the probe), so it is never a false negative. Also checks the
        /// running zero count against a recount.
        #[test]
        fn short_gaps_are_never_false_negatives(
            keys in prop::collection::vec(0u64..400, 1..2000),
            max in 1u64..8,
            p in 1u64..64,
            adjacent: bool,
            seed: u64,
        ) {
            let params = SbfParams::new(max, 2, p)
                .decrement(if adjacent { Decrement::Adjacent } else { Decrement::Independent });
            let mut f = StableBloomFilter::new(64 * u64::from(cell_bits(max)), &params, seed).unwrap();
            let mut last = std::collections::HashMap::new();
            for (pos, &key) in keys.iter().enumerate() {
                let dup = f.step(hash_key(key, seed));
                if let Some(prev) = last.insert(key, pos)
                    && (pos - prev) as u64 <= max {
                        prop_assert!(dup, "gap {} <= Max {} reported UNSEEN", pos - prev, max);
                    }
            }
            prop_assert!(f.zeros_consistent());
        }
    }

    #[test]
    fn derived_p_follows_eq17() {
        let f = StableBloomFilter::new(1 << 20, &SbfParams::with_fps(1, 2, 0.1), 0).unwrap();
        assert_eq!(f.p(), 4);
        let mut ceil = SbfParams::with_fps(1, 2, 0.1);
        ceil.p_rounding = PRounding::Ceil;
        assert_eq!(StableBloomFilter::new(1 << 20, &ceil, 0).unwrap().p(), 5);
        // Max = 15 -> d = 4 bits, K = 6, FPS = 1% -> P = 141 (Section 4.1).
        let f = StableBloomFilter::new(1 << 24, &SbfParams::with_fps(15, 6, 0.01), 0).unwrap();
        assert_eq!((f.p(), f.d(), f.m()), (141, 4, 1 << 22));
        // A loose target still decrements at least one cell.
        let f = StableBloomFilter::new(1 << 12, &SbfParams::with_fps(1, 2, 0.5), 0).unwrap();
        assert_eq!(f.p(), 1);
        let names: Vec<&str> = f.params().iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "max",
                "k",
                "p",
                "fps",
                "decrement",
                "d",
                "m",
                "fps_bound",
                "stable_zero_fraction"
            ]
        );
        assert_eq!(f.name(), "sbf");
    }

    #[test]
    fn memory_within_budget_on_a_grid() {
        let params = [
            SbfParams::new(1, 2, 4),
            SbfParams::new(3, 4, 30).decrement(Decrement::Adjacent),
            SbfParams::new(7, 3, 100),
            SbfParams::with_fps(15, 6, 0.01),
            SbfParams::with_fps(1, 2, 0.1),
        ];
        for e in 10..=32 {
            for budget in [1u64 << e, (1u64 << e) + 5, (1u64 << e) - 1] {
                for p in &params {
                    let bits = StableBloomFilter::memory_bits_for(budget, p).unwrap();
                    assert!(
                        bits <= budget && budget - bits < u64::from(cell_bits(p.max)),
                        "{budget} {p:?}"
                    );
                }
            }
        }
        for budget in [1000u64, 1 << 20] {
            for p in &params {
                let f = StableBloomFilter::new(budget, p, 0).unwrap();
                assert_eq!(
                    f.memory_bits(),
                    StableBloomFilter::memory_bits_for(budget, p).unwrap()
                );
            }
        }
    }

    #[test]
    fn invalid_params_are_errors() {
        let inv = |p: SbfParams| {
            matches!(
                StableBloomFilter::new(1 << 12, &p, 0),
                Err(Error::InvalidParameter { .. })
            )
        };
        assert!(inv(SbfParams::new(0, 2, 4)));
        assert!(inv(SbfParams::new(1 << 57, 2, 4)));
        assert!(inv(SbfParams::new(1, 0, 4)));
        assert!(inv(SbfParams::new(1, MAX_K + 1, 4)));
        assert!(inv(SbfParams::new(1, 2, 0)));
        assert!(inv(SbfParams::new(1, 2, MAX_P + 1)));
        for fps in [0.0, 1.0, -0.1, 2.0, f64::NAN, f64::INFINITY] {
            assert!(inv(SbfParams::with_fps(1, 2, fps)), "{fps}");
        }
        assert!(inv(SbfParams {
            fps: Some(0.1),
            ..SbfParams::new(1, 2, 4)
        }));
        assert!(inv(SbfParams {
            p: None,
            ..SbfParams::new(1, 2, 4)
        }));
        // A target so strict that P would exceed MAX_P.
        assert!(inv(SbfParams::with_fps(63, 2, 1e-12)));
        let small = |b, p: SbfParams| {
            matches!(
                StableBloomFilter::new(b, &p, 0),
                Err(Error::BudgetTooSmall { .. })
            )
        };
        assert!(small(0, SbfParams::new(1, 2, 1)));
        assert!(small(2, SbfParams::new(1, 2, 1)));
        assert!(small(100, SbfParams::new(1, 2, 101)));
        assert!(small(5, SbfParams::new(3, 2, 1)));
        assert!(small(2, SbfParams::with_fps(1, 2, 0.1)));
        assert!(matches!(
            StableBloomFilter::memory_bits_for(u64::MAX, &SbfParams::new(1, 2, 4)),
            Err(Error::CapacityTooLarge { .. })
        ));
    }
}
