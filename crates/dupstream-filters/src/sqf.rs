//! Streaming Quotient Filter (SQF), as the QHT paper describes it.
//!
//! Géraud, Lombard-Platet, Naccache, *Quotient Hash Tables*, §2.4 (the description of Dutta,
//! Narang, Bera, *Streaming quotient filter*, PVLDB 2013, that the QHT paper benchmarks), with
//! the parameter analysis of §3, §4.1.1 and §4.4.
//!
//! Parameters `q, k, r, r'` (`r' < r`). A hash `h(e)` of `q + r` bits gives the row `h_e^q`
//! (its `q` most significant bits) and the remainder `h_e^r` (its `r` least significant bits).
//! The fingerprint is `s(e) = h_e^{r'} ‖ w_e`, where `h_e^{r'}` is `r'` bits of `h_e^r` and `w_e`
//! is the Hamming weight of `h_e^r`; a cell holds `σ = r' + ⌈log2(r + 1)⌉` bits. The state is
//! `2^q` rows of `k` cells, all initially empty (`⊥`). `Stream(e)`: if `s(e)` is in row `h_e^q`,
//! DUPLICATE; otherwise store it in an empty cell of the row, or, if there is none, in a
//! uniformly random cell of the row, and answer UNSEEN. This is [`crate::qht::Qht`]'s
//! Algorithm 1 with another fingerprint, and the implementation shares its table.
//!
//! # Readings
//!
//! - **Rows.** The paper's SQF has `2^q` rows and memory `M = 2^q·k·σ` (§3); the QHT paper
//!   names the freedom to use any number of rows as one of QHT's improvements (§3.1). So by
//!   default ([`SqfRows::PowerOfTwo`]) `q = ⌊log2(M/(k·σ))⌋` is derived from the budget and up
//!   to half of it may go unused. [`SqfRows::Fill`] uses `⌊M/(k·σ)⌋` rows instead, the
//!   QHT-style sizing, for comparisons at equal memory. The §6.1 text does not say which one
//!   the benchmark used (see `experiments/qht/SETUP.md`).
//! - **Row and remainder.** With a 64-bit key hash `h`, the row is `reduce(h, rows)`, which for
//!   `2^q` rows is exactly the top `q` bits of `h`. The remainder `h_e^r` is the low `r` bits of
//!   `rehash(h, ·)`, an independent derivation (the paper's "r least significant bits" of a
//!   `(q + r)`-bit hash are likewise disjoint from the row bits).
//! - **`h_e^{r'}`** is the `r'` least significant bits of `h_e^r` (footnote 6's example).
//!   `s(e) = (h_e^{r'} << ⌈log2(r+1)⌉) | w_e`.
//! - **Empty cell.** Footnote 16: "for an SQF, one can just assign the empty value to one of the
//!   unassigned fingerprints". The stored value is `s(e) XOR E`, where `E` is a fingerprint that
//!   never occurs, so the stored 0 means empty: for `r' ≥ 1`, `E = 1 ‖ 0` (`h_e^{r'} = 1` has
//!   weight 1, so `w_e ≥ 1`); for `r' = 0`, `E = r + 1` when `r + 1 < 2^⌈log2(r+1)⌉`. With
//!   `r' = 0` and `r + 1` a power of two every code occurs and construction fails.
//! - **"One empty cell"** is the first empty cell of the row.
//! - **README #6.** With the parameters recommended by the SQF authors (`r = 2`, `r' = 1`,
//!   `k = 4`) there are `S = 2^{r'}(r − r' + 1) = 4` fingerprints, all equally likely, so once
//!   every row is full each row holds all four and every element is reported DUPLICATE: FPR 1
//!   and FNR 0 after saturation (§3, footnote 8; §4.4.2, footnote 17). This implementation
//!   reproduces that; the §6.1 benchmark uses `k = 1` (the default here), for which the
//!   saturated FPR is the fingerprint collision probability, `1/4` for `r = 2`, `r' = 1`
//!   (Table 4: SQF FPR 24.9–25.0 %).
//! - **Other details of Dutta et al.'s own algorithm** (which this module does not follow) are
//!   out of scope: the brief is the QHT paper's description, which is what its tables measure.

