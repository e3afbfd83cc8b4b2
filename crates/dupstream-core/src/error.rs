//! The one error of this crate: an array too large to allocate.

use thiserror::Error;

/// The requested size overflows or exceeds what this platform can address (or the 2^40-bit
/// sanity cap). `dupstream_filters::Error` converts it into its `CapacityTooLarge` variant with
/// the same fields and message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{structure}: requested size of {bits} bits is too large for this platform")]
pub struct CapacityError {
    /// Who asked (a structure's name, or `"ground truth"`).
    pub structure: &'static str,
    /// The requested size in bits.
    pub bits: u64,
}

/// Converts a bit count to a number of `u64` words, checking it is addressable.
pub fn words_for_bits(structure: &'static str, bits: u64) -> Result<usize, CapacityError> {
    let words = bits.div_ceil(64);
    // Reject anything beyond 2^40 bits (128 GiB): no experiment in the papers comes close, and
    // a typo in a memory size must not turn into an allocation that takes the machine down.
    if bits > (1u64 << 40) || usize::try_from(words).is_err() {
        return Err(CapacityError { structure, bits });
    }
    Ok(words as usize)
}
