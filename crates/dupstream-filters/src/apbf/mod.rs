//! Age-Partitioned Bloom Filters (APBF): Shtul, Baquero, Almeida, *Age-Partitioned Bloom
//! Filters*, arXiv 2001.03147 (2020), a sliding-window duplicate detector; and its blocked
//! variant, the Age-Partitioned Blocked Bloom Filter (registry name `apbf_blocked`).
//!
//! **Structure.** `k + l` slices of `m` bits each, logically ordered from the newest (position
//! 0) to the oldest (position `k + l − 1`). An insertion sets one bit in each of the `k` newest
//! slices (positions `0..k`). Every `g` insertions a *generation* ends: the slices shift by one
//! position, the oldest is discarded and a new empty slice becomes position 0 (physically a
//! ring: only the base index moves and the recycled slice is cleared). A query answers
//! *present* iff some `k` consecutive slices all have the element's bit set. A duplicate
//! detector runs query-then-insert on each element (the QHT paper's `Insert ∘ Detect`).
//!
//! **Window.** An element inserted as the `c`-th of its generation keeps all `k` bits for the
//! next `g − c + l·g` insertions, so a re-occurrence at gap `d` (the windowed truth's distance
//! to the previous occurrence) is always reported when `d ≤ l·g + 1`
//! ([`guaranteed_window`]), is reported for some phases up to `d = (l+1)·g` ([`max_window`]),
//! and after that only when a run of `k` matching slices still forms by chance. The slack is
//! the `g − 1` gaps between the two and the probabilistic tail beyond; [`detection_probability`]
//! gives the chance of a report at every gap and phase.
//!
//! **False positive rate.** A non-member is reported iff its `k + l` probed bits contain a run
//! of `k` ones. With independent slices of fill ratios `r_0 .. r_{k+l−1}` this is the run
//! probability the paper computes by the recursion
//! `F(a, i) = 1 if a = k; 0 if i > l + a; r_i·F(a+1, i+1) + (1 − r_i)·F(0, i+1)`,
//! evaluated here forward over run lengths ([`run_probability`]). The paper's design values
//! take `r_i = (i+1)/(2k)` for the `k` filling slices and `1/2` for the `l` full ones
//! ([`paper_fill_ratios`], [`false_positive_rate`]): slices of `m = k·g/ln 2` bits reach fill
//! 1/2 after the `k·g` insertions they receive. The exact fills of a slice of `m` bits after
//! `n` insertions, `1 − (1 − 1/m)^n`, give the rate at each point of a generation
//! ([`expected_fill_ratios`], [`false_positive_rate_at`]); the paper's value lies between the
//! rates at the start and at the end of a generation (tested).
//!
//! **Sizing.** From a memory budget: `m = ⌊budget / (k + l)⌋` and, unless `g` or a `window` is
//! given, the paper's `g = ⌊m·ln 2 / k⌋`. From a window: `g = ⌈(W − 1)/l⌉` so that
//! [`guaranteed_window`] `≥ W`. From (window, FPR): [`config_for_fpr`] picks the `(k, l)` of least
//! memory per window element whose [`false_positive_rate`] meets the target, and
//! [`WindowSizing`] the `g`, `m` and bits.
//!
//! **Blocked variant.** Each slice is cut into `m/64` blocks of one 64-bit word, and block `b`
//! of all `k + l` slices is stored contiguously (`(k + l)` words per block, block 0 on a 64-byte
//! line). An element maps to one block `b` by one hash and sets/probes one bit of that block's
//! word in each slice, so a step (query then insertion) reads and writes the `k + l` words of
//! one block: one or two cache lines when `k + l ≤ 9` (1.75 on average at `(4, 3)`), two at
//! `(7, 5)` (its 96-byte blocks start at 0 or 32 bytes into a line), two or three up to 17
//! slices ([`cells_per_element`] averages them). A shift clears word `j` of every block (a
//! strided pass, once per `g` insertions). Blocks receive unequal loads (Poisson with mean
//! `g·64/m` per generation), which raises the rate above the unblocked one;
//! [`blocked_false_positive_rate`] evaluates that model. A filter much larger than its
//! generation ([`blocked_tiled`]: its interleaved shift would touch more lines per element than
//! `k + l`) stores the same words *tiled* instead: 64 consecutive blocks per tile, each slice's
//! 64 words of a tile contiguous. A step then touches `k + l` lines, one per slice, and a shift
//! an eighth as many lines as interleaved, which it writes with non-temporal stores without
//! reading them (each slice's bits are counted as they are set). Only where a word lives
//! changes: the bits, and so the verdicts, are the same (tested).
//!
//! **Speed.** A step within a generation is fused: the insertion's `k` cells are read before
//! being set and answer the query's probes below position `k`; a plain filter in cache
//! (≤ 1 MiB) then reads the other `l` bits and finds a run of `k` ones in a mask without
//! branches, a larger one scans on with the paper's early exit (each probe saved is a line not
//! fetched); a blocked one reads its block into a mask and sets the insertion's bits in the
//! same pass over its words (`k + l ≤ 64`; only the insertion's `k` words are written, so a
//! line it does not set stays clean), every line of the block prefetched. The step that
//! ends a generation, and blocked filters of more than 64 slices, query then insert as above
//! (same verdicts and state, tested). A blocked batch steps a generation's elements in one run,
//! the filter's fields in locals, its step unrolled with `(k, l)` (and for (4, 3) and (7, 5)
//! the head) literal, and prefetches only above
//! [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS), a block's first and last words when
//! they span its lines (no loop with a trip count to mispredict). Each plain slice keeps its count of set bits, so a shift
//! writes its slice without reading it (a memset); a blocked filter keeps the total instead,
//! and its shift reads word `j` of every block, counting its bits, and writes only non-zero
//! ones when the slices are sparse (a tiled one writes the slice's lines unread, as above).
//! The clearing, `m/g` bits per element, is inherent and dominates out of cache in a filter
//! much larger than its window ([`cleared_lines_per_element`]).
//!
//! Readings (the paper's full text was not available here; its abstract, and the public
//! implementations that cite it — CrowdStrike's Go `apbf`, decred's `container/apbf`, and
//! RedisBloom's `agingBloom.c` by the paper's first author — were read instead; these state
//! the recursion above, the `m = k·g/ln 2` sizing, and the `(k, l)` table):
//! - Each physical slice `j` has its own index function (double hashing with index `j`), as in
//!   the two Go implementations; RedisBloom instead cycles `k` functions over the slices. Any
//!   `k` consecutive slices use distinct functions either way, but on streams with repeats
//!   RedisBloom's shared functions lower the rate (2.7 % at (4, 3): crate README, Conformance).
//! - The shift happens when an insertion finds the generation full (before inserting), and the
//!   query of an element precedes its insertion; this fixes the window bounds above.
//! - The blocked layout is our reading of the abstract's "2–3 cache-line accesses per insertion
//!   and around 2–4 per query"; the paper's exact block geometry may differ. One line per
//!   insertion would need the block of all `k + l` slices in one line: a line-aligned block of
//!   at most 8 words leaves `8 − (k + l)` words of each line unused (`(4, 3)`: 1/8 more memory
//!   for the same `m`), or a block of 512 bits split `⌊512/(k + l)⌋` bits per slice changes
//!   which cells an element maps to, and so the verdicts. Neither is this structure.
//! - Occupancy is the load (fraction of bits set over all slices), kept as a running count.

use crate::error::{Error, Result, ensure};
use crate::hash::{DoubleHash, reduce, rehash};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};
use std::f64::consts::LN_2;

mod analysis;
pub use analysis::*;

/// Largest accepted `k`.
pub const MAX_K: u32 = 64;
/// Largest accepted `l`.
pub const MAX_L: u32 = 4096;

/// Parameters of an [`Apbf`]. Give `k` and `l`, or `fpr` (then `(k, l)` =
/// [`config_for_fpr`]); give at most one of `g` and `window`.
///
/// ```toml
/// k = 4
/// l = 3
/// window = 100000   # or g = 33334; neither: g = ⌊m·ln 2 / k⌋ from the budget
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ApbfParams {
    /// `k`: slices set per insertion and consecutive matches required.
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
    /// `l`: extra (aging) slices.
    #[cfg_attr(feature = "serde", serde(default))]
    pub l: Option<u32>,
    /// Target false positive rate choosing `(k, l)` by [`config_for_fpr`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub fpr: Option<f64>,
    /// `g`: insertions per generation.
    #[cfg_attr(feature = "serde", serde(default))]
    pub g: Option<u64>,
    /// The window `W` to guarantee: `g = ⌈(W − 1)/l⌉`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub window: Option<u64>,
}

impl ApbfParams {
    /// `k` and `l`, generation from the budget.
    pub fn with_kl(k: u32, l: u32) -> Self {
        Self {
            k: Some(k),
            l: Some(l),
            ..Self::default()
        }
    }

    /// `k` and `l` guaranteeing a window of `window` elements.
    pub fn for_window(k: u32, l: u32, window: u64) -> Self {
        Self {
            window: Some(window),
            ..Self::with_kl(k, l)
        }
    }
}

