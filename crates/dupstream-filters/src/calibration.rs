//! What an element costs, calibrated on the machine by the roofline benchmark
//! (`benches/roofline.rs`, `just roofline`), for a runner's time estimate.
//!
//! The model: a structure that touches `L` random cells per element
//! ([`cells_per_element`]) takes `ratio × (base_ns + cell_ns · L)` ns per element, where
//! `base_ns + cell_ns · L` is the limit loop of the roofline benchmark (generate a key, hash
//! it, test-and-set `L` random bits, prefetched) at the structure's memory size, and `ratio` is
//! the structure's measured ns per element over that loop's ([`ratio`]). Both are measured at
//! 1 Mbit, 8 MiB and 512 MB ([`LEVELS`]); other sizes interpolate linearly in `log(bits)` and
//! clamp at the ends. The saturated streaming cuckoo filter's relocations come on top, from
//! [`crate::cuckoo::kicks_per_element`] at [`LEVELS`]' `kick_ns` (a dependent chain of bucket
//! reads: its cost is latency, not bandwidth).
//!
//! Regenerate the numbers on the machine that will run the experiments with `just roofline`
//! (which rewrites `src/calibration_table.rs` and prints the table); they are ratios and
//! per-cell costs measured in one process, so a loaded machine moves them less than it moves
//! absolute times.

use crate::spec::FilterSpec;

/// The limit loop at one memory size: `base_ns + cell_ns · L` ns per element for `L` cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationLevel {
    /// The memory size, in bits.
    pub memory_bits: u64,
    /// ns per element that do not depend on `L`: key generation, hashing, the loop.
    pub base_ns: f64,
    /// ns per random cell tested and set (prefetched).
    pub cell_ns: f64,
}

include!("calibration_table.rs");

/// Random cells (cache lines, out of cache) a structure touches per element at `budget_bits`,
/// on an insertion; the `L` of the roofline's limit loop.
///
/// Bloom `K`; SBF `K + P` (`P` from Eq. 17 when given as `fps`); FP-SBF `K + L`; RSBF and the
/// BSBF family their `k` probes plus one reset per filter (BSBFSD: one reset); A2 `2·k` (both
/// filters); b_DBF `K` plus its sequential decay (one line per 8 words swept); QHT, SQF and the
/// buffers one bucket; the cuckoo filter its 2 buckets (relocations are extra:
/// [`crate::cuckoo::kicks_per_element`]).
pub fn cells_per_element(spec: &FilterSpec, budget_bits: u64) -> f64 {
    let m = budget_bits.max(1);
    match spec {
        FilterSpec::Bloom(p) => f64::from(match (p.k, p.n) {
            (Some(k), _) => k,
            (None, Some(n)) => crate::bloom::optimal_k(m, n),
            (None, None) => 2,
        }),
        FilterSpec::Sbf(p) => {
            let cells = m / u64::from(crate::sbf::cell_bits(p.max.max(1))).max(1);
            let pp = match (p.p, p.fps) {
                (Some(pp), _) => pp as f64,
                (None, Some(fps)) => crate::theory::p_for_fps(cells.max(2), p.k, p.max, fps)
                    .floor()
                    .max(1.0),
                (None, None) => 4.0,
            };
            let total = f64::from(p.k) + pp;
            if total.is_finite() { total } else { 2.0 }
        }
        FilterSpec::FpSbf(p) => {
            let max = crate::fpsbf::max_value(p.c);
            let cells = m / u64::from(p.c + p.f).max(1);
            let l = match (p.l, p.fps) {
                (Some(l), _) => l as f64,
                (None, Some(fps)) => crate::fpsbf::l_for_fps(fps, p.k, max, cells.max(2)),
                (None, None) => 1.0,
            };
            let total = f64::from(p.k) + if l.is_finite() { l } else { 1.0 };
            total.max(1.0)
        }
        FilterSpec::Rsbf(p) => 2.0 * f64::from(p.resolved_k().unwrap_or(2)),
        FilterSpec::Bsbf(p) => 2.0 * f64::from(p.k),
        FilterSpec::Rlbsbf(p) => 2.0 * f64::from(p.k),
        FilterSpec::Bsbfsd(p) => f64::from(p.k) + 1.0,
        FilterSpec::A2(p) => 2.0 * f64::from(crate::a2::hashes_for(p.fpr)),
        FilterSpec::BDbf(p) => {
            let k =
                p.k.unwrap_or_else(|| crate::bdbf::default_k(m / u64::from(p.cell_bits), p.window));
            let blocks = p
                .blocks
                .unwrap_or_else(|| crate::bdbf::default_blocks(p.window, p.cell_bits));
            f64::from(k) + (m as f64 / 64.0 / blocks.max(1) as f64 / 8.0).max(1.0)
        }
        FilterSpec::Cuckoo(_) => 2.0,
        #[allow(unreachable_patterns)]
        _ => 1.0,
    }
}

