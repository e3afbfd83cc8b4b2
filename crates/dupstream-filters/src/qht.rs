//! Quotient Hash Tables: QHT, QHTD and QQHTD.
//!
//! Géraud, Lombard-Platet, Naccache, *Quotient Hash Tables – Efficiently Detecting Duplicates in
//! Streaming Data*: Algorithm 1 (QHT, §3.1), §5.1 (QHTD) and Algorithm 2 (QQHTD, §5.2).
//!
//! The state is a table `T` of `N` rows ("cells" in §5) of `k` buckets, each bucket holding an
//! `s`-bit fingerprint. An element `e` has a row `h(e)` and a fingerprint `s(e)`.
//!
//! - [`Qht`] (Algorithm 1): DUPLICATE iff `s(e)` is in row `h(e)`. On UNSEEN, `s(e)` goes to the
//!   first empty bucket of the row, or, if the row is full, to a bucket drawn uniformly at random
//!   (line 7, `b ←$ T[h(e)]`). Nothing is written on DUPLICATE.
//! - [`Qhtd`] (§5.1, "QHT with Duplicates"): the same, except that `s(e)` is also inserted when
//!   `e` is reported DUPLICATE ("we can insert it anyway"), so a row may hold equal fingerprints.
//! - [`Qqhtd`] (Algorithm 2): each row is a FIFO queue of `k` buckets; every element (duplicate
//!   or not) pops the first bucket and appends `s(e)` at the end (line 8).
//!
//! # Readings
//!
//! - **Symbols.** Algorithm 1 writes the fingerprint size `σ`; §4 and the rest of the paper write
//!   `s` for the number of fingerprint bits and `S` for the number of possible fingerprints.
//!   The parameters are `k` and `s`.
//! - **Empty buckets (§3.2).** "Empty" is the reserved stored value 0, and the fingerprint is
//!   derived with §3.2's option 3: `s(e) = rehash(h, salt) mod 2^s` for `salt = 1, 2, 3, …`,
//!   taking the first non-zero value. Fingerprints are therefore uniform over the `S = 2^s − 1`
//!   non-zero values (footnote 16: "on a system without the empty feature, S = 2^s − 1"). This
//!   is the `S` of every theory function here. It agrees with Table 4: the §6.1 QHT (`k = 1`,
//!   `s = 3`) shows a saturated FPR of 14.28–14.29 % = 1/7 = k/(2^3 − 1), not 1/8. After 64 zero
//!   draws (probability `2^-64s`) the fingerprint falls back to 1, so the loop is bounded.
//! - **`N`.** Algorithm 1 line 2: `N = ⌊M / (k·s)⌋` ([`rows_for`]). The row is
//!   `reduce(h, N)` (Lemire) of the key hash `h`; the fingerprint is derived from `rehash(h, ·)`,
//!   an independent derivation.
//! - **Setup bounds.** Algorithm 1 requires `M > σk` (here `M ≥ k·s`, one row) and
//!   `0 < k ≤ 2^σ`. With the reserved 0 a row can hold at most `2^s − 1` distinct fingerprints, so
//!   a QHT with `k ≥ S` saturates at FPR 1 ([`qht_fpr_limit`] is capped at 1). `k` is further
//!   capped at [`MAX_K`] because a row is scanned linearly.
//! - **QHT bucket order.** Buckets fill from the first; as nothing is ever deleted, the non-empty
//!   buckets of a row are a prefix, and the scan stops at the first empty bucket. QHTD keeps the same
//!   invariant.
//! - **QQHTD queue.** Bucket 0 is the head of the queue. Algorithm 2 pops and appends on every
//!   element, including DUPLICATE ones (so a QQHTD keeps duplicates, hence the "D").
//!   Empty buckets (0) never match a fingerprint. With `k = 1`, QHT, QHTD and QQHTD give identical
//!   verdicts (§5.2).
//!
//! # Storage
//!
//! When a row fits in 57 bits (`k·s ≤ 57`) the table is a [`PackedArray`] of `N` cells of `k·s`
//! bits (a row is one read and one write; bucket `i` is bits `i·s .. (i+1)·s` of the row);
//! otherwise a [`PackedArray`] of `N·k` cells of `s` bits. Both hold exactly `N·k·s` bits.
//! A running count of non-empty buckets gives [`OccupancyKind::FilledFraction`].
//!
//! ```
//! use dupstream_filters::{DuplicateFilter, hash::hash_key, qht::{Qht, QhtParams}};
//! let mut f = Qht::new(1 << 20, &QhtParams::default(), 7).unwrap();
//! assert!(!f.step(hash_key(1, 0)));
//! // An element that was just reported UNSEEN is stored: its immediate repeat is a DUPLICATE.
//! assert!(f.step(hash_key(1, 0)));
//! ```

use crate::bits::PackedArray;
use crate::error::{Error, Result, ensure, words_for_bits};
use crate::hash::{reduce, rehash};
use crate::rng::{FilterRng, Rng, filter_rng};
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest number of buckets per row accepted.
pub const MAX_K: u32 = 1024;

/// Largest fingerprint size in bits accepted (a [`PackedArray`] cell).
pub const MAX_S: u32 = PackedArray::MAX_WIDTH;

