//! What an element costs, calibrated on the machine by the roofline benchmark
//! (`benches/roofline.rs`, `just roofline`), for a runner's time estimate.
//!
//! The model: a structure that touches `L` random cells per element
//! ([`cells_per_element`]) takes `ratio × limit(L)` ns per element, where `limit(L)` is the
//! limit loop of the roofline benchmark (generate a key, hash it, test-and-set `L` random
//! bits, prefetched) at the structure's memory size, as measured at each `L` the benchmark ran
//! and linear in `L` between them ([`CalibrationLevel::limit`]), and `ratio` is
//! the structure's measured ns per element over that loop's ([`ratio`]; the row is chosen by
//! [`row_name`]). Both are measured at 64 Kbit, 1 Mbit, 8 MiB, 64 MB and 512 MB ([`LEVELS`]);
//! other sizes interpolate linearly in `log(bits)` and clamp at the ends. The saturated streaming cuckoo
//! filter's relocations come on top, from [`crate::cuckoo::kicks_per_element`] times the
//! fraction a small table executes ([`crate::cuckoo::walked_fraction`]) at [`kick_ns`] (a
//! dependent chain of bucket reads: its cost is latency, not bandwidth), measured for each
//! geometry (`b`, `f`) the catalogue runs ([`KICK_NS`]).
//! [`step_ns`] is what a runner adds per element for the structure: the above without the
//! benchmark's own key generation and hashing ([`FILL_NS`]), or, for a structure the benchmark
//! does not run, its nominal relative cost times a calibrated Bloom step.
//!
//! Regenerate the numbers on the machine that will run the experiments with `just roofline`
//! (which rewrites `src/calibration_table.rs`, with the machine and its load average in the
//! header, and prints the table); they are ratios and per-cell costs measured in one process
//! in thread CPU time, so a loaded machine moves them less than it moves absolute times.

use crate::spec::FilterSpec;

/// The limit loop at one memory size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationLevel {
    /// The memory size, in bits.
    pub memory_bits: u64,
    /// `(L, ns per element)` of the limit loop with `L` random cells tested and set
    /// (prefetched), at each `L` the benchmark ran (the median over its rows with that `L`),
    /// `L` increasing. Between them the time is linear in `L`, beyond the last it goes on with
    /// the last segment's slope. (Out of cache the time is far from one line in `L`: at 512 MB
    /// a few cells overlap their misses, forty saturate the memory system, and a least-squares
    /// line through all of them priced `L = 4` at 1.5 times its measured time.)
    pub limit: &'static [(f64, f64)],
    /// ns per cache line cleared in sequence (a memset; the APBF's slice reset,
    /// [`cleared_lines_per_element`]).
    pub line_ns: f64,
}

/// A structure's ns per element over the limit loop's with as many cells, at the sizes of
/// [`LEVELS`], for one benchmarked parameter set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioRow {
    /// The row: a structure's name ([`row_name`]), or `name/variant` for another parameter set
    /// of the same structure.
    pub name: &'static str,
    /// The cells the benchmarked parameter set touches per element ([`cells_per_element`] at
    /// 1 Mbit).
    pub cells: f64,
    /// The ratio at each size of [`LEVELS`], on a stream with a fraction [`DUP_LOW`] of
    /// duplicates.
    pub ratio: &'static [f64],
    /// The same with a fraction [`DUP_HIGH`] of duplicates.
    pub ratio_dup: &'static [f64],
}

/// A cuckoo filter geometry's cost per relocation, measured by the roofline benchmark on a
/// saturated filter of that geometry ([`kick_ns`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KickRow {
    /// `b`: entries per bucket.
    pub b: u32,
    /// `f`: fingerprint bits.
    pub f: u32,
    /// The `max_num_kicks` of the benchmarked filter.
    pub max_num_kicks: u32,
    /// `(bits, ns per relocation executed)`, bits increasing: the element's whole time over the
    /// relocations it executed ([`crate::cuckoo::StreamingCuckoo::walked_kicks`]).
    pub ns: &'static [(u64, f64)],
}

/// The fraction of duplicates in the roofline benchmark's first stream (stationary: every
/// element is a duplicate with this probability, its predecessor at a random distance).
pub const DUP_LOW: f64 = 0.5;
/// The fraction of duplicates in the benchmark's second stream. A structure's time is a mix of
/// its time on a duplicate and on a new key, so its ratio is linear in the fraction of
/// duplicates ([`ratio_at_dup`]); the two streams give the line.
pub const DUP_HIGH: f64 = 0.9;

