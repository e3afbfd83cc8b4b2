//! The Naor–Yogev sliding Bloom filter: Naor & Yogev, *Tight Bounds for Sliding Bloom
//! Filters*, ISAAC 2013 / Algorithmica 2015 (arXiv 1304.5872), the construction of its upper
//! bound, for count windows. No public implementation exists; this is a reading. The paper's
//! full text was not at hand when it was written: it follows the abstract, the form of the
//! bound and the construction's outline as summarised below, and has not been checked line by
//! line against the paper's construction section.
//!
//! **The problem.** Membership in the last `n = W` elements with slackness `λ`: an element
//! among the last `W` must be reported (no false negatives); one last seen more than
//! `(1 + λ)·W` elements ago (or never) may be reported with probability at most `ε`; one in
//! between may be reported or not. The paper's bound is about
//! `W·log₂(1/ε) + W·max(log₂(1/λ), log₂ log₂(1/ε))` bits
//! ([`crate::theory::sliding_window_lower_bound_bits_with_slack`]), and its construction
//! meets it up to lower-order terms.
//!
//! **The construction, as read here.**
//! - *Generations.* The stream is cut into generations of `L = ⌈W/g⌉` consecutive elements
//!   (the paper's blocks of `λ·n`, so `λ ≈ 1/g`); element `t` belongs to generation `⌊t/L⌋`.
//! - *The dictionary.* One succinct dictionary stores, for each key of the recent
//!   generations, a pair: its fingerprint `h(x)` of `f` bits (the paper's hash into a range of
//!   about `n(1+λ)/ε`, so that `f ≈ log₂(W/ε)`) and the label of the last generation it occurred
//!   in (the paper's generation number modulo a small constant, `O(log(1/λ))` bits: *how ages
//!   are kept*). Stored by quotienting, a fingerprint costs its remainder after the slot index
//!   only: about `log₂(1/ε)` bits plus the label, which gives the bound's two terms.
//! - *Insertion.* An arriving element's fingerprint is looked up; it is reported iff present
//!   with a live label (generations `c − g … c`, `c` the current one); its label is then set
//!   to `c` (or the pair inserted).
//! - *Deletion.* An entry whose generation is older than `c − g` has left the window
//!   (`g·L ≥ W`): it is ignored by queries and deleted by a sweep that walks the dictionary
//!   at a constant rate, a few slots per element, so that every entry is visited before its
//!   label comes round again.
//! - *Slack.* An element is reported up to `(g + 1)·L − 1` elements after its last
//!   occurrence, so `λ = ((g + 1)·L − 1)/W − 1 ≈ 1/g`; `g = W` (`L = 1`) is the zero-slack
//!   limit, where the label is an exact timestamp modulo the label range.
//! - *False positives.* A non-member is reported iff its fingerprint equals one of the `D`
//!   live entries': probability `1 − (1 − 2^−f)^D ≤ D·2^−f`, with `D ≤ (g + 1)·L`
//!   ([`false_positive_bound`]; the paper's union bound, `ε` when `2^f = (1+λ)·W/ε`).
//!
//! **Where this reading had to choose.**
//! - *The dictionary.* The paper uses a dictionary with constant worst-case time and a
//!   succinct representation (backyard cuckoo hashing, Arbitman, Naor & Segev, FOCS 2010). Here
//!   the quotient table of the `compact_table` module (Cleary's compact hashing with the
//!   quotient filter's two metadata bits; constant time in expectation, not in the worst
//!   case): `C = ⌊5·N/4⌋ + 1` slots (load at most 0.8) of `f − q + v + 2` bits, `N` the most
//!   entries it can hold, `q = min(f, ⌊log₂ C⌋)`.
//! - *Labels and the sweep's pace.* A label has `v` bits and ranges over `G = 2^v − 1`
//!   values (0 marks an empty slot). The paper takes the generation modulo a constant just
//!   above the live count and deletes each expired generation within one generation, a
//!   constant number of slots per element for a constant `λ`; at small slack that constant,
//!   `C/L ≈ 1.25·g`, is large. Here a sweep pass may take `p = ⌈(g + 1)/8⌉` generations
//!   (`⌈C/(p·L)⌉` slots per element, about 11 whatever `g`), so an entry expired at the start
//!   of generation `t` is gone before generation `t + p` starts: at most `p` expired
//!   generations wait, and `G ≥ g + 1 + p` keeps their labels apart from the live ones'. The
//!   price is the capacity for those `p·L` waiting keys, about `W/8` more entries, and at most
//!   one more label bit.
//! - *The sweep* visits whole clusters of the table (it walks a cluster and removes its
//!   expired entries), from a pointer that wraps around the table; an element's step first
//!   advances the sweep by its quota, then answers and inserts. Any `p·L` consecutive
//!   elements make a full pass, and an entry never moves from ahead of the pointer to behind
//!   it (entries move toward their homes, which lie ahead of it).
//! - *Capacity.* `N = min((g + 1 + p)·L, 2^f)` entries: the live generations' keys and the
//!   waiting expired ones.
//! - *Sizing.* From a budget, `f` is the widest that fits, and the table then takes the rest
//!   of the budget as extra slots (at most 4 times as many). `g` is a parameter (default 61);
//!   it is clamped to `W`.
//! - *Time windows* are not built (count windows only).

