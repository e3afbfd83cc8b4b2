//! BSBF, BSBFSD and RLBSBF: the biased-sampling Bloom filters.
//!
//! Source: Bera, Dutta, Narang, Bhattacherjee, *Advanced Bloom Filter Based Algorithms for
//! Efficient Approximate Data De-Duplication in Streams*: Section 4 (BSBF, Algorithm 2;
//! analysis Section 4.1, Eqs. 4.1–4.4), Section 4.2 (BSBF with Single Deletion, Algorithm 3;
//! analysis Section 4.3, Eq. 4.5), Section 5 (Randomized Load Balanced BSBF, Algorithm 4;
//! analysis Section 5.1, Eqs. 5.1–5.2), parameters Section 6.1 (Tables 1–3: `k = 2`).
//!
//! # Structure (all three)
//!
//! `k` Bloom filters of `s` bits each (Algorithms 2–4: "Construct k Bloom filters each having
//! M/k bits of memory"), stored back to back in one bit array. An element hashes to one bit
//! `h_i` per filter and is reported DUPLICATE iff all `k` bits are set. An element reported
//! DISTINCT is inserted: first bits are reset (the three variants differ only here), then its
//! `k` bits are set.
//!
//! - **BSBF** (Algorithm 2): reset one uniformly random bit in each of the `k` filters.
//! - **BSBFSD** (Algorithm 3): pick one filter uniformly at random and reset one uniformly
//!   random bit in it. (Uniform filter then uniform bit = one uniform bit of the whole array,
//!   which is how it is drawn.)
//! - **RLBSBF** (Algorithm 4): in each filter `i`, pick a uniformly random bit and reset it
//!   with probability `L(i)/s`, `L(i)` being the filter's number of ones when the element
//!   arrived (Section 5: `L_{m+1}(i)`). Exact per-filter load counters are kept.
//!
//! # Readings
//!
//! - Result labels (papers README, inconsistency #3): Algorithms 2–4 print "if all bits at
//!   positions H are set then Result ← DISTINCT". The prose (Section 3: "If all the k bit
//!   positions are set to 1, then RSBF reports the element to be duplicate"; Section 4: BSBF
//!   "inserts ... all the elements ... reported as distinct") and the analysis (Section 3.1:
//!   `X_{m+1}`, all bits set, is the probability of reporting a duplicate) are unambiguous:
//!   all `k` bits set means DUPLICATE, and only DISTINCT elements are inserted.
//! - Order of reset and set: as printed in Algorithms 2–4, resets first, then sets, so an
//!   element's own bits are all 1 right after its insertion (and an immediate repeat is always
//!   reported DUPLICATE). This is also what the analysis assumes (Eq. 4.1: the never-reset
//!   product starts at `l+1`).
//! - The reset bit "might have already been set to 0" (Section 4): a reset of a 0 is a no-op.
//! - RLBSBF's coin uses the load at arrival, before any of this step's resets (`L(i)` in
//!   Algorithm 4, `L_{m+1}(i)` in Section 5).
//! - `k`: the algorithms say "compute the value of k from FPR_t", but the experiments choose
//!   `k = 2` from the sweeps of Tables 1–3 (Section 6.1: "we set k=2"); `k` is a parameter
//!   with default 2.
//!
//! # Memory
//!
//! BSBF, BSBFSD: `k·s` bits with `s = ⌊M/k⌋`. RLBSBF also charges its `k` load counters
//! (64 bits each, state the algorithm reads): `s = ⌊(M − 64k)/k⌋`. The total-ones counter used
//! for [`DuplicateFilter::occupancy`] is instrumentation and is not charged.
//!
//! # Prefetching
//!
//! `prefetch(hash)` touches the element's `k` words. The random reset positions are drawn
//! ahead into a ring of [`RING_INSERTIONS`](crate::rsbf) insertions' worth of words; each word
//! is prefetched when drawn and used about 32 insertions later. The draws are consumed in the
//! same order by `step` and `step_batch`, so verdicts are identical. Neither the draws nor a
//! batch's probes are prefetched in an array of at most
//! [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS), where the prefetches cost more than
//! they save; there the words are drawn as they are used, without the ring (the same words in
//! the same order).
//!
//! # Stable load
//!
//! The journal's analysis (Lemma 1, Eqs. 4.3–4.5) shows `X → 1` and gives no stable-load
//! value. [`bsbf_stable_load`], [`bsbfsd_stable_load`] and [`rlbsbf_stable_load`] are derived
//! here (not in the paper) for a stream without repeats: per insertion filter `i` gains a one
//! with probability `(1 − ℓ)/(1 − ℓ^k)` (its bit is 0 given that not all `k` bits are 1) and
//! loses one with probability `ℓ` (BSBF), `ℓ/k` (BSBFSD) or `ℓ²` (RLBSBF), up to `O(1/s)`.

