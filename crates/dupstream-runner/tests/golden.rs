//! Error-rate regression: committed golden results, compared byte for byte, and the papers'
//! published values, compared within a stated tolerance.
//!
//! After a deliberate change, `just golden` regenerates the golden files and shows the diff.

use crate::util::{dupstream_ok, root, scratch, shared_data};
use std::path::{Path, PathBuf};

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.csv"))
}

/// Compares `actual` with the golden file `name`, or rewrites it under `DUPSTREAM_UPDATE_GOLDEN`.
pub fn check_golden(name: &str, actual: &[u8]) {
    let path = golden_path(name);
    if std::env::var_os("DUPSTREAM_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        eprintln!("updated {}", path.display());
        return;
    }
    let expected = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `just golden`)", path.display()));
    if expected != actual {
        let (e, a) = (
            String::from_utf8_lossy(&expected),
            String::from_utf8_lossy(actual),
        );
        let diff: Vec<String> = e
            .lines()
            .zip(a.lines())
            .enumerate()
            .filter(|(_, (x, y))| x != y)
            .take(5)
            .map(|(i, (x, y))| format!("line {}:\n  golden: {x}\n  actual: {y}", i + 1))
            .collect();
        panic!(
            "{name}: results differ from the golden file {} ({} vs {} lines):\n{}\nIf the change is deliberate, run `just golden` and commit the diff.",
            path.display(),
            e.lines().count(),
            a.lines().count(),
            diff.join("\n")
        );
    }
}

/// Runs `dupstream run ARGS --out <scratch>` and returns the output directory.
fn run(name: &str, args: &[&str]) -> PathBuf {
    let out = scratch(name).join("out");
    let mut all: Vec<&str> = args.to_vec();
    let out_s = out.to_str().unwrap().to_string();
    all.extend(["--quiet", "--out", &out_s]);
    dupstream_ok(&all);
    out
}

/// One cell of `table.csv` that has a paper value.
#[derive(Debug)]
pub struct Compared {
    pub row: String,
    pub metric: String,
    pub column: String,
    pub ours: f64,
    pub paper: f64,
}

pub fn compared_cells(dir: &Path) -> Vec<Compared> {
    let mut r = csv::Reader::from_path(dir.join("table.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (row, metric, column, ours, paper) = (
        col("row"),
        col("metric"),
        col("column"),
        col("ours_pct"),
        col("paper_pct"),
    );
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| !rec[paper].is_empty())
        .map(|rec| Compared {
            row: rec[row].to_string(),
            metric: rec[metric].to_string(),
            column: rec[column].to_string(),
            ours: rec[ours].parse().unwrap(),
            paper: rec[paper].parse().unwrap(),
        })
        .collect()
}

