//! Helpers: run the built binary from the workspace root, in scratch directories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root (experiment paths in the repository are relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// A fresh, empty scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dupstream-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Writes `text` to `dir/name`; returns the path as a string.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Runs `dupstream ARGS` from the workspace root.
pub fn dupstream(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dupstream"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run dupstream")
}

/// Runs and asserts success, printing the output on failure.
pub fn dupstream_ok(args: &[&str]) -> Output {
    let out = dupstream(args);
    assert!(
        out.status.success(),
        "dupstream {args:?} failed ({:?}):\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Where the shared data directory is: `$DUPSTREAM_SHARED_DATA`, else `../shared/data` beside
/// the checkout. `None` (and a visible message) when the file is absent.
pub fn shared_data(file: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("DUPSTREAM_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/data"));
    let path = dir.join(file);
    if path.is_file() {
        Some(path)
    } else {
        skipped(&format!(
            "{file} not found in {} (set DUPSTREAM_SHARED_DATA)",
            dir.display()
        ));
        None
    }
}

/// Says that a test skips (part of) its check, on the stderr handle rather than with
/// `eprintln!`, so that the harness's output capture does not hide it: `cargo test` shows
/// `SKIPPED: ...` beside the test's `ok`.
pub fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}
