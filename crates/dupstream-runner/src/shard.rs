//! Sweeps that outgrow one machine: shard an experiment's grid cells over several runs (a
//! Slurm job array, or machines by hand), then merge the parts into the results a
//! single-machine run gives, byte for byte.
//!
//! - [`assign`] splits the cells into `N` shards, deterministically (every machine computes
//!   the same split from the experiment alone) and balanced by estimated cost: elements ×
//!   per-element time of the structure (`FilterSpec::relative_cost`, the model of `dupstream
//!   run`'s time estimate), plus the ground truth of each stream a shard needs.
//! - `dupstream run EXP --shard I/N` ([`run_shard`]) runs shard `I`'s cells, computing the ground
//!   truth of only the streams it has cells of, and writes a self-describing part: the per-cell
//!   files of `dupstream run` (`cells/`, so `--resume` works unchanged), `streams.csv` for its
//!   streams, `run.toml`, and last `shard.json`, which marks the part finished and records the
//!   experiment digest, git revision, `I/N` and the cell indices.
//! - `dupstream merge PARTS... --out DIR` ([`merge`]) checks the parts (one experiment digest,
//!   one revision, every shard present, each with exactly the cells the assignment gives it),
//!   gathers the cell files and runs the single-machine finalisation: `raw.csv` is the cells'
//!   rows in cell order, so it is identical to a single run's; so are `streams.csv`, the
//!   tables, the charts and `run.toml`. In the merged `manifest.json`, `wall_secs_total` is the
//!   longest shard's wall time; `shards.json` lists every part's host, job and timings.
//! - `dupstream slurm EXP --shards N` ([`slurm`]) writes `shard.sbatch` (the array task),
//!   `merge.sbatch` and `submit.sh` under `<out>/slurm/`, with a copy of this binary and of the
//!   experiment, so the compute nodes need nothing but the output directory.

use crate::exec::{self, CellTiming};
use crate::experiment::{self, Cell, Experiment};
use crate::output::{self, Machine, Manifest, ManifestStream, StreamRow};
use crate::progress::Progress;
use crate::run::{self, RunArgs};
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

pub const MERGE_EXAMPLES: &str = "\
Examples:
  dupstream run my.toml --shard 0/2 --out parts/0      (on one machine)
  dupstream run my.toml --shard 1/2 --out parts/1      (on another)
  dupstream merge parts/0 parts/1 --out results/my
  dupstream merge parts --out results/my               a directory of parts works too

The merged raw.csv is byte-identical to `dupstream run my.toml`'s. Parts from different
experiment files, scales or git revisions are refused; missing shards are named.";

pub const SLURM_EXAMPLES: &str = "\
Examples:
  dupstream slurm experiments/bera-journal/table7.toml --shards 16 --partition short --time 2:00:00
      writes <out>/slurm/{shard.sbatch,merge.sbatch,submit.sh}; run submit.sh to submit
  dupstream slurm my.toml --shards 4 --account proj42 --module rust --submit
  <out>/slurm/submit.sh        resubmit the shards that did not finish (they resume), then merge
  <out>/slurm/submit.sh 2      resubmit shard 2 only

Memory per task is dupstream's own peak estimate for the shard's cells (plus 20 % and 256 MiB),
unless --mem is given.";

/// The file that marks a shard part finished and describes it.
pub const SHARD_FILE: &str = "shard.json";

/// Per-element time (ns) of ground-truth labelling, relative to the structures' model.
const TRUTH_NS: f64 = 10.0;
/// Length assumed for streams that do not declare one (replays).
const UNKNOWN_LEN: u64 = 1 << 24;
const MIB: u64 = 1 << 20;

/// `I/N`: shard `I` (0-based) of `N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for ShardSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("expected I/N with 0 <= I < N, e.g. 0/4 (got `{s}`)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

fn stream_len(exp: &Experiment, stream: usize) -> f64 {
    exp.streams[stream]
        .spec
        .declared_len()
        .unwrap_or(UNKNOWN_LEN) as f64
}

/// Estimated single-thread seconds of a cell (the model `dupstream run` prints).
pub fn cell_cost(exp: &Experiment, cell: &Cell) -> f64 {
    exec::cell_secs(exp, cell)
}

/// Estimated seconds of a stream's ground truth, paid once by every shard with cells on it.
pub fn truth_cost(exp: &Experiment, stream: usize) -> f64 {
    stream_len(exp, stream) * TRUTH_NS * 1e-9
}

/// Work to place: some cells of one stream.
#[derive(Debug)]
struct Item {
    stream: usize,
    cells: Vec<usize>,
    cost: f64,
}

/// Greedy longest-processing-time placement of `items`: in decreasing cost (ties by first
/// cell), each goes to the shard whose load would be smallest after taking it, where a shard
/// that does not have the item's stream yet also pays that stream's ground truth (ties to the
/// lowest shard). Returns the shards' cells, the largest load and the number of ground truths.
fn place(exp: &Experiment, mut items: Vec<Item>, shards: usize) -> (Vec<Vec<usize>>, f64, usize) {
    items.sort_by(|a, b| b.cost.total_cmp(&a.cost).then(a.cells[0].cmp(&b.cells[0])));
    let mut load = vec![0.0f64; shards];
    let mut has: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); shards];
    let mut out = vec![Vec::new(); shards];
    for item in items {
        let truth = truth_cost(exp, item.stream);
        let after = |s: usize| {
            load[s]
                + item.cost
                + if has[s].contains(&item.stream) {
                    0.0
                } else {
                    truth
                }
        };
        let best = (0..shards)
            .min_by(|&a, &b| after(a).total_cmp(&after(b)).then(a.cmp(&b)))
            .expect("shards > 0");
        load[best] = after(best);
        has[best].insert(item.stream);
        out[best].extend(item.cells);
    }
    for v in &mut out {
        v.sort_unstable();
    }
    let truths = has.iter().map(BTreeSet::len).sum();
    (out, load.into_iter().fold(0.0, f64::max), truths)
}