/// A row's ratio on a stream with a fraction `dup` of duplicates, from its ratios `low` at
/// [`DUP_LOW`] and `high` at [`DUP_HIGH`]: on the line through the two from [`DUP_LOW`] to 1
/// (beyond [`DUP_HIGH`] a quarter of the measured span), never below zero; below [`DUP_LOW`],
/// `low`. Extrapolated down to no duplicates the line would be read 1.25 spans from its
/// points, where each ratio's run-to-run spread (about 10 %) grows 2.6 times and a row whose
/// two ratios differ by noise alone gets a slope; kept at `low`, a structure that does more for
/// a new key (the buffers' eviction) is priced low on a stream of few duplicates, as every
/// structure was before the second stream. The fraction is the ground truth's; a structure's
/// own verdicts, which decide what it does, can differ from it (an SBF forgets, a Bloom filter
/// fills). A fraction that is not a number counts as [`DUP_LOW`].
pub fn ratio_at_dup(low: f64, high: f64, dup: f64) -> f64 {
    let dup = if dup.is_nan() { DUP_LOW } else { dup };
    let t = (dup.clamp(DUP_LOW, 1.0) - DUP_LOW) / (DUP_HIGH - DUP_LOW);
    (low + (high - low) * t).max(0.0)
}

/// The generated table (`just roofline`), in a module of its own so that one `allow` covers it:
/// a measured figure can fall on 3.14 or 6.28, which clippy would take for an approximate π.
#[allow(clippy::approx_constant)]
mod table {
    #[allow(unused_imports)]
    use super::*;
    include!("calibration_table.rs");
}
pub use table::*;

/// Random cells (cache lines, out of cache) a structure touches per element at `budget_bits`,
/// on an insertion; the `L` of the roofline's limit loop. Each structure states its own
/// ([`crate::Structure::cells_per_element`], beside its code): Bloom `K`, SBF `K + P`, a buffer
/// 4, a queue of `L` filters `L + 1` times its inner filter's cells, and so on.
pub fn cells_per_element(spec: &FilterSpec, budget_bits: u64) -> f64 {
    spec.cells_per_element(budget_bits)
}

/// The part of [`cells_per_element`] that is cache lines cleared in sequence rather than cells
/// touched at random: the APBF's slice reset ([`crate::apbf::cleared_lines_per_element`]); 0
/// for every other structure (b_DBF's sweep stays priced as random cells). The roofline's limit
/// loop touches `cells_per_element − cleared` random cells and clears these lines as a stream
/// (a memset of as many bytes), the cheapest way to reset that much memory; the estimate
/// ([`ns_per_element`]) prices them the same way, at [`CalibrationLevel::line_ns`] each.
pub fn cleared_lines_per_element(spec: &FilterSpec, budget_bits: u64) -> f64 {
    spec.cleared_lines_per_element(budget_bits)
}

/// The limit loop's ns per element for `cells` cells at `budget_bits` (interpolated in
/// `log(bits)` between [`LEVELS`], clamped at the ends).
pub fn limit_ns_per_element(budget_bits: u64, cells: f64) -> f64 {
    interpolate(budget_bits, |i| limit_at(LEVELS[i].limit, cells))
}

/// The limit loop's time at `cells` cells from its measured points (`(L, ns)`, `L` increasing,
/// not empty): linear between two points, the last segment's slope beyond the last point, the
/// first point's time scaled by `cells / L` below it.
pub fn limit_at(points: &[(f64, f64)], cells: f64) -> f64 {
    let (l0, t0) = points[0];
    if cells <= l0 {
        return t0 * cells / l0;
    }
    for w in points.windows(2) {
        let ((a, ta), (b, tb)) = (w[0], w[1]);
        if cells <= b {
            return ta + (tb - ta) * (cells - a) / (b - a);
        }
    }
    match points {
        [.., (a, ta), (b, tb)] => tb + (tb - ta) / (b - a) * (cells - b),
        _ => t0 * cells / l0,
    }
}

/// Interpolates a per-level quantity in `log(bits)` between [`LEVELS`].
fn interpolate(budget_bits: u64, value: impl Fn(usize) -> f64) -> f64 {
    let at: Vec<u64> = LEVELS.iter().map(|l| l.memory_bits).collect();
    let values: Vec<f64> = (0..LEVELS.len()).map(value).collect();
    interpolate_log(budget_bits, &at, &values)
}

/// `values` measured at the sizes `at` (bits, increasing), read at `bits`: linear in
/// `log(bits)` between two sizes, the first or last value outside them.
pub fn interpolate_log(bits: u64, at: &[u64], values: &[f64]) -> f64 {
    assert!(
        !at.is_empty() && at.len() == values.len(),
        "one value per size"
    );
    let xs: Vec<f64> = at.iter().map(|&b| (b.max(1) as f64).ln()).collect();
    piecewise_linear((bits.max(1) as f64).ln(), &xs, values)
}

