//! `dupstream docs`: the documents' generated blocks, checked or rewritten.

use crate::report::docs::Catalogue;
use anyhow::{Result, bail};
use std::path::PathBuf;

pub const DOCS_EXAMPLES: &str = "Examples:
  dupstream docs --check        exit 1 naming each file and block that differs
  dupstream docs --write        rewrite every generated block

A generated block sits between `<!-- generated: NAME -->` and `<!-- end generated -->` in
README.md, REPRODUCTION.md, docs/*.md, the crates' READMEs or results/README.md. Its numbers
come from the canonical run of each experiment (results/canonical.toml) and the experiments'
paper-values.csv; the filters README's peer tables from
crates/dupstream-filters/benches/peers.csv (`just peers`). Other runs under results/ (your own,
superseded ones) are listed as a note: the documents cite none of them, and the repository
commits only the canonical ones.";

#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Rewrite every generated block from the committed results.
    #[arg(long, conflicts_with = "check", required_unless_present = "check")]
    write: bool,
    /// Exit 1, naming each file and block, when a generated block differs from what
    /// --write would write (or results/canonical.toml names a run that is not there).
    #[arg(long)]
    check: bool,
    /// The repository root.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
}

pub fn run(args: DocsArgs) -> Result<()> {
    let catalogue = Catalogue::load(&args.root)?;
    for p in &catalogue.problems {
        eprintln!("{p}");
    }
    let problems = catalogue.problems.len();
    // A damaged, missing or stale canonical run: nothing is written from it.
    if args.write && problems > 0 {
        return Err(crate::plan::refuse(format!(
            "{problems} problem(s) with results/ (above); no document rewritten"
        )));
    }
    let documents = match catalogue.documents() {
        Ok(d) => d,
        Err(e) if problems > 0 => bail!("{problems} problem(s) with results/ (above): {e:#}"),
        Err(e) => return Err(e),
    };
    if !catalogue.uncited.is_empty() {
        eprintln!(
            "note: {} run(s) under results/ that results/canonical.toml does not name; no document cites them: {}",
            catalogue.uncited.len(),
            catalogue.uncited.join(", ")
        );
    }
    if args.write {
        for d in documents.iter().filter(|d| d.regenerated != d.text) {
            crate::record::atomic_write(&args.root.join(&d.file), d.regenerated.as_bytes())?;
            outln!(
                "{}: rewrote {}",
                d.file,
                d.stale
                    .iter()
                    .map(|s| format!("`{}`", s.block))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
    } else {
        let stale: Vec<_> = documents.iter().flat_map(|d| &d.stale).collect();
        for s in &stale {
            eprintln!("{s}");
        }
        if !stale.is_empty() || !catalogue.problems.is_empty() {
            bail!(
                "{} generated block(s) out of date, {} problem(s) with results/; `dupstream docs --write` rewrites the blocks",
                stale.len(),
                catalogue.problems.len()
            );
        }
        let blocks = documents
            .iter()
            .map(|d| d.text.matches(crate::report::docs::BEGIN).count())
            .sum::<usize>();
        outln!(
            "{} generated blocks in {} documents match the committed results",
            blocks,
            documents.len()
        )?;
    }
    Ok(())
}