use crate::error::{Error, Result, ensure};
use crate::hash::{DoubleHash, reduce};
use crate::rng::filter_rng;
use crate::rsbf::{
    DrawRing, MAX_K, RING_INSERTIONS, partition_cell, partition_prefetch, partition_query,
};
use crate::{DuplicateFilter, Occupancy, OccupancyKind, bits::BitArray};

fn default_k() -> u32 {
    2
}

macro_rules! params_struct {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
        pub struct $name {
            /// Number of Bloom filters `k` (1..=64; default 2, journal Section 6.1).
            #[cfg_attr(feature = "serde", serde(default = "default_k"))]
            pub k: u32,
            /// Reset positions within a filter drawn from `[0, min(s, 2^bits))` instead of
            /// `[0, s)` (default: the full range). A hypothesis about an implementation
            /// detail, as the SBF's `decrement_range_bits` (see the module documentation).
            #[cfg_attr(feature = "serde", serde(default))]
            pub reset_range_bits: Option<u32>,
        }

        impl Default for $name {
            fn default() -> Self {
                Self { k: default_k(), reset_range_bits: None }
            }
        }
    };
}

params_struct!(
    /// BSBF parameters (journal Algorithm 2).
    BsbfParams
);
params_struct!(
    /// BSBFSD parameters (journal Algorithm 3).
    BsbfsdParams
);
params_struct!(
    /// RLBSBF parameters (journal Algorithm 4).
    RlbsbfParams
);

/// Bits charged per RLBSBF load counter.
pub const RLBSBF_COUNTER_BITS: u64 = 64;

/// Validated reset range: `None`, or `1..=63` bits.
fn check_range(range_bits: Option<u32>) -> Result<()> {
    match range_bits {
        Some(b) => ensure(
            (1..=63).contains(&b),
            "reset_range_bits",
            b,
            "must be in 1..=63",
        ),
        None => Ok(()),
    }
}

/// Validated `(k, s)`; `reserved` bits per filter are charged beside the filter's `s` bits.
fn layout(structure: &'static str, budget_bits: u64, k: u32, reserved: u64) -> Result<(u32, u64)> {
    ensure((1..=MAX_K).contains(&k), "k", k, "must be in 1..=64")?;
    let k64 = u64::from(k);
    let s = (budget_bits / k64).saturating_sub(reserved);
    if s == 0 {
        return Err(Error::BudgetTooSmall {
            structure,
            budget_bits,
            needed_bits: k64 * (reserved + 1),
        });
    }
    Ok((k, s))
}

/// Derived here (not in the paper): BSBF's stable load per filter on a stream without repeats,
/// the root in `(0, 1]` of `ℓ^{k+1} − 2ℓ + 1 = 0` (balance `ℓ = (1 − ℓ)/(1 − ℓ^k)`).
/// `k = 1` gives 1 (the filter fills up), `k = 2` gives `(√5 − 1)/2 ≈ 0.618`, `k → ∞` tends to
/// 1/2. Neglects `O(1/s)` terms.
pub fn bsbf_stable_load(k: u32) -> f64 {
    stable_root(|l| l * (1.0 - l.powi(k as i32)) - (1.0 - l), k)
}

/// Derived here (not in the paper): BSBFSD's stable load on a stream without repeats. The
/// balance `ℓ/k = (1 − ℓ)/(1 − ℓ^k)`, i.e. `ℓ(1 + ℓ + … + ℓ^{k−1}) = k`, has the single root
/// `ℓ = 1` for every `k`: the load tends to 1 (exponentially, time constant about
/// `2ks/(k+1)` insertions).
pub fn bsbfsd_stable_load(_k: u32) -> f64 {
    1.0
}