/// The piecewise-linear function through `(xs[i], ys[i])` (`xs` increasing, not empty) at `x`:
/// the first or last `y` outside `xs`.
fn piecewise_linear(x: f64, xs: &[f64], ys: &[f64]) -> f64 {
    if x <= xs[0] {
        return ys[0];
    }
    for i in 1..xs.len() {
        if x <= xs[i] {
            let t = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
            return ys[i - 1] * (1.0 - t) + ys[i] * t;
        }
    }
    ys[xs.len() - 1]
}

/// The row of [`RATIOS`] that prices `spec`: its name, except for the SBF, whose variants the
/// benchmark runs separately: multi-bit cells (`max ≥ 2`: the QHT paper's `sbf_qht`, or
/// `sbf_adjacent_max3`) and Deng & Rafiei's adjacent decrements (`sbf_adjacent`).
pub fn row_name(spec: &FilterSpec) -> &'static str {
    match spec {
        FilterSpec::Sbf(p) => match (p.decrement, p.max >= 2) {
            (crate::sbf::Decrement::Independent, false) => "sbf",
            (crate::sbf::Decrement::Independent, true) => "sbf_qht",
            (crate::sbf::Decrement::Adjacent, false) => "sbf_adjacent",
            (crate::sbf::Decrement::Adjacent, true) => "sbf_adjacent_max3",
        },
        _ => spec.name(),
    }
}

/// The measured ratio of row `row` of [`RATIOS`] at `budget_bits` (interpolated like
/// [`limit_ns_per_element`]) on a stream with a fraction `dup` of duplicates
/// ([`ratio_at_dup`]); `None` for a row the benchmark did not run.
pub fn ratio(row: &str, budget_bits: u64, dup: f64) -> Option<f64> {
    RATIOS
        .iter()
        .find(|r| r.name == row)
        .map(|r| row_ratio(r, budget_bits, dup))
}

/// Row `r`'s ratio at `budget_bits` and duplicate fraction `dup`.
fn row_ratio(r: &RatioRow, budget_bits: u64, dup: f64) -> f64 {
    ratio_at_dup(
        interpolate(budget_bits, |i| r.ratio[i]),
        interpolate(budget_bits, |i| r.ratio_dup[i]),
        dup,
    )
}

/// The ratio for a structure priced by row `row` that touches `cells` cells per element: a
/// structure benchmarked at several parameter sets (rows `row`, `row/…`, e.g. `bsbf` at
/// `k = 2` and `bsbf/k4`) has its ratio interpolated linearly in the cells between them (the
/// nearest row's outside them), so that work per cell beyond the limit loop's (a random draw
/// per reset) grows with the cells; one row is used as it is. `dup` is the stream's fraction
/// of duplicates ([`ratio_at_dup`]). `None` without a row.
pub fn ratio_at_cells(row: &str, cells: f64, budget_bits: u64, dup: f64) -> Option<f64> {
    let variant = format!("{row}/");
    let mut rows: Vec<(f64, f64)> = RATIOS
        .iter()
        .filter(|r| r.name == row || r.name.starts_with(&variant))
        .map(|r| (r.cells, row_ratio(r, budget_bits, dup)))
        .collect();
    if rows.is_empty() {
        return None;
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (xs, ys): (Vec<f64>, Vec<f64>) = rows.into_iter().unzip();
    Some(piecewise_linear(cells, &xs, &ys))
}

/// Estimated ns per element of `spec` at `budget_bits`, single-threaded, as the roofline
/// benchmark times it (key generation and hashing included), without relocations of a
/// saturated cuckoo filter (add [`crate::cuckoo::kicks_per_element`] ×
/// [`crate::cuckoo::walked_fraction`] × [`kick_ns`]); `None` for
/// a structure the benchmark does not run.
///
/// Parameters other than the benchmarked ones scale through the limit loop: an SBF with another
/// `P` costs its row's ratio times the limit loop with its own `K + P` cells; the ratio itself
/// follows the cells between rows of several parameter sets ([`ratio_at_cells`]) and the
/// stream's fraction `dup` of duplicates ([`ratio_at_dup`]).
pub fn ns_per_element(spec: &FilterSpec, budget_bits: u64, dup: f64) -> Option<f64> {
    let cells = cells_per_element(spec, budget_bits);
    let cleared = cleared_lines_per_element(spec, budget_bits);
    let limit = limit_ns_per_element(budget_bits, (cells - cleared).max(1.0))
        + cleared * line_ns(budget_bits);
    ratio_at_cells(row_name(spec), cells, budget_bits, dup).map(|r| r * limit)
}

/// ns per cache line cleared in sequence at `budget_bits` (interpolated between [`LEVELS`]).
pub fn line_ns(budget_bits: u64) -> f64 {
    interpolate(budget_bits, |i| LEVELS[i].line_ns)
}

/// ns per relocation of a cuckoo filter with parameters `params` at `budget_bits` (a dependent
/// bucket read and write), interpolated in `log(bits)` between the sizes of its geometry's row
/// of [`KICK_NS`] ([`kick_row`]), which are finer than [`LEVELS`] where the table leaves L2 or
/// changes host layout.
///
/// The cost differs by geometry several times over (the table's rows: a linked or byte-cell
/// `b = 1` table relocates in a few ns, a packed `b = 4` one, which scans the next bucket's
/// four entries per kick, several times slower), so one row does not price the others.
pub fn kick_ns(params: &crate::cuckoo::CuckooParams, budget_bits: u64) -> f64 {
    let (at, ns): (Vec<u64>, Vec<f64>) = kick_row(params.b, params.f).ns.iter().copied().unzip();
    interpolate_log(budget_bits, &at, &ns)
}

/// The row of [`KICK_NS`] that prices a cuckoo filter of `b` entries of `f` bits per bucket:
/// its own geometry's, else the nearest measured one: first the nearest `b` (in `log2 b`),
/// then one of the same host layout family (`b = 1` with `f ≤ 8`, stored linked or a byte per
/// cell while small, [`crate::cuckoo::small_cells`], or packed bits), then the nearest `f`;
/// the remaining ties go to the larger `b`, then the larger `f` (more work per kick: the
/// estimate errs high).
pub fn kick_row(b: u32, f: u32) -> &'static KickRow {
    let small = crate::cuckoo::small_cells(b, f);
    let log_b = |x: u32| f64::from(x.max(1)).log2();
    // The distance in `log2 b` first, then the rest in order.
    let key = |r: &KickRow| {
        let rest = (
            crate::cuckoo::small_cells(r.b, r.f) != small,
            r.f.abs_diff(f),
            std::cmp::Reverse(r.b),
            std::cmp::Reverse(r.f),
        );
        ((log_b(r.b) - log_b(b)).abs(), rest)
    };
    KICK_NS
        .iter()
        .min_by(|x, y| {
            let (kx, ky) = (key(x), key(y));
            kx.0.total_cmp(&ky.0).then(kx.1.cmp(&ky.1))
        })
        .expect("a kick row")
}

