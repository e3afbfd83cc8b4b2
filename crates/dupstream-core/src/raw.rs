//! This crate's only `unsafe`: memory prefetch hints for the batched step, the huge-page
//! hint for large arrays, and non-temporal stores that zero a cache line without reading it.
//!
//! A prefetch is a hint to the CPU's cache hierarchy. It has no architectural effect: it never
//! faults, even on an invalid address, and it never changes a value, so a structure's verdicts
//! are identical with and without it. On targets without a stable prefetch intrinsic the
//! functions compile to nothing.

/// Hints that the cache line holding `*ptr` will soon be read or written.
#[inline(always)]
pub fn prefetch<T>(ptr: *const T) {
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
pub fn prefetch_word(words: &[u64], index: usize) {
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

/// Zeroes `line`, eight words starting on a 64-byte boundary, with non-temporal stores: the
/// line is written to memory without being read first (a plain store of part of a line
/// fetches it). Other lengths or alignments, and other targets, take plain stores. Call
/// [`stream_fence`] after a run of them.
#[inline(always)]
pub fn stream_zero_line(line: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if line.len() == 8 && (line.as_ptr() as usize).is_multiple_of(64) {
        use core::arch::x86_64::{__m128i, _mm_setzero_si128, _mm_stream_si128};
        let p = line.as_mut_ptr().cast::<__m128i>();
        // SAFETY: `line` is a mutable borrow of 64 bytes starting on a 64-byte boundary, so
        // the four 16-byte stores at offsets 0, 16, 32 and 48 are aligned, within it, and
        // alias nothing else. SSE2 is part of the x86_64 baseline.
        unsafe {
            for i in 0..4 {
                _mm_stream_si128(p.add(i), _mm_setzero_si128());
            }
        }
        return;
    }
    line.fill(0);
}

/// Orders the non-temporal stores of [`stream_zero_line`] before every later store (they are
/// weakly ordered otherwise). Nothing on other targets.
#[inline(always)]
pub fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a store fence has no operands and no memory effect beyond ordering.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// Allocates `n` zeroed words; large arrays ask the kernel for transparent huge pages.
///
/// Random probes into a 512 MB array miss the TLB on almost every access with 4 KiB pages;
/// 2 MiB pages make the page walk cheap. Where THP is set to `madvise` (a common default)
/// the hint is what turns them on. The contents are unaffected either way.
pub fn zeroed_words(n: usize) -> Vec<u64> {
    let v = vec![0u64; n];
    advise_huge_pages(&v);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(words: &[u64]) {
    const HUGE: usize = 2 << 20;
    let bytes = std::mem::size_of_val(words);
    if bytes < 4 * HUGE {
        return;
    }
    let start = words.as_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + bytes) / HUGE * HUGE;
    if end <= aligned {
        return;
    }
    // SAFETY: [aligned, end) lies inside the live allocation `words` (it is `start..start+bytes`
    // rounded inwards to 2 MiB boundaries). MADV_HUGEPAGE only changes how the kernel backs the
    // pages, never their contents, so no Rust-visible state changes. A failure (THP disabled,
    // old kernel) is harmless and ignored.
    unsafe {
        libc::madvise(
            aligned as *mut libc::c_void,
            end - aligned,
            libc::MADV_HUGEPAGE,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_words: &[u64]) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of an array, aligned or not (a word off: the plain stores), zeroed alone:
    /// its eight words become 0 and the words around it keep their value.
    #[test]
    fn stream_zero_line_zeroes_exactly_its_line() {
        let mut words = zeroed_words(64 + 8);
        let base = (8 - (words.as_ptr() as usize / 8) % 8) % 8;
        for offset in [base, base + 1] {
            for line in 0..6 {
                words.fill(u64::MAX);
                let at = offset + line * 8;
                stream_zero_line(&mut words[at..at + 8]);
                stream_fence();
                for (i, &w) in words.iter().enumerate() {
                    assert_eq!(w == 0, (at..at + 8).contains(&i), "word {i}, line at {at}");
                }
            }
        }
    }
}