/// The items of one candidate split: every cell alone (`fineness` None), or each stream's
/// cells in about `fineness` × (stream work / average shard work) groups (at least one),
/// formed greedily by cost, so that a stream's ground truth is paid by few shards.
fn items(exp: &Experiment, shards: usize, fineness: Option<f64>) -> Vec<Item> {
    let Some(fineness) = fineness else {
        return exp
            .cells
            .iter()
            .map(|c| Item {
                stream: c.stream,
                cells: vec![c.index],
                cost: cell_cost(exp, c),
            })
            .collect();
    };
    let all: Vec<usize> = (0..exp.cells.len()).collect();
    let target = estimated_secs(exp, &all) / shards as f64;
    let mut out = Vec::new();
    for s in 0..exp.streams.len() {
        let mut cells: Vec<(f64, usize)> = exp
            .cells
            .iter()
            .filter(|c| c.stream == s)
            .map(|c| (cell_cost(exp, c), c.index))
            .collect();
        if cells.is_empty() {
            continue;
        }
        cells.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let work = cells.iter().map(|c| c.0).sum::<f64>() + truth_cost(exp, s);
        let k = if target > 0.0 {
            ((fineness * work / target).ceil() as usize).clamp(1, cells.len())
        } else {
            1
        };
        let mut groups: Vec<Item> = (0..k)
            .map(|_| Item {
                stream: s,
                cells: Vec::new(),
                cost: 0.0,
            })
            .collect();
        for (cost, index) in cells {
            let g = (0..k)
                .min_by(|&a, &b| groups[a].cost.total_cmp(&groups[b].cost).then(a.cmp(&b)))
                .expect("k >= 1");
            groups[g].cells.push(index);
            groups[g].cost += cost;
        }
        out.extend(groups.into_iter().filter(|g| !g.cells.is_empty()));
    }
    out
}

/// Splits the cells into `shards` shards; returns each shard's cell indices, ascending.
///
/// Cost of a shard: its cells' [`cell_cost`] plus the [`truth_cost`] of each stream it has
/// cells of. Four greedy longest-processing-time splits are tried: cell by cell, and with
/// each stream's cells grouped into about 1, 2 or 4 groups per average shard's work (so
/// fewer shards pay a stream's ground truth); the one with the smallest largest load wins
/// (ties: fewer ground truths, then the earlier candidate). So shards are balanced by
/// estimated time, not by cell count: the cell-by-cell split alone keeps the largest load
/// within one cell and one ground truth of the average. Only sorting, additions and
/// comparisons of the same numbers in the same order: every machine computes the same split.
///
/// # Panics
/// If `shards` is zero.
pub fn assign(exp: &Experiment, shards: usize) -> Vec<Vec<usize>> {
    assert!(shards > 0, "at least one shard");
    let mut best: Option<(Vec<Vec<usize>>, f64, usize)> = None;
    for fineness in [None, Some(1.0), Some(2.0), Some(4.0)] {
        let cand = place(exp, items(exp, shards, fineness), shards);
        let better = match &best {
            None => true,
            Some((_, max, truths)) => cand.1 < *max || (cand.1 == *max && cand.2 < *truths),
        };
        if better {
            best = Some(cand);
        }
    }
    best.expect("one candidate").0
}

/// Estimated seconds of a set of cells on one thread, ground truth included.
pub fn estimated_secs(exp: &Experiment, cells: &[usize]) -> f64 {
    let streams: BTreeSet<usize> = cells.iter().map(|&i| exp.cells[i].stream).collect();
    cells
        .iter()
        .map(|&i| cell_cost(exp, &exp.cells[i]))
        .sum::<f64>()
        + streams.iter().map(|&s| truth_cost(exp, s)).sum::<f64>()
}

/// The experiment restricted to some cells (indices and streams unchanged).
pub fn restrict(exp: &Experiment, cells: &[usize]) -> Experiment {
    let keep: BTreeSet<usize> = cells.iter().copied().collect();
    let mut sub = exp.clone();
    sub.cells.retain(|c| keep.contains(&c.index));
    sub
}

/// Peak memory of a shard: `exec::estimate_peak_bytes` over its cells only.
pub fn estimate_shard_bytes(exp: &Experiment, cells: &[usize], threads: usize) -> u64 {
    if cells.is_empty() {
        return 0;
    }
    exec::estimate_peak_bytes(&restrict(exp, cells), threads)
}

/// The revision recorded in parts: `$DUPSTREAM_GIT_REVISION` when set (the Slurm scripts
/// fix it when they are written, as compute nodes may have no checkout), else `git`'s.
fn revision() -> String {
    std::env::var("DUPSTREAM_GIT_REVISION")
        .ok()
        .filter(|r| !r.trim().is_empty())
        .unwrap_or_else(output::git_revision)
}

fn hostname() -> String {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn cell_csv(dir: &Path, cell: usize) -> PathBuf {
    dir.join("cells").join(format!("cell-{cell:05}.csv"))
}

fn cell_json(dir: &Path, cell: usize) -> PathBuf {
    dir.join("cells").join(format!("cell-{cell:05}.json"))
}

/// A stream's ground truth as computed in a shard.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardStream {
    pub stream_index: usize,
    pub stream: String,
    pub n: u64,
    pub distinct: u64,
    pub oracle: String,
    pub ground_truth_secs: f64,
}

/// `shard.json`: what a part is and what produced it. Written last: its presence marks the
/// part finished.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardRecord {
    pub experiment: String,
    pub experiment_file: String,
    /// `output::digest` of the experiment as run (file, scale): parts merge only if equal.
    pub experiment_sha: String,
    pub git_revision: String,
    pub dupstream_version: String,
    pub rustc: String,
    pub scale: u64,
    pub shard: usize,
    pub shards: usize,
    /// Cells of this shard, ascending.
    pub cells: Vec<usize>,
    /// Streams whose ground truth this shard computed, ascending.
    pub streams: Vec<usize>,
    pub estimated_secs: f64,
    pub estimated_peak_bytes: u64,
    pub threads: usize,
    pub host: String,
    /// `$SLURM_ARRAY_JOB_ID_$SLURM_ARRAY_TASK_ID` or `$SLURM_JOB_ID`, when run by Slurm.
    pub slurm_job: Option<String>,
    pub machine: serde_json::Value,
    pub command: Vec<String>,
    pub started_unix: u64,
    pub wall_secs: f64,
    pub peak_rss_bytes: Option<u64>,
    pub stream_stats: Vec<ShardStream>,
    pub timings: Vec<CellTiming>,
}

fn slurm_job() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("SLURM_ARRAY_JOB_ID"), var("SLURM_ARRAY_TASK_ID")) {
        (Some(j), Some(t)) => Some(format!("{j}_{t}")),
        _ => var("SLURM_JOB_ID"),
    }
}

fn read_record(part: &Path) -> Result<ShardRecord> {
    let path = part.join(SHARD_FILE);
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{}: malformed", path.display()))
}

/// Default part directory: stable across days and machines for one experiment and revision,
/// so parts run by hand land in the same relative place.
fn default_part_dir(root: &Path, exp: &Experiment, digest: &str, shard: ShardSpec) -> PathBuf {
    root.join(&exp.name)
        .join(format!("shards-{}-{}", revision(), &digest[..8]))
        .join(format!("shard-{}-of-{}", shard.index, shard.count))
}

