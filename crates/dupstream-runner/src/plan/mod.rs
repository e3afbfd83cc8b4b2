//! Stage 1, the plan: an experiment file read, validated and expanded into its grid of cells,
//! with everything known before a run starts: seeds, units, the cost model, the structures
//! an experiment may name.
//!
//! Raw TOML → [`RawExperiment`] ([`schema`]) → validated [`Experiment`] ([`validate`]). Any
//! value given as an array in `[stream]` or in an `[[algorithm]]` table is swept (the
//! cartesian product of all arrays); `[grid]` holds the memory sizes and the seeds. An
//! `[[algorithm]]` table's `memory` key (a size or an array of sizes from the grid) is not
//! swept: it restricts that structure to those sizes (e.g. a Bloom filter whose `k` depends
//! on the memory). `[[derived]]` tables add series computed from measured ones
//! ([`crate::report::derived`]). Every error names the file, line and key, and is found
//! before any work starts.

pub mod cost;
pub mod error;
pub mod registry;
pub mod schema;
pub mod seeds;
pub mod units;
pub mod validate;

pub use error::{BadInput, ConfigError, refuse};
pub use registry::{CustomStructure, Registry, StructureSpec};
pub use schema::{
    ChartKind, ChartSpec, DerivedKind, DerivedSpec, Dim, ErrorMetric, RawExperiment, TableLayout,
};

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
}

impl StreamCase {
    /// The stream's label for tables and charts ([`stream_label`]), with its arrival process
    /// as written when it has one (`time=mmpp time_burst_rate=8000 …`).
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
    pub index: usize,
    pub stream: usize,
    pub filter: Arc<dyn StructureSpec>,
    /// Display label (`label` key, or the name plus swept parameters).
    pub label: String,
    /// The configuration: the label plus the values of the keys its `[[algorithm]]` table
    /// sweeps, as written (`BSBF k=2`); equal to `label` when nothing is swept or the label
    /// was generated from the swept values. Charts, comparisons and summaries group by it.
    pub config: String,
    /// The swept keys' values as written (unscaled), `(key, value)` in the table's order.
    pub swept: Vec<(String, String)>,
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
    /// `[metrics] window` (scaled): also score against the windowed truth.
    pub window: Option<u64>,
    /// `[metrics] window_seconds` (scaled): also score against the windowed truth of a time
    /// window (the streams are timestamped).
    pub window_seconds: Option<f64>,
    /// `[metrics] warmup` (scaled): a checkpoint there, from which interval rates are taken.
    pub warmup: Option<u64>,
    pub table: TableLayout,
    pub charts: Vec<ChartSpec>,
    pub derived: Vec<DerivedSpec>,
    /// Doubts that do not stop a run (e.g. a repeated seed), one line each, for stderr.
    pub warnings: Vec<String>,
}

/// Reads and validates an experiment file naming built-in structures. `scale_override` is
/// `--scale`.
pub fn load(file: &Path, scale_override: Option<u64>) -> Result<Experiment, ConfigError> {
    load_with(file, scale_override, &Registry::builtin())
}

/// Reads and validates an experiment file whose structures `registry` knows.
pub fn load_with(
    file: &Path,
    scale_override: Option<u64>,
    registry: &Registry,
) -> Result<Experiment, ConfigError> {
    validate::parse(file, &read(file)?, scale_override, registry)
}

/// The text of an experiment file; a file that is not a regular one (a FIFO, whose reading
/// could block forever) is refused.
fn read(file: &Path) -> Result<String, ConfigError> {
    let refused = |msg: String| ConfigError::new(file, None, None, msg);
    if std::fs::metadata(file).is_ok_and(|m| !m.is_file()) {
        return Err(refused(
            "not a regular file (a directory, a pipe or a device?); give an experiment file".into(),
        ));
    }
    std::fs::read_to_string(file).map_err(|e| refused(format!("cannot read experiment file: {e}")))
}

/// Reads back the experiment a results directory recorded (its `run.toml`) without opening
/// the input it replayed: a run's charts, report and merge need only its directory.
pub fn load_recorded(file: &Path, registry: &Registry) -> Result<Experiment, ConfigError> {
    validate::parse_with(file, &read(file)?, None, registry, false)
}

