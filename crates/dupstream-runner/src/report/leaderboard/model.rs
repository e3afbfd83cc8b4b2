//! The leaderboard's data: tracks, columns, entries, families, boards, the rules, and a
//! cell's error on a track.

use crate::record::RawRow;
use serde::Serialize;

/// The rules of the leaderboard, printed in LEADERBOARD.md; a test checks that the document
/// holds each, and the unit tests named `rule_…` check the behaviour.
pub const RULES: [&str; 11] = [
    "**Memory is measured.** Each structure is charged the heap it holds (a counting allocator around its construction and every batch it steps, on its own thread) plus its own size, the maximum over the run; declared budgets play no part. Each board's sizes bound that held memory (`[grid] budget = \"held\"`): a structure is built within the largest state whose build holds at most the size, so its fixed part (its fields, tables, spare capacity) comes out of its state, not on top of it. Memory is given per distinct key of the scored stream (since-start) or per window element (windowed).",
    "**A column holds what fits.** A family's entry in a memory column is, among every configuration and run size it ran whose measured memory is at most the column's budget + 1 %, the one with the least error on the tuning stream; a family with nothing that fits has no entry there (—).",
    "**Grids of at most 8.** Every structure declares a grid over its parameters of at most 8 configurations; a structure with fewer parameter values than that runs all of them.",
    "**Tuning streams are not scored.** Synthetic boards tune on seed 1's stream (another generated stream) and score the other seeds; real traces tune on the first half of the trace and score its second half, under as many hash seeds.",
    "**Places count significant differences.** At a column an entry's place is 1 + the number of entries that a paired two-sided t-test at 95 % over the scored seeds finds better than it; entries with the same entries found better share a place (place 1: none is). A place is therefore not a strict order of the means: two entries that no test tells apart can have different places when a third is found better than only one of them.",
    "**Near-twins are one entry.** Structures of one family (the same structure with another parameter or wrapper) pool their configurations; the family's entry is its best member on the tuning stream, named beside it.",
    "**Bits to reach a target** (total error 1 % or 0.1 %): the family's front is, at every level of memory it held, what rule 2 chooses among everything it ran that holds at most that much, each choice once, in order of the memory it holds; the bits are the first point of the front at or below the target, interpolated with the point before it (log bits against log error; against the error itself when the reaching error is 0); “≤” when the front's first point already reaches it; “not reached” when none does. A size that was not run never counts as reached.",
    "**Medians across boards.** A track's summary takes, per family, the median over all of the track's boards of its bits to reach a target, a board where it does not reach it or did not run counting as infinite; “≤” when the median is a board's “≤”.",
    "**Cost.** ns per element is the mean over the scored cells of the reaching point, each cell on one thread: stream, hashing, structure and scoring.",
    "**The bound where it applies.** Naor & Yogev's sliding-window bound is compared only with count-window entries that have no false negative on any scored seed, at zero slack (the question the score asks), with the measured FPR as ε; the difference is shown in whole bits, since the theorem's additive O(W) term (O(1) bits per window element) is dropped; everything else is n/c. The theorem's ε is the false positive probability of the worst key outside the window, which a stream's average FPR can only be below: each difference is a lower bound on the distance to the bound, and a negative one is no contradiction (at zero slack the bound keeps log₂ W bits per element even as ε nears 1).",
    "**Rows in order of the frontier.** A board lists families by bits to reach 1 %, then 0.1 %, then their mean error over the columns; the transfer table gives Kendall τ-b between each synthetic board's and each real trace's order by error at the same columns (bits per element within 15 %), averaged over the columns where at least three families have entries on both boards.",
];

/// A track of the leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Track {
    SinceStart,
    Windowed,
}

impl Track {
    pub fn title(self) -> &'static str {
        match self {
            Track::SinceStart => "since-start track",
            Track::Windowed => "windowed track",
        }
    }
}

/// A cell's error `(FPR, FNR)` on a track, in percent, from its rows in position order.
pub fn error(rows: &[&RawRow], track: Track, warmup: Option<u64>) -> Option<(f64, f64)> {
    let last = rows.last()?;
    match track {
        Track::SinceStart => Some((last.fpr? * 100.0, last.fnr.unwrap_or(0.0) * 100.0)),
        Track::Windowed => {
            let at = |r: &RawRow| -> Option<(u64, u64, u64, u64)> {
                Some((r.position, r.w_duplicates?, r.w_fp?, r.w_fn?))
            };
            let (pos1, dup1, fp1, fn1) = at(last)?;
            let (pos0, dup0, fp0, fn0) = match warmup {
                Some(w) => at(rows.iter().find(|r| r.position == w)?)?,
                None => (0, 0, 0, 0),
            };
            let unseen = (pos1 - dup1) - (pos0 - dup0);
            let dups = dup1 - dup0;
            let fpr = (unseen > 0).then(|| (fp1 - fp0) as f64 / unseen as f64)?;
            let fnr = if dups > 0 {
                (fn1 - fn0) as f64 / dups as f64
            } else {
                0.0
            };
            Some((fpr * 100.0, fnr * 100.0))
        }
    }
}

