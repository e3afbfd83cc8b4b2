//! `dupstream timing`: the wall time per element of every structure in a results directory
//! (from `manifest.json`), beside the paper's `us_per_element` values (QHT paper Table 3).

use crate::plan::Experiment;
use crate::record::{RawRow, atomic_write, read_result_json, write_csv};
use crate::report::reference::{self, paper_value};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One line of `timing.csv`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TimingRow {
    pub label: String,
    pub algorithm: String,
    pub memory: String,
    pub cells: usize,
    pub ours_ns_per_element: f64,
    pub paper_ns_per_element: Option<f64>,
    pub paper_over_ours: Option<f64>,
}

/// The wall time per element of every structure of a results directory, beside the paper's
/// `us_per_element` values when the experiment's reference has them. Writes `timing.csv` and
/// `timing.md`; returns the latter.
pub fn timing(dir: &Path, exp: &Experiment, rows: &[RawRow]) -> Result<String> {
    let manifest: serde_json::Value = read_result_json(dir, "manifest.json")?;
    let by_cell: BTreeMap<usize, &RawRow> = rows.iter().map(|r| (r.cell, r)).collect();
    let reference = reference::of(exp)?;
    // (configuration, algorithm, memory, ns values, paper ns).
    type Group = (String, String, String, Vec<f64>, Option<f64>);
    let mut groups: Vec<Group> = Vec::new();
    let cells = manifest["cells"]
        .as_array()
        .context("manifest.json has no cells")?;
    for c in cells {
        let cell = c["cell"].as_u64().unwrap_or(0) as usize;
        let ns = c["ns_per_element"].as_f64().unwrap_or(f64::NAN);
        let Some(r) = by_cell.get(&cell) else {
            continue;
        };
        let paper = paper_value(&reference, "us_per_element", r).map(|p| p.value_pct * 1000.0);
        match groups
            .iter_mut()
            .find(|g| g.0 == r.config() && g.2 == r.memory)
        {
            Some(g) => g.3.push(ns),
            None => groups.push((
                r.config().to_string(),
                r.algorithm.clone(),
                r.memory.clone(),
                vec![ns],
                paper,
            )),
        }
    }
    let out: Vec<TimingRow> = groups
        .into_iter()
        .map(|(label, algorithm, memory, ns, paper)| {
            let ours = ns.iter().sum::<f64>() / ns.len().max(1) as f64;
            TimingRow {
                label,
                algorithm,
                memory,
                cells: ns.len(),
                ours_ns_per_element: ours,
                paper_ns_per_element: paper,
                paper_over_ours: paper.map(|p| p / ours),
            }
        })
        .collect();
    write_csv(&dir.join("timing.csv"), &out)?;
    let machine = &manifest["machine"];
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# {}: time per element\n\nOurs: wall time of each cell (stream generation, hashing, the structure, scoring) / elements, mean over seeds; {} thread(s) on {} ({} cores, {}), scale {}. The paper's: µs per `Insert ∘ Detect` on \"a laptop with Intel i7\" (QHT paper §6.2), converted to ns.\n",
        exp.name,
        manifest["threads"],
        machine["cpu"].as_str().unwrap_or("unknown CPU"),
        machine["cores"],
        machine["os"].as_str().unwrap_or("?"),
        exp.scale
    );
    let _ = writeln!(
        md,
        "| structure | memory | ours (ns/element) | paper (ns/element) | paper / ours |\n|---|---|---|---|---|"
    );
    for t in &out {
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} | {} | {} |",
            t.label,
            t.memory,
            t.ours_ns_per_element,
            t.paper_ns_per_element
                .map_or("—".into(), |p| format!("{p:.0}")),
            t.paper_over_ours.map_or("—".into(), |r| format!("{r:.1}×"))
        );
    }
    atomic_write(&dir.join("timing.md"), md.as_bytes())?;
    Ok(md)
}
