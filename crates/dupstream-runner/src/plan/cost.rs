//! The one cost model: estimated time and memory of cells, ground truths, runs and shards.
//! `dupstream run` prints it, `dupstream estimate` sums it, the shard split balances by it and
//! Slurm requests memory by it.
//!
//! **Time**, single-threaded on an idle machine, per element:
//! - a cell: the runner's own work (generation, hashing, scoring: [`RUNNER_NS`]) plus the
//!   structure's relative cost ([`StructureSpec::relative_cost`](crate::plan::StructureSpec),
//!   1.0 ≈ a k=2 Bloom step) times [`CACHED_NS`] while its state fits in cache (≤
//!   [`CACHE_BITS`]) or [`DRAM_NS`] beyond, where every probe is a DRAM miss;
//! - a stream's ground truth: [`TRUTH_NS`].
//!
//! Calibrated on the `dupstream-filters` benchmark (BSBF family ≈ 26 ns, SBF ≈ 93 ns at
//! 512 MB). A replay declares no length: cells and ground truth alike count it as
//! [`UNKNOWN_LEN`] elements.
//!
//! **Memory**: the ground truth of the largest stream, plus `threads` of the largest
//! structures on it, plus batch buffers.

use crate::plan::{Cell, Experiment};
use dupstream_streams::{GroundTruth, StreamSpec, WindowTruth};
use std::collections::BTreeSet;

/// Runner work per element (ns): generation, hashing, scoring.
pub const RUNNER_NS: f64 = 8.0;
/// Per unit of relative cost (ns), while the structure fits in cache.
pub const CACHED_NS: f64 = 6.0;
/// Per unit of relative cost (ns), beyond the cache.
pub const DRAM_NS: f64 = 30.0;
/// Structures up to this many bits count as cached (8 MiB).
pub const CACHE_BITS: u64 = 8 << 23;
/// Ground-truth labelling per element (ns).
pub const TRUTH_NS: f64 = 10.0;
/// Length assumed for streams that do not declare one (replays).
pub const UNKNOWN_LEN: u64 = 1 << 24;
/// Elements handled per batch by a cell (its buffers are part of the memory estimate).
pub const BATCH: usize = 1 << 14;

/// The elements a stream is costed at: its declared length, or [`UNKNOWN_LEN`].
pub fn stream_len(spec: &StreamSpec) -> u64 {
    spec.declared_len().unwrap_or(UNKNOWN_LEN)
}

/// Estimated single-thread seconds of one cell.
pub fn cell_secs(exp: &Experiment, cell: &Cell) -> f64 {
    let n = stream_len(&exp.streams[cell.stream].spec) as f64;
    let per_cost = if cell.memory_bits > CACHE_BITS {
        DRAM_NS
    } else {
        CACHED_NS
    };
    n * (RUNNER_NS + per_cost * cell.filter.relative_cost(cell.memory_bits)) * 1e-9
}

/// Estimated seconds of a stream's ground truth, paid once by every run (or shard) with cells
/// on it.
pub fn truth_secs(exp: &Experiment, stream: usize) -> f64 {
    // A windowed truth (`[metrics] window`) is a second labelling pass of the same kind.
    let passes = if exp.window.is_some() { 2.0 } else { 1.0 };
    passes * stream_len(&exp.streams[stream].spec) as f64 * TRUTH_NS * 1e-9
}

/// Estimated single-thread seconds of a set of cells, ground truths included.
pub fn cells_secs(exp: &Experiment, cells: &[usize]) -> f64 {
    let streams: BTreeSet<usize> = cells.iter().map(|&i| exp.cells[i].stream).collect();
    cells
        .iter()
        .map(|&i| cell_secs(exp, &exp.cells[i]))
        .sum::<f64>()
        + streams.iter().map(|&s| truth_secs(exp, s)).sum::<f64>()
}

/// The estimated wall time of a run on `threads` threads: its cells' time shared by the
/// threads (at most one thread per cell), ground truths included.
pub fn run_secs(exp: &Experiment, threads: usize) -> f64 {
    let all: Vec<usize> = exp.cells.iter().map(|c| c.index).collect();
    cells_secs(exp, &all) / threads.min(all.len()).max(1) as f64
}

/// Whether some stream of the experiment is costed at the assumed [`UNKNOWN_LEN`].
pub fn has_unknown_len(exp: &Experiment) -> bool {
    exp.streams.iter().any(|s| s.spec.declared_len().is_none())
}

