//! SW-BF, the sliding-window Bloom filter of the Sliding Sketches code: Gou, He, Zhang, Wang,
//! Yang, Yang, Li, *Sliding Sketches: A Framework using Time Zones for Data Stream Processing in
//! Sliding Windows*, KDD 2020, the membership baseline in the authors' repository
//! (`sliding-sketch/Sliding-Sketch`, `src/Membership/SW-BF/SWSketch.h`, class
//! `SlidingSketchLevel`). The paper describes it only as a baseline; this follows the code.
//!
//! **Structure.** `L` levels. Level `i` cuts the stream into blocks of `s_i = ⌊W / b_i⌋`
//! elements, `b_i = ⌊B / 2^i⌋`, and keeps a ring of `b_i + 1` Bloom filters of
//! `m_i = ⌊M / ((b_i + 1)·L)⌋` bits with the same `k` hash positions: element `t` (from 0) goes
//! into filter `⌊t / s_i⌋ mod (b_i + 1)`, which is cleared first when `t` starts a block
//! (`t mod s_i = 0`). A query answers yes iff *every* level has *some* filter holding all `k`
//! bits of the element. A step queries, then inserts (the code's `query`, then `insert`).
//!
//! **Window.** At the query of element `t` level `i` holds the `b_i` blocks before the
//! current one and the current block's `t mod s_i` elements (at a block start, the filter about
//! to be cleared still holds a `(b_i + 1)`-th block): a re-occurrence at gap `d` is found
//! whenever `d ≤ min_i b_i·s_i` ([`guaranteed_window`]). When `b_i` does not divide `W` that is
//! less than `W`, and gaps in `(b_i·s_i, W]` can be missed (false negatives), as in the code.
//! Elements up to `(b_i + 1)·s_i` back may still be reported.
//!
//! **False positives.** A never-seen element is reported with probability
//! `Π_i (1 − Π_j (1 − r_ij^k))` given the fill ratios `r_ij` of level `i`'s filters
//! ([`false_positive_rate_given_fills`]): the levels hash to the same positions of filters of
//! different sizes, which the product treats as independent.
//!
//! Readings:
//! - The code's `check()`, which clears filters that started more than 100,000 elements ago
//!   (the window of its demo, written into it), is not part of a step: its demo calls it before
//!   its measurements, not per element, and the ring already retires old blocks.
//! - The code hashes with `k` BOBHash functions seeded `97·j`, the same for every filter and
//!   level, and takes them modulo each level's `m_i`; here the `k` positions are double hashing
//!   ([`DoubleHash`]) of [`rehash`]`(hash, i)` for level `i`, the same for every filter of a
//!   level. The code's `h mod m_i` into sizes that share no factor are independent across
//!   levels; Lemire's reduction of one hash into two sizes is not (it is monotone in the hash,
//!   so a key's positions sit at the same fractions of every level's filters, and a query that
//!   collides at one level collides at the others: at two levels the FPR measured 1.7 times
//!   the independent product), hence one hash per level.
//! - The code's cells are `bool`s; its memory counts one bit per cell, as here
//!   (`memory = M`, its `_memory·8000`).
//! - `k` defaults to the code's 3, `B` to 16 and `L` to 2 (its demo's speed run; its accuracy
//!   run uses `B = 32`).

use crate::bloom::MAX_K;
use crate::error::{Error, Result, ensure};
use crate::hash::{DoubleHash, rehash};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Parameters of an [`SwBf`].
///
/// ```toml
/// window = 65536
/// blocks = 16   # default 16: B, the blocks of level 0
/// levels = 2    # default 2
/// k = 3         # default 3
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SwBfParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `B`, the blocks of level 0 (default 16); level `i` has `⌊B/2^i⌋`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub blocks: Option<u32>,
    /// `L`, the number of levels (default 2).
    #[cfg_attr(feature = "serde", serde(default))]
    pub levels: Option<u32>,
    /// `k`, hash positions per filter (default 3).
    #[cfg_attr(feature = "serde", serde(default))]
    pub k: Option<u32>,
}

/// One level's geometry: `(b_i, s_i, m_i)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelGeometry {
    /// `b_i`, blocks in the window (the ring holds `b_i + 1` filters).
    pub blocks: u64,
    /// `s_i = ⌊W / b_i⌋`, elements per block.
    pub block_len: u64,
    /// `m_i`, bits per filter.
    pub filter_bits: u64,
}

