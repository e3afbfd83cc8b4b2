//! Building any structure by name from its parameters: the registry the runner uses.
//!
//! [`FilterSpec`] is deserialised from an experiment file's `[[algorithm]]` table: the `name`
//! key picks the structure and the other keys are that structure's parameter struct (unknown
//! keys are rejected).

use crate::a2::{A2, A2Params};
use crate::apbf::{Apbf, ApbfParams};
use crate::bdbf::{BDbf, BDbfParams};
use crate::bloom::{BloomFilter, BloomParams};
use crate::bsbf::{Bsbf, BsbfParams, Bsbfsd, BsbfsdParams, Rlbsbf, RlbsbfParams};
use crate::buffering::{FpBuffering, FpBufferingParams, LruBuffering, LruBufferingParams};
use crate::cuckoo::{CuckooParams, StreamingCuckoo};
use crate::fpsbf::{FpSbf, FpSbfParams};
use crate::qht::{Qht, QhtParams, Qhtd, Qqhtd};
use crate::rsbf::{Rsbf, RsbfParams};
use crate::sbf::{SbfParams, StableBloomFilter};
use crate::sqf::{Sqf, SqfParams};
use crate::swamp::{Swamp, SwampParams};
use crate::{DuplicateFilter, Result, exact::Exact};
use serde::{Deserialize, Serialize};

/// Parameters of the exact baseline (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExactParams {}

macro_rules! registry {
    ($( $variant:ident($params:ty) => $name:literal, |$b:ident, $p:ident, $s:ident| $build:expr, |$mb:ident, $mp:ident| $mem:expr, $cost:expr; )*) => {
        /// A structure and its parameters, as named in experiment files.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "name", rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum FilterSpec {
            $(
                #[doc = concat!("`name = \"", $name, "\"`")]
                #[serde(rename = $name)]
                $variant($params),
            )*
        }

        impl FilterSpec {
            /// Every structure name the registry knows.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            /// The structure's name.
            pub fn name(&self) -> &'static str {
                match self { $(Self::$variant(_) => $name,)* }
            }

            /// Builds the structure within `budget_bits` bits, seeded with `seed`.
            pub fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn DuplicateFilter>> {
                match self {
                    $(Self::$variant(params) => {
                        let ($b, $p, $s) = (budget_bits, params, seed);
                        Ok(Box::new($build?))
                    })*
                }
            }

            /// The bits the structure would use within `budget_bits`, without allocating;
            /// also validates the parameters.
            pub fn memory_bits_for(&self, budget_bits: u64) -> Result<u64> {
                match self {
                    $(Self::$variant(params) => {
                        let ($mb, $mp) = (budget_bits, params);
                        $mem
                    })*
                }
            }

            /// Relative cost per element (1.0 ≈ a k=2 Bloom-filter step), for balancing work.
            pub fn relative_cost(&self) -> f64 {
                match self { $(Self::$variant(_) => $cost,)* }
            }
        }
    };
}

