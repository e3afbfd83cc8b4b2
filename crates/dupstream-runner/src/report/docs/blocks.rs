//! The generated blocks, one method each: a run's table and paragraph, the papers, the
//! catalogue, the timing table and the results index.

use super::canonical::{Catalogue, ExperimentFile, Run};
use super::format::{bytes, date, href, ratio, secs, text};
use crate::report::readings::{Counts, Reading};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::fmt::Write as _;

impl Catalogue {
    /// The text of the block `name` in the document `doc` (relative to the root; links are
    /// made relative to it), without the markers, ending in a newline.
    pub fn block(&self, name: &str, doc: &str) -> Result<String> {
        let (kind, arg) = name.split_once(' ').unwrap_or((name, ""));
        match (kind, arg) {
            ("table", e) if !e.is_empty() => self.table(e, doc),
            ("run", e) if !e.is_empty() => Ok(self.run_paragraph(self.run(e)?, doc)),
            ("papers", "") => Ok(self.papers()),
            ("catalogue", "") => Ok(self.catalogue(doc)),
            ("timing", "") => Ok(self.timing(doc)),
            ("timing-check", "") => self.timing_check(),
            ("results-index", "") => Ok(self.results_index(doc)),
            ("peers", arg) => self.peers(arg, doc),
            _ => bail!(
                "unknown generated block `{name}` (known: table EXPERIMENT, run EXPERIMENT, papers, catalogue, timing, timing-check, results-index, peers, peers batch)"
            ),
        }
    }

    fn table(&self, experiment: &str, doc: &str) -> Result<String> {
        let run = self.run(experiment)?;
        let path = self.root.join(&run.dir).join("table.md");
        let md = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let lines: Vec<&str> = md.lines().collect();
        let from = lines
            .iter()
            .position(|l| l.starts_with("Each cell"))
            .or_else(|| lines.iter().position(|l| l.starts_with('|')))
            .with_context(|| format!("{}: no table", path.display()))?;
        let mut out = format!(
            "From [`{dir}table.md`]({}):\n\n",
            href(doc, &format!("{}table.md", run.dir)),
            dir = run.dir
        );
        for l in &lines[from..] {
            out.push_str(l);
            out.push('\n');
        }
        Ok(out)
    }

    fn run_paragraph(&self, run: &Run, doc: &str) -> String {
        let m = &run.manifest;
        format!(
            "[`{dir}`]({}): {}; {} wall (estimated {}), peak memory {} (estimated {}); {}.\n",
            href(doc, &run.dir),
            run_facts(m),
            secs(m["wall_secs_total"].as_f64()),
            secs(m["estimated_secs"].as_f64()),
            bytes(m["peak_rss_bytes"].as_u64()),
            bytes(m["estimated_peak_bytes"].as_u64()),
            machine(m),
            dir = run.dir
        )
    }

    /// The counts of an experiment file's runs: its canonical run's, with the authors'-code
    /// columns taken from its own `<experiment>-authors` run where there is one (made at full
    /// scale from the same file, those columns alone).
    fn counts_of(&self, e: &ExperimentFile) -> Option<Counts> {
        let main = self.runs.get(&e.name)?.tolerance.unwrap_or_default();
        let Some(own) = self
            .runs
            .get(&format!("{}-authors", e.name))
            .and_then(|r| r.tolerance)
        else {
            return Some(main);
        };
        let mut c = main.without(Reading::Authors);
        c += own;
        Some(c)
    }

    fn papers(&self) -> String {
        let mut out = String::from("| experiments | files | with a committed run |");
        for r in Reading::ALL {
            let _ = write!(out, " {} |", r.heading());
        }
        out.push_str("\n|---|---|---|");
        out.push_str(&"---|".repeat(Reading::ALL.len()));
        out.push('\n');
        let mut papers: Vec<&str> = self.experiments.iter().map(|e| e.paper.as_str()).collect();
        papers.dedup();
        let row = |out: &mut String, name: &str, files: usize, runs: usize, c: &Counts| {
            let _ = write!(out, "| {name} | {files} | {runs} |");
            for r in Reading::ALL {
                let (ok, of) = c.get(r);
                let _ = write!(out, " {} |", ratio(ok, of));
            }
            out.push('\n');
        };
        let mut all = Counts::default();
        for paper in papers {
            let files: Vec<&ExperimentFile> = self
                .experiments
                .iter()
                .filter(|e| e.paper == paper)
                .collect();
            let runs = files
                .iter()
                .filter(|e| self.runs.contains_key(&e.name))
                .count();
            let mut c = Counts::default();
            for e in &files {
                c += self.counts_of(e).unwrap_or_default();
            }
            all += c;
            row(&mut out, &paper_name(paper), files.len(), runs, &c);
        }
        let runs = self
            .experiments
            .iter()
            .filter(|e| self.runs.contains_key(&e.name))
            .count();
        row(&mut out, "all", self.experiments.len(), runs, &all);
        out
    }