use crate::compact_table::{self, QuotientTable};
use crate::error::{Error, Result, ensure};
use crate::hash::rehash;
use crate::{DuplicateFilter, Occupancy, OccupancyKind};

/// Largest fingerprint width.
pub const MAX_FINGERPRINT_BITS: u32 = 57;
/// Default generations per window, `g` (slack about `1/g`).
pub const DEFAULT_GENERATIONS: u64 = 61;

const FP_SALT: u64 = 0x4e59_5f73_6c69_6465;

/// Generation length `L = ⌈W/g⌉`.
pub fn generation_length(window: u64, g: u64) -> u64 {
    window.div_ceil(g)
}

/// Generations a sweep pass may take: `p = ⌈(g + 1)/8⌉`.
pub fn pass_generations(g: u64) -> u64 {
    (g + 1).div_ceil(8)
}

/// Label bits `v`: the smallest with `G = 2^v − 1 ≥ g + 1 + p`.
pub fn label_bits(g: u64) -> u32 {
    let need = g + 1 + pass_generations(g) + 1;
    64 - (need - 1).leading_zeros()
}

/// The most elements back a key is reported: `(g + 1)·L − 1` (at least `W`).
pub fn reach(window: u64, g: u64) -> u64 {
    (g + 1) * generation_length(window, g) - 1
}

/// The paper's bound on the false positive rate: at most `(g + 1)·L` live fingerprints, each
/// matched with probability `2^−f` (capped at 1).
pub fn false_positive_bound(window: u64, g: u64, f: u32) -> f64 {
    ((reach(window, g) + 1) as f64 * 0.5f64.powi(f as i32)).min(1.0)
}

/// The geometry of a Naor–Yogev filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// `W`.
    pub window: u64,
    /// `g`, generations per window.
    pub g: u64,
    /// `f`, fingerprint bits.
    pub f: u32,
    /// `C`, table slots.
    pub slots: u64,
}

impl Geometry {
    /// The smallest geometry for `W`, `g` and `f`.
    pub fn new(window: u64, g: u64, f: u32) -> Self {
        let n =
            ((g + 1 + pass_generations(g)) * generation_length(window, g)).min(1u64 << f.min(62));
        Self {
            window,
            g,
            f,
            slots: n.saturating_mul(5) / 4 + 1,
        }
    }

    /// `v`, label bits.
    pub fn label_bits(&self) -> u32 {
        label_bits(self.g)
    }

    /// `L`.
    pub fn generation_length(&self) -> u64 {
        generation_length(self.window, self.g)
    }

    /// Bits per slot: `f − q + v + 2`.
    pub fn slot_bits(&self) -> u32 {
        compact_table::slot_bits(self.f, self.slots, self.label_bits())
    }

    /// Bits of state: `C·(f − q + v + 2)`.
    pub fn memory_bits(&self) -> Option<u64> {
        self.slots.checked_mul(u64::from(self.slot_bits()))
    }

    /// `G = 2^v − 1` labels.
    fn labels(&self) -> u64 {
        (1u64 << self.label_bits()) - 1
    }

    /// Slots the sweep advances per element: `⌈C/(p·L)⌉`.
    pub fn sweep_per_element(&self) -> u64 {
        self.slots
            .div_ceil(pass_generations(self.g) * self.generation_length())
    }
}

/// Whether a stored value `1..=G` (a label + 1) is live when the current label is `label`:
/// its label is among the last `g + 1` of the `G` labels. The age `label − (value − 1)` modulo
/// `G` by one conditional subtraction (it lies in `[−(G − 1), G − 1]`), not a division.
#[inline(always)]
fn live(label: u64, labels: u64, g: u64, value: u64) -> bool {
    let age = label + labels - (value - 1);
    let age = if age >= labels { age - labels } else { age };
    age <= g
}