/// The limit loop's ns per element for `cells` cells at `budget_bits` (interpolated in
/// `log(bits)` between [`LEVELS`], clamped at the ends).
pub fn limit_ns_per_element(budget_bits: u64, cells: f64) -> f64 {
    let at = |l: &CalibrationLevel| l.base_ns + l.cell_ns * cells;
    interpolate(budget_bits, |i| at(&LEVELS[i]))
}

/// Interpolates a per-level quantity in `log(bits)`.
fn interpolate(budget_bits: u64, value: impl Fn(usize) -> f64) -> f64 {
    let x = (budget_bits.max(1) as f64).ln();
    let xs: Vec<f64> = LEVELS.iter().map(|l| (l.memory_bits as f64).ln()).collect();
    if x <= xs[0] {
        return value(0);
    }
    for i in 1..xs.len() {
        if x <= xs[i] {
            let t = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
            return value(i - 1) * (1.0 - t) + value(i) * t;
        }
    }
    value(xs.len() - 1)
}

/// The structure's measured ns per element over the limit loop's at `budget_bits`
/// (interpolated like [`limit_ns_per_element`]; 1.0 for a structure the benchmark does not run).
pub fn ratio(name: &str, budget_bits: u64) -> f64 {
    match RATIOS.iter().find(|(n, _)| *n == name) {
        Some((_, r)) => interpolate(budget_bits, |i| r[i]),
        None => 1.0,
    }
}

/// Estimated ns per element of `spec` at `budget_bits`, single-threaded, without relocations
/// of a saturated cuckoo filter (add [`crate::cuckoo::kicks_per_element`] × [`kick_ns`]).
pub fn ns_per_element(spec: &FilterSpec, budget_bits: u64) -> f64 {
    ratio(spec.name(), budget_bits)
        * limit_ns_per_element(budget_bits, cells_per_element(spec, budget_bits))
}

/// ns per relocation of the cuckoo filter at `budget_bits` (a dependent bucket read and write).
pub fn kick_ns(budget_bits: u64) -> f64 {
    interpolate(budget_bits, |i| KICK_NS[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_covers_the_three_sizes_and_grows_with_cells() {
        assert_eq!(LEVELS.len(), 3);
        assert!(
            LEVELS
                .windows(2)
                .all(|w| w[0].memory_bits < w[1].memory_bits)
        );
        for bits in [1 << 10, 1 << 20, 1 << 26, 1 << 30, 1 << 40] {
            assert!(limit_ns_per_element(bits, 8.0) > limit_ns_per_element(bits, 1.0));
        }
    }

    #[test]
    fn sbf_cells_follow_eq_17() {
        let spec = FilterSpec::Sbf(crate::sbf::SbfParams::with_fps(3, 2, 0.02));
        let p = crate::theory::p_for_fps((1 << 20) / 2, 2, 3, 0.02).floor();
        assert_eq!(cells_per_element(&spec, 1 << 20), 2.0 + p);
    }
}
