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

/// The filters README's speed tables are generated from the committed run of `just peers`.
#[test]
fn the_filters_readme_states_the_peer_tables_in_generated_blocks() {
    let readme =
        std::fs::read_to_string(root().join("crates/dupstream-filters/README.md")).unwrap();
    for block in ["peers", "peers batch"] {
        assert!(
            readme.contains(&format!("{BEGIN}{block} -->")),
            "crates/dupstream-filters/README.md has no generated block `{block}`"
        );
    }
    assert!(
        root()
            .join(dupstream_runner::report::docs::PEERS_CSV)
            .is_file()
    );
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
        .filter_map(|f| {
            f.strip_suffix("/manifest.json")
                .or_else(|| f.strip_suffix("/manifest.json.gz"))
        })
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

/// The catalogue's counts keep apart what a cell stands for (issue 38): every label that a
/// paper's `readings.csv` names is a column of one of its experiment files, and the papers
/// block counts Deng & Rafiei's crawl cells as stand-in (none compared), the QHT authors'
/// columns in their own column (their full-scale runs: 96 cells), E cells of saturated
/// filters apart, and the Bera hypotheses and pseudo-code apart from the faithful columns.
#[test]
fn the_catalogue_counts_readings_apart() {
    use dupstream_runner::report::readings::{FILE, Reading, Readings, count};
    let root = root();
    let catalogue = Catalogue::load(&root).unwrap();
    for paper in ["bera-conference", "bera-journal", "deng", "qht"] {
        let dir = root.join("experiments").join(paper);
        assert!(dir.join(FILE).is_file(), "{paper}: no {FILE}");
        let readings = Readings::load(&dir).unwrap();
        let files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (p.extension().is_some_and(|x| x == "toml"))
                    .then(|| std::fs::read_to_string(p).unwrap())
            })
            .collect();
        for (experiment, label) in readings.names() {
            if label != "*" {
                assert!(
                    files
                        .iter()
                        .any(|f| f.contains(&format!("label = \"{label}\""))),
                    "{paper}/{FILE}: no column `{label}`"
                );
            }
            if experiment != "*" {
                assert!(
                    files
                        .iter()
                        .any(|f| f.contains(&format!("name = \"{experiment}\""))),
                    "{paper}/{FILE}: no experiment `{experiment}`"
                );
            }
        }
    }
    let run = |e: &str| catalogue.runs[e].tolerance.unwrap();
    for e in ["deng-fig4a", "deng-fig4b", "deng-fig4c"] {
        let c = run(e);
        assert!(c.get(Reading::StandIn).1 > 0, "{e}");
        assert_eq!(c.without(Reading::StandIn), Default::default(), "{e}");
    }
    let qht = run("qht-table2-4-u24");
    assert!(qht.get(Reading::SaturatedE).1 > 0);
    assert!(
        qht.get(Reading::Authors).1 > 0,
        "the scale-64 run has them too"
    );
    let authors = run("qht-table2-4-u24-authors");
    assert_eq!(
        authors.get(Reading::Authors).1 + authors.get(Reading::SaturatedE).1,
        48
    );
    let t4 = run("bera-journal-table4");
    assert_eq!(t4.get(Reading::Hypothesis).1, 8, "SBF-rand31");
    assert_eq!(t4.get(Reading::PseudoCode).1, 8, "RSBF-pseudocode");
    // The table's own file, counted again from its table.csv, gives the same.
    let dir = root.join(&catalogue.runs["bera-journal-table4"].dir);
    let again = count(
        &dir.join("table.csv"),
        "bera-journal-table4",
        &Readings::load(&root.join("experiments/bera-journal")).unwrap(),
    );
    assert_eq!(again, Some(t4));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(
            "| faithful columns | hypotheses | pseudo-code readings | the authors' code |"
        )
    );
}