/// The structure's own ns per element, the key's generation and hash excluded (the benchmark's
/// [`FILL_NS`] subtracted from [`ns_per_element`]), on a uniform stream of `elements` elements
/// over `universe` keys (which decide whether a cuckoo filter saturates and relocates:
/// [`crate::cuckoo::kicks_per_element`] × [`crate::cuckoo::walked_fraction`] × [`kick_ns`]),
/// a fraction `dup` of them duplicates ([`ratio_at_dup`]).
///
/// A structure or row the benchmark does not run falls back to its nominal relative cost
/// ([`FilterSpec::cost_at`], 1.0 = a `k = 2` Bloom step) times the calibrated step of a
/// `k = 2` Bloom filter at the same size and duplicate fraction ([`bloom_step_ns`]).
pub fn step_ns(spec: &FilterSpec, budget_bits: u64, elements: u64, universe: u64, dup: f64) -> f64 {
    let own = match ns_per_element(spec, budget_bits, dup) {
        Some(ns) => (ns - FILL_NS).max(0.0),
        None => spec.cost_at(budget_bits) * bloom_step_ns(budget_bits, dup),
    };
    let kicks = match spec {
        FilterSpec::Cuckoo(p) => {
            crate::cuckoo::kicks_per_element(p, budget_bits, elements, universe)
                * crate::cuckoo::walked_fraction(p, budget_bits)
                * kick_ns(p, budget_bits)
        }
        _ => 0.0,
    };
    own + kicks
}

