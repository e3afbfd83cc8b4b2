//! `peers.rs`'s committed results: one CSV row per pair (our structure, a peer, a size), each
//! with the run's provenance (machine, load at the start and end, date, git revision, wall
//! time) and the peer crate's version as `Cargo.lock` resolves it. The runner's
//! `dupstream docs` writes the filters README's peer tables from this file
//! (`report/docs/peers.rs` reads these columns).

use std::path::Path;

/// The columns, in order.
pub const HEADER: &[&str] = &[
    "structure",
    "size",
    "bits",
    "peer_crate",
    "peer_version",
    "peer",
    "ours_batch_ns",
    "peer_batch_ns",
    "batch_ratio",
    "ours_step_ns",
    "peer_step_ns",
    "step_ratio",
    "ours_fpr",
    "peer_fpr",
    "ours_fnr",
    "peer_fnr",
    "rounds",
    "keys_per_round",
    "warm_keys",
    "machine",
    "load_start",
    "load_end",
    "date",
    "revision",
    "wall_secs",
];

/// A field, quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV text: the header, then one line per row (each row as many fields as [`HEADER`]).
pub fn render(rows: &[Vec<String>]) -> String {
    let mut s = HEADER.join(",") + "\n";
    for r in rows {
        assert_eq!(r.len(), HEADER.len(), "a row of peers.csv has every column");
        s += &r.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
        s.push('\n');
    }
    s
}

/// The workspace root (this crate's manifest directory, two levels down).
fn workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The version `Cargo.lock` resolves for the package `name` ("unknown" if it is not there).
pub fn locked_version(name: &str) -> String {
    let lock = std::fs::read_to_string(workspace().join("Cargo.lock")).unwrap_or_default();
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == wanted
            && let Some(v) = lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = \""))
                .and_then(|v| v.strip_suffix('"'))
        {
            return v.to_string();
        }
    }
    "unknown".to_string()
}

/// The checkout's revision (short SHA, `-dirty` when tracked files differ from it), or
/// "unknown" outside a git checkout.
pub fn git_revision() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(workspace())
            .output()
            .ok()
    };
    let Some(sha) = git(&["rev-parse", "--short=7", "HEAD"])
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    else {
        return "unknown".to_string();
    };
    let dirty = git(&["diff", "--quiet", "HEAD", "--"]).is_some_and(|o| !o.status.success());
    if dirty { format!("{sha}-dirty") } else { sha }
}

/// Today's date (UTC) as `YYYY-MM-DD`, from `date -u` ("unknown" without it).
pub fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}