/// `dupstream run EXP --shard I/N`.
pub fn run_shard(args: &RunArgs, shard: ShardSpec) -> Result<()> {
    let wall = Instant::now();
    let started_unix = unix_now();
    let exp = experiment::load(&args.experiment, args.scale)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let plan = assign(&exp, shard.count);
    let mine = &plan[shard.index];
    let sub = restrict(&exp, mine);
    let estimate = estimate_shard_bytes(&exp, mine, threads);
    if let Some(avail) = output::meminfo("MemAvailable:") {
        if estimate > avail {
            bail!(
                "shard {shard} needs about {:.1} GiB ({threads} threads) but only {:.1} GiB is available; use fewer --threads, more shards or a larger --scale",
                estimate as f64 / (1u64 << 30) as f64,
                avail as f64 / (1u64 << 30) as f64
            );
        }
    }
    let digest = output::digest(&run::run_toml(&exp, None)?);
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| default_part_dir(&args.results_root, &exp, &digest, shard));
    if let Ok(old) = std::fs::read_to_string(dir.join(".digest")) {
        if old.trim() != digest {
            bail!(
                "{} holds a part of a different experiment or scale; choose another --out",
                dir.display()
            );
        }
    }
    if dir.join(SHARD_FILE).exists() {
        if !args.resume {
            bail!(
                "{} already holds finished shard part; use --resume to keep it or choose another --out",
                dir.display()
            );
        }
        // A requeued task whose part is complete has nothing to do.
        if let Ok(rec) = read_record(&dir) {
            if rec.experiment_sha == digest
                && rec.shards == shard.count
                && rec.shard == shard.index
                && rec.cells == *mine
                && mine.iter().all(|&c| cell_csv(&dir, c).is_file())
            {
                eprintln!(
                    "dupstream: shard {shard} of {} is already finished in {}",
                    exp.name,
                    dir.display()
                );
                return Ok(());
            }
        }
        std::fs::remove_file(dir.join(SHARD_FILE))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    output::atomic_write(&dir.join(".digest"), digest.as_bytes())?;
    let streams: BTreeSet<usize> = sub.cells.iter().map(|c| c.stream).collect();
    let est_secs = estimated_secs(&exp, mine);
    eprintln!(
        "dupstream: {} shard {shard} — {} of {} cells, {} of {} streams, scale {}, {threads} threads; estimated peak memory {:.2} GiB, estimated time {:.0} s",
        exp.name,
        mine.len(),
        exp.cells.len(),
        streams.len(),
        exp.streams.len(),
        exp.scale,
        estimate as f64 / (1u64 << 30) as f64,
        est_secs / threads.min(mine.len().max(1)) as f64,
    );
    eprintln!("dupstream: writing part to {}", dir.display());

    let progress = Progress::new(sub.total_elements().unwrap_or(0), args.quiet);
    let (timings, stream_rows) = exec::run_all(&sub, &dir, threads, &progress)?;
    progress.finish();
    output::atomic_write(&dir.join("streams.csv"), &output::csv_bytes(&stream_rows)?)?;
    run::write_inputs(&exp, &dir)?;
    let record = ShardRecord {
        experiment: exp.name.clone(),
        experiment_file: exp.file.display().to_string(),
        experiment_sha: digest,
        git_revision: revision(),
        dupstream_version: env!("CARGO_PKG_VERSION").to_string(),
        rustc: env!("DUPSTREAM_RUSTC").to_string(),
        scale: exp.scale,
        shard: shard.index,
        shards: shard.count,
        cells: mine.clone(),
        streams: streams.iter().copied().collect(),
        estimated_secs: est_secs,
        estimated_peak_bytes: estimate,
        threads,
        host: hostname(),
        slurm_job: slurm_job(),
        machine: serde_json::to_value(Machine::probe())?,
        command: std::env::args().collect(),
        started_unix,
        wall_secs: wall.elapsed().as_secs_f64(),
        peak_rss_bytes: output::peak_rss(),
        stream_stats: stream_rows
            .iter()
            .map(|s| ShardStream {
                stream_index: s.stream_index,
                stream: s.stream.clone(),
                n: s.n,
                distinct: s.distinct,
                oracle: s.oracle.clone(),
                ground_truth_secs: s.truth_secs,
            })
            .collect(),
        timings: timings.clone(),
    };
    output::atomic_write(&dir.join(SHARD_FILE), &serde_json::to_vec_pretty(&record)?)?;
    if !args.quiet {
        for t in &timings {
            eprintln!(
                "{:>5}  {:<32} {:>10.2} s{}",
                t.cell,
                t.label,
                t.wall_secs,
                if t.resumed { "  (resumed)" } else { "" }
            );
        }
    }
    let resumed = timings.iter().filter(|t| t.resumed).count();
    eprintln!(
        "dupstream: shard {shard} finished in {:.1} s ({} cells run, {resumed} resumed); part in {}",
        record.wall_secs,
        timings.len() - resumed,
        dir.display()
    );
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard parts (directories written by `dupstream run --shard`), or directories holding them.
    #[arg(required = true, value_name = "PARTS")]
    pub parts: Vec<PathBuf>,
    /// Where to write the merged results.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Print no table or summary.
    #[arg(long, short)]
    pub quiet: bool,
}

fn is_part(p: &Path) -> bool {
    p.join(SHARD_FILE).is_file() || p.join(".digest").is_file() || p.join("cells").is_dir()
}

