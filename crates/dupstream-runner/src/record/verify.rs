//! Reading a finished run only as it was finished: [`verify_run`] checks every file its commit
//! record (`commit.json`) lists against the size and checksum recorded there, before any
//! reader (`leaderboard`, `report`, `docs`, `compare`, `plot`, `timing`, `theory --sim`,
//! `migrate`) uses the directory. Whatever form a file is stored in (`raw.csv` or a
//! compressed `raw.csv.gz`), it is checked as the bytes the record lists.
//!
//! A run that fails is refused (bad input, exit 2) in one line naming the file and what is
//! wrong with it; nothing is computed from it. Two kinds of listed file may be absent without
//! harm, because the repository does not commit them and they are redrawn from the others:
//! the 300 dpi PNG charts (`dupstream plot`) and `.digest`. A present one is checked all the
//! same. HTML pages (`index.html`, written by `dupstream report` into a run) are neither
//! listed nor checked.

use crate::plan::refuse;
use crate::record::files::{atomic_write, read_json};
use crate::record::results_dir::{COMMIT_FILE, CommitRecord, CommittedFile, checksum, is_page};
use anyhow::Result;
use std::path::Path;

/// The files a finished run must list (each may be stored compressed, `NAME.gz`).
pub const REQUIRED: [&str; 2] = ["run.toml", "raw.csv"];

/// Whether a listed file may be missing: a PNG chart or `.digest`, which the repository does
/// not commit (see `.gitignore`) and which nothing reads a result from.
pub fn may_be_absent(path: &str) -> bool {
    path == ".digest" || path.ends_with(".png")
}

/// Checks the finished run in `dir`: its commit record is there and reads, lists `run.toml`
/// and `raw.csv`, and every file it lists has the recorded size and checksum. Returns the
/// record; else the refusal, one line naming the file.
pub fn verify_run(dir: &Path) -> Result<CommitRecord> {
    verify_run_but(dir, |_| false)
}

/// Whether a file of a run is a chart (`*.svg`, `*.png`), which `dupstream plot` redraws from
/// the others.
pub fn is_chart(path: &str) -> bool {
    path.ends_with(".svg") || path.ends_with(".png")
}

/// [`verify_run`] except the listed files for which `skip` holds: those a command is about
/// to write again from the others (`plot`: the charts, [`is_chart`]).
pub fn verify_run_but(dir: &Path, skip: impl Fn(&str) -> bool) -> Result<CommitRecord> {
    let commit_path = dir.join(COMMIT_FILE);
    if !commit_path.is_file() {
        return Err(refuse(format!(
            "{}: no {COMMIT_FILE}: not a finished run (interrupted before it finished, or written by a version before runs recorded their checksums); nothing is read from it",
            dir.display()
        )));
    }
    let record: CommitRecord = read_json(&commit_path).map_err(|e| {
        refuse(format!(
            "{}: unreadable ({}); the run cannot be checked",
            commit_path.display(),
            e.root_cause()
        ))
    })?;
    for name in REQUIRED {
        let gz = format!("{name}.gz");
        if !record.files.iter().any(|f| f.path == name || f.path == gz) {
            return Err(refuse(format!(
                "{}: does not list {name}; the run cannot be checked",
                commit_path.display()
            )));
        }
    }
    for f in record.files.iter().filter(|f| !skip(&f.path)) {
        check_file(dir, f)?;
    }
    Ok(record)
}

/// Checks one listed file against its size and checksum.
fn check_file(dir: &Path, f: &CommittedFile) -> Result<()> {
    let rel = Path::new(&f.path);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(refuse(format!(
            "{}: lists `{}`, not a file of the run",
            dir.join(COMMIT_FILE).display(),
            f.path
        )));
    }
    if is_page(&f.path) {
        return Ok(());
    }
    let path = dir.join(rel);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if may_be_absent(&f.path) {
                return Ok(());
            }
            return Err(refuse(format!(
                "{}: missing ({COMMIT_FILE} lists it); the run is damaged and nothing is read from it",
                path.display()
            )));
        }
        Err(e) => {
            return Err(refuse(format!("{}: unreadable: {e}", path.display())));
        }
    };
    if bytes.len() as u64 != f.bytes {
        return Err(refuse(format!(
            "{}: {} bytes, {COMMIT_FILE} records {} (truncated, edited or replaced since the run finished); the run is damaged and nothing is read from it",
            path.display(),
            bytes.len(),
            f.bytes
        )));
    }
    if checksum(&bytes) != f.checksum {
        return Err(refuse(format!(
            "{}: does not match its checksum in {COMMIT_FILE} (edited or replaced since the run finished); the run is damaged and nothing is read from it",
            path.display()
        )));
    }
    Ok(())
}

