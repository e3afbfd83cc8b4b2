//! `SCHEMA.md` matches what is written: a small experiment with every optional part (a time
//! window on a timestamped stream, which writes every windowed column; derived series, paper
//! values, charts) is run whole, as two shards and merged; every file of the three
//! directories, every CSV column and every `manifest.json` field must be described in
//! `SCHEMA.md`, and everything it describes as always written must be there. The `--json`
//! outputs of `list`, `check`, `estimate` and `compare` are held to their sections the same way.

use crate::util::{dupstream_ok, root, scratch};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const EXPERIMENT: &str = r#"name = "schema"
description = "every optional part of a results directory"
paper = "none"

[reference]
file = "values.csv"
table = "T"

[stream]
kind = "uniform"
n = 20_000
distinct_fraction = 0.5
seed = 2
time = { process = "even", rate = 20_000.0 }

[grid]
memory = ["1KB", "4KB"]

[[algorithm]]
label = "Buffering"
name = "lru_buffering"

[[algorithm]]
label = "FPBuffering"
name = "fp_buffering"
q = 0.05

[[algorithm]]
label = "SBF"
name = "sbf"
max = 1
k = 2
p = 4

[[derived]]
label = "diff"
kind = "difference"
a = "Buffering"
b = "FPBuffering"

[metrics]
checkpoints = 3
window_seconds = 0.05

[output]
charts = ["rates_vs_memory"]
"#;

const VALUES: &str = "table,metric,value_pct,memory,algorithm,param_k,notes\n\
T,fpr,5,1KB,sbf,2,a made-up value\n\
T,fnr,50,1KB,sbf,3,a value for another k\n";

/// `SCHEMA.md` split into its `## ` sections: heading → the backticked names in the first
/// cell of each table row (a cell may hold several, separated by commas).
fn sections() -> BTreeMap<String, Vec<(String, String)>> {
    let text = std::fs::read_to_string(root().join("SCHEMA.md")).unwrap();
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            current = h.trim().to_string();
            out.entry(current.clone()).or_default();
            continue;
        }
        let Some(row) = line.strip_prefix('|') else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if cells.len() < 2 || cells[0].starts_with("---") {
            continue;
        }
        let rest = cells[1..].join("|");
        for name in backticked(cells[0]) {
            out.entry(current.clone())
                .or_default()
                .push((name, rest.clone()));
        }
    }
    out
}

fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Whether `name` matches a described name, where `<…>` stands for any text and `NNNNN`
/// for digits (`param_<name>`, `cells/cell-NNNNN.csv`, `*.png`).
fn matches(pattern: &str, name: &str) -> bool {
    let p = pattern.replace("NNNNN", "<n>").replace('*', "<n>");
    let mut parts: Vec<&str> = Vec::new();
    let mut rest = p.as_str();
    while let Some(i) = rest.find('<') {
        parts.push(&rest[..i]);
        rest = rest[i..].split_once('>').map_or("", |(_, r)| r);
    }
    parts.push(rest);
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || !name.ends_with(last) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut at = first.len();
    for mid in &parts[1..parts.len() - 1] {
        match name[at..name.len() - last.len()].find(mid) {
            Some(i) => at += i + mid.len(),
            None => return false,
        }
    }
    true
}

/// Every file under `dir`, relative to it, `cells/…` included.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(
                    p.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    out.sort();
    out
}

/// The section describing file `name` (the heading names it in backticks).
fn section_of<'a>(
    s: &'a BTreeMap<String, Vec<(String, String)>>,
    name: &str,
) -> Option<&'a Vec<(String, String)>> {
    s.iter()
        .find(|(h, _)| backticked(h).iter().any(|b| b == name))
        .map(|(_, v)| v)
}

/// The described files of a directory kind: patterns with their `when` cell.
fn described_files(s: &BTreeMap<String, Vec<(String, String)>>) -> Vec<(String, String)> {
    s["Files of a results directory"]
        .iter()
        .map(|(n, rest)| (n.clone(), rest.split('|').next().unwrap_or("").to_string()))
        .collect()
}

