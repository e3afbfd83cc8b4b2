//! `dupstream list`: the experiment catalogue with descriptions.

use anyhow::{Context, Result};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Directory to scan.
    #[arg(default_value = "experiments")]
    dir: PathBuf,
    /// Print JSON (field names in SCHEMA.md).
    #[arg(long)]
    json: bool,
}

/// One experiment of the catalogue (`list --json`).
#[derive(Debug, Serialize)]
struct Entry {
    name: String,
    description: String,
    paper: Option<String>,
    file: String,
}

pub fn run(args: ListArgs) -> Result<()> {
    let files = crate::plan::experiment_files(&args.dir)?;
    if files.is_empty() {
        return Err(crate::plan::refuse(format!(
            "no experiment files under {}",
            args.dir.display()
        )));
    }
    let mut entries = Vec::new();
    for f in files {
        let text = crate::plan::catalogue::read_to_string(&f)
            .with_context(|| format!("reading {}", f.display()))?;
        let doc: toml::Table = toml::from_str(&text)
            .map_err(|e| crate::plan::refuse(format!("{}: {}", f.display(), e.message())))?;
        let field = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_string);
        entries.push(Entry {
            name: field("name").unwrap_or_else(|| "?".into()),
            description: field("description").unwrap_or_default(),
            paper: field("paper"),
            file: f.display().to_string(),
        });
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&entries)?)?;
        return Ok(());
    }
    for e in entries {
        outln!("{:<36} {}\n{:<36} {}", e.name, e.description, "", e.file)?;
    }
    Ok(())
}
