//! Stage 5, distribution: every way a run is carried out. [`pipeline`] is the one open →
//! execute → finish path; [`run`] takes it on one machine; sweeps that outgrow one machine
//! are split into shards ([`assign`](mod@assign)), each run as a part ([`part`]), and merged into the
//! results a single run gives, byte for byte ([`merge`]); [`slurm`] writes the job scripts
//! that do all that on a cluster.

pub mod assign;
pub mod merge;
pub mod part;
pub mod pipeline;
pub mod slurm;

pub use assign::{ShardSpec, assign};
pub use pipeline::{Inputs, Print, Session};

use crate::execute::Interrupted;
use crate::plan::{Experiment, Registry, cost};
use crate::record::{CellState, Purpose, ResultsDir};
use anyhow::Result;
use pipeline::gib;
use std::path::{Path, PathBuf};

/// What `dupstream run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub experiment: PathBuf,
    pub scale: Option<u64>,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    pub resume: bool,
    pub results_root: PathBuf,
    pub quiet: bool,
    pub shard: Option<ShardSpec>,
    /// Print the end-of-run summary as JSON on stdout instead of the table.
    pub json: bool,
}

/// `dupstream run`: the whole experiment on this machine (or one shard of it).
/// SIGINT or SIGTERM stop it cleanly: every finished cell is kept, nothing else is written,
/// and the error is [`Stopped`], saying how to resume.
pub fn run(opts: &RunOptions, registry: &Registry) -> Result<()> {
    let session =
        Session::open(&opts.experiment, opts.scale, opts.threads, registry)?.stop_on_signals()?;
    if let Some(shard) = opts.shard {
        let args = part::PartArgs {
            shard,
            out: opts.out.clone(),
            results_root: opts.results_root.clone(),
            resume: opts.resume,
            quiet: opts.quiet,
        };
        return part::run(&session, &args);
    }
    let exp = &session.exp;
    let estimate =
        session.check_memory(exp, "this run", "use fewer --threads or a larger --scale")?;
    let purpose = if opts.resume {
        Purpose::Resume
    } else {
        Purpose::Run
    };
    let path = opts.out.clone().unwrap_or_else(|| {
        ResultsDir::default_path(&opts.results_root, exp, &session.digest, purpose)
    });
    // The lock comes first: nothing in the directory is read before it is held.
    let dir = ResultsDir::open(&path, &session.digest)?;
    if ResultsDir::has_finished_run(&path) && !opts.resume {
        return Err(crate::plan::refuse(format!(
            "{} already holds a finished run; choose another --out",
            path.display()
        )));
    }
    let est_secs = session.estimate_secs(exp, &dir);
    if opts.resume && !opts.quiet {
        let left = session.pending(exp, &dir).len();
        eprintln!(
            "dupstream: resuming: {} of {} cells finished, {left} to run",
            exp.cells.len() - left,
            exp.cells.len()
        );
    }
    let time = if cost::has_unknown_len(exp) {
        format!(
            "~{est_secs:.0} s (a replay's length is unknown: counted as {} elements)",
            cost::UNKNOWN_LEN
        )
    } else {
        format!("{est_secs:.0} s")
    };
    if !opts.quiet {
        eprintln!(
            "dupstream: {} — {} cells, {} streams, scale {}, {} threads; estimated peak memory {:.2} GiB, estimated time {time}",
            exp.name,
            exp.cells.len(),
            exp.streams.len(),
            exp.scale,
            session.threads,
            gib(estimate),
        );
        eprintln!("dupstream: writing to {}", path.display());
    }
    let stopped = |e| stopped(e, &session, &dir, exp, None);
    let ran = session.execute(exp, &dir, opts.quiet).map_err(stopped)?;
    let outcome = || session.outcome(estimate, est_secs, &ran);
    let print = match (opts.json, opts.quiet) {
        (true, _) => Print::Json,
        (false, true) => Print::Table,
        (false, false) => Print::TableAndSummary,
    };
    session
        .finish(&dir, &ran, Inputs::Write, outcome, |_| Ok(()), print)
        .map_err(stopped)?;
    if !opts.quiet {
        eprintln!("dupstream: results in {}", path.display());
    }
    Ok(())
}

/// A run stopped by a signal before it finished: one line saying what was kept and how to
/// resume. The process exits with 128 + the signal ([`Interrupted::exit_code`]).
#[derive(Debug, Clone)]
pub struct Stopped {
    pub by: Interrupted,
    pub dir: PathBuf,
    /// Cells finished and kept in `dir`, of `cells`.
    pub kept: usize,
    pub cells: usize,
    /// The command that resumes the run.
    pub resume: String,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} of {} cells finished and kept in {}; resume with: {}",
            self.by,
            self.kept,
            self.cells,
            self.dir.display(),
            self.resume
        )
    }
}

impl std::error::Error for Stopped {}

/// `e` as [`Stopped`] when it is an [`Interrupted`] (of a run of `cells` into `dir`, shard
/// `shard` if any); any other error unchanged.
pub(crate) fn stopped(
    e: anyhow::Error,
    session: &Session,
    dir: &ResultsDir,
    cells: &Experiment,
    shard: Option<ShardSpec>,
) -> anyhow::Error {
    let Some(&by) = e.downcast_ref::<Interrupted>() else {
        return e;
    };
    let kept = cells
        .cells
        .iter()
        .filter(|c| {
            matches!(
                dir.cell_state(c.index, &session.digest, cells.scale),
                CellState::Done(_)
            )
        })
        .count();
    Stopped {
        by,
        dir: dir.path().to_path_buf(),
        kept,
        cells: cells.cells.len(),
        resume: resume_command(&session.exp.file, session.exp.scale, shard, dir.path()),
    }
    .into()
}

/// The command line that resumes a run of `file` at `scale` into `out`: this program as it
/// was invoked, every word quoted for a POSIX shell where needed.
pub fn resume_command(file: &Path, scale: u64, shard: Option<ShardSpec>, out: &Path) -> String {
    let program = std::env::args()
        .next()
        .unwrap_or_else(|| "dupstream".into());
    let mut words = vec![
        program,
        "run".into(),
        file.display().to_string(),
        "--resume".into(),
        "--scale".into(),
        scale.to_string(),
    ];
    if let Some(s) = shard {
        words.extend(["--shard".into(), s.to_string()]);
    }
    words.extend(["--out".into(), out.display().to_string()]);
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `w` as one word for a POSIX shell: as is when it holds only safe characters, else in
/// single quotes.
fn shell_word(w: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c);
    if !w.is_empty() && w.chars().all(safe) {
        w.to_string()
    } else {
        sh(w)
    }
}

/// Single-quotes a string for a POSIX shell.
pub(crate) fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_commands_quote_what_a_shell_would_split() {
        assert_eq!(shell_word("results/a-1/x.toml"), "results/a-1/x.toml");
        assert_eq!(shell_word("my dir"), "'my dir'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        let cmd = resume_command(
            Path::new("exp.toml"),
            64,
            Some(ShardSpec { index: 1, count: 4 }),
            Path::new("out dir"),
        );
        assert!(
            cmd.ends_with(" run exp.toml --resume --scale 64 --shard 1/4 --out 'out dir'"),
            "{cmd}"
        );
    }
}
