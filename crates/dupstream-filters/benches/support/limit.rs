//! The limit loop and its stream, shared by the roofline (`roofline.rs`) and the APBF's
//! benchmark (`apbf.rs`): keys generated and hashed inside the timed region, and the loop that
//! test-and-sets as many random cells per element as a structure touches.

use super::Clock;
use dupstream_filters::PREFETCH_DISTANCE;
use dupstream_filters::bits::BitArray;
use dupstream_filters::hash::{DoubleHash, hash_key, mix64, reduce};
use std::hint::black_box;

/// Elements per timing block (keys generated and hashed, then stepped).
pub const BLOCK: usize = 4096;

/// The stream: each key uniform on `0..u`, hashed as the runner does. With `grow_every = g`,
/// `u` starts at 1 and grows by one every `g` elements: element `i` draws from about `i/g`
/// keys and has already drawn key `x` with probability `1 − (gx/i)^g`; averaged over `x`, it is
/// a duplicate with probability `g/(g + 1)` at every length (0.5 for `g = 1`, 0.9 for `g = 9`),
/// its predecessor at a random distance, so that the structures' memory sees random
/// cells all along. With `grow_every = 0`, `u` is fixed.
pub struct Stream {
    pub next: u64,
    pub u: u64,
    grow_every: u64,
    phase: u64,
}

impl Stream {
    /// Uniform on a fixed universe of `u` keys.
    pub fn universe(u: u64) -> Self {
        Self {
            next: 0,
            u,
            grow_every: 0,
            phase: 0,
        }
    }

    /// A stationary stream whose elements are duplicates with probability `dup` (`g/(g + 1)`,
    /// `g` the nearest integer).
    pub fn duplicates(dup: f64) -> Self {
        Self {
            next: 0,
            u: 1,
            grow_every: grow_every(dup),
            phase: 0,
        }
    }

    pub fn fill(&mut self, buf: &mut [u64]) {
        for h in buf.iter_mut() {
            *h = hash_key(reduce(mix64(self.next ^ 0x0005_eed0), self.u), 1);
            self.next += 1;
            if self.grow_every > 0 {
                self.phase += 1;
                if self.phase == self.grow_every {
                    self.phase = 0;
                    self.u += 1;
                }
            }
        }
    }
}

/// `g` of a stationary stream with duplicate fraction `dup = g/(g + 1)`.
pub fn grow_every(dup: f64) -> u64 {
    (dup / (1.0 - dup)).round().max(1.0) as u64
}

/// Memory the limit loop clears in sequence: `words` words per block of [`BLOCK`] elements,
/// cycling through `area`, in memsets of an eighth of it at least (as large as an APBF's slice,
/// so that the C library streams them past the cache as it does the structure's).
pub struct Clear {
    pub area: Vec<u64>,
    words: usize,
    owed: usize,
    at: usize,
}

impl Clear {
    /// Clears `cleared_lines` cache lines per element of an area of `bits` bits (none: no area).
    pub fn new(cleared_lines: f64, bits: u64) -> Self {
        let words = (cleared_lines * 8.0 * BLOCK as f64).round() as usize;
        let area = if words == 0 {
            vec![]
        } else {
            // Written once so that its pages are present, as the structure's are.
            let mut a = dupstream_core::raw::zeroed_words(bits.div_ceil(64) as usize);
            a.fill(1);
            a
        };
        Self {
            area,
            words,
            owed: 0,
            at: 0,
        }
    }

    pub fn block(&mut self) {
        self.owed += self.words;
        if self.owed < self.area.len() / 8 {
            return;
        }
        let mut left = std::mem::take(&mut self.owed);
        while left > 0 && !self.area.is_empty() {
            let n = left.min(self.area.len() - self.at);
            self.area[self.at..self.at + n].fill(0);
            left -= n;
            self.at = (self.at + n) % self.area.len();
        }
    }
}

/// Prefetches the `l` double-hashed bits of the key hash `h`.
pub fn prefetch_cells(bits: &BitArray, h: u64, l: u32) {
    let dh = DoubleHash::new(h);
    for i in 0..l {
        bits.prefetch(dh.index(i, bits.len()));
    }
}

/// The limit loop: test-and-set `l` double-hashed bits per element, prefetched ahead, and clear
/// `clear`'s words.
pub fn limit_block(
    bits: &mut BitArray,
    hashes: &[u64],
    l: u32,
    clear: &mut Clear,
    out: &mut [bool],
) {
    let m = bits.len();
    for &h in hashes.iter().take(PREFETCH_DISTANCE) {
        prefetch_cells(bits, h, l);
    }
    for (i, &h) in hashes.iter().enumerate() {
        let dh = DoubleHash::new(h);
        let mut dup = true;
        // One prefetch per cell set, spread over the element's work: a burst of 40 per element
        // left most without effect (at 8 MiB: 348 ns per element against 137 for the loop
        // that draws and prefetches its cells one at a time); spread, the loop was as fast
        // (within 2 %) or faster at every L tried (2 to 40, 8 MiB to 512 MB).
        match hashes.get(i + PREFETCH_DISTANCE) {
            Some(&ahead) => {
                let da = DoubleHash::new(ahead);
                for j in 0..l {
                    bits.prefetch(da.index(j, m));
                    dup &= bits.set(dh.index(j, m));
                }
            }
            None => {
                for j in 0..l {
                    dup &= bits.set(dh.index(j, m));
                }
            }
        }
        out[i] = dup;
    }
    clear.block();
}
/// Runs `elements` elements through `step` in blocks; returns ns per element.
pub fn timed(
    stream: &mut Stream,
    elements: usize,
    mut step: impl FnMut(&[u64], &mut [bool]),
) -> f64 {
    let mut buf = vec![0u64; BLOCK];
    let mut out = vec![false; BLOCK];
    let start = Clock::now();
    let mut done = 0;
    while done < elements {
        stream.fill(&mut buf);
        step(&buf, &mut out);
        black_box(&out);
        done += BLOCK;
    }
    start.elapsed_ns() / done as f64
}
