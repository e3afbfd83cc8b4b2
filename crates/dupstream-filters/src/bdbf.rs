//! b_DBF, the block-decaying Bloom filter: Shen & Zhang, *Improved approximate detection of
//! duplicates for data streams over sliding windows*, JCST 23(6), 2008. The QHT paper
//! (Géraud et al., Section 6.1) runs it as a baseline with a sliding window of `W = 6000`
//! elements; the papers only cite it, so this follows the definition recorded in the papers
//! README ("Baselines the QHT paper cites without describing") with the decay schedule below.
//!
//! An array of `m` small counters and `k` hash functions. Each arriving element is a DUPLICATE
//! iff all `k` of its counters are non-zero; then its `k` counters are (re)set, and one block of
//! the array is decayed. Decaying every counter at every arrival (the plain decaying Bloom
//! filter) costs `O(m)` per element; b_DBF decays one block per arrival instead.
//!
//! # The decay schedule implemented
//!
//! - **Time.** Arrivals are numbered `t = 0, 1, 2, ...`; an element re-presented at arrival
//!   `t1` after an occurrence at `t0` has gap `g = t1 − t0`. The window is `W` (`window`).
//! - **Cells.** `w = cell_bits ∈ {2, 4, 8, 16}` bits per counter, packed `64 / w` to a `u64`
//!   word with no padding; `m = floor(budget / 64) · 64 / w`.
//! - **Blocks.** `B` blocks (`blocks`, default [`default_blocks`]`(W, w) = ⌈W / (2^w − 2)⌉`,
//!   the finest schedule whose insert value fits in `w` bits). The words are split into `B`
//!   contiguous blocks of `⌊words/B⌋` or `⌈words/B⌉` words (block `j` starts at word
//!   `⌊j·words/B⌋`; blocks may be empty when `B` exceeds the number of words). Arrival `t`
//!   decays block `t mod B`, so every block is decayed exactly once every `B` arrivals.
//! - **Step order at arrival `t`.** (1) detect: DUPLICATE iff the `k` counters are all
//!   non-zero; (2) insert: set the `k` counters to `V`; (3) decay block `t mod B`: every
//!   non-zero counter in it decreases by one (SWAR on whole words, no branches).
//! - **Insert value.** `V = ⌈W/B⌉ + 1` ([`insert_value`]). Counters count *remaining decay
//!   visits*; in the README's units (arrivals, decremented "by the number of blocks") a counter
//!   `n` stands for `n·B` arrivals, whose low bits are always zero and are not stored.
//! - **Why no false negative within the window.** A counter of block `j` set at `t0` is
//!   visited at `t0 + d, t0 + d + B, ...` with `d = (j − t0) mod B ∈ [0, B)`; at arrival `t1` it
//!   has been visited `#{i ≥ 0 : d + iB < g}` times, so it is still non-zero iff
//!   `g ≤ d + ⌈W/B⌉·B`. As `⌈W/B⌉·B ≥ W`, every counter written at `t0` is non-zero for
//!   `g ≤ W`. A later write by another element sets the counter to `V` again, which never
//!   shortens its life. So an element re-presented within `W` arrivals is *always* detected.
//! - **Expiry.** With no later write to its counters, an element is forgotten (some counter is
//!   zero) once `g > min_i d_i + ⌈W/B⌉·B`, and certainly for `g ≥` [`forget_gap`]`(W, B) =
//!   ⌈W/B⌉·B + B`; beyond that it is detected only if other elements rewrote all its counters,
//!   exactly the false positive event of a never-seen element. The window is exact to the
//!   resolution of one decay round: the slack is below `2B` (below `B` when `B` divides `W`).
//!   With the defaults (`W = 6000`, `w = 4`): `B = 429`, `V = 15`, forgotten by `g = 6435`.
//! - **Verdicts and windows.** Every element is inserted (DUPLICATE or not), so the window
//!   counts from an element's latest occurrence, as sliding-window duplicate detection does.
//! - **`k`.** Given, or by default the Bloom-optimal count for `W` elements in `m` cells,
//!   `round(ln 2 · m / W)` clamped to `1..=16` ([`default_k`]; the QHT paper does not say).
//!
//! Cost per arrival: `k` probes plus `⌈words / B⌉` word updates. Occupancy is the fraction of
//! zero counters (computed by a scan when asked).
//!
//! # The QHT paper's own b_DBF (`schedule = "running_counter"`)
//! The QHT paper states only `W = 6000`. The benchmark code that produced its tables
//! (github.com/mariuslp/duplicate_sliding_benchmark, commit 4d600e2, whose README says it is
//! "the code that was used for the benchmark in the paper", `src/filter_bdb.cpp`, described there
//! as Shen & Zhang's "optimized version with delayed decreasing", their Section 5.5) runs a
//! different schedule, with every parameter derived from the budget `M` and `W`
//! ([`RunningCounterLayout`]):
//! - counter width `d = ⌈√(M·ln 2 / W)⌉` (line 9), `m = ⌊M/d⌋` counters (line 13), `k = d`
//!   hash functions (line 18), threshold `Th = 2^(d−1)` (line 16) and period
//!   `T = ⌈W / (2^(d−1) − 1)⌉` (line 19); `M > W / ln 2` is required (line 5, so `d ≥ 2`);
//! - a running counter `VT`, starting at 0. At arrival `t` (from 0): the element is a
//!   DUPLICATE iff all `k` counters are at least `VT` (lines 22–33); then, if `t mod T = 0`,
//!   `VT ← (VT + 1) mod Th`, and when that wraps to 0 every counter loses `Th` (those at most
//!   `Th` become 0; lines 38–51); then the `k` counters are set to `⌊W/T⌋ + VT + 1`
//!   (line 55).
//!
//! So an element is remembered for about `⌊W/T⌋·T ≈ W` arrivals, and while `VT = 0` (the first
//! arrival, then `T` arrivals in every `T·Th`) every element is a DUPLICATE: a fraction `1/Th`
//! of the stream, half of it at 10^4 bits (`d = 2`), an eighth at 10^5 (`d = 4`). At 10^6 and
//! 8·10^6 bits, `d` = 11 and 31. The counters are kept in 64-bit words, as there; the state
//! charged is `m·d` bits.