registry! {
    Exact(ExactParams) => "exact", |_b, _p, _s| Ok::<_, crate::Error>(Exact::new()), |_b, _p| Ok(0), 4.0;
    Bloom(BloomParams) => "bloom", |b, p, s| BloomFilter::new(b, p, s), |b, p| BloomFilter::memory_bits_for(b, p), 1.0;
    Sbf(SbfParams) => "sbf", |b, p, s| StableBloomFilter::new(b, p, s), |b, p| StableBloomFilter::memory_bits_for(b, p), 3.0;
    LruBuffering(LruBufferingParams) => "lru_buffering", |b, p, s| LruBuffering::new(b, p, s), |b, p| LruBuffering::memory_bits_for(b, p), 8.0;
    FpBuffering(FpBufferingParams) => "fp_buffering", |b, p, s| FpBuffering::new(b, p, s), |b, p| FpBuffering::memory_bits_for(b, p), 8.0;
    FpSbf(FpSbfParams) => "fpsbf", |b, p, s| FpSbf::new(b, p, s), |b, p| FpSbf::memory_bits_for(b, p), 20.0;
    A2(A2Params) => "a2", |b, p, s| A2::new(b, p, s), |b, p| A2::memory_bits_for(b, p), 2.0;
    Rsbf(RsbfParams) => "rsbf", |b, p, s| Rsbf::new(b, p, s), |b, p| Rsbf::memory_bits_for(b, p), 1.5;
    Bsbf(BsbfParams) => "bsbf", |b, p, s| Bsbf::new(b, p, s), |b, p| Bsbf::memory_bits_for(b, p), 1.2;
    Bsbfsd(BsbfsdParams) => "bsbfsd", |b, p, s| Bsbfsd::new(b, p, s), |b, p| Bsbfsd::memory_bits_for(b, p), 1.1;
    Rlbsbf(RlbsbfParams) => "rlbsbf", |b, p, s| Rlbsbf::new(b, p, s), |b, p| Rlbsbf::memory_bits_for(b, p), 1.2;
    Qht(QhtParams) => "qht", |b, p, s| Qht::new(b, p, s), |b, p| crate::qht::memory_bits_for(b, p), 1.0;
    Qhtd(QhtParams) => "qhtd", |b, p, s| Qhtd::new(b, p, s), |b, p| crate::qht::memory_bits_for(b, p), 1.0;
    Qqhtd(QhtParams) => "qqhtd", |b, p, s| Qqhtd::new(b, p, s), |b, p| crate::qht::memory_bits_for(b, p), 1.0;
    Sqf(SqfParams) => "sqf", |b, p, s| Sqf::new(b, p, s), |b, p| crate::sqf::memory_bits_for(b, p), 1.5;
    Cuckoo(CuckooParams) => "cuckoo", |b, p, s| StreamingCuckoo::new(b, p, s), |b, p| crate::cuckoo::memory_bits_for(b, p), 2.0;
    BDbf(BDbfParams) => "bdbf", |b, p, s| BDbf::new(b, p, s), |b, p| BDbf::memory_bits_for(b, p), 10.0;
    Apbf(ApbfParams) => "apbf", |b, p, s| Apbf::new(b, p, s), |b, p| Apbf::memory_bits_for(b, p), 3.0;
    ApbfBlocked(ApbfParams) => "apbf_blocked", |b, p, s| Apbf::new_blocked(b, p, s), |b, p| Apbf::memory_bits_for_blocked(b, p), 2.0;
    Swamp(SwampParams) => "swamp", |b, p, s| Swamp::new(b, p, s), |b, p| Swamp::memory_bits_for(b, p), 3.0;
}

impl FilterSpec {
    /// Relative cost per element at `budget_bits` (1.0 ≈ a k=2 Bloom-filter step): the
    /// structure's [`relative_cost`](Self::relative_cost), refined where the cost follows a
    /// parameter. An SBF touches K probe cells and P decrement cells (P from Eq. 17 when given as
    /// `fps`), half a Bloom step per cell.
    pub fn cost_at(&self, budget_bits: u64) -> f64 {
        match self {
            Self::Sbf(p) => {
                let m = budget_bits / u64::from(crate::sbf::cell_bits(p.max.max(1))).max(1);
                let cells = match (p.p, p.fps) {
                    (Some(pp), _) => pp as f64,
                    (None, Some(fps)) => crate::theory::p_for_fps(m.max(1), p.k, p.max, fps),
                    (None, None) => 4.0,
                };
                let cost = (f64::from(p.k) + cells) / 2.0;
                if cost.is_finite() {
                    cost.max(1.0)
                } else {
                    self.relative_cost()
                }
            }
            _ => self.relative_cost(),
        }
    }

    /// Estimated heap bytes of the built structure: its state plus uncharged overheads
    /// (buffer indexes, the exact set), for the runner's memory check.
    pub fn heap_bytes_estimate(&self, budget_bits: u64, distinct_hint: u64) -> u64 {
        match self {
            Self::Exact(_) => distinct_hint.saturating_mul(16),
            // LRU buffers: the uncharged index (map entry + slab node) is ~40 bytes per entry.
            Self::LruBuffering(p) => budget_bits / u64::from(p.entry_bits) * 48 + 4096,
            Self::FpBuffering(p) => budget_bits / u64::from(p.entry_bits) * 48 + 4096,
            #[allow(unreachable_patterns)]
            _ => budget_bits / 8 + 4096,
        }
    }
}
