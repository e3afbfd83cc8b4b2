//! `dupstream estimate`: the time `dupstream run` would estimate for each experiment file
//! (the same cost model it prints before starting, at the scale it would run: `--scale`
//! clamped to a file's `[run] max_scale`) and the total.

use crate::plan::{self, Registry, cost};
use anyhow::Result;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct EstimateArgs {
    /// Files or directories.
    #[arg(default_value = "experiments")]
    paths: Vec<PathBuf>,
    /// As `run --scale` (a file's `[run] max_scale` caps it, as in `run`).
    #[arg(long, value_name = "F")]
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
}

pub fn run(args: EstimateArgs, registry: &Registry) -> Result<()> {
    let threads = plan::threads(args.threads, usize::MAX)?.0;
    let mut files = Vec::new();
    for path in &args.paths {
        for file in super::experiment_files(path)? {
            let exp = plan::load_with(&file, args.scale, registry)?;
            files.push(FileEstimate {
                file: file.display().to_string(),
                experiment: exp.name.clone(),
                scale: exp.scale,
                secs: cost::run_secs(&exp, threads),
                unknown_length: cost::has_unknown_len(&exp),
            });
        }
    }
    let total: f64 = files.iter().map(|f| f.secs).sum();
    if args.json {
        let out = Estimate {
            threads,
            total_secs: total,
            unknown_length_elements: cost::UNKNOWN_LEN,
            files,
        };
        outln!("{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    for f in &files {
        outln!("{:>10.0} s  {} (scale {})", f.secs, f.file, f.scale)?;
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
    outln!(
        "{:>10.0} s  total ({:.1} h) with {threads} thread(s){note}",
        total,
        total / 3600.0,
    )?;
    Ok(())
}
