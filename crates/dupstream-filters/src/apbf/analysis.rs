//! The APBF's analysis: the false positive rate from the paper's recursion and from the fills
//! of a filter in use, the window bounds and the detection probability across them, the
//! blocked variant's rate, the cells an element touches, and sizing from a window and a target
//! rate (the model is in the [parent module](super)'s documentation).

use std::f64::consts::LN_2;

/// The `(k, l)` configurations the paper tabulates, per target false positive rate
/// `10^−e` (`e` = 1..=5), from the fewest slices (level 0) to the least slack. Transcribed from
/// RedisBloom's `APBF_createHighLevelAPI` ("precalculated and appear in the paper"); see
/// `experiments/leaderboard/apbf-paper-values.csv`.
pub const PAPER_CONFIGS: [&[(u32, u32)]; 5] = [
    &[(4, 3), (5, 7), (6, 14), (7, 28), (8, 56)],
    &[(7, 5), (8, 8), (9, 14), (10, 25), (11, 46), (12, 88)],
    &[(10, 7), (11, 9), (12, 14), (13, 23), (14, 40), (15, 74)],
    &[(14, 11), (15, 15), (16, 22), (17, 36), (18, 63), (19, 117)],
    &[(17, 13), (18, 16), (19, 22), (20, 33), (21, 54), (22, 95)],
];

/// Probability that a sequence of independent trials with success probabilities `p` contains a
/// run of at least `k` consecutive successes (the paper's recursion `F`, evaluated forward over
/// the current run length). `k = 0` gives 1.
pub fn run_probability(k: u32, p: &[f64]) -> f64 {
    let k = k as usize;
    if k == 0 {
        return 1.0;
    }
    // dist[r]: probability that no run of k has occurred and the current run has length r.
    let mut dist = vec![0.0f64; k];
    let mut next = vec![0.0f64; k];
    dist[0] = 1.0;
    let mut hit = 0.0;
    for &pi in p {
        next.fill(0.0);
        for (r, &mass) in dist.iter().enumerate() {
            next[0] += mass * (1.0 - pi);
            if r + 1 == k {
                hit += mass * pi;
            } else {
                next[r + 1] += mass * pi;
            }
        }
        std::mem::swap(&mut dist, &mut next);
    }
    hit
}

/// The paper's fill ratios: `(i+1)/(2k)` for the `k` slices still receiving insertions and
/// `1/2` for the `l` older ones.
pub fn paper_fill_ratios(k: u32, l: u32) -> Vec<f64> {
    (0..k + l)
        .map(|i| {
            if i < k {
                f64::from(i + 1) / f64::from(2 * k)
            } else {
                0.5
            }
        })
        .collect()
}

/// The paper's false positive rate of an APBF with `k` and `l` (slices sized
/// `m = k·g/ln 2`): [`run_probability`] over [`paper_fill_ratios`].
pub fn false_positive_rate(k: u32, l: u32) -> f64 {
    run_probability(k, &paper_fill_ratios(k, l))
}

/// Expected fill ratio of each slice position (0 = newest) in steady state, with slices of `m`
/// bits, `g` insertions per generation and `c` (`0..=g`) insertions so far in the current one:
/// position `i < k` has received `i·g + c` insertions, positions `i ≥ k` have received `k·g`;
/// a slice of `m` bits after `n` insertions has fill `1 − (1 − 1/m)^n`.
pub fn expected_fill_ratios(k: u32, l: u32, m: u64, g: u64, c: u64) -> Vec<f64> {
    let q = (-1.0 / m as f64).ln_1p();
    (0..u64::from(k + l))
        .map(|i| {
            let n = if i < u64::from(k) {
                i * g + c
            } else {
                u64::from(k) * g
            };
            -(q * n as f64).exp_m1()
        })
        .collect()
}