use crate::error::{Error, Result, ensure, words_for_bits};
use crate::hash::DoubleHash;
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest accepted number of hash functions.
pub const MAX_K: u32 = 64;
/// Largest `k` [`default_k`] picks.
pub const MAX_DEFAULT_K: u32 = 16;

fn default_window() -> u64 {
    6000
}

fn default_cell_bits() -> u32 {
    4
}

/// How counters expire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Schedule {
    /// One block decayed per arrival (the module documentation's schedule).
    #[default]
    Blocks,
    /// The QHT paper's benchmark code: a running counter, every parameter from `M` and `W`
    /// (`src/filter_bdb.cpp` at commit 4d600e2 of
    /// github.com/mariuslp/duplicate_sliding_benchmark; [`RunningCounterLayout`]).
    RunningCounter,
}

/// Parameters of a [`BDbf`].
///
/// ```toml
/// window = 6000    # W (default 6000, the QHT paper's)
/// cell_bits = 4    # 2, 4, 8 or 16 (default 4)
/// # blocks = 429   # default ceil(W / (2^cell_bits - 2))
/// # k = 4          # default round(ln2 · m / W), clamped to 1..=16
/// # schedule = "running_counter"   # the QHT paper's code: cell_bits, blocks, k from M and W
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct BDbfParams {
    /// `W`, the sliding window in elements.
    #[cfg_attr(feature = "serde", serde(default = "default_window"))]
    pub window: u64,
    /// Bits per counter: 2, 4, 8 or 16.
    #[cfg_attr(feature = "serde", serde(default = "default_cell_bits"))]
    pub cell_bits: u32,
    /// `B`, the number of blocks (one decayed per arrival).
    #[cfg_attr(feature = "serde", serde(default))]
    pub blocks: Option<u64>,
    /// `k`, the number of hash functions.
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
    /// How counters expire (default: block decay). With `running_counter` the counter width,
    /// the period and `k` follow from the budget and `W`; `cell_bits`, `blocks` and `k` are
    /// then not accepted.
    #[cfg_attr(feature = "serde", serde(default))]
    pub schedule: Schedule,
}

impl Default for BDbfParams {
    fn default() -> Self {
        Self {
            window: default_window(),
            cell_bits: default_cell_bits(),
            blocks: None,
            k: None,
            schedule: Schedule::Blocks,
        }
    }
}

/// The parameters of the QHT paper's benchmark b_DBF for a budget of `M` bits and window `W`
/// (`src/filter_bdb.cpp` lines 3–20 at commit 4d600e2; the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningCounterLayout {
    /// `d = ⌈√(M·ln 2 / W)⌉`, bits per counter.
    pub d: u32,
    /// `m = ⌊M/d⌋`, the number of counters.
    pub m: u64,
    /// `k = d`, hash functions.
    pub k: u32,
    /// `Th = 2^(d−1)`, the running counter's modulus.
    pub threshold: u64,
    /// `T = ⌈W / (2^(d−1) − 1)⌉`, arrivals per step of the running counter.
    pub period: u64,
    /// `⌊W/T⌋ + 1`: an insertion writes this plus the running counter.
    pub base_value: u64,
}

/// [`RunningCounterLayout`] for a budget and window.
///
/// # Errors
/// [`Error::BudgetTooSmall`] unless `M > W / ln 2` (the code's assertion);
/// [`Error::InvalidParameter`] when `d` exceeds 63 bits (the code asserts `d ≤ 64` and
/// computes `2^d`).
pub fn running_counter_layout(budget_bits: u64, window: u64) -> Result<RunningCounterLayout> {
    let ln2 = std::f64::consts::LN_2;
    if budget_bits as f64 <= window as f64 / ln2 {
        return Err(Error::BudgetTooSmall {
            structure: "bdbf",
            budget_bits,
            needed_bits: (window as f64 / ln2).floor() as u64 + 1,
        });
    }
    let d = (budget_bits as f64 * ln2 / window as f64).sqrt().ceil();
    ensure(
        d <= 63.0,
        "window",
        window,
        &format!(
            "the running counter's width ceil(sqrt(M ln 2 / W)) = {d} bits for M = {budget_bits} exceeds 63"
        ),
    )?;
    let d = d as u32;
    let threshold = 1u64 << (d - 1);
    let period = window.div_ceil(threshold - 1);
    Ok(RunningCounterLayout {
        d,
        m: budget_bits / u64::from(d),
        k: d,
        threshold,
        period,
        base_value: window / period + 1,
    })
}

