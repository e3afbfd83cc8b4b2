//! `dupstream check`: every experiment file parses and validates (at `--scale` and at scale 1),
//! and its paper values load. Errors are printed one per line; exit 2 if any file is invalid.
//! A file whose input data (a replayed file) is not on this machine is skipped with a warning:
//! the file may be valid, and a fresh clone without the external data checks clean.

use crate::plan::{self, ConfigError, Experiment, Registry};
use crate::report::reference;
use anyhow::Result;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check.
    #[arg(default_value = "experiments")]
    paths: Vec<PathBuf>,
    /// Also validate at this --scale.
    #[arg(long, value_name = "F", value_parser = crate::plan::validate::grid::parse_scale_flag)]
    scale: Option<u64>,
    /// Print JSON (field names in SCHEMA.md) instead of one line per file.
    #[arg(long)]
    json: bool,
}

/// One file checked (`check --json`).
#[derive(Debug, Serialize)]
struct Checked {
    file: String,
    ok: bool,
    /// Not checked: its input data is missing (why).
    skipped: Option<String>,
    /// At the scale checked (`--scale`, clamped to the file's `[run] max_scale`), when valid.
    scale: Option<u64>,
    cells: Option<usize>,
    streams: Option<usize>,
    elements: Option<u64>,
    paper_values: Option<usize>,
    warnings: Vec<String>,
    error: Option<CheckError>,
}

/// Why a file is invalid: the message and, when known, the file, line and key at fault.
#[derive(Debug, Serialize)]
struct CheckError {
    message: String,
    file: Option<String>,
    line: Option<usize>,
    key: Option<String>,
}

/// `check --json`.
#[derive(Debug, Serialize)]
struct Report {
    valid: usize,
    invalid: usize,
    skipped: usize,
    files: Vec<Checked>,
}

pub fn run(args: CheckArgs, registry: &Registry) -> Result<()> {
    let mut files = Vec::new();
    for path in &args.paths {
        for file in crate::plan::experiment_files(path)? {
            files.push(check_file(&file, args.scale, registry));
        }
    }
    if files.is_empty() {
        return Err(plan::refuse("no experiment files found"));
    }
    let skipped = files.iter().filter(|c| c.skipped.is_some()).count();
    let (total, bad) = (
        files.len(),
        files
            .iter()
            .filter(|c| !c.ok && c.skipped.is_none())
            .count(),
    );
    if args.json {
        let report = Report {
            valid: total - bad - skipped,
            invalid: bad,
            skipped,
            files,
        };
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        for c in &files {
            for w in &c.warnings {
                outln!("warn  {w}")?;
            }
            if let Some(why) = &c.skipped {
                outln!("SKIPPED {why}")?;
                continue;
            }
            match &c.error {
                None => outln!(
                    "ok    {}: {} cells, {} streams, {} at scale {}{}",
                    c.file,
                    c.cells.unwrap_or(0),
                    c.streams.unwrap_or(0),
                    c.elements.map_or(
                        "a replay (length known after reading)".to_string(),
                        |n| format!("{:.3e} elements", n as f64)
                    ),
                    c.scale.unwrap_or(1),
                    c.paper_values
                        .map_or(String::new(), |n| format!(", {n} paper values"))
                )?,
                Some(e) => outln!("FAIL  {}", e.message)?,
            }
        }
    }
    if bad > 0 {
        let msg = format!("{bad} of {total} experiment files are invalid");
        return Err(ConfigError::new(Path::new("experiments"), None, None, msg).into());
    }
    if !args.json {
        let valid = total - skipped;
        match skipped {
            0 => outln!("{total} experiment files valid")?,
            n => outln!(
                "{valid} experiment files valid; {n} skipped: the data they replay is not here ({})",
                crate::plan::catalogue::SHARED_DATA_HINT
            )?,
        }
    }
    Ok(())
}

/// Checks one file (at scale 1, then at `scale`).
fn check_file(file: &Path, scale: Option<u64>, registry: &Registry) -> Checked {
    let mut out = Checked {
        file: file.display().to_string(),
        ok: false,
        skipped: None,
        scale: None,
        cells: None,
        streams: None,
        elements: None,
        paper_values: None,
        warnings: Vec::new(),
        error: None,
    };
    match load(file, scale, registry) {
        Ok((exp, values)) => {
            out.ok = true;
            out.scale = Some(exp.scale);
            out.cells = Some(exp.cells.len());
            out.streams = Some(exp.streams.len());
            out.elements = exp.total_elements();
            out.paper_values = values;
            out.warnings = exp.warnings;
        }
        Err(e) => {
            if let Some(c) = e.downcast_ref::<ConfigError>()
                && c.missing_input.is_some()
            {
                out.skipped = Some(c.to_string());
                return out;
            }
            out.error = Some(match e.downcast_ref::<ConfigError>() {
                Some(c) => CheckError {
                    message: c.to_string(),
                    file: Some(c.file.display().to_string()),
                    line: c.line,
                    key: c.key.clone(),
                },
                None => CheckError {
                    message: format!("{}: {e:#}", file.display()),
                    file: None,
                    line: None,
                    key: None,
                },
            });
        }
    }
    out
}

/// The experiment at `scale` (validated at scale 1 too) and its number of paper values.
fn load(
    file: &Path,
    scale: Option<u64>,
    registry: &Registry,
) -> Result<(Experiment, Option<usize>)> {
    let full = plan::load_with(file, None, registry)?;
    let exp = match scale {
        Some(s) => plan::load_with(file, Some(s), registry)?,
        None => full,
    };
    let values = match &exp.reference {
        Some((path, name)) => Some(reference::load(path, name)?.len()),
        None => None,
    };
    Ok((exp, values))
}