/// Derived here (not in the paper): RLBSBF's stable load per filter on a stream without
/// repeats, the root in `(0, 1]` of `ℓ²(1 − ℓ^k) = 1 − ℓ` (i.e. `ℓ²(1 + … + ℓ^{k−1}) = 1`).
/// `k = 1` gives 1, `k = 2` gives ≈ 0.7549 (root of `ℓ³ + ℓ² − 1`).
pub fn rlbsbf_stable_load(k: u32) -> f64 {
    stable_root(|l| l * l * (1.0 - l.powi(k as i32)) - (1.0 - l), k)
}

/// Root of `g` in (0, 1) by bisection, where `g < 0` near 0 and `g > 0` just below the root;
/// 1 when there is none (`k = 1`).
fn stable_root(g: impl Fn(f64) -> f64, k: u32) -> f64 {
    if k <= 1 {
        return 1.0;
    }
    // g(l)/(1−l) is increasing on (0,1) for these balances; bisect on that sign.
    let h = |l: f64| g(l) / (1.0 - l);
    let (mut lo, mut hi) = (1e-9, 1.0 - 1e-12);
    if h(hi) <= 0.0 {
        return 1.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if h(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Journal Eq. 4.3: one step of BSBF's recurrence for `X_{m+1}`,
/// `[X^{1/k}{X + (1−X)(1 − 1/s)} + (1−X)/s]^k`.
pub fn bsbf_x_next(x: f64, s: f64, k: u32) -> f64 {
    x_next(x, k, 1.0 - 1.0 / s, 1.0 / s)
}

/// Journal Section 4.3 (the unnumbered `X_{m+1}` recurrence before Eq. 4.5): BSBFSD,
/// `[X^{1/k}{X + (1−X)(1 − 1/(ks))} + (1−X)/s]^k`.
pub fn bsbfsd_x_next(x: f64, s: f64, k: u32) -> f64 {
    x_next(x, k, 1.0 - 1.0 / (f64::from(k) * s), 1.0 / s)
}

/// Journal Eq. 5.2: RLBSBF, `[X^{1/k}{X + (1−X)(1 − L/s²)} + (1−X)/s]^k` with `L` the expected
/// load (ones) of a filter.
pub fn rlbsbf_x_next(x: f64, s: f64, k: u32, load_ones: f64) -> f64 {
    x_next(x, k, 1.0 - load_ones / (s * s), 1.0 / s)
}

fn x_next(x: f64, k: u32, survive: f64, set: f64) -> f64 {
    let kf = f64::from(k);
    (x.powf(1.0 / kf) * (x + (1.0 - x) * survive) + (1.0 - x) * set).powf(kf)
}

/// Journal Eq. 4.4 (BSBF, Lemma 1): `(X_{m+1}/X_m)^{1/k} = 1 + (1−X)(1/s)(X^{−1/k} − 1)`.
pub fn bsbf_x_ratio(x: f64, s: f64, k: u32) -> f64 {
    1.0 + (1.0 - x) / s * (x.powf(-1.0 / f64::from(k)) - 1.0)
}

/// Journal Eq. 4.5 (BSBFSD) as printed: `1 + (1−X)(1/s)(X^{−1/k} − 1/k)`.
pub fn bsbfsd_x_ratio(x: f64, s: f64, k: u32) -> f64 {
    let kf = f64::from(k);
    1.0 + (1.0 - x) / s * (x.powf(-1.0 / kf) - 1.0 / kf)
}

/// Lower bound on the probability that an element inserted and then repeated after `g`
/// intervening insertions is reported DUPLICATE: each of its `k` bits survives an insertion's
/// resets with probability at least `1 − 1/s` per reset aimed at its filter. BSBF and RLBSBF:
/// `(1 − 1/s)^{gk}`; BSBFSD: `(1 − 1/s)^g` (one reset per insertion, over `k·s` bits, hits one
/// of the `k` bits with probability `1/s`). Bits reset and then set again by other elements
/// only help, hence a bound. Derived here from Algorithms 2–4 (cf. Eq. 4.1's survival factor).
pub fn repeat_detection_lower_bound(variant: Variant, s: u64, k: u32, g: u64) -> f64 {
    let per = 1.0 - 1.0 / s as f64;
    let resets = match variant {
        Variant::Bsbf | Variant::Rlbsbf => g as f64 * f64::from(k),
        Variant::Bsbfsd => g as f64,
    };
    per.powf(resets)
}

/// The three deletion policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Algorithm 2: one random reset per filter.
    Bsbf,
    /// Algorithm 3: one random reset in one random filter.
    Bsbfsd,
    /// Algorithm 4: per filter, a random reset with probability `L(i)/s`.
    Rlbsbf,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Self::Bsbf => "bsbf",
            Self::Bsbfsd => "bsbfsd",
            Self::Rlbsbf => "rlbsbf",
        }
    }
    fn reserved_per_filter(self) -> u64 {
        match self {
            Self::Rlbsbf => RLBSBF_COUNTER_BITS,
            _ => 0,
        }
    }
    /// Ring words drawn per insertion.
    fn draws_per_insertion(self, k: u32) -> usize {
        match self {
            Self::Bsbfsd => 1,
            _ => k as usize,
        }
    }
}