/// Parameters of a [`NaorYogev`] filter.
///
/// ```toml
/// window = 100000
/// generations = 61        # g: slack about 1/g (default 61; clamped to the window)
/// fingerprint_bits = 24   # or fpr = 0.01, or neither (widest within the budget)
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct NaorYogevParams {
    /// `W`, the window in elements.
    pub window: u64,
    /// `g`, generations per window (default [`DEFAULT_GENERATIONS`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub generations: Option<u64>,
    /// `f`, fingerprint bits.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fingerprint_bits: Option<u32>,
    /// Target false positive rate: the smallest `f` with [`false_positive_bound`] `≤ fpr`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fpr: Option<f64>,
}

impl NaorYogevParams {
    /// Window `W`, default generations, widest fingerprints within the budget.
    pub fn window(window: u64) -> Self {
        Self {
            window,
            ..Self::default()
        }
    }
}

fn fits(g: &Geometry) -> bool {
    g.slot_bits() <= crate::bits::PackedArray::MAX_WIDTH
}

fn resolve(budget_bits: u64, p: &NaorYogevParams) -> Result<Geometry> {
    let w = p.window;
    ensure(
        (1..=1u64 << 40).contains(&w),
        "window",
        w,
        "must be in 1..=2^40",
    )?;
    let g = p.generations.unwrap_or(DEFAULT_GENERATIONS);
    ensure(g >= 1, "generations", g, "must be at least 1")?;
    let g = g.min(w);
    let too_small = |needed_bits| Error::BudgetTooSmall {
        structure: "naor_yogev",
        budget_bits,
        needed_bits,
    };
    let fixed = compact_table::given_fingerprint_bits(p.fingerprint_bits, p.fpr, |fpr| {
        (1..=MAX_FINGERPRINT_BITS)
            .find(|&f| false_positive_bound(w, g, f) <= fpr)
            .unwrap_or(MAX_FINGERPRINT_BITS + 1)
    })?;
    let geo = match fixed {
        Some(f) => {
            let geo = Geometry::new(w, g, f);
            ensure(
                fits(&geo),
                "fingerprint_bits",
                f,
                "a table slot would exceed 57 bits",
            )?;
            let bits = geo.memory_bits().unwrap_or(u64::MAX);
            if bits > budget_bits {
                return Err(too_small(bits));
            }
            geo
        }
        None => {
            let Some(mut geo) = (1..=MAX_FINGERPRINT_BITS).rev().find_map(|f| {
                Some(Geometry::new(w, g, f))
                    .filter(|x| fits(x) && x.memory_bits().is_some_and(|b| b <= budget_bits))
            }) else {
                return Err(too_small(
                    Geometry::new(w, g, 1).memory_bits().unwrap_or(u64::MAX),
                ));
            };
            // The rest of the budget as extra slots (at most 4 times as many).
            geo.slots = compact_table::grow_slots(
                budget_bits,
                geo.slots,
                |slots| Geometry { slots, ..geo }.memory_bits(),
                |slots| fits(&Geometry { slots, ..geo }),
                |slots| u64::from(Geometry { slots, ..geo }.slot_bits()),
            );
            geo
        }
    };
    crate::error::words_for_bits("naor_yogev", geo.memory_bits().unwrap_or(u64::MAX))?;
    Ok(geo)
}

/// The Naor–Yogev sliding Bloom filter (see the module documentation).
///
/// ```
/// use dupstream_filters::{DuplicateFilter, naor_yogev::{NaorYogev, NaorYogevParams}, hash::hash_key};
/// let p = NaorYogevParams { window: 100, generations: Some(100), fingerprint_bits: Some(40), fpr: None };
/// let mut s = NaorYogev::new(1 << 16, &p, 0).unwrap();
/// for key in 0..1000u64 {
///     s.step(hash_key(key, 0));
/// }
/// assert!(s.contains(hash_key(999, 0)) && s.contains(hash_key(900, 0)));
/// assert!(!s.contains(hash_key(899, 0))); // g = W: no slack (up to a 2^-40 collision)
/// ```
#[derive(Debug, Clone)]
pub struct NaorYogev {
    table: QuotientTable,
    geometry: Geometry,
    /// `G`, the label range.
    labels: u64,
    /// Current generation's label (`0..G`) and elements seen in it.
    label: u64,
    in_generation: u64,
    /// The sweep's next slot and slots per element.
    sweep: u64,
    quota: u64,
}

