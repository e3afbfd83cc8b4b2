//! The experiment file's schema: the raw TOML tables ([`RawExperiment`]) and the typed
//! values they hold (table layout, chart kinds, derived series). Validation
//! ([`crate::plan::validate`]) turns a `RawExperiment` into an [`Experiment`](crate::plan::Experiment).

use serde::{Deserialize, Serialize};
use toml::Spanned;

/// The experiment file as parsed, before validation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExperiment {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub paper: Option<String>,
    #[serde(default)]
    pub reference: Option<RawReference>,
    pub stream: Spanned<toml::Table>,
    pub grid: RawGrid,
    pub algorithm: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    pub metrics: RawMetrics,
    #[serde(default)]
    pub output: RawOutput,
    #[serde(default)]
    pub run: RawRun,
    /// Series computed from measured ones (see [`crate::report::derived`]).
    #[serde(default)]
    pub derived: Vec<DerivedSpec>,
}

/// Where the paper's own numbers are.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawReference {
    /// CSV of transcribed values, relative to the experiment file.
    pub file: String,
    /// Value of the CSV's `table` column to compare against.
    pub table: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGrid {
    pub memory: Vec<Spanned<String>>,
    #[serde(default)]
    pub seeds: Option<Vec<u64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMetrics {
    /// Number of evenly spaced checkpoints (the last is the end of the stream).
    #[serde(default)]
    pub checkpoints: Option<u64>,
    /// Or: a checkpoint every this many elements (scaled with `--scale`).
    #[serde(default)]
    pub checkpoint_every: Option<u64>,
    /// Also score against the windowed truth: an element is a duplicate iff its previous
    /// occurrence is at most this many elements earlier (scaled with `--scale`).
    #[serde(default)]
    pub window: Option<Spanned<i64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    #[serde(default)]
    pub table: Option<TableLayout>,
    #[serde(default)]
    pub charts: Option<Vec<ChartKind>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRun {
    /// Default `--scale` for this experiment.
    #[serde(default)]
    pub scale: Option<u64>,
    /// The largest `--scale` this experiment tolerates (its streams are too short to be
    /// divided further, e.g. `1` for a 100K-element paper table): a larger `--scale` is
    /// clamped to it, with a warning.
    #[serde(default)]
    pub max_scale: Option<Spanned<u64>>,
}

/// Which dimension goes in rows and which in columns of the paper-style table.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TableLayout {
    #[serde(default = "default_rows")]
    pub rows: Vec<Dim>,
    #[serde(default = "default_columns")]
    pub columns: Dim,
}

fn default_rows() -> Vec<Dim> {
    vec![Dim::Memory]
}
fn default_columns() -> Dim {
    Dim::Algorithm
}

impl Default for TableLayout {
    fn default() -> Self {
        Self {
            rows: default_rows(),
            columns: default_columns(),
        }
    }
}

/// A dimension of the grid.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    Memory,
    Algorithm,
    K,
    Distinct,
    N,
    Stream,
}

impl Dim {
    pub fn as_str(self) -> &'static str {
        match self {
            Dim::Memory => "memory",
            Dim::Algorithm => "algorithm",
            Dim::K => "k",
            Dim::Distinct => "distinct",
            Dim::N => "n",
            Dim::Stream => "stream",
        }
    }
}

/// A chart the run draws.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// FPR and FNR against stream length, one chart per memory size.
    RatesVsLength,
    /// Final FPR and FNR against memory.
    RatesVsMemory,
    /// Final FPR and FNR against k.
    RatesVsK,
    /// Occupancy against stream length.
    OccupancyVsLength,
    /// Final FPR and FNR against a parameter, written `{ rates_vs_param = "f" }`: a structure
    /// parameter (as in `raw.csv`'s `params`) or a stream field (as in its `stream` label),
    /// `memory` or `n`. Series without the parameter are drawn flat across the range.
    RatesVsParam(String),
    /// Difference in the number of ones (non-zero cells) between successive checkpoints
    /// (Bera et al. conference Fig. 6–7).
    OnesDifference,
    /// FN-rate differences of `difference` series (`[[derived]]`) against memory (Deng &
    /// Rafiei Fig. 5).
    FnDifference,
    /// Load (fraction of non-zero cells; `1 − zero fraction` for counters) against stream
    /// length (Bera et al. journal Fig. 11).
    LoadVsLength,
}

impl ChartKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ChartKind::RatesVsLength => "rates_vs_length",
            ChartKind::RatesVsMemory => "rates_vs_memory",
            ChartKind::RatesVsK => "rates_vs_k",
            ChartKind::OccupancyVsLength => "occupancy_vs_length",
            ChartKind::RatesVsParam(_) => "rates_vs_param",
            ChartKind::OnesDifference => "ones_difference",
            ChartKind::FnDifference => "fn_difference",
            ChartKind::LoadVsLength => "load_vs_length",
        }
    }
}

/// One `[[derived]]` table.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DerivedSpec {
    /// Label of the derived series.
    pub label: String,
    /// How it is computed.
    pub kind: DerivedKind,
    /// First input series (label).
    pub a: String,
    /// Second input series (label).
    pub b: String,
}

/// What a derived series computes (see the module doc).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DerivedKind {
    /// FPBuffering's expected rates with its coin at `b`'s FP rate, from LRU buffering `a`.
    FpBufferingAt,
    /// `a − b`.
    Difference,
}

impl DerivedKind {
    /// The name used in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FpBufferingAt => "fp_buffering_at",
            Self::Difference => "difference",
        }
    }

    /// The `algorithm` column of the derived rows.
    pub fn algorithm(self) -> &'static str {
        match self {
            Self::FpBufferingAt => "fp_buffering",
            Self::Difference => "difference",
        }
    }
}