/// Shared state and hot path; `V` selects the deletion policy at compile time.
#[derive(Debug, Clone)]
struct Core<const V: u8> {
    bits: BitArray,
    k: u32,
    s: u64,
    /// Ones per filter (RLBSBF reads them; kept for all, it is one add).
    ones: Vec<u64>,
    total_ones: u64,
    ring: DrawRing,
    /// Reset positions are drawn from `[0, r)` of each filter: `s`, or `min(s, 2^bits)`.
    r: u64,
    range_bits: Option<u32>,
    /// Whether the array is larger than [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS):
    /// the reset draws and a batch's probes are prefetched only then.
    prefetch: bool,
}

const BSBF: u8 = 0;
const BSBFSD: u8 = 1;
const RLBSBF: u8 = 2;

impl<const V: u8> Core<V> {
    const VARIANT: Variant = match V {
        BSBF => Variant::Bsbf,
        BSBFSD => Variant::Bsbfsd,
        _ => Variant::Rlbsbf,
    };

    fn layout(budget_bits: u64, k: u32) -> Result<(u32, u64)> {
        let v = Self::VARIANT;
        layout(v.name(), budget_bits, k, v.reserved_per_filter())
    }

    fn memory_bits_for(budget_bits: u64, k: u32, range_bits: Option<u32>) -> Result<u64> {
        check_range(range_bits)?;
        let (k, s) = Self::layout(budget_bits, k)?;
        Ok(u64::from(k) * (s + Self::VARIANT.reserved_per_filter()))
    }

    fn new(budget_bits: u64, k: u32, range_bits: Option<u32>, seed: u64) -> Result<Self> {
        let (_, s) = Self::layout(budget_bits, k)?;
        let prefetch = u64::from(k) * s > crate::PREFETCH_ABOVE_BITS;
        Self::with_prefetch(budget_bits, k, range_bits, seed, prefetch)
    }

    /// [`Self::new`] with or without prefetches whatever the size (for the test that both
    /// answer the same).
    fn with_prefetch(
        budget_bits: u64,
        k: u32,
        range_bits: Option<u32>,
        seed: u64,
        prefetch: bool,
    ) -> Result<Self> {
        let v = Self::VARIANT;
        check_range(range_bits)?;
        let (k, s) = Self::layout(budget_bits, k)?;
        let r = range_bits.map_or(s, |b| s.min(1u64 << b));
        let bits = BitArray::new(v.name(), u64::from(k) * s)?;
        let per = v.draws_per_insertion(k);
        // Without prefetches the words are drawn as they are used: the same words, in the
        // same order, without the ring's loads and stores.
        let slots = if prefetch { RING_INSERTIONS * per } else { 0 };
        let ring = DrawRing::new(slots, filter_rng(seed, 1), |j, w| {
            bits.prefetch(Self::reset_cell(k, s, r, (j % per) as u32, w).1);
        });
        Ok(Self {
            bits,
            k,
            s,
            ones: vec![0; k as usize],
            total_ones: 0,
            ring,
            r,
            range_bits,
            prefetch,
        })
    }

