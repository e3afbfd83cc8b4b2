//! Building any structure by name from its parameters: the registry the runner uses.
//!
//! [`FilterSpec`] is deserialised from an experiment file's `[[algorithm]]` table: the `name`
//! key picks the structure and the other keys are that structure's parameter struct (unknown
//! keys are rejected).

use crate::a2::A2;
use crate::aged_cuckoo::AgedCuckoo;
use crate::apbf::{Apbf, ApbfBlocked};
use crate::bdbf::BDbf;
use crate::bloom::BloomFilter;
use crate::bsbf::{Bsbf, Bsbfsd, Rlbsbf};
use crate::buffering::{FpBuffering, LruBuffering};
use crate::cuckoo::StreamingCuckoo;
use crate::exact_window::ExactWindow;
use crate::fbf::Fbf;
use crate::fpsbf::FpSbf;
use crate::inverse_bloom::InverseBloom;
use crate::naor_yogev::NaorYogev;
use crate::qht::{Qht, Qhtd, Qqhtd};
use crate::queue::Queue;
use crate::rotating_bloom::RotatingBloom;
use crate::rsbf::Rsbf;
use crate::sbf::StableBloomFilter;
use crate::sliding_bloom::SlidingBloom;
use crate::sqf::Sqf;
use crate::sw_bf::SwBf;
use crate::swamp::Swamp;
use crate::swamp_plain::SwampPlain;
use crate::timing_bloom::TimingBloom;
use crate::tlbf::Tlbf;
use crate::{DuplicateFilter, Result, Structure, exact::Exact};

/// The exact baseline's parameters (none), where they used to be defined.
pub use crate::exact::ExactParams;

/// `true` when `a` and `b` are the same string; usable in constants.
const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Lists the structure types. Each line is `Variant(Type) = "name"`: the variant of
/// [`FilterSpec`] and the type implementing [`Structure`]. The name string is what serde
/// matches in experiment files (an attribute needs a literal); a compile-time check holds it
/// equal to the type's [`Structure::NAME`], and everything else reads the type.
macro_rules! registry {
    ($( $variant:ident($ty:ty) = $name:literal; )*) => {
        $(
            const _: () = assert!(
                same_str($name, <$ty as Structure>::NAME),
                concat!("registry name \"", $name, "\" differs from its type's Structure::NAME")
            );
        )*

        /// A structure and its parameters, as named in experiment files.
        #[derive(Debug, Clone, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(tag = "name", rename_all = "snake_case"))]
        #[non_exhaustive]
        pub enum FilterSpec {
            $(
                #[doc = concat!("`name = \"", $name, "\"`: [`", stringify!($ty), "`]")]
                #[cfg_attr(feature = "serde", serde(rename = $name))]
                $variant(<$ty as Structure>::Params),
            )*
        }

        impl FilterSpec {
            /// Every structure name the registry knows.
            pub const NAMES: &'static [&'static str] = &[$(<$ty as Structure>::NAME),*];

            /// The structure's name.
            pub fn name(&self) -> &'static str {
                match self { $(Self::$variant(_) => <$ty as Structure>::NAME,)* }
            }

            /// Builds the structure within `budget_bits` bits, seeded with `seed`.
            pub fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn DuplicateFilter>> {
                match self {
                    $(Self::$variant(p) => Ok(Box::new(<$ty as Structure>::new(budget_bits, p, seed)?)),)*
                }
            }

            /// The bits the structure would use within `budget_bits`, without allocating;
            /// also validates the parameters.
            pub fn memory_bits_for(&self, budget_bits: u64) -> Result<u64> {
                match self {
                    $(Self::$variant(p) => <$ty as Structure>::memory_bits_for(budget_bits, p),)*
                }
            }

            /// Relative cost per element (1.0 ≈ a k=2 Bloom-filter step), for balancing work:
            /// the type's [`Structure::RELATIVE_COST`].
            pub fn relative_cost(&self) -> f64 {
                match self { $(Self::$variant(_) => <$ty as Structure>::RELATIVE_COST,)* }
            }

            /// Relative cost per element at `budget_bits` (1.0 ≈ a k=2 Bloom-filter step): the
            /// type's [`Structure::cost_at`], [`relative_cost`](Self::relative_cost) refined
            /// where the cost follows a parameter (SBF: its K + P cells).
            pub fn cost_at(&self, budget_bits: u64) -> f64 {
                match self { $(Self::$variant(p) => <$ty as Structure>::cost_at(p, budget_bits),)* }
            }

            /// Random cells an element touches at `budget_bits` (at least 1 bit): the type's
            /// [`Structure::cells_per_element`].
            pub fn cells_per_element(&self, budget_bits: u64) -> f64 {
                let m = budget_bits.max(1);
                match self { $(Self::$variant(p) => <$ty as Structure>::cells_per_element(p, m),)* }
            }

            /// The lines of [`cells_per_element`](Self::cells_per_element) cleared in sequence:
            /// the type's [`Structure::cleared_lines_per_element`].
            pub fn cleared_lines_per_element(&self, budget_bits: u64) -> f64 {
                let m = budget_bits.max(1);
                match self {
                    $(Self::$variant(p) => <$ty as Structure>::cleared_lines_per_element(p, m),)*
                }
            }

            /// The same structure for a run scaled down by `factor` (`--scale`): the type's
            /// [`Structure::scaled_params`] (SBF's `decrement_range_bits` loses `log2 factor`
            /// bits; every other built-in parameter is kept).
            #[must_use]
            pub fn scaled(&self, factor: u64) -> FilterSpec {
                match self {
                    $(Self::$variant(p) => Self::$variant(<$ty as Structure>::scaled_params(p, factor)),)*
                }
            }

            /// Estimated heap bytes of the built structure: its state plus uncharged overheads
            /// (buffer indexes, the exact set), for the runner's memory check
            /// ([`Structure::heap_bytes_estimate`]).
            pub fn heap_bytes_estimate(&self, budget_bits: u64, distinct_hint: u64) -> u64 {
                match self {
                    $(Self::$variant(p) => <$ty as Structure>::heap_bytes_estimate(p, budget_bits, distinct_hint),)*
                }
            }
        }
    };
}