/// Checks one results directory: every file described; every file described as written by
/// `kind` present; every CSV's header and the manifest's fields match their sections.
fn check_dir(dir: &Path, kind: &[&str], s: &BTreeMap<String, Vec<(String, String)>>) {
    let described = described_files(s);
    let present = files(dir);
    for f in &present {
        assert!(
            described.iter().any(|(p, _)| matches(p, f)),
            "{}: {f} is written but SCHEMA.md does not describe it",
            dir.display()
        );
    }
    for (p, when) in &described {
        if kind.iter().any(|k| when.trim() == *k) {
            assert!(
                present.iter().any(|f| matches(p, f)),
                "{}: SCHEMA.md says {p} is written ({when}), but it is not there: {present:?}",
                dir.display()
            );
        }
    }
    for f in present.iter().filter(|f| f.ends_with(".csv")) {
        if f.starts_with("cells/") || f == "paper-values.csv" {
            continue;
        }
        let cols = section_of(s, f).unwrap_or_else(|| panic!("SCHEMA.md has no section for {f}"));
        let mut r = csv::Reader::from_path(dir.join(f)).unwrap();
        if std::fs::metadata(dir.join(f)).unwrap().len() == 0 {
            continue;
        }
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        for h in &header {
            assert!(
                cols.iter().any(|(c, _)| matches(c, h)),
                "{f}: column `{h}` is not described in SCHEMA.md"
            );
        }
        for (c, _) in cols {
            assert!(
                header.iter().any(|h| matches(c, h)),
                "{f}: SCHEMA.md describes column `{c}`, which is not written: {header:?}"
            );
        }
    }
    if present.iter().any(|f| f == "manifest.json") {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        check_fields(
            "manifest.json",
            &v,
            &section_of(s, "manifest.json").unwrap().clone(),
        );
    }
}

