//! Géraud-Stewart et al.'s queuing construction: Géraud-Stewart, Lombard-Platet, Naccache,
//! *Approaching Optimal Duplicate Detection in a Sliding Window*, COCOON 2020 (arXiv
//! 2005.04740); as implemented in the authors' benchmark code
//! (github.com/mariuslp/duplicate_sliding_benchmark, `src/filter_queue.cpp`).
//!
//! **Structure.** A queue of `L` filters of one inner kind, each built within `⌊M / L⌋` bits.
//! A step answers DUPLICATE iff some filter of the queue holds the element (a lookup without
//! update), then runs the inner filter's own step on the newest (its verdict unused). Every
//! `P = ⌈W / L⌉` elements the oldest filter is dropped and a fresh one becomes the newest.
//!
//! **Window.** An element stays in the newest filter for the rest of its period and the `L − 1`
//! periods after (as long as its inner filter keeps it: a QHT may evict it): a re-occurrence
//! at gap `d` is found for `d ≤ (L − 1)·P`, for some phases up to `L·P − 1`, so with
//! `P = ⌈W/L⌉` a window of `W` is only partly covered at its far end (the reference's choice;
//! [`crate::rotating_bloom`] takes `P = ⌈W/(L−1)⌉` instead).
//!
//! **Inner filters.** Those with a lookup that does not update: `bloom`, `sbf`, `qht`,
//! `qhtd`, `qqhtd` (the paper's evaluation queues QQHTD; its code also has queues of the
//! cuckoo filter, SQF and SBF). The inner filter is written as a table:
//!
//! ```toml
//! name = "queue"
//! window = 65536
//! filters = 10
//! inner = { name = "qqhtd", k = 1, s = 3 }
//! ```
//!
//! The perfect (zero-error) windowed filter of the same paper, usable up to a window `w_max`
//! for a memory, is [`crate::exact_window`] without a `window`.
//!
//! Readings:
//! - The inner filter's step on the newest filter is the reference's `queue[0]->Insert(e)`:
//!   for QQHTD, a detection and an insertion into its row.
//! - A fresh filter is built with a seed derived from the queue's seed and the number of
//!   filters built so far (the reference's filters draw from one shared generator).
//! - `L` defaults to 10 (the reference's `num_subfilters`).
//! - Occupancy is the newest filter's.

use crate::bloom::{BloomFilter, BloomParams};
use crate::error::{Error, Result, ensure};
use crate::hash::rehash;
use crate::qht::{Qht, QhtParams, Qhtd, Qqhtd};
use crate::sbf::{SbfParams, StableBloomFilter};
use crate::{DuplicateFilter, Occupancy, Structure};
use std::collections::VecDeque;

/// Default number of filters in the queue.
pub const DEFAULT_FILTERS: u32 = 10;
/// Largest number of filters.
pub const MAX_FILTERS: u32 = 1024;

/// The inner kinds a queue accepts.
pub const INNER: &[&str] = &["bloom", "sbf", "qht", "qhtd", "qqhtd"];

/// Parameters of a [`Queue`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct QueueParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `L`, the number of filters (2..=[`MAX_FILTERS`]; default [`DEFAULT_FILTERS`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub filters: Option<u32>,
    /// The inner filter, one of [`INNER`].
    pub inner: Box<Inner>,
}

/// A queue member: a filter with a lookup that does not update.
trait Member: DuplicateFilter {
    fn lookup(&self, hash: u64) -> bool;
}

macro_rules! member {
    ($($ty:ty),*) => {$(
        impl Member for $ty {
            fn lookup(&self, hash: u64) -> bool {
                self.contains(hash)
            }
        }
    )*};
}
member!(BloomFilter, StableBloomFilter, Qht, Qhtd, Qqhtd);