// Here rather than in `analysis`, which the parameters do not depend on: `analysis` uses
// nothing of this module.
impl WindowSizing {
    /// The parameters that rebuild this sizing from its [`bits`](Self::bits) budget.
    pub fn params(&self) -> ApbfParams {
        ApbfParams {
            k: Some(self.k),
            l: Some(self.l),
            fpr: None,
            g: Some(self.g),
            window: None,
        }
    }
}

/// Memory layout: plain slices, or 64-bit blocks interleaved across slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Plain,
    Blocked,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Self::Plain => "apbf",
            Self::Blocked => "apbf_blocked",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Resolved {
    k: u32,
    l: u32,
    g: u64,
    m: u64,
}

fn resolve(budget_bits: u64, p: &ApbfParams, layout: Layout) -> Result<Resolved> {
    let name = layout.name();
    let (k, l) = match (p.k, p.l, p.fpr) {
        (Some(k), Some(l), None) => (k, l),
        (None, None, Some(fpr)) => {
            ensure(fpr > 1e-9 && fpr < 1.0, "fpr", fpr, "must be in (1e-9, 1)")?;
            config_for_fpr(fpr)
        }
        _ => {
            return Err(Error::InvalidParameter {
                name: "k",
                value: format!("{:?}/{:?}/{:?}", p.k, p.l, p.fpr),
                reason: "give `k` and `l`, or `fpr` alone".into(),
            });
        }
    };
    ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=64")?;
    ensure((1..=MAX_L).contains(&l), "l", l, "must be in 1..=4096")?;
    let slices = u64::from(k + l);
    let unit = match layout {
        Layout::Plain => 1,
        Layout::Blocked => 64,
    };
    let m = budget_bits / slices / unit * unit;
    if m == 0 {
        return Err(Error::BudgetTooSmall {
            structure: name,
            budget_bits,
            needed_bits: slices * unit,
        });
    }
    let g = match (p.g, p.window) {
        (Some(g), None) => {
            ensure(g >= 1, "g", g, "must be at least 1")?;
            g
        }
        (None, Some(w)) => {
            ensure(w >= 1, "window", w, "must be at least 1")?;
            g_for_window(w, l)
        }
        (None, None) => ((m as f64 * LN_2 / f64::from(k)).floor() as u64).max(1),
        (Some(_), Some(_)) => {
            return Err(Error::InvalidParameter {
                name: "g",
                value: format!("{:?}", p.g),
                reason: "give at most one of `g` and `window`".into(),
            });
        }
    };
    crate::error::words_for_bits(name, slices * m)?;
    Ok(Resolved { k, l, g, m })
}

/// An Age-Partitioned Bloom Filter, plain or blocked (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, apbf::{Apbf, ApbfParams}, hash::hash_key};
/// // k = 4, l = 3, window 1000: every re-occurrence within 1000 elements is reported.
/// let mut f = Apbf::new(1 << 16, &ApbfParams::for_window(4, 3, 1000), 0).unwrap();
/// for key in 0..5000u64 {
///     f.step(hash_key(key, 0));
///     if key >= 999 {
///         assert!(f.contains(hash_key(key - 999, 0)));
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Apbf {
    /// Blocked: [`LINE_WORDS`]` − 1` words more than the slices need, so that they can start
    /// on a cache line, at `words[base]`.
    words: Vec<u64>,
    /// Blocked: the index of the first word of block 0, on a 64-byte boundary in the
    /// allocation this filter was built with (a clone keeps the index, and its answers, but
    /// not necessarily the alignment). Plain: 0.
    base: usize,
    layout: Layout,
    k: u32,
    l: u32,
    /// `k + l`.
    s: usize,
    g: u64,
    /// Bits per slice.
    m: u64,
    /// Words per slice (plain) or blocks (blocked).
    stride: usize,
    /// Physical index of logical slice 0 (the newest).
    head: usize,
    /// Insertions in the current generation.
    count: u64,
    /// Plain and tiled: bits set in each physical slice (so that a shift need not count the
    /// slice it clears; plain: their sum is the occupancy). Interleaved: unused (empty).
    slice_ones: Vec<u64>,
    /// Blocked: bits set in all slices (an interleaved shift counts the words it clears).
    /// Plain: unused (0).
    ones: u64,
    /// Plain: the query reads every slice's bit (at most 64 slices, in cache) rather than
    /// scanning with early exit.
    probe_all: bool,
    /// Blocked: the blocks are stored tiled ([`blocked_tiled`]): [`TILE_BLOCKS`] (64) blocks
    /// per tile, each slice's 64 words of a tile contiguous (eight lines; the last tile may be
    /// shorter). Otherwise interleaved: block `b`'s `k + l` words contiguous. Plain: false.
    tiled: bool,
}

const BLOCK_SALT: u64 = 0xb10c_ed5a_17ab_1e00;

impl Apbf {
    /// A plain APBF within `budget_bits`. APBFs draw no random numbers; `seed` is unused.
    pub fn new(budget_bits: u64, params: &ApbfParams, seed: u64) -> Result<Self> {
        Self::build(budget_bits, params, seed, Layout::Plain)
    }

    /// A blocked APBF within `budget_bits` (registry name `apbf_blocked`).
    pub fn new_blocked(budget_bits: u64, params: &ApbfParams, seed: u64) -> Result<Self> {
        Self::build(budget_bits, params, seed, Layout::Blocked)
    }

    fn build(budget_bits: u64, params: &ApbfParams, seed: u64, layout: Layout) -> Result<Self> {
        let _ = seed;
        let r = resolve(budget_bits, params, layout)?;
        let s = (r.k + r.l) as usize;
        let stride = match layout {
            Layout::Plain => r.m.div_ceil(64) as usize,
            Layout::Blocked => (r.m / 64) as usize,
        };
        let tiled = layout == Layout::Blocked && blocked_tiled(r.k, r.l, r.m, r.g);
        let n_words = stride.checked_mul(s).ok_or(Error::CapacityTooLarge {
            structure: layout.name(),
            bits: u64::MAX,
        })?;
        // A large array comes from the system allocator 16 bytes past a page boundary: a block
        // of (k + l) words must start where the analysis (`cells_per_element`) counts its
        // lines, at a word offset of b·(k + l) from a line boundary.
        let (words, base) = match layout {
            Layout::Plain => (crate::raw::zeroed_words(n_words), 0),
            Layout::Blocked => {
                let w = crate::raw::zeroed_words(n_words + LINE_WORDS - 1);
                let misaligned = (w.as_ptr() as usize / 8) % LINE_WORDS;
                (w, (LINE_WORDS - misaligned) % LINE_WORDS)
            }
        };
        Ok(Self {
            words,
            base,
            layout,
            k: r.k,
            l: r.l,
            s,
            g: r.g,
            m: r.m,
            stride,
            head: 0,
            count: 0,
            slice_ones: match layout {
                Layout::Blocked if !tiled => vec![],
                _ => vec![0; s],
            },
            ones: 0,
            probe_all: s <= 64 && n_words <= IN_CACHE_WORDS,
            tiled,
        })
    }