/// The QHT paper's benchmark b_DBF ([`Schedule::RunningCounter`]).
#[derive(Debug, Clone)]
struct RunningCounter {
    cells: Vec<u64>,
    layout: RunningCounterLayout,
    /// `VT`.
    running: u64,
    /// Arrivals so far.
    iteration: u64,
}

impl RunningCounter {
    fn new(budget_bits: u64, window: u64) -> Result<Self> {
        let layout = running_counter_layout(budget_bits, window)?;
        words_for_bits("bdbf", layout.m * u64::from(layout.d))?;
        Ok(Self {
            cells: vec![0; layout.m as usize],
            layout,
            running: 0,
            iteration: 0,
        })
    }

    /// One arrival, in the order of `filter_bdb.cpp`'s `Insert` (lines 35–61).
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let RunningCounterLayout {
            m,
            k,
            threshold,
            period,
            base_value,
            ..
        } = self.layout;
        let mut dup = true;
        for i in 0..k {
            dup &= self.cells[dh.index(i, m) as usize] >= self.running;
        }
        if self.iteration.is_multiple_of(period) {
            self.running = (self.running + 1) % threshold;
            if self.running == 0 {
                for c in &mut self.cells {
                    *c = c.saturating_sub(threshold);
                }
            }
        }
        let value = base_value + self.running;
        for i in 0..k {
            self.cells[dh.index(i, m) as usize] = value;
        }
        self.iteration += 1;
        dup
    }

    /// Counters below the running counter (those that make a lookup fail).
    fn expired_fraction(&self) -> f64 {
        let below = self.cells.iter().filter(|&&c| c < self.running).count();
        below as f64 / self.layout.m as f64
    }
}

/// The default number of blocks, `⌈W / (2^w − 2)⌉`: the smallest `B` (finest expiry
/// resolution) whose [`insert_value`] fits in a `w`-bit counter.
pub fn default_blocks(window: u64, cell_bits: u32) -> u64 {
    window.div_ceil((1u64 << cell_bits.min(62)) - 2).max(1)
}

/// The value an insertion writes, `V = ⌈W/B⌉ + 1` (in decay visits).
pub fn insert_value(window: u64, blocks: u64) -> u64 {
    window.div_ceil(blocks) + 1
}

/// The gap from which an element whose counters were not rewritten is certainly forgotten:
/// `⌈W/B⌉·B + B`. Every gap `≤ W` is detected.
pub fn forget_gap(window: u64, blocks: u64) -> u64 {
    window.div_ceil(blocks) * blocks + blocks
}

/// The Bloom-optimal `k` for `W` elements in `m` cells, `round(ln 2 · m / W)`, clamped to
/// `1..=`[`MAX_DEFAULT_K`].
pub fn default_k(m: u64, window: u64) -> u32 {
    let k = (std::f64::consts::LN_2 * m as f64 / window.max(1) as f64).round();
    (k as u32).clamp(1, MAX_DEFAULT_K)
}

/// Validated layout.
#[derive(Debug, Clone, Copy)]
struct Layout {
    words: u64,
    m: u64,
    blocks: u64,
    k: u32,
    value: u64,
}

fn resolve(budget_bits: u64, p: &BDbfParams) -> Result<Layout> {
    if p.schedule == Schedule::RunningCounter {
        for (name, given) in [
            ("cell_bits", p.cell_bits != default_cell_bits()),
            ("blocks", p.blocks.is_some()),
            ("k", p.k.is_some()),
        ] {
            if given {
                return Err(Error::InvalidParameter {
                    name,
                    value: "(given)".into(),
                    reason:
                        "schedule = \"running_counter\" derives it from the budget and the window"
                            .into(),
                });
            }
        }
    }
    ensure(
        matches!(p.cell_bits, 2 | 4 | 8 | 16),
        "cell_bits",
        p.cell_bits,
        "must be 2, 4, 8 or 16",
    )?;
    ensure(
        (1..=1 << 40).contains(&p.window),
        "window",
        p.window,
        "must be in 1..=2^40",
    )?;
    let blocks = p
        .blocks
        .unwrap_or_else(|| default_blocks(p.window, p.cell_bits));
    ensure(
        (1..=1 << 40).contains(&blocks),
        "blocks",
        blocks,
        "must be in 1..=2^40",
    )?;
    let value = insert_value(p.window, blocks);
    let max = (1u64 << p.cell_bits) - 1;
    if value > max {
        return Err(Error::InvalidParameter {
            name: "blocks",
            value: blocks.to_string(),
            reason: format!(
                "the insert value ceil(W/B) + 1 = {value} does not fit in {} bits: need blocks >= {}",
                p.cell_bits,
                default_blocks(p.window, p.cell_bits)
            ),
        });
    }
    words_for_bits("bdbf", budget_bits)?;
    let words = budget_bits / 64;
    if words == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "bdbf",
            budget_bits,
            needed_bits: 64,
        });
    }
    let m = words * u64::from(64 / p.cell_bits);
    let k = match p.k {
        Some(k) => {
            ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=64")?;
            k
        }
        None => default_k(m, p.window),
    };
    Ok(Layout {
        words,
        m,
        blocks,
        k,
        value,
    })
}

/// Lane least-significant-bit masks per cell width.
const fn lsb_mask(w: u32) -> u64 {
    match w {
        2 => 0x5555_5555_5555_5555,
        4 => 0x1111_1111_1111_1111,
        8 => 0x0101_0101_0101_0101,
        _ => 0x0001_0001_0001_0001,
    }
}

