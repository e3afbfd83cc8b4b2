//! The memory a structure holds, measured: a counting global allocator and the meter a cell
//! runs its structure under.
//!
//! A structure reports its own size ([`memory_bits`](dupstream_filters::DuplicateFilter::memory_bits)),
//! which leaves out whatever its author did not count: indexes beside a buffer, a hash set's
//! empty slots, vectors that grew past their length, the structure's own fields. This module
//! measures instead. [`CountingAlloc`] wraps the system allocator and, on a thread that asked
//! for it, adds every allocation's size to a per-thread counter and takes every free off it;
//! [`HeapMeter`] runs a structure's build and each of its batches under that counter, so the
//! bytes it counts are the structure's alone: the cell's own buffers, the ground truth, the
//! stream and other cells (rayon's other threads) are never counted.
//!
//! The held bytes are the net bytes allocated by those calls: the box `build` returns, which
//! holds the structure's value itself (`size_of_val` of the `dyn` object), plus everything it
//! allocated and has not freed. A structure that grows is charged its peak, checked after its
//! build and after each batch. The bytes are the sizes the structure asked for
//! (`Layout::size`), not what the system allocator rounded them up to, so the figure depends
//! only on the structure's own calls and is the same at any thread count and on any machine.
//!
//! The allocator is the one `unsafe` module of this crate (`ARCHITECTURE.md`): it hands every
//! call to [`System`] unchanged (so `calloc`'s zeroed pages and `realloc`'s in-place growth
//! are kept), and its counting touches only two `const`-initialised thread-locals without
//! destructors, which never allocate and are never torn down. It is the global allocator of
//! every binary that links this library (the `dupstream` command, the test binaries, a Python
//! extension module built on it); nothing else in such a binary may declare another.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes allocated on a thread while that thread measures
/// ([`counted`]).
#[derive(Debug)]
pub struct CountingAlloc;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

thread_local! {
    /// Whether this thread is measuring: only then are its allocations counted.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// Net bytes allocated on this thread while it measured (allocated − freed).
    static NET: Cell<i64> = const { Cell::new(0) };
}

/// Adds `bytes` (negative: freed) to this thread's counter, when it is measuring. Never
/// allocates and never panics: `try_with` on a thread-local without a destructor cannot
/// fail on the platforms Rust supports, and if it ever did the bytes would go uncounted.
#[inline]
fn count(bytes: i64) {
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = NET.try_with(|net| net.set(net.get().wrapping_add(bytes)));
        }
    });
}

/// A layout's size as a count of bytes (sizes are at most `isize::MAX`).
#[inline]
fn size(bytes: usize) -> i64 {
    bytes as i64
}