/// Salt base of the fingerprint derivation `rehash(h, FP_SALT + i)`.
const FP_SALT: u64 = 0x51_7cc1_b727_220a;

fn default_k() -> u32 {
    1
}

fn default_s() -> u32 {
    3
}

/// Parameters of [`Qht`], [`Qhtd`] and [`Qqhtd`].
///
/// The defaults are the QHT of the paper's §6.1 benchmark: one bucket per row, 3-bit
/// fingerprints (asymptotic FPR `1/7`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct QhtParams {
    /// `k`: buckets per row (§6.1: 1).
    #[cfg_attr(feature = "serde", serde(default = "default_k"))]
    pub k: u32,
    /// `s` (`σ` in Algorithm 1): bits per fingerprint (§6.1: 3).
    #[cfg_attr(feature = "serde", serde(default = "default_s"))]
    pub s: u32,
}

impl Default for QhtParams {
    fn default() -> Self {
        Self {
            k: default_k(),
            s: default_s(),
        }
    }
}

/// `N = ⌊M / (k·s)⌋`, the number of rows (Algorithm 1, line 2).
///
/// # Errors
/// [`Error::InvalidParameter`] for `k` or `s` out of range, [`Error::BudgetTooSmall`] when not
/// even one row fits.
pub fn rows_for(budget_bits: u64, k: u32, s: u32) -> Result<u64> {
    validate(k, s)?;
    let row_bits = u64::from(k) * u64::from(s);
    let rows = budget_bits / row_bits;
    if rows == 0 {
        return Err(Error::BudgetTooSmall {
            structure: "qht",
            budget_bits,
            needed_bits: row_bits,
        });
    }
    Ok(rows)
}

/// `S = 2^s − 1`, the number of possible fingerprints when 0 is reserved for "empty" (§4.4.1,
/// footnote 16).
pub fn fingerprint_count(s: u32) -> f64 {
    (2f64).powi(s as i32) - 1.0
}

/// Asymptotic FPR of a QHT, `k/S` (Theorem 4.1), capped at 1 (with `k ≥ S` a saturated row holds
/// every fingerprint).
pub fn qht_fpr_limit(k: u32, s: u32) -> f64 {
    (f64::from(k) / fingerprint_count(s)).min(1.0)
}

/// Asymptotic FNR of a QHT when the alphabet is much larger than the table, `1 − k/S`
/// (Theorem 4.2).
pub fn qht_fnr_limit(k: u32, s: u32) -> f64 {
    1.0 - qht_fpr_limit(k, s)
}

/// Probability that an unseen element arriving after `m` insertions of unseen elements is a
/// false positive: `FP_m = (k/S)·(1 − (1 − 1/(N·k))^m)` (Theorem 4.1).
///
/// Exact for `k = 1`. For `k > 1` the proof assumes full rows ("no bucket is empty") and the
/// formula underestimates the transient; the limit `k/S` is exact.
pub fn qht_false_positive_probability(m: u64, rows: u64, k: u32, s: u32) -> f64 {
    let nk = rows as f64 * f64::from(k);
    qht_fpr_limit(k, s) * (1.0 - (1.0 - 1.0 / nk).powf(m as f64))
}

/// Asymptotic FNR of a QHT on an infinite stream drawn uniformly from an alphabet of `u`
/// elements (Theorem 4.2, the closed form derived in Appendix B), with `a = (S−k)/(k(NS−1))`,
/// `b = k/S`, `c = 1 − 1/(Nk)`:
///
/// `FNR∞ = 1 − b − (1−b)/(U − (U−1)(1−a)) + ab/((1−a−c)(U − (U−1)(1−a))) − ab/((1−a−c)(U − (U−1)c))`.
///
/// Tends to `1 − k/S` as `U/N → ∞`.
pub fn qht_fnr_limit_uniform(u: f64, rows: u64, k: u32, s: u32) -> f64 {
    let big_s = fingerprint_count(s);
    let n = rows as f64;
    let kf = f64::from(k);
    let a = (big_s - kf) / (kf * (n * big_s - 1.0));
    let b = kf / big_s;
    let c = 1.0 - 1.0 / (n * kf);
    let d1 = u - (u - 1.0) * (1.0 - a);
    let d2 = u - (u - 1.0) * c;
    1.0 - b - (1.0 - b) / d1 + a * b / ((1.0 - a - c) * d1) - a * b / ((1.0 - a - c) * d2)
}

/// Asymptotic FPR of a QHTD, `1 − (1 − 1/S)^k` (§5.1).
pub fn qhtd_fpr_limit(k: u32, s: u32) -> f64 {
    1.0 - qhtd_fnr_limit(k, s)
}

/// Asymptotic FNR of a QHTD on a large alphabet, `(1 − 1/S)^k` (§5.1).
pub fn qhtd_fnr_limit(k: u32, s: u32) -> f64 {
    (1.0 - 1.0 / fingerprint_count(s)).powi(k as i32)
}