/// A queue's inner filter and its parameters, written as a table with its `name` (one of
/// [`INNER`]): the structures with a lookup that does not update.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "name", rename_all = "snake_case"))]
pub enum Inner {
    /// `name = "bloom"`: [`BloomFilter`].
    Bloom(BloomParams),
    /// `name = "sbf"`: [`StableBloomFilter`].
    Sbf(SbfParams),
    /// `name = "qht"`: [`Qht`].
    Qht(QhtParams),
    /// `name = "qhtd"`: [`Qhtd`].
    Qhtd(QhtParams),
    /// `name = "qqhtd"`: [`Qqhtd`].
    Qqhtd(QhtParams),
}

/// `$f` applied to the inner filter's type (as `T`) and parameters (as `p`).
macro_rules! on_inner {
    ($inner:expr, |$p:ident, $t:ident| $body:expr) => {
        match $inner {
            Inner::Bloom($p) => {
                type $t = BloomFilter;
                $body
            }
            Inner::Sbf($p) => {
                type $t = StableBloomFilter;
                $body
            }
            Inner::Qht($p) => {
                type $t = Qht;
                $body
            }
            Inner::Qhtd($p) => {
                type $t = Qhtd;
                $body
            }
            Inner::Qqhtd($p) => {
                type $t = Qqhtd;
                $body
            }
        }
    };
}

impl Inner {
    /// The structure's name.
    pub fn name(&self) -> &'static str {
        on_inner!(self, |_p, T| <T as Structure>::NAME)
    }

    /// The bits the filter would use within `budget_bits`, without allocating; also
    /// validates the parameters.
    pub fn memory_bits_for(&self, budget_bits: u64) -> Result<u64> {
        on_inner!(self, |p, T| <T as Structure>::memory_bits_for(
            budget_bits,
            p
        ))
    }

    /// Random cells an element touches at `budget_bits` (at least 1 bit).
    pub fn cells_per_element(&self, budget_bits: u64) -> f64 {
        let m = budget_bits.max(1);
        on_inner!(self, |p, T| <T as Structure>::cells_per_element(p, m))
    }

    /// The same filter for a run scaled down by `factor` (`--scale`).
    #[must_use]
    pub fn scaled(&self, factor: u64) -> Inner {
        match self {
            Self::Bloom(p) => Self::Bloom(<BloomFilter as Structure>::scaled_params(p, factor)),
            Self::Sbf(p) => Self::Sbf(<StableBloomFilter as Structure>::scaled_params(p, factor)),
            Self::Qht(p) => Self::Qht(<Qht as Structure>::scaled_params(p, factor)),
            Self::Qhtd(p) => Self::Qhtd(<Qhtd as Structure>::scaled_params(p, factor)),
            Self::Qqhtd(p) => Self::Qqhtd(<Qqhtd as Structure>::scaled_params(p, factor)),
        }
    }

    /// The filter built within `budget_bits`, seeded with `seed`.
    fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn Member>> {
        Ok(on_inner!(self, |p, T| Box::new(<T as Structure>::new(
            budget_bits,
            p,
            seed
        )?)))
    }
}

/// `(L, bits per filter, state bits per filter)` for a budget.
fn resolve(budget_bits: u64, p: &QueueParams) -> Result<(u32, u64, u64)> {
    ensure(p.window >= 1, "window", p.window, "must be at least 1")?;
    let l = p.filters.unwrap_or(DEFAULT_FILTERS);
    ensure(
        (2..=MAX_FILTERS).contains(&l),
        "filters",
        l,
        "must be in 2..=1024",
    )?;
    let per = budget_bits / u64::from(l);
    let used = p.inner.memory_bits_for(per).map_err(|e| match e {
        Error::BudgetTooSmall { needed_bits, .. } => Error::BudgetTooSmall {
            structure: "queue",
            budget_bits,
            needed_bits: needed_bits.saturating_mul(u64::from(l)),
        },
        e => e,
    })?;
    Ok((l, per, used))
}

/// The period of a queue of `L` filters for window `W`: `⌈W / L⌉` (the reference's
/// `elements_per_filter`).
pub fn period(window: u64, filters: u32) -> u64 {
    window.div_ceil(u64::from(filters)).max(1)
}