/// The false positive rate at phase `c` of a generation (see [`expected_fill_ratios`]).
pub fn false_positive_rate_at(k: u32, l: u32, m: u64, g: u64, c: u64) -> f64 {
    run_probability(k, &expected_fill_ratios(k, l, m, g, c))
}

/// The false positive rate averaged over the phases `c = 1..=g` of a generation (what a long
/// stream of non-members measures).
pub fn false_positive_rate_mean(k: u32, l: u32, m: u64, g: u64) -> f64 {
    (1..=g)
        .map(|c| false_positive_rate_at(k, l, m, g, c))
        .sum::<f64>()
        / g as f64
}

/// Every re-occurrence at gap `d ≤ l·g + 1` is reported, whatever the phase.
pub fn guaranteed_window(l: u32, g: u64) -> u64 {
    u64::from(l) * g + 1
}

/// No re-occurrence at gap `d > (l+1)·g` is reported for certain (only by chance).
pub fn max_window(l: u32, g: u64) -> u64 {
    (u64::from(l) + 1) * g
}

/// Probability that an element inserted as the `c_x`-th (`1..=g`) of its generation is reported
/// when it re-occurs at gap `d ≥ 1` (after `d − 1` other insertions), in steady state with
/// slices of `m` bits: the element's own bits are set in its surviving slices, every other
/// probed bit is set with the slice's expected fill ([`expected_fill_ratios`]).
pub fn detection_probability(k: u32, l: u32, m: u64, g: u64, c_x: u64, d: u64) -> f64 {
    assert!((1..=g).contains(&c_x) && d >= 1, "c_x in 1..=g and d ≥ 1");
    // Insertions since the start of x's generation, at query time.
    let t = c_x + d - 1;
    let shifts = t.div_ceil(g) - 1;
    let c = t - shifts * g;
    let mut p = expected_fill_ratios(k, l, m, g, c);
    for pos in shifts..shifts + u64::from(k) {
        if let Some(pi) = p.get_mut(pos as usize) {
            *pi = 1.0;
        }
    }
    run_probability(k, &p)
}

/// Detection probability at gap `d` averaged over the inserting phase `c_x = 1..=g`.
pub fn detection_probability_mean(k: u32, l: u32, m: u64, g: u64, d: u64) -> f64 {
    (1..=g)
        .map(|c| detection_probability(k, l, m, g, c, d))
        .sum::<f64>()
        / g as f64
}

/// The blocked variant's false positive rate at phase `c`, under the model that each
/// generation's insertions fall into the `m/64` blocks independently (a block's count per
/// generation is Poisson with mean `g·64/m`) and that bits within a block's word are uniform.
/// The expectation over the block counts is taken by Monte Carlo with `samples` draws from a
/// fixed seed (deterministic).
pub fn blocked_false_positive_rate(k: u32, l: u32, m: u64, g: u64, c: u64, samples: u32) -> f64 {
    blocked_false_positive_rate_with_error(k, l, m, g, c, samples).0
}

/// [`blocked_false_positive_rate`] and the standard error of its Monte Carlo estimate.
pub fn blocked_false_positive_rate_with_error(
    k: u32,
    l: u32,
    m: u64,
    g: u64,
    c: u64,
    samples: u32,
) -> (f64, f64) {
    use crate::rng::{Rng, filter_rng};
    let nb = (m / 64).max(1) as f64;
    let mut rng = filter_rng(0xb10c, u64::from(k) << 32 | u64::from(l));
    // Knuth's product method (the means here are small: g·64/m = 64·ln 2/k ≈ 44/k).
    fn poisson(mean: f64, rng: &mut crate::rng::FilterRng) -> u64 {
        let limit = (-mean).exp();
        let mut prod = crate::rng::unit_f64(rng.next_u64());
        let mut n = 0u64;
        while prod > limit {
            prod *= crate::rng::unit_f64(rng.next_u64());
            n += 1;
        }
        n
    }
    let s = (k + l) as usize;
    let k_us = k as usize;
    let (mut total, mut total_sq) = (0.0, 0.0);
    let mut counts = vec![0u64; s];
    let mut fills = vec![0.0f64; s];
    let q = (-1.0f64 / 64.0).ln_1p();
    for _ in 0..samples {
        // counts[j]: insertions of generation j (0 = current, phase c) in the probed block.
        counts[0] = poisson(c as f64 / nb, &mut rng);
        for cj in counts.iter_mut().skip(1) {
            *cj = poisson(g as f64 / nb, &mut rng);
        }
        for (i, f) in fills.iter_mut().enumerate() {
            // Position i received generations max(0, i−k+1) ..= i.
            let lo = (i + 1).saturating_sub(k_us);
            let n: u64 = counts[lo..=i].iter().sum();
            *f = -(q * n as f64).exp_m1();
        }
        let x = run_probability(k, &fills);
        total += x;
        total_sq += x * x;
    }
    let n = f64::from(samples);
    let mean = total / n;
    let var = (total_sq / n - mean * mean).max(0.0);
    (mean, (var / n).sqrt())
}

