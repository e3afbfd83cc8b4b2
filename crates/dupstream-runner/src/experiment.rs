//! Experiment files: raw TOML → [`RawExperiment`] → validated [`Experiment`] with its grid of
//! cells expanded.
//!
//! Any value given as an array in `[stream]` or in an `[[algorithm]]` table is swept (the
//! cartesian product of all arrays); `[grid]` holds the memory sizes and the seeds. An
//! `[[algorithm]]` table's `memory` key (a size or an array of sizes from the grid) is not
//! swept: it restricts that structure to those sizes (e.g. a Bloom filter whose `k` depends
//! on the memory). `[[derived]]` tables add series computed from measured ones
//! ([`crate::derived`]). Every
//! error names the file, line and key, and is found before any work starts.

use crate::error::{ConfigError, line_of, line_of_key};
use crate::units::{format_bits, parse_bits};
use dupstream_filters::spec::FilterSpec;
use dupstream_streams::StreamSpec;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::{Path, PathBuf};
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
    /// Series computed from measured ones (see [`crate::derived`]).
    #[serde(default)]
    pub derived: Vec<crate::derived::DerivedSpec>,
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

/// One stream of the sweep (a combination of swept stream values and a seed).
#[derive(Debug, Clone)]
pub struct StreamCase {
    /// The stream as run (after `--scale`).
    pub spec: StreamSpec,
    /// The stream as written (before `--scale`).
    pub nominal: StreamSpec,
    /// The replicate seed; the stream's own seed, the key-hash seed and the filter seeds derive from it.
    pub seed: u64,
}

/// One run of one structure over one stream.
#[derive(Debug, Clone)]
pub struct Cell {
    pub index: usize,
    pub stream: usize,
    pub filter: FilterSpec,
    /// Display label (`label` key, or the name plus swept parameters).
    pub label: String,
    /// Memory budget as run (after `--scale`).
    pub memory_bits: u64,
    /// Memory budget as written.
    pub memory_nominal_bits: u64,
}

/// A validated experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub file: PathBuf,
    pub source: String,
    pub name: String,
    pub description: String,
    pub paper: Option<String>,
    pub reference: Option<(PathBuf, String)>,
    pub scale: u64,
    pub streams: Vec<StreamCase>,
    pub cells: Vec<Cell>,
    pub checkpoint_every: Option<u64>,
    pub checkpoints: u64,
    pub table: TableLayout,
    pub charts: Vec<ChartKind>,
    pub derived: Vec<crate::derived::DerivedSpec>,
}

/// Reads and validates an experiment file. `scale_override` is `--scale`.
pub fn load(file: &Path, scale_override: Option<u64>) -> Result<Experiment, ConfigError> {
    let source = std::fs::read_to_string(file).map_err(|e| {
        ConfigError::new(
            file,
            None,
            None,
            format!("cannot read experiment file: {e}"),
        )
    })?;
    parse(file, &source, scale_override)
}

/// Validates experiment text (see [`load`]).
pub fn parse(
    file: &Path,
    source: &str,
    scale_override: Option<u64>,
) -> Result<Experiment, ConfigError> {
    let raw: RawExperiment = toml::from_str(source).map_err(|e| {
        let line = e.span().map(|s| line_of(source, s.start));
        let key = unknown_field(e.message()).or_else(|| key_at(source, e.span()));
        ConfigError::new(file, line, key.as_deref(), e.message())
    })?;
    validate(file, source, raw, scale_override)
}

/// The field named by a serde "unknown field `x`" or "missing field `x`" message.
fn unknown_field(msg: &str) -> Option<String> {
    for marker in ["unknown field `", "missing field `", "unknown variant `"] {
        if let Some(rest) = msg.split(marker).nth(1) {
            return rest.split('`').next().map(str::to_string);
        }
    }
    None
}

