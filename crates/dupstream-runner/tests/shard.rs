//! Sharded runs: `run --shard I/N` parts merged by `merge` equal a single run byte for byte;
//! merge refuses mismatched or incomplete parts; `slurm` writes valid scripts.

use crate::util::{dupstream, dupstream_ok, scratch};
use std::path::{Path, PathBuf};

/// Two streams (seeds), three structures, three memory sizes: 18 cells.
const SWEEP: &str = r#"name = "sharded"
description = "a small sweep for shard tests"

[stream]
kind = "uniform"
n = 100_000
distinct_fraction = 0.5

[grid]
memory = ["16KB", "64KB", "2^20 bits"]
seeds = [3, 4]

[[algorithm]]
name = "exact"

[[algorithm]]
name = "bloom"
k = 3

[[algorithm]]
name = "sbf"
p = 4

[metrics]
checkpoints = 3
"#;

fn setup(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let file = dir.join("sweep.toml");
    std::fs::write(&file, SWEEP).unwrap();
    let file = file.to_str().unwrap().to_string();
    (dir, file)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run_shards(file: &str, parts: &Path, n: usize, extra: &[&str]) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let out = parts.join(format!("p{i}"));
            let shard = format!("{i}/{n}");
            let mut args = vec![
                "run",
                file,
                "--shard",
                &shard,
                "--threads",
                "1",
                "--quiet",
                "--out",
                s(&out),
            ];
            args.extend_from_slice(extra);
            dupstream_ok(&args);
            out
        })
        .collect()
}

fn cells_of(part: &Path) -> Vec<usize> {
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(part.join("shard.json")).unwrap()).unwrap();
    rec["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn merged_shards_equal_a_single_run_byte_for_byte() {
    let (dir, file) = setup("shard-merge");
    let single = dir.join("single");
    dupstream_ok(&["run", &file, "--quiet", "--out", s(&single)]);
    let parts = run_shards(&file, &dir.join("parts"), 3, &[]);

    // Each part holds exactly its cells, and ground truth only of its streams.
    let mut all = Vec::new();
    for p in &parts {
        let cells = cells_of(p);
        let files = std::fs::read_dir(p.join("cells"))
            .map(|d| {
                d.filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_str()
                        .unwrap()
                        .ends_with(".csv")
                })
                .count()
            })
            .unwrap_or(0);
        assert_eq!(files, cells.len(), "{}", p.display());
        assert!(!p.join("raw.csv").exists(), "a part is not a finished run");
        let streams = std::fs::read_to_string(p.join("streams.csv")).unwrap();
        let rec: serde_json::Value =
            serde_json::from_slice(&std::fs::read(p.join("shard.json")).unwrap()).unwrap();
        assert_eq!(
            streams.lines().count() - 1,
            rec["streams"].as_array().unwrap().len()
        );
        all.extend(cells);
    }
    all.sort_unstable();
    assert_eq!(all, (0..18).collect::<Vec<_>>(), "every cell exactly once");

    let merged = dir.join("merged");
    // A directory of parts is as good as the parts.
    dupstream_ok(&[
        "merge",
        s(&dir.join("parts")),
        "--quiet",
        "--out",
        s(&merged),
    ]);
    for f in [
        "raw.csv",
        "streams.csv",
        "table.csv",
        "table.md",
        "run.toml",
    ] {
        let a = std::fs::read(single.join(f)).unwrap();
        let b = std::fs::read(merged.join(f)).unwrap();
        assert!(a == b, "{f} differs between the single run and the merge");
    }
    for f in ["manifest.json", "shards.json"] {
        assert!(merged.join(f).is_file(), "{f} missing");
    }
    // Same charts, but the Pareto time chart: it plots each cell's measured ns/element, which
    // differs from run to run. The Pareto chart of error against memory is compared.
    let mut compared = 0;
    for e in std::fs::read_dir(&single).unwrap() {
        let name = e.unwrap().file_name();
        let n = name.to_str().unwrap();
        if n.ends_with(".svg") && !n.starts_with("pareto_time") {
            compared += usize::from(n.starts_with("pareto-"));
            assert!(
                std::fs::read(single.join(n)).unwrap() == std::fs::read(merged.join(n)).unwrap(),
                "{n} differs"
            );
        }
    }
    assert_eq!(compared, 1, "the Pareto chart is among the charts compared");
    // Merging again into the same place is harmless (a requeued merge job).
    dupstream_ok(&[
        "merge",
        s(&parts[0]),
        s(&parts[1]),
        s(&parts[2]),
        "--quiet",
        "--out",
        s(&merged),
    ]);
    assert!(
        std::fs::read(single.join("raw.csv")).unwrap()
            == std::fs::read(merged.join("raw.csv")).unwrap()
    );
}

fn assert_refused(args: &[&str], needles: &[&str]) {
    let out = dupstream(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "merge accepted: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "`{n}` not named in: {stderr}");
    }
}

