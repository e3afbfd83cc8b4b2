//! `[tuning]`: the tuning seed's stream replaced by a held-out one (here the first half of a
//! replayed file, the others scoring on the second half), run end to end; and a replay
//! `offset` past the end of its file, refused when the run reads it.

use crate::util::{dupstream, dupstream_ok, scratch, write};
use dupstream_runner::plan::{Registry, load_recorded};
use dupstream_runner::record::RawRow;

const TUNED: &str = r#"name = "tuned"
description = "tune on the first half of a file, score on the second"

[stream]
kind = "replay"
format = "lines"
path = "keys.txt"
offset = 30
limit = 30

[tuning]
stream = { path = "tune.txt", offset = 0 }

[grid]
memory = ["256 bits"]
seeds = [5, 6, 7]

[[algorithm]]
name = "bloom"
k = [1, 2]

[metrics]
checkpoints = 2
"#;

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_replay_with_tuning_runs_its_own_stream_for_the_tuning_seed() {
    let dir = scratch("tuning-run");
    let keys: String = (0..60).map(|i| format!("k{}\n", i % 17)).collect();
    write(&dir, "keys.txt", &keys);
    // The tuning file: 30 keys of another alphabet, then more that the offset 0 keeps.
    let tune: String = (0..45).map(|i| format!("t{}\n", i % 11)).collect();
    write(&dir, "tune.txt", &tune);
    std::fs::create_dir_all(dir.join("exp")).unwrap();
    let file = write(
        &dir.join("exp"),
        "t.toml",
        &TUNED
            .replace("\"keys.txt\"", "\"../keys.txt\"")
            .replace("\"tune.txt\"", "\"../tune.txt\""),
    );
    let out = dir.join("results/run");
    dupstream_ok(&["run", &file, "--quiet", "--threads", "1", "--out", s(&out)]);

    let raw = std::fs::read_to_string(out.join("raw.csv")).unwrap();
    let rows: Vec<RawRow> = csv::Reader::from_reader(raw.as_bytes())
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows.len(),
        3 * 2 * 2,
        "3 seeds × 2 configurations × 2 checkpoints"
    );
    for r in &rows {
        // raw.csv's `stream` is the stream each cell ran.
        if r.seed == 5 {
            assert!(r.stream.contains("path=tune.txt"), "{}", r.stream);
            assert!(!r.stream.contains("offset"), "{}", r.stream);
            assert_eq!(r.n, 30, "limit 30 kept from [stream]");
        } else {
            assert!(r.stream.contains("path=keys.txt"), "{}", r.stream);
            assert!(r.stream.contains("offset=30"), "{}", r.stream);
            assert_eq!(r.n, 30);
        }
    }
    // Each stream has its own ground truth: the tuning file's 11 keys, the second half's 17.
    let streams = std::fs::read_to_string(out.join("streams.csv")).unwrap();
    assert_eq!(streams.lines().count(), 4, "{streams}");
    let header: Vec<&str> = streams.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let distinct: Vec<String> = streams
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(col("distinct")).unwrap().to_string())
        .collect();
    assert_eq!(distinct, ["11", "17", "17"], "{streams}");

    // run.toml keeps [tuning] (its path made relative to the results directory) and reads
    // back into the same streams, flags and board labels included.
    let run_toml = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(run_toml.contains("[tuning"), "{run_toml}");
    assert!(run_toml.contains("../../tune.txt"), "{run_toml}");
    let recorded = load_recorded(&out.join("run.toml"), &Registry::builtin()).unwrap();
    let first = &recorded.streams;
    assert_eq!(first.len(), 3);
    assert!(first[0].tuning && !first[1].tuning && !first[2].tuning);
    assert_eq!(first[0].board_label(), first[1].label());
    assert_eq!(
        first[0].label(),
        rows.iter().find(|r| r.seed == 5).unwrap().stream
    );
    assert_eq!(first[1].board_label(), first[1].label());
    // The recorded run checks from its own directory, both files found.
    dupstream_ok(&["check", s(&out.join("run.toml"))]);
    dupstream_ok(&["plot", s(&out)]);
}

#[test]
fn a_tuning_section_with_one_seed_is_refused_at_its_line() {
    let dir = scratch("tuning-one-seed");
    write(&dir, "keys.txt", "a\nb\n");
    write(&dir, "tune.txt", "a\nb\n");
    let file = write(&dir, "t.toml", &TUNED.replace("[5, 6, 7]", "[5]"));
    let out = dupstream(&["check", &file]);
    assert_eq!(out.status.code(), Some(2));
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(err.contains("t.toml:16: key `seeds`"), "{err}");
    assert!(err.contains("at least 2 seeds"), "{err}");
}

#[test]
fn an_offset_past_the_end_of_a_replay_fails_the_run() {
    let dir = scratch("tuning-offset-past");
    write(&dir, "keys.txt", "a\nb\nc\n");
    let text = "name = \"past\"\ndescription = \"d\"\n[stream]\nkind = \"replay\"\nformat = \"lines\"\npath = \"keys.txt\"\noffset = 3\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n";
    let file = write(&dir, "p.toml", text);
    // `check` reads only the header: the file's length is known when the run reads it.
    dupstream_ok(&["check", &file]);
    let out_dir = dir.join("out");
    let out = dupstream(&["run", &file, "--quiet", "--out", s(&out_dir)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`offset` = 3 leaves no key: the file ends after 3 keys"),
        "{err}"
    );
    assert!(!out_dir.join("raw.csv").exists());
}