/// The levels' geometry for a budget, window and `(B, L)`, validated.
pub fn geometry(budget_bits: u64, p: &SwBfParams) -> Result<(Vec<LevelGeometry>, u32)> {
    let b = p.blocks.unwrap_or(16);
    let levels = p.levels.unwrap_or(2);
    let k = p.k.unwrap_or(3);
    ensure(p.window >= 1, "window", p.window, "must be at least 1")?;
    ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=256")?;
    ensure(
        (1..=16).contains(&levels),
        "levels",
        levels,
        "must be in 1..=16",
    )?;
    ensure(
        (1..=1 << 16).contains(&b) && b >> (levels - 1) >= 1,
        "blocks",
        b,
        "must be in 1..=65536 and leave at least one block at the last level (B ≥ 2^(L−1))",
    )?;
    let mut out = Vec::with_capacity(levels as usize);
    for i in 0..levels {
        let bi = u64::from(b >> i);
        let block_len = p.window / bi;
        ensure(
            block_len >= 1,
            "blocks",
            b,
            "must be at most the window (a block holds at least one element)",
        )?;
        let filter_bits = budget_bits / ((bi + 1) * u64::from(levels));
        if filter_bits == 0 {
            return Err(Error::BudgetTooSmall {
                structure: "sw_bf",
                budget_bits,
                needed_bits: (bi + 1) * u64::from(levels),
            });
        }
        out.push(LevelGeometry {
            blocks: bi,
            block_len,
            filter_bits,
        });
    }
    let total: u64 = out.iter().map(|g| (g.blocks + 1) * g.filter_bits).sum();
    crate::error::words_for_bits("sw_bf", total)?;
    Ok((out, k))
}

/// The gap up to which every re-occurrence is found: `min_i b_i·⌊W/b_i⌋`.
pub fn guaranteed_window(levels: &[LevelGeometry]) -> u64 {
    levels
        .iter()
        .map(|g| g.blocks * g.block_len)
        .min()
        .unwrap_or(0)
}

/// The probability that a never-seen element is reported given each level's fill ratios
/// (`fills[i][j]`) and `k`: `Π_i (1 − Π_j (1 − r_ij^k))`.
pub fn false_positive_rate_given_fills(fills: &[Vec<f64>], k: u32) -> f64 {
    fills
        .iter()
        .map(|level| crate::rotating_bloom::false_positive_rate_given_fills(level, k))
        .product()
}

/// Level `i`'s positions: double hashing of `rehash(hash, i)`.
#[inline(always)]
fn level_hash(hash: u64, level: usize) -> DoubleHash {
    DoubleHash::new(rehash(hash, level as u64))
}

/// A level: its geometry and the bit offset of its first filter in [`SwBf`]'s one array.
#[derive(Debug, Clone, Copy)]
struct Level {
    geom: LevelGeometry,
    offset: u64,
}

/// SW-BF (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, sw_bf::{SwBf, SwBfParams}};
/// let p = SwBfParams { window: 1000, blocks: Some(8), levels: Some(2), k: Some(3) };
/// let mut f = SwBf::new(1 << 16, &p, 0).unwrap();
/// assert!(!f.step(7));
/// for h in 1000..1999u64 {
///     f.step(h);
/// }
/// assert!(f.step(7)); // gap 1000: within the window (8 blocks of 125 divide it)
/// ```
#[derive(Debug, Clone)]
pub struct SwBf {
    /// Every filter of every level, one after another (level `i`'s filter `j` at
    /// `offset_i + j·m_i`): one allocation, so the heap held is the budget.
    bits: Vec<u64>,
    levels: Vec<Level>,
    k: u32,
    window: u64,
    blocks: u32,
    /// Elements inserted (the code's `cnt`).
    count: u64,
}

impl SwBf {
    /// An SW-BF within `budget_bits`; it draws nothing random (`seed` unused).
    pub fn new(budget_bits: u64, params: &SwBfParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let (geoms, k) = geometry(budget_bits, params)?;
        let mut offset = 0;
        let levels = geoms
            .into_iter()
            .map(|geom| {
                let l = Level { geom, offset };
                offset += (geom.blocks + 1) * geom.filter_bits;
                l
            })
            .collect();
        let words = crate::error::words_for_bits("sw_bf", offset)?;
        Ok(Self {
            bits: vec![0; words],
            levels,
            k,
            window: params.window,
            blocks: params.blocks.unwrap_or(16),
            count: 0,
        })
    }

