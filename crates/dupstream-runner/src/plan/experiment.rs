//! The validated experiment: its streams, its cells (one structure over one stream) and what
//! is derived from them alone (checkpoints, labels).

use crate::plan::registry::StructureSpec;
use crate::plan::schema::{ChartSpec, DerivedSpec, TableLayout};
use dupstream_streams::{StreamSpec, TimeSpec};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One stream of the sweep (a combination of swept stream values and a seed).
#[derive(Debug, Clone)]
pub struct StreamCase {
    /// The stream as run (after `--scale`).
    pub spec: StreamSpec,
    /// The stream as written (before `--scale`).
    pub nominal: StreamSpec,
    /// The replicate seed; the stream's own seed, the key-hash seed and the filter seeds derive from it.
    pub seed: u64,
    /// `[stream] time`: the arrival process as run (after `--scale`), when the stream is
    /// timestamped.
    pub time: Option<TimeSpec>,
    /// The arrival process as written.
    pub time_nominal: Option<TimeSpec>,
    /// Whether this is the tuning seed's stream of a `[tuning]` section: `[stream]` with the
    /// section's fields replaced, standing in for the stream of [`StreamCase::board_label`]
    /// when a structure's setting is chosen.
    pub tuning: bool,
    /// For a tuning stream, the label of the `[stream]` stream it tunes for; `None` otherwise.
    pub tunes_for: Option<String>,
}

impl StreamCase {
    /// The label of the stream this case is scored as: [`StreamCase::label`] for an ordinary
    /// stream; for a tuning stream ([`StreamCase::tuning`]) the label of the `[stream]`
    /// stream it tunes for (the other seeds' streams of the same combination of swept values).
    pub fn board_label(&self) -> String {
        self.tunes_for.clone().unwrap_or_else(|| self.label())
    }

    /// The stream's label for tables and charts ([`stream_label`]), with its arrival process
    /// as written when it has one (`time=mmpp time_burst_rate=8000 …`): the stream actually
    /// run, a tuning stream's own (`raw.csv`'s `stream`).
    pub fn label(&self) -> String {
        let mut label = stream_label(&self.nominal);
        if let Some(t) = &self.time_nominal {
            label += &time_label(t);
        }
        label
    }
}

/// One run of one structure over one stream.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Its position in [`Experiment::cells`] (and its `cell` number in `raw.csv`).
    pub index: usize,
    /// The index of its stream in [`Experiment::streams`].
    pub stream: usize,
    /// The structure and its parameters, from the registry.
    pub filter: Arc<dyn StructureSpec>,
    /// Display label (`label` key, or the name plus swept parameters).
    pub label: String,
    /// Its `[[algorithm]]`'s family (`family` key, default the label): near-twins the
    /// leaderboard counts as one entry.
    pub family: String,
    /// The configuration: the label plus the values of the keys its `[[algorithm]]` table
    /// sweeps, as written (`BSBF k=2`); equal to `label` when nothing is swept or the label
    /// was generated from the swept values. Charts, comparisons and summaries group by it.
    pub config: String,
    /// The swept keys' values as written (unscaled), `(key, value)` in the table's order.
    pub swept: Vec<(String, String)>,
    /// The bits of state the structure is built within: the memory budget as run (after
    /// `--scale`), less, under [`Sizing::Held`], what the structure holds beyond its state
    /// (measured); `raw.csv`'s `memory_bits_budget`. What the built structure uses within it
    /// is `memory_bits` (`raw.csv`, `cells.csv`).
    pub budget_bits: u64,
    /// Memory budget as written.
    pub memory_nominal_bits: u64,
}

/// What a memory size of the grid bounds (`[grid] budget`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sizing {
    /// `"state"` (the default, the papers' convention): the structure's state, its cells,
    /// counters and fingerprints (`memory_bits`); a cell is built within the memory size.
    #[default]
    State,
    /// `"held"` (the leaderboard's): everything the structure holds on the heap, measured
    /// (`memory_bits_held` after its build): its state, its own value, its tables and spare
    /// capacity. A cell is built within the largest state budget whose build holds at most
    /// the memory size, found by building it; a structure whose fixed part alone is over the
    /// size does not fit there.
    Held,
}