fn validate(k: u32, s: u32) -> Result<()> {
    ensure(
        (1..=MAX_S).contains(&s),
        "s",
        s,
        "fingerprint bits must be in 1..=57",
    )?;
    ensure(
        (1..=MAX_K).contains(&k),
        "k",
        k,
        "buckets per row must be in 1..=1024",
    )?;
    // Algorithm 1, Setup: 0 < k ≤ 2^σ.
    ensure(
        s >= 11 || k <= 1 << s,
        "k",
        k,
        "Algorithm 1 requires k <= 2^s",
    )?;
    Ok(())
}

/// Shared by QHT-family structures and [`crate::sqf::Sqf`]: the exact number of state bits,
/// `rows·k·width`, checked to be addressable.
pub(crate) fn table_bits(structure: &'static str, rows: u64, k: u32, width: u32) -> Result<u64> {
    let bits =
        rows.checked_mul(u64::from(k) * u64::from(width))
            .ok_or(Error::CapacityTooLarge {
                structure,
                bits: u64::MAX,
            })?;
    words_for_bits(structure, bits)?;
    Ok(bits)
}

/// `N` rows of `k` buckets of `width` bits, empty = 0, with the three update rules.
///
/// Also the state of [`crate::sqf::Sqf`], which is a QHT with a different fingerprint.
#[derive(Debug, Clone)]
pub(crate) struct RowTable {
    cells: PackedArray,
    rows: u64,
    k: u32,
    width: u32,
    mask: u64,
    /// Whole row in one packed cell.
    row_mode: bool,
    filled: u64,
    rng: FilterRng,
}

impl RowTable {
    pub(crate) fn new(
        structure: &'static str,
        rows: u64,
        k: u32,
        width: u32,
        seed: u64,
    ) -> Result<Self> {
        table_bits(structure, rows, k, width)?;
        let row_bits = k * width;
        let row_mode = row_bits <= PackedArray::MAX_WIDTH;
        let cells = if row_mode {
            PackedArray::new(structure, rows, row_bits)?
        } else {
            PackedArray::new(structure, rows * u64::from(k), width)?
        };
        Ok(Self {
            cells,
            rows,
            k,
            width,
            mask: (1u64 << width) - 1,
            row_mode,
            filled: 0,
            rng: filter_rng(seed, 0),
        })
    }

    #[inline(always)]
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    #[inline(always)]
    pub(crate) fn row_of(&self, hash: u64) -> u64 {
        reduce(hash, self.rows)
    }

    pub(crate) fn state_bits(&self) -> u64 {
        self.cells.state_bits()
    }

    pub(crate) fn filled_fraction(&self) -> f64 {
        self.filled as f64 / (self.rows as f64 * f64::from(self.k))
    }

    #[inline(always)]
    pub(crate) fn prefetch_row(&self, row: u64) {
        if self.row_mode {
            self.cells.prefetch(row);
        } else {
            self.cells.prefetch(row * u64::from(self.k));
        }
    }

    /// The row word in row mode (0 otherwise).
    #[inline(always)]
    fn load(&self, row: u64) -> u64 {
        if self.row_mode {
            self.cells.get(row)
        } else {
            0
        }
    }

    /// Bucket `i` of `row`, given the row word from [`Self::load`].
    #[inline(always)]
    fn bucket(&self, word: u64, row: u64, i: u32) -> u64 {
        if self.row_mode {
            (word >> (i * self.width)) & self.mask
        } else {
            self.cells.get(row * u64::from(self.k) + u64::from(i))
        }
    }

    /// Writes `fp` to bucket `i` of `row`, given the row word read before.
    #[inline(always)]
    fn write(&mut self, word: u64, row: u64, i: u32, fp: u64) {
        if self.row_mode {
            let sh = i * self.width;
            self.cells
                .set(row, (word & !(self.mask << sh)) | (fp << sh));
        } else {
            self.cells.set(row * u64::from(self.k) + u64::from(i), fp);
        }
    }

    /// Scans the non-empty prefix of `row`: whether `fp` is there, and the first empty bucket
    /// (`k` if none). With `stop_on_match`, returns as soon as `fp` is found (the empty index is
    /// then meaningless).
    #[inline(always)]
    fn scan_prefix(&self, word: u64, row: u64, fp: u64, stop_on_match: bool) -> (bool, u32) {
        let mut found = false;
        for i in 0..self.k {
            let b = self.bucket(word, row, i);
            if b == 0 {
                return (found, i);
            }
            if b == fp {
                found = true;
                if stop_on_match {
                    return (true, i);
                }
            }
        }
        (found, self.k)
    }

    /// Whether some bucket of `row` holds `fp` (no update). Fingerprints are never 0, so the
    /// empty buckets, wherever a variant leaves them, never match.
    pub(crate) fn contains(&self, row: u64, fp: u64) -> bool {
        let word = self.load(row);
        (0..self.k).any(|i| self.bucket(word, row, i) == fp)
    }

    /// Stores `fp` in the first empty bucket (`empty < k`) or a uniformly random one.
    #[inline(always)]
    fn store(&mut self, word: u64, row: u64, empty: u32, fp: u64) {
        let i = if empty < self.k {
            self.filled += 1;
            empty
        } else if self.k == 1 {
            0
        } else {
            reduce(self.rng.next_u64(), u64::from(self.k)) as u32
        };
        self.write(word, row, i, fp);
    }