/// Expected number of slice positions `≥ k` that the jump scan of
/// [`Apbf::contains`](super::Apbf::contains) probes for a non-member, when position `i`
/// (0 = newest) has its bit set independently with probability `fills[i]`
/// (`fills.len() = k + l`). Positions below `k` are not counted: they are the slices
/// an insertion sets, so the same cells. Exact (the scan probes each position at most once and
/// its future depends only on its cursor and run counts: a memoised recursion over those).
pub fn expected_probes_beyond_k(k: u32, fills: &[f64]) -> f64 {
    use std::collections::HashMap;
    let k = k as usize;
    let s = fills.len();
    if k == 0 || s < k {
        return 0.0;
    }
    fn go(
        k: usize,
        fills: &[f64],
        memo: &mut HashMap<(usize, usize, usize), f64>,
        cursor: usize,
        done: usize,
        carry: usize,
    ) -> f64 {
        if let Some(&v) = memo.get(&(cursor, done, carry)) {
            return v;
        }
        let r = fills[cursor];
        let mut e = if cursor >= k { 1.0 } else { 0.0 };
        if done + 1 + carry < k {
            e += r * go(k, fills, memo, cursor + 1, done + 1, carry);
        }
        if cursor >= k {
            e += (1.0 - r) * go(k, fills, memo, cursor - k, 0, done);
        }
        memo.insert((cursor, done, carry), e);
        e
    }
    go(k, fills, &mut HashMap::new(), s - k, 0, 0)
}

/// Cells (cache lines, out of cache) an APBF step touches per element, the `L` of the
/// roofline's limit loop ([`crate::calibration::cells_per_element`]), for `k`, `l`, `g` and
/// slices of `m` bits. Three parts:
///
/// - **Insertion**: the `k` bits of the `k` newest slices, one random line each (plain); the
///   whole block (blocked): the lines its `k + l` words span, on average over the block's
///   offset in 64-byte lines (interleaved), or `k + l` lines (tiled, [`blocked_tiled`]).
/// - **Query** (plain only; the block covers it in the blocked layout): the probes of the jump
///   scan at positions `≥ k` (those below are the insertion's own cells), in expectation for a
///   non-member with the slices at their expected fills at mid-generation
///   ([`expected_probes_beyond_k`], [`expected_fill_ratios`] at `c = g/2`). The scan exits
///   early, so in a sparse filter this is near 0 and in one at the paper's sizing about 0.5–1.
/// - **Clearing** ([`cleared_lines_per_element`]): the lines of the slice reset every `g`
///   insertions, one cell per line, as b_DBF's sweep is counted. These are not random: the
///   roofline's limit loop clears them as a sequential stream
///   ([`crate::calibration::cleared_lines_per_element`]), and the runner's estimate prices them
///   the same way, at [`crate::calibration::CalibrationLevel::line_ns`] each.
pub fn cells_per_element(k: u32, l: u32, m: u64, g: u64, blocked: bool) -> f64 {
    let s = u64::from(k + l);
    let clear = cleared_lines_per_element(k, l, m, g, blocked);
    if blocked && blocked_tiled(k, l, m, g) {
        // One line per slice.
        s as f64 + clear
    } else if blocked {
        // A block is s words at word offset b·s; over b, its offset in a line repeats every 8
        // blocks.
        let lines: u64 = (0..8u64).map(|b| ((b * s) % 8 + s).div_ceil(8)).sum();
        lines as f64 / 8.0 + clear
    } else {
        let g = g.max(1);
        let fills = expected_fill_ratios(k, l, m.max(1), g, g / 2);
        f64::from(k) + expected_probes_beyond_k(k, &fills) + clear
    }
}