    /// The state size a plain APBF built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &ApbfParams) -> Result<u64> {
        resolve(budget_bits, params, Layout::Plain).map(|r| u64::from(r.k + r.l) * r.m)
    }

    /// The state size a blocked APBF built with this budget would have (no allocation).
    pub fn memory_bits_for_blocked(budget_bits: u64, params: &ApbfParams) -> Result<u64> {
        resolve(budget_bits, params, Layout::Blocked).map(|r| u64::from(r.k + r.l) * r.m)
    }

    /// [`cells_per_element`] and [`cleared_lines_per_element`] of an APBF built with this
    /// budget, plain or `blocked` (`None` if it cannot be built).
    pub fn cells_for(budget_bits: u64, params: &ApbfParams, blocked: bool) -> Option<(f64, f64)> {
        let layout = if blocked {
            Layout::Blocked
        } else {
            Layout::Plain
        };
        let r = resolve(budget_bits, params, layout).ok()?;
        Some((
            cells_per_element(r.k, r.l, r.m, r.g, blocked),
            cleared_lines_per_element(r.k, r.l, r.m, r.g, blocked),
        ))
    }

    /// A plain APBF sized by [`WindowSizing::new`]`(window, fpr)`.
    pub fn for_window_fpr(window: u64, fpr: f64) -> Result<Self> {
        let sizing = WindowSizing::new(window, fpr);
        Self::new(sizing.bits, &sizing.params(), 0)
    }

    /// `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// `l`.
    pub fn l(&self) -> u32 {
        self.l
    }
    /// `g`, insertions per generation.
    pub fn g(&self) -> u64 {
        self.g
    }
    /// `m`, bits per slice.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Insertions so far in the current generation.
    pub fn phase(&self) -> u64 {
        self.count
    }

    /// Bits set over all slices, as kept by the filter (O(1) blocked, O(k + l) plain).
    pub fn set_bits(&self) -> u64 {
        match self.layout {
            Layout::Plain => self.slice_ones.iter().sum(),
            Layout::Blocked => self.ones,
        }
    }

    /// Fill ratio of each logical slice (0 = newest), counted (O(memory)).
    pub fn fill_ratios(&self) -> Vec<f64> {
        (0..self.s)
            .map(|pos| {
                let phys = self.physical(pos);
                let ones: u64 = match self.layout {
                    Layout::Plain => self.words[phys * self.stride..(phys + 1) * self.stride]
                        .iter()
                        .map(|w| u64::from(w.count_ones()))
                        .sum(),
                    Layout::Blocked => (0..self.stride)
                        .map(|b| {
                            let (start, step) = self.block_start(b);
                            u64::from(self.words[start + phys * step].count_ones())
                        })
                        .sum(),
                };
                ones as f64 / self.m as f64
            })
            .collect()
    }

    #[inline(always)]
    fn physical(&self, pos: usize) -> usize {
        let p = self.head + pos;
        if p >= self.s { p - self.s } else { p }
    }

    /// Word index and mask of `hash`'s bit in physical slice `phys`.
    #[inline(always)]
    fn locate(&self, hash: u64, dh: &DoubleHash, block: usize, phys: usize) -> (usize, u64) {
        match self.layout {
            Layout::Plain => {
                let _ = (hash, block);
                let i = dh.index(phys as u32, self.m);
                (phys * self.stride + (i >> 6) as usize, 1u64 << (i & 63))
            }
            Layout::Blocked => {
                let _ = dh;
                // Six independent bits per slice: ten slices per 64-bit mix. (Double hashing
                // into 64 positions correlates an element's bits in consecutive slices, which
                // measurably raised the rate above the model.)
                let chunk = rehash(hash, BLOCK_SALT ^ (phys / 10) as u64);
                let i = (chunk >> ((phys % 10) * 6)) & 63;
                let (start, step) = self.block_start(block);
                (start + phys * step, 1u64 << i)
            }
        }
    }

    /// Blocked: the index of block `b`'s word in physical slice 0, and the distance from one
    /// slice's word to the next (1 interleaved, [`TILE`] in a full tile). The blocks past the
    /// last full tile form a last tile of their own, as many words per slice as they are.
    #[inline(always)]
    fn block_start(&self, b: usize) -> (usize, usize) {
        block_start(self.base, self.stride, self.s, self.tiled, b)
    }

    /// The distance between a block's words of consecutive slices in a full tile (tiled) or
    /// any block (interleaved).
    #[inline(always)]
    fn word_step(&self) -> usize {
        if self.tiled { TILE } else { 1 }
    }

    #[inline(always)]
    fn hashes(&self, hash: u64) -> (DoubleHash, usize) {
        match self.layout {
            Layout::Plain => (DoubleHash::new(hash), 0),
            Layout::Blocked => (
                DoubleHash::new(hash),
                reduce(hash, self.stride as u64) as usize,
            ),
        }
    }

    /// Query without insertion: true iff some `k` consecutive slices have `hash`'s bit set.
    ///
    /// Scans as the paper does: start at logical position `l` (leaving exactly `k` slices),
    /// extend a run forwards on a match, and on a miss at position `p` jump back to `p − k`
    /// carrying the matches already found after it.
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        let (dh, block) = self.hashes(hash);
        jump_scan(self.k as usize, self.l as usize, |pos| {
            let (w, mask) = self.locate(hash, &dh, block, self.physical(pos));
            self.words[w] & mask != 0
        })
    }

    /// Inserts `hash` into the `k` newest slices, shifting first if the generation is full.
    #[inline]
    pub fn insert(&mut self, hash: u64) {
        if self.count == self.g {
            self.shift();
        }
        self.count += 1;
        let (dh, block) = self.hashes(hash);
        for pos in 0..self.k as usize {
            let phys = self.physical(pos);
            let (w, mask) = self.locate(hash, &dh, block, phys);
            let word = &mut self.words[w];
            let new = u64::from(*word & mask == 0);
            match self.layout {
                Layout::Plain => self.slice_ones[phys] += new,
                Layout::Blocked => {
                    self.ones += new;
                    if let Some(ones) = self.slice_ones.get_mut(phys) {
                        *ones += new;
                    }
                }
            }
            *word |= mask;
        }
    }

    /// Ends the generation: the oldest slice is cleared and becomes the newest.
    pub fn shift(&mut self) {
        self.head = if self.head == 0 {
            self.s - 1
        } else {
            self.head - 1
        };
        let phys = self.head;
        match self.layout {
            // A contiguous memset: written, never read.
            Layout::Plain => self.words[phys * self.stride..(phys + 1) * self.stride].fill(0),
            // Word `phys` of every block, prefetched ahead, its set bits counted. When the
            // slices are sparse (fewer set bits on average than an eighth of a slice's words)
            // only non-zero words are written, so most lines are read and left clean (no
            // write-back); otherwise every word is written, without a branch on its value.
            // Tiled: the slice's line of every tile, zeroed by non-temporal stores: written,
            // never read (its bits are counted in `slice_ones`).
            Layout::Blocked if self.tiled => {
                let span = TILE * self.s;
                let first = self.base + phys * TILE;
                let full = self.stride / TILE;
                for t in 0..full {
                    let at = first + t * span;
                    for line in self.words[at..at + TILE].chunks_exact_mut(LINE_WORDS) {
                        crate::raw::stream_zero_line(line);
                    }
                }
                // The last, partial tile (plain stores where its words do not fill a line).
                let rest = self.stride - full * TILE;
                let at = self.base + full * span + phys * rest;
                for line in self.words[at..at + rest].chunks_mut(LINE_WORDS) {
                    crate::raw::stream_zero_line(line);
                }
                crate::raw::stream_fence();
                self.ones -= self.slice_ones[phys];
            }
            Layout::Blocked => {
                let (s, n) = (self.s, self.stride);
                const AHEAD: usize = 64;
                let sparse = self.ones < (s * n / 8) as u64;
                let mut cleared = 0u64;
                let first = self.base + phys;
                for b in 0..n {
                    crate::raw::prefetch_word(&self.words, first + (b + AHEAD).min(n - 1) * s);
                    let w = &mut self.words[first + b * s];
                    if !sparse || *w != 0 {
                        cleared += u64::from(w.count_ones());
                        *w = 0;
                    }
                }
                self.ones -= cleared;
            }
        }
        if let Some(ones) = self.slice_ones.get_mut(phys) {
            *ones = 0;
        }
        self.count = 0;
    }
}

/// Words in a 64-byte cache line.
const LINE_WORDS: usize = 8;

/// [`TILE_BLOCKS`], short.
const TILE: usize = TILE_BLOCKS;

/// Plain APBFs of at most this many words (1 MiB) read every slice's bit on a query instead of
/// scanning with early exit (same verdict): a core's L2 holds them.
const IN_CACHE_WORDS: usize = 1 << 17;

/// The paper's jump scan over logical positions `0..=l + k − 1`: start at position `l` (leaving
/// exactly `k` slices), extend a run forwards on a match, and on a miss at position `p` jump
/// back to `p − k`, carrying the matches already found after it; true once `k` consecutive
/// positions match. `bit(pos)` is whether the element's bit is set at logical position `pos`.
#[inline(always)]
fn jump_scan(k: usize, l: usize, mut bit: impl FnMut(usize) -> bool) -> bool {
    let k = k as isize;
    let mut cursor = l as isize;
    let (mut done, mut carry) = (0isize, 0isize);
    while cursor >= 0 {
        if bit(cursor as usize) {
            done += 1;
            if done + carry == k {
                return true;
            }
            cursor += 1;
        } else {
            cursor -= k;
            carry = done;
            done = 0;
        }
    }
    false
}

/// True iff `x` has a run of at least `k ≥ 1` consecutive ones: after each step bit `i` of
/// `x` says that bits `i .. i + len` were all set; the run length doubles up to `k`.
#[inline(always)]
fn has_run(mut x: u64, k: u32) -> bool {
    let mut len = 1;
    while len < k {
        let shift = (k - len).min(len);
        x &= x >> shift;
        len += shift;
    }
    x != 0
}

impl Apbf {
    /// Query then insert (the step), the straightforward way: [`contains`](Self::contains), then
    /// [`insert`](Self::insert). [`step`](DuplicateFilter::step) takes it at the end of a
    /// generation and, blocked, beyond 64 slices; the fused paths below give the same verdicts
    /// and state (tested).
    #[inline]
    fn step_reference(&mut self, hash: u64) -> bool {
        let dup = self.contains(hash);
        self.insert(hash);
        dup
    }

    /// Plain step within a generation (no shift due): the insertion's `k` cells are read before
    /// they are set, and their old bits serve the query's probes below position `k`, so only
    /// the jump scan's probes at positions `≥ k` read memory of their own. A query whose `k`
    /// newest bits are all set is answered without a scan (the scan would find that run).
    #[inline(always)]
    fn step_plain(&mut self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        let k = self.k as usize;
        let (s, m, stride) = (self.s, self.m, self.stride);
        let mut low = 0u64;
        let mut phys = self.head;
        for pos in 0..k {
            let i = dh.index(phys as u32, m);
            let mask = 1u64 << (i & 63);
            let word = &mut self.words[phys * stride + (i >> 6) as usize];
            let old = u64::from(*word & mask != 0);
            *word |= mask;
            low |= old << pos;
            self.slice_ones[phys] += 1 - old;
            phys += 1;
            if phys == s {
                phys = 0;
            }
        }
        self.count += 1;
        if low == u64::MAX >> (64 - k) {
            return true;
        }
        let words = &self.words;
        if self.probe_all {
            // In cache a probe is cheap and a mispredicted branch is not: read every position
            // and look for a run of k ones without branching on the bits.
            let mut bits = low;
            let mut p = phys;
            for pos in k..s {
                let i = dh.index(p as u32, m);
                bits |= (words[p * stride + (i >> 6) as usize] >> (i & 63) & 1) << pos;
                p += 1;
                if p == s {
                    p = 0;
                }
            }
            return has_run(bits, k as u32);
        }
        // The paper's jump scan (see `contains`), positions below k from `low`: out of cache,
        // every probe it saves is a line not fetched.
        let bit = |pos: usize| -> bool {
            if pos < k {
                low >> pos & 1 == 1
            } else {
                let mut p = self.head + pos;
                if p >= s {
                    p -= s;
                }
                let i = dh.index(p as u32, m);
                words[p * stride + (i >> 6) as usize] >> (i & 63) & 1 == 1
            }
        };
        jump_scan(k, self.l as usize, bit)
    }