#[test]
fn nasa_log_replay_through_every_structure() {
    let Some(data) = shared_data("nasa-http-1995-08-01.tsv") else {
        return;
    };
    let dir = scratch("nasa-exp");
    let exp = dir.join("nasa.toml");
    let structures =
        std::fs::read_to_string(root().join("crates/dupstream-runner/tests/every-structure.toml"))
            .unwrap();
    std::fs::write(
        &exp,
        format!(
            r#"name = "nasa-replay"
description = "NASA-HTTP 1995-08-01 log replayed through every structure"

[stream]
kind = "replay"
path = {path:?}
format = "tsv"
column = "url"
header = true

[grid]
memory = ["2^14 bits", "2^18 bits"]

[metrics]
checkpoints = 4

{structures}"#,
            path = data.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = run("nasa", &["run", exp.to_str().unwrap()]);
    let streams = std::fs::read_to_string(out.join("streams.csv")).unwrap();
    let n: Vec<&str> = streams.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(
        n[3], "30969",
        "ground truth must see 30,969 requests: {streams}"
    );
    check_golden("nasa-replay", &std::fs::read(out.join("raw.csv")).unwrap());
}

/// A cell of a paper table that this project documents as not reproducing (REPRODUCTION.md,
/// experiments/bera-journal/SETUP.md). It is still pinned exactly by the golden file; it is only
/// exempt from the comparison with the paper. `None` matches every row / metric.
struct Deviation {
    column: &'static str,
    memory: Option<&'static str>,
    metric: Option<&'static str>,
    why: &'static str,
}

const RSBF: Deviation = Deviation {
    column: "RSBF",
    memory: None,
    metric: None,
    why: "neither published RSBF pseudo-code reproduces the RSBF column (SETUP.md: with s = M/k the \
          reservoir phase never resets bits at 256/512 MB, so FNR is 0 where the paper prints 18 % / 10 %)",
};

/// Runs a Bera et al. table at scale 64, pins it to its golden file, and compares every cell not
/// listed in `deviations` with the paper, within `rel` relative or `abs_pp` percentage points.
fn bera_table_at_scale_64(table: &str, rel: f64, abs_pp: f64, deviations: &[Deviation]) {
    let file = format!("experiments/bera-journal/{table}.toml");
    let out = run(&format!("bera-{table}"), &["run", &file, "--scale", "64"]);
    check_golden(
        &format!("bera-journal-{table}-scale64"),
        &std::fs::read(out.join("raw.csv")).unwrap(),
    );
    let cells = compared_cells(&out);
    assert_eq!(
        cells.len(),
        40,
        "{table}: expected 40 cells with a paper value"
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for c in &cells {
        let exempt = deviations.iter().find(|d| {
            d.column == c.column
                && d.memory.is_none_or(|m| m == c.row)
                && d.metric.is_none_or(|m| m == c.metric)
        });
        if let Some(d) = exempt {
            eprintln!(
                "{table} {} {} {}: documented deviation ({})",
                c.row, c.metric, c.column, d.why
            );
            continue;
        }
        checked += 1;
        let tol = (rel * c.paper.abs()).max(abs_pp);
        if (c.ours - c.paper).abs() > tol {
            failures.push(format!(
                "{} {} {}: ours {:.4} %, paper {:.4} %, |diff| {:.4} > {tol:.4} pp",
                c.row,
                c.metric,
                c.column,
                c.ours,
                c.paper,
                (c.ours - c.paper).abs()
            ));
        }
    }
    eprintln!("{table}: {checked} cells compared with the paper");
    assert!(
        failures.is_empty(),
        "{table} at scale 64 no longer matches the paper:\n{}",
        failures.join("\n")
    );
}

/// The reproduction criterion (3 % relative or 0.05 percentage points, as in REPRODUCTION.md)
/// widened by the scale effect measured on Table 7 between the full-scale run (committed under
/// results/bera-journal-table7/) and `--scale 64`: at most 0.50 % relative where the relative
/// bound applies (rates above 1.67 %), at most 0.0033 pp below. A cell that reproduces at full
/// scale therefore stays within 3.5 % / 0.055 pp at scale 64.
const SCALE64_REL: f64 = 0.035;
const SCALE64_ABS_PP: f64 = 0.055;

#[test]
fn bera_journal_table7_at_scale_64() {
    let sbf_512 = Deviation {
        column: "SBF",
        memory: Some("512MB"),
        metric: Some("fnr"),
        why: "SBF's parameters are not stated by the paper (Max=1, K=2, P=4 assumed); at 512 MB our FNR \
              is 18.4 % against 17.1 % at every scale",
    };
    bera_table_at_scale_64("table7", SCALE64_REL, SCALE64_ABS_PP, &[RSBF, sbf_512]);
}

#[test]
fn bera_journal_table8_at_scale_64() {
    // Table 8 was not run at full scale; its deviations are the cells outside the 3 % criterion
    // at scale 16 (which differs from full scale by under 0.7 % on Table 7).
    let sbf_512 = Deviation {
        column: "SBF",
        memory: Some("512MB"),
        metric: None,
        why: "SBF's parameters are not stated by the paper (Max=1, K=2, P=4 assumed); at 512 MB ours is \
              1.34 % / 33.8 % against 1.45 % / 30.3 %",
    };
    const LOW_FNR: &str = "at 60 % distinct our FNRs are 1-4 % (relative) below the paper's, more so with \
                           more memory (REPRODUCTION.md)";
    let low_fnr = |column, memory| Deviation {
        column,
        memory: Some(memory),
        metric: Some("fnr"),
        why: LOW_FNR,
    };
    let deviations = [
        RSBF,
        sbf_512,
        low_fnr("RLBSBF", "128MB"),
        low_fnr("RLBSBF", "256MB"),
        low_fnr("RLBSBF", "512MB"),
        low_fnr("BSBF", "512MB"),
        low_fnr("BSBFSD", "512MB"),
    ];
    bera_table_at_scale_64("table8", SCALE64_REL, SCALE64_ABS_PP, &deviations);
}

/// Deng & Rafiei Fig. 6(a) (b-model stream, SBF vs buffering vs derived FPBuffering) at 1/64 of
/// its 2^24 elements and memory. The paper prints the figure only as a plot, so the check is
/// the golden file alone.
#[test]
fn deng_fig6a_at_scale_64() {
    let out = run(
        "deng-fig6a",
        &["run", "experiments/deng/fig6a.toml", "--scale", "64"],
    );
    check_golden(
        "deng-fig6a-scale64",
        &std::fs::read(out.join("raw.csv")).unwrap(),
    );
}

/// Singh & Batra Fig. 6 (FP-SBF's stable point beside SBF and RSBF, 100K elements, 70 %
/// distinct). The paper prints no numbers (experiments/singh-batra/SETUP.md): golden file only.
#[test]
fn singh_batra_fpsbf_stable_point() {
    let out = run(
        "fpsbf-fig6",
        &["run", "experiments/singh-batra/fig6-stable-point.toml"],
    );
    check_golden(
        "singh-batra-fig6",
        &std::fs::read(out.join("raw.csv")).unwrap(),
    );
}
