//! `dupstream estimate`: the time `dupstream run` would estimate for each experiment file
//! (the same cost model it prints before starting, at the scale it would run: `--scale`
//! clamped to a file's `[run] max_scale`) and the total.

use crate::plan::{self, ConfigError, Registry, cost};
use anyhow::Result;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct EstimateArgs {
    /// Files or directories.
    #[arg(default_value = "experiments")]
    paths: Vec<PathBuf>,
    /// As `run --scale` (a file's `[run] max_scale` caps it, as in `run`).
    #[arg(long, value_name = "F", value_parser = crate::plan::validate::grid::parse_scale_flag)]
    scale: Option<u64>,
    /// As `run --threads`.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Print JSON (field names in SCHEMA.md).
    #[arg(long)]
    json: bool,
}

/// One file's estimate (`estimate --json`).
#[derive(Debug, Serialize)]
struct FileEstimate {
    file: String,
    experiment: String,
    scale: u64,
    secs: f64,
    /// Of `secs`, the run's and its cells' fixed parts (wall time: starting, writing files),
    /// on one thread.
    fixed_secs: f64,
    /// The file replays a stream of unknown length, counted as `unknown_length_elements`.
    unknown_length: bool,
}

/// `estimate --json`.
#[derive(Debug, Serialize)]
struct Estimate {
    threads: usize,
    total_secs: f64,
    unknown_length_elements: u64,
    files: Vec<FileEstimate>,
    /// Files not estimated: the data they replay is not on this machine.
    skipped: Vec<Skipped>,
}

/// A file `estimate` skipped (`estimate --json`).
#[derive(Debug, Serialize)]
struct Skipped {
    file: String,
    reason: String,
}

pub fn run(args: EstimateArgs, registry: &Registry) -> Result<()> {
    let threads = plan::threads(args.threads, usize::MAX)?.0;
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for path in &args.paths {
        for file in crate::plan::experiment_files(path)? {
            let exp = match plan::load_with(&file, args.scale, registry) {
                Ok(exp) => exp,
                Err(
                    e @ ConfigError {
                        missing_input: Some(_),
                        ..
                    },
                ) => {
                    eprintln!("dupstream: warning: SKIPPED {}: {e}", file.display());
                    skipped.push(Skipped {
                        file: file.display().to_string(),
                        reason: e.to_string(),
                    });
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            files.push(FileEstimate {
                file: file.display().to_string(),
                experiment: exp.name.clone(),
                scale: exp.scale,
                secs: cost::run_secs(&exp, threads),
                fixed_secs: cost::fixed_secs(&exp),
                unknown_length: cost::has_unknown_len(&exp),
            });
        }
    }
    let total: f64 = files.iter().fold(0.0, |t, f| t + f.secs);
    if args.json {
        let out = Estimate {
            threads,
            total_secs: total,
            unknown_length_elements: cost::UNKNOWN_LEN,
            files,
            skipped,
        };
        outln!("{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    for f in &files {
        outln!("{:>12}  {} (scale {})", secs(f.secs), f.file, f.scale)?;
    }
    let unknown = files.iter().filter(|f| f.unknown_length).count();
    let note = if unknown > 0 {
        format!(
            "; {unknown} file(s) replay streams of unknown length, counted as {} elements each",
            cost::UNKNOWN_LEN
        )
    } else {
        String::new()
    };
    let skipped_note = match skipped.len() {
        0 => String::new(),
        n => format!("; {n} file(s) skipped: the data they replay is not here"),
    };
    outln!(
        "{:>12}  total ({}) with {threads} thread(s){note}{skipped_note}",
        secs(total),
        crate::report::docs::secs(Some(total)),
    )?;
    Ok(())
}

/// Seconds for a column: whole seconds, `< 1 s` below half a second (never `0 s`).
fn secs(s: f64) -> String {
    if s < 0.5 {
        "< 1 s".to_string()
    } else {
        format!("{s:.0} s")
    }
}
