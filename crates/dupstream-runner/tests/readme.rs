//! The README cannot rot: every command it shows refers to files, recipes and flags that
//! exist, and its main command is the one the Table 7 regression test runs.

use crate::util::{dupstream_ok, root};

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// Lines of the README's `sh` code blocks.
fn shell_lines() -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in readme().lines() {
        if line.starts_with("```") {
            inside = line.trim() == "```sh";
            continue;
        }
        if inside {
            let cmd = line.split(" #").next().unwrap().trim();
            if !cmd.is_empty() {
                out.push(cmd.to_string());
            }
        }
    }
    out
}

fn recipes() -> Vec<String> {
    std::fs::read_to_string(root().join("justfile"))
        .unwrap()
        .lines()
        .filter(|l| {
            l.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && l.contains(':')
                && !l.contains(":=")
        })
        .map(|l| l.split([' ', ':']).next().unwrap().to_string())
        .collect()
}

#[test]
fn the_first_two_commands_are_the_reproduction_and_the_tests() {
    let lines = shell_lines();
    assert_eq!(
        lines[0],
        "cargo run --release -p dupstream-runner -- run experiments/bera-journal/table7.toml --scale 64",
        "the README's first command must be the scaled Table 7 reproduction the regression test runs"
    );
    assert_eq!(
        lines[1], "cargo nextest run --workspace && cargo test --workspace --doc",
        "the README's second command must be the test command"
    );
    // `set -e` does not stop on a failure left of `&&`: CI must exit on the command's status.
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.lines()
            .any(|l| l.trim() == format!("{} || exit 1", lines[1])),
        ".ci/run must run the README's test command and exit when it fails"
    );
}

#[test]
fn every_file_and_recipe_the_readme_names_exists() {
    let text = readme();
    for word in text.split(|c: char| c.is_whitespace() || "`()[]".contains(c)) {
        let w = word.trim_end_matches([',', '.', ':', ';']);
        let is_path = [
            "experiments/",
            "results/",
            "crates/",
            "scripts/",
            ".ci/",
            "docs/",
        ]
        .iter()
        .any(|p| w.starts_with(p))
            || w == "REPRODUCTION.md";
        // Output directories a command creates (`--out results/theory`) are not expected to exist.
        let output_dir = w.starts_with("results/") && !w.contains('.') && !w.ends_with('/');
        if is_path && !output_dir && !w.contains('<') && !w.contains('*') && !word.contains("...") {
            assert!(
                root().join(w).exists(),
                "README names {w}, which does not exist"
            );
        }
    }
    let recipes = recipes();
    for (i, _) in text.match_indices("just ") {
        let rest = &text[i + 5..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.is_empty() || name.starts_with('-') || !text[..i].ends_with('`') {
            continue;
        }
        assert!(
            recipes.contains(&name),
            "README mentions `just {name}`, which the justfile lacks ({recipes:?})"
        );
    }
}

#[test]
fn every_dupstream_subcommand_and_flag_the_readme_uses_exists() {
    let lines = shell_lines();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("target/release/dupstream ") else {
            continue;
        };
        let sub = rest.split_whitespace().next().unwrap();
        assert!(
            [
                "run",
                "list",
                "plot",
                "compare",
                "merge",
                "slurm",
                "check",
                "estimate",
                "theory",
                "timing",
                "completions",
                "report",
                "docs"
            ]
            .contains(&sub),
            "README uses unknown subcommand {sub}"
        );
        let help = String::from_utf8(dupstream_ok(&[sub, "--help"]).stdout).unwrap();
        // A command may continue on the next lines after a trailing backslash.
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        let mut j = i;
        while lines[j].ends_with('\\') && j + 1 < lines.len() {
            j += 1;
            words.extend(lines[j].split_whitespace());
        }
        for flag in words.iter().filter(|w| w.starts_with("--")) {
            assert!(
                help.contains(flag),
                "README uses `{sub} {flag}`, which `dupstream {sub} --help` does not list"
            );
        }
    }
}

/// Every crate packages both licence texts: each crate's LICENSE-MIT and LICENSE-APACHE read
/// as the root's (`cargo package` copies what they point to).
#[test]
fn every_crate_carries_both_licences() {
    let root = crate::util::root();
    for name in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        assert!(text.len() > 1000, "{name} holds the licence text");
        for c in std::fs::read_dir(root.join("crates")).unwrap() {
            let c = c.unwrap().path();
            if c.join("Cargo.toml").is_file() {
                let here = std::fs::read_to_string(c.join(name))
                    .unwrap_or_else(|e| panic!("{}/{name}: {e}", c.display()));
                assert_eq!(here, text, "{}/{name}", c.display());
            }
        }
    }
    assert!(root.join("CITATION.cff").is_file());
}

/// The justfile's recipes as `just --list` shows them: `(signature, description)`. The
/// description is the recipe's `[doc("…")]`, else the one comment line right above its
/// attributes; a comment of several lines is `None` (just would show only its last line, cut
/// from the sentence it ends).
fn listed_recipes() -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(root().join("justfile")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let is_recipe = line.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && line.contains(':')
            && !line.contains(":=");
        if !is_recipe {
            continue;
        }
        let signature = line.split(':').next().unwrap().trim().to_string();
        let mut above = i;
        let mut doc = None;
        while above > 0 && lines[above - 1].starts_with('[') {
            above -= 1;
            if let Some(d) = lines[above].strip_prefix("[doc(\"") {
                doc = Some(d.trim_end_matches("\")]").to_string());
            }
        }
        if doc.is_none() && above > 0 {
            let comment = lines[above - 1].strip_prefix("# ");
            let continued = above > 1 && lines[above - 2].starts_with('#');
            doc = comment.filter(|_| !continued).map(str::to_string);
        }
        out.push((signature, doc));
    }
    out
}

#[test]
fn every_recipe_has_a_description_that_fits_its_line_of_just_list() {
    let listed = listed_recipes();
    let width = listed.iter().map(|(s, _)| s.chars().count()).max().unwrap();
    for (signature, doc) in &listed {
        let Some(doc) = doc else {
            panic!(
                "justfile: recipe `{signature}` has no one-line description for `just --list` (a comment of several lines shows cut: give it a [doc(\"…\")])"
            );
        };
        // `just --list`: 4 spaces, the signature padded to the longest, " # ", the description.
        let line = 4 + width + 3 + doc.chars().count();
        assert!(
            line <= 100,
            "justfile: `just --list` shows `{signature}` on {line} columns, over 100: {doc}"
        );
    }
    assert!(
        listed.iter().any(|(s, _)| s.starts_with("slurm ")),
        "{listed:?}"
    );
}

#[test]
fn every_section_the_justfile_points_to_exists() {
    let text = std::fs::read_to_string(root().join("justfile")).unwrap();
    let mut checked = 0;
    for (i, _) in text.match_indices(", \"") {
        let before = &text[..i];
        let file = before
            .rsplit(|c: char| c == '(' || c.is_whitespace())
            .next()
            .unwrap();
        let file = if file == "README" { "README.md" } else { file };
        if !file.ends_with(".md") {
            continue;
        }
        let section = text[i + 3..].split('"').next().unwrap();
        let doc = std::fs::read_to_string(root().join(file))
            .unwrap_or_else(|e| panic!("justfile points to {file}: {e}"));
        assert!(
            doc.lines()
                .any(|l| l.starts_with('#') && l.trim_start_matches('#').trim() == section),
            "justfile points to the section \"{section}\" of {file}, which has none"
        );
        checked += 1;
    }
    assert!(
        checked > 0,
        "no (file, \"section\") pointer found in the justfile"
    );
}