use crate::error::{Error, Result, ensure};
use crate::hash::rehash;
use crate::qht::{RowTable, table_bits};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Salt of the remainder derivation `rehash(h, REMAINDER_SALT)`.
const REMAINDER_SALT: u64 = 0x2545_f491_4f6c_dd1d;

/// Largest `r` accepted (the remainder is taken from one 64-bit rehash; `σ` stays ≤ 38 bits).
pub const MAX_R: u32 = 32;

/// Largest `k` accepted (a row is scanned linearly).
pub const MAX_K: u32 = 1024;

fn default_k() -> u32 {
    1
}
fn default_r() -> u32 {
    2
}
fn default_r_prime() -> u32 {
    1
}

/// How the number of rows is derived from the memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SqfRows {
    /// `2^q` rows, `q = ⌊log2(M/(k·σ))⌋`: the SQF as defined (§2.4, `M = 2^q·k·σ`).
    #[default]
    PowerOfTwo,
    /// `⌊M/(k·σ)⌋` rows, as a QHT sizes itself (Algorithm 1): the whole budget is used.
    Fill,
}

/// Parameters of [`Sqf`]. The defaults are the §6.1 benchmark's SQF: one cell per row,
/// `r = 2`, `r' = 1` (3-bit cells, asymptotic FPR 1/4).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SqfParams {
    /// `k`: cells per row (§6.1: 1; the SQF paper's recommendation, 4, gives FPR 1 with
    /// `r = 2`, `r' = 1`; see the module doc).
    #[cfg_attr(feature = "serde", serde(default = "default_k"))]
    pub k: u32,
    /// `r`: remainder bits (§6.1: 2).
    #[cfg_attr(feature = "serde", serde(default = "default_r"))]
    pub r: u32,
    /// `r'`: remainder bits kept verbatim in the fingerprint, `r' < r` (§6.1: 1).
    #[cfg_attr(feature = "serde", serde(default = "default_r_prime"))]
    pub r_prime: u32,
    /// Row count rule; `q` is derived from the budget.
    #[cfg_attr(feature = "serde", serde(default))]
    pub rows: SqfRows,
}

impl Default for SqfParams {
    fn default() -> Self {
        Self {
            k: default_k(),
            r: default_r(),
            r_prime: default_r_prime(),
            rows: SqfRows::default(),
        }
    }
}

/// Bits needed for a Hamming weight in `0..=r`: `⌈log2(r + 1)⌉`.
fn weight_bits(r: u32) -> u32 {
    32 - r.leading_zeros()
}

/// `σ = r' + ⌈log2(r + 1)⌉`, bits per cell (§2.4).
pub fn sigma(r: u32, r_prime: u32) -> u32 {
    r_prime + weight_bits(r)
}

/// `S_SQF = 2^{r'}·(r − r' + 1)`, the number of possible fingerprints (§4.4.1).
pub fn fingerprint_count(r: u32, r_prime: u32) -> f64 {
    (2f64).powi(r_prime as i32) * f64::from(r - r_prime + 1)
}

/// Probability that two elements share a fingerprint, `Σ_f P(f)^2 = 2^{−r'}·C(2(r−r'), r−r')/4^{r−r'}`.
///
/// Fingerprint `(a, ω(a) + j)` has probability `2^{−r'}·C(r−r', j)/2^{r−r'}`, and
/// `Σ_j C(n, j)^2 = C(2n, n)`. With one cell per row this is the exact asymptotic FPR on a large
/// alphabet (a saturated row holds the fingerprint of the last element that reached it). It is
/// `1/S_SQF` only when fingerprints are equiprobable (`r − r' ≤ 1`).
pub fn collision_probability(r: u32, r_prime: u32) -> f64 {
    let n = r - r_prime;
    let mut central = 1.0f64; // C(2n, n) / 4^n computed as a product to stay in range.
    for i in 1..=n {
        central *= f64::from(n + i) / f64::from(i) / 4.0;
    }
    central / (2f64).powi(r_prime as i32)
}

