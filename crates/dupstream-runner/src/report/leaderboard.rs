//! The leaderboard (`dupstream leaderboard`): structures ranked at equal memory, each with its
//! parameters tuned fairly, as ann-benchmarks shows each algorithm by its best settings.
//!
//! - A **workload** is a results directory's stream (its replicate seeds pooled).
//! - Two **tracks**: *since-start*, the seed papers' question (an element is a duplicate iff
//!   it occurred anywhere before; error = FPR + FNR over the whole stream), and *windowed*,
//!   with `[metrics] window = W` (a duplicate iff its previous occurrence is at most W
//!   elements earlier; error = windowed FPR + FNR over the interval after `[metrics] warmup`,
//!   from the checkpoints' cumulative counts, or over the whole stream without a warm-up).
//! - **Tuning without looking at the reported data**: a structure runs a declared grid of
//!   settings (its configurations, [`RawRow::config`]). At each memory size, its setting is
//!   the configuration with the least error on the *tuning seed* (the first replicate seed of
//!   the run); its score is that configuration's mean error over the *other* seeds, with a
//!   95 % confidence half-width. A run with one seed is tuned and scored on it, and the
//!   output says so.
//! - **Ranking**: at each memory size, structures are ranked by score (ties share the mean
//!   rank); the leaderboard orders them by their mean rank over the sizes they ran at.

use crate::plan::Experiment;
use crate::record::RawRow;
use crate::report::stats::mean_ci;
use crate::report::table::md_cell;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A track of the leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Track {
    SinceStart,
    Windowed,
}

impl Track {
    fn title(self) -> &'static str {
        match self {
            Track::SinceStart => "since-start track",
            Track::Windowed => "windowed track",
        }
    }
}

/// A structure at one memory size: its tuned setting and score.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub structure: String,
    pub memory: String,
    pub memory_nominal_bits: u64,
    /// Memory per stream element (since-start) or per window element (windowed), as run.
    pub bits_per_element: f64,
    /// The configuration chosen on the tuning seed, and its swept settings as written.
    pub config: String,
    pub setting: String,
    /// Configurations the choice was made among.
    pub candidates: usize,
    /// The chosen configuration's error on the tuning seed, in percent.
    pub tuning_error_pct: f64,
    /// Its mean error over the scored seeds, in percent, with the 95 % half-width.
    pub error_pct: f64,
    pub ci95_pct: Option<f64>,
    pub fpr_pct: f64,
    pub fnr_pct: f64,
    pub seeds: usize,
    /// The rank at this memory size (1 = least error).
    pub rank: f64,
}

/// One workload and track.
#[derive(Debug, Clone, Serialize)]
pub struct Board {
    pub experiment: String,
    pub stream: String,
    pub track: Track,
    pub scale: u64,
    pub n: u64,
    /// Elements per window: `W`, or for a time window the mean over the board's streams of
    /// their mean elements per window (`raw.csv`'s `window`).
    pub window: Option<u64>,
    /// A time window's length in seconds, as run.
    pub window_seconds: Option<f64>,
    pub warmup: Option<u64>,
    pub tuning_seed: u64,
    pub scored_seeds: Vec<u64>,
    /// `(structure, mean rank, memory sizes ranked at)`, best first.
    pub ranking: Vec<(String, f64, usize)>,
    pub entries: Vec<Entry>,
}

/// A cell's error `(FPR, FNR)` on a track, in percent, from its rows in position order.
pub fn error(rows: &[&RawRow], track: Track, warmup: Option<u64>) -> Option<(f64, f64)> {
    let last = rows.last()?;
    match track {
        Track::SinceStart => Some((last.fpr? * 100.0, last.fnr.unwrap_or(0.0) * 100.0)),
        Track::Windowed => {
            let at = |r: &RawRow| -> Option<(u64, u64, u64, u64)> {
                Some((r.position, r.w_duplicates?, r.w_fp?, r.w_fn?))
            };
            let (pos1, dup1, fp1, fn1) = at(last)?;
            let (pos0, dup0, fp0, fn0) = match warmup {
                Some(w) => at(rows.iter().find(|r| r.position == w)?)?,
                None => (0, 0, 0, 0),
            };
            let unseen = (pos1 - dup1) - (pos0 - dup0);
            let dups = dup1 - dup0;
            let fpr = (unseen > 0).then(|| (fp1 - fp0) as f64 / unseen as f64)?;
            let fnr = if dups > 0 {
                (fn1 - fn0) as f64 / dups as f64
            } else {
                0.0
            };
            Some((fpr * 100.0, fnr * 100.0))
        }
    }
}