    /// One bucket per row, where QHT, QHTD and QQHTD coincide: the row ends up holding `fp`
    /// in every case (if `fp` was found it is rewritten unchanged), so the update is branchless.
    #[inline(always)]
    fn step_single(&mut self, row: u64, fp: u64) -> bool {
        let old = self.cells.replace(row, fp);
        self.filled += u64::from(old == 0);
        old == fp
    }

    /// Algorithm 1, `Stream`: insert only on UNSEEN.
    #[inline(always)]
    pub(crate) fn step_qht(&mut self, row: u64, fp: u64) -> bool {
        if self.k == 1 {
            return self.step_single(row, fp);
        }
        let word = self.load(row);
        let (found, empty) = self.scan_prefix(word, row, fp, true);
        if !found {
            self.store(word, row, empty, fp);
        }
        found
    }

    /// §5.1, QHTD: insert always.
    #[inline(always)]
    pub(crate) fn step_qhtd(&mut self, row: u64, fp: u64) -> bool {
        if self.k == 1 {
            return self.step_single(row, fp);
        }
        let word = self.load(row);
        let (found, empty) = self.scan_prefix(word, row, fp, false);
        self.store(word, row, empty, fp);
        found
    }

    /// Algorithm 2, QQHTD: detect over the whole queue, then pop the head and append `fp`.
    #[inline(always)]
    pub(crate) fn step_qqhtd(&mut self, row: u64, fp: u64) -> bool {
        let k = self.k;
        if k == 1 {
            return self.step_single(row, fp);
        }
        if self.row_mode {
            let word = self.cells.get(row);
            let mut found = false;
            for i in 0..k {
                found |= (word >> (i * self.width)) & self.mask == fp;
            }
            if word & self.mask == 0 {
                self.filled += 1;
            }
            self.cells
                .set(row, (word >> self.width) | (fp << ((k - 1) * self.width)));
            found
        } else {
            let base = row * u64::from(k);
            let head = self.cells.get(base);
            let mut found = head == fp;
            for i in 1..u64::from(k) {
                let b = self.cells.get(base + i);
                found |= b == fp;
                self.cells.set(base + i - 1, b);
            }
            self.cells.set(base + u64::from(k) - 1, fp);
            if head == 0 {
                self.filled += 1;
            }
            found
        }
    }
}

/// `s(e)`: the first non-zero `rehash(h, FP_SALT + i) mod 2^s`, `i = 0, 1, …` (§3.2, option 3).
///
/// With few fingerprint bits a zero first draw is common (1 in 8 for `s = 3`) and a branch on it
/// is a coin the predictor loses. So for `s ≤` [`FP_TWO_DRAWS_MAX_S`] the first two draws are
/// computed side by side and the second is selected arithmetically when the first is zero; only
/// when both are zero (1 in 64 for `s = 3`) does the slow path run. The value is the same.
#[inline(always)]
pub(crate) fn nonzero_fingerprint(hash: u64, mask: u64) -> u64 {
    let fp0 = rehash(hash, FP_SALT) & mask;
    let fp = if mask >> FP_TWO_DRAWS_MAX_S == 0 {
        let fp1 = rehash(hash, FP_SALT.wrapping_add(1)) & mask;
        // fp0 if non-zero, else fp1: no branch on the coin fp0 == 0.
        fp0 | (fp1 & u64::from(fp0 == 0).wrapping_neg())
    } else {
        fp0
    };
    if fp != 0 {
        fp
    } else {
        nonzero_fingerprint_slow(hash, mask)
    }
}

/// Fingerprint sizes up to which [`nonzero_fingerprint`] computes two draws without a branch
/// (beyond, a zero draw has probability at most 2^-8 and the branch predicts well).
const FP_TWO_DRAWS_MAX_S: u32 = 8;

#[cold]
#[inline(never)]
fn nonzero_fingerprint_slow(hash: u64, mask: u64) -> u64 {
    (1..64u64)
        .map(|i| rehash(hash, FP_SALT.wrapping_add(i)) & mask)
        .find(|&fp| fp != 0)
        .unwrap_or(1)
}

/// Exact state bits of a QHT, QHTD or QQHTD built with this budget, without allocating.
///
/// # Errors
/// As [`Qht::new`].
pub fn memory_bits_for(budget_bits: u64, params: &QhtParams) -> Result<u64> {
    let rows = rows_for(budget_bits, params.k, params.s)?;
    table_bits("qht", rows, params.k, params.s)
}

