//! Stage 6, the command line: one file per subcommand, each a short handler that parses its
//! arguments and calls the stages below. [`main`] is the `dupstream` binary; [`main_with`]
//! is the same command with a user's structures registered.

mod check;
mod compare;
mod completions;
mod docs;
mod estimate;
mod leaderboard;
mod list;
mod merge;
mod migrate;
mod plot;
mod report;
mod run;
mod slurm;
mod theory;
mod timing;

use crate::execute::Interrupted;
use crate::orchestrate::Stopped;
use crate::plan::{BadInput, ConfigError, Registry};
use crate::record::Locked;
use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The examples `dupstream --help` and `dupstream run --help` share.
macro_rules! run_examples {
    () => {
        "  dupstream run experiments/bera-journal/table7.toml --scale 64
      Bera et al. Table 7 at 1/64 of the paper's stream length and memory (about a minute)
  dupstream run experiments/bera-journal/table7.toml
      the same at full scale: every cell over 10^9 elements
  dupstream run my.toml --threads 2 --out results/mine
  dupstream run my.toml --resume            continue an interrupted run
"
    };
}

/// The exit codes, at the end of every help.
macro_rules! exit_codes {
    () => {
        "Exit codes: 0 success, 1 failure while running, 2 invalid experiment file or arguments,
130 or 143 run stopped by SIGINT or SIGTERM (finished cells kept; the line printed says how
to resume)."
    };
}

pub(crate) const EXAMPLES: &str = concat!(
    "Examples:\n",
    run_examples!(),
    "  dupstream list                            the experiment catalogue
  dupstream check                           validate every experiment file under experiments/
  dupstream theory deng-fig1 --out results/theory
      Deng & Rafiei Fig. 1 (FN rate vs K) from the paper's equations
  dupstream compare results/bera-journal-table7/<date>-<host>-<rev>-scale64
  dupstream compare RUN_A RUN_B             two runs side by side, cell by cell
  dupstream plot results/bera-journal-table7/<date>-<host>-<rev>-scale64
  dupstream report results                  static HTML pages over every results directory
  dupstream run my.toml --shard 0/4 --out parts/0   one of 4 shards (see `dupstream merge --help`)
  dupstream slurm my.toml --shards 16 --partition short --submit
  dupstream list --json                     machine-readable output (also check, estimate, compare, run)
  dupstream completions bash > ~/.local/share/bash-completion/completions/dupstream

",
    exit_codes!()
);

/// `run --help`: examples of `run` only.
pub(crate) const RUN_EXAMPLES: &str = concat!(
    "Examples:\n",
    run_examples!(),
    "  dupstream run my.toml --quiet             only the table on stdout; warnings and errors on stderr
  dupstream run my.toml --shard 0/4 --out parts/0   one of 4 shards (see `dupstream merge --help`)

A run writes results/<experiment>/<date>-<host>-<rev>[-scale<F>]/ (SCHEMA.md describes
every file). A file's [run] max_scale caps --scale, with a warning.

",
    exit_codes!()
);

/// Reproduce published evaluations of approximate duplicate detection in streams
/// (Stable Bloom filters and successors), and run your own.
#[derive(Debug, Parser)]
#[command(
    name = "dupstream",
    version = crate::record::probe::LONG_VERSION,
    after_help = EXAMPLES,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an experiment: generate each stream once, label it exactly, run every grid cell in
    /// parallel and write raw.csv, table.csv/.md, charts, run.toml and manifest.json.
    #[command(after_help = RUN_EXAMPLES)]
    Run(run::RunArgs),
    /// List the experiment catalogue (every *.toml under a directory) with descriptions.
    List(list::ListArgs),
    /// Re-draw a results directory's charts from its raw.csv (no recomputation).
    Plot(plot::PlotArgs),
    /// Compare a results directory with the paper's values (rewrites table.csv/.md and prints
    /// it), or two results directories with each other, cell by cell.
    #[command(after_help = compare::COMPARE_EXAMPLES)]
    Compare(compare::CompareArgs),
    /// Combine the parts written by `dupstream run --shard I/N` into the raw.csv, tables and
    /// charts a single-machine run gives.
    #[command(after_help = merge::MERGE_EXAMPLES)]
    Merge(merge::MergeArgs),
    /// Write (and with --submit, submit) Slurm scripts that run an experiment as a job array
    /// of shards followed by a merge job.
    #[command(after_help = slurm::SLURM_EXAMPLES)]
    Slurm(Box<slurm::SlurmArgs>),
    /// Validate experiment files without running them: each parses, every structure fits every
    /// memory size, and its paper values load. Exit 2 if any is invalid.
    Check(check::CheckArgs),
    /// Draw an analytic figure (Deng & Rafiei Fig. 1, 2) from the paper's equations, with an
    /// optional simulation overlay; writes CSV, PNG and SVG.
    Theory(theory::TheoryArgs),
    /// The time `run` would estimate for each experiment file and in total, without running.
    Estimate(estimate::EstimateArgs),
    /// Time per element of each structure in a results directory, beside the paper's
    /// (QHT paper Table 3); writes timing.csv/.md and prints it.
    Timing(timing::TimingArgs),
    /// Write static HTML pages: index.html in a results directory (table, charts, manifest,
    /// links to the CSVs), or in every results directory under a root plus an index over them.
    #[command(after_help = report::REPORT_EXAMPLES)]
    Report(report::ReportArgs),
    /// Rank structures at equal memory with fairly tuned settings (tuned on one seed, scored
    /// on the others), per workload and track, from finished results directories.
    #[command(after_help = leaderboard::LEADERBOARD_EXAMPLES)]
    Leaderboard(leaderboard::LeaderboardArgs),
    /// Rewrite finished results directories of an older version in the current layout
    /// (SCHEMA.md), keeping every value; the table and charts are drawn again.
    #[command(after_help = migrate::MIGRATE_EXAMPLES)]
    Migrate(migrate::MigrateArgs),
    /// Check (--check) or rewrite (--write) the generated blocks of the reference documents
    /// from the committed results and the experiments' paper values.
    #[command(after_help = docs::DOCS_EXAMPLES)]
    Docs(docs::DocsArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell) on stdout.
    #[command(after_help = completions::COMPLETIONS_EXAMPLES)]
    Completions(completions::CompletionsArgs),
}