/// Per `w`-bit lane of `x`: 1 in the lane's lowest bit iff the lane is non-zero.
#[inline(always)]
fn nonzero_lanes(x: u64, w: u32) -> u64 {
    let mut f = x | (x >> 1);
    if w >= 4 {
        f |= f >> 2;
    }
    if w >= 8 {
        f |= f >> 4;
    }
    if w >= 16 {
        f |= f >> 8;
    }
    f & lsb_mask(w)
}

/// Decrements every non-zero lane of every word by one (no borrow crosses a lane, since only
/// non-zero lanes are decremented).
#[inline(always)]
fn decay_words<const W: u32>(words: &mut [u64]) {
    for x in words {
        *x -= nonzero_lanes(*x, W);
    }
}

/// The block-decaying Bloom filter.
///
/// ```
/// use dupstream_filters::{DuplicateFilter, bdbf::{BDbf, BDbfParams}, hash::hash_key};
/// let p = BDbfParams { window: 100, ..BDbfParams::default() };
/// let mut f = BDbf::new(1 << 16, &p, 0).unwrap();
/// f.step(hash_key(0, 0));
/// for key in 1..100 {
///     f.step(hash_key(key, 0));
/// }
/// assert!(f.step(hash_key(0, 0))); // gap 100 = W: always detected
/// ```
#[derive(Debug, Clone)]
pub struct BDbf {
    words: Vec<u64>,
    m: u64,
    k: u32,
    /// `log2(64 / w)` and `log2(w)`.
    cells_per_word_log2: u32,
    width_log2: u32,
    width: u32,
    lane_mask: u64,
    window: u64,
    blocks: u64,
    value: u64,
    /// The block decayed at the current arrival, where it starts, and the Bresenham state.
    block: u64,
    block_start: u64,
    block_acc: u64,
    quot: u64,
    rem: u64,
    arrivals: u64,
    /// The QHT paper's schedule instead of the blocks ([`Schedule::RunningCounter`]); the
    /// fields above are then unused and `words` is empty.
    counter: Option<Box<RunningCounter>>,
}

impl BDbf {
    /// A filter of `floor(budget_bits / 64)` words. b_DBF draws no random numbers, so `seed` is
    /// unused.
    pub fn new(budget_bits: u64, params: &BDbfParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let l = resolve(budget_bits, params)?;
        let counter = match params.schedule {
            Schedule::Blocks => None,
            Schedule::RunningCounter => {
                Some(Box::new(RunningCounter::new(budget_bits, params.window)?))
            }
        };
        let w = params.cell_bits;
        Ok(Self {
            words: if counter.is_some() {
                Vec::new()
            } else {
                vec![0; l.words as usize]
            },
            m: l.m,
            k: l.k,
            cells_per_word_log2: (64 / w).trailing_zeros(),
            width_log2: w.trailing_zeros(),
            width: w,
            lane_mask: (1u64 << w) - 1,
            window: params.window,
            blocks: l.blocks,
            value: l.value,
            block: 0,
            block_start: 0,
            block_acc: 0,
            quot: l.words / l.blocks,
            rem: l.words % l.blocks,
            arrivals: 0,
            counter,
        })
    }

    /// The state size a filter built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &BDbfParams) -> Result<u64> {
        let l = resolve(budget_bits, params)?;
        match params.schedule {
            Schedule::Blocks => Ok(l.words * 64),
            Schedule::RunningCounter => {
                let r = running_counter_layout(budget_bits, params.window)?;
                let bits = r.m * u64::from(r.d);
                words_for_bits("bdbf", bits)?;
                Ok(bits)
            }
        }
    }

    /// `m`, the number of counters.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// `k`, the number of hash functions.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// `B`, the number of blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The value an insertion writes.
    pub fn insert_value(&self) -> u64 {
        self.value
    }

    #[inline(always)]
    fn get(&self, i: u64) -> u64 {
        let word = self.words[(i >> self.cells_per_word_log2) as usize];
        let shift = ((i & ((1 << self.cells_per_word_log2) - 1)) << self.width_log2) as u32;
        (word >> shift) & self.lane_mask
    }

    #[inline(always)]
    fn set(&mut self, i: u64, v: u64) {
        let word = &mut self.words[(i >> self.cells_per_word_log2) as usize];
        let shift = ((i & ((1 << self.cells_per_word_log2) - 1)) << self.width_log2) as u32;
        *word = (*word & !(self.lane_mask << shift)) | (v << shift);
    }

    /// Decays the current block and moves to the next one.
    #[inline(always)]
    fn decay_step(&mut self) {
        let mut len = self.quot;
        self.block_acc += self.rem;
        if self.block_acc >= self.blocks {
            self.block_acc -= self.blocks;
            len += 1;
        }
        let start = self.block_start as usize;
        let range = &mut self.words[start..start + len as usize];
        match self.width {
            2 => decay_words::<2>(range),
            4 => decay_words::<4>(range),
            8 => decay_words::<8>(range),
            _ => decay_words::<16>(range),
        }
        self.block += 1;
        if self.block == self.blocks {
            self.block = 0;
            self.block_start = 0;
            self.block_acc = 0;
        } else {
            self.block_start += len;
        }
    }

    /// The block holding counter `i` (test helper; O(B)).
    #[cfg(test)]
    fn block_of(&self, i: u64) -> u64 {
        let word = i >> self.cells_per_word_log2;
        (0..self.blocks)
            .find(|&j| word < (j + 1) * (self.words.len() as u64) / self.blocks)
            .unwrap()
    }
}