/// Géraud-Stewart et al.'s queue of filters (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, queue::{Inner, Queue, QueueParams}};
/// let inner: Inner = toml::from_str("name = \"qqhtd\"").unwrap();
/// let p = QueueParams { window: 1000, filters: Some(4), inner: Box::new(inner) };
/// let mut q = Queue::new(1 << 16, &p, 0).unwrap();
/// assert!(!q.step(7));
/// assert!(q.step(7));
/// ```
pub struct Queue {
    /// Newest first.
    members: VecDeque<Box<dyn Member>>,
    inner: Inner,
    per_filter: u64,
    used_per_filter: u64,
    window: u64,
    period: u64,
    /// Elements stepped into the newest filter.
    in_newest: u64,
    seed: u64,
    /// Filters built so far.
    built: u64,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("inner", &self.inner)
            .field("filters", &self.members.len())
            .field("window", &self.window)
            .field("period", &self.period)
            .finish_non_exhaustive()
    }
}

impl Queue {
    /// A queue of `L` inner filters within `budget_bits`.
    pub fn new(budget_bits: u64, params: &QueueParams, seed: u64) -> Result<Self> {
        let (l, per, used) = resolve(budget_bits, params)?;
        let mut q = Self {
            members: VecDeque::with_capacity(l as usize),
            inner: (*params.inner).clone(),
            per_filter: per,
            used_per_filter: used,
            window: params.window,
            period: period(params.window, l),
            in_newest: 0,
            seed,
            built: 0,
        };
        for _ in 0..l {
            let m = q.fresh()?;
            q.members.push_front(m);
        }
        Ok(q)
    }

    fn fresh(&mut self) -> Result<Box<dyn Member>> {
        self.built += 1;
        self.inner
            .build(self.per_filter, rehash(self.seed, self.built))
    }

    /// The state size for this budget (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &QueueParams) -> Result<u64> {
        let (l, _, used) = resolve(budget_bits, params)?;
        Ok(u64::from(l) * used)
    }

    /// Membership query without update.
    pub fn contains(&self, hash: u64) -> bool {
        self.members.iter().any(|m| m.lookup(hash))
    }
}

impl DuplicateFilter for Queue {
    fn step(&mut self, hash: u64) -> bool {
        let dup = self.contains(hash);
        self.members[0].step(hash);
        self.in_newest += 1;
        if self.in_newest == self.period {
            self.members.pop_back();
            let m = self
                .fresh()
                .expect("the inner filter was built at this budget before");
            self.members.push_front(m);
            self.in_newest = 0;
        }
        dup
    }

    fn prefetch(&self, hash: u64) {
        self.members[0].prefetch(hash);
    }

    fn memory_bits(&self) -> u64 {
        self.members.len() as u64 * self.used_per_filter
    }

    fn name(&self) -> &'static str {
        <Self as Structure>::NAME
    }

    fn params(&self) -> Vec<crate::Param> {
        let mut p = vec![
            crate::Param::new("window", self.window),
            crate::Param::new("filters", self.members.len()),
            crate::Param::new("period", self.period),
            crate::Param::new("inner", self.inner.name()),
        ];
        p.extend(self.members[0].params());
        p
    }

    fn occupancy(&self) -> Occupancy {
        self.members[0].occupancy()
    }
}