/// Validates experiment text naming built-in structures (see [`load`]).
pub fn parse(
    file: &Path,
    source: &str,
    scale_override: Option<u64>,
) -> Result<Experiment, ConfigError> {
    validate::parse(file, source, scale_override, &Registry::builtin())
}

/// The most worker threads `--threads` may ask for.
pub const MAX_THREADS: usize = 1024;

/// The worker threads of a run of `cells` cells: `requested`, else every core; never more
/// than there are cells (a note says so when `--threads` asked for more). `--threads 0` or
/// above [`MAX_THREADS`] is refused.
pub fn threads(
    requested: Option<usize>,
    cells: usize,
) -> Result<(usize, Option<String>), ConfigError> {
    let arg = |msg: String| ConfigError::new(Path::new("--threads"), None, None, msg);
    let n = match requested {
        Some(0) => return Err(arg("must be at least 1".into())),
        Some(n) if n > MAX_THREADS => {
            return Err(arg(format!(
                "{n} is more than {MAX_THREADS} threads; give at most the number of cores"
            )));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let cap = cells.max(1);
    if n > cap {
        let note = requested.map(|_| format!("--threads {n} capped at {cap}, the number of cells"));
        return Ok((cap, note));
    }
    Ok((n, None))
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
        if let Some(w) = self.warmup.filter(|&w| w > 0 && w < n) {
            if let Err(i) = v.binary_search(&w) {
                v.insert(i, w);
            }
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

/// Every `*.toml` under `path` (or `path` itself when it is a file), sorted. A `*.toml` that
/// is not a regular file (a pipe, a device, a broken link) is skipped with a warning: reading
/// it could block forever. A `path` that does not exist or cannot be read is refused
/// ([`BadInput`], exit 2).
pub fn experiment_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|x| x == "toml") {
                if p.is_file() {
                    out.push(p);
                } else {
                    eprintln!(
                        "dupstream: warning: {} is not a regular file; skipped",
                        p.display()
                    );
                }
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => out.push(path.to_path_buf()),
        Ok(m) if m.is_dir() => {
            walk(path, &mut out).map_err(|e| refuse(format!("reading {}: {e}", path.display())))?
        }
        Ok(_) => {
            return Err(refuse(format!(
                "{}: not a regular file or a directory (a pipe or a device?)",
                path.display()
            )));
        }
        Err(e) => return Err(refuse(format!("{}: {e}", path.display()))),
    }
    out.sort();
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_end_at_the_stream_end() {
        let text = "name = \"c\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n[metrics]\ncheckpoints = 4\n";
        let e = parse(Path::new("c.toml"), text, None).unwrap();
        assert_eq!(e.checkpoints(1000), vec![250, 500, 750, 1000]);
        assert_eq!(e.checkpoints(2), vec![1, 2]);
        let every = text.replace("checkpoints = 4", "checkpoint_every = 300");
        let e = parse(Path::new("c.toml"), &every, None).unwrap();
        assert_eq!(e.checkpoints(1000), vec![300, 600, 900, 1000]);
        let warm = every.replace("[metrics]\n", "[metrics]\nwarmup = 450\n");
        let e = parse(Path::new("c.toml"), &warm, None).unwrap();
        assert_eq!(e.checkpoints(1000), vec![300, 450, 600, 900, 1000]);
        let e = parse(Path::new("c.toml"), &warm.replace("450", "600"), None).unwrap();
        assert_eq!(
            e.checkpoints(1000),
            vec![300, 600, 900, 1000],
            "already one"
        );
        let bad = parse(Path::new("c.toml"), &warm.replace("450", "0"), None).unwrap_err();
        assert_eq!(bad.key.as_deref(), Some("metrics.warmup"));
        assert_eq!(
            e.stream_labels(),
            vec!["uniform distinct_fraction=0.5 n=1000"]
        );
        assert_eq!(e.restrict(&[]).cells.len(), 0);
    }
}