/// Dotted paths of a JSON value's fields: `a.b`, `list[].c`, and `[].c` for the items of a
/// top-level array. Arrays of scalars are leaves.
fn paths(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(p.clone());
                paths(x, &p, out);
            }
        }
        serde_json::Value::Array(items) => {
            for x in items.iter().filter(|x| x.is_object()) {
                paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// Every field of `v` is described in `cols`, and every described field is in `v`. A field
/// holding objects (`machine`, `files[].error`) is covered by its own fields; an array
/// described whole (`cells[]`) covers its items' fields.
fn check_fields(what: &str, v: &serde_json::Value, cols: &[(String, String)]) {
    let mut found = BTreeSet::new();
    paths(v, "", &mut found);
    let described: BTreeSet<String> = cols
        .iter()
        .map(|(c, _)| c.trim_end_matches("[]").to_string())
        .collect();
    let parent = |p: &str| {
        found.iter().any(|q| {
            q.len() > p.len() && q.starts_with(p) && matches!(q.as_bytes()[p.len()], b'.' | b'[')
        })
    };
    for p in &found {
        let covered =
            described.contains(p) || described.iter().any(|d| p.starts_with(&format!("{d}[].")));
        assert!(
            covered || parent(p),
            "{what}: field `{p}` is not described in SCHEMA.md"
        );
    }
    for d in &described {
        assert!(
            found.contains(d) || parent(d),
            "{what}: SCHEMA.md describes `{d}`, which is not in the output: {found:?}"
        );
    }
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = crate::util::dupstream(args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "dupstream {args:?}: not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn schema_describes_every_file_column_and_field_written() {
    let s = sections();
    let dir = scratch("schema");
    std::fs::write(dir.join("values.csv"), VALUES).unwrap();
    let file = dir.join("schema.toml");
    std::fs::write(&file, EXPERIMENT).unwrap();
    let f = file.to_str().unwrap();
    let run = dir.join("run");
    dupstream_ok(&[
        "run",
        f,
        "--quiet",
        "--threads",
        "2",
        "--out",
        run.to_str().unwrap(),
    ]);
    dupstream_ok(&["timing", run.to_str().unwrap()]);
    let summary = dupstream_ok(&[
        "run",
        f,
        "--json",
        "--threads",
        "2",
        "--out",
        dir.join("run-json").to_str().unwrap(),
    ]);
    check_fields(
        "run --json",
        &serde_json::from_slice(&summary.stdout).unwrap(),
        &s["`dupstream run --json`"],
    );
    check_dir(
        &run,
        &[
            "always",
            "with `[[derived]]`",
            "with `[reference]`",
            "with charts",
            "after `timing`",
        ],
        &s,
    );
    // The tidy files hold what they say.
    let gaps = std::fs::read_to_string(run.join("gaps.csv")).unwrap();
    assert!(gaps.lines().count() > 3, "{gaps}");
    let cells = std::fs::read_to_string(run.join("cells.csv")).unwrap();
    assert_eq!(cells.lines().count(), 1 + 6, "one row per cell: {cells}");
    // The paper's row names k = 3 for SBF's FNR: not scored, and the table says why.
    let table = std::fs::read_to_string(run.join("table.md")).unwrap();
    assert!(table.contains("— (k=2 ≠ paper k=3)"), "{table}");

    let parts = dir.join("parts");
    for i in 0..2 {
        let shard = format!("{i}/2");
        let out = parts.join(i.to_string());
        dupstream_ok(&[
            "run",
            f,
            "--quiet",
            "--shard",
            &shard,
            "--out",
            out.to_str().unwrap(),
        ]);
        check_dir(&out, &["shard part"], &s);
    }
    let merged = dir.join("merged");
    dupstream_ok(&[
        "merge",
        parts.to_str().unwrap(),
        "--quiet",
        "--out",
        merged.to_str().unwrap(),
    ]);
    check_dir(
        &merged,
        &[
            "always",
            "with `[[derived]]`",
            "with `[reference]`",
            "with charts",
            "merge",
        ],
        &s,
    );
    for name in [
        "raw.csv",
        "derived.csv",
        "streams.csv",
        "gaps.csv",
        "table.csv",
    ] {
        assert!(
            std::fs::read(run.join(name)).unwrap() == std::fs::read(merged.join(name)).unwrap(),
            "{name} differs between a run and a merge"
        );
    }

    // The --json outputs.
    let section = |h: &str| s.get(h).unwrap_or_else(|| panic!("no section {h}")).clone();
    check_fields(
        "list --json",
        &json(&["list", "--json"]),
        &section("`dupstream list --json`"),
    );
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("bad.toml"), "name = 3\n").unwrap();
    std::fs::copy(&file, bad.join("schema.toml")).unwrap();
    std::fs::copy(dir.join("values.csv"), bad.join("values.csv")).unwrap();
    // A replay whose data is not here: skipped, neither valid nor invalid.
    let missing = "name = \"gone\"\ndescription = \"d\"\n[stream]\nkind = \"replay\"\npath = \"gone.tsv\"\nformat = \"lines\"\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n";
    std::fs::write(bad.join("gone.toml"), missing).unwrap();
    let checked = json(&["check", bad.to_str().unwrap(), "--json"]);
    assert_eq!(
        (
            checked["valid"].as_u64(),
            checked["invalid"].as_u64(),
            checked["skipped"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    check_fields(
        "check --json",
        &checked,
        &section("`dupstream check --json`"),
    );
    check_fields(
        "estimate --json",
        &json(&[
            "estimate",
            "experiments/qht",
            bad.join("gone.toml").to_str().unwrap(),
            "--scale",
            "64",
            "--json",
        ]),
        &section("`dupstream estimate --json`"),
    );
    check_fields(
        "compare RUN --json",
        &json(&["compare", run.to_str().unwrap(), "--json"]),
        &section("`dupstream compare RUN --json`"),
    );
    let both = json(&[
        "compare",
        run.to_str().unwrap(),
        merged.to_str().unwrap(),
        "--json",
    ]);
    check_fields(
        "compare A B --json",
        &both,
        &section("`dupstream compare RUN_A RUN_B --json`"),
    );
    let rows = both["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|r| r["diff_pp"].as_f64() == Some(0.0)),
        "a merge equals its run"
    );
}

#[test]
fn patterns_match_as_described() {
    assert!(matches("param_<name>", "param_k"));
    assert!(!matches("param_<name>", "params"));
    assert!(matches("cells/cell-NNNNN.csv", "cells/cell-00003.csv"));
    assert!(matches("*.png", "rates_vs_memory-0.png"));
    assert!(!matches("*.png", "x.svg"));
    assert!(matches("raw.csv", "raw.csv"));
}