    /// The `(filter, cell)` a ring word resets. BSBF and RLBSBF: the word serves filter `i`
    /// (slot `j` of the ring always serves filter `j mod k`). BSBFSD: the filter is the high
    /// part of `w·k` and the bit is drawn from the low part (a uniform filter, then a uniform
    /// bit in it, as Algorithm 3 says, from one word and without division). The bit is drawn
    /// from the first `r` of the filter's `s` (`r = s` unless `reset_range_bits` is set).
    #[inline(always)]
    fn reset_cell(k: u32, s: u64, r: u64, i: u32, w: u64) -> (u32, u64) {
        if V == BSBFSD {
            let p = u128::from(w) * u128::from(k);
            let f = (p >> 64) as u32;
            (f, u64::from(f) * s + reduce(p as u64, r))
        } else {
            (i, u64::from(i) * s + reduce(w, r))
        }
    }

    #[inline(always)]
    fn cell(&self, dh: &DoubleHash, i: u32) -> u64 {
        partition_cell(dh, i, self.s)
    }

    #[inline(always)]
    fn query(&self, hash: u64) -> bool {
        partition_query(&self.bits, &DoubleHash::new(hash), self.k, self.s)
    }

    /// Takes the next reset word (for filter `i`, ignored by BSBFSD): from the ring,
    /// prefetching its replacement, when the filter prefetches; straight from the generator
    /// otherwise (the same words). Returns the word, its filter and its cell.
    #[inline(always)]
    fn take(&mut self, i: u32) -> (u64, u32, u64) {
        let w = if self.prefetch {
            let (_slot, w, fresh) = self.ring.take();
            self.bits
                .prefetch(Self::reset_cell(self.k, self.s, self.r, i, fresh).1);
            w
        } else {
            self.ring.next_direct()
        };
        let (f, idx) = Self::reset_cell(self.k, self.s, self.r, i, w);
        (w, f, idx)
    }

    /// Resets cell `idx` of filter `f`, keeping the counts. Branch-free: whether a random cell
    /// was set is a coin toss, and a mispredicted branch costs more than the arithmetic.
    #[inline(always)]
    fn clear(&mut self, f: u32, idx: u64) {
        self.clear_if(f, idx, true);
    }

    /// [`Self::clear`] when `reset` holds, without a branch on it (RLBSBF's coin).
    #[inline(always)]
    fn clear_if(&mut self, f: u32, idx: u64, reset: bool) {
        let was = u64::from(self.bits.clear_if(idx, reset));
        self.ones[f as usize] -= was;
        self.total_ones -= was;
    }

    #[inline(always)]
    fn step(&mut self, hash: u64) -> bool {
        let dh = DoubleHash::new(hash);
        if partition_query(&self.bits, &dh, self.k, self.s) {
            return true;
        }
        let s = self.s;
        match V {
            BSBF => {
                for i in 0..self.k {
                    let (_, f, idx) = self.take(i);
                    self.clear(f, idx);
                }
            }
            BSBFSD => {
                let (_, f, idx) = self.take(0);
                self.clear(f, idx);
            }
            _ => {
                for i in 0..self.k {
                    let (w, f, idx) = self.take(i);
                    // Reset with probability L(i)/s: the low 32 bits of the word, scaled to
                    // 0..s, fall below L(i), the load at arrival (no reset of this step has
                    // touched filter i yet). The position uses the high bits (see `reduce`).
                    let coin = ((u128::from(w as u32) * u128::from(s)) >> 32) as u64;
                    self.clear_if(f, idx, coin < self.ones[i as usize]);
                }
            }
        }
        for i in 0..self.k {
            let idx = self.cell(&dh, i);
            let fresh = u64::from(!self.bits.set(idx));
            self.ones[i as usize] += fresh;
            self.total_ones += fresh;
        }
        false
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        partition_prefetch(&self.bits, hash, self.k, self.s);
    }

    fn memory_bits(&self) -> u64 {
        u64::from(self.k) * (self.s + Self::VARIANT.reserved_per_filter())
    }