#[test]
fn merge_names_missing_shards_and_refuses_mismatched_parts() {
    let (dir, file) = setup("shard-refuse");
    let parts = run_shards(&file, &dir.join("parts"), 4, &[]);
    let out = dir.join("merged");

    // Missing shards are named.
    assert_refused(
        &["merge", s(&parts[0]), s(&parts[2]), "--out", s(&out)],
        &["missing shards 1/4, 3/4"],
    );
    assert!(!out.join("raw.csv").exists());

    // A part of another scale (so another experiment digest) is refused, by name.
    let other = dir.join("other");
    dupstream_ok(&[
        "run",
        &file,
        "--scale",
        "2",
        "--shard",
        "1/4",
        "--quiet",
        "--out",
        s(&other),
    ]);
    assert_refused(
        &[
            "merge",
            s(&parts[0]),
            s(&other),
            s(&parts[2]),
            s(&parts[3]),
            "--out",
            s(&out),
        ],
        &[s(&other), "different experiment file or scale"],
    );

    // A part of another revision is refused, by name.
    let forged = dir.join("forged");
    std::fs::create_dir_all(forged.join("cells")).unwrap();
    for e in std::fs::read_dir(&parts[1]).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, forged.join(p.file_name().unwrap())).unwrap();
        }
    }
    for e in std::fs::read_dir(parts[1].join("cells")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, forged.join("cells").join(p.file_name().unwrap())).unwrap();
    }
    let rec = std::fs::read_to_string(forged.join("shard.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&rec).unwrap();
    v["git_revision"] = "0000000".into();
    std::fs::write(forged.join("shard.json"), v.to_string()).unwrap();
    assert_refused(
        &[
            "merge",
            s(&parts[0]),
            s(&forged),
            s(&parts[2]),
            s(&parts[3]),
            "--out",
            s(&out),
        ],
        &[s(&forged), "0000000"],
    );

    // An unfinished part (no shard.json: its task was killed) counts as missing, by name.
    std::fs::remove_file(forged.join("shard.json")).unwrap();
    assert_refused(
        &[
            "merge",
            s(&parts[0]),
            s(&forged),
            s(&parts[2]),
            s(&parts[3]),
            "--out",
            s(&out),
        ],
        &["missing shard 1/4", s(&forged)],
    );
    assert!(!out.join("raw.csv").exists());
}

#[test]
fn an_interrupted_shard_resumes_its_own_cells_only() {
    let (dir, file) = setup("shard-resume");
    let parts = run_shards(&file, &dir.join("parts"), 2, &[]);
    let whole = dir.join("whole");
    dupstream_ok(&[
        "merge",
        s(&parts[0]),
        s(&parts[1]),
        "--quiet",
        "--out",
        s(&whole),
    ]);
    // Interrupt shard 1: its marker and all but its first cell gone.
    let p = &parts[1];
    let cells = cells_of(p);
    std::fs::remove_file(p.join("shard.json")).unwrap();
    for c in &cells[1..] {
        std::fs::remove_file(p.join("cells").join(format!("cell-{c:05}.csv"))).unwrap();
    }
    let untouched = std::fs::read(parts[0].join("shard.json")).unwrap();
    let out = dupstream_ok(&["run", &file, "--shard", "1/2", "--resume", "--out", s(p)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{} cells run, 1 resumed", cells.len() - 1)),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(parts[0].join("shard.json")).unwrap(),
        untouched
    );
    let again = dir.join("again");
    dupstream_ok(&[
        "merge",
        s(&dir.join("parts")),
        "--quiet",
        "--out",
        s(&again),
    ]);
    assert!(
        std::fs::read(whole.join("raw.csv")).unwrap()
            == std::fs::read(again.join("raw.csv")).unwrap()
    );
    // A finished shard rerun with --resume (a requeued task) does nothing.
    let out = dupstream_ok(&["run", &file, "--shard", "1/2", "--resume", "--out", s(p)]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already finished"));
    // Without --resume a finished part is not overwritten.
    let out = dupstream(&["run", &file, "--shard", "1/2", "--out", s(p)]);
    assert!(!out.status.success());
}

#[test]
fn bad_shard_argument_is_rejected() {
    let (_dir, file) = setup("shard-arg");
    for bad in ["4/4", "1/0", "two/4"] {
        let out = dupstream(&["run", &file, "--shard", bad]);
        assert_eq!(out.status.code(), Some(2), "--shard {bad} accepted");
        assert!(String::from_utf8_lossy(&out.stderr).contains("I/N"));
    }
}

#[test]
fn slurm_writes_submittable_scripts() {
    let (dir, file) = setup("shard-slurm");
    let out = dir.join("sweep");
    let res = dupstream_ok(&[
        "slurm",
        &file,
        "--shards",
        "4",
        "--out",
        s(&out),
        "--partition",
        "short",
        "--account",
        "proj42",
        "--time",
        "0:30:00",
        "--cpus-per-task",
        "2",
        "--module",
        "gcc/13",
        "--sbatch-option=--constraint=avx2",
    ]);
    let printed = String::from_utf8_lossy(&res.stdout);
    let slurm = out.join("slurm");
    assert!(printed.contains("submit.sh"), "{printed}");
    let shard = std::fs::read_to_string(slurm.join("shard.sbatch")).unwrap();
    for needle in [
        "#SBATCH --array=0-3",
        "#SBATCH --partition=short",
        "#SBATCH --account=proj42",
        "#SBATCH --time=0:30:00",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --requeue",
        "#SBATCH --constraint=avx2",
        "module load gcc/13",
        "--shard \"$i/4\"",
        "--resume",
        "SLURM_ARRAY_TASK_ID",
    ] {
        assert!(
            shard.contains(needle),
            "shard.sbatch lacks {needle}:\n{shard}"
        );
    }
    let merge = std::fs::read_to_string(slurm.join("merge.sbatch")).unwrap();
    assert!(merge.contains(" merge ") && merge.contains("#SBATCH --partition=short"));
    let submit = std::fs::read_to_string(slurm.join("submit.sh")).unwrap();
    for needle in [
        "--dependency=\"afterok",
        "--kill-on-invalid-dep=yes",
        "mem=(",
    ] {
        assert!(
            submit.contains(needle),
            "submit.sh lacks {needle}:\n{submit}"
        );
    }
    // One memory request per shard, each at least 256 MiB.
    let mems: Vec<u64> = submit
        .lines()
        .find_map(|l| l.strip_prefix("mem=("))
        .unwrap()
        .trim_end_matches(')')
        .split_whitespace()
        .map(|m| m.parse().unwrap())
        .collect();
    assert_eq!(mems.len(), 4);
    assert!(mems.iter().all(|&m| m >= 256 && m % 256 == 0), "{mems:?}");
    // Self-contained: the binary and the experiment are in the output directory.
    assert!(slurm.join("bin/dupstream").is_file());
    assert!(slurm.join("input/sweep.toml").is_file());
    for script in ["shard.sbatch", "merge.sbatch", "submit.sh"] {
        let st = std::process::Command::new("bash")
            .arg("-n")
            .arg(slurm.join(script))
            .status()
            .unwrap();
        assert!(st.success(), "{script} is not valid bash");
    }
    // The staged experiment runs to the same digest as the original (so its parts merge
    // with parts run from the original file).
    let a = dir.join("a");
    let b = dir.join("b");
    dupstream_ok(&["run", &file, "--shard", "0/4", "--quiet", "--out", s(&a)]);
    dupstream_ok(&[
        "run",
        s(&slurm.join("input/sweep.toml")),
        "--shard",
        "0/4",
        "--quiet",
        "--out",
        s(&b),
    ]);
    assert_eq!(
        std::fs::read(a.join(".digest")).unwrap(),
        std::fs::read(b.join(".digest")).unwrap()
    );
    // More shards than cells is refused.
    let out = dupstream(&["slurm", &file, "--shards", "19", "--out", s(&out)]);
    assert!(!out.status.success());
    // The scratch directory holds a copy of the binary: do not leave it behind.
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38: a shard part and a finished run are not taken for each other. `--resume` into a
/// shard part without `--shard` is refused (it turned the part into a full run); `run --shard`
/// into a finished run is refused (it wrote shard.json there); `run --shard --json` is refused
/// (it printed nothing).
#[test]
fn parts_and_finished_runs_are_not_mixed_up() {
    let (dir, file) = setup("shard-mixups");
    let part = dir.join("shard-0-of-2");
    dupstream_ok(&[
        "run",
        &file,
        "--shard",
        "0/2",
        "--threads",
        "1",
        "--quiet",
        "--out",
        s(&part),
    ]);
    let out = dupstream(&["run", &file, "--resume", "--quiet", "--out", s(&part)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is a shard part"), "{err}");
    assert!(!part.join("commit.json").exists());
    // An unfinished part in its default-named directory too.
    let unfinished = dir.join("parts/shard-1-of-2");
    std::fs::create_dir_all(&unfinished).unwrap();
    let out = dupstream(&["run", &file, "--resume", "--quiet", "--out", s(&unfinished)]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let full = dir.join("full");
    dupstream_ok(&["run", &file, "--threads", "1", "--quiet", "--out", s(&full)]);
    let out = dupstream(&[
        "run",
        &file,
        "--shard",
        "1/2",
        "--resume",
        "--quiet",
        "--out",
        s(&full),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds a finished run"), "{err}");
    assert!(!full.join("shard.json").exists());
    let out = dupstream(&["run", &file, "--shard", "1/2", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