registry! {
    Exact(Exact) = "exact";
    Bloom(BloomFilter) = "bloom";
    Sbf(StableBloomFilter) = "sbf";
    LruBuffering(LruBuffering) = "lru_buffering";
    FpBuffering(FpBuffering) = "fp_buffering";
    FpSbf(FpSbf) = "fpsbf";
    A2(A2) = "a2";
    Rsbf(Rsbf) = "rsbf";
    Bsbf(Bsbf) = "bsbf";
    Bsbfsd(Bsbfsd) = "bsbfsd";
    Rlbsbf(Rlbsbf) = "rlbsbf";
    Qht(Qht) = "qht";
    Qhtd(Qhtd) = "qhtd";
    Qqhtd(Qqhtd) = "qqhtd";
    Sqf(Sqf) = "sqf";
    Cuckoo(StreamingCuckoo) = "cuckoo";
    BDbf(BDbf) = "bdbf";
    Apbf(Apbf) = "apbf";
    ApbfBlocked(ApbfBlocked) = "apbf_blocked";
    Swamp(Swamp) = "swamp";
    SwampPlain(SwampPlain) = "swamp_plain";
    NaorYogev(NaorYogev) = "naor_yogev";
    Tlbf(Tlbf) = "tlbf";
    ExactWindow(ExactWindow) = "exact_window";
    InverseBloom(InverseBloom) = "inverse_bloom";
    RotatingBloom(RotatingBloom) = "rotating_bloom";
    Fbf(Fbf) = "fbf";
    SlidingBloom(SlidingBloom) = "sliding_bloom";
    Queue(Queue) = "queue";
    SwBf(SwBf) = "sw_bf";
    AgedCuckoo(AgedCuckoo) = "aged_cuckoo";
    TimingBloom(TimingBloom) = "timing_bloom";
}
