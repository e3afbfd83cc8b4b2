//! Generated blocks found in the documents and rewritten: the markers, the documents that
//! may hold blocks, and the blocks that differ from what is committed.

use super::canonical::{Catalogue, rel};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// The marker opening a generated block; the block's name follows it.
pub const BEGIN: &str = "<!-- generated: ";

/// The marker closing a generated block.
pub const END: &str = "<!-- end generated -->";

/// A generated block that differs from what is committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The document, relative to the root.
    pub file: String,
    /// The block's name.
    pub block: String,
    /// Its line in the document.
    pub line: usize,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: generated block `{}` differs from what `dupstream docs --write` writes",
            self.file, self.line, self.block
        )
    }
}

/// A document with its blocks regenerated.
#[derive(Debug)]
pub struct Document {
    /// Relative to the root.
    pub file: String,
    pub text: String,
    pub regenerated: String,
    pub stale: Vec<Stale>,
}

impl Catalogue {
    /// `text` (the document `file`, relative to the root) with every generated block
    /// rewritten, and the blocks that differed.
    pub fn regenerate(&self, file: &str, text: &str) -> Result<(String, Vec<Stale>)> {
        let mut out = String::with_capacity(text.len());
        let mut stale = Vec::new();
        let mut lines = text.split_inclusive('\n').enumerate();
        while let Some((i, line)) = lines.next() {
            out.push_str(line);
            let Some(name) = line
                .trim_end()
                .strip_prefix(BEGIN)
                .and_then(|r| r.strip_suffix("-->"))
            else {
                continue;
            };
            let name = name.trim();
            let mut old = String::new();
            let mut closed = None;
            for (_, l) in lines.by_ref() {
                if l.trim_end() == END {
                    closed = Some(l);
                    break;
                }
                old.push_str(l);
            }
            let Some(end) = closed else {
                bail!("{file}:{}: generated block `{name}` has no `{END}`", i + 1);
            };
            let new = self
                .block(name, file)
                .with_context(|| format!("{file}:{}", i + 1))?;
            if new != old {
                stale.push(Stale {
                    file: file.to_string(),
                    block: name.to_string(),
                    line: i + 1,
                });
            }
            out.push_str(&new);
            out.push_str(end);
        }
        Ok((out, stale))
    }

    /// Every document that may hold generated blocks, regenerated.
    pub fn documents(&self) -> Result<Vec<Document>> {
        let mut out = Vec::new();
        for path in documents(&self.root)? {
            let file = rel(&self.root, &path);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            if !text.contains(BEGIN) {
                continue;
            }
            let (regenerated, stale) = self.regenerate(&file, &text)?;
            out.push(Document {
                file,
                text,
                regenerated,
                stale,
            });
        }
        Ok(out)
    }
}

/// The Markdown files that may hold generated blocks: those at the root, under `docs/`, the
/// crates' READMEs and `results/README.md`.
pub fn documents(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let md = |dir: &Path, out: &mut Vec<PathBuf>| -> Result<()> {
        if !dir.is_dir() {
            return Ok(());
        }
        for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let p = e?.path();
            if p.is_file() && p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
        Ok(())
    };
    md(root, &mut out)?;
    md(&root.join("docs"), &mut out)?;
    if root.join("crates").is_dir() {
        for e in std::fs::read_dir(root.join("crates"))? {
            let p = e?.path().join("README.md");
            if p.is_file() {
                out.push(p);
            }
        }
    }
    let index = root.join("results/README.md");
    if index.is_file() {
        out.push(index);
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn empty() -> Catalogue {
        Catalogue {
            root: PathBuf::from("."),
            experiments: Vec::new(),
            runs: BTreeMap::new(),
            problems: Vec::new(),
            uncited: Vec::new(),
        }
    }

    #[test]
    fn blocks_are_rewritten_and_differences_named() {
        let cat = empty();
        let fresh = cat.block("papers", "README.md").unwrap();
        let doc = format!("# t\n\n{BEGIN}papers -->\n{fresh}{END}\nafter\n");
        let (same, stale) = cat.regenerate("README.md", &doc).unwrap();
        assert_eq!(same, doc);
        assert!(stale.is_empty());
        let edited = doc.replace("| all | 0 | 0 |", "| all | 1 | 0 |");
        assert_ne!(edited, doc);
        let (fixed, stale) = cat.regenerate("README.md", &edited).unwrap();
        assert_eq!(fixed, doc);
        assert_eq!(
            stale,
            vec![Stale {
                file: "README.md".into(),
                block: "papers".into(),
                line: 3
            }]
        );
    }

    #[test]
    fn unclosed_and_unknown_blocks_are_errors() {
        let cat = empty();
        let err = cat
            .regenerate("a.md", &format!("{BEGIN}papers -->\nx\n"))
            .unwrap_err();
        assert!(format!("{err:#}").contains("a.md:1"), "{err:#}");
        let err = cat
            .regenerate("a.md", &format!("x\n{BEGIN}nonsense -->\n{END}\n"))
            .unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown generated block"),
            "{err:#}"
        );
    }
}
