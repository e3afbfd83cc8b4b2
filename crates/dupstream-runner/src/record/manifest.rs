//! `manifest.json`: what produced a results directory. A single run and a merge of shard
//! parts write the same record, built by [`Manifest::new`] from the run's [`Outcome`].

use crate::plan::Experiment;
use crate::record::probe::{BUILD_DATE, Machine, VERSION, git_revision};
use crate::record::{CellTiming, StreamRow};
use serde::{Deserialize, Serialize};

/// The compiler that built this binary.
pub const RUSTC: &str = env!("DUPSTREAM_RUSTC");

/// What produced results: the experiment as run and the build that ran it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Identity {
    pub experiment: String,
    pub experiment_file: String,
    /// [`crate::record::digest`] of the experiment as run (file, scale).
    pub experiment_sha: String,
    pub git_revision: String,
    pub dupstream_version: String,
    pub rustc: String,
}

impl Identity {
    /// This process running `exp`, whose digest is `digest`.
    pub fn of(exp: &Experiment, digest: &str) -> Self {
        Self {
            experiment: exp.name.clone(),
            experiment_file: exp.file.display().to_string(),
            experiment_sha: digest.to_string(),
            git_revision: git_revision(),
            dupstream_version: VERSION.to_string(),
            rustc: RUSTC.to_string(),
        }
    }
}

/// A stream's ground truth as computed by a run or a part.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ManifestStream {
    /// The stream's label, as in `streams.csv`.
    pub stream: String,
    /// Elements, as run.
    pub n: u64,
    /// Distinct keys, as run (exact).
    pub distinct: u64,
    /// How the ground truth was computed (`bitmap`, `hash_set`).
    pub oracle: String,
    /// Seconds to compute the stream's ground truth.
    pub ground_truth_secs: f64,
    /// Malformed lines a replay skipped (`bad_lines = "skip"`); 0 for generated streams.
    #[serde(default)]
    pub skipped_lines: u64,
    /// The first skipped lines' numbers (at most five).
    #[serde(default)]
    pub first_skipped_lines: Vec<u64>,
}

impl ManifestStream {
    /// The record of a stream from its `streams.csv` row.
    pub fn of(s: &StreamRow) -> Self {
        Self {
            stream: s.stream.clone(),
            n: s.n,
            distinct: s.distinct,
            oracle: s.oracle.clone(),
            ground_truth_secs: s.truth_secs,
            skipped_lines: s.skipped_lines,
            first_skipped_lines: s.first_skipped_lines(),
        }
    }
}

/// How a run (or the parts of a merged run, combined) went.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The machine, as read when the run (or the merge) started.
    pub machine: Machine,
    pub threads: usize,
    pub started_unix: u64,
    pub wall_secs: f64,
    /// The process's CPU time, every thread (`None`: not measured, or a merge of parts).
    pub cpu_secs: Option<f64>,
    /// The wall time the runner estimated before starting (a merge: its longest part's).
    pub estimated_secs: f64,
    pub peak_rss_bytes: Option<u64>,
    pub estimated_peak_bytes: u64,
    pub streams: Vec<ManifestStream>,
    pub cells: Vec<CellTiming>,
}

/// `manifest.json`.
#[derive(Debug, Serialize)]
pub struct Manifest {
    /// The experiment's `name`.
    pub experiment: String,
    /// The experiment's `description`.
    pub description: String,
    /// The experiment file as given (`run.toml` beside it holds its content).
    pub experiment_file: String,
    /// The digest of the experiment as run (as `.digest`).
    pub experiment_sha: String,
    /// The command line.
    pub command: Vec<String>,
    /// The revision the binary was built from.
    pub git_revision: String,
    /// The date the binary was built (UTC, `YYYY-MM-DD`).
    pub build_date: String,
    /// The compiler that built it.
    pub rustc: String,
    /// Its version.
    pub dupstream_version: String,
    /// The machine, as read when the run started.
    pub machine: Machine,
    /// Worker threads.
    pub threads: usize,
    /// The `--scale` divisor.
    pub scale: u64,
    /// Start time, seconds since 1970.
    pub started_unix: u64,
    /// Wall time of the whole run (a merge: its longest part).
    pub wall_secs_total: f64,
    /// CPU time of the run's process, every thread (`None` where not measured, and for a
    /// merged run); unlike the wall time it does not grow with other work on the machine.
    pub cpu_secs_total: Option<f64>,
    /// The wall time the runner estimated before starting (a merge: its longest part's).
    pub estimated_secs: f64,
    /// Peak resident memory of the process (Linux; a merge: its largest part).
    pub peak_rss_bytes: Option<u64>,
    /// The peak memory the runner estimated before starting.
    pub estimated_peak_bytes: u64,
    /// Each stream's ground truth.
    pub streams: Vec<ManifestStream>,
    /// Each cell's timing.
    pub cells: Vec<CellTiming>,
}

impl Manifest {
    /// The manifest of `exp` produced by `id`, as `outcome` went.
    pub fn new(exp: &Experiment, id: &Identity, outcome: Outcome) -> Self {
        Self {
            experiment: exp.name.clone(),
            description: exp.description.clone(),
            experiment_file: id.experiment_file.clone(),
            experiment_sha: id.experiment_sha.clone(),
            command: std::env::args().collect(),
            git_revision: id.git_revision.clone(),
            build_date: BUILD_DATE.to_string(),
            rustc: id.rustc.clone(),
            dupstream_version: id.dupstream_version.clone(),
            machine: outcome.machine,
            threads: outcome.threads,
            scale: exp.scale,
            started_unix: outcome.started_unix,
            wall_secs_total: outcome.wall_secs,
            cpu_secs_total: outcome.cpu_secs,
            estimated_secs: outcome.estimated_secs,
            peak_rss_bytes: outcome.peak_rss_bytes,
            estimated_peak_bytes: outcome.estimated_peak_bytes,
            streams: outcome.streams,
            cells: outcome.cells,
        }
    }
}