impl DuplicateFilter for BDbf {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        if let Some(c) = &mut self.counter {
            return c.step(hash);
        }
        let dh = DoubleHash::new(hash);
        let mut dup = true;
        for i in 0..self.k {
            dup &= self.get(dh.index(i, self.m)) != 0;
        }
        for i in 0..self.k {
            self.set(dh.index(i, self.m), self.value);
        }
        self.decay_step();
        self.arrivals += 1;
        dup
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let dh = DoubleHash::new(hash);
        if let Some(c) = &self.counter {
            for i in 0..c.layout.k {
                crate::raw::prefetch_word(&c.cells, dh.index(i, c.layout.m) as usize);
            }
            return;
        }
        for i in 0..self.k {
            crate::raw::prefetch_word(
                &self.words,
                (dh.index(i, self.m) >> self.cells_per_word_log2) as usize,
            );
        }
    }

    /// Prefetches only above [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS).
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        let bits = self.memory_bits();
        crate::sized_batch(self, bits, hashes, out);
    }

    fn memory_bits(&self) -> u64 {
        match &self.counter {
            Some(c) => c.layout.m * u64::from(c.layout.d),
            None => self.words.len() as u64 * 64,
        }
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        if let Some(c) = &self.counter {
            let l = c.layout;
            return vec![
                crate::Param::new("window", self.window),
                crate::Param::new("schedule", "running_counter"),
                crate::Param::new("cell_bits", l.d),
                crate::Param::new("k", l.k),
                crate::Param::new("m", l.m),
                crate::Param::new("threshold", l.threshold),
                crate::Param::new("period", l.period),
                crate::Param::new("insert_value", l.base_value),
            ];
        }
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("cell_bits", self.width),
            crate::Param::new("blocks", self.blocks),
            crate::Param::new("k", self.k),
            crate::Param::new("m", self.m),
            crate::Param::new("insert_value", self.value),
            crate::Param::new("forget_gap", forget_gap(self.window, self.blocks)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        if let Some(c) = &self.counter {
            return Occupancy {
                kind: OccupancyKind::ZeroFraction,
                value: c.expired_fraction(),
            };
        }
        let nonzero: u64 = self
            .words
            .iter()
            .map(|&x| u64::from(nonzero_lanes(x, self.width).count_ones()))
            .sum();
        Occupancy {
            kind: OccupancyKind::ZeroFraction,
            value: 1.0 - nonzero as f64 / self.m as f64,
        }
    }
}