/// Mean ranks of `values` (ascending; ties share their mean rank).
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            out[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    out
}

/// The boards of one results directory: one per stream and track (windowed when the run has
/// a window). Derived series are left out.
pub fn boards(exp: &Experiment, rows: &[RawRow]) -> Vec<Board> {
    let mut by_cell: BTreeMap<usize, Vec<&RawRow>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.params.get("derived").is_none()) {
        by_cell.entry(r.cell).or_default().push(r);
    }
    for v in by_cell.values_mut() {
        v.sort_by_key(|r| r.position);
    }
    let mut streams: Vec<String> = Vec::new();
    for v in by_cell.values() {
        if !streams.contains(&v[0].stream) {
            streams.push(v[0].stream.clone());
        }
    }
    let mut tracks = vec![Track::SinceStart];
    if exp.windowed() {
        tracks.push(Track::Windowed);
    }
    let mut out = Vec::new();
    for stream in &streams {
        let seeds: Vec<u64> = {
            let mut s: Vec<u64> = exp
                .streams
                .iter()
                .filter(|c| &c.label() == stream)
                .map(|c| c.seed)
                .collect();
            // Each seed once, in order: a repeated seed (`seeds = [1, 2, 1]`) is one replicate.
            let mut seen = std::collections::BTreeSet::new();
            s.retain(|x| seen.insert(*x));
            s
        };
        let Some(&tuning_seed) = seeds.first() else {
            continue;
        };
        // Never the tuning seed among the scored ones, unless it is the only seed.
        let scored: Vec<u64> = if seeds.len() > 1 {
            seeds[1..].to_vec()
        } else {
            seeds.clone()
        };
        let cells: Vec<&Vec<&RawRow>> = by_cell
            .values()
            .filter(|v| v[0].stream == *stream)
            .collect();
        for &track in &tracks {
            out.push(board(exp, stream, track, tuning_seed, &scored, &cells));
        }
    }
    out
}