macro_rules! qht_variant {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $step:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $ty {
            table: RowTable,
            params: QhtParams,
            mask: u64,
        }

        impl $ty {
            /// Builds the structure with `N = ⌊budget_bits/(k·s)⌋` rows ([`rows_for`]); `seed`
            /// drives the random bucket choice.
            ///
            /// # Errors
            /// [`Error::InvalidParameter`] for `k` or `s` out of range (`1 ≤ s ≤ 57`,
            /// `1 ≤ k ≤ min(2^s, 1024)`), [`Error::BudgetTooSmall`] when `budget_bits < k·s`,
            /// [`Error::CapacityTooLarge`] for a table beyond 2^40 bits.
            pub fn new(budget_bits: u64, params: &QhtParams, seed: u64) -> Result<Self> {
                let rows = rows_for(budget_bits, params.k, params.s).map_err(|e| rename(e, $name))?;
                let table = RowTable::new($name, rows, params.k, params.s, seed)?;
                Ok(Self { table, params: params.clone(), mask: (1u64 << params.s) - 1 })
            }

            /// `N`, the number of rows.
            pub fn rows(&self) -> u64 {
                self.table.rows()
            }

            /// The parameters given at construction.
            pub fn params_struct(&self) -> &QhtParams {
                &self.params
            }

            /// Membership query without update: whether the element's row holds its
            /// fingerprint (the detection of a step, without its insertion).
            pub fn contains(&self, hash: u64) -> bool {
                let row = self.table.row_of(hash);
                self.table.contains(row, nonzero_fingerprint(hash, self.mask))
            }
        }

        impl DuplicateFilter for $ty {
            #[inline]
            fn step(&mut self, hash: u64) -> bool {
                let row = self.table.row_of(hash);
                let fp = nonzero_fingerprint(hash, self.mask);
                self.table.$step(row, fp)
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
                vec![
                    crate::Param::new("k", self.params.k),
                    crate::Param::new("s", self.params.s),
                    crate::Param::new("rows", self.table.rows()),
                    crate::Param::new("fingerprints", fingerprint_count(self.params.s)),
                ]
            }

            fn occupancy(&self) -> Occupancy {
                Occupancy { kind: OccupancyKind::FilledFraction, value: self.table.filled_fraction() }
            }
        }

        crate::structure::impl_structure!($ty {
            name: $name,
            params: QhtParams,
            cost: 1.0,
            memory_bits_for: memory_bits_for,
        }

            /// 1: one bucket.
            fn cells_per_element(_params: &QhtParams, _budget_bits: u64) -> f64 {
                1.0
            }
        );
    };
}

fn rename(e: Error, name: &'static str) -> Error {
    match e {
        Error::BudgetTooSmall {
            budget_bits,
            needed_bits,
            ..
        } => Error::BudgetTooSmall {
            structure: name,
            budget_bits,
            needed_bits,
        },
        other => other,
    }
}

qht_variant!(
    /// Quotient Hash Table (Algorithm 1): a fingerprint is stored only when the element is
    /// reported UNSEEN; a full row loses a uniformly random bucket.
    Qht,
    "qht",
    step_qht
);

qht_variant!(
    /// QHT with Duplicates (§5.1): like [`Qht`] but the fingerprint is stored on every element,
    /// DUPLICATE or not.
    Qhtd,
    "qhtd",
    step_qhtd
);

