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
    // The filters crate's parameter sets marked for the replay, in their order.
    let structures: String = dupstream_filters::parameter_sets::ALL
        .iter()
        .filter(|s| s.replay)
        .map(|s| {
            let label = s.label.map(|l| format!("label = {l:?}\n"));
            format!("[[algorithm]]\n{}{}\n\n", label.unwrap_or_default(), s.toml)
        })
        .collect();
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

/// The columns of the Bera et al. tables that this project claims as its reproduction, and the
/// only ones compared with the paper. Chosen a priori, not by which cells pass:
/// - `SBF-rand31` (hypothesis: decrement positions from a 31-bit generator, SETUP.md) is
///   compared in every row. Below 2^31 cells it *is* the default SBF (same draws, same
///   verdicts: checked cell by cell below), so the default `SBF` column only differs at 512 MB,
///   where the two are competing hypotheses about one unstated detail and the paper can match
///   at most one of them.
/// - `RSBF` (the papers' prose) is compared; `RSBF-pseudocode` is the rejected reading, kept
///   beside it as a record: with `s = M/k ≥ N` its FNR is 0 by construction (`tests/bera.rs`,
///   `rsbf_phase1_has_no_false_negatives`), while every table prints a non-zero FNR.
/// - BSBF, BSBFSD and RLBSBF: the papers' own structures, one reading each.
const CLAIMED: [&str; 5] = ["SBF-rand31", "RSBF", "BSBF", "BSBFSD", "RLBSBF"];

/// The tolerance of a cell: `rel` relative or `abs_pp` percentage points, whichever is larger.
struct Tolerance {
    rel: f64,
    abs_pp: f64,
}

