//! The dupstream runner as a library: experiments planned, recorded, executed, reported and
//! orchestrated (on one machine, as shards, on a cluster), in five stages and a command line.
//! `ARCHITECTURE.md` at the repository root describes the stages and the rule that keeps
//! their dependencies one way:
//!
//! cli → orchestrate → {execute, report} → record → plan
//!
//! Numbered along the rule, each stage uses only stages of lower numbers: 1 [`plan`],
//! 2 [`record`], 3 `execute` and 4 `report` (which do not use each other),
//! 5 [`orchestrate`], 6 [`cli`].
//!
//! # The public API
//!
//! What this documentation shows is the API offered to other crates, for three uses:
//!
//! - **A structure of one's own**, run by the runner without forking it: implement the
//!   filters crate's `DuplicateFilter` and `Structure` for it and register it,
//!   [`Registry::builtin`]`().`[`with_structure`](Registry::with_structure)`::<MyFilter>()`
//!   (or, without `Structure`, [`Registry::with`] a [`CustomStructure`]); then
//!   [`cli::main_with`] is the whole `dupstream` command with it, and any experiment file may
//!   name it. `examples/custom_structure.rs` does this.
//! - **Running an experiment**: [`plan::load_with`] (or [`plan::parse_with`] for text)
//!   validates an experiment file into a [`plan::Experiment`] (its streams and cells), and
//!   [`orchestrate::run`] (or [`orchestrate::run_hosted`] inside a host process) runs it as
//!   `dupstream run` does, given [`orchestrate::RunOptions`], into a results directory.
//!   [`plan::seeds`] derives a cell's seeds, [`plan::cost`] estimates a run's time and memory.
//! - **Reading results**: [`record::verify_run`] checks a finished results directory against
//!   its commit record; [`record::ResultsDir::read_raw`] reads `raw.csv` as
//!   [`record::RawRow`]s, [`record::read_result_rows`] any other CSV file of it
//!   ([`record::CellRow`] for `cells.csv`, [`record::StreamRow`] for `streams.csv`,
//!   [`record::GapRow`] for `gaps.csv`), plain or gzip-compressed; [`record::Manifest`] is
//!   `manifest.json`. `SCHEMA.md` at the repository root describes every file and column.
//!
//! Every public item is documented here, beside these, except three modules that the crate's
//! own benchmark, integration tests, fuzz targets and Python package (`dupstream-py`) use:
//! `execute`, `report` and `orchestrate::part` are public but hidden from this
//! documentation, and are not a stable API (they change with the command). The rest of the
//! crate is crate-private.
//!
//! ```no_run
//! use dupstream_runner::orchestrate::{self, RunOptions};
//! use dupstream_runner::record::{self, ResultsDir};
//! use dupstream_runner::Registry;
//! use std::path::PathBuf;
//!
//! # fn main() -> anyhow::Result<()> {
//! let out = PathBuf::from("results/mine");
//! let opts = RunOptions {
//!     experiment: "experiments/bera-journal/table7.toml".into(),
//!     scale: Some(64),
//!     threads: None,
//!     out: Some(out.clone()),
//!     resume: false,
//!     results_root: "results".into(),
//!     quiet: true,
//!     shard: None,
//!     json: false,
//!     diff: false,
//! };
//! orchestrate::run(&opts, &Registry::builtin())?;
//! record::verify_run(&out)?;
//! for row in record::RawRow::finals(&ResultsDir::existing(&out).read_raw()?) {
//!     println!("{} {}: FPR {:?}, FNR {:?}", row.config(), row.memory, row.fpr, row.fnr);
//! }
//! # Ok(())
//! # }
//! ```
// The one `unsafe` module is `plan::heap`, the counting global allocator (its `SAFETY`
// comments say why it is sound); every other module denies `unsafe`.
#![deny(unsafe_code)]
#![warn(missing_docs)]
// Everything written to stdout goes through `outln!` or `out!`, which return the write error: a reader
// that closed the pipe (`dupstream list | head -1`) then ends the command quietly
// (`cli::main_with`) instead of panicking as `println!` does.
#![deny(clippy::print_stdout)]

/// `println!` to stdout that returns the [`std::io::Result`] of the write instead of
/// panicking on it.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `print!` to stdout, returning the write's result as [`outln!`] does.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

pub mod cli;
#[doc(hidden)]
pub mod execute;
pub mod orchestrate;
pub mod plan;
pub mod record;
#[doc(hidden)]
pub mod report;

pub use plan::{CustomStructure, Registry, StructureSpec};