crate::structure::impl_structure!(Queue {
    name: "queue",
    params: QueueParams,
    cost: 4.0,
    memory_bits_for: Queue::memory_bits_for,
}

    /// `L + 1` times its inner filter's cells at `1/L` of the memory: a lookup in each of its
    /// `L` filters and the inner step in the newest.
    fn cells_per_element(params: &QueueParams, budget_bits: u64) -> f64 {
        let l = params.filters.unwrap_or(DEFAULT_FILTERS).max(1);
        f64::from(l + 1) * params.inner.cells_per_element(budget_bits / u64::from(l))
    }

    /// The inner filter scaled as it would be alone (an SBF's decrement range); the window,
    /// an element count, scales with the stream.
    fn scaled_params(params: &QueueParams, factor: u64) -> QueueParams {
        QueueParams {
            inner: Box::new(params.inner.scaled(factor)),
            window: crate::structure::ScaledWindow::scaled_window(params.window, factor),
            ..params.clone()
        }
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use proptest::prelude::*;

    fn qqhtd(k: u32, s: u32) -> Box<Inner> {
        Box::new(Inner::Qqhtd(QhtParams { k, s }))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// With inner filters that never forget within their period and never collide (QQHTD
        /// with 4 buckets of 57-bit fingerprints in a table far larger than the keys), the
        /// queue equals a model: element i is reported iff its key occurred since the start of
        /// the period L − 1 periods before i's.
        #[test]
        fn equals_the_period_model(keys in prop::collection::vec(0u64..60, 1..1500), w in 2u64..200, l in 2u32..8) {
            let p = QueueParams { window: w, filters: Some(l), inner: qqhtd(4, 57) };
            let mut q = Queue::new(u64::from(l) * (1 << 22), &p, 0).unwrap();
            let per = period(w, l);
            let mut last: std::collections::HashMap<u64, u64> = Default::default();
            for (i, &key) in keys.iter().enumerate() {
                let i = i as u64;
                let oldest_kept = (i / per).saturating_sub(u64::from(l) - 1) * per;
                let want = last.get(&key).is_some_and(|&j| j >= oldest_kept);
                prop_assert_eq!(q.step(hash_key(key, 1)), want, "element {}", i);
                last.insert(key, i);
            }
        }
    }

    #[test]
    fn sizing_and_errors() {
        let p = QueueParams {
            window: 1000,
            filters: Some(4),
            inner: qqhtd(1, 3),
        };
        // Each QQHTD gets ⌊100003/4⌋ = 25000 bits: 8333 rows of one 3-bit bucket.
        assert_eq!(Queue::memory_bits_for(100_003, &p), Ok(4 * 8333 * 3));
        let q = Queue::new(100_003, &p, 0).unwrap();
        assert_eq!(q.memory_bits(), 4 * 8333 * 3);
        assert_eq!(period(1000, 4), 250);
        assert!(matches!(
            Queue::new(
                1 << 20,
                &QueueParams {
                    filters: Some(1),
                    ..p.clone()
                },
                0
            ),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            Queue::new(4, &p, 0),
            Err(Error::BudgetTooSmall { .. })
        ));
    }

    #[test]
    #[cfg(feature = "serde")]
    fn scaling_scales_the_inner_filter() {
        let sbf: Inner =
            toml::from_str("name = \"sbf\"\nmax = 1\nk = 2\np = 4\ndecrement_range_bits = 31")
                .unwrap();
        let p = QueueParams {
            window: 1000,
            filters: None,
            inner: Box::new(sbf.clone()),
        };
        let scaled = <Queue as Structure>::scaled_params(&p, 64);
        assert_eq!(*scaled.inner, sbf.scaled(64));
        assert_ne!(*scaled.inner, sbf);
        assert_eq!(
            scaled.window,
            1000 / 64,
            "the window scales with the stream"
        );
    }

    #[test]
    #[cfg(feature = "serde")]
    fn an_inner_filter_without_a_lookup_is_refused() {
        let e = toml::from_str::<Inner>("name = \"exact\"").unwrap_err();
        assert!(e.to_string().contains("unknown variant `exact`"), "{e}");
        let q: Inner = toml::from_str("name = \"qqhtd\"").unwrap();
        assert_eq!(q.name(), "qqhtd");
        assert!(INNER.contains(&q.name()));
    }

    #[test]
    fn qht_contains_is_the_step_without_the_update() {
        for spec in [
            Inner::Qht(QhtParams { k: 3, s: 4 }),
            Inner::Qhtd(QhtParams { k: 3, s: 4 }),
            Inner::Qqhtd(QhtParams { k: 3, s: 4 }),
        ] {
            let mut f = spec.build(3000, 5).unwrap();
            for i in 0..20_000u64 {
                let h = hash_key(i % 700, 2);
                let c = f.lookup(h);
                assert_eq!(f.step(h), c, "{} at {i}", spec.name());
            }
        }
    }
}
