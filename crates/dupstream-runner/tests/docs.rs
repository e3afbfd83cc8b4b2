//! The documents cannot go stale: every generated block of README.md, REPRODUCTION.md,
//! docs/ and results/README.md is what `dupstream docs --write` writes from the committed
//! results, and results/ holds the canonical runs only.

use crate::util::{dupstream, root};
use dupstream_runner::report::docs::{BEGIN, Catalogue, END};

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