fn board(
    exp: &Experiment,
    stream: &str,
    track: Track,
    tuning_seed: u64,
    scored: &[u64],
    cells: &[&Vec<&RawRow>],
) -> Board {
    // structure → memory → [(config, setting, seed → (fpr, fnr))]
    type PerSeed = BTreeMap<u64, (f64, f64)>;
    type Configs = Vec<(String, String, PerSeed)>;
    let mut tree: BTreeMap<String, BTreeMap<u64, Configs>> = BTreeMap::new();
    let mut first: Vec<String> = Vec::new();
    let mut n = 0;
    let mut budget: BTreeMap<u64, (String, u64)> = BTreeMap::new();
    // A time window's elements per window, per cell (each measured on its stream).
    let mut per_window: Vec<u64> = Vec::new();
    for rows in cells {
        let r = rows[rows.len() - 1];
        per_window.extend(r.window.filter(|_| r.window_seconds.is_some()));
        let Some(e) = error(rows, track, exp.warmup) else {
            continue;
        };
        n = n.max(r.n);
        budget.insert(
            r.memory_nominal_bits,
            (r.memory.clone(), r.memory_bits_budget),
        );
        let structure = r.structure().to_string();
        if !first.contains(&structure) {
            first.push(structure.clone());
        }
        let configs = tree
            .entry(structure)
            .or_default()
            .entry(r.memory_nominal_bits)
            .or_default();
        let i = match configs.iter().position(|c| c.0 == r.config()) {
            Some(i) => i,
            None => {
                configs.push((r.config().to_string(), r.swept.to_string(), PerSeed::new()));
                configs.len() - 1
            }
        };
        configs[i].2.insert(r.seed, e);
    }
    let per_element = match track {
        Track::SinceStart => n.max(1) as f64,
        Track::Windowed => match exp.window_seconds {
            None => exp.window.unwrap_or(1).max(1) as f64,
            Some(_) => {
                per_window.iter().map(|&w| w as f64).sum::<f64>().max(1.0)
                    / per_window.len().max(1) as f64
            }
        },
    };
    let mut entries: Vec<Entry> = Vec::new();
    for structure in &first {
        for (&mem, configs) in &tree[structure] {
            // The setting: least error on the tuning seed (the first such configuration).
            let Some((config, setting, per_seed)) = configs
                .iter()
                .filter(|c| c.2.contains_key(&tuning_seed))
                .min_by(|a, b| {
                    let e =
                        |c: &(String, String, PerSeed)| c.2[&tuning_seed].0 + c.2[&tuning_seed].1;
                    e(a).total_cmp(&e(b))
                })
            else {
                continue;
            };
            let vals: Vec<(f64, f64)> = scored
                .iter()
                .filter_map(|s| per_seed.get(s).copied())
                .collect();
            if vals.is_empty() {
                continue;
            }
            let sums: Vec<f64> = vals.iter().map(|v| v.0 + v.1).collect();
            let (m, ci) = mean_ci(&sums);
            let mean =
                |f: fn(&(f64, f64)) -> f64| vals.iter().map(f).sum::<f64>() / vals.len() as f64;
            let t = per_seed[&tuning_seed];
            let (memory, bits) = budget[&mem].clone();
            entries.push(Entry {
                structure: structure.clone(),
                memory,
                memory_nominal_bits: mem,
                bits_per_element: bits as f64 / per_element,
                config: config.clone(),
                setting: setting.clone(),
                candidates: configs.len(),
                tuning_error_pct: t.0 + t.1,
                error_pct: m,
                ci95_pct: ci.is_finite().then_some(ci),
                fpr_pct: mean(|v| v.0),
                fnr_pct: mean(|v| v.1),
                seeds: vals.len(),
                rank: 0.0,
            });
        }
    }
    // Ranks per memory size, then the mean rank of each structure.
    let mems: Vec<u64> = budget.keys().copied().collect();
    for &mem in &mems {
        let idx: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].memory_nominal_bits == mem)
            .collect();
        let r = ranks(
            &idx.iter()
                .map(|&i| entries[i].error_pct)
                .collect::<Vec<_>>(),
        );
        for (k, &i) in idx.iter().enumerate() {
            entries[i].rank = r[k];
        }
    }
    let mut ranking: Vec<(String, f64, usize)> = first
        .iter()
        .filter_map(|s| {
            let rs: Vec<f64> = entries
                .iter()
                .filter(|e| &e.structure == s)
                .map(|e| e.rank)
                .collect();
            (!rs.is_empty()).then(|| {
                (
                    s.clone(),
                    rs.iter().sum::<f64>() / rs.len() as f64,
                    rs.len(),
                )
            })
        })
        .collect();
    ranking.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.2.cmp(&a.2)));
    Board {
        experiment: exp.name.clone(),
        stream: stream.to_string(),
        track,
        scale: exp.scale,
        n,
        window: match exp.window_seconds {
            None => exp.window,
            Some(_) => Some(per_element.round() as u64),
        },
        window_seconds: exp.window_seconds,
        warmup: exp.warmup,
        tuning_seed,
        scored_seeds: scored.to_vec(),
        ranking,
        entries,
    }
}

/// A number of bits per element, short (`0.25`, `2`, `16`).
fn short(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What the windowed boards' second table shows.
pub const BOUND_NOTE: &str = "Bits per window element above the sliding-window lower bound (Naor & Yogev, at slack W, as the charts draw it) at each structure's measured error above (FPR + FNR taken as ε); negative: a measured error below what the bound allows at that memory, possible because the bound holds for the worst stream and for every key outside the window; — where the error is 0 or 100 %.";

/// A board's ranking table, as both renderings show it (LEADERBOARD.md's Markdown and the
/// report's leaderboard page): one row per structure, best mean rank first, one column per
/// memory size.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Each memory size's bits per element, written short (`0.25`, `2`, `16`).
    pub columns: Vec<String>,
    pub rows: Vec<TableRow>,
}

/// A structure's row of a [`Table`].
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// Its place in the ranking (1 = best mean rank).
    pub place: usize,
    pub structure: String,
    /// Its score at each column's memory size (`None`: it did not run there).
    pub cells: Vec<Option<TableCell>>,
    /// Its mean rank over the memory sizes, written with two decimals.
    pub mean_rank: String,
}