// SAFETY: every method forwards its arguments unchanged to `System`, whose implementation
// meets `GlobalAlloc`'s contract, and returns its result unchanged, so this allocator meets
// the same contract. The counting beside each call only reads and writes this thread's two
// `Cell`s (no allocation, no unwinding, no access to the memory being allocated or freed).
unsafe impl GlobalAlloc for CountingAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` (non-zero size) are `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(size(layout.size()));
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(size(layout.size()));
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, that is by `System`, with `layout`
        // (the caller's guarantee), which is what `System.dealloc` requires.
        unsafe { System.dealloc(ptr, layout) };
        count(-size(layout.size()));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`, and `new_size` meets
        // `realloc`'s requirements (the caller's guarantees, passed on unchanged).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(size(new_size) - size(layout.size()));
        }
        p
    }
}

/// Restores the thread's counter when a measured call ends, normally or by unwinding.
struct Restore {
    was_counting: bool,
    outer: i64,
}

impl Drop for Restore {
    fn drop(&mut self) {
        COUNTING.with(|on| on.set(self.was_counting));
        // The outer measurement (if any) is charged what the inner one counted.
        NET.with(|net| net.set(self.outer.wrapping_add(net.get())));
    }
}

/// Runs `f` and returns its result with the net bytes it allocated on this thread
/// (allocated − freed: negative when it freed more than it allocated). Allocations on other
/// threads are not counted. Calls nest: an outer call is charged what inner ones count.
pub fn counted<R>(f: impl FnOnce() -> R) -> (R, i64) {
    let guard = Restore {
        was_counting: COUNTING.with(|on| on.replace(true)),
        outer: NET.with(|net| net.replace(0)),
    };
    let r = f();
    let net = NET.with(Cell::get);
    drop(guard);
    (r, net)
}

/// The heap a structure holds: its build and each batch run under [`counted`], the net bytes
/// summed, the peak kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeapMeter {
    /// Net bytes allocated by the measured calls so far.
    net: i64,
    /// The largest `net` seen at a [`check`](Self::check).
    peak: u64,
}

impl HeapMeter {
    /// Builds a structure under the meter: `build` must return the boxed structure, whose box
    /// (its value, `size_of_val` bytes) is then among the counted bytes. The peak starts at
    /// what the built structure holds.
    pub fn build<T: ?Sized, E>(
        build: impl FnOnce() -> Result<Box<T>, E>,
    ) -> Result<(Box<T>, HeapMeter), E> {
        let (built, net) = counted(build);
        let mut meter = HeapMeter { net, peak: 0 };
        meter.check();
        built.map(|b| (b, meter))
    }

    /// Runs `f` (a call into the structure: a batch) under the meter.
    pub fn step<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let (r, net) = counted(f);
        self.net = self.net.wrapping_add(net);
        r
    }

    /// Takes the bytes held now into the peak, and returns the peak.
    pub fn check(&mut self) -> u64 {
        self.peak = self.peak.max(self.net.max(0) as u64);
        self.peak
    }

    /// The bytes held now (the tests' view; a cell reads the peak).
    #[cfg(test)]
    pub fn bytes(&self) -> u64 {
        self.net.max(0) as u64
    }

    /// The peak, in bits: the structure's `memory_bits_held`.
    pub fn peak_bits(&self) -> u64 {
        self.peak.saturating_mul(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    /// A structure backed by a vector of known capacity, which can grow and shrink.
    struct Fake {
        words: Vec<u64>,
        _tag: u32,
    }

    impl Fake {
        fn new(words: usize) -> Box<Fake> {
            Box::new(Fake {
                words: Vec::with_capacity(words),
                _tag: 7,
            })
        }
    }

    #[test]
    fn a_vec_backed_structure_is_measured_to_the_byte() {
        let (fake, mut meter) = HeapMeter::build(|| Ok::<_, ()>(Fake::new(1000))).unwrap();
        let expected = std::mem::size_of_val(&*fake) + 8 * fake.words.capacity();
        assert_eq!(fake.words.capacity(), 1000);
        assert_eq!(meter.bytes(), expected as u64);
        assert_eq!(meter.check(), expected as u64);
        assert_eq!(meter.peak_bits(), 8 * expected as u64);
        // The measured calls only: allocations around them are not counted.
        let noise = black_box(vec![0u8; 1 << 16]);
        let fake = meter.step(|| {
            let mut f = fake;
            f.words.extend(0..1000);
            f
        });
        drop(noise);
        assert_eq!(meter.check(), expected as u64);
        drop(fake);
    }

    #[test]
    fn a_structure_that_grows_then_shrinks_is_charged_its_peak() {
        let (mut fake, mut meter) = HeapMeter::build(|| Ok::<_, ()>(Fake::new(16))).unwrap();
        let base = std::mem::size_of_val(&*fake) as u64;
        assert_eq!(meter.check(), base + 16 * 8);
        meter.step(|| fake.words.reserve_exact(4096));
        assert_eq!(
            meter.bytes(),
            base + 4096 * 8,
            "realloc counts its difference"
        );
        assert_eq!(meter.check(), base + 4096 * 8);
        meter.step(|| fake.words.shrink_to(0));
        assert_eq!(meter.bytes(), base);
        assert_eq!(meter.check(), base + 4096 * 8, "the peak stays");
        meter.step(|| fake.words = vec![0; 8]);
        assert_eq!(meter.bytes(), base + 64, "calloc counts too");
    }

    #[test]
    fn allocations_on_other_threads_are_not_counted() {
        let (held, net) = counted(|| {
            let other = std::thread::spawn(|| black_box(vec![1u8; 1 << 20]).len());
            let mine = black_box(vec![1u8; 100]);
            assert_eq!(other.join().unwrap(), 1 << 20);
            mine
        });
        // The spawned thread's own bookkeeping (its handle, its result) is allocated here and
        // partly freed by the join; its megabyte is not counted.
        assert!((100..100 + 4096).contains(&net), "{net}");
        drop(held);
        // Other threads counting at the same time do not see this thread's allocations.
        let threads: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || {
                    let (v, net) = counted(|| black_box(vec![0u64; 1000 * (i + 1)]));
                    drop(v);
                    net
                })
            })
            .collect();
        let nets: Vec<i64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(nets, [8000, 16000, 24000, 32000]);
    }

    #[test]
    fn calls_nest_and_a_panic_stops_counting() {
        let ((inner, a), outer) = counted(|| {
            let a = black_box(vec![0u8; 10]);
            (counted(|| black_box(vec![0u8; 20])), a)
        });
        assert_eq!(inner.1, 20);
        assert_eq!(outer, 30);
        drop((inner, a));
        let caught = std::panic::catch_unwind(|| counted(|| panic!("in a measured call")));
        assert!(caught.is_err());
        assert!(
            !COUNTING.with(Cell::get),
            "counting stops when the call unwinds"
        );
        let (_, none) = counted(|| ());
        assert_eq!(none, 0);
    }
}
