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
    /// A held-out stream for the tuning seed (see [`RawTuning`]).
    #[serde(default)]
    pub tuning: Option<RawTuning>,
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

/// `[tuning]`: the tuning seed's stream (the first of `[grid] seeds`) is `[stream]` with these
/// fields replaced, so that a structure's setting is chosen on other data than it is scored
/// on (a real trace replays the same keys for every seed): `stream = { offset = 0, limit =
/// 38059 }` beside `[stream] offset = 38059, limit = 38059`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTuning {
    /// `[stream]` fields and their values for the tuning seed's stream.
    pub stream: Spanned<toml::Table>,
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
    /// A structure that cannot be built at a memory size: `"error"` (the default: the file
    /// is refused, naming it) or `"skip"` (that cell is left out, with a warning; a
    /// leaderboard shows no entry there).
    #[serde(default)]
    pub unfit: Option<Spanned<String>>,
    /// What a memory size bounds: `"state"` (the default: the structure's state) or
    /// `"held"` (all the heap it holds, measured).
    #[serde(default)]
    pub budget: Option<Spanned<String>>,
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
    /// Or a time window: an element is a duplicate iff its previous occurrence is at most
    /// this many seconds earlier, on the times of `[stream] time` (scaled with `--scale`:
    /// divided by it).
    #[serde(default)]
    pub window_seconds: Option<Spanned<f64>>,
    /// The first elements a leaderboard leaves out of its windowed score (scaled with
    /// `--scale`): a checkpoint is placed there, and rates are also taken from it to the end.
    #[serde(default)]
    pub warmup: Option<Spanned<i64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    #[serde(default)]
    pub table: Option<TableLayout>,
    #[serde(default)]
    pub charts: Option<Vec<ChartSpec>>,
    /// Store `raw.csv`, `cells.csv` and `manifest.json` gzip-compressed (`raw.csv.gz`, …),
    /// to keep large results small in git. Default false.
    #[serde(default)]
    pub compress: Option<bool>,
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
    /// The dimensions of the rows (default: memory).
    #[serde(default = "default_rows")]
    pub rows: Vec<Dim>,
    /// The dimension of the columns (default: the structure).
    #[serde(default = "default_columns")]
    pub columns: Dim,
}

fn default_rows() -> Vec<Dim> {
    vec![Dim::Memory]
}
fn default_columns() -> Dim {
    Dim::Algorithm
}

impl TableLayout {
    /// The row dimensions' names joined as a table's first heading (`memory / k`).
    pub fn rows_heading(&self) -> String {
        self.rows
            .iter()
            .map(|d| d.as_str())
            .collect::<Vec<_>>()
            .join(" / ")
    }
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
    /// The memory size.
    Memory,
    /// The structure (its label).
    Algorithm,
    /// A structure's `k` parameter.
    K,
    /// The stream's target distinct fraction.
    Distinct,
    /// The stream's length.
    N,
    /// The stream (its label).
    Stream,
}

impl Dim {
    /// The name experiment files use.
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
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// FPR and FNR against stream length, one chart per memory size (memory sizes overlaid
    /// when the run has one structure, as Deng & Rafiei Fig. 3).
    #[default]
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
    /// The leaderboard view: error against bits per distinct element and against ns per
    /// element, one marker per structure, with the Pareto front. Drawn for every run with two
    /// structures or more unless listed with options.
    Pareto,
}

impl ChartKind {
    /// The name experiment files use.
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
            ChartKind::Pareto => "pareto",
        }
    }

    /// Every kind named by a plain string (all but `rates_vs_param`).
    pub const PLAIN: [ChartKind; 8] = [
        ChartKind::RatesVsLength,
        ChartKind::RatesVsMemory,
        ChartKind::RatesVsK,
        ChartKind::OccupancyVsLength,
        ChartKind::OnesDifference,
        ChartKind::FnDifference,
        ChartKind::LoadVsLength,
        ChartKind::Pareto,
    ];
}

/// The error a Pareto chart plots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ErrorMetric {
    /// The false-positive rate.
    Fpr,
    /// The false-negative rate.
    Fnr,
    /// FPR + FNR (the QHT paper's E).
    #[default]
    Sum,
    /// The false-positive rate against the windowed truth (`[metrics] window`).
    WindowFpr,
    /// The windowed false-negative rate.
    WindowFnr,
    /// The windowed FPR + FNR.
    WindowSum,
}

