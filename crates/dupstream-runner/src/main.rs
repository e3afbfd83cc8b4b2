//! `dupstream`: reproduce and extend the published evaluations of approximate duplicate
//! detection in unbounded streams.
#![forbid(unsafe_code)]

mod catalogue;
mod derived;
mod error;
mod exec;
mod experiment;
mod output;
mod plot;
mod plot_extra;
mod progress;
mod run;
mod shard;
mod table;
mod theory;
mod units;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Examples:
  dupstream run experiments/bera-journal/table7.toml --scale 64
      Bera et al. Table 7 at 1/64 of the paper's stream length and memory (about a minute)
  dupstream run experiments/bera-journal/table7.toml
      the same at full scale: 20 runs over 10^9 elements
  dupstream run my.toml --threads 1 --out results/mine
  dupstream run my.toml --resume            continue an interrupted run
  dupstream list                            the experiment catalogue
  dupstream check                           validate every experiment file under experiments/
  dupstream theory deng-fig1 --out results/theory
      Deng & Rafiei Fig. 1 (FN rate vs K) from the paper's equations
  dupstream compare results/bera-journal-table7/<date>-<rev>-scale64
  dupstream plot results/bera-journal-table7/<date>-<rev>-scale64
  dupstream run my.toml --shard 0/4 --out parts/0   one of 4 shards (see `dupstream merge --help`)
  dupstream slurm my.toml --shards 16 --partition short --submit

Exit codes: 0 success, 1 failure while running, 2 invalid experiment file or arguments.";

/// Reproduce published evaluations of approximate duplicate detection in streams
/// (Stable Bloom filters and successors), and run your own.
#[derive(Debug, Parser)]
#[command(name = "dupstream", version, after_help = EXAMPLES, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an experiment: generate each stream once, label it exactly, run every grid cell in
    /// parallel and write raw.csv, table.csv/.md, charts, run.toml and manifest.json.
    #[command(after_help = EXAMPLES)]
    Run(run::RunArgs),
    /// List the experiment catalogue (every *.toml under a directory) with descriptions.
    List {
        /// Directory to scan.
        #[arg(default_value = "experiments")]
        dir: PathBuf,
    },
    /// Re-draw a results directory's charts from its raw.csv (no recomputation).
    Plot {
        /// A results directory written by `dupstream run`.
        results_dir: PathBuf,
    },
    /// Compare a results directory with the paper's values: rewrites table.csv/.md and prints it.
    Compare {
        /// A results directory written by `dupstream run`.
        results_dir: PathBuf,
    },
    /// Combine the parts written by `dupstream run --shard I/N` into the raw.csv, tables and
    /// charts a single-machine run gives.
    #[command(after_help = shard::MERGE_EXAMPLES)]
    Merge(shard::MergeArgs),
    /// Write (and with --submit, submit) Slurm scripts that run an experiment as a job array
    /// of shards followed by a merge job.
    #[command(after_help = shard::SLURM_EXAMPLES)]
    Slurm(Box<shard::SlurmArgs>),
    /// Validate experiment files without running them: each parses, every structure fits every
    /// memory size, and its paper values load. Exit 2 if any is invalid.
    Check {
        /// Files or directories to check.
        #[arg(default_value = "experiments")]
        paths: Vec<PathBuf>,
        /// Also validate at this --scale.
        #[arg(long, value_name = "F")]
        scale: Option<u64>,
    },
    /// Draw an analytic figure (Deng & Rafiei Fig. 1, 2) from the paper's equations, with an
    /// optional simulation overlay; writes CSV, PNG and SVG.
    Theory(theory::TheoryArgs),
    /// The time `run` would estimate for each experiment file and in total, without running.
    Estimate {
        /// Files or directories.
        #[arg(default_value = "experiments")]
        paths: Vec<PathBuf>,
        /// As `run --scale`.
        #[arg(long, value_name = "F")]
        scale: Option<u64>,
        /// As `run --threads`.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// A file that runs at its own scale whatever --scale says, as `NAME.toml=SCALE`
        /// (matched against the end of the path); repeatable.
        #[arg(long, value_name = "FILE=SCALE")]
        fixed: Vec<String>,
    },
    /// Time per element of each structure in a results directory, beside the paper's
    /// (QHT paper Table 3); writes timing.csv/.md and prints it.
    Timing {
        /// A results directory written by `dupstream run`.
        results_dir: PathBuf,
    },
}

fn main() -> ExitCode {
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
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::List { dir } => run::list(&dir),
        Command::Plot { results_dir } => run::plot(&results_dir),
        Command::Compare { results_dir } => run::compare(&results_dir),
        Command::Merge(args) => shard::merge(args),
        Command::Slurm(args) => shard::slurm(*args),
        Command::Check { paths, scale } => catalogue::check(&paths, scale),
        Command::Theory(args) => theory::run(args),
        Command::Timing { results_dir } => catalogue::timing(&results_dir),
        Command::Estimate {
            paths,
            scale,
            threads,
            fixed,
        } => catalogue::estimate(&paths, scale, threads, &fixed),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(cfg) = e.downcast_ref::<error::ConfigError>() {
                eprintln!("error: {cfg}");
                return ExitCode::from(2);
            }
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
