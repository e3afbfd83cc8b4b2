//! The leaderboard: settings tuned on the first seed and scored on the others, and
//! LEADERBOARD.md generated from the committed results.

use crate::util::{dupstream, dupstream_ok, root, scratch, write};
use std::collections::BTreeMap;

pub const TUNED: &str = r#"name = "lb-tiny"
description = "two structures, one with a grid of settings"

[stream]
kind = "shuffled"
n = 60_000
distinct_fraction = 0.3
seed = 1

[grid]
memory = ["8KB", "32KB"]
seeds = [7, 8, 9]
budget = "held"

[[algorithm]]
label = "Bloom"
name = "bloom"
k = [1, 2, 4]

[[algorithm]]
label = "BSBF"
name = "bsbf"
k = 2

[metrics]
checkpoint_every = 20_000
window = 10_000
warmup = 20_000
"#;

/// The rows of a run's raw.csv at `position`: (config, seed, run size) → (held bits, error
/// in %).
fn finals(raw: &std::path::Path, position: &str) -> BTreeMap<(String, String, u64), (u64, f64)> {
    let mut r = csv::Reader::from_path(raw).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n);
    let held = col("memory_bits_held")
        .or(col("memory_bits_budget"))
        .unwrap();
    let (c, s, m, p) = (
        col("config").unwrap(),
        col("seed").unwrap(),
        col("memory_nominal_bits").unwrap(),
        col("position").unwrap(),
    );
    let (fpr, fnr) = (col("fpr").unwrap(), col("fnr").unwrap());
    let mut out = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        if rec[p] == *position {
            let e: f64 = rec[fpr].parse::<f64>().unwrap() + rec[fnr].parse::<f64>().unwrap();
            out.insert(
                (
                    rec[c].to_string(),
                    rec[s].to_string(),
                    rec[m].parse().unwrap(),
                ),
                (rec[held].parse().unwrap(), e * 100.0),
            );
        }
    }
    out
}

