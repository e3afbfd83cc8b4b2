//! What hostile input must never break, one function per reader: the experiment parser and
//! its validation, each replay format, and the part and cell files `merge` and `--resume`
//! read. The invariant of all of them: no panic, and either an error or a result whose own
//! consistency checks hold (the `assert!`s below).
//!
//! Shared, as one file, by the cargo-fuzz targets (`fuzz/fuzz_targets/`, nightly, `just
//! fuzz`) and the stable property tests (`crates/dupstream-runner/tests/properties.rs`,
//! part of `cargo test`), so that both check the same thing.

#![allow(dead_code)] // each fuzz target uses one function

use dupstream_runner::orchestrate::assign;
use dupstream_runner::orchestrate::part::read_record;
use dupstream_runner::plan::{self, cost};
use dupstream_runner::record::{CellState, RawRow, ResultsDir, StreamRow, checksum, rows_from};
use dupstream_streams::{BadLinePolicy, GroundTruth, ReplayFormat, StreamSpec, collect_keys};
use std::path::{Path, PathBuf};

/// A scratch directory of this process and thread for `tag` (tests running in parallel do
/// not share files), removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Self {
        let thread = format!("{:?}", std::thread::current().id());
        let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
        // Memory-backed when the system has it: a fuzz target writes files on every run.
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!(
            "dupstream-fuzz-{}-{thread}-{tag}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Self(dir)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Experiment text, parsed and validated at its own scale and at `--scale 7`: an error is
/// one line; an experiment has cells that point at its streams, checkpoints that end at each
/// stream's end, a `run.toml` that parses back to the same digest, finite cost estimates and
/// a shard assignment that places every cell once. Returns whether it was accepted.
pub fn experiment(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let mut accepted = false;
    let scratch = Scratch::new("experiment");
    let file = scratch.join("fuzz.toml");
    for scale in [None, Some(7)] {
        let exp = match plan::parse(&file, text, scale) {
            Ok(exp) => {
                accepted = true;
                exp
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(!msg.contains('\n'), "a multi-line error: {msg:?}");
                continue;
            }
        };
        assert!(!exp.cells.is_empty(), "an experiment without cells");
        for (i, c) in exp.cells.iter().enumerate() {
            assert_eq!(c.index, i, "cells out of order");
            assert!(c.stream < exp.streams.len(), "a cell of no stream");
            assert!(c.budget_bits > 0, "a cell without memory");
        }
        for s in &exp.streams {
            if let Some(n) = s.spec.declared_len() {
                let stops = exp.checkpoints(n);
                assert!(stops.windows(2).all(|w| w[0] < w[1]), "{stops:?}");
                assert_eq!(stops.last(), Some(&n), "checkpoints end at {n}");
            }
        }
        // What `run` writes as run.toml must load again as the same experiment (`merge`
        // and `--resume` read it back).
        let digest = dupstream_runner::record::digest(&exp).expect("digest");
        let again_text = dupstream_runner::record::run_toml(&exp, None).expect("run.toml");
        let again = plan::parse(&file, &again_text, None)
            .unwrap_or_else(|e| panic!("run.toml does not parse back: {e}\n{again_text}"));
        assert_eq!(
            dupstream_runner::record::digest(&again).expect("digest"),
            digest,
            "run.toml parses to another experiment:\n{again_text}"
        );
        assert!(cost::run_secs(&exp, 2).is_finite());
        let _ = cost::peak_bytes(&exp, 2);
        let mut placed: Vec<usize> = assign(&exp, 3).into_iter().flatten().collect();
        placed.sort_unstable();
        assert_eq!(
            placed,
            (0..exp.cells.len()).collect::<Vec<_>>(),
            "assignment"
        );
    }
    accepted
}

/// A replay file in `format` whose options come from the first byte (header, bad-line
/// policy, key column, limit, offset): the keys and the ground truth both fail or agree on the
/// length; the skipped-line report is consistent; under `fail` nothing is skipped; an offset's
/// keys are the whole file's from the offset on, or an error when it leaves none.
pub fn replay(format: ReplayFormat, data: &[u8]) {
    let Some((&opts, body)) = data.split_first() else {
        return;
    };
    let scratch = Scratch::new(format.as_str());
    let path = scratch.join("replay");
    std::fs::write(&path, body).expect("write replay file");
    check_replay(&path, format, opts);
}

/// A gzip replay: the input is the compressed file (given the gzip magic bytes when it
/// lacks them), read as `lines` or `tsv` by the first byte.
pub fn replay_gzip(data: &[u8]) {
    let Some((&opts, body)) = data.split_first() else {
        return;
    };
    let mut file = Vec::with_capacity(body.len() + 2);
    if !body.starts_with(&[0x1f, 0x8b]) {
        file.extend_from_slice(&[0x1f, 0x8b]);
    }
    file.extend_from_slice(body);
    let scratch = Scratch::new("gzip");
    let path = scratch.join("replay.gz");
    std::fs::write(&path, &file).expect("write replay file");
    let format = if opts & 0x80 == 0 {
        ReplayFormat::Lines
    } else {
        ReplayFormat::Tsv
    };
    check_replay(&path, format, opts);
}

fn check_replay(path: &Path, format: ReplayFormat, opts: u8) {
    let bad_lines = if opts & 1 == 0 {
        BadLinePolicy::Fail
    } else {
        BadLinePolicy::Skip
    };
    let column = match (opts >> 2) & 3 {
        0 => None,
        1 => Some("1".to_string()),
        2 => Some("url".to_string()),
        _ => Some("x y".to_string()),
    };
    let spec = StreamSpec::Replay {
        path: path.to_path_buf(),
        format,
        column,
        header: opts & 2 != 0,
        fingerprint_seed: u64::from(opts),
        bad_lines,
        offset: if opts & 0x20 != 0 { 2 } else { 0 },
        limit: (opts & 0x40 != 0).then_some(3),
    };
    if spec.validate().is_err() {
        return;
    }
    let keys = collect_keys(&spec);
    if let (Ok(keys), StreamSpec::Replay { offset: 2, .. }) = (&keys, &spec) {
        let mut whole = spec.clone();
        if let StreamSpec::Replay { offset, limit, .. } = &mut whole {
            *offset = 0;
            *limit = limit.map(|l| l + 2);
        }
        let whole = collect_keys(&whole).expect("the same lines read without the offset");
        assert!(whole.len() > 2, "an offset leaving no key gave a stream");
        assert_eq!(keys[..], whole[2..], "offset window");
    }
    let truth = GroundTruth::compute(&spec);
    match (keys, truth) {
        (Ok(keys), Ok(truth)) => {
            let s = truth.stats();
            assert_eq!(truth.len(), keys.len() as u64, "keys and truth disagree");
            assert!(s.distinct <= s.n && s.n == keys.len() as u64);
            let first = &s.first_skipped_lines;
            assert!(first.len() as u64 <= s.skipped_lines.min(5), "{s:?}");
            assert!(first.windows(2).all(|w| w[0] < w[1]), "{first:?}");
            assert!(first.iter().all(|&l| l >= 1), "{first:?}");
            if bad_lines == BadLinePolicy::Fail {
                assert_eq!(s.skipped_lines, 0, "skipped under `fail`");
            }
        }
        (Err(a), Err(b)) => {
            for msg in [a.to_string(), b.to_string()] {
                assert!(!msg.is_empty());
            }
        }
        (k, t) => panic!(
            "reading keys and labelling them disagree: {:?} vs {:?}",
            k.map(|k| k.len()),
            t.map(|t| t.len())
        ),
    }
}

/// A part directory as `merge` reads it: the bytes split at NUL into a cell's rows file, its
/// record (or, when the first byte is even, a record made to match the rows' checksum, so
/// that the rows themselves are read), `shard.json` and `streams.csv`. A cell is either
/// refused with a reason or its rows are the cell's own; the other files read or fail.
/// Returns whether the cell was taken as done.
pub fn part_files(data: &[u8]) -> bool {
    let Some((&mode, body)) = data.split_first() else {
        return false;
    };
    let mut parts = body.split(|&b| b == 0);
    let rows = parts.next().unwrap_or_default();
    let record = parts.next().unwrap_or_default();
    let shard = parts.next().unwrap_or_default();
    let streams = parts.next().unwrap_or_default();
    let scratch = Scratch::new("part");
    let dir = scratch.join("part");
    std::fs::create_dir_all(dir.join("cells")).expect("cells directory");
    let digest = "0123456789abcdef";
    let record = if mode & 1 == 0 {
        let lines = rows
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        serde_json::json!({
            "digest": digest,
            "scale": 1,
            "cell": 0,
            "rows": lines.saturating_sub(1),
            "checksum": checksum(rows),
            "timing": {"cell": 0, "label": "x", "elements": 1, "wall_secs": 0.0,
                       "ns_per_element": 0.0, "resumed": false},
        })
        .to_string()
        .into_bytes()
    } else {
        record.to_vec()
    };
    let part = ResultsDir::existing(&dir);
    let (csv, json) = part.cell_files(0);
    std::fs::write(&csv, rows).expect("write rows");
    std::fs::write(&json, &record).expect("write record");
    std::fs::write(dir.join("shard.json"), shard).expect("write shard.json");
    std::fs::write(dir.join("streams.csv"), streams).expect("write streams.csv");
    let done = match part.cell_state(0, digest, 1) {
        CellState::Done(timing) => {
            assert_eq!(timing.cell, 0);
            let parsed: Vec<RawRow> = rows_from(rows).expect("a cell taken as done parses");
            assert!(!parsed.is_empty());
            assert!(parsed.iter().all(|r| r.cell == 0 && r.scale == 1));
            assert_eq!(
                checksum(rows),
                part.cell_record(0).expect("record").checksum
            );
            true
        }
        CellState::Bad(why) => {
            assert!(!why.is_empty());
            false
        }
        CellState::Absent => panic!("both files are there"),
    };
    let _ = read_record(&dir);
    let _: Option<Vec<StreamRow>> = part.read_streams().ok();
    done
}