/// Cache lines an APBF clears per element: a slice every `g` insertions. Plain: the slice's
/// `⌈m/64⌉` words, contiguous, `m/(512·g)` lines per element. Blocked, interleaved: word `j` of
/// every one of the `m/64` blocks, so every line that holds one, `(m/64)·min(1, (k+l)/8)/g` per
/// element (all lines of the array once `k + l ≤ 8`); tiled ([`blocked_tiled`]): the slice's
/// eight lines of every tile of 64 blocks (fewer in a shorter last tile), about `m/(512·g)`. No algorithm with these bits avoids it: the set bits of a
/// retired slice are not known without reading it. At the paper's sizing (`m = k·g/ln 2`) it
/// is `k/(512 ln 2)` (plain) or `k/(64 ln 2)` (blocked, interleaved) lines per element; in an
/// APBF much larger than its window it dominates, and the blocked one is then tiled.
pub fn cleared_lines_per_element(k: u32, l: u32, m: u64, g: u64, blocked: bool) -> f64 {
    let g = g.max(1) as f64;
    if blocked && blocked_tiled(k, l, m, g as u64) {
        // Eight lines a full tile, and a line per eight blocks of the shorter last one.
        let (blocks, tile) = (m / 64, TILE_BLOCKS as u64);
        ((blocks / tile) * (tile / 8) + (blocks % tile).div_ceil(8)) as f64 / g
    } else if blocked {
        interleaved_cleared_lines(k, l, m, g)
    } else {
        m.div_ceil(64) as f64 / 8.0 / g
    }
}

/// [`cleared_lines_per_element`] of a blocked APBF with interleaved blocks.
fn interleaved_cleared_lines(k: u32, l: u32, m: u64, g: f64) -> f64 {
    (m / 64) as f64 * (f64::from(k + l) / 8.0).min(1.0) / g
}

/// Blocks per tile of a tiled blocked APBF ([`blocked_tiled`]): each slice's 64 words of a
/// tile are eight consecutive lines, which a shift zeroes in one run (tiles of 8 blocks, one
/// line each, took 195 ns per element at 512 MB in the roofline, against 114 ns).
pub const TILE_BLOCKS: usize = 64;

/// Whether a blocked APBF stores its blocks tiled rather than interleaved: when interleaved,
/// its clearing would touch more lines per element than a tiled step does (`k + l`), i.e. the
/// filter is much larger than its generation (`m/64 > (k + l)·g` once `k + l ≥ 8`).
///
/// Both storages hold the same bits (block `b`, slice `j`, bit `i`) and give the same
/// verdicts; they differ in where a word lives. Interleaved, block `b`'s `k + l` words are
/// contiguous: a step touches the one to three lines they span, and a shift, which clears
/// word `j` of every block, touches a line per block (and the hardware reads all of them).
/// Tiled, [`TILE_BLOCKS`] consecutive blocks form a tile in which each slice's words are
/// contiguous (eight lines; the blocks past the last full tile form a shorter one, so nothing
/// is padded): a step touches `k + l` lines (one per slice, 512 bytes apart),
/// and a shift clears whole lines of the slice alone, an eighth as many, written without
/// being read (non-temporal stores; the slice's bits are counted as they are set).
pub fn blocked_tiled(k: u32, l: u32, m: u64, g: u64) -> bool {
    interleaved_cleared_lines(k, l, m, g.max(1) as f64) > f64::from(k + l)
}

