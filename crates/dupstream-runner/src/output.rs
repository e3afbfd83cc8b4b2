//! Result files: per-cell parts, `raw.csv`, `streams.csv`, `manifest.json`, `run.toml`.
//!
//! Every file is written to a temporary name in the same directory and renamed into place,
//! so an interruption never leaves a truncated file behind.

use crate::exec::CellTiming;
use crate::experiment::{Cell, Experiment, StreamCase};
use crate::units::format_bits;
use anyhow::{Context, Result};
use dupstream_filters::DuplicateFilter;
use dupstream_streams::{GroundTruth, StreamSpec};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One row of `raw.csv`: one cell at one checkpoint. Counts are cumulative from the start
/// of the stream; TP/FN are over duplicates, FP/TN over unseen elements.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RawRow {
    pub experiment: String,
    pub cell: usize,
    pub algorithm: String,
    pub label: String,
    pub params: String,
    pub k: String,
    pub memory: String,
    pub memory_nominal_bits: u64,
    pub memory_bits_budget: u64,
    pub memory_bits_used: u64,
    pub scale: u64,
    pub stream: String,
    pub n_nominal: u64,
    pub n: u64,
    pub distinct_target: Option<f64>,
    pub seed: u64,
    pub position: u64,
    pub tp: u64,
    pub fp: u64,
    pub tn: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
    pub unseen: u64,
    pub duplicates: u64,
    pub fpr: Option<f64>,
    pub fnr: Option<f64>,
    pub occupancy_kind: String,
    pub occupancy: f64,
}

/// The target distinct fraction of a stream spec, when it has one.
pub fn distinct_target(spec: &StreamSpec) -> Option<f64> {
    match spec {
        StreamSpec::Uniform {
            distinct_fraction, ..
        } => *distinct_fraction,
        _ => None,
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

/// Builds a row from a filter's state and the cumulative counts `[TN, FP, FN, TP]`.
pub fn raw_row(
    exp: &Experiment,
    cell: &Cell,
    filter: &dyn DuplicateFilter,
    n: u64,
    position: u64,
    counts: [u64; 4],
) -> RawRow {
    let case = &exp.streams[cell.stream];
    let [tn, fp, fn_, tp] = counts;
    let unseen = tn + fp;
    let duplicates = tp + fn_;
    let params = filter.params();
    let k = params
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case("k"))
        .map(|p| p.value.to_string())
        .unwrap_or_default();
    let occ = filter.occupancy();
    RawRow {
        experiment: exp.name.clone(),
        cell: cell.index,
        algorithm: filter.name().to_string(),
        label: cell.label.clone(),
        params: params
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(";"),
        k,
        memory: format_bits(cell.memory_nominal_bits),
        memory_nominal_bits: cell.memory_nominal_bits,
        memory_bits_budget: cell.memory_bits,
        memory_bits_used: filter.memory_bits(),
        scale: exp.scale,
        stream: stream_label(&case.nominal),
        n_nominal: case.nominal.declared_len().unwrap_or(n),
        n,
        distinct_target: distinct_target(&case.nominal),
        seed: case.seed,
        position,
        tp,
        fp,
        tn,
        fn_,
        unseen,
        duplicates,
        fpr: (unseen > 0).then(|| fp as f64 / unseen as f64),
        fnr: (duplicates > 0).then(|| fn_ as f64 / duplicates as f64),
        occupancy_kind: occ.kind.as_str().to_string(),
        occupancy: occ.value,
    }
}

/// One row of `streams.csv`: a stream's exact statistics.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StreamRow {
    pub stream_index: usize,
    pub stream: String,
    pub seed: u64,
    pub n: u64,
    pub distinct: u64,
    pub distinct_fraction: f64,
    pub distinct_target: Option<f64>,
    pub oracle: String,
    pub gap_sample_rate: f64,
    /// `j:count` pairs: gaps in `[2^j, 2^(j+1))`.
    pub gap_histogram: String,
    #[serde(skip)]
    pub truth_secs: f64,
}