impl NaorYogev {
    /// A Naor–Yogev filter within `budget_bits`; `seed` is unused (no random draws).
    pub fn new(budget_bits: u64, params: &NaorYogevParams, seed: u64) -> Result<Self> {
        let _ = seed;
        let geo = resolve(budget_bits, params)?;
        Ok(Self {
            table: QuotientTable::new("naor_yogev", geo.f, geo.slots, geo.label_bits())?,
            geometry: geo,
            labels: geo.labels(),
            label: 0,
            in_generation: 0,
            sweep: 0,
            quota: geo.sweep_per_element(),
        })
    }

    /// The state size a filter built with this budget would have (no allocation).
    pub fn memory_bits_for(budget_bits: u64, params: &NaorYogevParams) -> Result<u64> {
        Ok(resolve(budget_bits, params)?
            .memory_bits()
            .expect("checked in resolve"))
    }

    /// The geometry built.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    #[inline(always)]
    fn fingerprint(&self, hash: u64) -> u64 {
        rehash(hash, FP_SALT) >> (64 - self.geometry.f)
    }

    /// The label of the next element's generation.
    #[inline(always)]
    fn next_label(&self) -> u64 {
        if self.in_generation < self.geometry.generation_length() {
            self.label
        } else if self.label + 1 == self.labels {
            0
        } else {
            self.label + 1
        }
    }

    /// Whether a stored value (label + 1) is live when the current label is `label`: its
    /// label is among the last `g + 1`.
    #[inline(always)]
    fn live(&self, label: u64, value: u64) -> bool {
        live(label, self.labels, self.geometry.g, value)
    }

    /// Membership query without update: whether the next element would be reported.
    pub fn contains(&self, hash: u64) -> bool {
        let label = self.next_label();
        self.table
            .find(self.fingerprint(hash))
            .is_some_and(|(_, v)| self.live(label, v))
    }

    /// Entries stored with a live label for the next element (the `D` of the false positive
    /// rate).
    pub fn live_entries(&self) -> u64 {
        let label = self.next_label();
        (0..self.table.slots())
            .filter_map(|i| self.table.value_at(i))
            .filter(|&v| self.live(label, v))
            .count() as u64
    }
}

impl DuplicateFilter for NaorYogev {
    #[inline]
    fn step(&mut self, hash: u64) -> bool {
        if self.in_generation == self.geometry.generation_length() {
            self.label = self.next_label();
            self.in_generation = 0;
        }
        self.in_generation += 1;
        // The sweep: at least `quota` slots, whole clusters.
        let (label, labels, g) = (self.label, self.labels, self.geometry.g);
        self.sweep = self.table.sweep(self.sweep, self.quota, move |value| {
            live(label, labels, g, value)
        });
        let fp = self.fingerprint(hash);
        let spot = self.table.locate(fp);
        if spot.found() {
            self.table.set_value(spot.slot, self.label + 1);
            self.live(self.label, spot.value())
        } else {
            self.table.insert_at(fp, spot, self.label + 1);
            false
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.table.prefetch(self.fingerprint(hash));
    }

    fn memory_bits(&self) -> u64 {
        self.table.memory_bits()
    }

    fn name(&self) -> &'static str {
        "naor_yogev"
    }

    fn params(&self) -> Vec<crate::Param> {
        let g = self.geometry;
        vec![
            crate::Param::new("window", g.window),
            crate::Param::new("generations", g.g),
            crate::Param::new("fingerprint_bits", g.f),
            crate::Param::new("label_bits", g.label_bits()),
            crate::Param::new("table_slots", g.slots),
            crate::Param::new("reach", reach(g.window, g.g)),
            crate::Param::new("fpr_bound", false_positive_bound(g.window, g.g, g.f)),
        ]
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: self.table.len() as f64 / self.table.slots() as f64,
        }
    }
}

