//! `[stream] time` and `[metrics] window_seconds`: a timestamped stream's times reach every
//! cell (`step_batch_at`), the time-window truth is checked against a brute-force model (each
//! position looks back over the keys of the last `T` seconds), and bad time specs are refused
//! at their line.

use crate::util::{dupstream, dupstream_ok, scratch};
use dupstream_filters::hash::hash_key;
use dupstream_runner::plan::seeds::{filter_seed, hash_seed};
use dupstream_runner::record::RawRow;
use dupstream_streams::open_timed;

/// A bursty stream (bursts of 400/s for 1 s, lulls of 20/s for 4 s on average: a mean of
/// 96/s), a 2 s window (192 elements at the mean rate; 6000 elements span only about 12
/// cycles, so the measured mean varies by about a quarter). The TLBF's own `rate` (1000/s) is
/// not the stream's: on its internal clock its 2 s window would hold 2000 elements.
const TIMED: &str = r#"name = "timed"
description = "a time window on a bursty timestamped stream"

[stream]
kind = "uniform"
n = 6_000
distinct_fraction = 0.4
time = { process = "mmpp", burst_rate = 400.0, lull_rate = 20.0, burst_seconds = 1.0, lull_seconds = 4.0 }

[grid]
memory = ["1KB", "4KB"]
seeds = [3, 4]

[[algorithm]]
name = "exact"

[[algorithm]]
name = "swamp"
window = 192

[[algorithm]]
name = "tlbf"
k = 4
l = 3
window_seconds = 2.0
rate = 1000.0

[metrics]
checkpoints = 3
window_seconds = 2.0
"#;

/// Brute force: position `i` is a windowed duplicate iff `keys[i]` occurs at a position `j <
/// i` with `times[i] − times[j] ≤ T`; since-start iff it occurs anywhere before.
fn brute(keys: &[u64], times: &[f64], t: f64) -> (Vec<bool>, Vec<bool>) {
    let since = (0..keys.len())
        .map(|i| keys[..i].contains(&keys[i]))
        .collect();
    let win = (0..keys.len())
        .map(|i| (0..i).any(|j| keys[j] == keys[i] && times[i] - times[j] <= t))
        .collect();
    (since, win)
}