pub fn stream_row(index: usize, case: &StreamCase, truth: &GroundTruth, secs: f64) -> StreamRow {
    let s = truth.stats();
    StreamRow {
        stream_index: index,
        stream: stream_label(&case.nominal),
        seed: case.seed,
        n: s.n,
        distinct: s.distinct,
        distinct_fraction: s.distinct_fraction,
        distinct_target: distinct_target(&case.nominal),
        oracle: s.oracle.as_str().to_string(),
        gap_sample_rate: s.gap_sample_rate,
        gap_histogram: s
            .gap_histogram
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(j, c)| format!("{j}:{c}"))
            .collect::<Vec<_>>()
            .join(" "),
        truth_secs: secs,
    }
}

/// Writes `bytes` to `path` atomically (temporary file in the same directory, then rename).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Serialises rows as CSV with a header.
pub fn csv_bytes<T: Serialize>(rows: &[T]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))
}

fn cell_paths(dir: &Path, cell: usize) -> (PathBuf, PathBuf) {
    let cells = dir.join("cells");
    (
        cells.join(format!("cell-{cell:05}.csv")),
        cells.join(format!("cell-{cell:05}.json")),
    )
}

/// Writes a finished cell: its timing first, then its rows (whose presence marks it done).
pub fn write_cell(dir: &Path, cell: usize, rows: &[RawRow], timing: &CellTiming) -> Result<()> {
    let (csv_path, json_path) = cell_paths(dir, cell);
    std::fs::create_dir_all(csv_path.parent().expect("cells dir"))?;
    atomic_write(&json_path, &serde_json::to_vec_pretty(timing)?)?;
    atomic_write(&csv_path, &csv_bytes(rows)?)?;
    Ok(())
}

/// The timing of a cell already finished in `dir`, if it is.
pub fn read_cell_timing(dir: &Path, cell: usize) -> Option<CellTiming> {
    let (csv_path, json_path) = cell_paths(dir, cell);
    if !csv_path.is_file() {
        return None;
    }
    serde_json::from_slice(&std::fs::read(json_path).ok()?).ok()
}

/// Reads rows from a CSV file.
pub fn read_rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (i, row) in r.deserialize().enumerate() {
        out.push(
            row.with_context(|| format!("{}: line {}: malformed row", path.display(), i + 2))?,
        );
    }
    Ok(out)
}

/// Concatenates every cell's rows, in cell order, into `raw.csv`.
pub fn write_raw(exp: &Experiment, dir: &Path) -> Result<Vec<RawRow>> {
    let mut all = Vec::new();
    for cell in &exp.cells {
        let (csv_path, _) = cell_paths(dir, cell.index);
        all.extend(read_rows::<RawRow>(&csv_path)?);
    }
    atomic_write(&dir.join("raw.csv"), &csv_bytes(&all)?)?;
    Ok(all)
}

/// `manifest.json`: what produced the results.
#[derive(Debug, Serialize)]
pub struct Manifest {
    pub experiment: String,
    pub description: String,
    pub experiment_file: String,
    pub experiment_sha: String,
    pub command: Vec<String>,
    pub git_revision: String,
    pub rustc: String,
    pub dupstream_version: String,
    pub machine: Machine,
    pub threads: usize,
    pub scale: u64,
    pub started_unix: u64,
    pub wall_secs_total: f64,
    pub peak_rss_bytes: Option<u64>,
    pub estimated_peak_bytes: u64,
    pub streams: Vec<ManifestStream>,
    pub cells: Vec<CellTiming>,
}

#[derive(Debug, Serialize)]
pub struct ManifestStream {
    pub stream: String,
    pub n: u64,
    pub distinct: u64,
    pub oracle: String,
    pub ground_truth_secs: f64,
}

#[derive(Debug, Serialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub cpu: Option<String>,
}

impl Machine {
    pub fn probe() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        });
        Self {
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes: meminfo("MemTotal:"),
            cpu,
        }
    }
}

/// A `/proc/meminfo` field in bytes.
pub fn meminfo(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Peak resident set of this process (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A short, stable digest of the experiment text (FNV-1a 64), to tie results to their input.
pub fn digest(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// `git rev-parse --short HEAD`, with `-dirty` if the tree has changes; `unknown` outside git.
/// Read once per process (the first call, made when a run starts), so a commit made while a long
/// run is going does not change the revision its results record.
pub fn git_revision() -> String {
    static REV: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    REV.get_or_init(read_git_revision).clone()
}

fn read_git_revision() -> String {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        }
        _ => "unknown".to_string(),
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