    /// Blocked step within a generation with at most 64 slices ([`Generation::step`]).
    ///
    /// `s` and `k` are `self.s` and `self.k`, and `step` the distance between a block's words
    /// of consecutive slices ([`block_start`](Self::block_start)), passed so that a caller
    /// giving literals (see [`Self::blocked_batch`]) gets the body unrolled: each word's bit
    /// position is then a constant shift of its chunk and each word's store branch its own.
    #[inline(always)]
    fn step_blocked(&mut self, hash: u64, s: usize, k: u32, step: usize) -> bool {
        debug_assert!(s == self.s && k == self.k && s <= 64 && step == self.word_step());
        let (start, _) = self.block_start(reduce(hash, self.stride as u64) as usize);
        let gen_ = Generation::new(self.head, s, k);
        let slice_ones = &mut self.slice_ones[..if step == 1 { 0 } else { s }];
        let (dup, new) = gen_.step(&mut self.words, slice_ones, start, hash, s, k, step);
        self.ones += u64::from(new);
        self.count += 1;
        dup
    }

    /// [`step`](DuplicateFilter::step) of a blocked filter with `s = self.s` slices. A tiled
    /// block in the last, partial tile takes the reference step too (its words are not `step`
    /// apart).
    #[inline(always)]
    fn step_blocked_or_reference(&mut self, hash: u64, s: usize, k: u32, step: usize) -> bool {
        let partial = || reduce(hash, self.stride as u64) as usize >= self.stride / TILE * TILE;
        if self.count == self.g || s > 64 || (step != 1 && partial()) {
            self.step_reference(hash)
        } else {
            self.step_blocked(hash, s, k, step)
        }
    }

    /// A blocked filter's batch: the elements of each generation in one run
    /// ([`Self::blocked_run`]), its step inlined and unrolled for `(k, l)` literal at the
    /// paper's configurations (4, 3), (7, 5) and (8, 8) (other `k` with 7, 12 or 16 slices:
    /// `k + l` literal), and each element's block prefetched [`PREFETCH_DISTANCE`] elements
    /// ahead above [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS). Interleaved (4, 3)
    /// and (7, 5) get one copy of the run per head, so that the insertion's words and the
    /// rotation to logical order are constants (`benches/apbf.rs`, (7, 5) at 256 MiB: 1.59
    /// → 1.48× its limit loop). The step that ends a generation takes the reference step.
    /// Same verdicts and state as [`step`](DuplicateFilter::step) element by element (tested).
    ///
    /// [`PREFETCH_DISTANCE`]: crate::PREFETCH_DISTANCE
    fn blocked_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        match (self.k, self.l, self.tiled) {
            (4, 3, false) => self.blocked_batch_with(hashes, out, 7, 4, 1, true),
            (7, 5, false) => self.blocked_batch_with(hashes, out, 12, 7, 1, true),
            (8, 8, false) => self.blocked_batch_with(hashes, out, 16, 8, 1, false),
            (4, 3, true) => self.blocked_batch_with(hashes, out, 7, 4, TILE, false),
            (7, 5, true) => self.blocked_batch_with(hashes, out, 12, 7, TILE, false),
            (8, 8, true) => self.blocked_batch_with(hashes, out, 16, 8, TILE, false),
            (k, _, tiled) => match (self.s, tiled) {
                (7, false) => self.blocked_batch_with(hashes, out, 7, k, 1, false),
                (12, false) => self.blocked_batch_with(hashes, out, 12, k, 1, false),
                (16, false) => self.blocked_batch_with(hashes, out, 16, k, 1, false),
                (s, _) => self.blocked_batch_with(hashes, out, s, k, self.word_step(), false),
            },
        }
    }

    /// [`Self::blocked_batch`] with `s`, `k`, `step` as for [`Self::step_blocked`], and
    /// `by_head`: a copy of the run per head for `(k, l)` = (4, 3) and (7, 5).
    #[inline(always)]
    fn blocked_batch_with(
        &mut self,
        hashes: &[u64],
        out: &mut [bool],
        s: usize,
        k: u32,
        step: usize,
        by_head: bool,
    ) {
        assert!(out.len() >= hashes.len(), "output buffer too short");
        let ahead = if self.memory_bits() > crate::PREFETCH_ABOVE_BITS {
            crate::PREFETCH_DISTANCE
        } else {
            0
        };
        for &h in hashes.iter().take(ahead) {
            self.prefetch(h);
        }
        let mut i = 0;
        while i < hashes.len() {
            if self.count < self.g && s <= 64 {
                // The rest of the generation, or of the batch, in one run.
                let end = hashes.len().min(i + (self.g - self.count) as usize);
                let r = i..end;
                // The head a literal too for the paper's two configurations, interleaved: the
                // insertion's words and the rotation to logical order are then constants.
                i = match (by_head, s, k) {
                    (true, 7, 4) => literal!(self.head, [0 1 2 3 4 5 6], |h| {
                        self.blocked_run(hashes, out, r, ahead, s, k, step, h)
                    }),
                    (true, 12, 7) => literal!(self.head, [0 1 2 3 4 5 6 7 8 9 10 11], |h| {
                        self.blocked_run(hashes, out, r, ahead, s, k, step, h)
                    }),
                    _ => self.blocked_run(hashes, out, r, ahead, s, k, step, self.head),
                };
                if i == end {
                    continue;
                }
            }
            // A shift due, more than 64 slices, or a block of a tiled filter's partial tile.
            if ahead > 0
                && let Some(&a) = hashes.get(i + ahead)
            {
                self.prefetch(a);
            }
            out[i] = self.step_reference(hashes[i]);
            i += 1;
        }
    }

    /// Steps elements `range` of `hashes` within the current generation (`range` no longer
    /// than what is left of it), prefetching `ahead` elements ahead (0: none), with the
    /// filter's fields held in locals across elements. Returns where it stopped: the end, or
    /// an element whose block lies in a tiled filter's partial tile (not stepped; its
    /// prefetch is issued).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn blocked_run(
        &mut self,
        hashes: &[u64],
        out: &mut [bool],
        range: std::ops::Range<usize>,
        ahead: usize,
        s: usize,
        k: u32,
        step: usize,
        head: usize,
    ) -> usize {
        debug_assert!(s == self.s && k == self.k && s <= 64 && step == self.word_step());
        debug_assert_eq!(head, self.head);
        let gen_ = Generation::new(head, s, k);
        let (base, stride, tiled) = (self.base, self.stride, step != 1);
        let full = stride / TILE * TILE;
        let words = &mut self.words[..];
        let slice_ones = &mut self.slice_ones[..if step == 1 { 0 } else { s }];
        let (mut new, first) = (0u64, range.start);
        let mut i = range.start;
        while i < range.end {
            let hash = hashes[i];
            if ahead > 0
                && let Some(&a) = hashes.get(i + ahead)
            {
                prefetch_block(words, base, stride, s, tiled, a);
            }
            let block = reduce(hash, stride as u64) as usize;
            if step != 1 && block >= full {
                break;
            }
            let (start, _) = block_start(base, stride, s, step != 1, block);
            let (dup, n) = gen_.step(words, slice_ones, start, hash, s, k, step);
            new += u64::from(n);
            out[i] = dup;
            i += 1;
        }
        self.ones += new;
        self.count += (i - first) as u64;
        i
    }
}

/// `$body` with `$h` bound to the value of `$x`, a literal for each value listed (one copy of
/// `$body` per value, each compiled with its constant), the value itself otherwise.
macro_rules! literal {
    ($x:expr, [$($v:literal)*], |$h:ident| $body:expr) => {
        match $x {
            $($v => {
                let $h: usize = $v;
                $body
            })*
            $h => $body,
        }
    };
}
use literal;

/// A blocked step's constants for one generation (its head).
#[derive(Clone, Copy)]
struct Generation {
    /// The `k` newest positions in physical order.
    ins: u64,
    /// `s − head`: the rotation from physical to logical order.
    back: usize,
}

impl Generation {
    #[inline(always)]
    fn new(head: usize, s: usize, k: u32) -> Self {
        let all = u64::MAX >> (64 - s);
        let newest = u64::MAX >> (64 - k);
        Self {
            ins: rotate_left(newest, head, s, all),
            back: s - head,
        }
    }

