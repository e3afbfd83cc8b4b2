//! The crate's typed error.

use thiserror::Error;

/// Why a structure could not be built.
///
/// Construction never panics on user input and never attempts an absurd
/// allocation: sizes are computed with checked arithmetic and rejected here
/// first.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is outside its valid range.
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name as it appears in experiment files.
        name: &'static str,
        /// The offending value, rendered.
        value: String,
        /// What the valid range is.
        reason: String,
    },
    /// The memory budget cannot hold even the smallest instance of the structure.
    #[error(
        "memory budget of {budget_bits} bits is too small for {structure}: needs at least {needed_bits} bits"
    )]
    BudgetTooSmall {
        /// Structure name.
        structure: &'static str,
        /// The budget that was given.
        budget_bits: u64,
        /// The smallest budget that would work.
        needed_bits: u64,
    },
    /// The requested size overflows or exceeds what this platform can address.
    #[error("{structure}: requested size of {bits} bits is too large for this platform")]
    CapacityTooLarge {
        /// Structure name.
        structure: &'static str,
        /// The requested size in bits.
        bits: u64,
    },
}

/// Shorthand for `Result<T, Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns `Err(InvalidParameter)` unless `ok`.
pub(crate) fn ensure(
    ok: bool,
    name: &'static str,
    value: impl ToString,
    reason: &str,
) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value: value.to_string(),
            reason: reason.to_string(),
        })
    }
}

impl From<dupstream_core::CapacityError> for Error {
    fn from(e: dupstream_core::CapacityError) -> Self {
        Error::CapacityTooLarge {
            structure: e.structure,
            bits: e.bits,
        }
    }
}

/// Converts a bit count to a number of `u64` words, checking it is addressable.
pub(crate) fn words_for_bits(structure: &'static str, bits: u64) -> Result<usize> {
    Ok(dupstream_core::error::words_for_bits(structure, bits)?)
}
