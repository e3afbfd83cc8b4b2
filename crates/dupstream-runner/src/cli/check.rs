//! `dupstream check`: every experiment file parses and validates (at `--scale` and at scale 1),
//! and its paper values load. Errors are printed one per line; exit 2 if any file is invalid.

use crate::plan::{self, ConfigError, Registry};
use crate::report::reference;
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check.
    #[arg(default_value = "experiments")]
    paths: Vec<PathBuf>,
    /// Also validate at this --scale.
    #[arg(long, value_name = "F")]
    scale: Option<u64>,
}

pub fn run(args: CheckArgs, registry: &Registry) -> Result<()> {
    let (mut bad, mut total) = (0, 0);
    for path in &args.paths {
        for file in super::experiment_files(path)? {
            total += 1;
            match check_file(&file, args.scale, registry) {
                Ok(summary) => outln!("ok    {}: {summary}", file.display())?,
                Err(e) => {
                    bad += 1;
                    match e.downcast_ref::<ConfigError>() {
                        Some(c) => outln!("FAIL  {c}")?,
                        None => outln!("FAIL  {}: {e:#}", file.display())?,
                    }
                }
            }
        }
    }
    if total == 0 {
        bail!("no experiment files found");
    }
    if bad > 0 {
        let msg = format!("{bad} of {total} experiment files are invalid");
        return Err(ConfigError::new(Path::new("experiments"), None, None, msg).into());
    }
    outln!("{total} experiment files valid")?;
    Ok(())
}

/// Checks one file; returns a one-line summary.
fn check_file(file: &Path, scale: Option<u64>, registry: &Registry) -> Result<String> {
    let full = plan::load_with(file, None, registry)?;
    let exp = match scale {
        Some(s) => plan::load_with(file, Some(s), registry)?,
        None => full,
    };
    for w in &exp.warnings {
        outln!("warn  {w}")?;
    }
    let mut refs = String::new();
    if let Some((path, name)) = &exp.reference {
        let values = reference::load(path, name)?;
        if values.is_empty() {
            bail!(
                "{}: reference table `{name}` has no rows in {}",
                file.display(),
                path.display()
            );
        }
        refs = format!(", {} paper values", values.len());
    }
    Ok(format!(
        "{} cells, {} streams, {:.3e} elements at scale {}{refs}",
        exp.cells.len(),
        exp.streams.len(),
        exp.total_elements().unwrap_or(0) as f64,
        exp.scale
    ))
}
