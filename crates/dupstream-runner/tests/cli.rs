//! The command line: help, bad input (exit 2, one line naming file/line/key, nothing
//! written), determinism across thread counts, resume.

use crate::util::{dupstream, dupstream_ok, scratch};
use std::path::Path;

const SMALL: &str = r#"name = "small"
description = "a small mixed experiment for CLI tests"

[stream]
kind = "uniform"
n = 200_000
distinct_fraction = 0.5
seed = 11

[grid]
memory = ["64KB", "2^20 bits"]

[[algorithm]]
name = "exact"

[metrics]
checkpoints = 3
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn help_is_complete_and_has_examples() {
    let out = dupstream_ok(&["run", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--scale",
        "--threads",
        "--out",
        "--resume",
        "Examples:",
        "table7.toml",
    ] {
        assert!(text.contains(needle), "run --help lacks {needle}:\n{text}");
    }
    let out = dupstream_ok(&["--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["run", "list", "plot", "compare"] {
        assert!(text.contains(needle), "--help lacks {needle}");
    }
}

fn assert_config_error(text: &str, line: usize, key: &str) {
    let dir = scratch(&format!("bad-{key}"));
    let file = write(&dir, "bad.toml", text);
    let results = dir.join("results");
    let out = dupstream(&["run", &file, "--results-root", results.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "expected exit 2, got {:?}: {stderr}",
        out.status.code()
    );
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "error must be one line: {stderr}"
    );
    assert!(
        stderr.contains(&format!("bad.toml:{line}:")),
        "no file:line {line} in: {stderr}"
    );
    assert!(stderr.contains(key), "key `{key}` not named in: {stderr}");
    assert!(
        !results.exists(),
        "a results folder was created for a bad experiment"
    );
}

#[test]
fn unknown_key_is_rejected_with_its_line() {
    assert_config_error(
        &SMALL.replace("seed = 11", "seed = 11\nsede = 12"),
        9,
        "sede",
    );
}

#[test]
fn bad_unit_is_rejected_with_its_line() {
    assert_config_error(&SMALL.replace("\"64KB\"", "\"64 parsecs\""), 11, "memory");
}

#[test]
fn unknown_algorithm_is_rejected_with_its_line() {
    assert_config_error(
        &SMALL.replace("name = \"exact\"", "name = \"bloomier\""),
        14,
        "name",
    );
}

#[test]
fn unknown_algorithm_parameter_is_rejected_with_its_line() {
    assert_config_error(
        &SMALL.replace("name = \"exact\"", "name = \"exact\"\nkk = 3"),
        15,
        "kk",
    );
}

#[test]
fn raw_csv_is_byte_identical_across_thread_counts() {
    let dir = scratch("determinism");
    let file = write(&dir, "small.toml", SMALL);
    let a = dir.join("t1");
    let b = dir.join("t2");
    dupstream_ok(&[
        "run",
        &file,
        "--threads",
        "1",
        "--quiet",
        "--out",
        a.to_str().unwrap(),
    ]);
    dupstream_ok(&[
        "run",
        &file,
        "--threads",
        "2",
        "--quiet",
        "--out",
        b.to_str().unwrap(),
    ]);
    let ra = std::fs::read(a.join("raw.csv")).unwrap();
    let rb = std::fs::read(b.join("raw.csv")).unwrap();
    assert!(!ra.is_empty());
    assert!(
        ra == rb,
        "raw.csv differs between --threads 1 and --threads 2"
    );
    for f in [
        "table.md",
        "table.csv",
        "manifest.json",
        "run.toml",
        "streams.csv",
    ] {
        assert!(a.join(f).is_file(), "{f} missing");
    }
    // The recorded run.toml re-runs to the same result.
    let c = dir.join("again");
    dupstream_ok(&[
        "run",
        a.join("run.toml").to_str().unwrap(),
        "--quiet",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(c.join("raw.csv")).unwrap() == ra,
        "run.toml does not reproduce raw.csv"
    );
    // plot and compare work from the results alone.
    dupstream_ok(&["plot", a.to_str().unwrap()]);
}

/// Structures whose measured heap differs from what they report (an exact set's empty slots, a
/// buffer's index, a window's queue), four cells to a thread so that cells share threads.
const HELD: &str = r#"name = "held"
description = "measured memory across thread counts"

[stream]
kind = "uniform"
n = 100_000
distinct_fraction = 0.5
seed = 5

[grid]
memory = ["2^16 bits", "2^18 bits"]

[metrics]
checkpoints = 3
window = 5000

[[algorithm]]
name = "exact"

[[algorithm]]
name = "lru_buffering"

[[algorithm]]
name = "cuckoo"

[[algorithm]]
name = "bloom"
k = 2

[[algorithm]]
name = "exact_window"
window = 500
"#;

/// The column of `name` in a CSV header.
fn column(text: &str, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let i = r.headers().unwrap().iter().position(|h| h == name).unwrap();
    r.records().map(|rec| rec.unwrap()[i].to_string()).collect()
}

/// `memory_bits_held` is measured for every row (the structure's own allocations, counted on
/// its cell's thread), never below a structure's state, never decreasing along a cell, and the
/// same bytes at one and two threads.
#[test]
fn memory_held_is_measured_and_the_same_at_any_thread_count() {
    let dir = scratch("held");
    let file = write(&dir, "held.toml", HELD);
    let outs: Vec<_> = ["1", "2"]
        .iter()
        .map(|t| {
            let out = dir.join(format!("t{t}"));
            dupstream_ok(&[
                "run",
                &file,
                "--threads",
                t,
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ]);
            out
        })
        .collect();
    let raw = std::fs::read_to_string(outs[0].join("raw.csv")).unwrap();
    assert!(
        raw == std::fs::read_to_string(outs[1].join("raw.csv")).unwrap(),
        "raw.csv differs between --threads 1 and --threads 2"
    );
    let held: Vec<u64> = column(&raw, "memory_bits_held")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let used: Vec<u64> = column(&raw, "memory_bits_used")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let algorithm = column(&raw, "algorithm");
    let cell = column(&raw, "cell");
    assert_eq!(held.len(), 30, "10 cells, 3 checkpoints");
    for i in 0..held.len() {
        // Every structure holds at least the state it reports.
        assert!(
            held[i] >= used[i],
            "row {i}: {} holds {} < its reported {}",
            algorithm[i],
            held[i],
            used[i]
        );
        if i > 0 && cell[i] == cell[i - 1] {
            assert!(held[i] >= held[i - 1], "row {i}: the peak decreased");
        }
    }
    let cells = std::fs::read_to_string(outs[0].join("cells.csv")).unwrap();
    let finals: Vec<String> = column(&cells, "memory_bits_held");
    assert_eq!(finals.len(), 10);
    assert!(finals.iter().all(|v| v.parse::<u64>().unwrap() > 0));
}

/// `[grid] budget = "held"`: the windowed structures of the leaderboard, and two whose held
/// bits are several times their state (LRU buffering's index, the cuckoo's linked cells), at
/// budgets where their fixed part is a large share, each hold at most their budget, measured,
/// along the whole stream, built within a smaller state budget; a structure whose fixed part
/// alone is over the smallest budget is left out with a warning.
#[test]
fn a_held_budget_bounds_what_every_structure_holds() {
    let dir = scratch("held-budget");
    let names = [
        "bloom",
        "sbf",
        "swamp",
        "naor_yogev",
        "aged_cuckoo",
        "timing_bloom",
        "sw_bf",
        "lru_buffering",
        "cuckoo",
    ];
    let algorithms = names
        .iter()
        .map(|n| {
            format!(
                "[[algorithm]]\nname = \"{n}\"\n{}",
                match *n {
                    "bloom" => "k = 2\n",
                    "sbf" => "fps = 0.1\n",
                    "lru_buffering" => "",
                    // Its linked cells hold several times their fingerprints' bits.
                    "cuckoo" => "f = 6\nb = 1\n",
                    _ => "window = 500\n",
                }
            )
        })
        .collect::<String>();
    let text = format!(
        "name = \"held-budget\"\ndescription = \"held\"\n[stream]\nkind = \"uniform\"\nn = 20_000\ndistinct_fraction = 0.5\nseed = 5\n[grid]\nmemory = [\"1500 bits\", \"4000 bits\", \"40000 bits\"]\nunfit = \"skip\"\nbudget = \"held\"\n[metrics]\ncheckpoints = 2\nwindow = 500\n{algorithms}"
    );
    let file = write(&dir, "held.toml", &text);
    let out = dir.join("out");
    let run = dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("cannot be built at 1500 bits"), "{stderr}");
    let raw = std::fs::read_to_string(out.join("raw.csv")).unwrap();
    let num = |name: &str| -> Vec<u64> {
        column(&raw, name)
            .iter()
            .map(|v| v.parse().unwrap())
            .collect()
    };
    let (nominal, budget, held) = (
        num("memory_nominal_bits"),
        num("memory_bits_budget"),
        num("memory_bits_held"),
    );
    let algorithm = column(&raw, "algorithm");
    for name in names {
        assert!(algorithm.iter().any(|a| a == name), "{name} ran at no size");
    }
    for i in 0..held.len() {
        assert!(
            held[i] <= nominal[i] && budget[i] < nominal[i],
            "row {i}: {} at {} holds {} (state budget {})",
            algorithm[i],
            nominal[i],
            held[i],
            budget[i]
        );
    }
}

#[test]
fn resume_skips_finished_cells_and_gives_the_same_result() {
    let dir = scratch("resume");
    let file = write(&dir, "small.toml", SMALL);
    let full = dir.join("full");
    dupstream_ok(&["run", &file, "--quiet", "--out", full.to_str().unwrap()]);
    // Simulate an interruption after cell 0: keep only its part files.
    let part = dir.join("part");
    std::fs::create_dir_all(part.join("cells")).unwrap();
    for f in ["cell-00000.csv", "cell-00000.json", ".digest"] {
        let from = if f == ".digest" {
            full.join(f)
        } else {
            full.join("cells").join(f)
        };
        let to = if f == ".digest" {
            part.join(f)
        } else {
            part.join("cells").join(f)
        };
        std::fs::copy(from, to).unwrap();
    }
    let out = dupstream_ok(&["run", &file, "--resume", "--out", part.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("(resumed)"),
        "no cell was resumed: {stderr}"
    );
    assert!(
        std::fs::read(part.join("raw.csv")).unwrap()
            == std::fs::read(full.join("raw.csv")).unwrap()
    );
}