/// The `dupstream` command with the built-in structures.
pub fn main() -> ExitCode {
    main_with(&Registry::builtin())
}

/// The `dupstream` command with the structures of `registry`: exit 0 on success, 2 on an
/// invalid experiment file or arguments, 1 on a failure while running.
pub fn main_with(registry: &Registry) -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match dispatch(cli.command, registry) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout went away (`dupstream list | head -1`): end quietly with
        // success, as ripgrep does (its `main` looks for `BrokenPipe` in the error chain).
        // Rust ignores SIGPIPE, so the write returns the error that `outln!` propagates.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(cfg) = e.downcast_ref::<ConfigError>() {
                eprintln!("error: {cfg}");
                return ExitCode::from(2);
            }
            // A refused directory or argument: bad input, like a bad experiment file.
            if e.downcast_ref::<BadInput>().is_some() {
                eprintln!("error: {e:#}");
                return ExitCode::from(2);
            }
            if let Some(locked) = e.downcast_ref::<Locked>() {
                eprintln!("error: {locked}");
                return ExitCode::from(2);
            }
            // SIGINT or SIGTERM: one line, and the code a shell gives a process the signal
            // ended (130, 143).
            if let Some(stopped) = e.downcast_ref::<Stopped>() {
                eprintln!("dupstream: {stopped}");
                return ExitCode::from(stopped.by.exit_code());
            }
            if let Some(by) = e.downcast_ref::<Interrupted>() {
                eprintln!("dupstream: {by}");
                return ExitCode::from(by.exit_code());
            }
            if let Some((line, code)) = stream_error(&e) {
                eprintln!("error: {line}");
                return ExitCode::from(code);
            }
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// A stream's own error in `e`'s chain (a replay file damaged, truncated, unreadable or with a
/// malformed line): its one line after the context above it, without the causes below it (its
/// message already names the file, the line and the cause), and exit code 2, bad input, like a
/// bad experiment file; 1 when the ground truth would not fit this platform.
fn stream_error(e: &anyhow::Error) -> Option<(String, u8)> {
    let is_stream = |c: &(dyn std::error::Error + 'static)| {
        c.downcast_ref::<dupstream_streams::Error>().is_some()
    };
    let se = e
        .chain()
        .find_map(|c| c.downcast_ref::<dupstream_streams::Error>())?;
    let mut parts: Vec<String> = e
        .chain()
        .take_while(|c| !is_stream(*c))
        .map(|c| c.to_string())
        .collect();
    parts.push(se.to_string());
    let code = match se {
        dupstream_streams::Error::TooLarge { .. } => 1,
        _ => 2,
    };
    Some((parts.join(": "), code))
}

/// Whether `e` is, or was caused by, a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn dispatch(command: Command, registry: &Registry) -> Result<()> {
    match command {
        Command::Run(args) => run::run(args, registry),
        Command::List(args) => list::run(args),
        Command::Plot(args) => plot::run(args, registry),
        Command::Compare(args) => compare::run(args, registry),
        Command::Merge(args) => merge::run(args, registry),
        Command::Slurm(args) => slurm::run(*args, registry),
        Command::Check(args) => check::run(args, registry),
        Command::Theory(args) => theory::run(args),
        Command::Estimate(args) => estimate::run(args, registry),
        Command::Timing(args) => timing::run(args, registry),
        Command::Report(args) => report::run(args, registry),
        Command::Migrate(args) => migrate::run(args, registry),
        Command::Leaderboard(args) => leaderboard::run(args, registry),
        Command::Docs(args) => docs::run(args),
        Command::Completions(args) => {
            completions::run(args, <Cli as clap::CommandFactory>::command())
        }
    }
}