/// The `(k, l)` with `k ≤ 32`, `l ≤ 256` whose [`false_positive_rate`] is at most `fpr` and
/// whose memory per guaranteed-window element, `(k + l)·k / (l·ln 2)`, is least (ties: fewer
/// slices).
///
/// # Panics
/// If `fpr` is not in `(0, 1)` or is below what `k ≤ 32` reaches (≈ 10^−9).
pub fn config_for_fpr(fpr: f64) -> (u32, u32) {
    assert!(fpr > 0.0 && fpr < 1.0, "fpr must be in (0, 1)");
    let mut best: Option<(f64, u32, u32)> = None;
    for k in 1..=32u32 {
        for l in 1..=256u32 {
            let cost = f64::from(k + l) * f64::from(k) / f64::from(l);
            if best.is_some_and(|(c, _, _)| cost >= c) {
                continue;
            }
            if false_positive_rate(k, l) <= fpr {
                best = Some((cost, k, l));
            }
        }
    }
    let (_, k, l) = best.expect("fpr reachable with k ≤ 32");
    (k, l)
}

/// An APBF sized for a window of `W` elements and a target false positive rate through the
/// paper's formulas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSizing {
    /// Hashes / filling slices.
    pub k: u32,
    /// Extra slices.
    pub l: u32,
    /// Insertions per generation, `⌈(W − 1)/l⌉`.
    pub g: u64,
    /// Bits per slice, `⌈k·g / ln 2⌉`.
    pub m: u64,
    /// Total bits, `(k + l)·m`.
    pub bits: u64,
    /// [`false_positive_rate`]`(k, l)`.
    pub fpr: f64,
}

impl WindowSizing {
    /// Sizing for a window of `window` elements at false positive rate `fpr`
    /// ([`config_for_fpr`]).
    pub fn new(window: u64, fpr: f64) -> Self {
        let (k, l) = config_for_fpr(fpr);
        Self::with_kl(window, k, l)
    }

    /// Sizing for a window with a given `(k, l)`.
    pub fn with_kl(window: u64, k: u32, l: u32) -> Self {
        let g = g_for_window(window, l);
        let m = (f64::from(k) * g as f64 / LN_2).ceil() as u64;
        Self {
            k,
            l,
            g,
            m,
            bits: u64::from(k + l) * m,
            fpr: false_positive_rate(k, l),
        }
    }
}

pub(super) fn g_for_window(window: u64, l: u32) -> u64 {
    window.saturating_sub(1).div_ceil(u64::from(l)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed to 6 decimals for these `(k, l)` by CrowdStrike's `apbf` tests (the
    /// paper's configurations); the recursion must reproduce them to that precision.
    #[test]
    fn paper_formula_reproduces_published_values() {
        let published = [
            (4, 3, 0.100586),
            (5, 7, 0.101603),
            (7, 5, 0.011232),
            (8, 8, 0.010244),
            (10, 7, 0.001211),
            (11, 9, 0.000918),
            (14, 11, 0.000099),
            (15, 15, 0.000100),
            (18, 16, 0.000009),
        ];
        for (k, l, v) in published {
            let f = false_positive_rate(k, l);
            assert!((f - v).abs() <= 5e-7, "({k},{l}): {f} vs {v}");
        }
        // By hand: k = 1, l = 1 — a run of one among fills (1/2, 1/2): 1 − 1/4.
        assert!((false_positive_rate(1, 1) - 0.75).abs() < 1e-15);
        assert_eq!(run_probability(2, &[1.0, 0.0, 1.0]), 0.0);
        assert_eq!(run_probability(2, &[0.0, 1.0, 1.0]), 1.0);
    }
}