/// A structure's score at one memory size, written as the table shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableCell {
    /// The error in %, three decimals.
    pub error: String,
    /// The 95 % confidence half-width in %, two decimals (none from one scored seed).
    pub ci95: Option<String>,
    /// The tuned setting, its parameters separated by spaces (empty without a grid).
    pub setting: String,
    /// Whether it has the least error at this memory size.
    pub best: bool,
    /// On the windowed track, its bits per window element above the sliding-window lower
    /// bound at its measured error ([`above_bound`]), one decimal, signed.
    pub above_bound: Option<String>,
}

/// Bits per window element above Naor & Yogev's sliding-window lower bound
/// (`dupstream_filters::theory::sliding_window_lower_bound_bits_with_slack` at slack `λ = 1`,
/// the form the Pareto charts draw) at the measured error taken as `ε`: `bits − bound(ε)`.
/// Negative where a structure's measured error is below what the bound allows at its memory,
/// which a measurement can be: the bound holds for the worst stream and for `ε` as the false
/// positive probability of every key outside the window, a measured rate averages over the
/// keys one stream queries (a Zipf window holds few distinct keys). `None` without a window,
/// or for an error of 0 or 100 %.
pub fn above_bound(window: u64, bits_per_element: f64, error_pct: f64) -> Option<f64> {
    let eps = error_pct / 100.0;
    (window > 0 && eps > 0.0 && eps < 1.0).then(|| {
        let bound =
            dupstream_filters::theory::sliding_window_lower_bound_bits_with_slack(window, eps, 1.0);
        bits_per_element - bound / window as f64
    })
}

impl Board {
    /// The board's heading: experiment, stream and track.
    pub fn heading(&self) -> (&str, &str, &'static str) {
        (&self.experiment, &self.stream, self.track.title())
    }

