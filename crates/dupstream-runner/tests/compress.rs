//! `[output] compress = true`: `raw.csv`, `cells.csv` and `manifest.json` stored as `.gz`,
//! byte-identical across thread counts, after a resume and after a shard merge, and read by
//! every command as the plain files are.

use crate::util::{dupstream, dupstream_ok, scratch, write};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Two seeds, three structures, two memory sizes: 12 cells.
const PLAIN: &str = r#"name = "compressed"
description = "a small sweep stored compressed"

[stream]
kind = "uniform"
n = 60_000
distinct_fraction = 0.5

[grid]
memory = ["16KB", "2^18 bits"]
seeds = [3, 4]

[[algorithm]]
name = "exact"

[[algorithm]]
name = "bloom"
k = 3

[[algorithm]]
name = "lru_buffering"

[metrics]
checkpoints = 3

[output]
charts = ["rates_vs_length", "pareto"]
"#;

fn compressed() -> String {
    format!("{PLAIN}compress = true\n")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run(file: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["run", file, "--quiet", "--out", s(out)];
    args.extend_from_slice(extra);
    dupstream_ok(&args);
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn read(p: PathBuf) -> Vec<u8> {
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_compressed_run_stores_gz_files_holding_the_plain_bytes() {
    let dir = scratch("compress-run");
    let plain_file = write(&dir, "plain.toml", PLAIN);
    let gz_file = write(&dir, "gz.toml", &compressed());
    let (plain, one, two) = (dir.join("plain"), dir.join("t1"), dir.join("t2"));
    run(&plain_file, &plain, &[]);
    run(&gz_file, &one, &["--threads", "1"]);
    run(&gz_file, &two, &["--threads", "2"]);
    for name in ["raw.csv", "cells.csv", "manifest.json"] {
        assert!(!one.join(name).exists(), "{name} stored plain");
        assert!(
            one.join(format!("{name}.gz")).is_file(),
            "{name}.gz missing"
        );
    }
    // The same bytes as a plain run's once decompressed, and the same compressed bytes at
    // any thread count.
    assert_eq!(gunzip(&one.join("raw.csv.gz")), read(plain.join("raw.csv")));
    assert!(read(one.join("raw.csv.gz")) == read(two.join("raw.csv.gz")));
    let cells = String::from_utf8(gunzip(&one.join("cells.csv.gz"))).unwrap();
    assert_eq!(cells.lines().count(), 13, "a header and 12 cells");
    let manifest: serde_json::Value =
        serde_json::from_slice(&gunzip(&one.join("manifest.json.gz"))).unwrap();
    assert_eq!(manifest["experiment"], "compressed");
    // The other files are as a plain run's; the commit record lists what is stored.
    for name in ["streams.csv", "table.csv", "table.md"] {
        assert!(read(one.join(name)) == read(plain.join(name)), "{name}");
    }
    let commit: serde_json::Value = serde_json::from_slice(&read(one.join("commit.json"))).unwrap();
    let files: Vec<&str> = commit["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for name in ["raw.csv.gz", "cells.csv.gz", "manifest.json.gz", "run.toml"] {
        assert!(files.contains(&name), "{name} not committed: {files:?}");
    }
    assert!(!files.contains(&"raw.csv"), "{files:?}");

    // Every reader takes the compressed files as the plain ones.
    dupstream_ok(&["plot", s(&one)]);
    let vs = dupstream_ok(&["compare", s(&plain), s(&one), "--json"]);
    let vs: serde_json::Value = serde_json::from_slice(&vs.stdout).unwrap();
    assert!(!vs["rows"].as_array().unwrap().is_empty());
    assert!(
        vs["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["diff_pp"].as_f64() == Some(0.0)),
        "a compressed run reads back other values"
    );
    dupstream_ok(&["timing", s(&one)]);
    dupstream_ok(&["report", s(&one)]);
    let page = std::fs::read_to_string(one.join("index.html")).unwrap();
    assert!(page.contains("raw.csv.gz"), "the file list links the .gz");
    assert!(
        page.contains("lru_buffering"),
        "the cells table is on the page"
    );
    let tree = dupstream_ok(&["report", s(&dir)]);
    assert!(tree.status.success());
    assert!(dir.join("index.html").is_file());
    // migrate rewrites in place and keeps the form.
    let before = read(one.join("raw.csv.gz"));
    dupstream_ok(&["migrate", s(&one)]);
    assert!(!one.join("raw.csv").exists());
    assert!(read(one.join("raw.csv.gz")) == before);
}

#[test]
fn a_resumed_and_a_merged_compressed_run_equal_a_straight_one() {
    let dir = scratch("compress-resume");
    let file = write(&dir, "gz.toml", &compressed());
    let straight = dir.join("straight");
    run(&file, &straight, &[]);
    let expected = read(straight.join("raw.csv.gz"));

    // Interrupted after two cells: only their part files (and the digest) are there.
    let part = dir.join("resumed");
    std::fs::create_dir_all(part.join("cells")).unwrap();
    std::fs::copy(straight.join(".digest"), part.join(".digest")).unwrap();
    for c in 0..2 {
        for ext in ["csv", "json"] {
            let f = format!("cell-{c:05}.{ext}");
            std::fs::copy(straight.join("cells").join(&f), part.join("cells").join(&f)).unwrap();
        }
    }
    let out = dupstream_ok(&["run", &file, "--resume", "--out", s(&part)]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("(resumed)"));
    assert!(read(part.join("raw.csv.gz")) == expected, "resumed");
    assert!(!part.join("raw.csv").exists());

    // Three shards merged.
    let parts: Vec<PathBuf> = (0..3)
        .map(|i| {
            let out = dir.join(format!("p{i}"));
            let shard = format!("{i}/3");
            run(&file, &out, &["--shard", &shard, "--threads", "1"]);
            out
        })
        .collect();
    let merged = dir.join("merged");
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["--quiet", "--out", s(&merged)]);
    dupstream_ok(&args);
    assert!(read(merged.join("raw.csv.gz")) == expected, "merged");
    assert!(merged.join("cells.csv.gz").is_file() && merged.join("manifest.json.gz").is_file());
}

#[test]
fn compress_must_be_a_boolean() {
    let dir = scratch("compress-bad");
    let file = write(&dir, "bad.toml", &format!("{PLAIN}compress = \"yes\"\n"));
    let out = dupstream(&["check", &file]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = format!("{stdout}{stderr}");
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("bad.toml:28"), "no file:line in: {text}");
    assert!(text.contains("compress"), "key not named in: {text}");
}