fn run(dir: &std::path::Path, text: &str, extra: &[&str]) -> (Vec<RawRow>, String) {
    let file = dir.join("t.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    dupstream_ok(&args);
    let text = std::fs::read_to_string(out.join("raw.csv")).unwrap();
    let rows = csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    let run_toml = std::fs::read_to_string(out.join("run.toml")).unwrap();
    (rows, run_toml)
}

#[test]
fn time_window_counts_match_brute_force_and_times_reach_the_tlbf() {
    let dir = scratch("time-window");
    let (rows, run_toml) = run(&dir, TIMED, &[]);
    assert!(run_toml.contains("process = \"mmpp\""), "{run_toml}");
    let exp = dupstream_runner::plan::load(&dir.join("t.toml"), None).unwrap();
    assert_eq!((exp.window, exp.window_seconds), (None, Some(2.0)));
    assert_eq!(rows.len(), exp.cells.len() * 3);
    let mut tlbf_differs = false;
    let mut per_window_of_seed = std::collections::BTreeMap::new();
    for cell in &exp.cells {
        let case = &exp.streams[cell.stream];
        let (mut keys, mut times) = (vec![0u64; 6_000], vec![0f64; 6_000]);
        let mut stream = open_timed(&case.spec, case.time.as_ref().unwrap(), case.seed).unwrap();
        assert_eq!(
            stream.fill_timed(&mut keys, &mut times).unwrap(),
            keys.len()
        );
        let (since, win) = brute(&keys, &times, 2.0);
        let per_window = (5_999.0 * 2.0 / (times[5_999] - times[0])).round() as u64;
        per_window_of_seed.insert(case.seed, per_window as f64);
        let hseed = hash_seed(case.seed);
        let replay = |timed: bool| -> Vec<bool> {
            let mut f = cell
                .filter
                .build(cell.budget_bits, filter_seed(case.seed, cell))
                .unwrap();
            keys.iter()
                .zip(&times)
                .map(|(&k, &t)| {
                    let h = hash_key(k, hseed);
                    if timed { f.step_at(h, t) } else { f.step(h) }
                })
                .collect()
        };
        let verdicts = replay(true);
        if cell.filter.name() == "tlbf" {
            // On its internal clock (1000/s) the TLBF answers otherwise.
            tlbf_differs |= replay(false) != verdicts;
        } else {
            assert_eq!(
                replay(false),
                verdicts,
                "{}: no clock, times ignored",
                cell.label
            );
        }
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
            assert_eq!(row.window, Some(per_window), "{what}");
            assert_eq!(row.window_seconds, Some(2.0), "{what}");
            let w_dup = win[..p].iter().filter(|&&d| d).count() as u64;
            assert_eq!(row.w_duplicates, Some(w_dup), "{what}");
            let (w_fp, w_fn) = (count(&win, false, true), count(&win, true, false));
            assert_eq!((row.w_fp, row.w_fn), (Some(w_fp), Some(w_fn)), "{what}");
            if cell.label == "exact" {
                let beyond = (0..p).filter(|&i| since[i] && !win[i]).count() as u64;
                assert_eq!((w_fn, w_fp), (0, beyond), "{what}");
                assert!(beyond > 0, "the stream must repeat beyond the window");
            }
            assert!(
                row.stream_params().contains("time=mmpp;")
                    && row.stream_params().contains("time_burst_rate=400.0"),
                "{}",
                row.stream
            );
        }
    }
    assert!(
        tlbf_differs,
        "the stream's times must change the TLBF's verdicts"
    );
    // The leaderboard's windowed board: memory per mean window element, the mean over the
    // streams (every cell counted once; both seeds have as many cells).
    let out = dir.join("out");
    let json: serde_json::Value = serde_json::from_slice(
        &dupstream_ok(&["leaderboard", out.to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    let board = &json.as_array().unwrap()[0];
    assert_eq!(
        board["track"], "windowed",
        "a windowed run gives the windowed board"
    );
    // Over the scored streams: every seed but the first, which tunes.
    let scored: Vec<f64> = per_window_of_seed.values().skip(1).copied().collect();
    let mean = scored.iter().sum::<f64>() / scored.len() as f64;
    assert_eq!(board["window"], mean.round() as u64);
    assert_eq!(board["window_seconds"], 2.0);
    // Memory per mean window element: the bits held over the measured mean.
    assert_eq!(board["per_element"].as_f64().unwrap(), mean);
    for row in board["rows"].as_array().unwrap() {
        for e in row["front"].as_array().unwrap() {
            let held = e["held_bits"].as_f64().unwrap();
            let got = e["bits_per_element"].as_f64().unwrap();
            assert!(
                (got - held / mean).abs() < 1e-9 * got,
                "{got} vs {held} / {mean}"
            );
        }
    }
    let md =
        String::from_utf8(dupstream_ok(&["leaderboard", out.to_str().unwrap()]).stdout).unwrap();
    assert!(
        md.contains(&format!(
            "time window T = 2 s, a mean of {} elements per window",
            mean.round()
        )),
        "{md}"
    );
}

/// `--scale 4`: the window and the phase lengths are divided by 4, the rates kept, so the
/// scaled window holds about a quarter of the elements, and the structures' windows (TLBF
/// seconds, SWAMP elements) scale alike; labels keep the process as written.
#[test]
fn time_windows_scale_with_the_stream() {
    let dir = scratch("time-window-scale");
    std::fs::write(dir.join("t.toml"), TIMED).unwrap();
    let exp = dupstream_runner::plan::load(&dir.join("t.toml"), Some(4)).unwrap();
    assert_eq!(exp.window_seconds, Some(0.5));
    let case = &exp.streams[0];
    assert_eq!(case.spec.declared_len(), Some(1_500));
    let time = case.time.as_ref().unwrap();
    assert_eq!(time.mean_rate(), Some(96.0));
    assert_eq!(
        *time,
        dupstream_streams::TimeSpec::Mmpp {
            burst_rate: 400.0,
            lull_rate: 20.0,
            burst_seconds: 0.25,
            lull_seconds: 1.0,
            phases: dupstream_streams::Phases::Exponential,
        }
    );
    assert!(
        case.label().contains("time_burst_seconds=1.0"),
        "{}",
        case.label()
    );
    let tlbf = exp
        .cells
        .iter()
        .find(|c| c.filter.name() == "tlbf")
        .unwrap();
    let f = tlbf.filter.build(tlbf.budget_bits, 0).unwrap();
    let params = dupstream_runner::record::Params::of(&f.params());
    assert_eq!(params.get("window_seconds"), Some("0.5"), "{params:?}");
}

#[test]
fn bad_time_specs_name_their_line_and_key() {
    let dir = scratch("time-window-bad");
    let time_line = "time = { process = \"mmpp\", burst_rate = 400.0, lull_rate = 20.0, burst_seconds = 1.0, lull_seconds = 4.0 }";
    for (what, text, line, key) in [
        (
            "negative rate",
            TIMED.replace(time_line, "time = { process = \"poisson\", rate = -1.0 }"),
            8,
            "time",
        ),
        (
            "unknown process",
            TIMED.replace(time_line, "time = { process = \"poison\", rate = 1.0 }"),
            8,
            "time",
        ),
        (
            "unknown field",
            TIMED.replace(time_line, "time = { process = \"poisson\", rat = 1.0 }"),
            8,
            "time",
        ),
        (
            "a log's times on a generated stream",
            TIMED.replace(time_line, "time = { process = \"log\" }"),
            8,
            "time",
        ),
        (
            "lull faster than burst",
            TIMED.replace("lull_rate = 20.0", "lull_rate = 2000.0"),
            8,
            "time",
        ),
        (
            "no times",
            TIMED.replace(time_line, ""),
            30,
            "metrics.window_seconds",
        ),
        (
            "two windows",
            TIMED.replace("checkpoints = 3\n", "checkpoints = 3\nwindow = 10\n"),
            31,
            "metrics.window_seconds",
        ),
        (
            "MMPP phases too short to advance the clock (it hung)",
            TIMED.replace(
                "burst_seconds = 1.0, lull_seconds = 4.0",
                "burst_seconds = 1e-20, lull_seconds = 1e-20",
            ),
            8,
            "time.burst_seconds",
        ),
        (
            "a rate whose times overflow",
            TIMED.replace(time_line, "time = { process = \"poisson\", rate = 1e-306 }"),
            8,
            "time.rate",
        ),
        (
            "a window that saturates",
            TIMED.replace(
                "checkpoints = 3\nwindow_seconds = 2.0",
                "checkpoints = 3\nwindow_seconds = 1e300",
            ),
            30,
            "metrics.window_seconds",
        ),
        (
            "a window that holds the whole stream",
            TIMED.replace(
                "checkpoints = 3\nwindow_seconds = 2.0",
                "checkpoints = 3\nwindow_seconds = 1e6",
            ),
            30,
            "metrics.window_seconds",
        ),
        (
            "a warm-up as long as the stream",
            TIMED.replace("checkpoints = 3\n", "checkpoints = 3\nwarmup = 6000\n"),
            30,
            "metrics.warmup",
        ),
        (
            "zero seconds",
            TIMED.replace(
                "checkpoints = 3\nwindow_seconds = 2.0",
                "checkpoints = 3\nwindow_seconds = 0.0",
            ),
            30,
            "metrics.window_seconds",
        ),
    ] {
        let file = dir.join("b.toml");
        std::fs::write(&file, &text).unwrap();
        let out = dupstream(&[
            "run",
            file.to_str().unwrap(),
            "--out",
            dir.join("o").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{what}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("b.toml:{line}")) && err.contains(key),
            "{what}: {err}"
        );
        assert!(
            !dir.join("o").exists(),
            "{what}: nothing written on bad input"
        );
    }
}

/// A replayed log's own times with an `offset`: the skipped keys' times go with them, so the
/// truths and the mean elements per window are those of the lines kept.
#[test]
fn a_replay_offset_skips_its_log_times_too() {
    let dir = scratch("time-window-offset");
    // Skipped: a@0 b@1. Kept: a@1000 b@1001 a@1002 c@1003 a@1004, whose repeats (within 8 s
    // and since the start alike) are a@1002 and a@1004; with the prefix a@1000 and b@1001
    // would repeat too.
    std::fs::write(
        dir.join("log.csv"),
        "t,url\n0,a\n1,b\n1000,a\n1001,b\n1002,a\n1003,c\n1004,a\n",
    )
    .unwrap();
    let text = "name = \"offset-log\"\ndescription = \"d\"\n[stream]\nkind = \"replay\"\npath = \"log.csv\"\nformat = \"csv\"\nheader = true\ncolumn = \"url\"\noffset = 2\ntime = { process = \"log\", column = \"t\" }\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n[metrics]\ncheckpoints = 1\nwindow_seconds = 8.0\n";
    let (rows, run_toml) = run(&dir, text, &[]);
    assert!(run_toml.contains("offset = 2"), "{run_toml}");
    let last = rows.last().unwrap();
    assert_eq!((last.n, last.position), (5, 5));
    assert!(last.stream.contains("offset=2"), "{}", last.stream);
    assert_eq!(last.duplicates, 2);
    assert_eq!(last.w_duplicates, Some(2));
    assert_eq!(
        (last.fp, last.fn_, last.w_fp, last.w_fn),
        (0, 0, Some(0), Some(0))
    );
    assert_eq!(last.window_seconds, Some(8.0));
    // (n − 1)·T / (t_last − t_first) = 4 · 8 / 4 on the kept times; 6 · 8 / 1004 with the
    // prefix's.
    assert_eq!(last.window, Some(8));
}

/// A log whose times go back (issue 38): by default the run stops at the first such line,
/// naming it, exit 2; with `out_of_order = "clamp"` the earlier time is taken as the previous
/// one and the run finishes.
#[test]
fn a_log_whose_times_go_back_fails_at_its_line_unless_clamped() {
    let dir = scratch("time-out-of-order");
    // 400 lines, the second half dated an hour before the first.
    let mut log = String::new();
    for i in 0..400u32 {
        let (hour, sec) = if i < 200 { (11, i % 60) } else { (10, i % 60) };
        log.push_str(&format!(
            "h{i} - - [01/Aug/1995:{hour:02}:{:02}:{sec:02} -0400] \"GET /p{} HTTP/1.0\" 200 1\n",
            i / 60 % 60,
            i % 37
        ));
    }
    std::fs::write(dir.join("access.log"), log).unwrap();
    let text = |time: &str| {
        format!(
            "name = \"ooo\"\ndescription = \"d\"\n[stream]\nkind = \"replay\"\npath = \"access.log\"\nformat = \"clf\"\ntime = {time}\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n[metrics]\nwindow_seconds = 60.0\n"
        )
    };
    let file = dir.join("ooo.toml");
    std::fs::write(&file, text("{ process = \"log\" }")).unwrap();
    let out = dupstream(&[
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.join("fail").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("access.log:201:") && err.contains("out of order"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    std::fs::write(
        &file,
        text("{ process = \"log\", out_of_order = \"clamp\" }"),
    )
    .unwrap();
    dupstream_ok(&[
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.join("clamp").to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An element exactly `W` seconds old is inside the window (`t_i − t_j ≤ W`): on an even
/// clock of 4 elements per second and a 2 s window, a re-occurrence 8 elements later is a
/// windowed duplicate and one 9 elements later is not. (The MMPP stream above never puts two
/// elements exactly `W` apart, so it cannot tell `≤` from `<`.)
#[test]
fn an_element_exactly_w_seconds_old_is_inside_the_time_window() {
    let dir = scratch("time-window-boundary");
    let text = r#"name = "boundary"
description = "elements exactly W seconds apart"

[stream]
kind = "uniform"
n = 3_000
universe = 12
time = { process = "even", rate = 4.0 }

[grid]
memory = ["1KB"]
seeds = [5]

[[algorithm]]
name = "exact"

[metrics]
checkpoints = 1
window_seconds = 2.0
"#;
    let (rows, _) = run(&dir, text, &[]);
    let exp = dupstream_runner::plan::load(&dir.join("t.toml"), None).unwrap();
    let case = &exp.streams[0];
    let (mut keys, mut times) = (vec![0u64; 3_000], vec![0f64; 3_000]);
    let mut stream = open_timed(&case.spec, case.time.as_ref().unwrap(), case.seed).unwrap();
    assert_eq!(stream.fill_timed(&mut keys, &mut times).unwrap(), 3_000);
    let (_, inside) = brute(&keys, &times, 2.0);
    // The same with the boundary left out: the stream must tell them apart.
    let strict: Vec<bool> = (0..keys.len())
        .map(|i| (0..i).any(|j| keys[j] == keys[i] && times[i] - times[j] < 2.0))
        .collect();
    let at_boundary = inside.iter().zip(&strict).filter(|(a, b)| a != b).count();
    assert!(
        at_boundary > 50,
        "only {at_boundary} re-occurrences exactly 2 s apart"
    );
    let row = rows.iter().max_by_key(|r| r.position).unwrap();
    assert_eq!(row.position, 3_000);
    let w_dup = inside.iter().filter(|&&d| d).count() as u64;
    assert_eq!(
        row.w_duplicates,
        Some(w_dup),
        "{at_boundary} re-occurrences exactly W seconds old count as windowed duplicates"
    );
    // The exact structure remembers everything: its windowed false positives are exactly the
    // re-occurrences outside the window.
    let beyond = (0..keys.len()).filter(|&i| !inside[i] && keys[..i].contains(&keys[i]));
    assert_eq!(row.w_fp, Some(beyond.count() as u64));
}