/// Runs a Bera et al. table at scale 64, pins it to its golden file, checks that SBF and
/// SBF-rand31 agree wherever the range covers every cell, and compares every cell of the
/// [`CLAIMED`] columns with the paper within `tol(cell)`.
///
/// `--scale 64` divides the memory by 64, and the runner scales SBF's decrement range with it
/// (31 bits → 25 bits, `Structure::scaled_params`), so the SBF-rand31 column tests the
/// hypothesis with half of the cells left undecremented at 512 MB, as at full scale.
fn bera_table_at_scale_64(table: &str, tol: impl Fn(&Compared) -> Tolerance) {
    let file = format!("experiments/bera-journal/{table}.toml");
    let out = scratch(&format!("bera-{table}")).join("out");
    let printed = dupstream_ok(&[
        "run",
        &file,
        "--scale",
        "64",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    // The terminal table: aligned plain text within 100 columns, every structure in it.
    let text = String::from_utf8(printed.stdout).unwrap();
    for line in text.lines() {
        assert!(
            line.chars().count() <= 100,
            "{table}: wider than 100:\n{text}"
        );
    }
    for column in [
        "SBF",
        "SBF-rand31",
        "RSBF",
        "BSBF",
        "BSBFSD",
        "RLBSBF",
        "✓",
        "ours",
        "paper",
    ] {
        assert!(text.contains(column), "{table}: no {column} in\n{text}");
    }
    assert!(
        !text.contains("**"),
        "{table}: Markdown on the terminal\n{text}"
    );
    check_golden(
        &format!("bera-journal-{table}-scale64"),
        &std::fs::read(out.join("raw.csv")).unwrap(),
    );
    let cells = compared_cells(&out);
    assert_eq!(
        cells.len(),
        56,
        "{table}: expected 56 cells with a paper value (7 columns, 4 rows, 2 metrics)"
    );
    // 64-256 MB at scale 64: at most 2^25 cells, inside the 25-bit range.
    for c in cells
        .iter()
        .filter(|c| c.column == "SBF" && c.row != "512MB")
    {
        let twin = cells
            .iter()
            .find(|d| d.column == "SBF-rand31" && d.row == c.row && d.metric == c.metric)
            .unwrap();
        assert_eq!(
            c.ours, twin.ours,
            "{table} {} {}: SBF vs SBF-rand31",
            c.row, c.metric
        );
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for c in cells
        .iter()
        .filter(|c| CLAIMED.contains(&c.column.as_str()))
    {
        checked += 1;
        let Tolerance { rel, abs_pp } = tol(c);
        let bound = (rel * c.paper.abs()).max(abs_pp);
        if (c.ours - c.paper).abs() > bound {
            failures.push(format!(
                "{} {} {}: ours {:.4} %, paper {:.4} %, |diff| {:.4} > {bound:.4} pp",
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
    assert_eq!(checked, 40);
    assert!(
        failures.is_empty(),
        "{table} at scale 64 no longer matches the paper:\n{}",
        failures.join("\n")
    );
}

/// The reproduction criterion (3 % relative or 0.05 percentage points, as in REPRODUCTION.md)
/// widened by the scale effect measured on the tables tested here, between their full-scale
/// runs on the shuffled stream (committed under results/bera-journal-table{7,8}/) and
/// `--scale 64`: at most 0.47 % relative where the relative bound applies (rates above
/// 1.67 %), at most 0.0069 pp below. A cell that reproduces at full scale therefore stays
/// within 3.5 % / 0.057 pp at scale 64. (Over all of Tables 4–9 the effect reaches 1.47 % on
/// one cell, Table 6 RLBSBF 512 MB FNR, and 0.011 pp; those tables are not tested here.)
const SCALE64: Tolerance = Tolerance {
    rel: 0.035,
    abs_pp: 0.057,
};

#[test]
fn bera_journal_table7_at_scale_64() {
    bera_table_at_scale_64("table7", |_| SCALE64);
}

/// Table 8 (60 % distinct), with the ordinary tolerance. Its FNRs were 0.7–4.1 % below the
/// paper's while the stream was i.i.d. uniform over a universe; with the shuffled stream (exactly
/// d·N distinct keys, duplicates drawn uniformly from them; SETUP.md, "The stream") they match,
/// so this table needs no exception.
#[test]
fn bera_journal_table8_at_scale_64() {
    bera_table_at_scale_64("table8", |_| SCALE64);
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

/// Deng & Rafiei Fig. 6(b): the same at bias b = 0.7 (fig6a's b = 0.5 is the one value at
/// which a b-model that ignored its bias would give the same stream).
#[test]
fn deng_fig6b_at_scale_64() {
    let file = root().join("experiments/deng/fig6b.toml");
    let doc: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        doc["stream"]["b"].as_float(),
        Some(0.7),
        "a bias other than 0.5"
    );
    let out = run(
        "deng-fig6b",
        &["run", "experiments/deng/fig6b.toml", "--scale", "64"],
    );
    check_golden(
        "deng-fig6b-scale64",
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

/// The QHT Table 2/4 columns that model the authors' benchmark code
/// (github.com/mariuslp/duplicate_sliding_benchmark at 4d600e2; experiments/qht/SETUP.md), and
/// b_DBF, which is that code's.
const QHT_AUTHORS: [&str; 4] = ["Cuckoo-authors", "SBF-authors", "A2-authors", "b_DBF"];

/// Cells of those columns that differ from the paper at `--scale 64` for a reason of scale,
/// each reproduced at full scale (REPRODUCTION.md): b_DBF at 10^5 bits has its window divided
/// by 64 (94) and a running-counter period of 14, so it remembers 84 of the 94 elements
/// (89 %), where full scale remembers 5148 of 6000 (86 %). (The cuckoo filter at 10^4 bits,
/// 16 buckets at this scale, was excepted too until its alternate bucket followed the
/// authors' code, `alternate = "authors"`: it then reproduces.)
const QHT_SCALE_EXCEPTIONS: [(&str, &str); 1] = [("b_DBF", "100000 bits")];

/// Runs the authors' columns of a QHT Table 2/4 file (the file's other columns removed) at
/// scale 64, pins them to a golden file and compares every cell with the paper within the
/// ordinary tolerance widened as for Bera et al. ([`SCALE64`]), except [`QHT_SCALE_EXCEPTIONS`].
fn qht_authors_at_scale_64(alphabet: &str) {
    let file = root().join(format!("experiments/qht/table2-4-{alphabet}.toml"));
    let mut doc: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let algorithms = doc["algorithm"].as_array().unwrap().clone();
    let kept: Vec<toml::Value> = algorithms
        .into_iter()
        .filter(|a| QHT_AUTHORS.contains(&a["label"].as_str().unwrap()))
        .collect();
    assert_eq!(kept.len(), QHT_AUTHORS.len(), "{alphabet}: columns");
    doc.insert("algorithm".into(), toml::Value::Array(kept));
    let reference = doc["reference"].as_table_mut().unwrap();
    let csv = root()
        .join("experiments/qht")
        .join(reference["file"].as_str().unwrap());
    reference.insert("file".into(), csv.to_str().unwrap().into());
    let dir = scratch(&format!("qht-authors-{alphabet}"));
    let exp = dir.join("authors.toml");
    std::fs::write(&exp, toml::to_string(&doc).unwrap()).unwrap();
    let out = run(
        &format!("qht-{alphabet}"),
        &["run", exp.to_str().unwrap(), "--scale", "64"],
    );
    check_golden(
        &format!("qht-table2-4-{alphabet}-authors-scale64"),
        &std::fs::read(out.join("raw.csv")).unwrap(),
    );
    let cells = compared_cells(&out);
    assert_eq!(cells.len(), 48, "4 columns, 4 rows, FPR, FNR and E");
    let mut failures = Vec::new();
    for c in &cells {
        if QHT_SCALE_EXCEPTIONS.contains(&(c.column.as_str(), c.row.as_str())) {
            continue;
        }
        let bound = (SCALE64.rel * c.paper.abs()).max(SCALE64.abs_pp);
        if (c.ours - c.paper).abs() > bound {
            failures.push(format!(
                "{} {} {}: ours {:.4} %, paper {:.4} %, |diff| {:.4} > {bound:.4} pp",
                c.row,
                c.metric,
                c.column,
                c.ours,
                c.paper,
                (c.ours - c.paper).abs()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "QHT {alphabet}: the authors' columns at scale 64 no longer match the paper:\n{}",
        failures.join("\n")
    );
}

#[test]
fn qht_table2_4_u24_authors_at_scale_64() {
    qht_authors_at_scale_64("u24");
}

#[test]
fn qht_table2_4_u27_authors_at_scale_64() {
    qht_authors_at_scale_64("u27");
}
