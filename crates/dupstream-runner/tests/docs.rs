//! The documents cannot go stale: every generated block of README.md, REPRODUCTION.md,
//! docs/ and results/README.md is what `dupstream docs --write` writes from the committed
//! results, and the repository commits the canonical runs only; a user's own runs beside them
//! change nothing.

use crate::util::{dupstream, root, scratch};
use dupstream_runner::report::docs::{BEGIN, Catalogue, END};
use std::path::Path;

#[test]
fn committed_documents_are_what_dupstream_docs_writes() {
    let out = dupstream(&["docs", "--check"]);
    assert!(
        out.status.success(),
        "the committed documents differ from the committed results; run `just docs`:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_readme_states_table7_and_the_catalogue_in_generated_blocks() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for block in [
        "table bera-journal-table7",
        "run bera-journal-table7",
        "papers",
    ] {
        assert!(
            readme.contains(&format!("{BEGIN}{block} -->")),
            "README.md has no generated block `{block}`"
        );
    }
    let reproduction = std::fs::read_to_string(root().join("REPRODUCTION.md")).unwrap();
    assert!(reproduction.contains(&format!("{BEGIN}catalogue -->")));
}

/// A number edited by hand inside a generated block is found, with its file and block.
#[test]
fn a_number_edited_by_hand_is_found() {
    let catalogue = Catalogue::load(&root()).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let begin = readme
        .find(&format!("{BEGIN}table bera-journal-table7 -->"))
        .unwrap();
    let end = begin + readme[begin..].find(END).unwrap();
    // The first rate of the table, one digit changed.
    let at = begin + readme[begin..end].find("| **").unwrap() + 4;
    let digit = readme[at..].chars().next().unwrap();
    assert!(digit.is_ascii_digit(), "{}", &readme[at..at + 10]);
    let other = if digit == '9' { '8' } else { '9' };
    let edited = format!("{}{other}{}", &readme[..at], &readme[at + 1..]);
    let (regenerated, stale) = catalogue.regenerate("README.md", &edited).unwrap();
    assert!(regenerated == readme, "regeneration must undo the edit");
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert_eq!(stale[0].block, "table bera-journal-table7");
    assert_eq!(stale[0].file, "README.md");
}

/// The repository commits the canonical runs of `results/canonical.toml` and no other run
/// (read from git's index; skipped, saying so, outside a git checkout).
#[test]
fn the_repository_commits_the_canonical_runs_only() {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z", "--", "results"])
        .current_dir(root())
        .output();
    let listed = match out {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout).unwrap(),
        _ => {
            crate::util::skipped("not a git checkout (or no git): tracked results not checked");
            return;
        }
    };
    let tracked: std::collections::BTreeSet<String> = listed
        .split('\0')
        .filter_map(|f| f.strip_suffix("/manifest.json"))
        .map(|d| format!("{d}/"))
        .collect();
    assert!(tracked.len() > 20, "only {} tracked runs", tracked.len());
    let catalogue = Catalogue::load(&root()).unwrap();
    let cited: std::collections::BTreeSet<String> =
        catalogue.runs.values().map(|r| r.dir.clone()).collect();
    let extra: Vec<_> = tracked.difference(&cited).collect();
    let missing: Vec<_> = cited.difference(&tracked).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "committed runs that results/canonical.toml does not name: {extra:?}; canonical runs not committed: {missing:?}"
    );
}

/// Running an experiment (the README's first command) and then the tests must not fail the
/// documents' check: a run that canonical.toml does not name is noted, not an error. Checked
/// on a copy of the repository's documents (symbolic links) with one extra run under
/// results/.
#[cfg(unix)]
#[test]
fn a_users_own_run_beside_the_canonical_ones_is_noted_not_an_error() {
    use std::os::unix::fs::symlink;
    let src = root();
    let dir = scratch("docs-own-run");
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "results" || name == "target" || name == ".git" {
            continue;
        }
        symlink(e.path(), dir.join(&name)).unwrap();
    }
    // results/: every experiment's directory rebuilt from links to its runs.
    for exp in std::fs::read_dir(src.join("results")).unwrap() {
        let exp = exp.unwrap();
        let to = dir.join("results").join(exp.file_name());
        if !exp.path().is_dir() {
            std::fs::create_dir_all(dir.join("results")).unwrap();
            symlink(exp.path(), &to).unwrap();
            continue;
        }
        std::fs::create_dir_all(&to).unwrap();
        for run in std::fs::read_dir(exp.path()).unwrap() {
            let run = run.unwrap();
            symlink(run.path(), to.join(run.file_name())).unwrap();
        }
    }
    // The user's run: a copy of the Table 7 run's manifest and rows under a new name.
    let catalogue = Catalogue::load(&src).unwrap();
    let table7 = &catalogue.runs["bera-journal-table7"];
    let own = dir.join("results/bera-journal-table7/2099-01-01-host-0000000-scale64");
    std::fs::create_dir_all(&own).unwrap();
    for file in ["manifest.json", "raw.csv"] {
        std::fs::copy(Path::new(&src).join(&table7.dir).join(file), own.join(file)).unwrap();
    }
    let out = dupstream(&["docs", "--check", "--root", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: 1 run(s)") && stderr.contains("2099-01-01-host-0000000-scale64"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
