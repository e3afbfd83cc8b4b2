//! The default name of a results directory: one rule for runs, resumed runs, Slurm sweeps
//! and shard parts.

use super::records::is_finished;
use crate::plan::Experiment;
use crate::record::probe::{git_revision, host_tag, today};
use std::path::{Path, PathBuf};

/// What a default directory is for (see [`ResultsDir::default_path`](crate::record::ResultsDir::default_path)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A new run.
    Run,
    /// The newest unfinished run of the same experiment, else a new one.
    Resume,
    /// A Slurm sweep: parts, scripts and the merged results (reused while unfinished).
    Slurm,
    /// Shard `index` of `count`.
    Part {
        /// `I`, from 0.
        index: usize,
        /// `N`, the number of shards.
        count: usize,
    },
}

/// The default directory of `exp` under `root`: the rule of
/// [`ResultsDir::default_path`](crate::record::ResultsDir::default_path).
pub(super) fn default_path(
    root: &Path,
    exp: &Experiment,
    digest: &str,
    purpose: Purpose,
) -> PathBuf {
    let base = root.join(&exp.name);
    if let Purpose::Part { index, count } = purpose {
        return base
            .join(format!("shards-{}-{}", git_revision(), &digest[..8]))
            .join(format!("shard-{index}-of-{count}"));
    }
    if purpose == Purpose::Resume
        && let Some(dir) = newest_unfinished(&base, digest)
    {
        return dir;
    }
    let mut name = format!("{}-{}-{}", today(), host_tag(), git_revision());
    if exp.scale != 1 {
        name.push_str(&format!("-scale{}", exp.scale));
    }
    if purpose == Purpose::Slurm {
        name.push_str("-slurm");
    }
    let usable = |p: &Path| {
        !p.exists() || purpose == Purpose::Slurm && holds_digest(p, digest) && !is_finished(p)
    };
    std::iter::once(base.join(&name))
        .chain((2..).map(|i| base.join(format!("{name}-{i}"))))
        .find(|p| usable(p))
        .expect("some free name")
}

fn holds_digest(dir: &Path, digest: &str) -> bool {
    std::fs::read_to_string(dir.join(".digest")).is_ok_and(|d| d.trim() == digest)
}

/// The newest unfinished run of an experiment (same digest) under `base`.
fn newest_unfinished(base: &Path, digest: &str) -> Option<PathBuf> {
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(base)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| !is_finished(p) && holds_digest(p, digest))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    candidates.sort();
    candidates.pop().map(|(_, p)| p)
}