    /// One step on the block whose slice-0 word is `words[start]`, its slices' words `step`
    /// apart: each word's bit for the element is read into a mask (physical order) and, in
    /// the `k` newest slices, set in the same store; the mask is rotated into logical order
    /// (bit `i` = position `i`) and the query is a run of `k` ones in it, found without
    /// branches. Returns the verdict and the number of the insertion's bits that were clear.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step(
        self,
        words: &mut [u64],
        slice_ones: &mut [u64],
        start: usize,
        hash: u64,
        s: usize,
        k: u32,
        step: usize,
    ) -> (bool, u32) {
        let words = &mut words[start..start + (s - 1) * step + 1];
        let mut phys_bits = 0u64;
        let mut hits = 0u32;
        for (c, chunk_words) in words.chunks_mut(10 * step).enumerate() {
            // Six independent bits per slice, ten slices per 64-bit mix (see `locate`).
            let mut chunk = rehash(hash, BLOCK_SALT ^ c as u64);
            let set = self.ins >> (c * 10);
            for (t, w) in chunk_words.iter_mut().step_by(step).enumerate() {
                let i = chunk & 63;
                chunk >>= 6;
                let old = *w;
                let bit = old >> i & 1;
                phys_bits |= bit << (c * 10 + t);
                // Only the insertion's words are written (a line it does not set stays
                // clean); which they are changes once a generation, so the branch predicts.
                if set >> t & 1 == 1 {
                    *w = old | 1 << i;
                    hits += bit as u32;
                    if step != 1 {
                        slice_ones[c * 10 + t] += 1 - bit;
                    }
                }
            }
        }
        let all = u64::MAX >> (64 - s);
        let logical = rotate_left(phys_bits, self.back, s, all);
        (has_run(logical, k), k - hits)
    }
}

/// [`Apbf::block_start`] of a filter with these fields.
#[inline(always)]
fn block_start(base: usize, stride: usize, s: usize, tiled: bool, b: usize) -> (usize, usize) {
    let full = stride / TILE * TILE;
    if !tiled {
        (base + b * s, 1)
    } else if b < full {
        (base + b / TILE * TILE * s + b % TILE, TILE)
    } else {
        (base + full * s + (b - full), stride - full)
    }
}

/// Prefetches the lines of the block of `hash` (see [`Apbf::prefetch`]).
#[inline(always)]
fn prefetch_block(words: &[u64], base: usize, stride: usize, s: usize, tiled: bool, hash: u64) {
    let b = reduce(hash, stride as u64) as usize;
    if tiled {
        // One line per slice.
        let (start, step) = block_start(base, stride, s, tiled, b);
        for t in 0..s {
            crate::raw::prefetch_word(words, start + t * step);
        }
    } else {
        // Every line of the block (lines start at `base` + multiples of 8). Blocks start at
        // multiples of `s` words, at most `8 − gcd(s, 8)` words into a line: when that leaves
        // them within two lines (`s` ≤ 10, or 12), their first and last words name them.
        let first = base + b * s;
        let last = first + s - 1;
        if s + LINE_WORDS - (1 << s.trailing_zeros().min(3)) <= 2 * LINE_WORDS {
            crate::raw::prefetch_word(words, first);
            crate::raw::prefetch_word(words, last);
        } else {
            for w in (first..last).step_by(LINE_WORDS) {
                crate::raw::prefetch_word(words, w);
            }
            crate::raw::prefetch_word(words, last);
        }
    }
}

/// `x` (bits `0..s`, `all` = the mask of them) rotated left by `r < s` within `s` bits.
#[inline(always)]
fn rotate_left(x: u64, r: usize, s: usize, all: u64) -> u64 {
    if r == 0 || r == s {
        x
    } else {
        (x << r | x >> (s - r)) & all
    }
}

impl DuplicateFilter for Apbf {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        if self.count == self.g {
            return self.step_reference(hash);
        }
        match self.layout {
            Layout::Plain => self.step_plain(hash),
            Layout::Blocked => {
                let step = self.word_step();
                self.step_blocked_or_reference(hash, self.s, self.k, step)
            }
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        match self.layout {
            Layout::Plain => {
                let dh = DoubleHash::new(hash);
                for pos in 0..self.k as usize {
                    let (w, _) = self.locate(hash, &dh, 0, self.physical(pos));
                    crate::raw::prefetch_word(&self.words, w);
                }
            }
            Layout::Blocked => {
                prefetch_block(
                    &self.words,
                    self.base,
                    self.stride,
                    self.s,
                    self.tiled,
                    hash,
                );
            }
        }
    }

    /// Plain: prefetches only above [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS).
    /// Blocked: a run per generation, unrolled (see the module documentation).
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        match self.layout {
            Layout::Plain => {
                let bits = self.memory_bits();
                crate::sized_batch(self, bits, hashes, out);
            }
            Layout::Blocked => self.blocked_batch(hashes, out),
        }
    }

    fn memory_bits(&self) -> u64 {
        self.s as u64 * self.m
    }

    fn name(&self) -> &'static str {
        self.layout.name()
    }

    fn params(&self) -> Vec<crate::Param> {
        vec![
            crate::Param::new("k", self.k),
            crate::Param::new("l", self.l),
            crate::Param::new("g", self.g),
            crate::Param::new("m", self.m),
            crate::Param::new("window", guaranteed_window(self.l, self.g)),
            crate::Param::new("max_window", max_window(self.l, self.g)),
            crate::Param::new("fpr_paper", false_positive_rate(self.k, self.l)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::Load,
            value: self.set_bits() as f64 / (self.s as u64 * self.m) as f64,
        }
    }
}

/// The blocked variant as its own registry type (`apbf_blocked`): an [`Apbf`] built with
/// [`Apbf::new_blocked`].
#[derive(Debug, Clone)]
pub struct ApbfBlocked(pub Apbf);

impl ApbfBlocked {
    /// A blocked APBF within `budget_bits` ([`Apbf::new_blocked`]).
    pub fn new(budget_bits: u64, params: &ApbfParams, seed: u64) -> Result<Self> {
        Apbf::new_blocked(budget_bits, params, seed).map(Self)
    }
}

impl DuplicateFilter for ApbfBlocked {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        self.0.step(hash)
    }
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.0.prefetch(hash)
    }
    fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
        self.0.step_batch(hashes, out)
    }
    fn memory_bits(&self) -> u64 {
        self.0.memory_bits()
    }
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn params(&self) -> Vec<crate::Param> {
        self.0.params()
    }
    fn occupancy(&self) -> Occupancy {
        self.0.occupancy()
    }
}

