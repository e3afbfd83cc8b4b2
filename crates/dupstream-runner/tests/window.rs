//! `[metrics] window`: every cell scored against the windowed truth as well, its counts
//! appended to `raw.csv`, and checked here against a brute-force model (each position looks
//! back over the last `W` keys) with the same structures replayed through the library.

use crate::util::{dupstream, dupstream_ok, scratch};
use dupstream_filters::hash::hash_key;
use dupstream_runner::plan::seeds::{filter_seed, hash_seed};
use dupstream_runner::record::RawRow;

const WINDOWED: &str = r#"name = "windowed"
description = "since-start and windowed truth on a small stream"

[stream]
kind = "uniform"
n = 6_000
distinct_fraction = 0.4
seed = 3

[grid]
memory = ["1KB", "4KB"]
seeds = [3, 4]

[[algorithm]]
name = "exact"

[[algorithm]]
name = "bloom"
k = 2

[[algorithm]]
name = "swamp"
window = 500

[metrics]
checkpoints = 3
window = 500
"#;

/// Brute force: position `i` is a windowed duplicate iff `keys[i]` occurs in
/// `keys[i - W .. i]`; since-start iff it occurs anywhere before.
fn brute(keys: &[u64], w: usize) -> (Vec<bool>, Vec<bool>) {
    let since = (0..keys.len())
        .map(|i| keys[..i].contains(&keys[i]))
        .collect();
    let win = (0..keys.len())
        .map(|i| keys[i.saturating_sub(w)..i].contains(&keys[i]))
        .collect();
    (since, win)
}

#[test]
fn windowed_counts_match_brute_force_and_come_last() {
    let dir = scratch("window");
    let file = dir.join("w.toml");
    std::fs::write(&file, WINDOWED).unwrap();
    let out = dir.join("out");
    dupstream_ok(&[
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(out.join("raw.csv")).unwrap();
    let header = text.lines().next().unwrap();
    // The windowed columns follow `occupancy`; the tidy columns (SCHEMA.md) come last.
    assert!(
        header.contains(
            ",occupancy,window,w_duplicates,w_fp,w_fn,w_fpr,w_fnr,memory_bits,bits_per_distinct,stream_kind,stream_params,param_"
        ),
        "{header}"
    );
    let rows: Vec<RawRow> = csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();

    let exp = dupstream_runner::plan::load(&file, None).unwrap();
    assert_eq!(exp.window, Some(500));
    assert_eq!(rows.len(), exp.cells.len() * 3);
    for cell in &exp.cells {
        let case = &exp.streams[cell.stream];
        let mut keys = vec![0u64; 6_000];
        let mut stream = case.spec.open().unwrap();
        assert_eq!(stream.fill(&mut keys).unwrap(), keys.len());
        let (since, win) = brute(&keys, 500);
        let mut filter = cell
            .filter
            .build(cell.budget_bits, filter_seed(case.seed, cell))
            .unwrap();
        let hseed = hash_seed(case.seed);
        let verdicts: Vec<bool> = keys
            .iter()
            .map(|&k| filter.step(hash_key(k, hseed)))
            .collect();
        for row in rows.iter().filter(|r| r.cell == cell.index) {
            let p = row.position as usize;
            let count = |truth: &[bool], t: bool, v: bool| {
                (0..p)
                    .filter(|&i| truth[i] == t && verdicts[i] == v)
                    .count() as u64
            };
            let what = format!("{} at {p}", cell.label);
            assert_eq!(row.fp, count(&since, false, true), "{what}");
            assert_eq!(row.fn_, count(&since, true, false), "{what}");
            assert_eq!(row.window, Some(500), "{what}");
            let w_dup = win[..p].iter().filter(|&&d| d).count() as u64;
            assert_eq!(row.w_duplicates, Some(w_dup), "{what}");
            let w_fp = count(&win, false, true);
            let w_fn = count(&win, true, false);
            assert_eq!((row.w_fp, row.w_fn), (Some(w_fp), Some(w_fn)), "{what}");
            assert_eq!(
                row.w_fpr,
                Some(Some(w_fp as f64 / (p as u64 - w_dup) as f64))
            );
            assert_eq!(row.w_fnr, Some(Some(w_fn as f64 / w_dup as f64)));
            if cell.label == "exact" {
                // Exact answers "seen since the start": no windowed miss, and a false positive
                // for every repeat from beyond the window.
                assert_eq!(w_fn, 0, "{what}");
                let beyond = (0..p).filter(|&i| since[i] && !win[i]).count() as u64;
                assert_eq!(w_fp, beyond, "{what}");
                assert!(beyond > 0, "the test stream must repeat beyond the window");
            }
        }
    }
}

#[test]
fn a_bad_window_names_its_line_and_writes_nothing() {
    let dir = scratch("window-bad");
    let file = dir.join("w.toml");
    std::fs::write(
        &file,
        WINDOWED.replace(
            "checkpoints = 3\nwindow = 500",
            "checkpoints = 3\nwindow = 0",
        ),
    )
    .unwrap();
    let out = dupstream(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("w.toml:27") && err.contains("metrics.window"),
        "{err}"
    );
    assert!(!dir.join("o").exists(), "nothing written on bad input");
}