crate::structure::impl_structure!(BDbf {
    name: "bdbf",
    params: BDbfParams,
    cost: 10.0,
    memory_bits_for: BDbf::memory_bits_for,
}

    /// The block schedule: `K` cells plus its sequential decay (one line per 8 words swept).
    /// The QHT paper's running counter: its `k` probes and `k` writes, no sweep.
    fn cells_per_element(params: &BDbfParams, budget_bits: u64) -> f64 {
        let m = budget_bits;
        if params.schedule == Schedule::RunningCounter {
            return running_counter_layout(m, params.window).map_or(1.0, |l| f64::from(l.k));
        }
        let k = params
            .k
            .unwrap_or_else(|| default_k(m / u64::from(params.cell_bits), params.window));
        let blocks = params
            .blocks
            .unwrap_or_else(|| default_blocks(params.window, params.cell_bits));
        f64::from(k) + (m as f64 / 64.0 / blocks.max(1) as f64 / 8.0).max(1.0)
    }

    /// The running counter keeps its `⌊M/d⌋` counters in 64-bit words, as the QHT paper's code.
    fn heap_bytes_estimate(params: &BDbfParams, budget_bits: u64, distinct_hint: u64) -> u64 {
        let _ = distinct_hint;
        match params.schedule {
            Schedule::Blocks => budget_bits / 8 + 4096,
            Schedule::RunningCounter => running_counter_layout(budget_bits, params.window)
                .map_or(budget_bits / 8, |l| l.m * 8)
                + 4096,
        }
    }

    /// The running counter's window is divided by `factor` with the memory (rounded, at least
    /// 1): its counter width, `k` and threshold depend on `M/W` only, so a scaled run keeps
    /// them and the window's share of the stream. The block schedule keeps its window (a
    /// count of elements).
    fn scaled_params(params: &BDbfParams, factor: u64) -> BDbfParams {
        let mut p = params.clone();
        if p.schedule == Schedule::RunningCounter {
            p.window = (p.window as f64 / factor.max(1) as f64).round().max(1.0) as u64;
        }
        p
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{hash_key, mix64};
    use std::collections::HashMap;

    #[test]
    fn formulas_by_hand() {
        assert_eq!(default_blocks(6000, 4), 429);
        assert_eq!(insert_value(6000, 429), 15);
        assert_eq!(forget_gap(6000, 429), 6435);
        assert_eq!(default_blocks(6000, 2), 3000);
        assert_eq!(insert_value(6000, 3000), 3);
        assert_eq!(insert_value(6000, 500), 13);
        assert_eq!(forget_gap(6000, 500), 6500);
        assert_eq!(default_k(1 << 20, 6000), 16);
        assert_eq!(default_k(60_000, 6000), 7);
        assert_eq!(default_k(100, 6000), 1);
    }

    #[test]
    fn running_counter_layout_by_hand() {
        // filter_bdb.cpp lines 9-19 with W = 6000 at the QHT paper's four memory sizes.
        let l = |m| running_counter_layout(m, 6000).unwrap();
        let row = |l: RunningCounterLayout| (l.d, l.m, l.k, l.threshold, l.period, l.base_value);
        // sqrt(1e4 · ln 2 / 6000) = 1.07 -> d = 2; T = 6000 / 1; value 6000/6000 + 1.
        assert_eq!(row(l(10_000)), (2, 5_000, 2, 2, 6_000, 2));
        // 3.40 -> 4; T = ceil(6000 / 7) = 858; 6000 / 858 = 6.
        assert_eq!(row(l(100_000)), (4, 25_000, 4, 8, 858, 7));
        // 10.75 -> 11; T = ceil(6000 / 1023) = 6.
        assert_eq!(row(l(1_000_000)), (11, 90_909, 11, 1024, 6, 1001));
        // 30.40 -> 31; T = 1.
        assert_eq!(row(l(8_000_000)), (31, 258_064, 31, 1 << 30, 1, 6001));
        // M must exceed W / ln 2 = 8656.2 (line 5).
        assert!(matches!(
            running_counter_layout(8656, 6000),
            Err(Error::BudgetTooSmall {
                needed_bits: 8657,
                ..
            })
        ));
        assert!(running_counter_layout(8657, 6000).is_ok());
        assert!(
            running_counter_layout(1 << 30, 6000).is_err(),
            "d = 352 bits"
        );
        let p = BDbfParams {
            schedule: Schedule::RunningCounter,
            ..BDbfParams::default()
        };
        assert_eq!(BDbf::memory_bits_for(1_000_000, &p).unwrap(), 90_909 * 11);
        for bad in [
            BDbfParams {
                k: Some(3),
                ..p.clone()
            },
            BDbfParams {
                blocks: Some(9),
                ..p.clone()
            },
            BDbfParams {
                cell_bits: 8,
                ..p.clone()
            },
        ] {
            assert!(matches!(
                BDbf::new(1_000_000, &bad, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
        // Scaled runs divide the window with the memory, keeping d, k and Th.
        let scaled = <BDbf as crate::Structure>::scaled_params(&p, 64);
        assert_eq!(scaled.window, 94);
        assert_eq!(row(running_counter_layout(15_625, 94).unwrap()).0, 11);
    }

    /// `src/filter_bdb.cpp` of the QHT paper's benchmark code (commit 4d600e2), transcribed
    /// line by line (`Lookup` lines 22-33, `Insert` lines 35-61).
    fn authors_bdbf(budget: u64, window: u64, hashes: &[u64]) -> Vec<bool> {
        let d = (budget as f64 * std::f64::consts::LN_2 / window as f64)
            .sqrt()
            .ceil() as u32;
        let array_size = budget / u64::from(d);
        let mut bdbf = vec![0u64; array_size as usize];
        let local_threshold = 1u64 << (d - 1);
        let k = d;
        let iteration_threshold = (window as f64 / ((1u64 << (d - 1)) as f64 - 1.0)).ceil() as u64;
        let (mut running_counter, mut iteration) = (0u64, 0u64);
        let mut out = Vec::new();
        for &h in hashes {
            let dh = DoubleHash::new(h);
            let cells: Vec<usize> = (0..k).map(|i| dh.index(i, array_size) as usize).collect();
            let detected = !cells.iter().any(|&c| bdbf[c] < running_counter);
            if iteration % iteration_threshold == 0 {
                running_counter = (running_counter + 1) % local_threshold;
                if running_counter == 0 {
                    for cell in bdbf.iter_mut() {
                        if *cell <= local_threshold {
                            *cell = 0;
                        } else {
                            *cell -= local_threshold;
                        }
                    }
                }
            }
            for &c in &cells {
                bdbf[c] = window / iteration_threshold + running_counter + 1;
            }
            iteration += 1;
            out.push(detected);
        }
        out
    }

    #[test]
    fn running_counter_reproduces_the_authors_code_verdict_by_verdict() {
        let p = |window| BDbfParams {
            window,
            schedule: Schedule::RunningCounter,
            ..BDbfParams::default()
        };
        // d = 2, 4, 4, 11; streams long enough for several wraps of the running counter.
        for (budget, window, universe) in [
            (10_000u64, 6000u64, 20_000u64),
            (100_000, 6000, 50_000),
            (3_000, 500, 4_000),
            (1_000_000, 6000, 1 << 20),
        ] {
            let hashes: Vec<u64> = (0..60_000u64)
                .map(|i| hash_key(mix64(i ^ budget) % universe, 4))
                .collect();
            let want = authors_bdbf(budget, window, &hashes);
            let mut f = BDbf::new(budget, &p(window), 0).unwrap();
            let got: Vec<bool> = hashes.iter().map(|&h| f.step(h)).collect();
            assert_eq!(got, want, "budget {budget}, window {window}");
            // The arrivals while the running counter is 0 (the first, then T of every T·Th:
            // it wraps at arrival (Th − 1)·T, after that arrival's lookup) are all DUPLICATE,
            // whatever the element.
            let l = running_counter_layout(budget, window).unwrap();
            assert!(got[0]);
            let start = ((l.threshold - 1) * l.period + 1) as usize;
            let end = (l.threshold * l.period) as usize;
            if end < got.len() {
                assert!(got[start..=end].iter().all(|&x| x), "budget {budget}");
            }
        }
    }

    #[test]
    fn swar_decay_matches_per_lane_saturating_decrement() {
        let mut s = 1u64;
        for _ in 0..10_000 {
            s = mix64(s);
            for w in [2u32, 4, 8, 16] {
                // Sparse-ish words so zero lanes are common.
                let x = s & mix64(s ^ 7);
                let mut got = [x];
                match w {
                    2 => decay_words::<2>(&mut got),
                    4 => decay_words::<4>(&mut got),
                    8 => decay_words::<8>(&mut got),
                    _ => decay_words::<16>(&mut got),
                }
                let mask = (1u64 << w) - 1;
                let want = (0..64 / w).fold(0u64, |acc, lane| {
                    let v = (x >> (lane * w)) & mask;
                    acc | (v.saturating_sub(1) << (lane * w))
                });
                assert_eq!(got[0], want, "w {w} x {x:#x}");
            }
        }
    }

    #[test]
    fn every_block_is_decayed_once_per_round_and_blocks_tile_the_array() {
        for (words, blocks) in [(10u64, 3u64), (3, 10), (64, 64), (1000, 429), (1, 1)] {
            let p = BDbfParams {
                window: 14 * blocks,
                cell_bits: 4,
                blocks: Some(blocks),
                k: Some(1),
                schedule: Schedule::Blocks,
            };
            let mut f = BDbf::new(words * 64, &p, 0).unwrap();
            let mut seen = vec![0u32; words as usize];
            for _ in 0..2 * blocks {
                let (start, blk) = (f.block_start, f.block);
                f.decay_step();
                let end = if f.block == 0 { words } else { f.block_start };
                assert_eq!(start, blk * words / blocks);
                for w in start..end {
                    seen[w as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 2), "{words} {blocks}: {seen:?}");
        }
    }

    /// Sliding-window model test: verdicts of `f` on a stream with repeats at many gaps.
    /// Every repeat with gap ≤ W must be detected (exact). Repeats with gap ≥ forget_gap are
    /// detected at the same rate as first occurrences (both are the "all k counters rewritten
    /// by others" event): compared with a two-sample 5-sd bound.
    fn check_window(
        budget: u64,
        p: &BDbfParams,
        universe: u64,
        t: usize,
        seed: u64,
    ) -> (u64, f64, f64) {
        let mut f = BDbf::new(budget, p, seed).unwrap();
        let fg = forget_gap(p.window, f.blocks());
        let mut last: HashMap<u64, usize> = HashMap::new();
        let (mut within, mut old, mut old_pos, mut fresh, mut fresh_pos) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut s = seed;
        for pos in 0..t {
            s = mix64(s);
            // Gaps spread over 0..~3W: a hot set hit a quarter of the time plus a universe.
            let key = if s.is_multiple_of(4) {
                s % (p.window / 4).max(1)
            } else {
                (s >> 8) % universe
            };
            let got = f.step(hash_key(key, seed));
            match last.insert(key, pos) {
                Some(prev) if (pos - prev) as u64 <= p.window => {
                    assert!(got, "false negative within the window: gap {}", pos - prev);
                    within += 1;
                }
                Some(prev) if (pos - prev) as u64 >= fg => {
                    old += 1;
                    old_pos += u64::from(got);
                }
                Some(_) => {}
                None => {
                    fresh += 1;
                    fresh_pos += u64::from(got);
                }
            }
        }
        let (ro, rf) = (old_pos as f64 / old as f64, fresh_pos as f64 / fresh as f64);
        let pooled = (old_pos + fresh_pos) as f64 / (old + fresh) as f64;
        let sd = (pooled * (1.0 - pooled) * (1.0 / old as f64 + 1.0 / fresh as f64)).sqrt();
        assert!(old > 2000 && fresh > 2000, "too few samples: {old} {fresh}");
        assert!(
            (ro - rf).abs() <= 5.0 * sd + 1e-9,
            "old-repeat rate {ro} vs fresh FP rate {rf} (sd {sd})"
        );
        (within, ro, rf)
    }

    #[test]
    fn window_property_against_a_sliding_window_model() {
        // Small memory (FP rates of several percent) and large memory (FP ~ 0), several
        // schedules, including B not dividing W, B > W, and wide cells.
        let cases = [
            (
                1u64 << 13,
                BDbfParams {
                    window: 300,
                    cell_bits: 4,
                    blocks: None,
                    k: Some(3),
                    schedule: Schedule::Blocks,
                },
                40_000u64,
            ),
            (
                1 << 18,
                BDbfParams {
                    window: 300,
                    cell_bits: 2,
                    blocks: None,
                    k: None,
                    schedule: Schedule::Blocks,
                },
                40_000,
            ),
            (
                1 << 15,
                BDbfParams {
                    window: 500,
                    cell_bits: 8,
                    blocks: Some(7),
                    k: Some(2),
                    schedule: Schedule::Blocks,
                },
                40_000,
            ),
            (
                1 << 16,
                BDbfParams {
                    window: 200,
                    cell_bits: 2,
                    blocks: Some(1000),
                    k: Some(4),
                    schedule: Schedule::Blocks,
                },
                40_000,
            ),
        ];
        for (i, (budget, p, universe)) in cases.iter().enumerate() {
            let (within, ro, rf) = check_window(*budget, p, *universe, 120_000, i as u64 + 1);
            assert!(within > 10_000, "{within}");
            if *budget == 1 << 18 {
                assert!(ro < 1e-3 && rf < 1e-3, "large memory: {ro} {rf}");
            }
        }
    }

    #[test]
    fn lifetime_is_exactly_w_plus_the_phase_of_the_first_visited_cell() {
        // An element x inserted at t0 in a large, nearly empty filter, followed by g - 1 fresh
        // elements, is detected at t0 + g iff g <= min_i d_i + ceil(W/B)·B, where d_i is the
        // phase of x's i-th cell (the arrivals until its block is next decayed) — provided no
        // other element wrote one of x's cells, which is checked (and such trials skipped).
        let p = BDbfParams {
            window: 100,
            cell_bits: 4,
            blocks: Some(9),
            k: Some(3),
            schedule: Schedule::Blocks,
        };
        let (w, b) = (p.window, 9u64);
        let mut tested = 0;
        for trial in 0..60u64 {
            let mut f = BDbf::new(1 << 20, &p, 0).unwrap();
            let warm = mix64(trial) % 50;
            for j in 0..warm {
                f.step(hash_key((1 << 40) + j, trial));
            }
            let x = hash_key(trial, 99);
            let t0 = f.arrivals;
            let cells: Vec<u64> = DoubleHash::new(x).indices(f.k(), f.m()).collect();
            let threshold = cells
                .iter()
                .map(|&c| (f.block_of(c) + b - t0 % b) % b)
                .min()
                .unwrap()
                + w.div_ceil(b) * b;
            assert!(threshold >= w && threshold < forget_gap(w, b));
            f.step(x);
            let mut clean = true;
            for g in 1..=forget_gap(w, b) + 5 {
                if g > 1 {
                    let y = hash_key((2 << 40) + g, trial);
                    clean &= DoubleHash::new(y)
                        .indices(f.k(), f.m())
                        .all(|c| !cells.contains(&c));
                    f.step(y);
                }
                if clean {
                    let mut probe = f.clone();
                    assert_eq!(
                        probe.step(x),
                        g <= threshold,
                        "trial {trial} gap {g} threshold {threshold}"
                    );
                }
            }
            tested += u32::from(clean);
        }
        assert!(tested > 50, "{tested}");
    }

    #[test]
    fn step_batch_equals_step_and_seeds_are_deterministic() {
        let hashes: Vec<u64> = (0..50_000u64)
            .map(|i| hash_key(mix64(i) % 5000, 5))
            .collect();
        let p = BDbfParams {
            window: 1000,
            ..BDbfParams::default()
        };
        let mut a = BDbf::new(1 << 14, &p, 1).unwrap();
        let mut b = BDbf::new(1 << 14, &p, 1).unwrap();
        let one: Vec<bool> = hashes.iter().map(|&h| a.step(h)).collect();
        let mut batch = vec![false; hashes.len()];
        b.step_batch(&hashes, &mut batch);
        assert_eq!(one, batch);
        assert_eq!(a.words, b.words);
        let z = a.occupancy().value;
        let recount = (0..a.m()).filter(|&i| a.get(i) == 0).count() as f64 / a.m() as f64;
        assert!((z - recount).abs() < 1e-12);
    }

    #[test]
    fn memory_within_budget_on_a_grid() {
        let grid = [
            BDbfParams::default(),
            BDbfParams {
                window: 10,
                cell_bits: 2,
                blocks: None,
                k: Some(3),
                schedule: Schedule::Blocks,
            },
            BDbfParams {
                window: 1 << 20,
                cell_bits: 16,
                blocks: Some(1 << 10),
                k: None,
                schedule: Schedule::Blocks,
            },
        ];
        for e in 10..=32 {
            for budget in [1u64 << e, (1u64 << e) + 7, (1u64 << e) - 1] {
                for p in &grid {
                    let bits = BDbf::memory_bits_for(budget, p).unwrap();
                    assert!(bits <= budget && budget - bits < 64);
                }
            }
        }
        let f = BDbf::new(10_000, &BDbfParams::default(), 0).unwrap();
        assert_eq!(
            (
                f.memory_bits(),
                f.m(),
                f.blocks(),
                f.insert_value(),
                f.name()
            ),
            (9984, 2496, 429, 15, "bdbf")
        );
        assert_eq!(f.params()[0].to_string(), "window=6000");
    }

    #[test]
    fn invalid_params_are_errors() {
        let ok = BDbfParams::default();
        let bad = [
            BDbfParams {
                cell_bits: 3,
                ..ok.clone()
            },
            BDbfParams {
                cell_bits: 1,
                ..ok.clone()
            },
            BDbfParams {
                window: 0,
                ..ok.clone()
            },
            BDbfParams {
                blocks: Some(0),
                ..ok.clone()
            },
            BDbfParams {
                blocks: Some(100),
                ..ok.clone()
            }, // V = 61 > 15
            BDbfParams {
                k: Some(0),
                ..ok.clone()
            },
            BDbfParams {
                k: Some(65),
                ..ok.clone()
            },
        ];
        for p in &bad {
            assert!(
                matches!(
                    BDbf::new(1 << 12, p, 0),
                    Err(Error::InvalidParameter { .. })
                ),
                "{p:?}"
            );
        }
        assert!(matches!(
            BDbf::new(63, &ok, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        assert!(matches!(
            BDbf::memory_bits_for(u64::MAX, &ok),
            Err(Error::CapacityTooLarge { .. })
        ));
    }
}
