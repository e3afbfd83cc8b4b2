//! The crate's only `unsafe`: memory prefetch hints for the batched step.
//!
//! A prefetch is a hint to the CPU's cache hierarchy. It has no architectural effect: it never
//! faults, even on an invalid address, and it never changes a value, so a structure's verdicts
//! are identical with and without it. On targets without a stable prefetch intrinsic the
//! functions compile to nothing.

/// Hints that the cache line holding `*ptr` will soon be read or written.
#[inline(always)]
pub(crate) fn prefetch<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: `_mm_prefetch` is only a hint. It performs no memory access that can fault
        // and it does not dereference `ptr` in the language's sense, so any pointer value,
        // dangling or not, is sound. SSE is part of the x86_64 baseline.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(ptr.cast::<i8>())
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = ptr;
    }
}

/// Prefetches the `u64` word at `index` of `words`, if it exists.
#[inline(always)]
pub(crate) fn prefetch_word(words: &[u64], index: usize) {
    if cfg!(debug_assertions) {
        assert!(
            index < words.len(),
            "prefetch out of bounds: {index} >= {}",
            words.len()
        );
    }
    // `wrapping_add` keeps the pointer arithmetic defined even for an out-of-range index in
    // release builds; the prefetch of such an address is harmless (see above).
    prefetch(words.as_ptr().wrapping_add(index));
}