    /// What was scored, in one sentence: length and scale, the error and the memory unit of
    /// the track, the tuning and scored seeds.
    pub fn description(&self) -> String {
        let what = match self.track {
            Track::SinceStart => "error = FPR + FNR over the whole stream against the since-start truth; memory in bits per stream element".to_string(),
            Track::Windowed => format!(
                "error = windowed FPR + FNR ({}) over elements {}–{}{}; memory in bits per {}window element",
                match self.window_seconds {
                    None => format!("window W = {} elements", self.window.unwrap_or(0)),
                    Some(t) => format!(
                        "time window T = {t} s, a mean of {} elements per window: elements × T / time span, measured on the streams",
                        self.window.unwrap_or(0)
                    ),
                },
                self.warmup.map_or(1, |w| w + 1),
                self.n,
                self.warmup.map_or(String::new(), |w| format!(", after a warm-up of {w}")),
                if self.window_seconds.is_some() { "mean " } else { "" },
            ),
        };
        let seeds = if self.scored_seeds == [self.tuning_seed] {
            format!(
                "tuned and scored on seed {} (one seed: no held-out score)",
                self.tuning_seed
            )
        } else {
            format!(
                "each structure's setting chosen on seed {}, scored on seeds {} (mean ± 95 % CI)",
                self.tuning_seed,
                self.scored_seeds
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        format!(
            "{} elements as run (scale 1/{}); {what}; {seeds}.",
            self.n, self.scale
        )
    }

    /// The ranking table.
    pub fn table(&self) -> Table {
        let mut mems: Vec<(u64, f64)> = self
            .entries
            .iter()
            .map(|e| (e.memory_nominal_bits, e.bits_per_element))
            .collect();
        mems.sort_by_key(|m| m.0);
        mems.dedup_by_key(|m| m.0);
        let rows = self
            .ranking
            .iter()
            .enumerate()
            .map(|(i, (structure, mean_rank, _))| TableRow {
                place: i + 1,
                structure: structure.clone(),
                cells: mems
                    .iter()
                    .map(|(m, _)| {
                        self.entries
                            .iter()
                            .find(|e| &e.structure == structure && e.memory_nominal_bits == *m)
                            .map(|e| TableCell {
                                error: format!("{:.3}", e.error_pct),
                                ci95: e.ci95_pct.map(|c| format!("{c:.2}")),
                                setting: e.setting.replace(';', " "),
                                best: e.rank == 1.0,
                                above_bound: match (self.track, self.window) {
                                    (Track::Windowed, Some(w)) => {
                                        above_bound(w, e.bits_per_element, e.error_pct)
                                            .map(|b| format!("{b:+.1}"))
                                    }
                                    _ => None,
                                },
                            })
                    })
                    .collect(),
                mean_rank: format!("{mean_rank:.2}"),
            })
            .collect();
        Table {
            columns: mems.iter().map(|m| short(m.1)).collect(),
            rows,
        }
    }

    /// The board as Markdown: what was scored, then the ranking table, each cell the error
    /// in % (bold: the least at its memory size), its 95 % half-width and the tuned setting.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let (experiment, stream, track) = self.heading();
        let _ = writeln!(
            s,
            "### {}: {} — {track}\n",
            md_cell(experiment),
            md_cell(stream),
        );
        let _ = writeln!(
            s,
            "{} Each cell: error in % (setting).\n",
            self.description()
        );
        let table = self.table();
        let _ = writeln!(
            s,
            "| rank | structure | {} | mean rank |",
            table.columns.join(" | ")
        );
        let _ = writeln!(s, "|---|---|{}---|", "---|".repeat(table.columns.len()));
        for row in &table.rows {
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|c| {
                    c.as_ref().map_or("—".into(), |c| {
                        let ci = c.ci95.as_ref().map_or(String::new(), |c| format!(" ± {c}"));
                        let win = if c.best { "**" } else { "" };
                        let setting = if c.setting.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", md_cell(&c.setting))
                        };
                        format!("{win}{}{win}{ci}{setting}", c.error)
                    })
                })
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                row.place,
                md_cell(&row.structure),
                cells.join(" | "),
                row.mean_rank
            );
        }
        if self.track == Track::Windowed {
            let _ = writeln!(
                s,
                "\n{}\n\n| structure | {} |\n|---|{}",
                BOUND_NOTE,
                table.columns.join(" | "),
                "---|".repeat(table.columns.len())
            );
            for row in &table.rows {
                let cells: Vec<String> = row
                    .cells
                    .iter()
                    .map(|c| {
                        c.as_ref()
                            .and_then(|c| c.above_bound.clone())
                            .unwrap_or_else(|| "—".into())
                    })
                    .collect();
                let _ = writeln!(s, "| {} | {} |", md_cell(&row.structure), cells.join(" | "));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_above_the_bound_follow_naor_and_yogev_at_slack_w() {
        // At slack λ = 1: log₂(1/ε) + max(log₂ 1, log₂ log₂(1/ε)) bits per window element.
        let eps: f64 = 0.01;
        let bound = (1.0 / eps).log2() + (1.0 / eps).log2().log2();
        let got = above_bound(1 << 20, 16.0, 1.0).unwrap();
        assert!(
            (got - (16.0 - bound)).abs() < 1e-9,
            "{got} vs {}",
            16.0 - bound
        );
        assert!((bound - 9.3759).abs() < 1e-3);
        // Below the bound: 2 bits per window element at 1 % error.
        assert!(above_bound(1 << 20, 2.0, 1.0).unwrap() < 0.0);
        // No ε to take: no error, all error, no window.
        assert_eq!(above_bound(1 << 20, 16.0, 0.0), None);
        assert_eq!(above_bound(1 << 20, 16.0, 100.0), None);
        assert_eq!(above_bound(0, 16.0, 1.0), None);
    }

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 0.5]), vec![3.5, 2.0, 3.5, 1.0]);
        assert!(ranks(&[]).is_empty());
    }

    #[test]
    fn windowed_error_is_taken_after_the_warm_up() {
        let mut a = crate::record::rows::test_row("X", 0, 0.0, 0.0);
        a.position = 100;
        a = a.with_window(10, [50, 10, 4, 36]); // 60 unseen, 40 duplicates in the window
        let mut b = a.clone();
        b.position = 300;
        b = b.with_window(10, [150, 20, 10, 120]); // 170 unseen, 130 duplicates
        let rows = [&a, &b];
        let (fpr, fnr) = error(&rows, Track::Windowed, Some(100)).unwrap();
        assert!((fpr - 10.0 / 110.0 * 100.0).abs() < 1e-9, "{fpr}");
        assert!((fnr - 6.0 / 90.0 * 100.0).abs() < 1e-9, "{fnr}");
        let (fpr, _) = error(&rows, Track::Windowed, None).unwrap();
        assert!((fpr - 20.0 / 170.0 * 100.0).abs() < 1e-9);
        assert!(
            error(&rows, Track::Windowed, Some(7)).is_none(),
            "no checkpoint there"
        );
    }
}