/// The QHT paper's approximate asymptotic SQF FPR, `k/(2^{r'}·√(π r))` (§3 and §4.1.1, using
/// Dutta et al.'s collision approximation). Compare [`collision_probability`], exact for `k = 1`.
pub fn fpr_limit_paper(k: u32, r: u32, r_prime: u32) -> f64 {
    f64::from(k) / ((2f64).powi(r_prime as i32) * (std::f64::consts::PI * f64::from(r)).sqrt())
}

fn validate(p: &SqfParams) -> Result<()> {
    ensure(
        (1..=MAX_R).contains(&p.r),
        "r",
        p.r,
        "remainder bits must be in 1..=32",
    )?;
    ensure(p.r_prime < p.r, "r_prime", p.r_prime, "r' must be below r")?;
    ensure(
        (1..=MAX_K).contains(&p.k),
        "k",
        p.k,
        "cells per row must be in 1..=1024",
    )?;
    ensure(
        p.r_prime > 0 || (p.r + 1).count_ones() != 1,
        "r_prime",
        p.r_prime,
        "with r' = 0 and r + 1 a power of two every cell code is a fingerprint: no code is left for empty",
    )?;
    Ok(())
}

/// Number of rows for this budget: `2^q` with `q = ⌊log2(M/(k·σ))⌋`, or `⌊M/(k·σ)⌋`.
///
/// # Errors
/// [`Error::InvalidParameter`] for parameters out of range, [`Error::BudgetTooSmall`] when not
/// even one row fits.
pub fn rows_for(budget_bits: u64, params: &SqfParams) -> Result<u64> {
    validate(params)?;
    let row_bits = u64::from(params.k) * u64::from(sigma(params.r, params.r_prime));
    let fill = budget_bits / row_bits;
    if fill == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "sqf",
            budget_bits,
            needed_bits: row_bits,
        });
    }
    Ok(match params.rows {
        SqfRows::PowerOfTwo => 1u64 << fill.ilog2(),
        SqfRows::Fill => fill,
    })
}

/// Exact state bits of an SQF built with this budget, without allocating.
///
/// # Errors
/// As [`Sqf::new`].
pub fn memory_bits_for(budget_bits: u64, params: &SqfParams) -> Result<u64> {
    let rows = rows_for(budget_bits, params)?;
    table_bits("sqf", rows, params.k, sigma(params.r, params.r_prime))
}

/// Streaming Quotient Filter as described in the QHT paper, §2.4.
#[derive(Debug, Clone)]
pub struct Sqf {
    table: RowTable,
    params: SqfParams,
    r_mask: u64,
    r_prime_mask: u64,
    w_bits: u32,
    empty_code: u64,
}

impl Sqf {
    /// Builds an SQF in `budget_bits` ([`rows_for`]); `seed` drives the random cell choice.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `r ∉ 1..=32`, `r' ≥ r`, `k ∉ 1..=1024`, or `r' = 0` with
    /// `r + 1` a power of two; [`Error::BudgetTooSmall`] when `budget_bits < k·σ`;
    /// [`Error::CapacityTooLarge`] beyond 2^40 bits.
    pub fn new(budget_bits: u64, params: &SqfParams, seed: u64) -> Result<Self> {
        let rows = rows_for(budget_bits, params)?;
        let width = sigma(params.r, params.r_prime);
        let table = RowTable::new("sqf", rows, params.k, width, seed)?;
        let w_bits = weight_bits(params.r);
        let empty_code = if params.r_prime > 0 {
            1u64 << w_bits
        } else {
            u64::from(params.r) + 1
        };
        Ok(Self {
            table,
            params: params.clone(),
            r_mask: (1u64 << params.r) - 1,
            r_prime_mask: (1u64 << params.r_prime) - 1,
            w_bits,
            empty_code,
        })
    }