impl ErrorMetric {
    /// The names an experiment file uses.
    pub const NAMES: [&'static str; 6] = ["fpr", "fnr", "fpr+fnr", "w_fpr", "w_fnr", "w_fpr+w_fnr"];

    /// The metric an experiment file names (one of [`ErrorMetric::NAMES`]).
    pub fn parse(s: &str) -> Option<Self> {
        let all = [
            Self::Fpr,
            Self::Fnr,
            Self::Sum,
            Self::WindowFpr,
            Self::WindowFnr,
            Self::WindowSum,
        ];
        Self::NAMES.iter().position(|n| *n == s).map(|i| all[i])
    }
}

/// One entry of `[output] charts`: a kind, written as a string (`"rates_vs_length"`) or a
/// table (`{ rates_vs_param = "k" }`, `{ chart = "rates_vs_length", log_y = true }`), and
/// its options:
/// - `log_y`: a log y axis (`true`), a linear one (`false`); by default log where a panel's
///   values span more than two decades;
/// - `x_label`, `x_pow2` (`rates_vs_param`): the x quantity's name, and whether it is
///   2^parameter (the QHT paper's S for `s`);
/// - `error` (`pareto`): `fpr`, `fnr`, `fpr+fnr` (default), or `w_`… against the window.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartSpec {
    /// What the chart shows.
    pub kind: ChartKind,
    /// `log_y`: a log y axis, a linear one, or (`None`) log where values span more than two decades.
    pub log_y: Option<bool>,
    /// `x_label` (`rates_vs_param`): the x quantity's name.
    pub x_label: Option<String>,
    /// `x_pow2` (`rates_vs_param`): the x value is 2^parameter.
    pub x_pow2: bool,
    /// `error` (`pareto`): the error plotted (default FPR + FNR).
    pub error: Option<ErrorMetric>,
}

impl From<ChartKind> for ChartSpec {
    fn from(kind: ChartKind) -> Self {
        Self {
            kind,
            ..Self::default()
        }
    }
}

impl ChartSpec {
    /// A chart entry from its TOML value (see the type's doc).
    pub fn from_toml(v: toml::Value) -> Result<Self, String> {
        let mut table = match v {
            toml::Value::String(s) => return Self::kind_named(&s).map(Self::from),
            toml::Value::Table(t) => t,
            other => {
                return Err(format!(
                    "a chart is a name or a table, not {}",
                    other.type_str()
                ));
            }
        };
        let log_y = match table.remove("log_y") {
            None => None,
            Some(toml::Value::Boolean(b)) => Some(b),
            Some(_) => return Err("`log_y` is true or false".into()),
        };
        let x_label = match table.remove("x_label") {
            None => None,
            Some(toml::Value::String(s)) => Some(s),
            Some(_) => return Err("`x_label` is a string".into()),
        };
        let x_pow2 = match table.remove("x_pow2") {
            None => false,
            Some(toml::Value::Boolean(b)) => b,
            Some(_) => return Err("`x_pow2` is true or false".into()),
        };
        let error = match table.remove("error") {
            None => None,
            Some(toml::Value::String(s)) => Some(ErrorMetric::parse(&s).ok_or_else(|| {
                format!(
                    "unknown error `{s}` (known: {})",
                    ErrorMetric::NAMES.join(", ")
                )
            })?),
            Some(_) => return Err("`error` is a string".into()),
        };
        let kind = match table.remove("chart") {
            Some(toml::Value::String(s)) => Self::kind_named(&s)?,
            Some(_) => return Err("`chart` is a chart name".into()),
            None => match table.remove("rates_vs_param") {
                Some(toml::Value::String(p)) => ChartKind::RatesVsParam(p),
                Some(_) => return Err("`rates_vs_param` is a parameter name".into()),
                None => return Err(
                    "a chart table needs `chart = \"name\"` or `rates_vs_param = \"parameter\"`"
                        .into(),
                ),
            },
        };
        if let Some(k) = table.keys().next() {
            return Err(format!(
                "unknown chart option `{k}` (known: chart, rates_vs_param, log_y, x_label, x_pow2, error)"
            ));
        }
        let is_param = matches!(kind, ChartKind::RatesVsParam(_));
        if (x_label.is_some() || x_pow2) && !is_param {
            return Err("`x_label` and `x_pow2` apply to rates_vs_param only".into());
        }
        if error.is_some() && kind != ChartKind::Pareto {
            return Err("`error` applies to pareto only".into());
        }
        Ok(Self {
            kind,
            log_y,
            x_label,
            x_pow2,
            error,
        })
    }

    fn kind_named(s: &str) -> Result<ChartKind, String> {
        ChartKind::PLAIN
            .iter()
            .find(|k| k.as_str() == s)
            .cloned()
            .ok_or_else(|| {
                let names: Vec<&str> = ChartKind::PLAIN.iter().map(ChartKind::as_str).collect();
                format!(
                    "unknown chart `{s}` (known: {}, {{ rates_vs_param = \"parameter\" }})",
                    names.join(", ")
                )
            })
    }
}

impl<'de> Deserialize<'de> for ChartSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        ChartSpec::from_toml(v).map_err(serde::de::Error::custom)
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
