//! How a structure is built, sized and costed: the [`Structure`] trait.
//!
//! [`DuplicateFilter`] is what a built structure does (object-safe, used as
//! `Box<dyn DuplicateFilter>`); [`Structure`] is what its type knows before anything is built:
//! its name, its parameter type, how it fits a memory budget, and what an element costs. Each
//! structure implements both in its own file, and the registry ([`crate::spec`]) only lists
//! types, so a structure's name and cost are written once, beside its code.

use crate::{DuplicateFilter, Result};

/// Construction, sizing and cost of one structure type.
///
/// Implement it in the structure's own file, next to its [`DuplicateFilter`] impl, and add one
/// line to the `registry!` list in `spec.rs`; the registry-wide tests then cover it.
pub trait Structure: DuplicateFilter + Sized + 'static {
    /// The stable name used in experiment and result files (`name = "sbf"`); what
    /// [`DuplicateFilter::name`] returns.
    const NAME: &'static str;

    /// The structure's parameters, as an experiment file's `[[algorithm]]` table gives them.
    type Params: Clone + std::fmt::Debug + PartialEq + Send + Sync + 'static;

    /// The nominal per-element cost relative to a `k = 2` Bloom-filter step (about half a step
    /// per random cell touched), for balancing and estimating work. Calibrated by hand from
    /// `cargo bench -p dupstream-filters`; [`cost_at`](Self::cost_at) refines it where the cost
    /// follows a parameter.
    const RELATIVE_COST: f64;

    /// Builds the structure within `budget_bits` bits of state, seeded with `seed`.
    ///
    /// # Errors
    /// The structure's [`Error`](crate::Error) for invalid parameters or a budget that is too
    /// small or too large.
    fn new(budget_bits: u64, params: &Self::Params, seed: u64) -> Result<Self>;

    /// The bits [`new`](Self::new) would use within `budget_bits`, without allocating; also
    /// validates the parameters (the same errors as `new`).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    fn memory_bits_for(budget_bits: u64, params: &Self::Params) -> Result<u64>;

    /// The per-element cost at `budget_bits` in the unit of [`RELATIVE_COST`](Self::RELATIVE_COST);
    /// that constant unless the structure's cost follows its parameters (SBF: `K + P` cells).
    fn cost_at(params: &Self::Params, budget_bits: u64) -> f64 {
        let _ = (params, budget_bits);
        Self::RELATIVE_COST
    }

    /// Random cells (cache lines, out of cache) an element touches at `budget_bits` (at least
    /// 1; the registry passes `budget_bits.max(1)`), on an insertion: the `L` of the roofline
    /// benchmark's limit loop, which the runner's time estimate prices
    /// ([`crate::calibration::cells_per_element`]). Each structure states its own count beside
    /// its code.
    fn cells_per_element(params: &Self::Params, budget_bits: u64) -> f64;

    /// The part of [`cells_per_element`](Self::cells_per_element) that is cache lines cleared
    /// in sequence rather than cells touched at random (the APBF's slice reset); 0 unless the
    /// structure clears memory as it goes.
    fn cleared_lines_per_element(params: &Self::Params, budget_bits: u64) -> f64 {
        let _ = (params, budget_bits);
        0.0
    }

    /// The parameters for a run scaled down by `factor` (the runner's `--scale`: stream length
    /// and memory divided by `factor`). Parameters that are absolute sizes tied to the memory or
    /// the stream scale with them; the default keeps every parameter, which is right for
    /// parameters that are ratios or counts per element (k, P, Max, fingerprint widths).
    fn scaled_params(params: &Self::Params, factor: u64) -> Self::Params {
        let _ = factor;
        params.clone()
    }

    /// Estimated heap bytes of the built structure: its state plus overheads the budget does
    /// not charge (a buffer's index, the exact set), for the runner's memory check.
    /// `distinct_hint` bounds the number of distinct keys the stream can hold.
    fn heap_bytes_estimate(params: &Self::Params, budget_bits: u64, distinct_hint: u64) -> u64 {
        let _ = (params, distinct_hint);
        budget_bits / 8 + 4096
    }
}

/// A count of stream elements (a window) at `--scale factor`: divided by it, at least 1.
pub(crate) fn scaled_count(count: u64, factor: u64) -> u64 {
    (count / factor.max(1)).max(1)
}

/// A window field, given (`u64`) or optional (`Option<u64>`), at `--scale factor`.
pub(crate) trait ScaledWindow {
    fn scaled_window(self, factor: u64) -> Self;
}

impl ScaledWindow for u64 {
    fn scaled_window(self, factor: u64) -> Self {
        scaled_count(self, factor)
    }
}

impl ScaledWindow for Option<u64> {
    fn scaled_window(self, factor: u64) -> Self {
        self.map(|w| scaled_count(w, factor))
    }
}

/// [`Structure::scaled_params`] for parameters `$params` whose only size tied to the stream is
/// their `window`, a count of elements: the window divided by `--scale`, the rest kept. Used
/// inside [`impl_structure!`]'s overrides.
macro_rules! window_scales {
    ($params:ty) => {
        /// The window, an element count, scales with the stream (`--scale`).
        fn scaled_params(params: &$params, factor: u64) -> $params {
            let mut p = params.clone();
            p.window = $crate::structure::ScaledWindow::scaled_window(p.window, factor);
            p
        }
    };
}
pub(crate) use window_scales;

/// A `bits`-bit draw range (SBF's `decrement_range_bits`, the BSBF family's
/// `reset_range_bits`) at `--scale factor`: the array is `factor` times smaller, so the range
/// loses `log2 factor` bits (rounded down for a factor that is not a power of two), at least 1,
/// and leaves the same fraction of the cells out of reach.
pub(crate) fn scaled_range_bits(bits: u32, factor: u64) -> u32 {
    bits.saturating_sub(factor.max(1).ilog2()).max(1)
}

/// Implements [`Structure`] for a type that already has an inherent
/// `new(budget_bits, &params, seed)`: its name, parameter type, nominal cost and sizing
/// function, then any items that override the defaults (`cost_at`, `heap_bytes_estimate`).
///
/// ```ignore
/// impl_structure!(BloomFilter {
///     name: "bloom",
///     params: BloomParams,
///     cost: 1.0,
///     memory_bits_for: BloomFilter::memory_bits_for,
/// });
/// ```
macro_rules! impl_structure {
    ($ty:ty {
        name: $name:expr,
        params: $params:ty,
        cost: $cost:expr,
        memory_bits_for: $mem:expr $(,)?
    } $($overrides:tt)*) => {
        impl $crate::Structure for $ty {
            const NAME: &'static str = $name;
            type Params = $params;
            const RELATIVE_COST: f64 = $cost;

            fn new(budget_bits: u64, params: &$params, seed: u64) -> $crate::Result<Self> {
                <$ty>::new(budget_bits, params, seed)
            }

            fn memory_bits_for(budget_bits: u64, params: &$params) -> $crate::Result<u64> {
                ($mem)(budget_bits, params)
            }

            $($overrides)*
        }
    };
}
pub(crate) use impl_structure;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_counts_keep_at_least_one_element() {
        assert_eq!(scaled_count(1 << 20, 16), 1 << 16);
        assert_eq!(scaled_count(3, 16), 1, "at least one element");
    }
}