    fn catalogue(&self, doc: &str) -> String {
        let mut out = String::from(
            "| experiment file | paper values | canonical run | scale | within tolerance / compared | wall time | threads | peak memory | revision |\n|---|---|---|---|---|---|---|---|---|\n",
        );
        for e in &self.experiments {
            let Some(run) = self.runs.get(&e.name) else {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | not committed | | | | | | |",
                    e.path, e.paper_values
                );
                continue;
            };
            let m = &run.manifest;
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                e.path,
                e.paper_values,
                link(run, doc),
                text(&m["scale"]),
                run.tolerance.map_or("—".into(), |c| c.summary()),
                secs(m["wall_secs_total"].as_f64()),
                text(&m["threads"]),
                bytes(m["peak_rss_bytes"].as_u64()),
                text(&m["git_revision"])
            );
        }
        out
    }

    fn timing(&self, doc: &str) -> String {
        let mut machines: Vec<String> = self.runs.values().map(|r| machine(&r.manifest)).collect();
        machines.sort();
        machines.dedup();
        let mut out = format!(
            "Machine{}: {}. Wall time and peak memory as each run's `manifest.json` records them, beside the estimate `dupstream run` printed before starting; the load average is the one-minute figure when the run started.\n\n",
            if machines.len() == 1 { "" } else { "s" },
            machines.join("; ")
        );
        out.push_str(
            "| experiment | run | scale | threads | cells | wall time | estimated | measured / estimated | peak memory | estimated peak | load at start |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for (experiment, run) in &self.runs {
            let m = &run.manifest;
            let wall = m["wall_secs_total"].as_f64();
            let est = m["estimated_secs"].as_f64();
            let ratio = match (wall, est) {
                (Some(w), Some(e)) if e > 0.0 => format!("{:.2}×", w / e),
                _ => "—".into(),
            };
            let _ = writeln!(
                out,
                "| {experiment} | {} | {} | {} | {} | {} | {} | {ratio} | {} | {} | {} |",
                link(run, doc),
                text(&m["scale"]),
                text(&m["threads"]),
                cells(m),
                secs(wall),
                secs(est),
                bytes(m["peak_rss_bytes"].as_u64()),
                bytes(m["estimated_peak_bytes"].as_u64()),
                m["machine"]["load_average"][0]
                    .as_f64()
                    .map_or("—".into(), |l| format!("{l:.2}"))
            );
        }
        out
    }

    fn results_index(&self, doc: &str) -> String {
        let mut out = String::from(
            "| experiment | run | scale | cells | within tolerance / compared | revision | date |\n|---|---|---|---|---|---|---|\n",
        );
        for (experiment, run) in &self.runs {
            let m = &run.manifest;
            let _ = writeln!(
                out,
                "| {experiment} | {} | {} | {} | {} | {} | {} |",
                link(run, doc),
                text(&m["scale"]),
                cells(m),
                run.tolerance.map_or("—".into(), |c| c.summary()),
                text(&m["git_revision"]),
                date(m)
            );
        }
        out
    }
}

fn paper_name(dir: &str) -> String {
    match dir {
        "deng" => "Deng & Rafiei (SBF)",
        "bera-conference" => "Bera et al., conference (RSBF)",
        "bera-journal" => "Bera et al., journal (RSBF, BSBF, BSBFSD, RLBSBF)",
        "singh-batra" => "Singh & Batra (FP-SBF)",
        "qht" => "Géraud et al. (QHT)",
        "leaderboard" => "the leaderboard (every structure, no paper values)",
        other => other,
    }
    .to_string()
}

/// A Markdown link to the run's directory, named by its directory name, from the document
/// `doc`.
fn link(run: &Run, doc: &str) -> String {
    format!("[{}]({})", run_name(run), href(doc, &run.dir))
}

fn cells(m: &Value) -> usize {
    m["cells"].as_array().map_or(0, Vec::len)
}

/// The run's directory name (`2026-11-24-vm-090024e`).
fn run_name(run: &Run) -> &str {
    run.dir
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(&run.dir)
}

fn run_facts(m: &Value) -> String {
    format!(
        "scale {}, {} cells, {} thread{}, revision {}, {}",
        text(&m["scale"]),
        cells(m),
        text(&m["threads"]),
        if m["threads"].as_u64() == Some(1) {
            ""
        } else {
            "s"
        },
        text(&m["git_revision"]),
        date(m)
    )
}

fn machine(m: &Value) -> String {
    let mc = &m["machine"];
    let cpu = mc["cpu"].as_str().unwrap_or("unknown CPU");
    let mem = mc["memory_bytes"]
        .as_u64()
        .map_or(String::new(), |b| format!(", {} memory", bytes(Some(b))));
    format!("{cpu}, {} cores{mem}", text(&mc["cores"]))
}