/// The `Structure` impl of each layout: the same parameters, window scaling and cell count,
/// on its own layout (`blocked`).
macro_rules! apbf_structure {
    ($ty:ty, $name:literal, $cost:expr, $mem:expr, $blocked:literal) => {
        crate::structure::impl_structure!($ty {
            name: $name,
            params: ApbfParams,
            cost: $cost,
            memory_bits_for: $mem,
        }
            crate::structure::window_scales!(ApbfParams);

            /// Its `k` insertion cells (blocked: the lines of one block), the expected probes of
            /// its query beyond those, and the lines of the slice it clears every `g`
            /// insertions, per element ([`cells_per_element`]; 1 when the parameters do not
            /// resolve).
            fn cells_per_element(params: &ApbfParams, budget_bits: u64) -> f64 {
                Apbf::cells_for(budget_bits, params, $blocked).map_or(1.0, |c| c.0)
            }

            /// The lines of the slice it clears every `g` insertions, per element
            /// ([`cleared_lines_per_element`]).
            fn cleared_lines_per_element(params: &ApbfParams, budget_bits: u64) -> f64 {
                Apbf::cells_for(budget_bits, params, $blocked).map_or(0.0, |c| c.1)
            }
        );
    };
}
apbf_structure!(Apbf, "apbf", 3.0, Apbf::memory_bits_for, false);
apbf_structure!(
    ApbfBlocked,
    "apbf_blocked",
    2.0,
    Apbf::memory_bits_for_blocked,
    true
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    fn naive_contains(f: &Apbf, hash: u64) -> bool {
        let (dh, block) = f.hashes(hash);
        let mut run = 0;
        for pos in 0..f.s {
            let (w, mask) = f.locate(hash, &dh, block, f.physical(pos));
            if f.words[w] & mask != 0 {
                run += 1;
                if run == f.k {
                    return true;
                }
            } else {
                run = 0;
            }
        }
        false
    }

    #[cfg(feature = "serde")]
    /// Verdict digests pinned before the blocked layout's rewrite (the code of main at
    /// af411ea): the conformance key stream (`tests/conformance.rs`: key `i` =
    /// `reduce(mix64(i + 0x636f6e66), 65536)`, hashed with seed 1), 262,144 steps per case.
    /// Each digest folds every verdict and the final load; a change of the memory layout or the
    /// access order must leave them all as they are.
    const PINNED_VERDICTS: &[(bool, &str, u64, u64, u64)] = &[
        (
            true,
            "k = 7\nl = 5\nwindow = 65536",
            161563,
            342701,
            0xa4b2f17452aa3dcf,
        ),
        (true, "k = 7\nl = 5", 15721, 23098, 0xaa45e1b6b55630ba),
        (true, "k = 4\nl = 3", 90758, 85511, 0x8f15c2c9e8baa3b6),
        (
            true,
            "k = 4\nl = 3\ng = 2000",
            48207,
            26730,
            0x8d6fcbcdd7274afc,
        ),
        (
            true,
            "k = 10\nl = 7\ng = 1000",
            30626,
            84203,
            0x809a7f1b9e772062,
        ),
        (true, "k = 3\nl = 1\ng = 10", 314, 67, 0x2385d40776ad770),
        (true, "k = 2\nl = 70\ng = 5", 10260, 708, 0x1b9c0d6c8eac7be3),
        (true, "k = 1\nl = 1\ng = 3", 9947, 4, 0x68220c75704124ac),
        (
            true,
            "k = 8\nl = 56\ng = 40",
            8887,
            18997,
            0x68a64a258d7110d5,
        ),
        (
            true,
            "fpr = 0.01\nwindow = 5000",
            20279,
            48311,
            0x1610511ea1a9ba6d,
        ),
        (
            false,
            "k = 4\nl = 3\ng = 2000",
            47472,
            26517,
            0x81ed6dca1db1e73a,
        ),
        (
            false,
            "k = 10\nl = 7\ng = 1000",
            30477,
            84166,
            0xe291157a74245066,
        ),
        (
            false,
            "k = 4\nl = 3\nwindow = 65536",
            159365,
            234816,
            0xfca9e8d0dc5acdcc,
        ),
        (false, "k = 2\nl = 70\ng = 5", 8090, 708, 0x3c4fd790803a0181),
    ];

    #[cfg(feature = "serde")]
    /// The cases of [`PINNED_VERDICTS`]: (blocked, TOML parameters, budget in bits).
    const PINNED_CASES: &[(bool, &str, u64)] = &[
        (true, "k = 7\nl = 5\nwindow = 65536", 1 << 20),
        (true, "k = 7\nl = 5", 1 << 16),
        (true, "k = 4\nl = 3", 1 << 18),
        (true, "k = 4\nl = 3\ng = 2000", 7 * 11542),
        (true, "k = 10\nl = 7\ng = 1000", 17 * 14427),
        (true, "k = 3\nl = 1\ng = 10", 64 * 4 * 4),
        (true, "k = 2\nl = 70\ng = 5", 64 * 8 * 72),
        (true, "k = 1\nl = 1\ng = 3", 64 * 2 * 2),
        (true, "k = 8\nl = 56\ng = 40", 1 << 20),
        (true, "fpr = 0.01\nwindow = 5000", 1 << 17),
        (false, "k = 4\nl = 3\ng = 2000", 7 * 11542),
        (false, "k = 10\nl = 7\ng = 1000", 17 * 14427),
        (false, "k = 4\nl = 3\nwindow = 65536", 1 << 24),
        (false, "k = 2\nl = 70\ng = 5", 64 * 8 * 72),
    ];

    #[cfg(feature = "serde")]
    /// (positives, final ones, digest) of `f` on the conformance stream, stepped one by one
    /// or, `batch`, through `step_batch` in blocks of 4096.
    fn verdict_digest(f: &mut Apbf, batch: bool) -> (u64, u64, u64) {
        let (mut positives, mut digest) = (0u64, 0xcbf2_9ce4_8422_2325u64);
        let hashes: Vec<u64> = (0..262_144u64)
            .map(|i| hash_key(reduce(crate::hash::mix64(i + 0x636f_6e66), 65_536), 1))
            .collect();
        let mut verdicts = vec![false; hashes.len()];
        if batch {
            for (h, o) in hashes.chunks(4096).zip(verdicts.chunks_mut(4096)) {
                f.step_batch(h, o);
            }
        } else {
            for (h, o) in hashes.iter().zip(verdicts.iter_mut()) {
                *o = f.step(*h);
            }
        }
        for (i, &dup) in (0u64..).zip(&verdicts) {
            positives += u64::from(dup);
            digest = (digest ^ u64::from(dup) ^ (i << 1)).wrapping_mul(0x0100_0000_01b3);
        }
        let ones = f.set_bits();
        (positives, ones, digest ^ ones)
    }

    #[cfg(feature = "serde")]
    #[test]
    fn verdicts_equal_the_pinned_ones() {
        let mut got = vec![];
        for &(blocked, toml_text, budget) in PINNED_CASES {
            let p: ApbfParams = toml::from_str(toml_text).unwrap();
            let mut f = if blocked {
                Apbf::new_blocked(budget, &p, 0).unwrap()
            } else {
                Apbf::new(budget, &p, 0).unwrap()
            };
            let mut batched = f.clone();
            let (positives, ones, digest) = verdict_digest(&mut f, false);
            got.push((blocked, toml_text, positives, ones, digest));
            assert_eq!(
                verdict_digest(&mut batched, true),
                (positives, ones, digest),
                "{toml_text}: step_batch differs from step"
            );
        }
        for g in &got {
            eprintln!("({}, {:?}, {}, {}, {:#x}),", g.0, g.1, g.2, g.3, g.4);
        }
        assert_eq!(got.len(), PINNED_VERDICTS.len());
        for (g, p) in got.iter().zip(PINNED_VERDICTS) {
            assert_eq!(g, p);
        }
    }

    #[test]
    fn window_bounds_hold_exactly() {
        // No false negatives up to guaranteed_window, for every phase; none certain beyond max.
        for (k, l, g) in [(1u32, 1u32, 1u64), (2, 3, 5), (4, 3, 7), (3, 1, 10)] {
            let p = ApbfParams {
                g: Some(g),
                ..ApbfParams::with_kl(k, l)
            };
            let mut f = Apbf::new(1 << 20, &p, 0).unwrap();
            let w = guaranteed_window(l, g) as usize;
            let keys: Vec<u64> = (0..3000u64).map(|i| hash_key(i, 3)).collect();
            for (i, &h) in keys.iter().enumerate() {
                // At this point the previous i elements are inserted; the one at gap d is
                // keys[i − d].
                for d in 1..=w.min(i) {
                    assert!(f.contains(keys[i - d]), "k={k} l={l} g={g} i={i} d={d}");
                }
                f.step(h);
            }
            // Detection probability is exactly 1 within the guaranteed window.
            let m = f.m();
            for c in 1..=g {
                assert!(detection_probability(k, l, m, g, c, w as u64) > 1.0 - 1e-12);
            }
            assert!(detection_probability_mean(k, l, m, g, max_window(l, g) + 1) < 1.0);
        }
    }

    #[test]
    fn generations_end_after_exactly_g_insertions() {
        // The filter itself, not the formula: an element inserted as the c-th (1..=g) of its
        // generation keeps a run of k slices until the (l+1)-th shift after it, so it is
        // reported at every gap d ≤ (l+1)·g − c + 1, always (no false negative), and at the
        // next gap only when one of the other slices' bits completes a run by chance (slices
        // of 2^18 bits hold a few hundred bits here: under 1 % of the elements). A generation
        // one element longer reports every element at that next gap; one shorter misses at
        // the last.
        for blocked in [false, true] {
            for (k, l, g) in [(1u32, 1u32, 1u64), (2, 3, 5), (4, 3, 7), (3, 1, 10)] {
                let p = ApbfParams {
                    g: Some(g),
                    ..ApbfParams::with_kl(k, l)
                };
                let budget = u64::from(k + l) << 18;
                let mut f = if blocked {
                    Apbf::new_blocked(budget, &p, 0).unwrap()
                } else {
                    Apbf::new(budget, &p, 0).unwrap()
                };
                let what = format!("blocked={blocked} k={k} l={l} g={g}");
                let keys: Vec<u64> = (0..2000u64).map(|i| hash_key(i, 5)).collect();
                let last = |j: usize| (u64::from(l) + 1) * g - (j as u64 % g + 1) + 1;
                let (mut beyond, mut reported_beyond) = (0u32, 0u32);
                for (i, &h) in keys.iter().enumerate() {
                    for (j, &old) in keys[..i].iter().enumerate() {
                        let d = (i - j) as u64;
                        if d + 1 == last(j) || d == last(j) {
                            assert!(f.contains(old), "{what}: element {j}, gap {d}");
                        } else if d == last(j) + 1 {
                            beyond += 1;
                            reported_beyond += u32::from(f.contains(old));
                        }
                    }
                    f.step(h);
                }
                assert!(beyond > 1000, "{what}");
                assert!(
                    reported_beyond * 100 < beyond,
                    "{what}: {reported_beyond} of {beyond} reported one gap beyond the window"
                );
            }
        }
    }

    /// Inserts `n` distinct keys then queries `t` never-inserted keys; returns false positives
    /// and the realised fill ratios.
    fn measure(f: &mut Apbf, n: u64, t: u64, seed: u64) -> (u64, Vec<f64>) {
        for i in 0..n {
            f.insert(hash_key(i, seed));
        }
        let fp = (0..t)
            .filter(|&j| f.contains(hash_key((1 << 40) + j, seed)))
            .count() as u64;
        (fp, f.fill_ratios())
    }

    /// Tolerance on a rate computed from fills: each fill ratio has binomial sd
    /// `sqrt(q(1−q)/m)` (an upper bound: slice occupancy counts are negatively associated); the
    /// rate's sensitivity to each fill is taken by finite differences; 5 sd per slice, summed.
    fn fill_tolerance(k: u32, fills: &[f64], m: u64) -> f64 {
        let base = run_probability(k, fills);
        let mut tol = 0.0;
        for i in 0..fills.len() {
            let sd = (fills[i] * (1.0 - fills[i]) / m as f64).sqrt();
            let mut up = fills.to_vec();
            up[i] = (up[i] + 5.0 * sd).min(1.0);
            tol += (run_probability(k, &up) - base).abs();
        }
        tol
    }

    #[test]
    fn fpr_matches_theory_within_binomial_bounds() {
        // Steady state at the end of a generation (c = g) and mid-generation; k = 4, l = 3
        // (paper 0.1006) and k = 7, l = 5 (paper 0.0112).
        for (k, l, t) in [(4u32, 3u32, 200_000u64), (7, 5, 400_000)] {
            for blocked in [false, true] {
                let p = ApbfParams::with_kl(k, l);
                let budget = 1 << 20;
                let mut f = if blocked {
                    Apbf::new_blocked(budget, &p, 0).unwrap()
                } else {
                    Apbf::new(budget, &p, 0).unwrap()
                };
                let (g, m) = (f.g(), f.m());
                for (phase, seed) in [(g, 1u64), (g / 2, 2)] {
                    let n = u64::from(k + l + 2) * g + phase;
                    let mut f2 = f.clone();
                    let (fp, fills) = measure(&mut f2, n, t, seed);
                    assert_eq!(f2.phase(), phase);
                    // (a) Given the realised fills, each non-member is a false positive with
                    // probability run_probability(fills): binomial, 5 sd. (Blocked: the
                    // per-block fills vary, so the realised mean fills do not determine the
                    // rate; only (b) applies.)
                    let rate = fp as f64 / t as f64;
                    if !blocked {
                        let given = run_probability(k, &fills);
                        let sd = (t as f64 * given * (1.0 - given)).sqrt();
                        assert!(
                            (fp as f64 - t as f64 * given).abs() < 5.0 * sd,
                            "({k},{l}) c={phase}: fp {fp} vs {}",
                            t as f64 * given
                        );
                        // (b) Against the exact-fill formula at this phase.
                        let expected = expected_fill_ratios(k, l, m, g, phase);
                        let theory = run_probability(k, &expected);
                        let tol = fill_tolerance(k, &expected, m) + 5.0 * sd / t as f64;
                        eprintln!(
                            "apbf ({k},{l}) g={g} m={m} c={phase}: measured {rate:.5}, exact-fill {theory:.5}, paper {:.5}",
                            false_positive_rate(k, l)
                        );
                        assert!(
                            (rate - theory).abs() < tol,
                            "({k},{l}) c={phase}: rate {rate} vs {theory} ± {tol}"
                        );
                    } else {
                        let (theory, se) =
                            blocked_false_positive_rate_with_error(k, l, m, g, phase, 20_000);
                        // Binomial 5 sd plus 5 standard errors of the model's Monte Carlo.
                        let sd = (t as f64 * theory * (1.0 - theory)).sqrt() / t as f64;
                        let tol = 5.0 * sd + 5.0 * se;
                        eprintln!(
                            "apbf_blocked ({k},{l}) g={g} m={m} c={phase}: measured {rate:.5}, model {theory:.5} ± {tol:.5}, unblocked {:.5}",
                            false_positive_rate_at(k, l, m, g, phase)
                        );
                        assert!(
                            (rate - theory).abs() < tol,
                            "blocked ({k},{l}) c={phase}: rate {rate} vs {theory} ± {tol}"
                        );
                    }
                }
                f.shift();
            }
        }
    }

    #[test]
    fn paper_value_lies_between_generation_start_and_end() {
        for configs in PAPER_CONFIGS {
            for &(k, l) in configs {
                let g = 1000;
                let m = (f64::from(k) * g as f64 / LN_2).ceil() as u64;
                let paper = false_positive_rate(k, l);
                let start = false_positive_rate_at(k, l, m, g, 1);
                let end = false_positive_rate_at(k, l, m, g, g);
                assert!(
                    start < paper && paper < end,
                    "({k},{l}): {start} {paper} {end}"
                );
            }
        }
    }

    #[test]
    fn slack_matches_detection_probability() {
        // Re-occurrences at gaps in the slack region (l·g, (l+1)·g + 2g]: the fraction reported
        // against detection_probability_mean, binomial 5 sd.
        let (k, l) = (4u32, 3u32);
        let p = ApbfParams::with_kl(k, l);
        let mut f = Apbf::new(1 << 16, &p, 0).unwrap();
        let (g, m) = (f.g(), f.m());
        let gaps: Vec<u64> = (0..12).map(|j| u64::from(l) * g + 1 + j * g / 4).collect();
        let n = 400_000u64;
        let keys: Vec<u64> = (0..n).map(|i| hash_key(i, 77)).collect();
        let mut hits = vec![0u64; gaps.len()];
        let mut trials = vec![0u64; gaps.len()];
        let start = u64::from(k + l + 2) * g;
        for i in 0..n as usize {
            if i as u64 >= start && i % 7 == 0 {
                for (j, &d) in gaps.iter().enumerate() {
                    trials[j] += 1;
                    hits[j] += u64::from(f.contains(keys[i - d as usize]));
                }
            }
            f.insert(keys[i]);
        }
        for (j, &d) in gaps.iter().enumerate() {
            let p = detection_probability_mean(k, l, m, g, d);
            let t = trials[j] as f64;
            // Queries are spread evenly over phases (i % 7 and g coprime here), so the mean
            // over phases applies; the binomial sd plus one phase-discretisation step.
            let sd = (t * p * (1.0 - p)).sqrt();
            eprintln!(
                "apbf slack (4,3) g={g}: gap {d}: measured {:.4}, theory {p:.4}",
                hits[j] as f64 / t
            );
            assert!(
                (hits[j] as f64 - t * p).abs() < 5.0 * sd + t / g as f64 + 1.0,
                "gap {d}: {} of {t} vs p = {p}",
                hits[j]
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The jump-scan query equals the naive scan for k consecutive matches, and the running
        /// load equals a recount.
        #[test]
        fn query_equals_naive_scan(keys in prop::collection::vec(0u64..300, 1..2000), k in 1u32..6, l in 1u32..6, g in 1u64..40, blocked: bool) {
            let p = ApbfParams { g: Some(g), ..ApbfParams::with_kl(k, l) };
            let budget = 64 * 4 * u64::from(k + l);
            let mut f = if blocked { Apbf::new_blocked(budget, &p, 0).unwrap() } else { Apbf::new(budget, &p, 0).unwrap() };
            for key in keys {
                let h = hash_key(key, 1);
                prop_assert_eq!(f.contains(h), naive_contains(&f, h));
                f.step(h);
            }
            let ones: f64 = f.fill_ratios().iter().sum::<f64>() * f.m() as f64;
            prop_assert_eq!(f.set_bits(), ones.round() as u64);
        }
    }

    #[test]
    fn expected_probes_match_enumeration_of_the_scan() {
        // Every bit pattern of k + l slices, weighted by its probability, run through the same
        // jump scan as `contains`, counting probes at positions ≥ k.
        fn scan_probes(k: usize, l: usize, bits: u32) -> usize {
            let mut probes = 0;
            jump_scan(k, l, |c| {
                probes += usize::from(c >= k);
                bits >> c & 1 == 1
            });
            probes
        }
        for (k, l) in [(1usize, 1usize), (2, 3), (3, 2), (4, 3), (3, 7), (5, 6)] {
            let s = k + l;
            let fills: Vec<f64> = (0..s).map(|i| 0.15 + 0.7 * (i as f64 / s as f64)).collect();
            let mut exact = 0.0;
            for bits in 0..1u32 << s {
                let p: f64 = (0..s)
                    .map(|i| {
                        if bits >> i & 1 == 1 {
                            fills[i]
                        } else {
                            1.0 - fills[i]
                        }
                    })
                    .product();
                exact += p * scan_probes(k, l, bits) as f64;
            }
            let got = expected_probes_beyond_k(k as u32, &fills);
            assert!((got - exact).abs() < 1e-12, "({k},{l}): {got} vs {exact}");
        }
        // Empty slices: the scan stops at its first probe, position l (beyond k iff l ≥ k).
        assert_eq!(expected_probes_beyond_k(4, &[0.0; 7]), 0.0);
        assert_eq!(expected_probes_beyond_k(3, &[0.0; 7]), 1.0);
        // The benchmarked APBFs: a sparse one is its k cells plus its clearing.
        let sparse = cells_per_element(4, 3, 1 << 29, 21845, false);
        let clear = (1u64 << 29).div_ceil(64) as f64 / 8.0 / 21845.0;
        assert!((sparse - 4.0 - clear).abs() < 0.01, "{sparse}");
        // k = 7, l = 5 blocked: 12 words span 2 lines at either offset (0 or 32 bytes).
        assert_eq!(cells_per_element(7, 5, 64, 1, true), 2.0 + 1.0);
        // The roofline's (7, 5), window 65,536 (g = 13,107), at 512 MB: m/64 = 5,592,405
        // blocks, interleaved 427 cleared lines per element > 12, so tiled: 12 lines per
        // step and the slice's 8 lines of each of 87,381 full tiles per generation, and 3 of
        // the last one's 21 blocks.
        let m = (512u64 << 23) / 12 / 64 * 64;
        assert!(blocked_tiled(7, 5, m, 13_107));
        let tiled = (87_381.0 * 8.0 + 3.0) / 13_107.0;
        assert!((cleared_lines_per_element(7, 5, m, 13_107, true) - tiled).abs() < 1e-9);
        assert!((cells_per_element(7, 5, m, 13_107, true) - 12.0 - tiled).abs() < 1e-9);
        // At the paper's sizing (g = m ln 2 / k) the clearing is k/(64 ln 2) lines: interleaved.
        let m = (1u64 << 31) / 12 / 64 * 64;
        assert!(!blocked_tiled(7, 5, m, (m as f64 * LN_2 / 7.0) as u64));
        // At 8 MiB, 6.7 cleared lines < 12: interleaved.
        assert!(!blocked_tiled(7, 5, (8u64 << 23) / 12 / 64 * 64, 13_107));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The fused steps give the verdicts and leave the state of the straightforward
        /// query-then-insert, element by element, across generations (k + l up to 70: the
        /// blocked fallback beyond 64 slices included; plain: both the read-all query and the
        /// early-exit scan).
        #[test]
        fn fused_step_equals_query_then_insert(keys in prop::collection::vec(0u64..400, 1..1500), k in 1u32..9, l in 1u32..9, wide: bool, g in 1u64..50, blocked: bool, scan: bool) {
            let l = if wide { l + 61 } else { l };
            let p = ApbfParams { g: Some(g), ..ApbfParams::with_kl(k, l) };
            let budget = 64 * 3 * u64::from(k + l);
            let mut f = if blocked { Apbf::new_blocked(budget, &p, 0).unwrap() } else { Apbf::new(budget, &p, 0).unwrap() };
            f.probe_all = f.probe_all && !scan;
            let mut r = f.clone();
            for key in keys {
                let h = hash_key(key, 2);
                prop_assert_eq!(f.step(h), r.step_reference(h));
                prop_assert_eq!(&f.words, &r.words);
                prop_assert_eq!((f.head, f.count), (r.head, r.count));
                prop_assert_eq!(&f.slice_ones, &r.slice_ones);
                prop_assert_eq!(f.ones, r.ones);
            }
            prop_assert_eq!(&f.slice_ones, &r.slice_ones);
        }
    }

    /// A blocked batch (unrolled step, prefetches above `PREFETCH_ABOVE_BITS`) gives the
    /// verdicts and leaves the state of the straightforward query-then-insert, element by
    /// element: 2^17 elements of a stream with repeats, in uneven batches, for the unrolled
    /// configurations (4, 3), (7, 5), (8, 8), other `k` at their slice counts (7, 12, 16) and
    /// other counts (5, 64, 70: the fallback beyond 64 slices), in
    /// cache and above the prefetch threshold, interleaved and tiled, with generations short
    /// enough to shift dozens to thousands of times.
    #[test]
    fn blocked_batch_equals_query_then_insert() {
        let mut storages = [0; 2];
        for (k, l, g, budget) in [
            (4u32, 3u32, 1000u64, 1u64 << 16),
            (4, 3, 3000, crate::PREFETCH_ABOVE_BITS * 2),
            (7, 5, 700, 1 << 20),
            (7, 5, 5000, crate::PREFETCH_ABOVE_BITS * 4),
            (8, 8, 500, 1 << 18),
            (2, 3, 300, 1 << 14),
            (60, 4, 400, 1 << 20),
            (3, 67, 200, 1 << 20),
            // Other `k` at the literal slice counts 7, 12 and 16 (the fallback arm).
            (5, 2, 400, 1 << 18),
            (3, 9, 300, 1 << 18),
            (10, 6, 300, 1 << 20),
            (5, 2, 50, 1 << 20),
            // Tiled (`blocked_tiled`): generations short against the number of blocks.
            (4, 3, 200, 1 << 20),
            (7, 5, 500, 1 << 24),
            (8, 8, 200, 1 << 22),
            (3, 2, 100, 1 << 20),
            (60, 4, 10, 1 << 22),
            (3, 67, 3, 1 << 20),
        ] {
            let p = ApbfParams {
                g: Some(g),
                ..ApbfParams::with_kl(k, l)
            };
            let mut f = Apbf::new_blocked(budget, &p, 0).unwrap();
            assert_eq!(f.tiled, blocked_tiled(k, l, f.m, g));
            storages[usize::from(f.tiled)] += 1;
            let mut r = f.clone();
            let keys: Vec<u64> = (0..1u64 << 17)
                .map(|i| hash_key(reduce(crate::hash::mix64(i), 1 + i / 2), 3))
                .collect();
            let mut out = vec![false; keys.len()];
            let mut at = 0;
            for len in [1usize, 31, 32, 33, 4096, 77].iter().cycle() {
                let end = (at + len).min(keys.len());
                f.step_batch(&keys[at..end], &mut out[at..end]);
                at = end;
                if at == keys.len() {
                    break;
                }
            }
            let expected: Vec<bool> = keys.iter().map(|&h| r.step_reference(h)).collect();
            if f.tiled {
                // The same filter stored interleaved (its allocation is large enough): the
                // storage moves words, not verdicts.
                let mut twin = Apbf::new_blocked(budget, &p, 0).unwrap();
                twin.tiled = false;
                let mut twin_out = vec![false; keys.len()];
                for (h, o) in keys.chunks(4096).zip(twin_out.chunks_mut(4096)) {
                    twin.step_batch(h, o);
                }
                assert!(twin_out == expected, "({k}, {l}): interleaved twin differs");
                assert_eq!(twin.fill_ratios(), r.fill_ratios());
            }
            let (dups, shifts) = (
                expected.iter().filter(|&&d| d).count(),
                keys.len() as u64 / g,
            );
            assert!(
                dups > 500 && shifts > 20,
                "({k}, {l}): {dups} duplicates, {shifts} shifts"
            );
            assert!(
                out == expected,
                "({k}, {l}, g {g}, {budget} bits): verdicts differ"
            );
            assert!(f.words == r.words, "({k}, {l}): state differs");
            assert_eq!((f.head, f.count, f.ones), (r.head, r.count, r.ones));
            assert_eq!(
                f.ones,
                f.fill_ratios()
                    .iter()
                    .map(|r| (r * f.m as f64).round() as u64)
                    .sum()
            );
        }
        assert_eq!(storages, [11, 7], "interleaved and tiled cases");
    }

    #[test]
    fn has_run_finds_runs_of_k_ones() {
        for x in [
            0u64,
            1,
            0b1011,
            0b0111_0110,
            u64::MAX,
            0xf0f0,
            1 << 63 | 1 << 62,
        ] {
            for k in 1..=64u32 {
                let naive = (0..=64 - k).any(|i| (i..i + k).all(|b| x >> b & 1 == 1));
                assert_eq!(has_run(x, k), naive, "x={x:#b} k={k}");
            }
        }
    }

    #[test]
    fn sizing_from_window_and_fpr() {
        let s = WindowSizing::new(100_000, 0.01);
        assert!(s.fpr <= 0.01);
        assert!(guaranteed_window(s.l, s.g) >= 100_000);
        assert_eq!(s.bits, u64::from(s.k + s.l) * s.m);
        let f = Apbf::for_window_fpr(100_000, 0.01).unwrap();
        assert_eq!(f.memory_bits(), s.bits);
        assert_eq!((f.k(), f.l(), f.g()), (s.k, s.l, s.g));
        // A tabulated configuration is at least as costly per window element as the optimum.
        let (k, l) = config_for_fpr(0.1);
        let cost = |k: u32, l: u32| f64::from(k + l) * f64::from(k) / f64::from(l);
        for &(pk, pl) in PAPER_CONFIGS[0] {
            if false_positive_rate(pk, pl) <= 0.1 {
                assert!(cost(k, l) <= cost(pk, pl));
            }
        }
    }

    #[test]
    fn budget_sizing_and_errors() {
        let p = ApbfParams::with_kl(4, 3);
        assert_eq!(Apbf::memory_bits_for(700, &p), Ok(700));
        assert_eq!(Apbf::memory_bits_for(706, &p), Ok(700));
        assert_eq!(
            Apbf::memory_bits_for_blocked(7 * 64 * 3 + 5, &p),
            Ok(7 * 64 * 3)
        );
        assert!(matches!(
            Apbf::memory_bits_for_blocked(7 * 63, &p),
            Err(Error::BudgetTooSmall { .. })
        ));
        let f = Apbf::new(7000, &p, 0).unwrap();
        assert_eq!(f.g(), (1000.0 * LN_2 / 4.0).floor() as u64);
        for bad in [
            ApbfParams::default(),
            ApbfParams::with_kl(0, 3),
            ApbfParams::with_kl(4, 0),
            ApbfParams {
                g: Some(3),
                window: Some(10),
                ..ApbfParams::with_kl(4, 3)
            },
            ApbfParams {
                fpr: Some(0.1),
                ..ApbfParams::with_kl(4, 3)
            },
        ] {
            assert!(
                matches!(
                    Apbf::new(1 << 12, &bad, 0),
                    Err(Error::InvalidParameter { .. })
                ),
                "{bad:?}"
            );
        }
    }
}