/// A memory column of a board: a `[grid] memory` size.
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// The size as written in the grid (nominal bits, full scale).
    pub nominal_bits: u64,
    /// The budget as run (nominal / scale).
    pub budget_bits: u64,
    /// The budget per element (distinct key or window element).
    pub bits_per_element: f64,
}

/// One scored point: a family's chosen configuration and run size, scored on the scored seeds.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The member (the `[[algorithm]]` label) and its configuration.
    pub member: String,
    pub config: String,
    /// Its swept settings as written (`k=3;s=6`).
    pub setting: String,
    /// The run size it ran at (nominal bits).
    pub run_nominal_bits: u64,
    /// The memory it held (the maximum over its cells), in bits and per element.
    pub held_bits: u64,
    pub bits_per_element: f64,
    /// Whether the held memory was measured (`memory_bits_held`), or, in a run from before
    /// the measurement, the declared budget.
    pub measured: bool,
    /// Its error on the tuning stream, in percent.
    pub tuning_error_pct: f64,
    /// Per scored seed, in the board's order of scored seeds: FPR + FNR, in percent.
    pub errors_pct: Vec<f64>,
    pub error_pct: f64,
    pub ci95_pct: Option<f64>,
    pub fpr_pct: f64,
    pub fnr_pct: f64,
    /// No false negative on any scored seed.
    pub no_false_negative: bool,
    /// Mean single-thread ns per element over its scored cells (NaN when not timed).
    pub ns_per_element: f64,
    /// Configurations and run sizes it was chosen among.
    pub candidates: usize,
}

/// The memory a family needs to reach an error target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Reach {
    /// Reached at `bits` per element (`at_most`: already at the smallest size it ran, so
    /// perhaps below), by `member` at `ns_per_element`.
    At {
        bits: f64,
        at_most: bool,
        member: String,
        ns_per_element: f64,
    },
    NotReached,
}

impl Reach {
    /// The bits, infinite when not reached (for ordering and medians).
    pub fn bits(&self) -> f64 {
        match self {
            Reach::At { bits, .. } => *bits,
            Reach::NotReached => f64::INFINITY,
        }
    }
}

/// A family on a board: its entry in each column, its tuned points at every run size, and
/// the memory it needs to reach 1 % and 0.1 %.
#[derive(Debug, Clone, Serialize)]
pub struct FamilyRow {
    pub family: String,
    /// Per column (the board's order): its entry, or `None` where nothing it ran fits.
    pub cells: Vec<Option<Entry>>,
    /// Per column: its place (1 = best; shared unless a paired test separates).
    pub places: Vec<Option<usize>>,
    /// Its tuned point at every run size, in order of memory: the front.
    pub front: Vec<Entry>,
    pub reach_1: Reach,
    pub reach_01: Reach,
}

impl FamilyRow {
    /// The mean error over the columns where it has an entry (infinite without any).
    pub fn mean_error(&self) -> f64 {
        let e: Vec<f64> = self.cells.iter().flatten().map(|e| e.error_pct).collect();
        if e.is_empty() {
            f64::INFINITY
        } else {
            e.iter().sum::<f64>() / e.len() as f64
        }
    }
}

/// One workload on one track.
#[derive(Debug, Clone, Serialize)]
pub struct Board {
    pub experiment: String,
    /// The scored stream's label.
    pub stream: String,
    pub track: Track,
    /// A real trace (a replay) rather than a generated stream.
    pub real: bool,
    pub scale: u64,
    /// The scored streams' length.
    pub n: u64,
    /// The count window `W`, or for a time window the mean elements per window.
    pub window: Option<u64>,
    pub window_seconds: Option<f64>,
    pub warmup: Option<u64>,
    /// What one element of the memory axis is: distinct keys of the scored stream (mean over
    /// the scored seeds), or elements per window.
    pub per_element: f64,
    pub unit: &'static str,
    /// How the tuning stream was chosen, in words.
    pub tuning: String,
    /// The tuning seed (`None`: one seed, tuned and scored on it).
    pub tuning_seed: Option<u64>,
    pub scored_seeds: Vec<u64>,
    pub columns: Vec<Column>,
    /// Families in the order of rule 11.
    pub rows: Vec<FamilyRow>,
    /// Whether every entry's memory was measured.
    pub measured: bool,
}

impl Board {
    /// The board's heading: experiment, stream and track.
    pub fn heading(&self) -> (&str, &str, &'static str) {
        (&self.experiment, &self.stream, self.track.title())
    }
}