/// The key written at the start of the line a span begins on.
fn key_at(source: &str, span: Option<Range<usize>>) -> Option<String> {
    let span = span?;
    let line_start = source[..span.start.min(source.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = source[line_start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    Some(key.trim().to_string())
}

fn err_at(
    file: &Path,
    source: &str,
    span: Range<usize>,
    key: &str,
    msg: impl Into<String>,
) -> ConfigError {
    ConfigError::new(file, Some(line_of_key(source, span, key)), Some(key), msg)
}

fn validate(
    file: &Path,
    source: &str,
    raw: RawExperiment,
    scale_override: Option<u64>,
) -> Result<Experiment, ConfigError> {
    let whole = 0..source.len();
    if raw.name.is_empty()
        || !raw
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(err_at(
            file,
            source,
            whole,
            "name",
            "must be non-empty and use only letters, digits, '-' and '_'",
        ));
    }
    let scale = scale_override.or(raw.run.scale).unwrap_or(1);
    if scale == 0 {
        return Err(err_at(
            file,
            source,
            whole.clone(),
            "scale",
            "--scale must be at least 1",
        ));
    }

    // Memory sizes.
    let mut memories = Vec::new();
    for m in &raw.grid.memory {
        let bits = parse_bits(m.get_ref()).map_err(|e| {
            ConfigError::new(
                file,
                Some(line_of(source, m.span().start)),
                Some("grid.memory"),
                format!("bad unit: {e}"),
            )
        })?;
        if bits / scale == 0 {
            return Err(ConfigError::new(
                file,
                Some(line_of(source, m.span().start)),
                Some("grid.memory"),
                format!("{} divided by --scale {scale} is zero bits", m.get_ref()),
            ));
        }
        memories.push(bits);
    }
    if memories.is_empty() {
        return Err(err_at(
            file,
            source,
            whole.clone(),
            "memory",
            "the grid needs at least one memory size",
        ));
    }

    // Streams: expand swept values, then seeds.
    let stream_span = raw.stream.span();
    let stream_combos = expand(raw.stream.get_ref());
    let mut streams = Vec::new();
    for combo in stream_combos {
        let seeds: Vec<u64> = match (&raw.grid.seeds, combo.get("seed")) {
            (Some(s), _) => s.clone(),
            (None, Some(v)) => vec![
                v.as_integer()
                    .and_then(|i| u64::try_from(i).ok())
                    .ok_or_else(|| {
                        err_at(
                            file,
                            source,
                            stream_span.clone(),
                            "seed",
                            "must be a non-negative integer",
                        )
                    })?,
            ],
            (None, None) => vec![1],
        };
        if seeds.is_empty() {
            return Err(err_at(
                file,
                source,
                whole.clone(),
                "seeds",
                "needs at least one seed",
            ));
        }
        for seed in seeds {
            let mut table = combo.clone();
            let kind = table
                .get("kind")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string();
            if kind == "replay" {
                // A relative replay path is relative to the experiment file.
                if let Some(toml::Value::String(p)) = table.get("path") {
                    let path = Path::new(p);
                    if path.is_relative() {
                        let base = file.parent().unwrap_or(Path::new("."));
                        let joined = base.join(path).to_string_lossy().into_owned();
                        table.insert("path".into(), toml::Value::String(joined));
                    }
                }
            } else {
                table.insert("seed".into(), toml::Value::Integer(seed as i64));
            }
            let nominal: StreamSpec =
                toml::Value::Table(table)
                    .try_into()
                    .map_err(|e: toml::de::Error| {
                        let key = unknown_field(e.message()).unwrap_or_else(|| "stream".into());
                        err_at(
                            file,
                            source,
                            stream_span.clone(),
                            &key,
                            format!("[stream]: {}", e.message()),
                        )
                    })?;
            nominal.validate().map_err(|e| {
                ConfigError::new(
                    file,
                    Some(line_of(source, stream_span.start)),
                    Some("stream"),
                    e.to_string(),
                )
            })?;
            let spec = nominal.scaled(scale);
            spec.validate().map_err(|e| {
                ConfigError::new(
                    file,
                    Some(line_of(source, stream_span.start)),
                    Some("stream"),
                    format!("after --scale {scale}: {e}"),
                )
            })?;
            streams.push(StreamCase {
                spec,
                nominal,
                seed,
            });
        }
    }

    // Algorithms: expand swept parameters; `label` is ours, the rest is the structure's.
    let mut filters = Vec::new();
    if raw.algorithm.is_empty() {
        return Err(err_at(
            file,
            source,
            whole.clone(),
            "algorithm",
            "at least one [[algorithm]] is needed",
        ));
    }
    for alg in &raw.algorithm {
        let span = alg.span();
        // `memory` restricts this structure to some of the grid's sizes (never swept).
        let mut table = alg.get_ref().clone();
        let only_memory = match table.remove("memory") {
            None => None,
            Some(v) => Some(restricted_memory(file, source, &span, &v, &memories)?),
        };
        let table = &table;
        let swept: Vec<String> = table
            .iter()
            .filter(|(k, v)| v.is_array() && k.as_str() != "label")
            .map(|(k, _)| k.clone())
            .collect();
        for mut combo in expand(table) {
            let label = match combo.remove("label") {
                Some(toml::Value::String(s)) => s,
                Some(_) => {
                    return Err(err_at(
                        file,
                        source,
                        span.clone(),
                        "label",
                        "must be a string",
                    ));
                }
                None => {
                    let name = combo
                        .get("name")
                        .and_then(|v| v.as_str())
                        .unwrap_or("?")
                        .to_string();
                    let mut label = name;
                    for key in &swept {
                        label.push_str(&format!(" {key}={}", render_value(&combo[key])));
                    }
                    label
                }
            };
            let spec: FilterSpec =
                toml::Value::Table(combo)
                    .try_into()
                    .map_err(|e: toml::de::Error| {
                        let mut msg = e.message().to_string();
                        if msg.contains("unknown variant") {
                            msg = format!("unknown algorithm: {msg}");
                        }
                        let key = unknown_field(e.message()).map_or_else(
                            || "name".to_string(),
                            |k| {
                                if FilterSpec::NAMES.contains(&k.as_str())
                                    || msg.contains("unknown algorithm")
                                {
                                    "name".into()
                                } else {
                                    k
                                }
                            },
                        );
                        err_at(file, source, span.clone(), &key, msg)
                    })?;
            filters.push((spec, label, span.clone(), only_memory.clone()));
        }
    }

    // Validate every structure at every memory size now, without allocating.
    let mut cells = Vec::new();
    for (si, _) in streams.iter().enumerate() {
        for &mem in &memories {
            for (spec, label, span, only) in &filters {
                if only.as_ref().is_some_and(|o| !o.contains(&mem)) {
                    continue;
                }
                let bits = mem / scale;
                spec.memory_bits_for(bits).map_err(|e| {
                    err_at(
                        file,
                        source,
                        span.clone(),
                        "name",
                        format!(
                            "{} at {} (scaled: {bits} bits): {e}",
                            spec.name(),
                            format_bits(mem)
                        ),
                    )
                })?;
                cells.push(Cell {
                    index: cells.len(),
                    stream: si,
                    filter: spec.clone(),
                    label: label.clone(),
                    memory_bits: bits,
                    memory_nominal_bits: mem,
                });
            }
        }
    }

    if raw.metrics.checkpoints.is_some() && raw.metrics.checkpoint_every.is_some() {
        return Err(err_at(
            file,
            source,
            whole.clone(),
            "checkpoint_every",
            "give either checkpoints or checkpoint_every, not both",
        ));
    }
    if raw.metrics.checkpoints == Some(0) || raw.metrics.checkpoint_every == Some(0) {
        return Err(err_at(
            file,
            source,
            whole.clone(),
            "checkpoints",
            "must be at least 1",
        ));
    }
    let labels: Vec<String> = cells.iter().map(|c| c.label.clone()).collect();
    crate::derived::validate(file, &raw.derived, &labels)?;
    let reference = raw.reference.as_ref().map(|r| {
        let base = file.parent().unwrap_or(Path::new("."));
        (base.join(&r.file), r.table.clone())
    });
    if let Some((path, _)) = &reference {
        if !path.is_file() {
            return Err(err_at(
                file,
                source,
                whole,
                "file",
                format!("reference file {} does not exist", path.display()),
            ));
        }
    }
    Ok(Experiment {
        file: file.to_path_buf(),
        source: source.to_string(),
        name: raw.name,
        description: raw.description,
        paper: raw.paper,
        reference,
        scale,
        streams,
        cells,
        checkpoint_every: raw.metrics.checkpoint_every.map(|c| (c / scale).max(1)),
        checkpoints: raw.metrics.checkpoints.unwrap_or(10),
        table: raw.output.table.unwrap_or_default(),
        charts: raw
            .output
            .charts
            .unwrap_or_else(|| vec![ChartKind::RatesVsLength, ChartKind::RatesVsMemory]),
        derived: raw.derived,
    })
}

/// The memory sizes an `[[algorithm]]` table's `memory` key restricts it to: a string or an
/// array of strings, each one of the grid's sizes.
fn restricted_memory(
    file: &Path,
    source: &str,
    span: &Range<usize>,
    value: &toml::Value,
    grid: &[u64],
) -> Result<Vec<u64>, ConfigError> {
    let items: Vec<&toml::Value> = match value {
        toml::Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    let mut out = Vec::new();
    for item in items {
        let Some(text) = item.as_str() else {
            return Err(err_at(
                file,
                source,
                span.clone(),
                "memory",
                "must be a memory size or an array of them (strings)",
            ));
        };
        let bits = parse_bits(text).map_err(|e| {
            err_at(
                file,
                source,
                span.clone(),
                "memory",
                format!("bad unit: {e}"),
            )
        })?;
        if !grid.contains(&bits) {
            return Err(err_at(
                file,
                source,
                span.clone(),
                "memory",
                format!("{text} is not one of [grid] memory"),
            ));
        }
        out.push(bits);
    }
    Ok(out)
}

/// The cartesian product of a table's array values (arrays of tables are kept whole).
fn expand(table: &toml::Table) -> Vec<toml::Table> {
    let mut out = vec![toml::Table::new()];
    for (k, v) in table {
        match v {
            toml::Value::Array(items)
                if !items.is_empty() && !items.iter().all(toml::Value::is_table) =>
            {
                let mut next = Vec::with_capacity(out.len() * items.len());
                for base in &out {
                    for item in items {
                        let mut t = base.clone();
                        t.insert(k.clone(), item.clone());
                        next.push(t);
                    }
                }
                out = next;
            }
            _ => {
                for t in &mut out {
                    t.insert(k.clone(), v.clone());
                }
            }
        }
    }
    out
}

fn render_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Experiment {
    /// Total elements over all cells (for progress and time estimates).
    pub fn total_elements(&self) -> Option<u64> {
        self.cells
            .iter()
            .map(|c| self.streams[c.stream].spec.declared_len())
            .sum()
    }
}
