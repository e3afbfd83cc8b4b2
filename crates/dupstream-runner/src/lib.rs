//! The dupstream runner as a library: experiments planned, recorded, executed, reported and
//! orchestrated (on one machine, as shards, on a cluster), in five stages and a command line. `ARCHITECTURE.md` at the repository root
//! describes the stages and the rule that keeps their dependencies one way:
//!
//! cli → orchestrate → {execute, report} → record → plan
//!
//! Numbered along the rule, each stage uses only stages of lower numbers: 1 [`plan`],
//! 2 [`record`], 3 [`execute`] and 4 [`report`] (which do not use each other),
//! 5 [`orchestrate`], 6 [`cli`].
//!
//! A user's crate can register its own structure and run any experiment file with it,
//! without forking: see [`plan::Registry`] and `examples/custom_structure.rs`.
// The one `unsafe` module is `execute::heap`, the counting global allocator (its `SAFETY`
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