    /// The state size for this budget: `Σ_i (b_i + 1)·m_i` (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &SwBfParams) -> Result<u64> {
        let (g, _) = geometry(budget_bits, params)?;
        Ok(g.iter().map(|g| (g.blocks + 1) * g.filter_bits).sum())
    }

    /// Each level's geometry.
    pub fn geometry(&self) -> Vec<LevelGeometry> {
        self.levels.iter().map(|l| l.geom).collect()
    }

    #[inline(always)]
    fn get(&self, i: u64) -> bool {
        self.bits[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Bits set in `start..start + len`.
    fn ones_in(&self, start: u64, len: u64) -> u64 {
        (start..start + len).filter(|&i| self.get(i)).count() as u64
    }

    /// Clears `start..start + len`, whole words where it can.
    fn clear_range(&mut self, start: u64, len: u64) {
        let end = start + len;
        let mut i = start;
        while i < end {
            let (w, b) = ((i >> 6) as usize, i & 63);
            let n = (64 - b).min(end - i);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << b
            };
            self.bits[w] &= !mask;
            i += n;
        }
    }

    /// Each level's filters' fill ratios.
    pub fn fills(&self) -> Vec<Vec<f64>> {
        self.levels
            .iter()
            .map(|l| {
                let m = l.geom.filter_bits;
                (0..=l.geom.blocks)
                    .map(|j| self.ones_in(l.offset + j * m, m) as f64 / m as f64)
                    .collect()
            })
            .collect()
    }

    /// `k`.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Membership query without update (the code's `query`).
    pub fn contains(&self, hash: u64) -> bool {
        let k = self.k;
        self.levels.iter().enumerate().all(|(li, l)| {
            let dh = level_hash(hash, li);
            let m = l.geom.filter_bits;
            (0..=l.geom.blocks).any(|j| {
                let base = l.offset + j * m;
                dh.indices(k, m).all(|i| self.get(base + i))
            })
        })
    }

    /// Insertion (the code's `insert`): at a block start the block's filter is cleared first.
    fn insert(&mut self, hash: u64) {
        let t = self.count;
        for li in 0..self.levels.len() {
            let Level { geom, offset } = self.levels[li];
            let (s, m) = (geom.block_len, geom.filter_bits);
            let base = offset + ((t / s) % (geom.blocks + 1)) * m;
            if t.is_multiple_of(s) {
                self.clear_range(base, m);
            }
            for i in level_hash(hash, li).indices(self.k, m) {
                let b = base + i;
                self.bits[(b >> 6) as usize] |= 1 << (b & 63);
            }
        }
        self.count += 1;
    }
}