/// Brings the commit record of the finished run in `dir` up to date for `written`, files a
/// command has just rewritten in it (`compare`, `plot`, `timing`): each one's entry gets its
/// new size and checksum (or is added). The record is rewritten only when an entry changed,
/// and not at all when the directory has none (a run being finished writes it afterwards).
/// Pages and files outside the directory are ignored.
pub fn update_commit(dir: &Path, written: &[std::path::PathBuf]) -> Result<()> {
    let commit_path = dir.join(COMMIT_FILE);
    if !commit_path.is_file() {
        return Ok(());
    }
    let mut record: CommitRecord = read_json(&commit_path)?;
    let before = record.clone();
    for p in written {
        let Ok(rel) = p.strip_prefix(dir) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if is_page(&rel) || rel == COMMIT_FILE {
            continue;
        }
        let bytes = std::fs::read(p)?;
        let entry = CommittedFile {
            path: rel.clone(),
            bytes: bytes.len() as u64,
            checksum: checksum(&bytes),
        };
        match record.files.iter_mut().find(|f| f.path == rel) {
            Some(f) => *f = entry,
            None => record.files.push(entry),
        }
    }
    record.files.sort_by(|a, b| a.path.cmp(&b.path));
    if record != before {
        atomic_write(&commit_path, &serde_json::to_vec_pretty(&record)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::results_dir::CommittedFile;

    fn run(name: &str) -> std::path::PathBuf {
        let d =
            std::env::temp_dir().join(format!("dupstream-verify-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let mut files = Vec::new();
        for (f, text) in [
            ("raw.csv", "a,b\n1,2\n3,4\n"),
            ("run.toml", "name = \"x\"\n"),
            ("chart.png", "png"),
        ] {
            std::fs::write(d.join(f), text).unwrap();
            files.push(CommittedFile {
                path: f.into(),
                bytes: text.len() as u64,
                checksum: checksum(text.as_bytes()),
            });
        }
        let record = CommitRecord {
            digest: "0".into(),
            scale: 1,
            cells: Vec::new(),
            files,
        };
        std::fs::write(
            d.join(COMMIT_FILE),
            serde_json::to_vec_pretty(&record).unwrap(),
        )
        .unwrap();
        d
    }

    fn refusal(dir: &Path) -> String {
        let e = verify_run(dir).unwrap_err();
        assert!(e.is::<crate::plan::BadInput>(), "{e:#}");
        let s = format!("{e:#}");
        assert_eq!(s.lines().count(), 1, "{s}");
        s
    }

    #[test]
    fn every_listed_file_is_checked() {
        let d = run("checked");
        verify_run(&d).unwrap();
        // A PNG chart may be absent (not committed; redrawn), but not changed.
        std::fs::remove_file(d.join("chart.png")).unwrap();
        verify_run(&d).unwrap();
        std::fs::write(d.join("chart.png"), "PNG").unwrap();
        assert!(refusal(&d).contains("chart.png: does not match"));
        std::fs::write(d.join("chart.png"), "png").unwrap();
        // One byte changed, half the file, the header only, the file gone.
        std::fs::write(d.join("raw.csv"), "a,b\n1,2\n3,5\n").unwrap();
        assert!(refusal(&d).contains("raw.csv: does not match its checksum"));
        std::fs::write(d.join("raw.csv"), "a,b\n1,2\n").unwrap();
        assert!(refusal(&d).contains("raw.csv: 8 bytes, commit.json records 12"));
        std::fs::write(d.join("raw.csv"), "a,b\n").unwrap();
        assert!(refusal(&d).contains("raw.csv: 4 bytes"));
        std::fs::remove_file(d.join("raw.csv")).unwrap();
        assert!(refusal(&d).contains("raw.csv: missing"));
        std::fs::remove_file(d.join(COMMIT_FILE)).unwrap();
        assert!(refusal(&d).contains("no commit.json"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_rewritten_file_is_recorded_again() {
        let d = run("update");
        std::fs::write(d.join("raw.csv"), "a,b\n").unwrap();
        std::fs::write(d.join("table.md"), "t").unwrap();
        std::fs::write(d.join("index.html"), "page").unwrap();
        update_commit(
            &d,
            &[d.join("raw.csv"), d.join("table.md"), d.join("index.html")],
        )
        .unwrap();
        let r = verify_run(&d).unwrap();
        assert!(r.files.iter().any(|f| f.path == "table.md"));
        assert!(!r.files.iter().any(|f| f.path == "index.html"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