    /// Number of rows (`2^q` by default).
    pub fn rows(&self) -> u64 {
        self.table.rows()
    }

    /// `s(e) = h_e^{r'} ‖ w_e` for a key hash (before the empty-code mapping).
    #[inline(always)]
    pub fn fingerprint(&self, hash: u64) -> u64 {
        let rem = rehash(hash, REMAINDER_SALT) & self.r_mask;
        ((rem & self.r_prime_mask) << self.w_bits) | u64::from(rem.count_ones())
    }
}

impl DuplicateFilter for Sqf {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        let row = self.table.row_of(hash);
        let stored = self.fingerprint(hash) ^ self.empty_code;
        self.table.step_qht(row, stored)
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.table.prefetch_row(self.table.row_of(hash));
    }

    fn memory_bits(&self) -> u64 {
        self.table.state_bits()
    }

    fn name(&self) -> &'static str {
        <Self as crate::Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let p = &self.params;
        let rows = self.table.rows();
        let q = rows.is_power_of_two().then(|| rows.ilog2());
        vec![
            crate::Param::new("k", p.k),
            crate::Param::new("r", p.r),
            crate::Param::new("r_prime", p.r_prime),
            crate::Param::new(
                "rows_rule",
                match p.rows {
                    SqfRows::PowerOfTwo => "power_of_two",
                    SqfRows::Fill => "fill",
                },
            ),
            crate::Param::new("q", q),
            crate::Param::new("rows", rows),
            crate::Param::new("sigma", sigma(p.r, p.r_prime)),
            crate::Param::new("fingerprints", fingerprint_count(p.r, p.r_prime)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.table.filled_fraction(),
        }
    }
}