/// The part directories named by the arguments (a directory of parts stands for its parts).
fn expand_parts(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in args {
        if is_part(p) {
            out.push(p.clone());
            continue;
        }
        let entries = std::fs::read_dir(p).with_context(|| format!("reading {}", p.display()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|c| c.is_dir() && is_part(c))
            .collect();
        if found.is_empty() {
            bail!("{}: not a shard part and holds none", p.display());
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn list_shards(idx: &[usize], n: usize) -> String {
    idx.iter()
        .map(|i| format!("{i}/{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `dupstream merge PARTS... --out DIR`.
pub fn merge(args: MergeArgs) -> Result<()> {
    let parts = expand_parts(&args.parts)?;
    let mut finished: Vec<(PathBuf, ShardRecord)> = Vec::new();
    let mut unfinished = Vec::new();
    for p in parts {
        if p.join(SHARD_FILE).is_file() {
            let rec = read_record(&p)?;
            finished.push((p, rec));
        } else {
            unfinished.push(p);
        }
    }
    if finished.is_empty() {
        bail!(
            "no finished shard part among {} (parts without {SHARD_FILE} are still running or were interrupted)",
            unfinished
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    finished.sort_by_key(|(_, r)| r.shard);
    let (first_path, first) = finished[0].clone();
    for (p, r) in &finished[1..] {
        if r.experiment_sha != first.experiment_sha {
            bail!(
                "{}: part of a different experiment file or scale ({} `{}`, digest {}) than {} ({} `{}`, digest {}); refusing to merge",
                p.display(),
                r.experiment,
                r.experiment_file,
                r.experiment_sha,
                first_path.display(),
                first.experiment,
                first.experiment_file,
                first.experiment_sha
            );
        }
        if r.git_revision != first.git_revision {
            bail!(
                "{}: run at git revision {}, but {} at {}; refusing to merge parts of different revisions",
                p.display(),
                r.git_revision,
                first_path.display(),
                first.git_revision
            );
        }
        if r.shards != first.shards {
            bail!(
                "{}: shard {}/{}, but {} is shard {}/{}; refusing to merge different splits",
                p.display(),
                r.shard,
                r.shards,
                first_path.display(),
                first.shard,
                first.shards
            );
        }
    }
    let n = first.shards;
    let mut by_shard: BTreeMap<usize, (PathBuf, ShardRecord)> = BTreeMap::new();
    for (p, r) in finished {
        if let Some((q, s)) = by_shard.get(&r.shard) {
            if s.cells != r.cells {
                bail!(
                    "{} and {} both claim shard {}/{n} with different cells",
                    q.display(),
                    p.display(),
                    r.shard
                );
            }
            eprintln!(
                "dupstream: {} duplicates shard {}/{n} of {}; using the latter",
                p.display(),
                r.shard,
                q.display()
            );
            continue;
        }
        by_shard.insert(r.shard, (p, r));
    }
    let missing: Vec<usize> = (0..n).filter(|i| !by_shard.contains_key(i)).collect();
    if !missing.is_empty() {
        let unf = if unfinished.is_empty() {
            String::new()
        } else {
            format!(
                "; unfinished parts (no {SHARD_FILE}): {}",
                unfinished
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        bail!(
            "missing shard{} {} of experiment {} (have {} of {n}){unf}; run them (`dupstream run {} --shard I/{n} --resume`) and merge again",
            if missing.len() == 1 { "" } else { "s" },
            list_shards(&missing, n),
            first.experiment,
            n - missing.len(),
            first.experiment_file,
        );
    }
    for p in &unfinished {
        eprintln!(
            "dupstream: ignoring {} (unfinished, and every shard has a finished part)",
            p.display()
        );
    }

    // The experiment, as recorded by the parts; its split must be the parts' split.
    let exp = experiment::load(&first_path.join("run.toml"), None)?;
    if exp.name != first.experiment || exp.scale != first.scale {
        bail!(
            "{}: run.toml does not match its {SHARD_FILE}",
            first_path.display()
        );
    }
    let plan = assign(&exp, n);
    for (i, (p, r)) in &by_shard {
        if plan[*i] != r.cells {
            bail!(
                "{}: its cells are not those this dupstream assigns to shard {i}/{n}; merge with the dupstream that ran the shards",
                p.display()
            );
        }
        let absent: Vec<usize> = r
            .cells
            .iter()
            .copied()
            .filter(|&c| !cell_csv(p, c).is_file() || !cell_json(p, c).is_file())
            .collect();
        if !absent.is_empty() {
            bail!(
                "{}: cell file(s) missing for cell(s) {:?} of shard {i}/{n}",
                p.display(),
                absent
            );
        }
    }

    // Gather into the output directory, then finish exactly as a single run does.
    let out = &args.out;
    if let Ok(old) = std::fs::read_to_string(out.join(".digest")) {
        if old.trim() != first.experiment_sha {
            bail!(
                "{} holds results of a different experiment or scale; choose another --out",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out.join("cells"))
        .with_context(|| format!("creating {}", out.display()))?;
    output::atomic_write(&out.join(".digest"), first.experiment_sha.as_bytes())?;
    let mut timings = Vec::new();
    let mut stream_rows: BTreeMap<usize, StreamRow> = BTreeMap::new();
    let mut stream_stats: BTreeMap<usize, ShardStream> = BTreeMap::new();
    for (p, r) in by_shard.values() {
        for &c in &r.cells {
            for (from, to) in [
                (cell_csv(p, c), cell_csv(out, c)),
                (cell_json(p, c), cell_json(out, c)),
            ] {
                let bytes =
                    std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
                output::atomic_write(&to, &bytes)?;
            }
        }
        timings.extend(r.timings.iter().cloned());
        for row in output::read_rows::<StreamRow>(&p.join("streams.csv"))? {
            stream_rows.entry(row.stream_index).or_insert(row);
        }
        for s in &r.stream_stats {
            stream_stats
                .entry(s.stream_index)
                .or_insert_with(|| s.clone());
        }
    }
    timings.sort_by_key(|t| t.cell);
    if let Some(s) = (0..exp.streams.len()).find(|s| !stream_rows.contains_key(s)) {
        bail!("no part computed the ground truth of stream {s}, which has cells");
    }
    let rows = output::write_raw(&exp, out)?;
    let streams: Vec<StreamRow> = stream_rows.into_values().collect();
    output::atomic_write(&out.join("streams.csv"), &output::csv_bytes(&streams)?)?;
    if exp.reference.is_some() {
        let name = "paper-values.csv";
        output::atomic_write(&out.join(name), &std::fs::read(first_path.join(name))?)?;
    }
    output::atomic_write(
        &out.join("run.toml"),
        &std::fs::read(first_path.join("run.toml"))?,
    )?;
    let md = run::finish_outputs(&exp, out, &rows)?;

    let records: Vec<&ShardRecord> = by_shard.values().map(|(_, r)| r).collect();
    let manifest = Manifest {
        experiment: exp.name.clone(),
        description: exp.description.clone(),
        experiment_file: first.experiment_file.clone(),
        experiment_sha: first.experiment_sha.clone(),
        command: std::env::args().collect(),
        git_revision: first.git_revision.clone(),
        rustc: first.rustc.clone(),
        dupstream_version: first.dupstream_version.clone(),
        machine: Machine::probe(),
        threads: records.iter().map(|r| r.threads).max().unwrap_or(1),
        scale: exp.scale,
        started_unix: records.iter().map(|r| r.started_unix).min().unwrap_or(0),
        wall_secs_total: records.iter().map(|r| r.wall_secs).fold(0.0, f64::max),
        peak_rss_bytes: records.iter().filter_map(|r| r.peak_rss_bytes).max(),
        estimated_peak_bytes: records
            .iter()
            .map(|r| r.estimated_peak_bytes)
            .max()
            .unwrap_or(0),
        streams: stream_stats
            .values()
            .map(|s| ManifestStream {
                stream: s.stream.clone(),
                n: s.n,
                distinct: s.distinct,
                oracle: s.oracle.clone(),
                ground_truth_secs: s.ground_truth_secs,
            })
            .collect(),
        cells: timings.clone(),
    };
    output::atomic_write(
        &out.join("manifest.json"),
        &serde_json::to_vec_pretty(&manifest)?,
    )?;
    let shards_json = serde_json::json!({
        "experiment": exp.name,
        "experiment_sha": first.experiment_sha,
        "git_revision": first.git_revision,
        "shards": n,
        "merged_unix": unix_now(),
        "wall_secs_max": manifest.wall_secs_total,
        "wall_secs_sum": records.iter().map(|r| r.wall_secs).sum::<f64>(),
        "parts": by_shard.iter().map(|(i, (p, r))| serde_json::json!({
            "shard": i,
            "part": p.display().to_string(),
            "host": r.host,
            "slurm_job": r.slurm_job,
            "cells": r.cells.len(),
            "streams": r.streams,
            "threads": r.threads,
            "estimated_secs": r.estimated_secs,
            "wall_secs": r.wall_secs,
            "estimated_peak_bytes": r.estimated_peak_bytes,
            "peak_rss_bytes": r.peak_rss_bytes,
            "resumed_cells": r.timings.iter().filter(|t| t.resumed).count(),
        })).collect::<Vec<_>>(),
    });
    output::atomic_write(
        &out.join("shards.json"),
        &serde_json::to_vec_pretty(&shards_json)?,
    )?;
    if !args.quiet {
        println!("{md}");
        run::summary(&timings, &manifest);
    }
    eprintln!(
        "dupstream: merged {n} shard(s) of {} into {}",
        exp.name,
        out.display()
    );
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct SlurmArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Number of shards (array tasks).
    #[arg(long, value_name = "N")]
    pub shards: usize,
    /// As `dupstream run --scale`.
    #[arg(long, value_name = "F")]
    pub scale: Option<u64>,
    /// Output directory, shared with the compute nodes: parts go to <DIR>/shards, scripts and
    /// logs to <DIR>/slurm, merged results to <DIR> (default: results/<experiment>/<date>-<rev>[-scale<F>]-slurm).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Root of the default output directory.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results_root: PathBuf,
    /// Slurm partition (sbatch --partition).
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Slurm account to charge (sbatch --account).
    #[arg(long, value_name = "A")]
    pub account: Option<String>,
    /// Quality of service (sbatch --qos).
    #[arg(long, value_name = "Q")]
    pub qos: Option<String>,
    /// Time limit per shard task (sbatch --time, e.g. 2:00:00).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// Time limit of the merge job.
    #[arg(long, value_name = "T")]
    pub merge_time: Option<String>,
    /// CPUs per shard task; the task runs that many threads.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub cpus_per_task: usize,
    /// Memory per shard task, the same for all (sbatch --mem, e.g. 8G), instead of
    /// dupstream's per-shard estimate.
    #[arg(long, value_name = "M")]
    pub mem: Option<String>,
    /// Memory of the merge job.
    #[arg(long, value_name = "M", default_value = "2G")]
    pub merge_mem: String,
    /// Environment module to load in every job (repeatable), e.g. --module gcc.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// A shell line run before dupstream in every job (repeatable).
    #[arg(long = "setup", value_name = "LINE")]
    pub setup: Vec<String>,
    /// Extra `#SBATCH` option for every job (repeatable), e.g. --sbatch-option=--constraint=avx2.
    #[arg(long = "sbatch-option", value_name = "OPT", allow_hyphen_values = true)]
    pub sbatch_options: Vec<String>,
    /// Submit: run the generated submit.sh (sbatch must be on PATH).
    #[arg(long)]
    pub submit: bool,
}

/// Parses a Slurm memory size (`4096`, `512M`, `8G`, `1T`; default unit MiB) into MiB.
pub fn parse_slurm_mem(s: &str) -> Result<u64> {
    let t = s.trim();
    let (num, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, "M"),
    };
    let v: u64 = num
        .parse()
        .with_context(|| format!("bad memory size `{s}` (e.g. 4096, 512M, 8G)"))?;
    let mib = match unit.to_ascii_uppercase().as_str() {
        "K" | "KB" => v.div_ceil(1024),
        "M" | "MB" => v,
        "G" | "GB" => v.saturating_mul(1024),
        "T" | "TB" => v.saturating_mul(1 << 20),
        _ => bail!("bad memory size `{s}` (e.g. 4096, 512M, 8G)"),
    };
    if mib == 0 {
        bail!("memory size `{s}` is zero (Slurm reads --mem=0 as the whole node)");
    }
    Ok(mib)
}

/// The memory request (MiB) for an estimate: 20 % and 256 MiB on top (binary, allocator,
/// page cache of the stream), rounded up to 256 MiB so shards share requests.
pub fn mem_request_mib(estimate_bytes: u64) -> u64 {
    let want = estimate_bytes
        .saturating_add(estimate_bytes / 5)
        .div_ceil(MIB)
        + 256;
    want.div_ceil(256) * 256
}

/// Single-quotes a string for the shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn sh_path(p: &Path) -> String {
    sh(&p.display().to_string())
}

/// Where the experiment (and its reference file) are copied so the compute nodes need only
/// the output directory. The file name is kept (it is part of the experiment's digest);
/// a reference file reached through leading `..` gets matching directory levels.
fn stage_experiment(
    exp: &Experiment,
    raw_reference: Option<&str>,
    input: &Path,
) -> Result<PathBuf> {
    let name = exp
        .file
        .file_name()
        .context("the experiment path has no file name")?;
    let mut base = input.to_path_buf();
    if let Some(r) = raw_reference {
        let rel = Path::new(r);
        let ups = rel
            .components()
            .take_while(|c| matches!(c, Component::ParentDir))
            .count();
        let clean = rel
            .components()
            .skip(ups)
            .all(|c| matches!(c, Component::Normal(_)));
        if rel.is_absolute() || !clean {
            // Absolute or `a/../b`: keep pointing at the original (must be visible to the nodes).
            eprintln!(
                "dupstream: the reference file `{r}` is not copied; the experiment is used from {}",
                exp.file.display()
            );
            return Ok(std::path::absolute(&exp.file)?);
        }
        for i in 0..ups {
            base = base.join(format!("up{i}"));
        }
    }
    std::fs::create_dir_all(&base)?;
    let staged = base.join(name);
    output::atomic_write(&staged, exp.source.as_bytes())?;
    if let (Some(r), Some((path, _))) = (raw_reference, &exp.reference) {
        let to = base.join(r);
        std::fs::create_dir_all(to.parent().unwrap_or(&base))?;
        output::atomic_write(
            &to,
            &std::fs::read(path).with_context(|| format!("reading {}", path.display()))?,
        )?;
    }
    Ok(staged)
}

fn default_slurm_dir(args: &SlurmArgs, exp: &Experiment, digest: &str) -> PathBuf {
    let base = args.results_root.join(&exp.name);
    let mut name = format!("{}-{}", output::today(), output::git_revision());
    if exp.scale != 1 {
        name.push_str(&format!("-scale{}", exp.scale));
    }
    name.push_str("-slurm");
    let usable = |p: &Path| {
        !p.exists()
            || std::fs::read_to_string(p.join(".digest")).is_ok_and(|d| d.trim() == digest)
                && !p.join("raw.csv").exists()
    };
    let first = base.join(&name);
    if usable(&first) {
        return first;
    }
    (2..)
        .map(|i| base.join(format!("{name}-{i}")))
        .find(|p| usable(p))
        .expect("some free name")
}

/// `dupstream slurm EXP --shards N`.
pub fn slurm(args: SlurmArgs) -> Result<()> {
    let exp = experiment::load(&args.experiment, args.scale)?;
    let n = args.shards;
    if n == 0 {
        bail!("--shards must be at least 1");
    }
    if n > exp.cells.len() {
        bail!(
            "--shards {n} exceeds the experiment's {} cells; use at most {}",
            exp.cells.len(),
            exp.cells.len()
        );
    }
    let cpus = args.cpus_per_task.max(1);
    let fixed_mem = args.mem.as_deref().map(parse_slurm_mem).transpose()?;
    let merge_mem = parse_slurm_mem(&args.merge_mem)?;
    for (opt, v) in [("--time", &args.time), ("--merge-time", &args.merge_time)] {
        if let Some(v) = v {
            if v.trim().is_empty() || v.contains(char::is_whitespace) {
                bail!("{opt} `{v}` is not a Slurm time (e.g. 2:00:00 or 1-00:00:00)");
            }
        }
    }
    let digest = output::digest(&run::run_toml(&exp, None)?);
    let rev = output::git_revision();
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => default_slurm_dir(&args, &exp, &digest),
    };
    let dir = std::path::absolute(&dir)?;
    if dir.display().to_string().contains(char::is_whitespace) {
        bail!(
            "{}: #SBATCH lines cannot hold paths with spaces; choose another --out",
            dir.display()
        );
    }
    if let Ok(old) = std::fs::read_to_string(dir.join(".digest")) {
        if old.trim() != digest {
            bail!(
                "{} holds results of a different experiment or scale; choose another --out",
                dir.display()
            );
        }
    }
    let slurm_dir = dir.join("slurm");
    let shards_dir = dir.join("shards");
    std::fs::create_dir_all(slurm_dir.join("logs"))
        .with_context(|| format!("creating {}", slurm_dir.display()))?;
    std::fs::create_dir_all(&shards_dir)?;
    output::atomic_write(&dir.join(".digest"), digest.as_bytes())?;

    // The binary and the experiment travel in the output directory.
    let exe = std::env::current_exe().context("locating the dupstream binary")?;
    let bin = slurm_dir.join("bin").join("dupstream");
    if std::fs::canonicalize(&exe).ok() != std::fs::canonicalize(&bin).ok() {
        std::fs::create_dir_all(bin.parent().expect("bin dir"))?;
        let tmp = bin.with_extension("partial");
        std::fs::copy(&exe, &tmp).with_context(|| format!("copying {}", exe.display()))?;
        std::fs::rename(&tmp, &bin)?;
    }
    let raw_reference: Option<String> =
        toml::from_str::<toml::Table>(&exp.source)
            .ok()
            .and_then(|t| {
                t.get("reference")?
                    .get("file")?
                    .as_str()
                    .map(str::to_string)
            });
    let staged = stage_experiment(&exp, raw_reference.as_deref(), &slurm_dir.join("input"))?;

    // The split and each shard's memory request.
    let plan = assign(&exp, n);
    let mut mems = Vec::with_capacity(n);
    let mut secs = Vec::with_capacity(n);
    for cells in &plan {
        let est = estimate_shard_bytes(&exp, cells, cpus);
        let req = fixed_mem.unwrap_or_else(|| mem_request_mib(est));
        if req.saturating_mul(MIB) < est {
            eprintln!(
                "dupstream: warning: --mem {} MiB is below the estimate of {:.0} MiB for some shard",
                req,
                est as f64 / MIB as f64
            );
        }
        mems.push(req);
        secs.push(estimated_secs(&exp, cells) / cpus.min(cells.len().max(1)) as f64);
    }

    let common = |lines: &mut String, time: Option<&String>| {
        for (k, v) in [
            ("partition", args.partition.as_ref()),
            ("account", args.account.as_ref()),
            ("qos", args.qos.as_ref()),
            ("time", time),
        ] {
            if let Some(v) = v {
                let _ = writeln!(lines, "#SBATCH --{k}={v}");
            }
        }
        for o in &args.sbatch_options {
            let _ = writeln!(lines, "#SBATCH {o}");
        }
    };
    let prologue = {
        let mut s = String::from("set -euo pipefail\n");
        for m in &args.modules {
            let _ = writeln!(s, "module load {m}");
        }
        for l in &args.setup {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(
            s,
            "# The revision the parts record (compute nodes may have no checkout).\nexport DUPSTREAM_GIT_REVISION={}",
            sh(&rev)
        );
        s
    };
    let logs = slurm_dir.join("logs");

    let mut shard_sh = format!(
        "#!/usr/bin/env bash\n\
         # One shard of the dupstream sweep `{name}` ({n} shards): array task I runs shard I/{n}.\n\
         # Generated by `dupstream slurm` at revision {rev}; submit with submit.sh, which sets\n\
         # each shard's memory request. A requeued or resubmitted task resumes its shard:\n\
         # finished cells are kept in {shards}/shard-I-of-{n}/cells.\n\
         #SBATCH --job-name=dupstream-{name}\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --mem={maxmem}M\n\
         #SBATCH --requeue\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output={logs}/shard-%a.log\n",
        name = exp.name,
        last = n - 1,
        maxmem = mems.iter().max().copied().unwrap_or(1024),
        shards = shards_dir.display(),
        logs = logs.display(),
    );
    common(&mut shard_sh, args.time.as_ref());
    shard_sh.push_str(&prologue);
    let _ = write!(
        shard_sh,
        "i=${{SLURM_ARRAY_TASK_ID:?run as a job array task (submit.sh)}}\n\
         echo \"dupstream shard $i/{n} on $(hostname) (job ${{SLURM_JOB_ID:-?}}, restart ${{SLURM_RESTART_COUNT:-0}}) at $(date -u +%FT%TZ)\"\n\
         exec {bin} run {exp} --scale {scale} --shard \"$i/{n}\" --threads \"${{SLURM_CPUS_PER_TASK:-{cpus}}}\" \\\n    \
         --out {shards}/\"shard-$i-of-{n}\" --resume --quiet\n",
        bin = sh_path(&bin),
        exp = sh_path(&staged),
        scale = exp.scale,
        shards = sh_path(&shards_dir),
    );

    let mut merge_sh = format!(
        "#!/usr/bin/env bash\n\
         # Merges the {n} shard parts of the dupstream sweep `{name}` into {dir}.\n\
         # Generated by `dupstream slurm` at revision {rev}; submit.sh submits it after the shards.\n\
         #SBATCH --job-name=dupstream-{name}-merge\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --mem={merge_mem}M\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output={logs}/merge-%j.log\n",
        name = exp.name,
        dir = dir.display(),
        logs = logs.display(),
    );
    common(&mut merge_sh, args.merge_time.as_ref());
    merge_sh.push_str(&prologue);
    let _ = writeln!(
        merge_sh,
        "exec {bin} merge {shards}/shard-*-of-{n} --out {dir}",
        bin = sh_path(&bin),
        shards = sh_path(&shards_dir),
        dir = sh_path(&dir),
    );

    let mut plan_lines = String::new();
    for (i, cells) in plan.iter().enumerate() {
        let _ = writeln!(
            plan_lines,
            "#   shard {i}: {:>4} cells, ~{:.1} s on {cpus} CPU(s), --mem={}M",
            cells.len(),
            secs[i],
            mems[i]
        );
    }
    let submit_sh = format!(
        r#"#!/usr/bin/env bash
# Submits the dupstream sweep `{name}` ({n} shards) to Slurm: the shards as job array tasks
# (one array per memory request), then a merge job that runs once they all succeed.
# Generated by `dupstream slurm` at revision {rev}; regenerate rather than edit.
#   ./submit.sh         every shard without a finished part (all of them the first time)
#   ./submit.sh 2 5     only shards 2 and 5
# A killed or failed shard keeps its finished cells: resubmitting it resumes, and the other
# shards are not rerun. The pending merge job of an earlier submission cancels itself when
# a shard it waits for fails (--kill-on-invalid-dep).
# The split (estimated cost from dupstream's model):
{plan_lines}set -euo pipefail
slurm_dir={slurm_dir}
shards_dir={shards_dir}
n={n}
# Memory request per shard in MiB: dupstream's peak estimate for the shard's cells + 20 % + 256 MiB.
mem=({mems})
if [ $# -gt 0 ]; then
    tasks=("$@")
else
    tasks=()
    for ((i = 0; i < n; i++)); do
        if [ -f "$shards_dir/shard-$i-of-$n/{shard_file}" ]; then
            echo "shard $i/$n: finished, not resubmitted"
        else
            tasks+=("$i")
        fi
    done
fi
declare -A groups=()
for t in "${{tasks[@]}}"; do
    if ! [[ $t =~ ^[0-9]+$ ]] || ((t >= n)); then
        echo "submit.sh: there is no shard $t (0..$((n - 1)))" >&2
        exit 2
    fi
    m=${{mem[$t]}}
    groups[$m]="${{groups[$m]:+${{groups[$m]}},}}$t"
done
deps=""
for m in $(printf '%s\n' "${{!groups[@]}}" | sort -n); do
    id=$(sbatch --parsable --array="${{groups[$m]}}" --mem="${{m}}M" "$slurm_dir/shard.sbatch")
    id=${{id%%;*}}
    echo "shards ${{groups[$m]}}: job array $id (--mem=${{m}}M)"
    deps="$deps:$id"
done
if [ -n "$deps" ]; then
    merge=$(sbatch --parsable --dependency="afterok$deps" --kill-on-invalid-dep=yes "$slurm_dir/merge.sbatch")
else
    merge=$(sbatch --parsable "$slurm_dir/merge.sbatch")
fi
merge=${{merge%%;*}}
echo "merge: job $merge${{deps:+ (afterok$deps)}}"
echo "$(date -u +%FT%TZ) arrays=${{deps#:}} merge=$merge" >>"$slurm_dir/jobs.log"
echo "results: {dir}  (logs in $slurm_dir/logs)"
"#,
        name = exp.name,
        slurm_dir = sh_path(&slurm_dir),
        shards_dir = sh_path(&shards_dir),
        mems = mems
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        shard_file = SHARD_FILE,
        dir = dir.display(),
    );
    let write_exec = |path: &Path, text: &str| -> Result<()> {
        output::atomic_write(path, text.as_bytes())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(())
    };
    write_exec(&slurm_dir.join("shard.sbatch"), &shard_sh)?;
    write_exec(&slurm_dir.join("merge.sbatch"), &merge_sh)?;
    let submit = slurm_dir.join("submit.sh");
    write_exec(&submit, &submit_sh)?;

    let longest = secs.iter().copied().fold(0.0, f64::max);
    eprintln!(
        "dupstream: {} — {} cells in {n} shards; longest shard ~{longest:.0} s on {cpus} CPU(s) (estimate), memory requests {}..{} MiB",
        exp.name,
        exp.cells.len(),
        mems.iter().min().copied().unwrap_or(0),
        mems.iter().max().copied().unwrap_or(0),
    );
    if args.time.is_none() {
        eprintln!(
            "dupstream: no --time given: the partition's default time limit applies (estimate above; allow a margin)"
        );
    }
    println!("{}", submit.display());
    if args.submit {
        let status = std::process::Command::new("bash")
            .arg(&submit)
            .status()
            .with_context(|| format!("running {}", submit.display()))?;
        if !status.success() {
            bail!("{} failed ({status})", submit.display());
        }
    } else {
        eprintln!("dupstream: submit with {}", submit.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const EXP: &str = r#"name = "shard-unit"
description = "unit test of the shard split"

[stream]
kind = "uniform"
n = [1_000_000, 100_000_000]
distinct_fraction = 0.5

[grid]
memory = ["1Mbit", "8Mbit", "1GB"]
seeds = [1, 2, 3]

[[algorithm]]
name = "exact"

[[algorithm]]
name = "bloom"
k = 3

[[algorithm]]
name = "sbf"
p = 4
"#;

    fn exp() -> Experiment {
        experiment::parse(Path::new("unit.toml"), EXP, None).expect("valid experiment")
    }

    fn loads(exp: &Experiment, plan: &[Vec<usize>]) -> Vec<f64> {
        plan.iter().map(|c| estimated_secs(exp, c)).collect()
    }

    #[test]
    fn every_cell_in_exactly_one_shard() {
        let exp = exp();
        for n in 1..=exp.cells.len() + 3 {
            let plan = assign(&exp, n);
            assert_eq!(plan.len(), n);
            let mut all: Vec<usize> = plan.iter().flatten().copied().collect();
            all.sort_unstable();
            let want: Vec<usize> = (0..exp.cells.len()).collect();
            assert_eq!(all, want, "{n} shards");
            for s in &plan {
                assert!(s.windows(2).all(|w| w[0] < w[1]), "shard cells ascending");
            }
        }
    }

    #[test]
    fn split_is_deterministic() {
        let a = exp();
        let b = exp();
        for n in [1, 2, 3, 4, 7, 16] {
            assert_eq!(assign(&a, n), assign(&b, n));
        }
    }

    #[test]
    fn split_is_balanced_by_cost_not_by_count() {
        let exp = exp();
        // 54 cells over 6 streams; cells cost from 5 ms (bloom, 1 Mbit, 10^6 elements) to
        // 5.6 s (exact, 1 GB, 10^8 elements).
        let max_cell = exp
            .cells
            .iter()
            .map(|c| cell_cost(&exp, c))
            .fold(0.0, f64::max);
        let truths: Vec<f64> = (0..exp.streams.len())
            .map(|s| truth_cost(&exp, s))
            .collect();
        let max_truth = truths.iter().copied().fold(0.0, f64::max);
        let cells_total: f64 = exp.cells.iter().map(|c| cell_cost(&exp, c)).sum();
        let all: Vec<usize> = (0..exp.cells.len()).collect();
        let once = estimated_secs(&exp, &all);
        for n in [2, 3, 4, 8] {
            let plan = assign(&exp, n);
            let l = loads(&exp, &plan);
            let hi = l.iter().copied().fold(0.0, f64::max);
            // Proven bound (the cell-by-cell greedy candidate): when the fullest shard took
            // its last cell it was the emptiest, so hi <= average + one cell + one truth,
            // where the average counts at most every truth on every shard.
            let bound = cells_total / n as f64 + truths.iter().sum::<f64>() + max_cell + max_truth;
            assert!(hi <= bound, "{n} shards: loads {l:?}, bound {bound}");
            // With few shards, within 10 % of a perfect split of the work with every ground
            // truth paid once (a lower bound on any split's largest load). With 8 shards the
            // 3 large streams' truths must be paid on about 9 shards, so that bound is loose.
            if n <= 4 {
                assert!(hi <= once / n as f64 * 1.10, "{n} shards: loads {l:?}");
            }
        }
        // Not by count: with 4 shards the shard with the largest cells holds fewer of them.
        let plan = assign(&exp, 4);
        let counts: Vec<usize> = plan.iter().map(Vec::len).collect();
        assert!(
            counts.iter().max() > counts.iter().min(),
            "balanced by count: {counts:?}"
        );
        // And better than dealing the cells out round-robin.
        let n = 4;
        let rr: Vec<Vec<usize>> = (0..n)
            .map(|s| (0..exp.cells.len()).filter(|c| c % n == s).collect())
            .collect();
        let worst = |l: Vec<f64>| l.into_iter().fold(0.0, f64::max);
        assert!(worst(loads(&exp, &plan)) < worst(loads(&exp, &rr)));
    }

    #[test]
    fn ground_truth_is_not_repeated_needlessly() {
        // Two equal streams of cheap cells, two shards: one stream per shard is optimal (each
        // ground truth computed once). Cell-by-cell greedy alone would deal both streams over
        // both shards and pay every ground truth twice.
        let text = EXP
            .replace("n = [1_000_000, 100_000_000]", "n = 1_000_000")
            .replace("seeds = [1, 2, 3]", "seeds = [1, 2]")
            .replace("[\"1Mbit\", \"8Mbit\", \"1GB\"]", "[\"1Mbit\", \"2Mbit\"]");
        let exp = experiment::parse(Path::new("unit.toml"), &text, None).unwrap();
        let plan = assign(&exp, 2);
        for s in &plan {
            let streams: BTreeSet<usize> = s.iter().map(|&c| exp.cells[c].stream).collect();
            assert_eq!(streams.len(), 1, "{plan:?}");
        }
        let by_cell = place(&exp, items(&exp, 2, None), 2);
        assert_eq!(
            by_cell.2, 4,
            "the cell-by-cell candidate pays both truths twice"
        );
    }

    #[test]
    fn shard_memory_estimate_covers_only_its_cells() {
        let exp = exp();
        let full = exec::estimate_peak_bytes(&exp, 1);
        let plan = assign(&exp, 8);
        let per: Vec<u64> = plan
            .iter()
            .map(|c| estimate_shard_bytes(&exp, c, 1))
            .collect();
        assert!(per.iter().all(|&b| b <= full), "{per:?} vs {full}");
        // The small stream's cells below 1 GB need neither the 10^8-element ground truth,
        // nor its exact set, nor a 1 GB structure: far less than the whole experiment.
        let small: Vec<usize> = exp
            .cells
            .iter()
            .filter(|c| exp.streams[c.stream].spec.declared_len() == Some(1_000_000))
            .filter(|c| c.memory_bits < 1 << 33)
            .map(|c| c.index)
            .collect();
        let b = estimate_shard_bytes(&exp, &small, 1);
        assert!(b < full / 2, "{b} vs {full}");
        assert_eq!(estimate_shard_bytes(&exp, &[], 4), 0);
    }

    #[test]
    fn shard_spec_parses() {
        assert_eq!(
            "3/4".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 3, count: 4 })
        );
        for bad in ["4/4", "1/0", "x", "1", "-1/4", "1/4/5", ""] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn memory_requests() {
        assert_eq!(parse_slurm_mem("8G").unwrap(), 8192);
        assert_eq!(parse_slurm_mem("4096").unwrap(), 4096);
        assert_eq!(parse_slurm_mem("512M").unwrap(), 512);
        assert!(parse_slurm_mem("0").is_err());
        assert!(parse_slurm_mem("8 parsecs").is_err());
        assert_eq!(mem_request_mib(0), 256);
        assert_eq!(mem_request_mib(1 << 30), 1536);
        assert!(mem_request_mib(3 << 30) as f64 * MIB as f64 >= 1.2 * (3u64 << 30) as f64);
    }
}
