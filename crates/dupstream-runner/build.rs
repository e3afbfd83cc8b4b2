//! Records what this binary was built from, for `--version` and result manifests:
//!
//! - `DUPSTREAM_RUSTC`: the compiler's `--version`;
//! - `DUPSTREAM_REVISION`: the git revision (short SHA, with `-dirty` when tracked files
//!   differed from it), read by vergen-gitcl; `unknown` when the sources are not a git checkout
//!   of this workspace (a `git archive` tarball, or a copy unpacked inside another repository);
//! - `DUPSTREAM_BUILD_DATE`: the build date (UTC, `YYYY-MM-DD`; `SOURCE_DATE_EPOCH` is
//!   honoured, for reproducible builds).
//!
//! It also writes `catalogue.rs` into `OUT_DIR`: every file of the workspace's `experiments/`
//! (the experiment catalogue, its paper values and notes), compiled into the binary so that an
//! installed `dupstream` finds the catalogue outside the checkout (`plan::catalogue`). Built
//! from a packaged crate, without the workspace around it, the catalogue is empty.
//!
//! The script reruns when the checkout's HEAD, branch or index moves, or when a source file of
//! the workspace changes (so the dirty flag follows edits of the code the binary is built from).

use std::path::{Path, PathBuf};
use std::process::Command;
use vergen_gitcl::{BuildBuilder, Emitter, GitclBuilder};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=DUPSTREAM_RUSTC={version}");

    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let workspace = manifest_dir.join("../..").canonicalize()?;
    let mut emitter = Emitter::default();
    emitter.add_instructions(&BuildBuilder::default().build_date(true).build()?)?;
    let checkout = own_checkout(&workspace);
    if checkout {
        emitter.add_instructions(&GitclBuilder::default().sha(true).dirty(false).build()?)?;
    }
    let mut out = Vec::new();
    emitter.emit_to(&mut out)?;
    let text = String::from_utf8(out)?;
    print!("{text}");
    let value = |key: &str| {
        let prefix = format!("cargo:rustc-env={key}=");
        text.lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .map(str::to_string)
    };
    let sha = value("VERGEN_GIT_SHA")
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()));
    let revision = match sha {
        Some(sha) if value("VERGEN_GIT_DIRTY").as_deref() == Some("true") => format!("{sha}-dirty"),
        Some(sha) => sha,
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=DUPSTREAM_REVISION={revision}");
    let date = value("VERGEN_BUILD_DATE")
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=DUPSTREAM_BUILD_DATE={date}");

    catalogue(&workspace.join("experiments"))?;

    println!("cargo:rerun-if-changed=build.rs");
    for p in ["crates", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", workspace.join(p).display());
    }
    if checkout {
        // HEAD, the branch it points to (refs live in the common directory of a worktree), the
        // packed refs and the index: a commit, a checkout or `git add` reruns this script.
        let mut watched = vec!["HEAD".to_string(), "index".into(), "packed-refs".into()];
        if let Some(r) = git(&workspace, &["symbolic-ref", "-q", "HEAD"]) {
            watched.push(r);
        }
        for w in watched {
            if let Some(p) = git(&workspace, &["rev-parse", "--git-path", &w]) {
                let p = workspace.join(p);
                if p.exists() {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            }
        }
    }
    Ok(())
}

/// Writes `OUT_DIR/catalogue.rs`: `CATALOGUE`, every file under `dir` as
/// (`experiments/<relative path>`, its bytes), sorted by path.
fn catalogue(dir: &Path) -> Result<()> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.is_file() {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    if dir.is_dir() {
        walk(dir, &mut files)?;
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let mut keyed = Vec::new();
    for f in &files {
        let parts: Vec<String> = f
            .strip_prefix(dir)?
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        keyed.push((
            format!("experiments/{}", parts.join("/")),
            f.display().to_string(),
        ));
    }
    keyed.sort();
    let mut code =
        String::from("/// The experiment catalogue: (`experiments/...`, bytes), sorted by path.\n");
    code.push_str("pub static CATALOGUE: &[(&str, &[u8])] = &[\n");
    for (key, file) in &keyed {
        code.push_str(&format!("    ({key:?}, include_bytes!({file:?})),\n"));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("catalogue.rs");
    std::fs::write(out, code)?;
    Ok(())
}

/// Whether `workspace` is the top of a git checkout (not a copy unpacked inside another
/// repository, whose revision would be that repository's).
fn own_checkout(workspace: &Path) -> bool {
    git(workspace, &["rev-parse", "--show-toplevel"])
        .and_then(|top| Path::new(&top).canonicalize().ok())
        .is_some_and(|top| top == workspace)
}

/// `git ARGS` run in `dir`: its trimmed output, when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!s.is_empty()).then_some(s)
}
