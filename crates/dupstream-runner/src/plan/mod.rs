//! Stage 1, the plan: an experiment file read, validated and expanded into its grid of cells,
//! with everything known before a run starts: seeds, units, the cost model, the structures
//! an experiment may name.
//!
//! Raw TOML → `RawExperiment` (`schema.rs`) → validated [`Experiment`] (`validate/`). Any
//! value given as an array in `[stream]` or in an `[[algorithm]]` table is swept (the
//! cartesian product of all arrays); `[grid]` holds the memory sizes and the seeds. An
//! `[[algorithm]]` table's `memory` key (a size or an array of sizes from the grid) is not
//! swept: it restricts that structure to those sizes (e.g. a Bloom filter whose `k` depends
//! on the memory). `[[derived]]` tables add series computed from measured ones
//! (`report/derived.rs`). Every error names the file, line and key, and is found
//! before any work starts.

pub(crate) mod catalogue;
pub mod cost;
mod error;
mod experiment;
#[allow(unsafe_code)]
pub(crate) mod heap;
pub mod registry;
pub(crate) mod schema;
pub mod seeds;
pub(crate) mod units;
pub(crate) mod validate;

pub use error::{BadInput, ConfigError, refuse};
pub use experiment::{Cell, Experiment, Sizing, StreamCase, distinct_target, stream_label};
pub use registry::{BuildError, CustomStructure, Registry, StructureSpec};
pub use schema::{ChartKind, ChartSpec, DerivedKind, DerivedSpec, Dim, ErrorMetric, TableLayout};

use std::path::{Path, PathBuf};

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
    catalogue::read_to_string(file)
        .map_err(|e| refused(format!("cannot read experiment file: {e}")))
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
    parse_with(file, source, scale_override, &Registry::builtin())
}

/// Validates experiment text whose structures `registry` knows; `file` is where the text
/// came from (its errors name it).
pub fn parse_with(
    file: &Path,
    source: &str,
    scale_override: Option<u64>,
    registry: &Registry,
) -> Result<Experiment, ConfigError> {
    validate::parse(file, source, scale_override, registry)
}

/// The most worker threads `--threads` may ask for.
pub(crate) const MAX_THREADS: usize = 1024;

/// The worker threads of a run of `cells` cells: `requested`, else every core; never more
/// than there are cells (a note says so when `--threads` asked for more). `--threads 0` or
/// above [`MAX_THREADS`] is refused.
pub(crate) fn threads(
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

/// Every `*.toml` under `path` (or `path` itself when it is a file), sorted. A `*.toml` that
/// is not a regular file (a pipe, a device, a broken link) is skipped with a warning: reading
/// it could block forever. A `path` that does not exist or cannot be read is refused
/// ([`BadInput`], exit 2). A path under `experiments/` that is not on disk lists the
/// catalogue compiled into the binary ([`catalogue`]).
pub(crate) fn experiment_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if let Some(files) = catalogue::experiment_files(path) {
        return Ok(files);
    }
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