impl DuplicateFilter for SwBf {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let dup = self.contains(hash);
        self.insert(hash);
        dup
    }

    fn memory_bits(&self) -> u64 {
        self.levels
            .iter()
            .map(|l| (l.geom.blocks + 1) * l.geom.filter_bits)
            .sum()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let g = self.geometry();
        vec![
            crate::Param::new("window", self.window),
            crate::Param::new("blocks", self.blocks),
            crate::Param::new("levels", self.levels.len()),
            crate::Param::new("k", self.k),
            crate::Param::new("filter_bits", g[0].filter_bits),
            crate::Param::new("block_len", g[0].block_len),
            crate::Param::new("guaranteed_window", guaranteed_window(&g)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        let ones: u64 = self.bits.iter().map(|w| u64::from(w.count_ones())).sum();
        Occupancy {
            kind: OccupancyKind::Load,
            value: ones as f64 / self.memory_bits() as f64,
        }
    }
}

// Until `just roofline` writes its row into the calibration table, the cost model prices it at
// this many k = 2 Bloom steps: its roofline row (sw_bf) at 1 Mbit over the Bloom filter's, key
// generation and hashing excluded, measured in one run beside the others.
crate::structure::impl_structure!(SwBf {
    name: "sw_bf",
    params: SwBfParams,
    cost: 29.0,
    memory_bits_for: SwBf::memory_bits_for,
}
    crate::structure::window_scales!(SwBfParams);

    /// `k·(Σ_i (b_i + 1) + L)`: a query probes `k` cells of every filter of a level until one
    /// holds the element (at most all of them), and an insertion sets `k` in one per level.
    fn cells_per_element(params: &SwBfParams, _budget_bits: u64) -> f64 {
        let b = params.blocks.unwrap_or(16);
        let levels = params.levels.unwrap_or(2).clamp(1, 16);
        let k = params.k.unwrap_or(3);
        let filters: u32 = (0..levels).map(|i| (b >> i) + 1).sum();
        f64::from(k * (filters + levels))
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// No false negatives within the guaranteed window, against the brute-force windowed
        /// truth, and nothing reported beyond the rings' reach, `min_i (b_i + 1)·s_i`, unless a
        /// false positive (negligible in a filter this large, k = 8).
        #[test]
        fn no_false_negatives_within_the_guaranteed_window(keys in prop::collection::vec(0u64..200, 1..2000), w in 1u64..300, b in 1u32..9, levels in 1u32..3) {
            prop_assume!(b >> (levels - 1) >= 1 && u64::from(b) <= w);
            let p = SwBfParams { window: w, blocks: Some(b), levels: Some(levels), k: Some(8) };
            let mut f = SwBf::new(1 << 22, &p, 0).unwrap();
            let g = f.geometry();
            let guaranteed = guaranteed_window(&g);
            let reach = g.iter().map(|g| (g.blocks + 1) * g.block_len).min().unwrap();
            let hashes: Vec<u64> = keys.iter().map(|&k| hash_key(k, 3)).collect();
            let gaps = crate::test_support::gaps(&hashes);
            for (i, (&h, &gap)) in hashes.iter().zip(&gaps).enumerate() {
                let dup = f.step(h);
                if gap.is_some_and(|d| d <= guaranteed) {
                    prop_assert!(dup, "false negative at {} (gap {:?})", i, gap);
                }
                if dup {
                    prop_assert!(gap.is_some_and(|d| d <= reach), "reported at {} (gap {:?})", i, gap);
                }
            }
        }
    }

    #[test]
    fn fpr_matches_the_fills() {
        // Distinct keys, then never-seen queries: binomial with the rate given the fills, 99.9 %
        // two-sided (3.3 sd). Each level hashes on its own, so the product over levels is the
        // rate given the fills.
        for (w, budget, b, levels) in [
            (20_000u64, 300_000u64, 16u32, 1u32),
            (20_000, 400_000, 16, 2),
        ] {
            let p = SwBfParams {
                window: w,
                blocks: Some(b),
                levels: Some(levels),
                k: Some(3),
            };
            let mut f = SwBf::new(budget, &p, 0).unwrap();
            for i in 0..(3 * w + 777) {
                f.step(hash_key(i, 8));
            }
            let rate = false_positive_rate_given_fills(&f.fills(), 3);
            crate::test_support::check_never_seen_fpr(
                &format!("sw_bf b={b} L={levels}"),
                |h| f.contains(h),
                rate,
            );
        }
    }

    #[test]
    fn sizing_follows_the_code() {
        // The conformance geometry: 200,000 bits, W = 10,000, B = 16, L = 2 (the code's 17
        // filters of 5,882 bits and 9 of 11,111).
        let p = SwBfParams {
            window: 10_000,
            blocks: Some(16),
            levels: Some(2),
            k: None,
        };
        let f = SwBf::new(200_000, &p, 0).unwrap();
        let g = f.geometry();
        assert_eq!(
            (g[0].blocks, g[0].block_len, g[0].filter_bits),
            (16, 625, 5882)
        );
        assert_eq!(
            (g[1].blocks, g[1].block_len, g[1].filter_bits),
            (8, 1250, 11_111)
        );
        assert_eq!(f.memory_bits(), 17 * 5882 + 9 * 11_111);
        assert_eq!(f.k(), 3);
        assert_eq!(guaranteed_window(&g), 10_000);
        let p32 = SwBfParams {
            blocks: Some(32),
            ..p.clone()
        };
        let g = SwBf::new(200_000, &p32, 0).unwrap().geometry();
        assert_eq!(
            guaranteed_window(&g),
            32 * 312,
            "312-element blocks fall short of W"
        );
        for bad in [
            SwBfParams {
                window: 0,
                ..p.clone()
            },
            SwBfParams {
                blocks: Some(1),
                ..p.clone()
            },
            SwBfParams {
                k: Some(0),
                ..p.clone()
            },
            SwBfParams {
                window: 10,
                blocks: Some(16),
                levels: Some(1),
                k: None,
            },
        ] {
            assert!(matches!(
                SwBf::new(1 << 20, &bad, 0),
                Err(Error::InvalidParameter { .. })
            ));
        }
        assert!(matches!(
            SwBf::new(10, &p, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
    }
}