/// Rule 2 and 4, end to end: a column's entry is the configuration and run size that fits the
/// column's budget + 1 % with the least error on the tuning seed (7), scored on the others.
#[test]
fn entries_are_chosen_on_the_tuning_seed_among_what_fits_and_scored_on_the_others() {
    let dir = scratch("leaderboard");
    let since = TUNED.replace("window = 10_000\nwarmup = 20_000\n", "");
    let file = write(&dir, "lb.toml", &since);
    let out = dir.join("run");
    dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(
        &dupstream_ok(&["leaderboard", out.to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    let boards = json.as_array().unwrap();
    assert_eq!(boards.len(), 1, "one since-start board");
    let board = &boards[0];
    assert_eq!(board["track"], "since_start");
    assert_eq!(board["scored_seeds"], serde_json::json!([8, 9]));
    let finals = finals(&out.join("raw.csv"), "60000");
    let row = board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["family"] == "Bloom")
        .unwrap();
    for (col, cell) in board["columns"]
        .as_array()
        .unwrap()
        .iter()
        .zip(row["cells"].as_array().unwrap())
    {
        let budget = col["budget_bits"].as_u64().unwrap() as f64;
        let fits: Vec<(&String, u64)> = finals
            .iter()
            .filter(|((c, s, _), (held, _))| {
                c.starts_with("Bloom") && s == "7" && *held as f64 <= budget * 1.01
            })
            .map(|((c, _, m), _)| (c, *m))
            .collect();
        let best = fits
            .iter()
            .min_by(|a, b| {
                let f = |x: &(&String, u64)| finals[&(x.0.clone(), "7".into(), x.1)].1;
                f(a).total_cmp(&f(b))
            })
            .unwrap();
        assert_eq!(cell["config"], *best.0, "{cell}");
        assert_eq!(cell["run_nominal_bits"], best.1, "{cell}");
        assert_eq!(cell["candidates"], fits.len());
        let mean = (finals[&(best.0.clone(), "8".into(), best.1)].1
            + finals[&(best.0.clone(), "9".into(), best.1)].1)
            / 2.0;
        assert!(
            (cell["error_pct"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{cell}"
        );
        assert!(cell["held_bits"].as_f64().unwrap() <= budget * 1.01);
    }
    let md =
        String::from_utf8(dupstream_ok(&["leaderboard", out.to_str().unwrap()]).stdout).unwrap();
    assert!(
        md.contains("tuned on seed 7's stream (another generated stream); scored on seeds 8, 9"),
        "{md}"
    );
    for rule in dupstream_runner::report::leaderboard::RULES {
        assert!(md.contains(rule), "the document states every rule: {rule}");
    }
    // The windowed track: the error after the warm-up.
    let file = write(&dir, "lbw.toml", TUNED);
    let out = dir.join("runw");
    dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(
        &dupstream_ok(&["leaderboard", out.to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(json[0]["track"], "windowed");
    assert_eq!(json[0]["warmup"], 20_000);
    let md =
        String::from_utf8(dupstream_ok(&["leaderboard", out.to_str().unwrap()]).stdout).unwrap();
    assert!(md.contains("over elements 20001–60000"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// LEADERBOARD.md is what `just leaderboard-doc` writes from the committed results; an edited
/// number fails the check, naming the line.
#[test]
fn leaderboard_md_is_generated_from_the_results() {
    let doc = root().join("LEADERBOARD.md");
    dupstream_ok(&[
        "leaderboard",
        "results",
        "--prefix",
        "leaderboard-",
        "--canonical",
        "results/canonical.toml",
        "--check",
        doc.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&doc).unwrap();
    let (i, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("| ") && l.contains("**1**: "))
        .unwrap();
    let edited = text.replacen(line, &line.replacen("**1**: ", "**2**: ", 1), 1);
    let dir = scratch("leaderboard-doc");
    let copy = write(&dir, "LEADERBOARD.md", &edited);
    let out = dupstream(&[
        "leaderboard",
        "results",
        "--prefix",
        "leaderboard-",
        "--canonical",
        "results/canonical.toml",
        "--check",
        &copy,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("LEADERBOARD.md:{}:", i + 1)), "{err}");
}

/// `--canonical FILE` takes the runs FILE names, whatever else (a user's newer runs) lies
/// beside them: here two runs of one experiment (different seeds), the canonical one the
/// older.
#[cfg(unix)]
#[test]
fn canonical_takes_the_named_runs_not_the_latest() {
    let dir = scratch("leaderboard-canonical");
    let results = dir.join("results");
    let old = results.join("lb-tiny/old");
    let new = results.join("lb-tiny/new");
    for (out, seeds) in [(&old, "[7, 8, 9]"), (&new, "[7, 8, 10]")] {
        let text = TUNED.replace("seeds = [7, 8, 9]", &format!("seeds = {seeds}"));
        let file = write(&dir, "lb-tiny.toml", &text);
        dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    }
    let canonical = write(&results, "canonical.toml", "[runs]\nlb-tiny = \"old\"\n");
    let json = |args: &[&str]| {
        let mut all = vec!["leaderboard", "--json"];
        all.extend_from_slice(args);
        String::from_utf8(dupstream_ok(&all).stdout).unwrap()
    };
    let named = json(&[results.to_str().unwrap(), "--canonical", &canonical]);
    assert_eq!(named, json(&[old.to_str().unwrap()]));
    assert_ne!(named, json(&[new.to_str().unwrap()]));
    // A named run that is not there is an error naming it, not a board left out.
    let gone = write(&results, "gone.toml", "[runs]\nlb-tiny = \"gone\"\n");
    let out = dupstream(&[
        "leaderboard",
        results.to_str().unwrap(),
        "--canonical",
        &gone,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lb-tiny = \"gone\""), "{stderr}");
    // A file without `[runs]`.
    let bare = write(&results, "bare.toml", "runs = 3\n");
    let out = dupstream(&[
        "leaderboard",
        results.to_str().unwrap(),
        "--canonical",
        &bare,
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `[runs]` table"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A repeated seed (`seeds = [7, 8, 7]`) is one replicate: the tuning seed is never scored
/// (issue 38: it was, as the third seed).
#[test]
fn a_repeated_seed_does_not_score_the_tuning_seed() {
    let dir = scratch("leaderboard-repeated-seed");
    let file = write(
        &dir,
        "lb.toml",
        &TUNED.replace("seeds = [7, 8, 9]", "seeds = [7, 8, 7]"),
    );
    let out = dir.join("run");
    dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    let json = dupstream_ok(&["leaderboard", "--json", out.to_str().unwrap()]);
    let boards: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    for b in boards.as_array().unwrap() {
        assert_eq!(b["tuning_seed"], serde_json::json!(7), "{b}");
        assert_eq!(b["scored_seeds"], serde_json::json!([8]), "{b}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
