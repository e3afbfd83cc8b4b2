//! The leaderboard: settings tuned on the first seed and scored on the others, and
//! LEADERBOARD.md generated from the committed results.

use crate::util::{dupstream, dupstream_ok, root, scratch, write};

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

#[test]
fn settings_are_chosen_on_the_tuning_seed_and_scored_on_the_others() {
    let dir = scratch("leaderboard");
    let file = write(&dir, "lb.toml", TUNED);
    let out = dir.join("run");
    dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(
        &dupstream_ok(&["leaderboard", out.to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    let boards = json.as_array().unwrap();
    assert_eq!(boards.len(), 2, "since-start and windowed");
    // The rows of raw.csv: (config, seed, memory) → final (fpr + fnr) in %.
    let mut r = csv::Reader::from_path(out.join("raw.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (c, s, m, p, fpr, fnr) = (
        col("config"),
        col("seed"),
        col("memory_nominal_bits"),
        col("position"),
        col("fpr"),
        col("fnr"),
    );
    let mut finals = std::collections::BTreeMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        if rec[p] == *"60000" {
            let e: f64 = rec[fpr].parse::<f64>().unwrap() + rec[fnr].parse::<f64>().unwrap();
            finals.insert(
                (rec[c].to_string(), rec[s].to_string(), rec[m].to_string()),
                e * 100.0,
            );
        }
    }
    let since = &boards[0];
    assert_eq!(since["track"], "since_start");
    assert_eq!(since["tuning_seed"], 7);
    assert_eq!(since["scored_seeds"], serde_json::json!([8, 9]));
    for e in since["entries"].as_array().unwrap() {
        if e["structure"] != "Bloom" {
            continue;
        }
        let mem = e["memory_nominal_bits"].to_string();
        // The chosen configuration is the best of the three on seed 7 ...
        let best = ["Bloom k=1", "Bloom k=2", "Bloom k=4"]
            .iter()
            .min_by(|a, b| {
                let f = |x: &&&str| finals[&(x.to_string(), "7".to_string(), mem.clone())];
                f(a).total_cmp(&f(b))
            })
            .unwrap();
        assert_eq!(e["config"], *best, "{e}");
        assert_eq!(e["candidates"], 3);
        // ... and its score the mean over seeds 8 and 9 only.
        let mean = (finals[&(best.to_string(), "8".into(), mem.clone())]
            + finals[&(best.to_string(), "9".into(), mem.clone())])
            / 2.0;
        assert!(
            (e["error_pct"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{e}"
        );
    }
    let windowed = &boards[1];
    assert_eq!(windowed["track"], "windowed");
    assert_eq!(windowed["warmup"], 20_000);
    let md =
        String::from_utf8(dupstream_ok(&["leaderboard", out.to_str().unwrap()]).stdout).unwrap();
    assert!(
        md.contains("chosen on seed 7, scored on seeds 8, 9"),
        "{md}"
    );
    assert!(md.contains("after a warm-up of 20000"), "{md}");
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
        .find(|(_, l)| l.starts_with("| 1 |"))
        .unwrap();
    let edited = text.replacen(line, &line.replacen('.', ",", 1), 1);
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
