//! One identity for a configuration: a label that sweeps a parameter (`BSBF`, `k = [1, 2, 3]`)
//! is three configurations in every output, never one pooled line. Only replicate seeds are
//! pooled.

use crate::util::{dupstream_ok, scratch, write};
use std::path::Path;

/// SBF beside BSBF swept over k under one label, two memory sizes, two seeds.
fn experiment(n: &str) -> String {
    format!(
        r#"name = "configs"
description = "BSBF swept over k under one label"

[stream]
kind = "shuffled"
n = {n}
distinct_fraction = 0.15
seed = 3

[grid]
memory = ["16KB", "32KB"]
seeds = [3, 4]

[[algorithm]]
label = "SBF"
name = "sbf"
max = 1
k = 2
p = 4

[[algorithm]]
label = "BSBF"
name = "bsbf"
k = [1, 2, 3]

[metrics]
checkpoints = 2

[output]
charts = ["rates_vs_memory", "rates_vs_length", "rates_vs_k", "pareto"]
"#
    )
}

fn run(dir: &Path, name: &str, n: &str, scale: &str) -> std::path::PathBuf {
    let file = write(dir, &format!("{name}.toml"), &experiment(n));
    let out = dir.join(name);
    dupstream_ok(&[
        "run",
        &file,
        "--scale",
        scale,
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    out
}

/// The values of a CSV column.
fn column(path: &Path, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let i = r.headers().unwrap().iter().position(|h| h == name).unwrap();
    r.records().map(|rec| rec.unwrap()[i].to_string()).collect()
}

/// The legend entries of a chart: the SVG's text elements.
fn texts(svg: &Path) -> Vec<String> {
    let s = std::fs::read_to_string(svg).unwrap();
    s.split("<text")
        .skip(1)
        .filter_map(|t| {
            Some(
                t.split_once('>')?
                    .1
                    .split_once("</text>")?
                    .0
                    .trim()
                    .to_string(),
            )
        })
        .collect()
}

const CONFIGS: [&str; 3] = ["BSBF k=1", "BSBF k=2", "BSBF k=3"];

#[test]
fn a_swept_label_is_one_configuration_per_value_everywhere() {
    let dir = scratch("configs");
    let a = run(&dir, "a", "200_000", "1");

    // raw.csv and cells.csv name each configuration and its swept value as written.
    let configs = column(&a.join("raw.csv"), "config");
    for c in CONFIGS {
        assert!(configs.iter().any(|x| x == c), "{c} missing in raw.csv");
    }
    assert!(!configs.iter().any(|x| x == "BSBF"), "no pooled BSBF");
    let swept = column(&a.join("raw.csv"), "swept");
    assert!(swept.iter().any(|x| x == "k=3"));
    let cells = column(&a.join("cells.csv"), "config");
    assert_eq!(
        cells.iter().filter(|c| c.starts_with("BSBF k=")).count(),
        12
    );

    // Every chart's legend names the three configurations, never a bare `BSBF` series
    // pooling them.
    for chart in ["rates_vs_memory-0.svg", "pareto-0.svg"] {
        let t = texts(&a.join(chart));
        for c in CONFIGS {
            assert!(t.iter().any(|x| x == c), "{chart}: no {c} in {t:?}");
        }
        assert!(!t.iter().any(|x| x == "BSBF"), "{chart}: {t:?}");
    }
    // Against K, a line is BSBF at one memory size across k = 1, 2, 3.
    let t = texts(&a.join("rates_vs_k-0.svg"));
    assert!(t.iter().any(|x| x == "BSBF 16KB"), "{t:?}");
    assert!(t.iter().any(|x| x == "SBF 32KB"), "{t:?}");
    for chart in std::fs::read_dir(&a).unwrap() {
        let name = chart.unwrap().file_name().into_string().unwrap();
        if name.starts_with("rates_vs_length") && name.ends_with(".svg") {
            let t = texts(&a.join(&name));
            assert!(t.iter().any(|x| x == "BSBF k=2"), "{name}: {t:?}");
        }
    }

    // The table keeps a row per k, each averaging the two seeds of one configuration only.
    let rows: Vec<(String, String, String)> = {
        let p = a.join("table.csv");
        column(&p, "config")
            .into_iter()
            .zip(column(&p, "metric"))
            .zip(column(&p, "seeds"))
            .map(|((c, m), s)| (c, m, s))
            .collect()
    };
    for c in CONFIGS {
        let of_c: Vec<_> = rows.iter().filter(|r| r.0 == c).collect();
        assert_eq!(of_c.len(), 4, "{c}: two memory sizes × FPR, FNR: {rows:?}");
        assert!(of_c.iter().all(|r| r.2 == "2"), "{c}: 2 seeds: {rows:?}");
    }

    // compare, at the same scale and across scales: a row per configuration, named with its
    // k, each pooling only its two seeds.
    let b = run(&dir, "b", "200_000", "2");
    for other in [&a, &b] {
        let out = dupstream_ok(&[
            "compare",
            a.to_str().unwrap(),
            other.to_str().unwrap(),
            "--json",
        ]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = json["rows"].as_array().unwrap();
        let last: Vec<&serde_json::Value> = rows
            .iter()
            .filter(|r| {
                r["last_checkpoint"].as_bool() == Some(true) && r["metric"].as_str() == Some("fnr")
            })
            .collect();
        for c in CONFIGS {
            let of_c: Vec<_> = last
                .iter()
                .filter(|r| r["config"].as_str() == Some(c))
                .collect();
            assert_eq!(of_c.len(), 2, "{c}: one row per memory size: {last:?}");
            assert!(
                of_c.iter()
                    .all(|r| r["a_seeds"].as_u64() == Some(2) && r["b_seeds"].as_u64() == Some(2)),
                "{of_c:?}"
            );
        }
        assert!(json["only_a"].as_array().unwrap().is_empty(), "{json}");
        let md = String::from_utf8(
            dupstream_ok(&["compare", a.to_str().unwrap(), other.to_str().unwrap()]).stdout,
        )
        .unwrap();
        for c in CONFIGS {
            assert!(md.contains(&format!("| {c} | 16KB |")), "{md}");
        }
    }
}

/// `migrate` rewrites a directory of an older layout (no `config`, `swept`, `stream_kind`,
/// `stream_params` columns) into the current one: for an experiment whose labels name one
/// configuration each, the result is byte for byte what this version writes.
#[test]
fn migrate_rewrites_an_older_layout_into_the_current_one() {
    let dir = scratch("migrate");
    let file = write(
        &dir,
        "m.toml",
        &experiment("100_000").replace("k = [1, 2, 3]", "k = 2"),
    );
    let out = dir.join("m");
    dupstream_ok(&["run", &file, "--quiet", "--out", out.to_str().unwrap()]);
    let current = std::fs::read(out.join("raw.csv")).unwrap();
    // The same file without the columns added since.
    let drop = ["config", "swept", "stream_kind", "stream_params"];
    let mut r = csv::Reader::from_reader(current.as_slice());
    let header = r.headers().unwrap().clone();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !drop.contains(&&header[i]))
        .collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(keep.iter().map(|&i| &header[i])).unwrap();
    for rec in r.records() {
        let rec = rec.unwrap();
        w.write_record(keep.iter().map(|&i| &rec[i])).unwrap();
    }
    let old = w.into_inner().unwrap();
    assert_ne!(old, current);
    std::fs::write(out.join("raw.csv"), &old).unwrap();
    let table = std::fs::read(out.join("table.csv")).unwrap();
    std::fs::remove_file(out.join("table.csv")).unwrap();
    // The commit record as the older version wrote it: its raw.csv, no table.csv (migrate
    // refuses a run whose files differ from its record).
    let path = out.join("commit.json");
    let mut commit: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let files = commit["files"].as_array_mut().unwrap();
    files.retain(|f| f["path"] != "table.csv");
    for f in files.iter_mut().filter(|f| f["path"] == "raw.csv") {
        f["bytes"] = serde_json::json!(old.len());
        f["checksum"] = serde_json::json!(dupstream_runner::record::checksum(&old));
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&commit).unwrap()).unwrap();
    dupstream_ok(&["migrate", dir.to_str().unwrap()]);
    assert!(std::fs::read(out.join("raw.csv")).unwrap() == current);
    assert!(std::fs::read(out.join("table.csv")).unwrap() == table);
    // The commit record lists the files as they now are.
    let commit: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("commit.json")).unwrap()).unwrap();
    let raw = commit["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "raw.csv")
        .unwrap();
    assert_eq!(raw["bytes"].as_u64(), Some(current.len() as u64));
}
