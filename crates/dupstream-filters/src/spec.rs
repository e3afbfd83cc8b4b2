//! Building any structure by name from its parameters: the registry the runner uses.
//!
//! [`FilterSpec`] is deserialised from an experiment file's `[[algorithm]]` table: the `name`
//! key picks the structure and the other keys are that structure's parameter struct (unknown
//! keys are rejected).

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
}

impl FilterSpec {
    /// Estimated heap bytes of the built structure: its state plus uncharged overheads
    /// (buffer indexes, the exact set), for the runner's memory check.
    pub fn heap_bytes_estimate(&self, budget_bits: u64, distinct_hint: u64) -> u64 {
        match self {
            Self::Exact(_) => distinct_hint.saturating_mul(16),
            #[allow(unreachable_patterns)]
            _ => budget_bits / 8 + 4096,
        }
    }
}
