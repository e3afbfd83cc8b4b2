//! `dupstream list`: the experiment catalogue with descriptions.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Directory to scan.
    #[arg(default_value = "experiments")]
    dir: PathBuf,
}

pub fn run(args: ListArgs) -> Result<()> {
    let files = super::experiment_files(&args.dir)?;
    if files.is_empty() {
        bail!("no experiment files under {}", args.dir.display());
    }
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        let doc: toml::Table = toml::from_str(&text).with_context(|| format!("{}", f.display()))?;
        let name = doc.get("name").and_then(|v| v.as_str()).unwrap_or("?");
        let desc = doc
            .get("description")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        outln!("{name:<36} {desc}\n{:<36} {}", "", f.display())?;
    }
    Ok(())
}