crate::structure::impl_structure!(NaorYogev {
    name: "naor_yogev",
    params: NaorYogevParams,
    // Calibrated by hand from the roofline at 1 Mbit (W = 16384): about 50 steps of a k = 2
    // Bloom filter, the cluster walks of the quotient table and its sweep (`just roofline`
    // gives it a row).
    cost: 50.0,
    memory_bits_for: NaorYogev::memory_bits_for,
}
    crate::structure::window_scales!(NaorYogevParams);

    /// 1 random cell (the table at the fingerprint's home: query and update walk the same
    /// cluster) plus the sweep's slots, read in sequence: [`crate::Structure::cleared_lines_per_element`].
    fn cells_per_element(params: &NaorYogevParams, budget_bits: u64) -> f64 {
        1.0 + Self::cleared_lines_per_element(params, budget_bits)
    }

    /// The sweep's cache lines per element: `⌈C/(p·L)⌉` slots of `f − q + v + 2` bits.
    fn cleared_lines_per_element(params: &NaorYogevParams, budget_bits: u64) -> f64 {
        resolve(budget_bits, params).map_or(0.0, |g| {
            (g.sweep_per_element() * u64::from(g.slot_bits())) as f64 / 512.0
        })
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{hash_key, mix64};
    use std::collections::HashMap;

    #[test]
    fn no_false_negative_within_the_window_and_nothing_beyond_its_reach() {
        // Keys over a universe of 3W recur at gaps around W. With 40-bit fingerprints (a
        // collision about once in 2^40 / 10^5 queries: none expected), every gap ≤ W is
        // reported and no gap beyond the reach (g + 1)·L − 1; in between, both happen.
        for (w, g) in [
            (1000u64, 1u64),
            (1000, 7),
            (1000, 61),
            (999, 1000),
            (4096, 13),
        ] {
            let p = NaorYogevParams {
                window: w,
                generations: Some(g),
                fingerprint_bits: Some(40),
                fpr: None,
            };
            let mut s = NaorYogev::new(1 << 30, &p, 0).unwrap();
            let reach = reach(w, g.min(w));
            let mut last: HashMap<u64, u64> = HashMap::new();
            let (mut slack_seen, mut slack_reported) = (0, 0);
            for t in 0..40 * w {
                let key = mix64(t ^ 0x77) % (3 * w);
                let dup = s.step(hash_key(key, 2));
                if let Some(&prev) = last.get(&key) {
                    let gap = t - prev;
                    if gap <= w {
                        assert!(dup, "W={w} g={g}: gap {gap} missed");
                    } else if gap > reach {
                        assert!(!dup, "W={w} g={g}: gap {gap} beyond reach {reach} reported");
                    } else {
                        slack_seen += 1;
                        slack_reported += u64::from(dup);
                    }
                } else {
                    assert!(!dup, "W={w} g={g}: a first occurrence reported");
                }
                last.insert(key, t);
            }
            eprintln!(
                "W={w} g={g}: reach {reach}, {slack_reported} of {slack_seen} in the slack reported"
            );
        }
    }

    /// At the roofline's window (W = 16384, g = 61) and budgets from 8 to 1024 bits per
    /// window element (64: the 1 Mbit row, a table at load about 0.8), 150 000 elements
    /// against a map from each fingerprint to the generation of its last occurrence: an
    /// element is reported iff its fingerprint occurred in the last `g + 1` generations (the
    /// sweep deletes an entry before its label comes round again), so every verdict agrees
    /// exactly, also after the labels have wrapped (G = 127 labels, 557 generations).
    #[test]
    fn equals_a_map_of_last_generations_at_the_roofline_sizes() {
        let w = 16_384u64;
        for bits in [8u64, 64, 1024] {
            let mut s = NaorYogev::new(bits * w, &NaorYogevParams::window(w), 0).unwrap();
            let (g, len) = (s.geometry.g, s.geometry.generation_length());
            let mut last: HashMap<u64, u64> = HashMap::new();
            for t in 0..150_000u64 {
                let generation = t / len;
                let key = if t % 3 == 0 {
                    mix64(t) % (2 * w)
                } else {
                    t << 20
                };
                let h = hash_key(key, 5);
                let fp = s.fingerprint(h);
                let want = last
                    .insert(fp, generation)
                    .is_some_and(|l| generation - l <= g);
                assert_eq!(s.step(h), want, "{bits} bits: element {t}");
            }
        }
    }

    #[test]
    fn no_false_negative_at_every_budget() {
        let w = 2000u64;
        for bits in [2u64, 4, 8, 16, 32, 64] {
            for g in [5u64, 61, 2000] {
                let p = NaorYogevParams {
                    window: w,
                    generations: Some(g),
                    ..NaorYogevParams::default()
                };
                let mut s = NaorYogev::new(bits * w, &p, 0)
                    .unwrap_or_else(|e| panic!("{bits} bits g={g}: {e}"));
                let mut last: HashMap<u64, u64> = HashMap::new();
                for t in 0..10 * w {
                    let key = mix64(t) % (3 * w);
                    let dup = s.step(hash_key(key, 2));
                    if let Some(&prev) = last.get(&key) {
                        assert!(t - prev > w || dup, "{bits} bits g={g}: missed");
                    }
                    last.insert(key, t);
                }
            }
        }
    }

    #[test]
    fn fpr_matches_the_papers_analysis() {
        // After 5W distinct keys, never-seen keys are reported iff their fingerprint equals
        // one of the D live entries': binomial with rate D·2^−f, within 3.3 sd
        // (`check_never_seen_fpr`); and D·2^−f is within the paper's bound (g + 1)·L·2^−f.
        for (w, g, f) in [
            (10_000u64, 61u64, 16u32),
            (20_000, 7, 18),
            (5_000, 5_000, 14),
        ] {
            let p = NaorYogevParams {
                window: w,
                generations: Some(g),
                fingerprint_bits: Some(f),
                fpr: None,
            };
            let mut s = NaorYogev::new(1 << 30, &p, 0).unwrap();
            for i in 0..5 * w {
                s.step(hash_key(i, 4));
            }
            let d = s.live_entries();
            let p_d = d as f64 * 0.5f64.powi(f as i32);
            crate::test_support::check_never_seen_fpr(
                &format!(
                    "naor_yogev W={w} g={g} f={f}: D = {d}, bound {:.6}",
                    false_positive_bound(w, g, f)
                ),
                |h| s.contains(h),
                p_d,
            );
            assert!(p_d <= false_positive_bound(w, g, f));
            // The live entries are the distinct fingerprints of the keys of the last g full
            // generations and the current one's n₀ elements: n = g·L + n₀ keys into 2^f
            // values, E[D] = 2^f·(1 − (1 − 2^−f)^n); D is a sum of negatively correlated
            // occupancy indicators, so its sd is below √E[D]: 5 sd.
            let gg = g.min(w);
            let l = generation_length(w, gg);
            let steps = 5 * w;
            let n = (gg * l + (steps - 1) % l + 1).min(steps);
            let m = 2f64.powi(f as i32);
            let expected_d = m * -((-1.0 / m).ln_1p() * n as f64).exp_m1();
            assert!(
                (d as f64 - expected_d).abs() < 5.0 * expected_d.sqrt() + 1.0,
                "D = {d}, expected {expected_d:.0} of n = {n}"
            );
        }
    }

    #[test]
    fn sizing() {
        assert_eq!(label_bits(1), 2); // p = 1: 3 ≤ 3
        assert_eq!(label_bits(3), 3); // p = 1: 5 ≤ 7
        assert_eq!(label_bits(61), 7); // p = 8: 70 ≤ 127
        assert_eq!(label_bits(120), 8); // p = 16: 137 ≤ 255
        assert_eq!(reach(1000, 7), 8 * 143 - 1);
        // By hand: W = 1000, g = 7, f = 20: L = 143, p = 1, N = 9·143 = 1287, C = 1609
        // slots, q = 10, v = 4 (G = 15 ≥ 9): 1609·(20 − 10 + 4 + 2) bits; the sweep takes
        // ⌈1609/143⌉ = 12 slots per element.
        let geo = Geometry::new(1000, 7, 20);
        assert_eq!(geo.slots, 1609);
        assert_eq!(geo.memory_bits(), Some(1609 * 16));
        assert_eq!(geo.sweep_per_element(), 12);
        for w in [32u64, 512, 4096, 1 << 16] {
            for bits in [2u64, 4, 8, 16, 32, 64] {
                let budget = bits * w;
                let s = NaorYogev::new(budget, &NaorYogevParams::window(w), 0)
                    .unwrap_or_else(|e| panic!("W={w} {bits} bits: {e}"));
                let m = s.memory_bits();
                assert_eq!(
                    m,
                    NaorYogev::memory_bits_for(budget, &NaorYogevParams::window(w)).unwrap()
                );
                assert!(m <= budget);
                assert!(
                    budget - m <= (budget / 100).max(u64::from(s.geometry.slot_bits()))
                        || s.geometry.f == MAX_FINGERPRINT_BITS,
                    "W={w} {bits} bits: {m} of {budget}"
                );
            }
        }
        assert!(matches!(
            NaorYogev::new(
                1 << 20,
                &NaorYogevParams {
                    generations: Some(0),
                    ..NaorYogevParams::window(10)
                },
                0
            ),
            Err(Error::InvalidParameter { .. })
        ));
    }
}
