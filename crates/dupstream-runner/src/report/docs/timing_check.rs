//! The `timing-check` block of `docs/timing.md`: today's estimate against the committed runs
//! rerun at their own scale and threads, from [`TIMING_CHECK_CSV`] (written by
//! `just timing-check`, `scripts/timing-check.py`).

use super::canonical::Catalogue;
use super::format::{date, secs};
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::fmt::Write as _;

/// The committed check, relative to the repository root.
pub const TIMING_CHECK_CSV: &str = "results/timing-check.csv";

/// What makes [`TIMING_CHECK_CSV`].
const MAKE_IT: &str = "`just timing-check` (python3 scripts/timing-check.py) writes it";

/// An estimate within this factor of the measured time, either way, is called on target (the
/// target issue 37 set for the committed runs).
pub const WITHIN: f64 = 1.3;

/// One canonical run: today's estimates, and what its rerun measured (empty: not rerun).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckRow {
    /// The experiment's name.
    pub experiment: String,
    /// Its canonical run (directory under `results/<experiment>/`).
    pub run: String,
    /// The experiment file rerun.
    pub experiment_file: String,
    /// The run's `--scale`.
    pub scale: u64,
    /// The run's threads.
    pub threads: u64,
    /// `dupstream estimate` at the run's threads (`None`: not in the catalogue).
    pub estimated_secs: Option<f64>,
    /// `dupstream estimate` on one thread less the fixed parts (wall time spent starting and
    /// writing files): the CPU time the run should take.
    pub estimated_cpu_secs: Option<f64>,
    /// The revision whose calibration made the estimates.
    pub estimate_revision: String,
    /// The revision that measured the rerun.
    pub measured_revision: String,
    /// When the rerun finished (Unix seconds).
    pub measured_unix: Option<i64>,
    /// The one-minute load average when the rerun started.
    pub load_at_start: Option<f64>,
    /// The rerun's wall time.
    pub wall_secs: Option<f64>,
    /// The rerun's process CPU time, every thread.
    pub cpu_secs: Option<f64>,
    /// Why the run was not rerun (`not rerun: …`), empty when it was.
    pub note: String,
}

/// Parses the check's CSV `bytes`, named `file` in errors (line and field of a bad value).
pub fn parse_check(bytes: &[u8], file: &str) -> Result<Vec<CheckRow>> {
    let mut r = csv::Reader::from_reader(bytes);
    let headers = r
        .headers()
        .with_context(|| format!("{file}: line 1: malformed header"))?
        .clone();
    let mut rows = Vec::new();
    for rec in r.deserialize::<CheckRow>() {
        match rec {
            Ok(row) => rows.push(row),
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                let field = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => err
                        .field()
                        .and_then(|i| headers.get(i as usize))
                        .map_or(String::new(), |f| format!("field `{f}`: ")),
                    _ => String::new(),
                };
                let why = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => err.kind().to_string(),
                    other => format!("{other:?}"),
                };
                bail!("{file}: line {line}: {field}{why}");
            }
        }
    }
    if rows.is_empty() {
        bail!("{file}: no rows; {MAKE_IT}");
    }
    Ok(rows)
}

/// `measured / estimated` as `1.07×`, in bold when outside [`WITHIN`] either way.
fn factor(measured: f64, estimated: f64) -> (String, bool) {
    let f = measured / estimated;
    let ok = (1.0 / WITHIN..=WITHIN).contains(&f);
    let text = format!("{f:.2}×");
    (if ok { text } else { format!("**{text}**") }, ok)
}

/// The block: a summary, then a row per canonical run.
pub fn check_block(rows: &[CheckRow]) -> String {
    let rerun: Vec<&CheckRow> = rows.iter().filter(|r| r.wall_secs.is_some()).collect();
    let (mut wall_ok, mut cpu_ok, mut cpu_of) = (0, 0, 0);
    let mut table = String::from(
        "| experiment | scale | threads | estimated | wall time | wall / estimated | load at start | CPU estimated | CPU time | CPU / estimated |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for r in rows {
        let (Some(est), Some(est1), Some(wall)) =
            (r.estimated_secs, r.estimated_cpu_secs, r.wall_secs)
        else {
            let why = r.note.strip_prefix("not rerun: ").unwrap_or(&r.note);
            let why = if why.is_empty() { "not measured" } else { why };
            match reasons.iter_mut().find(|(w, _)| w == why) {
                Some((_, n)) => *n += 1,
                None => reasons.push((why.to_string(), 1)),
            }
            let _ = writeln!(
                table,
                "| {} | {} | {} | {} | not rerun: {why} | | | {} | | |",
                r.experiment,
                r.scale,
                r.threads,
                secs(r.estimated_secs),
                secs(r.estimated_cpu_secs)
            );
            continue;
        };
        let (wf, w_ok) = factor(wall, est);
        wall_ok += usize::from(w_ok);
        let cpu = r.cpu_secs.map(|c| {
            let (f, ok) = factor(c, est1);
            cpu_of += 1;
            cpu_ok += usize::from(ok);
            f
        });
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} | {wf} | {} | {} | {} | {} |",
            r.experiment,
            r.scale,
            r.threads,
            secs(Some(est)),
            secs(Some(wall)),
            r.load_at_start.map_or("—".into(), |l| format!("{l:.2}")),
            secs(Some(est1)),
            secs(r.cpu_secs),
            cpu.unwrap_or_else(|| "—".into())
        );
    }
    let mut revisions: Vec<&str> = rerun.iter().map(|r| r.measured_revision.as_str()).collect();
    revisions.sort();
    revisions.dedup();
    let mut days: Vec<String> = rerun
        .iter()
        .filter_map(|r| r.measured_unix)
        .map(|u| date(&serde_json::json!({ "started_unix": u })))
        .collect();
    days.sort();
    days.dedup();
    let mut estimate_revisions: Vec<&str> = rows
        .iter()
        .map(|r| r.estimate_revision.as_str())
        .filter(|r| !r.is_empty())
        .collect();
    estimate_revisions.sort();
    estimate_revisions.dedup();
    let others = if reasons.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = reasons.iter().map(|(w, n)| format!("{n} {w}")).collect();
        format!(" Not rerun: {}.", list.join("; "))
    };
    format!(
        "From [`{TIMING_CHECK_CSV}`](../{TIMING_CHECK_CSV}), written by `just timing-check`: each canonical run rerun at its own scale and threads (revision {}, {}), timed from the start of `dupstream run` to its exit, beside the estimate of revision {}'s calibration. {} of {} runs rerun.{others} The wall time is within {WITHIN}× of the estimate for {wall_ok} of {}, and the process's CPU time within {WITHIN}× of its estimate (one thread, the fixed parts' wall time left out) for {cpu_ok} of {cpu_of} (bold: outside). The wall time grows with the load; the CPU time much less.\n\n{table}",
        if revisions.is_empty() {
            "—".into()
        } else {
            revisions.join(", ")
        },
        if days.is_empty() {
            "—".into()
        } else {
            days.join(", ")
        },
        if estimate_revisions.is_empty() {
            "—".into()
        } else {
            estimate_revisions.join(", ")
        },
        rerun.len(),
        rows.len(),
        rerun.len(),
    )
}

