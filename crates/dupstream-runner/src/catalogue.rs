//! Catalogue helpers: `dupstream check` (every experiment file parses and validates, its paper
//! values load) and `dupstream timing` (time per element beside the paper's, QHT paper Table 3).

use crate::experiment;
use crate::output::{RawRow, atomic_write, read_rows};
use crate::table::{self, reference_matches};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Every `*.toml` under `path` (or `path` itself when it is a file), sorted.
pub fn experiment_files(path: &Path) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    if path.is_file() {
        out.push(path.to_path_buf());
    } else {
        walk(path, &mut out).with_context(|| format!("reading {}", path.display()))?;
    }
    out.sort();
    Ok(out)
}

/// Checks one experiment file: it parses and validates (at `scale`, and at scale 1), and its
/// reference table, if any, loads with at least one value. Returns a one-line summary.
pub fn check_file(file: &Path, scale: Option<u64>) -> Result<String> {
    let full = experiment::load(file, None)?;
    let exp = match scale {
        Some(s) => experiment::load(file, Some(s))?,
        None => full.clone(),
    };
    let mut refs = String::new();
    if let Some((path, name)) = &exp.reference {
        let values = table::load_reference(path, name)?;
        if values.is_empty() {
            bail!(
                "{}: reference table `{name}` has no rows in {}",
                file.display(),
                path.display()
            );
        }
        refs = format!(", {} paper values", values.len());
    }
    let elements: u64 = exp.total_elements().unwrap_or(0);
    Ok(format!(
        "{} cells, {} streams, {:.3e} elements at scale {}{refs}",
        exp.cells.len(),
        exp.streams.len(),
        elements as f64,
        exp.scale
    ))
}

/// `dupstream check`: every experiment file under the paths. Errors are printed one per line;
/// the command fails (exit 2) if any file is invalid.
pub fn check(paths: &[PathBuf], scale: Option<u64>) -> Result<()> {
    let mut bad = 0;
    let mut total = 0;
    for path in paths {
        for file in experiment_files(path)? {
            total += 1;
            match check_file(&file, scale) {
                Ok(summary) => println!("ok    {}: {summary}", file.display()),
                Err(e) => {
                    bad += 1;
                    match e.downcast_ref::<crate::error::ConfigError>() {
                        Some(c) => println!("FAIL  {c}"),
                        None => println!("FAIL  {}: {e:#}", file.display()),
                    }
                }
            }
        }
    }
    if total == 0 {
        bail!("no experiment files found");
    }
    if bad > 0 {
        return Err(crate::error::ConfigError::new(
            Path::new("experiments"),
            None,
            None,
            format!("{bad} of {total} experiment files are invalid"),
        )
        .into());
    }
    println!("{total} experiment files valid");
    Ok(())
}

/// `dupstream estimate`: the time `dupstream run` would estimate for each experiment file
/// (the same estimate it prints before starting) and the total, at `--scale` and `--threads`.
/// `scales` maps a file to its own scale (`FILE=SCALE`), for catalogues that run some files at
/// full scale whatever the overall scale.
pub fn estimate(
    paths: &[PathBuf],
    scale: Option<u64>,
    threads: Option<usize>,
    fixed: &[String],
) -> Result<()> {
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut total = 0.0;
    let mut unknown = 0;
    for path in paths {
        for file in experiment_files(path)? {
            let text = file.to_string_lossy();
            let own = fixed
                .iter()
                .filter_map(|f| f.split_once('='))
                .find(|(name, _)| text.ends_with(name))
                .and_then(|(_, s)| s.parse::<u64>().ok());
            let exp = experiment::load(&file, own.or(scale))?;
            let secs = crate::run::estimate_secs(&exp, threads);
            if exp.total_elements().is_none() {
                unknown += 1;
            }
            total += secs;
            println!("{:>10.0} s  {} (scale {})", secs, file.display(), exp.scale);
        }
    }
    println!(
        "{:>10.0} s  total ({:.1} h) with {threads} thread(s){}",
        total,
        total / 3600.0,
        if unknown > 0 {
            format!("; {unknown} replay(s) of unknown length not counted")
        } else {
            String::new()
        }
    );
    Ok(())
}

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

/// `dupstream timing RESULTS_DIR`: the wall time per element of every structure (from
/// `manifest.json`), beside the paper's `us_per_element` values when the experiment's
/// reference has them. Writes `timing.csv` and `timing.md` and prints the latter.
pub fn timing(dir: &Path) -> Result<()> {
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("manifest.json"))
            .with_context(|| format!("reading {}/manifest.json", dir.display()))?,
    )?;
    let exp = experiment::load(&dir.join("run.toml"), None)?;
    let rows: Vec<RawRow> = read_rows(&dir.join("raw.csv"))?;
    let by_cell: BTreeMap<usize, &RawRow> = rows.iter().map(|r| (r.cell, r)).collect();
    let reference = match &exp.reference {
        Some((path, name)) => table::load_reference(path, name)?,
        None => Vec::new(),
    };
    // (label, algorithm, memory, ns values, paper ns).
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
        let paper = reference
            .iter()
            .find(|p| p.metric == "us_per_element" && reference_matches(p, r))
            .map(|p| p.value_pct * 1000.0);
        match groups
            .iter_mut()
            .find(|g| g.0 == r.label && g.2 == r.memory)
        {
            Some(g) => g.3.push(ns),
            None => groups.push((
                r.label.clone(),
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
    atomic_write(&dir.join("timing.csv"), &crate::output::csv_bytes(&out)?)?;
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
    println!("{md}");
    Ok(())
}