qht_variant!(
    /// Queued QHT with Duplicates (Algorithm 2): each row is a FIFO queue of `k` fingerprints;
    /// every element pops the oldest and appends its own.
    Qqhtd,
    "qqhtd",
    step_qqhtd
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Exact;
    use crate::hash::{hash_key, mix64};

    /// `|x − p| ≤ z·sqrt(p(1−p)/n)`: a z-sigma normal bound on a binomial proportion.
    fn within(x: f64, p: f64, n: u64, z: f64) -> bool {
        (x - p).abs() <= z * (p * (1.0 - p) / n as f64).sqrt()
    }

    /// FPR measured on `measure` distinct keys after `warm` distinct keys.
    fn distinct_fpr<F: DuplicateFilter>(f: &mut F, warm: u64, measure: u64, key_seed: u64) -> f64 {
        for i in 0..warm {
            f.step(hash_key(i, key_seed));
        }
        let fp = (warm..warm + measure)
            .filter(|&i| f.step(hash_key(i, key_seed)))
            .count();
        fp as f64 / measure as f64
    }

    // Row mode (k·s ≤ 57) and bucket mode (k·s > 57) are both exercised.
    const CONFIGS: [(u32, u32); 5] = [(1, 3), (2, 4), (4, 3), (3, 20), (8, 8)];

    #[test]
    fn rows_for_is_floor_of_budget_over_row_bits() {
        assert_eq!(rows_for(1_000_000, 1, 3).unwrap(), 333_333);
        assert_eq!(rows_for(65_536, 4, 4).unwrap(), 4096);
        assert_eq!(
            rows_for(11, 4, 3).unwrap_err(),
            Error::BudgetTooSmall {
                structure: "qht",
                budget_bits: 11,
                needed_bits: 12
            }
        );
    }

    /// Theorem 4.1: FPR → k/S with S = 2^s − 1. Stream of distinct keys, warm-up 30·N·k (FP_m
    /// is within (1−1/Nk)^{30Nk} ≈ e^-30 of k/S), then 200 000 measured keys. Tolerance: 5 sigma
    /// of a binomial proportion. Verdicts of distinct rows are independent; verdicts in one row
    /// are positively correlated only through that row's state, which is renewed after ~N·k
    /// steps, far shorter than the measurement. The k/(2^s) alternative is excluded: e.g.
    /// 1/7 vs 1/8 differ by 25 sigma.
    #[test]
    fn qht_fpr_tends_to_k_over_s() {
        for (k, s) in CONFIGS {
            let budget = 2048 * u64::from(k * s);
            let mut f = Qht::new(budget, &QhtParams { k, s }, 1).unwrap();
            assert_eq!(f.rows(), 2048);
            let warm = 30 * 2048 * u64::from(k);
            let n = 200_000;
            let fpr = distinct_fpr(&mut f, warm, n, 11);
            let p = qht_fpr_limit(k, s);
            eprintln!("qht k={k} s={s}: fpr {fpr:.5} theory {p:.5}");
            assert!(within(fpr, p, n, 5.0), "k={k} s={s}: fpr {fpr} vs {p}");
            assert!((f.occupancy().value - 1.0).abs() < 1e-12 || k as f64 > fingerprint_count(s));
        }
    }

    /// Theorem 4.1, transient: on distinct keys, the expected number of false positives among
    /// the first n keys is Σ_{m<n} FP_m. For k = 1 FP_m is exact (a row is non-empty with
    /// probability 1 − (1 − 1/N)^m and then holds one uniform fingerprint); for k > 1 the proof
    /// assumes full rows and FP_m underestimates the transient (k = 2, s = 3, N = 2048 measured
    /// 1504 FPs vs Σ FP_m = 1329 over the first 2·N·k keys), so only k = 1 is tested. Checked for
    /// N = 4096 rows at n = N/2, N, 2N, 8N with a 5-sigma Poisson-binomial bound (variance ≤
    /// mean).
    #[test]
    fn qht_fp_transient_matches_theorem_4_1() {
        let (k, s) = (1, 3);
        let mut f = Qht::new(4096 * 3, &QhtParams { k, s }, 3).unwrap();
        let rows = f.rows();
        let mut fp = 0u64;
        let mut expected = 0.0;
        let nk = rows * u64::from(k);
        for m in 0..8 * nk {
            expected += qht_false_positive_probability(m, rows, k, s);
            if f.step(hash_key(m, 5)) {
                fp += 1;
            }
            if [nk / 2, nk, 2 * nk, 8 * nk].contains(&(m + 1)) {
                let tol = 5.0 * expected.sqrt();
                eprintln!("transient m={}: fp {fp} expected {expected:.1}", m + 1);
                assert!(
                    (fp as f64 - expected).abs() <= tol,
                    "m={m}: {fp} vs {expected:.1}"
                );
            }
        }
    }

    /// Uniform stream over an alphabet of U = 128·N·k keys, 64·U long: duplicates dominate
    /// and FNR (measured on the second half, after the warm-up) approaches Theorem 4.2's
    /// Appendix B closed form (0.70875 here, against 1 − k/S = 0.71429: the test tells them
    /// apart by ~17 sigma). 5-sigma binomial tolerance on ~2M duplicates; measured 0.70884.
    #[test]
    fn qht_fnr_tends_to_theorem_4_2() {
        let (k, s) = (2, 3);
        let rows = 256;
        let mut f = Qht::new(rows * u64::from(k * s), &QhtParams { k, s }, 9).unwrap();
        let u = 128 * rows * u64::from(k);
        let n = 64 * u;
        let mut exact = Exact::with_capacity(u as usize);
        let (mut dup, mut fneg, mut fresh, mut fpos) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..n {
            let key = reduce(mix64(i ^ 0xabcdef), u);
            let h = hash_key(key, 2);
            let truth = exact.step(h);
            let v = f.step(h);
            if i >= n / 2 {
                if truth {
                    dup += 1;
                    fneg += u64::from(!v);
                } else {
                    fresh += 1;
                    fpos += u64::from(v);
                }
            }
        }
        let fnr = fneg as f64 / dup as f64;
        let theory = qht_fnr_limit_uniform(u as f64, rows, k, s);
        eprintln!(
            "qht fnr {fnr:.5} theory {theory:.5} (1-k/S = {:.5}) on {dup}; fresh {fresh} fp {fpos}",
            qht_fnr_limit(k, s)
        );
        assert!(
            (theory - qht_fnr_limit(k, s)).abs() < 0.02,
            "closed form {theory}"
        );
        assert!(within(fnr, theory, dup, 5.0), "fnr {fnr} vs {theory}");
        // Almost all keys have been seen by then: the FPR sample is small but unbiased.
        if fresh > 100 {
            let fpr = fpos as f64 / fresh as f64;
            assert!(
                within(fpr, qht_fpr_limit(k, s), fresh, 5.0),
                "fpr {fpr} on {fresh}"
            );
        }
    }

    /// §5.1: QHTD FPR → 1 − (1 − 1/S)^k (5-sigma binomial, as above). For k ≥ 2 this is below
    /// QHT's k/S, which the test also distinguishes.
    #[test]
    fn qhtd_fpr_tends_to_theory() {
        for (k, s) in CONFIGS {
            let budget = 2048 * u64::from(k * s);
            let mut f = Qhtd::new(budget, &QhtParams { k, s }, 1).unwrap();
            let n = 200_000;
            let fpr = distinct_fpr(&mut f, 30 * 2048 * u64::from(k), n, 13);
            let p = qhtd_fpr_limit(k, s);
            eprintln!("qhtd k={k} s={s}: fpr {fpr:.5} theory {p:.5}");
            assert!(within(fpr, p, n, 5.0), "k={k} s={s}: fpr {fpr} vs {p}");
        }
    }

    /// QQHTD on distinct keys: each bucket holds an independent uniform fingerprint, as in
    /// QHTD, so FPR → 1 − (1 − 1/S)^k too (5-sigma binomial).
    #[test]
    fn qqhtd_fpr_on_distinct_keys() {
        for (k, s) in CONFIGS {
            let budget = 2048 * u64::from(k * s);
            let mut f = Qqhtd::new(budget, &QhtParams { k, s }, 1).unwrap();
            let n = 200_000;
            let fpr = distinct_fpr(&mut f, 4 * 2048 * u64::from(k), n, 17);
            let p = qhtd_fpr_limit(k, s);
            assert!(within(fpr, p, n, 5.0), "k={k} s={s}: fpr {fpr} vs {p}");
            assert!((f.occupancy().value - 1.0).abs() < 1e-12);
        }
    }

    /// Model test: every structure reports the immediate repeat of an element as DUPLICATE
    /// (the element was either found or just stored), whatever the state.
    #[test]
    fn immediate_repeat_is_always_duplicate() {
        for (k, s) in CONFIGS {
            let p = QhtParams { k, s };
            let mut fs: Vec<Box<dyn DuplicateFilter>> = vec![
                Box::new(Qht::new(64 * u64::from(k * s), &p, 1).unwrap()),
                Box::new(Qhtd::new(64 * u64::from(k * s), &p, 1).unwrap()),
                Box::new(Qqhtd::new(64 * u64::from(k * s), &p, 1).unwrap()),
            ];
            for f in &mut fs {
                for i in 0..20_000u64 {
                    let h = hash_key(i, 3);
                    f.step(h);
                    assert!(f.step(h), "{} k={k} s={s} key {i}", f.name());
                }
            }
        }
    }

    /// Model test against an exact set: while no row has overflowed (few keys, many rows), a
    /// QHT never forgets, so it has no false negatives; its false positives on the unseen keys
    /// follow Theorem 4.1's transient (5-sigma Poisson bound).
    #[test]
    fn qht_below_capacity_has_no_false_negatives() {
        let (k, s) = (4, 8);
        let mut f = Qht::new(1 << 20, &QhtParams { k, s }, 2).unwrap();
        let rows = f.rows();
        let mut exact = Exact::new();
        let distinct = 2000u64;
        let (mut fp, mut expected) = (0u64, 0.0);
        let mut inserted = 0u64;
        for i in 0..20_000u64 {
            let h = hash_key(reduce(mix64(i), distinct), 4);
            let truth = exact.step(h);
            let v = f.step(h);
            if truth {
                assert!(v, "false negative at {i}");
            } else {
                expected += qht_false_positive_probability(inserted, rows, k, s);
                inserted += 1;
                fp += u64::from(v);
            }
        }
        assert!(
            (fp as f64 - expected).abs() <= 5.0 * expected.sqrt().max(1.0),
            "{fp} vs {expected}"
        );
    }

    /// §5.2: with one bucket per row, QHT, QHTD and QQHTD are the same structure.
    #[test]
    fn k1_variants_agree() {
        let p = QhtParams { k: 1, s: 4 };
        let mut a = Qht::new(4000, &p, 1).unwrap();
        let mut b = Qhtd::new(4000, &p, 2).unwrap();
        let mut c = Qqhtd::new(4000, &p, 3).unwrap();
        for i in 0..100_000u64 {
            let h = hash_key(reduce(mix64(i), 5000), 0);
            let (x, y, z) = (a.step(h), b.step(h), c.step(h));
            assert!(x == y && y == z, "element {i}");
        }
    }

    /// QQHTD forgets in FIFO order: with k buckets and a single row, a key is remembered
    /// exactly while fewer than k other elements have arrived since (fingerprint collisions
    /// aside: s = 40 makes them negligible).
    #[test]
    fn qqhtd_is_a_fifo_window() {
        let k = 5;
        let mut f = Qqhtd::new(u64::from(k) * 40, &QhtParams { k, s: 40 }, 1).unwrap();
        assert_eq!(f.rows(), 1);
        for gap in 0..10u64 {
            let key = 1_000_000 + gap;
            f.step(hash_key(key, 0));
            for j in 0..gap {
                f.step(hash_key(key * 100 + j, 0));
            }
            assert_eq!(f.step(hash_key(key, 0)), gap < u64::from(k), "gap {gap}");
        }
    }

    #[test]
    fn memory_within_budget_for_all_budgets() {
        for (k, s) in CONFIGS.into_iter().chain([(1, 1), (1024, 57), (16, 6)]) {
            let p = QhtParams { k, s };
            for e in 10..=32 {
                let budget = 1u64 << e;
                match memory_bits_for(budget, &p) {
                    Ok(m) => {
                        assert!(
                            m <= budget && m + u64::from(k * s) > budget,
                            "k={k} s={s} 2^{e}"
                        );
                        assert_eq!(m, rows_for(budget, k, s).unwrap() * u64::from(k * s));
                    }
                    Err(Error::BudgetTooSmall { .. }) => assert!(budget < u64::from(k * s)),
                    Err(other) => panic!("{other}"),
                }
            }
        }
        for budget in [1024u64, 10_000, 1_000_000, 8_000_000] {
            let p = QhtParams { k: 3, s: 20 };
            let f = Qqhtd::new(budget, &p, 0).unwrap();
            assert_eq!(f.memory_bits(), memory_bits_for(budget, &p).unwrap());
        }
    }

    #[test]
    fn invalid_parameters_are_errors() {
        for (k, s) in [
            (0, 3),
            (1, 0),
            (1, 58),
            (5, 2),
            (1025, 20),
            (u32::MAX, u32::MAX),
        ] {
            let p = QhtParams { k, s };
            assert!(
                matches!(
                    Qht::new(1 << 20, &p, 0),
                    Err(Error::InvalidParameter { .. })
                ),
                "{p:?}"
            );
            assert!(matches!(
                memory_bits_for(1 << 20, &p),
                Err(Error::InvalidParameter { .. })
            ));
        }
        assert!(matches!(
            Qhtd::new(2, &QhtParams::default(), 0),
            Err(Error::BudgetTooSmall {
                structure: "qhtd",
                ..
            })
        ));
        assert!(matches!(
            Qht::new(u64::MAX, &QhtParams::default(), 0),
            Err(Error::CapacityTooLarge { .. })
        ));
        // k = 2^s is allowed (Algorithm 1's bound) and saturates at FPR 1.
        assert!(Qht::new(1000, &QhtParams { k: 4, s: 2 }, 0).is_ok());
        assert_eq!(qht_fpr_limit(4, 2), 1.0);
    }

    #[test]
    fn defaults_are_section_6_1() {
        assert_eq!(QhtParams::default(), QhtParams { k: 1, s: 3 });
        assert!((qht_fpr_limit(1, 3) - 1.0 / 7.0).abs() < 1e-15);
    }

    #[test]
    fn same_seed_same_verdicts_and_batch_equals_step() {
        let keys: Vec<u64> = (0..50_000u64)
            .map(|i| hash_key(reduce(mix64(i), 30_000), 1))
            .collect();
        for (k, s) in CONFIGS {
            let p = QhtParams { k, s };
            type Make = fn(u64, &QhtParams, u64) -> Box<dyn DuplicateFilter>;
            let makers: [Make; 3] = [
                |b, p, seed| Box::new(Qht::new(b, p, seed).unwrap()),
                |b, p, seed| Box::new(Qhtd::new(b, p, seed).unwrap()),
                |b, p, seed| Box::new(Qqhtd::new(b, p, seed).unwrap()),
            ];
            for make in makers {
                let mut a = make(10_000, &p, 42);
                let mut b = make(10_000, &p, 42);
                let mut c = make(10_000, &p, 43);
                let va: Vec<bool> = keys.iter().map(|&h| a.step(h)).collect();
                let mut vb = vec![false; keys.len()];
                b.step_batch(&keys, &mut vb);
                assert_eq!(va, vb, "{} k={k} s={s}", a.name());
                let vc: Vec<bool> = keys.iter().map(|&h| c.step(h)).collect();
                // Another seed changes only random evictions (none for QQHTD or k = 1).
                if a.name() != "qqhtd" && k > 1 {
                    assert_ne!(va, vc, "{} k={k} s={s}", a.name());
                }
            }
        }
    }

    #[test]
    fn names_and_params() {
        let p = QhtParams { k: 2, s: 5 };
        let f = Qht::new(1000, &p, 0).unwrap();
        assert_eq!(f.name(), "qht");
        assert_eq!(Qhtd::new(1000, &p, 0).unwrap().name(), "qhtd");
        assert_eq!(Qqhtd::new(1000, &p, 0).unwrap().name(), "qqhtd");
        assert_eq!(
            f.params(),
            vec![
                crate::Param::new("k", 2u32),
                crate::Param::new("s", 5u32),
                crate::Param::new("rows", 100u64),
                crate::Param::new("fingerprints", 31.0)
            ]
        );
    }

    /// The two-draw selection gives the first non-zero `rehash(h, FP_SALT + i) mod 2^s`.
    #[test]
    fn fingerprint_is_first_nonzero_draw() {
        for s in 1..=12u32 {
            let mask = (1u64 << s) - 1;
            for i in 0..20_000u64 {
                let h = hash_key(i, u64::from(s));
                let want = (0..64u64)
                    .map(|j| rehash(h, FP_SALT.wrapping_add(j)) & mask)
                    .find(|&fp| fp != 0)
                    .unwrap_or(1);
                assert_eq!(nonzero_fingerprint(h, mask), want, "s={s} key {i}");
            }
        }
    }

    #[test]
    fn fingerprints_are_uniform_and_nonzero() {
        // s = 2: three values, each 1/3 (option 3), not 1/2, 1/4, 1/4 (option 2).
        let mut counts = [0u64; 4];
        let n = 300_000u64;
        for i in 0..n {
            counts[nonzero_fingerprint(hash_key(i, 0), 3) as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        for &c in &counts[1..] {
            assert!(within(c as f64 / n as f64, 1.0 / 3.0, n, 5.0), "{counts:?}");
        }
    }
}