impl Catalogue {
    /// The `timing-check` block, from [`TIMING_CHECK_CSV`] under the root.
    pub(super) fn timing_check(&self) -> Result<String> {
        let path = self.root.join(TIMING_CHECK_CSV);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("{TIMING_CHECK_CSV}: not found; {MAKE_IT}")
            }
            Err(e) => return Err(e).with_context(|| format!("reading {TIMING_CHECK_CSV}")),
        };
        let rows = parse_check(&bytes, TIMING_CHECK_CSV)?;
        for (i, r) in rows.iter().enumerate() {
            let canonical = self.runs.get(&r.experiment).map(|run| run.dir.as_str());
            if canonical != Some(&format!("results/{}/{}/", r.experiment, r.run)) {
                bail!(
                    "{TIMING_CHECK_CSV}: line {}: `{}/{}` is not its canonical run ({}); `python3 scripts/timing-check.py --estimate-only` rewrites the rows",
                    i + 2,
                    r.experiment,
                    r.run,
                    canonical.unwrap_or("none")
                );
            }
        }
        if let Some(e) = self
            .runs
            .keys()
            .find(|e| !rows.iter().any(|r| &r.experiment == *e))
        {
            bail!(
                "{TIMING_CHECK_CSV}: no row for the canonical run of `{e}`; `python3 scripts/timing-check.py --estimate-only` adds it"
            );
        }
        Ok(check_block(&rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "experiment,run,experiment_file,scale,threads,estimated_secs,estimated_cpu_secs,estimate_revision,measured_revision,measured_unix,load_at_start,wall_secs,cpu_secs,note\n";

    #[test]
    fn rows_rerun_not_rerun_and_outside_the_catalogue_each_say_so() {
        let csv = format!(
            "{HEADER}a,r1,experiments/a.toml,1,2,10.0,20.0,abc1234,abc1234,1795900000,0.50,12.0,30.0,\nb,r2,experiments/b.toml,64,1,500.0,480.0,abc1234,,,,,,not rerun: estimated over the check's limit of 60 s\nc,r3,c.toml,1,1,,,,,,,,,not rerun: its experiment file is not in the catalogue\n"
        );
        let rows = parse_check(csv.as_bytes(), "t.csv").unwrap();
        let block = check_block(&rows);
        // a: wall 12 / 10 within 1.3×; CPU 30 / 20 = 1.5× outside, in bold.
        assert!(
            block.contains(
                "| a | 1 | 2 | 10.0 s | 12.0 s | 1.20× | 0.50 | 20.0 s | 30.0 s | **1.50×** |"
            ),
            "{block}"
        );
        assert!(
            block.contains("| b | 64 | 1 | 8 min 20 s | not rerun: estimated over the check's limit of 60 s | | | 8 min 00 s | | |"),
            "{block}"
        );
        assert!(
            block.contains(
                "| c | 1 | 1 | — | not rerun: its experiment file is not in the catalogue |"
            ),
            "{block}"
        );
        assert!(
            block.contains("1 of 3 runs rerun. Not rerun: 1 estimated over the check's limit of 60 s; 1 its experiment file is not in the catalogue."),
            "{block}"
        );
        assert!(
            block.contains("within 1.3× of the estimate for 1 of 1"),
            "{block}"
        );
        assert!(block.contains("left out) for 0 of 1"), "{block}");
    }

    #[test]
    fn a_bad_value_names_the_file_line_and_field() {
        let csv = format!("{HEADER}a,r1,x.toml,1,2,ten,20.0,abc,abc,1,0.5,12.0,30.0,\n");
        let err = parse_check(csv.as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.csv: line 2: field `estimated_secs`: "),
            "{err}"
        );
    }

    #[test]
    fn an_empty_file_says_what_writes_it() {
        let err = parse_check(HEADER.as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no rows") && err.contains("just timing-check"),
            "{err}"
        );
    }
}
