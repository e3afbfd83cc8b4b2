//! Readers verify what they read (issue 38, item 1): a finished run whose files no longer match
//! the checksums its `commit.json` records is refused by every command that reads it, in one
//! line naming the file, exit 2; nothing is computed from it, and `docs --write` writes nothing
//! from a damaged canonical run. Item 2: `docs --check` fails when a canonical run's `run.toml`
//! no longer matches its experiment file.

use crate::leaderboard::TUNED;
use crate::util::{dupstream, dupstream_ok, scratch, write};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The leaderboard's tiny experiment with paper values (so `compare RUN` has a table to
/// write), in `dir/exp/`.
fn experiment(dir: &Path) -> String {
    let exp = dir.join("exp");
    std::fs::create_dir_all(&exp).unwrap();
    write(
        &exp,
        "values.csv",
        "table,metric,value_pct,memory\nT,fpr,1.5,8KB\nT,fnr,2.5,32KB\n",
    );
    write(
        &exp,
        "lb-tiny.toml",
        &format!("{TUNED}\n[reference]\nfile = \"values.csv\"\ntable = \"T\"\n"),
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// One damage done to a copy of a finished run: its name, the file the refusal must name, and
/// the damage.
type Damage = (&'static str, &'static str, fn(&Path));

fn change_one_byte(p: &Path) {
    let mut bytes = std::fs::read(p).unwrap();
    let at = bytes.len() - 3;
    bytes[at] = if bytes[at] == b'7' { b'8' } else { b'7' };
    std::fs::write(p, bytes).unwrap();
}

fn keep_lines(p: &Path, keep: fn(usize) -> usize) {
    let text = std::fs::read_to_string(p).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept: String = lines[..keep(lines.len())]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(p, kept).unwrap();
}

const DAMAGES: [Damage; 6] = [
    ("a byte of raw.csv changed", "raw.csv", |d| {
        change_one_byte(&d.join("raw.csv"))
    }),
    ("a byte of table.md changed", "table.md", |d| {
        change_one_byte(&d.join("table.md"))
    }),
    ("table.csv deleted", "table.csv", |d| {
        std::fs::remove_file(d.join("table.csv")).unwrap()
    }),
    ("raw.csv cut to half its lines", "raw.csv", |d| {
        keep_lines(&d.join("raw.csv"), |n| n / 2)
    }),
    ("raw.csv cut to its header", "raw.csv", |d| {
        keep_lines(&d.join("raw.csv"), |_| 1)
    }),
    ("commit.json missing", "commit.json", |d| {
        std::fs::remove_file(d.join("commit.json")).unwrap()
    }),
];

/// Asserts a refusal: exit 2, one line on stderr naming `file`.
fn assert_refused(args: &[&str], file: &str, case: &str) {
    let out = dupstream(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{case}: dupstream {args:?} must refuse (exit 2):\n{stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "{case}: {args:?}: one line:\n{stderr}"
    );
    assert!(
        stderr.contains(file),
        "{case}: {args:?}: the refusal names {file}:\n{stderr}"
    );
}

#[test]
fn every_reader_refuses_a_damaged_run_naming_the_file() {
    let dir = scratch("verify-readers");
    let file = experiment(&dir);
    let good = dir.join("good");
    dupstream_ok(&["run", &file, "--quiet", "--out", s(&good)]);
    // The commands that rewrite files of a finished run keep it readable (their entries in
    // commit.json follow what they wrote).
    for cmd in ["compare", "plot", "timing", "report"] {
        dupstream_ok(&[cmd, s(&good)]);
    }
    dupstream_ok(&["leaderboard", s(&good)]);
    let theory = dir.join("theory");
    for (case, named, damage) in DAMAGES {
        let bad = dir.join(case.replace(' ', "-"));
        copy_dir(&good, &bad);
        damage(&bad);
        let b = s(&bad);
        let commands: [Vec<&str>; 9] = [
            vec!["leaderboard", b],
            vec!["report", b],
            vec!["compare", b],
            vec!["compare", s(&good), b],
            vec!["plot", b],
            vec!["timing", b],
            vec!["theory", "deng-fig1", "--out", s(&theory), "--sim", b],
            vec!["migrate", b],
            vec!["report", s(&dir)],
        ];
        for args in commands {
            // `migrate` is for directories of versions before the commit record.
            if args[0] == "migrate" && named == "commit.json" {
                continue;
            }
            // `report DIR` over a directory of runs names the damaged run's file too.
            assert_refused(&args, named, case);
        }
        let _ = std::fs::remove_dir_all(&bad);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A repository in miniature: one experiment file, its canonical run, a README with a block
/// generated from it.
fn repository(name: &str) -> (PathBuf, PathBuf) {
    let root = scratch(name);
    let exp_dir = root.join("experiments/tiny");
    std::fs::create_dir_all(&exp_dir).unwrap();
    let file = experiment(&root);
    std::fs::rename(root.join("exp/values.csv"), exp_dir.join("values.csv")).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let file = write(&exp_dir, "lb-tiny.toml", &text);
    let _ = std::fs::remove_dir_all(root.join("exp"));
    let run = root.join("results/lb-tiny/run");
    dupstream_ok(&["run", &file, "--quiet", "--out", s(&run)]);
    write(
        &root.join("results"),
        "canonical.toml",
        "[runs]\nlb-tiny = \"run\"\n",
    );
    write(
        &root,
        "README.md",
        "# Tiny\n\n<!-- generated: table lb-tiny -->\n<!-- end generated -->\n",
    );
    (root, run)
}

#[test]
fn docs_write_refuses_a_damaged_canonical_run() {
    let (root, run) = repository("verify-docs");
    let r = s(&root);
    dupstream_ok(&["docs", "--write", "--root", r]);
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("table.md"), "{readme}");
    dupstream_ok(&["docs", "--check", "--root", r]);
    let good = root.join("good");
    copy_dir(&run, &good);
    for (case, named, damage) in DAMAGES {
        damage(&run);
        // Written by hand: the block must not follow the damaged run.
        std::fs::write(
            root.join("README.md"),
            "# Tiny\n\n<!-- generated: table lb-tiny -->\nold\n<!-- end generated -->\n",
        )
        .unwrap();
        let out = dupstream(&["docs", "--write", "--root", r]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{case}: {stderr}");
        assert!(stderr.contains(named), "{case}: {stderr}");
        assert!(
            std::fs::read_to_string(root.join("README.md"))
                .unwrap()
                .contains("\nold\n"),
            "{case}: docs --write wrote from a damaged run"
        );
        let out = dupstream(&["docs", "--check", "--root", r]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{case}: {stderr}");
        assert!(stderr.contains(named), "{case}: {stderr}");
        let _ = std::fs::remove_dir_all(&run);
        copy_dir(&good, &run);
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn docs_check_fails_when_an_experiment_file_changes_after_its_canonical_run() {
    let (root, _) = repository("verify-stale");
    let r = s(&root);
    dupstream_ok(&["docs", "--write", "--root", r]);
    dupstream_ok(&["docs", "--check", "--root", r]);
    // A comment or a key's layout is no change; a value is.
    let file = root.join("experiments/tiny/lb-tiny.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        format!("# a comment\n{}", text.replace("n = 60_000", "n = 60000")),
    )
    .unwrap();
    dupstream_ok(&["docs", "--check", "--root", r]);
    std::fs::write(&file, text.replace("k = 2\n", "k = 3\n")).unwrap();
    for mode in ["--check", "--write"] {
        let out = dupstream(&["docs", mode, "--root", r]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{mode}: {stderr}");
        assert!(
            stderr.contains("experiments/tiny/lb-tiny.toml: changed after its canonical run")
                && stderr.contains("algorithm[1].k"),
            "{mode}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
