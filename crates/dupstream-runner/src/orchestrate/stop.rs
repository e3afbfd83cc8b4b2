//! A run stopped by a signal: what was kept, and the command that resumes it.

use crate::execute::Interrupted;
use crate::orchestrate::ShardSpec;
use crate::orchestrate::pipeline::Session;
use crate::plan::Experiment;
use crate::record::{CellState, ResultsDir};
use std::path::{Path, PathBuf};

/// A run stopped by a signal before it finished: one line saying what was kept and how to
/// resume. The process exits with 128 + the signal ([`Interrupted::exit_code`]).
#[derive(Debug, Clone)]
pub struct Stopped {
    /// The signal that stopped it.
    pub by: Interrupted,
    /// The results directory that keeps the finished cells.
    pub dir: PathBuf,
    /// Cells finished and kept in `dir`, of `cells`.
    pub kept: usize,
    /// Cells of the run (or of the shard).
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