/// Peak memory (bytes) of running the experiment's cells on `threads` threads: per stream, its
/// ground truth plus the `threads` largest structures on it plus batch buffers; the largest
/// over the streams. Streams without cells (in a shard) cost nothing.
pub fn peak_bytes(exp: &Experiment, threads: usize) -> u64 {
    let mut peak = 0u64;
    for (si, case) in exp.streams.iter().enumerate() {
        let distinct_hint = distinct_hint(&case.spec);
        let mut filters: Vec<u64> = exp
            .cells
            .iter()
            .filter(|c| c.stream == si)
            .map(|c| c.filter.heap_bytes_estimate(c.memory_bits, distinct_hint))
            .collect();
        if filters.is_empty() {
            continue;
        }
        filters.sort_unstable_by(|a, b| b.cmp(a));
        let gt = GroundTruth::heap_bytes_estimate(&case.spec)
            + exp
                .window
                .map_or(0, |w| WindowTruth::heap_bytes_estimate(&case.spec, w));
        let running: u64 = filters.iter().take(threads).sum();
        let buffers = threads as u64 * (BATCH as u64 * 17) + (64 << 20);
        peak = peak.max(gt + running + buffers);
    }
    peak
}

/// Peak memory of running only `cells` (a shard).
pub fn cells_peak_bytes(exp: &Experiment, cells: &[usize], threads: usize) -> u64 {
    if cells.is_empty() {
        return 0;
    }
    peak_bytes(&exp.restrict(cells), threads)
}

fn distinct_hint(spec: &StreamSpec) -> u64 {
    spec.universe().or(spec.declared_len()).unwrap_or(1 << 26)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn exp(stream: &str) -> Experiment {
        let text = format!(
            "name = \"c\"\ndescription = \"d\"\n[stream]\n{stream}\n[grid]\nmemory = [\"1KB\", \"64MB\"]\n[[algorithm]]\nname = \"bloom\"\nk = 2\n"
        );
        crate::plan::parse(Path::new("c.toml"), &text, None).unwrap()
    }

    #[test]
    fn cells_cost_by_length_memory_and_structure() {
        let e = exp("kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5");
        let small = cell_secs(&e, &e.cells[0]);
        let large = cell_secs(&e, &e.cells[1]);
        assert!((small - 1e6 * (RUNNER_NS + CACHED_NS) * 1e-9).abs() < 1e-12);
        assert!((large - 1e6 * (RUNNER_NS + DRAM_NS) * 1e-9).abs() < 1e-12);
        assert!((truth_secs(&e, 0) - 1e6 * TRUTH_NS * 1e-9).abs() < 1e-12);
        let total = cells_secs(&e, &[0, 1]);
        assert!((total - (small + large + truth_secs(&e, 0))).abs() < 1e-12);
        assert!((run_secs(&e, 2) - total / 2.0).abs() < 1e-12);
        assert!(
            (run_secs(&e, 64) - total / 2.0).abs() < 1e-12,
            "one thread per cell"
        );
        assert!(!has_unknown_len(&e));
    }

    #[test]
    fn a_replay_costs_its_assumed_length_for_cells_and_truth_alike() {
        let file = std::env::temp_dir().join(format!("dupstream-cost-{}.txt", std::process::id()));
        std::fs::write(&file, "a\nb\na\n").unwrap();
        let e = exp(&format!(
            "kind = \"replay\"\nformat = \"lines\"\npath = {:?}",
            file.display().to_string()
        ));
        let _ = std::fs::remove_file(&file);
        assert!(has_unknown_len(&e));
        let n = UNKNOWN_LEN as f64;
        assert!((cell_secs(&e, &e.cells[0]) - n * (RUNNER_NS + CACHED_NS) * 1e-9).abs() < 1e-9);
        assert!((truth_secs(&e, 0) - n * TRUTH_NS * 1e-9).abs() < 1e-9);
    }

    #[test]
    fn memory_grows_with_threads_and_shards_cost_less() {
        let e = exp("kind = \"uniform\"\nn = 1_000_000\ndistinct_fraction = 0.5");
        let one = peak_bytes(&e, 1);
        let two = peak_bytes(&e, 2);
        assert!(two > one, "{two} vs {one}");
        assert!(cells_peak_bytes(&e, &[0], 1) < one);
        assert_eq!(cells_peak_bytes(&e, &[], 4), 0);
    }
}