    fn params(&self) -> Vec<crate::Param> {
        let mut v = vec![
            crate::Param::new("k", self.k),
            crate::Param::new("s", self.s),
        ];
        if let Some(b) = self.range_bits {
            v.push(crate::Param::new("reset_range_bits", b));
        }
        v
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::Load,
            value: self.total_ones as f64 / (u64::from(self.k) * self.s) as f64,
        }
    }
}

macro_rules! filter_type {
    ($(#[$doc:meta])* $name:ident, $params:ident, $v:expr, $label:literal, $cost:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            core: Core<{ $v }>,
        }

        impl $name {
            /// A filter within `budget_bits` (see the module documentation for the layout).
            pub fn new(budget_bits: u64, params: &$params, seed: u64) -> Result<Self> {
                Ok(Self { core: Core::new(budget_bits, params.k, params.reset_range_bits, seed)? })
            }

            /// The state size [`Self::new`] would allocate, without allocating.
            pub fn memory_bits_for(budget_bits: u64, params: &$params) -> Result<u64> {
                Core::<{ $v }>::memory_bits_for(budget_bits, params.k, params.reset_range_bits)
            }

            /// Number of Bloom filters `k`.
            pub fn k(&self) -> u32 {
                self.core.k
            }

            /// Bits per filter `s`.
            pub fn s(&self) -> u64 {
                self.core.s
            }

            /// Ones in filter `i`.
            ///
            /// # Panics
            /// If `i >= k`.
            pub fn filter_ones(&self, i: u32) -> u64 {
                self.core.ones[i as usize]
            }

            /// Read-only membership probe: would `hash` be reported DUPLICATE now?
            pub fn query(&self, hash: u64) -> bool {
                self.core.query(hash)
            }
        }

        impl DuplicateFilter for $name {
            #[inline(always)]
            fn step(&mut self, hash: u64) -> bool {
                self.core.step(hash)
            }
            #[inline(always)]
            fn prefetch(&self, hash: u64) {
                self.core.prefetch(hash)
            }
            /// Prefetches only above [`PREFETCH_ABOVE_BITS`](crate::PREFETCH_ABOVE_BITS).
            fn step_batch(&mut self, hashes: &[u64], out: &mut [bool]) {
                let bits = self.core.bits.len();
                crate::sized_batch(self, bits, hashes, out);
            }
            fn memory_bits(&self) -> u64 {
                self.core.memory_bits()
            }
            fn name(&self) -> &'static str {
                <Self as crate::Structure>::NAME
            }
            fn params(&self) -> Vec<crate::Param> {
                self.core.params()
            }
            fn occupancy(&self) -> Occupancy {
                self.core.occupancy()
            }
        }

        crate::structure::impl_structure!($name {
            name: $label,
            params: $params,
            cost: $cost,
            memory_bits_for: $name::memory_bits_for,
        }

            /// Its `k` probes plus its resets: one per filter (`2·k` cells), BSBFSD one in all
            /// (`k + 1`).
            fn cells_per_element(params: &$params, _budget_bits: u64) -> f64 {
                let k = f64::from(params.k);
                if $v == BSBFSD { k + 1.0 } else { 2.0 * k }
            }

            /// As the SBF's decrement range: at `--scale f` a `b`-bit reset range becomes
            /// `b − log2 f` bits, leaving the same fraction of each filter unreset.
            fn scaled_params(params: &$params, factor: u64) -> $params {
                let mut p = params.clone();
                p.reset_range_bits = p
                    .reset_range_bits
                    .map(|b| crate::structure::scaled_range_bits(b, factor));
                p
            }
        );
    };
}

