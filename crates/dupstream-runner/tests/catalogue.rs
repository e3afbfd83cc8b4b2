//! The experiment catalogue: every file under `experiments/` validates (at full scale and at
//! the scale `just reproduce-all 64` uses), the catalogue's runner features work end to end
//! (`[[derived]]` series, per-structure memory restriction, the error metric, the new chart
//! kinds, `dupstream theory`, `dupstream timing`), and QHT Table 1 reproduces.

use crate::golden::compared_cells;
use crate::util::{dupstream, dupstream_ok, root, scratch};
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn run(dir: &Path, file: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join("out");
    let out_s = out.to_str().unwrap().to_string();
    let mut args = vec!["run", file, "--quiet", "--threads", "1", "--out", &out_s];
    args.extend(extra);
    dupstream_ok(&args);
    out
}

#[test]
fn every_experiment_file_is_valid_at_full_scale_and_at_scale_64() {
    // The whole catalogue checks (and `just reproduce-all 64`'s estimate runs) at scale 64.
    // A fresh clone without the NASA log checks clean: that file is SKIPPED, not failed.
    // A file is skipped only when the trace it replays is absent here.
    let skipped_for_a_missing_trace = |line: &str| {
        [
            ("nasa", "nasa-http-1995-08-01.tsv"),
            ("web07", "cache2k-web07.tsv"),
            ("web12", "cache2k-web12.tsv"),
            ("orm-busy", "cache2k-orm-busy.tsv.gz"),
            ("orm-night", "cache2k-orm-night.tsv.gz"),
        ]
        .iter()
        .any(|(board, file)| {
            line.contains("experiments/leaderboard/")
                && line.contains(board)
                && crate::util::shared_data(file).is_none()
        })
    };
    let out = crate::util::dupstream(&["check", "experiments", "--scale", "64"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    let files = text.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(files >= 40, "expected the whole catalogue, got:\n{text}");
    assert!(!text.contains("FAIL"), "{text}");
    for line in text.lines().filter(|l| l.starts_with("SKIPPED")) {
        assert!(skipped_for_a_missing_trace(line), "{text}");
    }
    let out = crate::util::dupstream(&["estimate", "experiments", "--scale", "64"]);
    assert!(
        out.status.success(),
        "estimate of the catalogue at scale 64: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for scale in [None, Some("1")] {
        let mut args = vec!["check", "experiments/leaderboard"];
        if let Some(s) = scale {
            args.extend(["--scale", s]);
        }
        let out = crate::util::dupstream(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && !text.contains("FAIL"), "{text}");
        for line in text.lines().filter(|l| l.starts_with("SKIPPED")) {
            assert!(skipped_for_a_missing_trace(line), "{text}");
        }
        assert!(
            text.lines().filter(|l| l.starts_with("ok ")).count() >= 4,
            "{text}"
        );
    }
    // Every paper and every entry of the issue's catalogue is there.
    for name in [
        "deng/fig1-sim",
        "deng/fig2-sim",
        "deng/fig3",
        "deng/fig4a",
        "deng/fig4b",
        "deng/fig4c",
        "deng/fig5",
        "deng/fig6a",
        "deng/fig6d",
        "bera-conference/fig3-5",
        "bera-conference/fig7",
        "bera-conference/fig8",
        "bera-journal/fig2-4",
        "bera-journal/fig5-7",
        "bera-journal/fig8-10",
        "bera-journal/fig11",
        "singh-batra/fig5a-7c-memory",
        "singh-batra/fig6-stable-point",
        "qht/table1",
        "qht/table2-4-u24",
        "qht/table2-4-u27",
        "qht/table3",
        "qht/table5",
    ] {
        assert!(
            text.contains(&format!("experiments/{name}.toml")),
            "{name} missing from the catalogue"
        );
    }
    // `list` shows them too.
    let list = dupstream_ok(&["list"]);
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(list.contains("deng-fig4c") && list.contains("qht-table1"));
}

#[test]
fn check_rejects_a_bad_file_with_exit_2() {
    let dir = scratch("check-bad");
    let f = write(
        &dir,
        "bad.toml",
        r#"name = "bad"
description = "restricted to a memory size that does not parse"
[stream]
kind = "uniform"
n = 1000
universe = 100
[grid]
memory = ["1KB"]
[[algorithm]]
name = "bloom"
k = 2
memory = "2 parsecs"
"#,
    );
    let out = dupstream(&["check", &f]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL") && text.contains("memory"), "{text}");
}

const DERIVED: &str = r#"name = "derived"
description = "FPBuffering derived from LRU buffering against a measured FPBuffering"

[stream]
kind = "uniform"
n = 400_000
universe = 20_000
seed = 3

[grid]
memory = ["65536 bits", "262144 bits"]

[[algorithm]]
label = "Buffering"
name = "lru_buffering"

[[algorithm]]
label = "FPBuffering measured"
name = "fp_buffering"
q = 0.05

[[algorithm]]
label = "BF"
name = "bloom"
k = 3
memory = "262144 bits"

[[derived]]
label = "FPBuffering derived"
kind = "fp_buffering_at"
a = "Buffering"
b = "FPBuffering measured"

[[derived]]
label = "diff"
kind = "difference"
a = "FPBuffering measured"
b = "FPBuffering derived"

[metrics]
checkpoints = 8

[output]
charts = ["fn_difference", "ones_difference", "load_vs_length", { rates_vs_param = "memory" }]
"#;

#[derive(Debug)]
struct Final {
    label: String,
    memory: u64,
    unseen: f64,
    duplicates: f64,
    fpr: f64,
    fnr: f64,
}

fn finals(csv: &Path) -> Vec<Final> {
    let mut r = csv::Reader::from_path(csv).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (lab, mem, pos, n, un, du, fpr, fnr) = (
        col("label"),
        col("memory_nominal_bits"),
        col("position"),
        col("n"),
        col("unseen"),
        col("duplicates"),
        col("fpr"),
        col("fnr"),
    );
    r.records()
        .map(|x| x.unwrap())
        .filter(|x| x[pos] == x[n])
        .map(|x| Final {
            label: x[lab].to_string(),
            memory: x[mem].parse().unwrap(),
            unseen: x[un].parse().unwrap(),
            duplicates: x[du].parse().unwrap(),
            fpr: x[fpr].parse().unwrap(),
            fnr: x[fnr].parse().unwrap(),
        })
        .collect()
}

#[test]
fn derived_fp_buffering_matches_a_measured_one_and_restriction_and_charts_work() {
    let dir = scratch("derived");
    let f = write(&dir, "derived.toml", DERIVED);
    let out = run(&dir, &f, &[]);
    let raw = finals(&out.join("raw.csv"));
    let derived = finals(&out.join("derived.csv"));
    // The memory restriction: BF only at 262144 bits.
    let bf: Vec<&Final> = raw.iter().filter(|r| r.label == "BF").collect();
    assert_eq!(bf.len(), 1);
    assert_eq!(bf[0].memory, 262_144);
    for mem in [65_536u64, 262_144] {
        let get = |rows: &[Final], l: &str| -> (f64, f64, f64, f64) {
            let r = rows
                .iter()
                .find(|r| r.label == l && r.memory == mem)
                .unwrap_or_else(|| panic!("{l} at {mem}"));
            (r.fpr, r.fnr, r.unseen, r.duplicates)
        };
        let (_, lru_fnr, _, dups) = get(&raw, "Buffering");
        let (m_fpr, m_fnr, unseen, _) = get(&raw, "FPBuffering measured");
        let (d_fpr, d_fnr, _, _) = get(&derived, "FPBuffering derived");
        // FP rate: the measured coin is Binomial(unseen, 0.05); 5 sigma.
        let sd = (0.05 * 0.95 / unseen).sqrt();
        assert!((m_fpr - 0.05).abs() < 5.0 * sd, "measured FPR {m_fpr}");
        assert_eq!(d_fpr, m_fpr, "derived FPR is b's");
        // FN rate: the buffer is LRU buffering's exactly; each of its misses is called a
        // duplicate with probability q independently, so the measured FN count is
        // Binomial(misses, 1 − q): within 5 sigma of LRU's FNR · (1 − q).
        let misses = lru_fnr * dups;
        let sd = (misses * 0.05 * 0.95).sqrt() / dups;
        let expected = lru_fnr * 0.95;
        assert!(
            (m_fnr - expected).abs() < 5.0 * sd,
            "memory {mem}: measured FNR {m_fnr} vs LRU·(1 − q) {expected} (sd {sd})"
        );
        // The derived series is that expectation at b's measured FP rate.
        assert!((d_fnr - lru_fnr * (1.0 - m_fpr)).abs() < 1e-12);
        assert!(
            lru_fnr > 0.1,
            "the buffer must miss duplicates for the test to mean anything"
        );
    }
    let diff: Vec<&Final> = derived.iter().filter(|r| r.label == "diff").collect();
    assert_eq!(diff.len(), 2);
    for name in [
        "fn_difference-0.png",
        "rates_vs_param-memory-0.png",
        "table.md",
    ] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    for prefix in ["ones_difference-", "load_vs_length-"] {
        assert!(
            std::fs::read_dir(&out).unwrap().any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(prefix)),
            "no {prefix} chart"
        );
    }
    // `plot` recomputes the derived series from raw.csv alone.
    dupstream_ok(&["plot", out.to_str().unwrap()]);
}

#[test]
fn qht_table1_reproduces_with_the_error_metric() {
    let dir = scratch("qht-table1");
    let f = root().join("experiments/qht/table1.toml");
    let out = run(&dir, f.to_str().unwrap(), &[]);
    crate::golden::check_golden("qht-table1", &std::fs::read(out.join("raw.csv")).unwrap());
    let cells = compared_cells(&out);
    assert_eq!(cells.len(), 15, "FPR, FNR and E for 5 values of S");
    assert_eq!(cells.iter().filter(|c| c.metric == "error").count(), 5);
    // Each paper value is a mean of 10 runs, as ours: allow 3 % relative or 1 point (the
    // run-to-run spread of one QHT here is about 1.5 points of FNR, so the mean of 10 runs
    // has a standard error near 0.5).
    for c in &cells {
        assert!(
            (c.ours - c.paper).abs() <= (0.03 * c.paper).max(1.0),
            "{} {} {}: ours {:.2} vs paper {:.2}",
            c.row,
            c.column,
            c.metric,
            c.ours,
            c.paper
        );
    }
}

#[test]
fn theory_figures_and_timing() {
    let dir = scratch("theory");
    let out = dir.join("theory");
    dupstream_ok(&["theory", "all", "--out", out.to_str().unwrap()]);
    for f in [
        "deng-fig1.csv",
        "deng-fig1.png",
        "deng-fig1.svg",
        "deng-fig2.csv",
        "deng-fig2.png",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("deng-fig2.csv")).unwrap();
    assert!(csv.lines().count() > 100);

    // Timing: QHT Table 3's structures on a short stream, beside the paper's µs.
    let f = root().join("experiments/qht/table3.toml");
    let res = run(&dir, f.to_str().unwrap(), &["--scale", "1000"]);
    let t = dupstream_ok(&["timing", res.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(
        text.contains("QHT/QQHTD") && text.contains("| 288 |"),
        "timing table lacks QHT and the paper's 0.288 µs:\n{text}"
    );
    assert!(res.join("timing.csv").is_file());
}

#[test]
fn the_catalogue_is_built_into_the_command_and_works_from_an_empty_directory() {
    // An installed `dupstream` run outside the checkout: no `experiments/` here, no shared data
    // beside it, no $DUPSTREAM_SHARED_DATA.
    // Two levels down in a scratch directory of its own, so that `../shared/data` is inside it
    // (and absent) whatever the temporary directory holds.
    let dir = scratch("empty-dir").join("a/b");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(
        !dir.join("../shared/data").exists(),
        "the scratch directory must not sit beside a shared data directory"
    );
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dupstream"))
            .args(args)
            .current_dir(&dir)
            .env_remove("DUPSTREAM_SHARED_DATA")
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let table7 = "experiments/bera-journal/table7.toml";
    let list = run(&["list"]);
    assert!(list.status.success(), "{}", text(&list));
    assert!(text(&list).contains(table7), "{}", text(&list));
    for args in [
        vec!["check", table7, "--scale", "64"],
        vec!["estimate", table7, "--scale", "64"],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
    }
    // A whole directory of the catalogue checks; the traces it replays are missing and said so.
    let o = run(&["check", "experiments/leaderboard"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("SKIPPED"), "{}", text(&o));
    assert!(text(&o).contains("DUPSTREAM_SHARED_DATA"), "{}", text(&o));
    // A run writes under ./results, its paper values copied from the built-in catalogue.
    let o = run(&[
        "run",
        table7,
        "--scale",
        "4096",
        "--quiet",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join("results/bera-journal-table7"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    for f in ["raw.csv", "table.md", "paper-values.csv", "run.toml"] {
        assert!(
            runs[0].join(f).is_file(),
            "{f} missing in {}",
            runs[0].display()
        );
    }
    let table = std::fs::read_to_string(runs[0].join("table.md")).unwrap();
    assert!(table.contains(" / 2.9156 "), "{table}");
    // The experiment file itself is not on disk: nothing but results was written here.
    assert!(!dir.join("experiments").exists());
}
