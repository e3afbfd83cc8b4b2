//! The label store of both truths ([`crate::GroundTruth`], [`crate::WindowTruth`]): one bit per
//! position of a stream (1 = duplicate), bit `i % 64` of word `i / 64` for position `i`, bits
//! beyond the length 0; filled position by position by a [`LabelWriter`].

use crate::{Error, Result};

/// The labels of every position of a stream.
#[derive(Debug, Clone)]
pub(crate) struct Labels {
    words: Vec<u64>,
    n: u64,
}

impl Labels {
    /// Number of positions.
    pub(crate) fn len(&self) -> u64 {
        self.n
    }

    /// Position `i`'s label; the caller checks `i < len()`.
    #[inline]
    pub(crate) fn get(&self, i: u64) -> bool {
        (self.words[(i >> 6) as usize] >> (i & 63)) & 1 == 1
    }

    /// The packed words.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }
}

/// Labels written in stream order, and the count of duplicates among them.
pub(crate) struct LabelWriter {
    words: Vec<u64>,
    /// The word being filled (positions `n − n % 64 ..= n − 1`).
    word: u64,
    n: u64,
    duplicates: u64,
}

impl LabelWriter {
    /// An empty store with room for `len_hint` labels when given; a store the platform cannot
    /// allocate is refused with `too_large(reason)`.
    pub(crate) fn new(len_hint: Option<u64>, too_large: impl Fn(String) -> Error) -> Result<Self> {
        let mut words = Vec::new();
        if let Some(n) = len_hint {
            let count =
                usize::try_from(n.div_ceil(64)).map_err(|_| too_large(format!("{n} labels")))?;
            words
                .try_reserve_exact(count)
                .map_err(|_| too_large(format!("{n} labels: allocation failed")))?;
        }
        Ok(Self {
            words,
            word: 0,
            n: 0,
            duplicates: 0,
        })
    }

    /// Labels written so far.
    pub(crate) fn len(&self) -> u64 {
        self.n
    }

    /// Appends a label per item, `label(i, &items[i], position)`, in order. The counters live
    /// in locals in the loop (not behind `&mut self`) so they stay in registers.
    #[inline(always)]
    pub(crate) fn extend<T>(&mut self, items: &[T], mut label: impl FnMut(usize, &T, u64) -> bool) {
        let (mut word, mut n, mut duplicates) = (self.word, self.n, self.duplicates);
        for (i, item) in items.iter().enumerate() {
            let d = label(i, item, n);
            let bit = n & 63;
            word |= u64::from(d) << bit;
            if bit == 63 {
                self.words.push(word);
                word = 0;
            }
            duplicates += u64::from(d);
            n += 1;
        }
        (self.word, self.n, self.duplicates) = (word, n, duplicates);
    }

    /// The finished labels and the count of duplicates among them.
    pub(crate) fn finish(mut self) -> (Labels, u64) {
        if self.n & 63 != 0 {
            self.words.push(self.word);
        }
        self.words.shrink_to_fit();
        (
            Labels {
                words: self.words,
                n: self.n,
            },
            self.duplicates,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_pack_in_order_and_count_duplicates() {
        let too_large = |reason| Error::TooLarge {
            stream: "test".into(),
            reason,
        };
        for len in [0usize, 1, 63, 64, 65, 200] {
            let want: Vec<bool> = (0..len).map(|i| i % 3 == 0 || i % 7 == 5).collect();
            let mut w = LabelWriter::new(Some(len as u64), too_large).unwrap();
            // In two uneven pieces, with the positions the writer reports.
            let cut = len / 3;
            w.extend(&want[..cut], |i, &d, pos| {
                assert_eq!(pos, i as u64);
                d
            });
            assert_eq!(w.len(), cut as u64);
            w.extend(&want[cut..], |i, &d, pos| {
                assert_eq!(pos, (cut + i) as u64);
                d
            });
            let (labels, dups) = w.finish();
            assert_eq!(labels.len(), len as u64);
            assert_eq!(labels.words().len(), len.div_ceil(64));
            assert_eq!(dups, want.iter().filter(|&&d| d).count() as u64);
            for (i, &d) in want.iter().enumerate() {
                assert_eq!(labels.get(i as u64), d, "{len}: {i}");
            }
            // Bits beyond the length are 0.
            if len % 64 != 0 {
                assert_eq!(labels.words().last().unwrap() >> (len % 64), 0);
            }
        }
    }
}