/// A validated experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// The experiment file.
    pub file: PathBuf,
    /// The file's text, as read.
    pub source: String,
    /// `name`: the experiment's name (its results go under `results/<name>/`).
    pub name: String,
    /// `description`: one line saying what it measures.
    pub description: String,
    /// `paper`: the paper it reproduces (`Singh & Batra, FP-SBF`), as tables title it.
    pub paper: Option<String>,
    /// `[reference]`: the paper's values (a CSV file found, and the value of its `table` column).
    pub reference: Option<(PathBuf, String)>,
    /// The scale it runs at: `--scale`, else `[run] scale`, else 1, at most `[run] max_scale`.
    pub scale: u64,
    /// Every stream of the sweep, one per combination of swept values and seed.
    pub streams: Vec<StreamCase>,
    /// Every cell: one structure at one memory size over one stream.
    pub cells: Vec<Cell>,
    /// The `[grid] memory` sizes, nominal bits in the file's order (the leaderboard's
    /// columns; a structure's own `memory` may add sizes beyond them).
    pub memory_grid: Vec<u64>,
    /// `[grid] budget`: what those sizes bound.
    pub sizing: Sizing,
    /// `[metrics] checkpoint_every` (scaled): a checkpoint every this many elements.
    pub checkpoint_every: Option<u64>,
    /// `[metrics] checkpoints`: the number of evenly spaced checkpoints when `checkpoint_every` is not given.
    pub checkpoints: u64,
    /// `[metrics] window` (scaled): also score against the windowed truth.
    pub window: Option<u64>,
    /// `[metrics] window_seconds` (scaled): also score against the windowed truth of a time
    /// window (the streams are timestamped).
    pub window_seconds: Option<f64>,
    /// `[metrics] warmup` (scaled): a checkpoint there, from which interval rates are taken.
    pub warmup: Option<u64>,
    /// `[output] table`: the paper-style table's rows and columns.
    pub table: TableLayout,
    /// `[output] charts`: the charts the run draws.
    pub charts: Vec<ChartSpec>,
    /// `[output] compress`: `raw.csv`, `cells.csv` and `manifest.json` are stored
    /// gzip-compressed.
    pub compress: bool,
    /// `[[derived]]`: series computed from measured ones.
    pub derived: Vec<DerivedSpec>,
    /// Doubts that do not stop a run (e.g. a repeated seed), one line each, for stderr.
    pub warnings: Vec<String>,
}

impl Experiment {
    /// Total elements over all cells (for progress), when every stream declares its length.
    pub fn total_elements(&self) -> Option<u64> {
        self.cells
            .iter()
            .map(|c| self.streams[c.stream].spec.declared_len())
            .sum()
    }

    /// The experiment restricted to some cells (indices and streams unchanged).
    pub fn restrict(&self, cells: &[usize]) -> Experiment {
        let keep: BTreeSet<usize> = cells.iter().copied().collect();
        let mut sub = self.clone();
        sub.cells.retain(|c| keep.contains(&c.index));
        sub
    }

    /// Checkpoint positions for a stream of `n` elements (the last is `n`).
    pub fn checkpoints(&self, n: u64) -> Vec<u64> {
        let mut v: Vec<u64> = match self.checkpoint_every {
            Some(every) => (1..).map(|i| i * every).take_while(|&p| p < n).collect(),
            None => {
                let c = self.checkpoints.min(n.max(1));
                (1..c).map(|i| n * i / c).filter(|&p| p > 0).collect()
            }
        };
        if let Some(w) = self.warmup.filter(|&w| w > 0 && w < n)
            && let Err(i) = v.binary_search(&w)
        {
            v.insert(i, w);
        }
        v.dedup();
        v.push(n);
        v
    }

    /// Whether the cells are also scored against a windowed truth (of elements or seconds).
    pub fn windowed(&self) -> bool {
        self.window.is_some() || self.window_seconds.is_some()
    }

    /// The labels of the streams, as tables and charts name them, deduplicated and sorted.
    pub fn stream_labels(&self) -> Vec<String> {
        self.streams
            .iter()
            .map(StreamCase::label)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }
}

/// A stream's label for tables and charts: its nominal (unscaled) parameters without the
/// seed, so replicates of one stream share a label.
pub fn stream_label(spec: &StreamSpec) -> String {
    let Ok(toml::Value::Table(mut t)) = toml::Value::try_from(spec) else {
        return spec.describe();
    };
    t.remove("seed");
    let kind = t
        .remove("kind")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut parts = vec![kind];
    for (k, v) in t {
        let v = match v {
            // Only the file name of a replayed file: results must not depend on where it lives.
            toml::Value::String(s) if k == "path" => Path::new(&s)
                .file_name()
                .map_or(s.clone(), |n| n.to_string_lossy().into_owned()),
            toml::Value::String(s) => s,
            other => other.to_string(),
        };
        parts.push(format!("{k}={v}"));
    }
    parts.join(" ")
}

/// The label parts of an arrival process: ` time=<process>` then ` time_<field>=<value>` for
/// each of its fields (one word each, as `stream_params` splits labels at spaces).
fn time_label(time: &TimeSpec) -> String {
    let Ok(toml::Value::Table(t)) = toml::Value::try_from(time) else {
        return format!(" time={}", time.process());
    };
    let mut out = format!(" time={}", time.process());
    for (k, v) in t.iter().filter(|(k, _)| *k != "process") {
        let v = match v {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out += &format!(" time_{k}={v}");
    }
    out
}

/// The target distinct fraction of a stream spec, when it has one.
pub fn distinct_target(spec: &StreamSpec) -> Option<f64> {
    match spec {
        StreamSpec::Uniform {
            distinct_fraction, ..
        } => *distinct_fraction,
        StreamSpec::Shuffled {
            distinct_fraction, ..
        } => Some(*distinct_fraction),
        _ => None,
    }
}