crate::structure::impl_structure!(Sqf {
    name: "sqf",
    params: SqfParams,
    cost: 1.5,
    memory_bits_for: memory_bits_for,
}

    /// 1: one bucket.
    fn cells_per_element(_params: &SqfParams, _budget_bits: u64) -> f64 {
        1.0
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;

    fn within(x: f64, p: f64, n: u64, z: f64) -> bool {
        (x - p).abs() <= z * (p * (1.0 - p) / n as f64).sqrt()
    }

    fn params(k: u32, r: u32, r_prime: u32) -> SqfParams {
        SqfParams {
            k,
            r,
            r_prime,
            rows: SqfRows::PowerOfTwo,
        }
    }

    #[test]
    fn sizes_follow_section_2_4() {
        assert_eq!(sigma(2, 1), 3);
        assert_eq!(sigma(3, 1), 3);
        assert_eq!(sigma(4, 2), 5);
        assert_eq!(fingerprint_count(2, 1), 4.0);
        assert_eq!(fingerprint_count(3, 1), 6.0);
        // 1 Mbit, k = 1, σ = 3: 333 333 cells fit, 2^18 = 262 144 rows are used by default.
        let p = SqfParams::default();
        assert_eq!(rows_for(1_000_000, &p).unwrap(), 1 << 18);
        assert_eq!(memory_bits_for(1_000_000, &p).unwrap(), 3 << 18);
        let fill = SqfParams {
            rows: SqfRows::Fill,
            ..p
        };
        assert_eq!(rows_for(1_000_000, &fill).unwrap(), 333_333);
        // §4.4.2: a QHT with s = ⌈log2 S_SQF⌉ bits has the same S in 2/3 of the memory.
        assert_eq!(sigma(2, 1), 3);
        assert_eq!(fingerprint_count(2, 1).log2().ceil(), 2.0);
    }

    /// Fingerprint distribution: for r = 3, r' = 1, fingerprint (a, ω(a)+j) has probability
    /// 1/2 · C(2, j)/4; 6 codes, none equal to the empty code. 5-sigma binomial per code.
    #[test]
    fn fingerprint_distribution() {
        let f = Sqf::new(1 << 12, &params(1, 3, 1), 0).unwrap();
        let n = 400_000u64;
        let mut counts = [0u64; 8];
        for i in 0..n {
            counts[f.fingerprint(hash_key(i, 1)) as usize] += 1;
        }
        // Codes: (a << 2) | w.
        let expect = |a: usize, w: usize| -> f64 {
            let j = w as i64 - a as i64;
            match j {
                0 | 2 => 0.125,
                1 => 0.25,
                _ => 0.0,
            }
        };
        for (code, &c) in counts.iter().enumerate() {
            let p = expect(code >> 2, code & 3);
            if p == 0.0 {
                assert_eq!(c, 0, "code {code}");
            } else {
                assert!(
                    within(c as f64 / n as f64, p, n, 5.0),
                    "code {code}: {counts:?}"
                );
            }
        }
        assert_eq!(counts[1 << 2], 0, "the empty code (1, 0) never occurs");
        assert!((collision_probability(3, 1) - 3.0 / 16.0).abs() < 1e-15);
    }

    fn saturated_fpr(p: &SqfParams, rows_log2: u32, measure: u64) -> (f64, Sqf) {
        let budget = (u64::from(p.k) * u64::from(sigma(p.r, p.r_prime))) << rows_log2;
        let mut f = Sqf::new(budget, p, 5).unwrap();
        assert_eq!(f.rows(), 1 << rows_log2);
        let warm = (30 * u64::from(p.k)) << rows_log2;
        for i in 0..warm {
            f.step(hash_key(i, 9));
        }
        let fp = (warm..warm + measure)
            .filter(|&i| f.step(hash_key(i, 9)))
            .count();
        (fp as f64 / measure as f64, f)
    }

    /// README #6 / §3 footnote 8: r = 2, r' = 1, k = 4 (the SQF authors' recommendation) has
    /// only 4 fingerprints, so a full row holds all of them and never changes: after saturation
    /// every element is reported DUPLICATE (FPR 1, FNR 0). Deterministic once every row is full.
    #[test]
    fn recommended_parameters_saturate_at_fpr_one() {
        let p = params(4, 2, 1);
        let mut f = Sqf::new(12 << 10, &p, 1).unwrap();
        assert_eq!(f.rows(), 1024);
        let mut i = 0u64;
        while f.occupancy().value < 1.0 {
            f.step(hash_key(i, 2));
            i += 1;
            assert!(i < 1_000_000, "did not fill");
        }
        // About N·(4 + 4/3·... ) coupon-collector steps; then all verdicts are DUPLICATE.
        eprintln!("sqf k=4 r=2 r'=1: every row full after {i} distinct keys");
        assert!((i..i + 100_000).all(|j| f.step(hash_key(j, 2))));
    }

    /// With k = 3 < S = 4 and equiprobable fingerprints, §4.1.1 applies: FPR → k/S = 3/4.
    /// With k = 1 the saturated FPR is the collision probability: 1/4 for (2, 1) (Table 4's SQF
    /// column), 3/16 for (3, 1), where the paper's approximation k/(2^{r'}√(πr)) gives 0.163
    /// (distinguished by ~20 sigma). 5-sigma binomial tolerance on 200 000 distinct keys.
    #[test]
    fn saturated_fpr_matches_theory() {
        for (k, r, r_prime, expect) in [
            (3, 2, 1, 0.75),
            (1, 2, 1, 0.25),
            (1, 3, 1, collision_probability(3, 1)),
            (1, 5, 2, collision_probability(5, 2)),
        ] {
            let n = 200_000;
            let (fpr, _) = saturated_fpr(&params(k, r, r_prime), 11, n);
            eprintln!("sqf k={k} r={r} r'={r_prime}: fpr {fpr:.5} theory {expect:.5}");
            assert!(
                within(fpr, expect, n, 5.0),
                "k={k} r={r} r'={r_prime}: {fpr} vs {expect}"
            );
        }
        assert!((fpr_limit_paper(1, 3, 1) - 0.1629).abs() < 1e-3);
    }

    #[test]
    fn immediate_repeat_is_duplicate_and_fill_mode_uses_budget() {
        for rows in [SqfRows::PowerOfTwo, SqfRows::Fill] {
            let p = SqfParams {
                k: 2,
                r: 4,
                r_prime: 2,
                rows,
            };
            let mut f = Sqf::new(10_000, &p, 3).unwrap();
            for i in 0..20_000u64 {
                let h = hash_key(i, 4);
                f.step(h);
                assert!(f.step(h));
            }
            let rows_expected = if rows == SqfRows::Fill {
                10_000 / 10
            } else {
                512
            };
            assert_eq!(f.rows(), rows_expected);
            assert_eq!(f.memory_bits(), rows_expected * 10);
        }
    }

    #[test]
    fn memory_within_budget_for_all_budgets() {
        for rows in [SqfRows::PowerOfTwo, SqfRows::Fill] {
            for (k, r, r_prime) in [(1, 2, 1), (4, 2, 1), (3, 8, 3), (16, 32, 31)] {
                let p = SqfParams {
                    k,
                    r,
                    r_prime,
                    rows,
                };
                let row_bits = u64::from(k * sigma(r, r_prime));
                for e in 10..=32 {
                    let budget = 1u64 << e;
                    let m = memory_bits_for(budget, &p).unwrap();
                    assert!(m <= budget, "{p:?} 2^{e}");
                    let slack = if rows == SqfRows::Fill {
                        row_bits
                    } else {
                        budget / 2 + row_bits
                    };
                    assert!(budget - m < slack, "{p:?} 2^{e}: {m}");
                }
            }
        }
        let f = Sqf::new(1_000_000, &SqfParams::default(), 0).unwrap();
        assert_eq!(
            f.memory_bits(),
            memory_bits_for(1_000_000, &SqfParams::default()).unwrap()
        );
    }

    #[test]
    fn invalid_parameters_are_errors() {
        for (k, r, r_prime) in [
            (1, 2, 2),
            (1, 0, 0),
            (0, 2, 1),
            (1, 33, 1),
            (1025, 2, 1),
            (1, 3, 0),
            (1, 1, 0),
        ] {
            let p = params(k, r, r_prime);
            assert!(
                matches!(
                    Sqf::new(1 << 20, &p, 0),
                    Err(Error::InvalidParameter { .. })
                ),
                "{p:?}"
            );
        }
        // r' = 0 works when a code is free: r = 2 uses weights 0..=2 of 2 bits, 3 is empty.
        let mut f = Sqf::new(1 << 12, &params(1, 2, 0), 0).unwrap();
        assert!(!f.step(hash_key(1, 0)) && f.step(hash_key(1, 0)));
        assert!(matches!(
            Sqf::new(2, &SqfParams::default(), 0),
            Err(Error::BudgetTooSmall { .. })
        ));
        assert!(matches!(
            Sqf::new(u64::MAX, &SqfParams::default(), 0),
            Err(Error::CapacityTooLarge { .. })
        ));
    }

    #[test]
    fn same_seed_same_verdicts_and_batch_equals_step() {
        let keys: Vec<u64> = (0..50_000u64).map(|i| hash_key(i % 20_000, 1)).collect();
        let p = params(3, 4, 1);
        let mut a = Sqf::new(6_000, &p, 42).unwrap();
        let mut b = Sqf::new(6_000, &p, 42).unwrap();
        let mut c = Sqf::new(6_000, &p, 43).unwrap();
        let va: Vec<bool> = keys.iter().map(|&h| a.step(h)).collect();
        let mut vb = vec![false; keys.len()];
        b.step_batch(&keys, &mut vb);
        assert_eq!(va, vb);
        let vc: Vec<bool> = keys.iter().map(|&h| c.step(h)).collect();
        assert_ne!(va, vc);
        assert_eq!(a.name(), "sqf");
        assert_eq!(a.params()[4], crate::Param::new("q", 8u32));
    }
}