/// The calibrated ns per element of a `k = 2` Bloom filter's step at `budget_bits` (the key's
/// generation and hash excluded): the unit of [`crate::Structure::RELATIVE_COST`] for
/// structures the benchmark does not run, on a stream with a fraction `dup` of duplicates.
pub fn bloom_step_ns(budget_bits: u64, dup: f64) -> f64 {
    let bloom = FilterSpec::Bloom(crate::bloom::BloomParams::with_k(2));
    let ns = ns_per_element(&bloom, budget_bits, dup)
        .unwrap_or_else(|| limit_ns_per_element(budget_bits, 2.0));
    (ns - FILL_NS).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_covers_the_three_sizes_and_grows_with_cells() {
        assert!(LEVELS.len() >= 3);
        // Relocations at every level, and in between (sorted by size), for every geometry.
        for row in KICK_NS {
            for l in LEVELS {
                assert!(row.ns.iter().any(|k| k.0 == l.memory_bits));
            }
            assert!(row.ns.windows(2).all(|w| w[0].0 < w[1].0));
            assert!(row.ns.iter().all(|k| k.1 > 0.0 && k.1.is_finite()));
        }
        assert!(
            RATIOS
                .iter()
                .all(|r| r.ratio.len() == LEVELS.len() && r.ratio_dup.len() == LEVELS.len())
        );
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
    fn the_limit_is_linear_between_its_points_and_extrapolated_beyond() {
        let points = [(1.0, 8.0), (2.0, 10.0), (4.0, 18.0), (40.0, 288.0)];
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        for &(l, ns) in &points {
            assert!(close(limit_at(&points, l), ns));
        }
        assert!(close(limit_at(&points, 3.0), 14.0));
        assert!(close(limit_at(&points, 22.0), 153.0));
        // Beyond the last point, the last segment's slope (7.5 ns per cell).
        assert!(close(limit_at(&points, 48.0), 348.0));
        // Below the first, proportional.
        assert!(close(limit_at(&points, 0.5), 4.0));
        assert!(close(limit_at(&[(2.0, 10.0)], 5.0), 25.0));
    }

    #[test]
    fn interpolation_is_linear_in_log_bits_and_clamps_at_the_ends() {
        let at = [1 << 20, 1 << 26, 1 << 32];
        let v = [10.0, 40.0, 100.0];
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // At the sizes, the values; half way in log(bits) (2^23, 2^29), the means; a quarter
        // of the way from 2^20 to 2^26 (2^21.5 bits, rounded to whole bits: 2965820),
        // 10 + 30/4 within rounding.
        assert!(close(interpolate_log(1 << 20, &at, &v), 10.0));
        assert!(close(interpolate_log(1 << 26, &at, &v), 40.0));
        assert!(close(interpolate_log(1 << 32, &at, &v), 100.0));
        assert!(close(interpolate_log(1 << 23, &at, &v), 25.0));
        assert!(close(interpolate_log(1 << 29, &at, &v), 70.0));
        assert!((interpolate_log(2_965_820, &at, &v) - 17.5).abs() < 1e-5);
        // Outside: clamped (0 bits counts as 1).
        assert!(close(interpolate_log(1 << 10, &at, &v), 10.0));
        assert!(close(interpolate_log(0, &at, &v), 10.0));
        assert!(close(interpolate_log(1 << 40, &at, &v), 100.0));
        assert!(close(interpolate_log(u64::MAX, &at, &v), 100.0));
    }

    #[test]
    fn the_limit_loop_and_ratios_are_read_at_the_levels() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
        for (i, l) in LEVELS.iter().enumerate() {
            assert!(close(
                limit_ns_per_element(l.memory_bits, 6.0),
                limit_at(l.limit, 6.0)
            ));
            // At an `L` the benchmark ran, the time it measured.
            for &(cells, ns) in l.limit {
                assert!(close(limit_ns_per_element(l.memory_bits, cells), ns));
            }
            let bloom = RATIOS
                .iter()
                .find(|r| r.name == "bloom")
                .expect("bloom row");
            assert!(close(
                ratio("bloom", l.memory_bits, DUP_LOW).unwrap(),
                bloom.ratio[i]
            ));
        }
        // Half way between the first two levels in log(bits): the mean of their limit loops.
        let (a, b) = (LEVELS[0], LEVELS[1]);
        let mid = ((a.memory_bits as f64).ln() + (b.memory_bits as f64).ln()) / 2.0;
        let expected = (limit_at(a.limit, 2.0) + limit_at(b.limit, 2.0)) / 2.0;
        assert!((limit_ns_per_element(mid.exp().round() as u64, 2.0) - expected).abs() < 1e-4);
        assert_eq!(ratio("no_such_row", 1 << 20, DUP_LOW), None);
    }

    #[test]
    fn an_sbf_with_another_p_scales_its_row_by_the_cells_it_touches() {
        let l = LEVELS[0];
        let sbf = RATIOS
            .iter()
            .find(|r| r.name == "sbf")
            .expect("sbf row")
            .ratio[0];
        assert!(
            !RATIOS.iter().any(|r| r.name.starts_with("sbf/")),
            "one plain SBF row"
        );
        // Max 1, K 2, P 10: 12 cells at the row's ratio (benchmarked at P 4).
        let spec = FilterSpec::Sbf(crate::sbf::SbfParams::new(1, 2, 10));
        assert_eq!(row_name(&spec), "sbf");
        let expected = sbf * limit_at(l.limit, 12.0) - FILL_NS;
        assert!((step_ns(&spec, l.memory_bits, 1 << 20, 1 << 20, DUP_LOW) - expected).abs() < 1e-9);
    }

    #[test]
    fn the_ratio_follows_the_cells_between_a_structures_rows() {
        // BSBF is benchmarked at k = 2 (4 cells) and k = 4 (8 cells).
        let row = |name: &str| *RATIOS.iter().find(|r| r.name == name).expect("row");
        let (k2, k4) = (row("bsbf"), row("bsbf/k4"));
        assert_eq!((k2.cells, k4.cells), (4.0, 8.0));
        for (i, l) in LEVELS.iter().enumerate() {
            let at = |cells| ratio_at_cells("bsbf", cells, l.memory_bits, DUP_LOW).unwrap();
            let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
            // k = 3: half way; a quarter of the way at 5 cells; the nearest row outside.
            assert!(close(at(6.0), (k2.ratio[i] + k4.ratio[i]) / 2.0));
            assert!(close(at(5.0), 0.75 * k2.ratio[i] + 0.25 * k4.ratio[i]));
            assert!(close(at(2.0), k2.ratio[i]));
            assert!(close(at(10.0), k4.ratio[i]));
            // A k = 3 BSBF: that ratio times the limit loop with its 6 cells.
            let spec = FilterSpec::Bsbf(crate::bsbf::BsbfParams {
                k: 3,
                ..Default::default()
            });
            let expected = at(6.0) * limit_at(l.limit, 6.0);
            assert!(close(
                ns_per_element(&spec, l.memory_bits, DUP_LOW).unwrap(),
                expected
            ));
        }
        // "bsbfsd" is its own structure, not a variant of "bsbf".
        let bsbfsd = row("bsbfsd").ratio[0];
        assert_eq!(
            ratio_at_cells("bsbfsd", 3.0, LEVELS[0].memory_bits, DUP_LOW),
            Some(bsbfsd)
        );
        assert_eq!(ratio_at_cells("nothing", 3.0, 1 << 20, DUP_LOW), None);
    }

    #[test]
    fn sbf_variants_have_their_own_rows() {
        use crate::sbf::{Decrement, SbfParams};
        let with = |max, decrement| {
            let mut p = SbfParams::new(max, 2, 4);
            p.decrement = decrement;
            row_name(&FilterSpec::Sbf(p))
        };
        assert_eq!(with(1, Decrement::Independent), "sbf");
        assert_eq!(with(3, Decrement::Independent), "sbf_qht");
        assert_eq!(with(1, Decrement::Adjacent), "sbf_adjacent");
        assert_eq!(with(3, Decrement::Adjacent), "sbf_adjacent_max3");
        let bloom = FilterSpec::Bloom(crate::bloom::BloomParams::with_k(2));
        assert_eq!(row_name(&bloom), "bloom");
    }

    #[test]
    fn a_structure_without_a_row_costs_its_nominal_cost_in_bloom_steps() {
        let exact = FilterSpec::Exact(crate::exact::ExactParams {});
        assert_eq!(ratio(row_name(&exact), 1 << 20, DUP_LOW), None);
        assert_eq!(ns_per_element(&exact, 1 << 20, DUP_LOW), None);
        for (i, l) in LEVELS.iter().enumerate() {
            let bloom = RATIOS
                .iter()
                .find(|r| r.name == "bloom")
                .expect("bloom row")
                .ratio[i];
            let unit = (bloom * limit_at(l.limit, 2.0) - FILL_NS).max(0.0);
            assert!((bloom_step_ns(l.memory_bits, DUP_LOW) - unit).abs() < 1e-9);
            // `Exact::RELATIVE_COST` is 4 Bloom steps.
            let got = step_ns(&exact, l.memory_bits, 1 << 20, 1 << 20, DUP_LOW);
            assert!((got - 4.0 * unit).abs() < 1e-9, "{got} vs 4 × {unit}");
        }
    }

    #[test]
    fn a_cuckoo_filter_pays_relocations_only_once_saturated() {
        let p = crate::cuckoo::CuckooParams::default();
        let spec = FilterSpec::Cuckoo(p.clone());
        let bits = LEVELS[0].memory_bits;
        let own = ns_per_element(&spec, bits, DUP_LOW).expect("cuckoo row") - FILL_NS;
        // 1000 keys never fill the first level's 3-bit fingerprints (at least 64 Kbit):
        // no relocations.
        assert!((step_ns(&spec, bits, 1 << 22, 1000, DUP_LOW) - own).abs() < 1e-9);
        // A universe of 4 × its buckets over 2^22 elements saturates it.
        let buckets = crate::cuckoo::buckets_for(bits, &p).unwrap();
        let kicks = crate::cuckoo::kicks_per_element(&p, bits, 1 << 22, 4 * buckets);
        assert!(kicks > 100.0, "{kicks}");
        let row = kick_row(p.b, p.f);
        assert_eq!(
            (row.b, row.f),
            (1, 3),
            "the QHT paper's geometry has its own row"
        );
        assert_eq!(row.ns[0].0, bits);
        let expected = own + kicks * row.ns[0].1;
        assert!((step_ns(&spec, bits, 1 << 22, 4 * buckets, DUP_LOW) - expected).abs() < 1e-6);
        // A small table's periodic walks run only part of their kicks, and are priced so.
        let small = 3 * 52;
        let fraction = crate::cuckoo::walked_fraction(&p, small);
        assert!(fraction < 0.5, "{fraction}");
        let own = ns_per_element(&spec, small, DUP_LOW).expect("cuckoo row") - FILL_NS;
        let kicks = crate::cuckoo::kicks_per_element(&p, small, 1 << 22, 4 * 52);
        let expected = own + kicks * fraction * kick_ns(&p, small);
        assert!((step_ns(&spec, small, 1 << 22, 4 * 52, DUP_LOW) - expected).abs() < 1e-6);
    }

    #[test]
    fn the_ratio_is_linear_in_the_fraction_of_duplicates() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // The two streams' ratios at their fractions, the mean half way between them, the
        // same line up to 1 (a fraction above is clamped), a ratio below zero floored.
        assert!(close(ratio_at_dup(2.0, 1.0, DUP_LOW), 2.0));
        assert!(close(ratio_at_dup(2.0, 1.0, DUP_HIGH), 1.0));
        assert!(close(
            ratio_at_dup(2.0, 1.0, (DUP_LOW + DUP_HIGH) / 2.0),
            1.5
        ));
        let slope = -1.0 / (DUP_HIGH - DUP_LOW);
        assert!(close(
            ratio_at_dup(2.0, 1.0, 1.0),
            1.0 + slope * (1.0 - DUP_HIGH)
        ));
        assert!(close(
            ratio_at_dup(2.0, 1.0, 7.0),
            ratio_at_dup(2.0, 1.0, 1.0)
        ));
        assert!(close(ratio_at_dup(1.0, 0.1, 1.0), 0.0));
        // Below the first stream's fraction, its ratio (no extrapolation); NaN counts as it.
        for dup in [0.0, 0.2, DUP_LOW, -1.0, f64::NAN] {
            assert!(close(ratio_at_dup(2.0, 1.0, dup), 2.0), "{dup}");
        }
        // The table's rows the same way, at every level: the first stream's column at
        // DUP_LOW, the second's at DUP_HIGH, their line between.
        for (i, l) in LEVELS.iter().enumerate() {
            for r in RATIOS {
                let at = |dup| ratio(r.name, l.memory_bits, dup).unwrap();
                assert!(close(at(DUP_LOW), r.ratio[i]), "{}", r.name);
                assert!(close(at(DUP_HIGH), r.ratio_dup[i]), "{}", r.name);
                let mid = (r.ratio[i] + r.ratio_dup[i]) / 2.0;
                assert!(close(at((DUP_LOW + DUP_HIGH) / 2.0), mid), "{}", r.name);
            }
            // A structure priced in Bloom steps follows the Bloom row's line too.
            let bloom = RATIOS
                .iter()
                .find(|r| r.name == "bloom")
                .expect("bloom row");
            let unit = (bloom.ratio_dup[i] * limit_at(l.limit, 2.0) - FILL_NS).max(0.0);
            assert!(close(bloom_step_ns(l.memory_bits, DUP_HIGH), unit));
        }
    }

    #[test]
    fn every_geometry_the_catalogue_runs_has_its_own_kick_row() {
        // The QHT paper's `b = 1, f = 3` and the leaderboard's `b ∈ {1, 4} × f ∈ {6, 12}`.
        for (b, f) in [(1, 3), (1, 6), (1, 12), (4, 6), (4, 12)] {
            let row = kick_row(b, f);
            assert_eq!((row.b, row.f), (b, f));
            assert_eq!(KICK_NS.iter().filter(|r| (r.b, r.f) == (b, f)).count(), 1);
        }
    }

    #[test]
    fn kick_ns_reads_its_geometrys_row_in_log_bits() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
        for row in KICK_NS {
            let p = crate::cuckoo::CuckooParams {
                b: row.b,
                f: row.f,
                ..Default::default()
            };
            // At the sizes measured, the times measured; half way between two sizes in
            // log(bits), their mean; outside, the first or last.
            for &(bits, ns) in row.ns {
                assert!(close(kick_ns(&p, bits), ns), "{row:?} at {bits}");
            }
            // (Sizes a few bits apart, at a layout's edge, are left out: half way between them
            // rounds to a whole bit off the middle.)
            for w in row.ns.windows(2).filter(|w| w[1].0 >= 2 * w[0].0) {
                let ((a, ta), (b, tb)) = (w[0], w[1]);
                let mid = ((a as f64).ln() + (b as f64).ln()) / 2.0;
                let got = kick_ns(&p, mid.exp().round() as u64);
                assert!((got - (ta + tb) / 2.0).abs() < 1e-3 * tb.max(ta), "{row:?}");
                assert!(got >= ta.min(tb) - 1e-9 && got <= ta.max(tb) + 1e-9);
            }
            assert!(close(kick_ns(&p, 1), row.ns[0].1));
            assert!(close(kick_ns(&p, u64::MAX), row.ns[row.ns.len() - 1].1));
        }
    }

    #[test]
    fn a_relocation_costs_more_in_dram_than_in_l1_and_more_with_b_4_in_cache() {
        // A dependent chain's latency grows as the table leaves the caches: each row's last
        // size (512 MB, DRAM) costs more per kick than its first (64 Kbit, L1).
        for row in KICK_NS {
            let (first, last) = (row.ns[0].1, row.ns[row.ns.len() - 1].1);
            assert!(last > first, "{row:?}");
        }
        // A kick of `b = 4` (a random entry, and a scan of the four of the next bucket, packed)
        // does more work than one of `b = 1` with as many fingerprint bits: it costs more while
        // the table is in L1 or L2 (up to 8 Mbit), where a kick is work rather than latency.
        // (Out of cache both wait on a miss, and the two rows have come out either way.)
        for f in [6, 12] {
            let (one, four) = (kick_row(1, f), kick_row(4, f));
            for &(bits, ns) in four.ns.iter().filter(|k| k.0 <= 1 << 23) {
                let p = crate::cuckoo::CuckooParams {
                    f,
                    ..Default::default()
                };
                assert!(ns > kick_ns(&p, bits), "f = {f} at {bits}: {ns}");
            }
            assert_eq!((one.b, four.b), (1, 4));
        }
    }

    #[test]
    fn a_geometry_not_measured_takes_the_nearest_row() {
        let geometry = |b, f| {
            let r = kick_row(b, f);
            (r.b, r.f)
        };
        // Same b, same layout family (b = 1, f ≤ 8: linked or bytes), nearest f.
        assert_eq!(geometry(1, 4), (1, 3));
        assert_eq!(geometry(1, 5), (1, 6));
        assert_eq!(geometry(1, 8), (1, 6));
        // b = 1 with f > 8 is packed: the packed b = 1 row, even when f = 6 is as near.
        assert_eq!(geometry(1, 9), (1, 12));
        assert_eq!(geometry(1, 16), (1, 12));
        // b = 2 is as far from 1 as from 4 in log2 b: the larger; b = 8 takes 4.
        assert_eq!(geometry(2, 6), (4, 6));
        assert_eq!(geometry(8, 12), (4, 12));
        // b = 4: nearest f, ties to the larger.
        assert_eq!(geometry(4, 8), (4, 6));
        assert_eq!(geometry(4, 9), (4, 12));
        assert_eq!(geometry(4, 3), (4, 6));
        // The price follows the row chosen.
        let p = crate::cuckoo::CuckooParams {
            b: 2,
            f: 8,
            ..Default::default()
        };
        let q = crate::cuckoo::CuckooParams {
            b: 4,
            f: 6,
            ..Default::default()
        };
        for bits in [1 << 16, 1 << 20, 1 << 26] {
            assert_eq!(kick_ns(&p, bits), kick_ns(&q, bits));
        }
    }

    #[test]
    fn sbf_cells_follow_eq_17() {
        let spec = FilterSpec::Sbf(crate::sbf::SbfParams::with_fps(3, 2, 0.02));
        let real = crate::theory::p_for_fps((1 << 20) / 2, 2, 3, 0.02);
        assert!(real.fract() > 0.0, "a fractional P, so the rounding shows");
        assert_eq!(cells_per_element(&spec, 1 << 20), 2.0 + real.floor());
        // The estimate follows `p_rounding`, as the filter does.
        let FilterSpec::Sbf(mut params) = spec else {
            unreachable!()
        };
        params.p_rounding = crate::sbf::PRounding::Ceil;
        let ceil = FilterSpec::Sbf(params.clone());
        assert_eq!(cells_per_element(&ceil, 1 << 20), 2.0 + real.ceil());
        let built = crate::sbf::StableBloomFilter::new(1 << 20, &params, 1).unwrap();
        assert_eq!(built.p() as f64, real.ceil(), "the filter's own P");
    }
}