filter_type!(
    /// BSBF, Biased Sampling based Bloom Filter (journal Algorithm 2).
    Bsbf,
    BsbfParams,
    BSBF,
    "bsbf",
    1.2
);
filter_type!(
    /// BSBFSD, BSBF with Single Deletion (journal Algorithm 3).
    Bsbfsd,
    BsbfsdParams,
    BSBFSD,
    "bsbfsd",
    1.1
);
filter_type!(
    /// RLBSBF, Randomized Load Balanced BSBF (journal Algorithm 4).
    Rlbsbf,
    RlbsbfParams,
    RLBSBF,
    "rlbsbf",
    1.2
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Structure;
    use crate::hash::hash_key;

    /// Drawing the reset words from the ring (prefetched) or as they are used gives the same
    /// words, so the same verdicts, whatever the filter's size picks.
    #[test]
    fn reset_words_from_the_ring_or_drawn_as_used_are_the_same() {
        fn same<const V: u8>(k: u32) {
            let budget = 1 << 14;
            let mut a = Core::<V>::with_prefetch(budget, k, None, 3, true).unwrap();
            let mut b = Core::<V>::with_prefetch(budget, k, None, 3, false).unwrap();
            for key in 0..50_000u64 {
                let h = hash_key(key % 9000, 1);
                assert_eq!(a.step(h), b.step(h), "variant {V}, k {k}, key {key}");
            }
            assert_eq!(a.ones, b.ones);
        }
        for k in [1, 2, 3] {
            same::<BSBF>(k);
            same::<BSBFSD>(k);
            same::<RLBSBF>(k);
        }
    }

    fn ranged<P: Clone>(p: &P, set: impl Fn(&mut P)) -> P {
        let mut q = p.clone();
        set(&mut q);
        q
    }

    /// `reset_range_bits` covering `s` draws the same positions as the full range (same
    /// verdicts); a shorter one never resets the upper part of a filter, so those bits, once
    /// set, stay set, while the lower part keeps its stable load (BSBF, RLBSBF: below 1).
    /// Checked for all three variants at `k = 2`, `s = 2^12`.
    #[test]
    fn reset_range_covering_s_changes_nothing_and_a_short_range_spares_the_upper_bits() {
        let s = 1u64 << 12;
        let budget = 2 * s;
        macro_rules! check {
            ($ty:ident, $params:ident, $lower_decays:expr) => {{
                let base = $params::default();
                let covering = ranged(&base, |p: &mut $params| p.reset_range_bits = Some(12));
                let mut a = $ty::new(budget, &base, 5).unwrap();
                let mut b = $ty::new(budget, &covering, 5).unwrap();
                for key in 0..20_000u64 {
                    let h = hash_key(key % 3_000, 1);
                    assert_eq!(a.step(h), b.step(h), "{} key {key}", stringify!($ty));
                }
                let short = ranged(&base, |p: &mut $params| p.reset_range_bits = Some(11));
                let mut c = $ty::new(budget, &short, 5).unwrap();
                // 200,000 distinct keys, each probing one bit per filter: an upper bit is probed
                // about 49 times, and the first probe that finds it 0 sets it for good; it is
                // never probed with probability e^{-49}.
                for key in 0..200_000u64 {
                    c.step(hash_key(key, 2));
                }
                // RLBSBF's filters are 64 bits short of 2^12 (its load counters are charged).
                let (bits, fs) = (&c.core.bits, c.s());
                for f in 0..2 {
                    let upper_zeros = (s / 2..fs).filter(|&j| !bits.get(f * fs + j)).count();
                    let lower_zeros = (0..s / 2).filter(|&j| !bits.get(f * fs + j)).count();
                    assert_eq!(upper_zeros, 0, "{} filter {f}", stringify!($ty));
                    assert!(
                        !$lower_decays || lower_zeros > 64,
                        "{} filter {f}: lower zeros {lower_zeros}",
                        stringify!($ty)
                    );
                }
                assert_eq!(c.params().last().unwrap().name, "reset_range_bits");
                assert!(
                    $ty::new(
                        budget,
                        &ranged(&base, |p: &mut $params| p.reset_range_bits = Some(0)),
                        5
                    )
                    .is_err()
                );
                assert!(
                    $ty::new(
                        budget,
                        &ranged(&base, |p: &mut $params| p.reset_range_bits = Some(64)),
                        5
                    )
                    .is_err()
                );
                // --scale 64: 31 bits become 25.
                let scaled = <$ty as Structure>::scaled_params(
                    &ranged(&base, |p: &mut $params| p.reset_range_bits = Some(31)),
                    64,
                );
                assert_eq!(scaled.reset_range_bits, Some(25));
            }};
        }
        // BSBFSD's load tends to 1 whatever the range (`bsbfsd_stable_load`): no lower bound.
        check!(Bsbf, BsbfParams, true);
        check!(Bsbfsd, BsbfsdParams, false);
        check!(Rlbsbf, RlbsbfParams, true);
    }
}
