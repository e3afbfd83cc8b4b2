//! Building a board from a run's rows: the tuning and scored streams, the candidates each
//! family ran, its entry per column (rule 2), its front and reach (rule 7), places (rule 5)
//! and the order of its rows (rule 11).

use super::model::{Board, Column, Entry, FamilyRow, Reach, Track, error};
use crate::plan::{Experiment, StreamCase};
use crate::record::RawRow;
use crate::report::stats::{mean_ci, paired_worse};
use std::collections::BTreeMap;

/// A column's slack: an entry may hold up to this much more than the column's budget.
pub const FIT: f64 = 1.01;

/// The targets of the frontier, total error in percent.
pub const TARGETS: [f64; 2] = [1.0, 0.1];

/// What one cell contributes.
struct Scored {
    family: String,
    member: String,
    config: String,
    setting: String,
    run: u64,
    held: u64,
    measured: bool,
    seed: u64,
    tuning: bool,
    error: (f64, f64),
    ns: f64,
    n: u64,
    distinct: u64,
    window: Option<u64>,
}

/// The stream a case is scored as (its board), and whether it is the tuning stream: a
/// `[tuning]` stream, or else the first seed's stream when there are several seeds.
fn role(exp: &Experiment, case: &StreamCase) -> (String, bool) {
    let label = case.board_label();
    if exp.streams.iter().any(|c| c.tuning) {
        return (label, case.tuning);
    }
    let seeds: std::collections::BTreeSet<u64> = exp
        .streams
        .iter()
        .filter(|c| c.board_label() == label)
        .map(|c| c.seed)
        .collect();
    let first = exp
        .streams
        .iter()
        .find(|c| c.board_label() == label)
        .map(|c| c.seed);
    (label, seeds.len() > 1 && first == Some(case.seed))
}

/// The memory a row's structure held, in bits: `memory_bits_held` when measured, else the
/// declared budget (runs from before the measurement).
fn held(r: &RawRow) -> (u64, bool) {
    match r.memory_bits_held {
        Some(h) => (h, true),
        None => (r.memory_bits_budget.max(r.memory_bits_used), false),
    }
}

/// The boards of one results directory: one per scored stream, on the windowed track when
/// the run has a window, else since-start. `ns` is each cell's ns per element.
pub fn boards(exp: &Experiment, rows: &[RawRow], ns: &BTreeMap<usize, f64>) -> Vec<Board> {
    let track = if exp.windowed() {
        Track::Windowed
    } else {
        Track::SinceStart
    };
    let mut by_cell: BTreeMap<usize, Vec<&RawRow>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.params.get("derived").is_none()) {
        by_cell.entry(r.cell).or_default().push(r);
    }
    let mut boards: Vec<(String, Vec<Scored>)> = Vec::new();
    for (cell, mut rs) in by_cell {
        rs.sort_by_key(|r| r.position);
        let Some(c) = exp.cells.get(cell) else {
            continue;
        };
        let case = &exp.streams[c.stream];
        let (label, tuning) = role(exp, case);
        let Some(e) = error(&rs, track, exp.warmup) else {
            continue;
        };
        let last = rs[rs.len() - 1];
        let (h, measured) = rs.iter().map(|r| held(r)).max().unwrap_or((0, false));
        let s = Scored {
            family: c.family.clone(),
            member: c.label.clone(),
            config: last.config().to_string(),
            setting: last.swept.to_string(),
            run: last.memory_nominal_bits,
            held: h,
            measured,
            seed: case.seed,
            tuning,
            error: e,
            ns: ns.get(&cell).copied().unwrap_or(f64::NAN),
            n: last.n,
            distinct: last.unseen,
            window: last.window.filter(|_| last.window_seconds.is_some()),
        };
        match boards.iter_mut().find(|b| b.0 == label) {
            Some(b) => b.1.push(s),
            None => boards.push((label, vec![s])),
        }
    }
    boards
        .into_iter()
        .map(|(label, cells)| board(exp, label, track, &cells))
        .collect()
}

/// A family's configuration at one run size, over its seeds.
struct Candidate<'a> {
    cells: Vec<&'a Scored>,
    held: u64,
    measured: bool,
}

impl Candidate<'_> {
    fn tuning_error(&self) -> Option<f64> {
        self.cells
            .iter()
            .find(|c| c.tuning)
            .map(|c| c.error.0 + c.error.1)
    }

    /// The entry it gives, scored on `scored` (all of them present), else `None`.
    fn entry(
        &self,
        scored: &[u64],
        tuned_on_scored: bool,
        per: f64,
        count: usize,
    ) -> Option<Entry> {
        let tuning = if tuned_on_scored {
            self.cells.iter().find(|c| c.seed == scored[0])?.error
        } else {
            self.cells.iter().find(|c| c.tuning)?.error
        };
        let at: Vec<&Scored> = scored
            .iter()
            .map(|s| {
                self.cells
                    .iter()
                    .find(|c| c.seed == *s && !c.tuning)
                    .copied()
            })
            .collect::<Option<_>>()?;
        let first = at[0];
        let errors: Vec<f64> = at.iter().map(|c| c.error.0 + c.error.1).collect();
        let (mean, ci) = mean_ci(&errors);
        let avg = |f: fn(&Scored) -> f64| at.iter().map(|c| f(c)).sum::<f64>() / at.len() as f64;
        Some(Entry {
            member: first.member.clone(),
            config: first.config.clone(),
            setting: first.setting.clone(),
            run_nominal_bits: first.run,
            held_bits: self.held,
            bits_per_element: self.held as f64 / per,
            measured: self.measured,
            tuning_error_pct: tuning.0 + tuning.1,
            errors_pct: errors,
            error_pct: mean,
            ci95_pct: ci.is_finite().then_some(ci),
            fpr_pct: avg(|c| c.error.0),
            fnr_pct: avg(|c| c.error.1),
            no_false_negative: at.iter().all(|c| c.error.1 == 0.0),
            ns_per_element: avg(|c| c.ns),
            candidates: count,
        })
    }
}

/// The candidate with the least error on the tuning stream (then the least memory, then the
/// configuration's name), as an entry.
fn choose(
    cands: &[&Candidate<'_>],
    scored: &[u64],
    tuned_on_scored: bool,
    per: f64,
) -> Option<Entry> {
    let mut ok: Vec<(f64, &&Candidate<'_>)> = cands
        .iter()
        .filter_map(|c| {
            let e = if tuned_on_scored {
                c.cells
                    .iter()
                    .find(|x| x.seed == scored[0])
                    .map(|x| x.error.0 + x.error.1)
            } else {
                c.tuning_error()
            }?;
            Some((e, c))
        })
        .collect();
    ok.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.held.cmp(&b.1.held))
            .then(a.1.cells[0].config.cmp(&b.1.cells[0].config))
    });
    ok.iter()
        .find_map(|(_, c)| c.entry(scored, tuned_on_scored, per, cands.len()))
}

/// What one element of a board's memory axis is (rule 1), and its count: the scored streams'
/// distinct keys (mean over the scored seeds) since the start; the window, or a time window's
/// mean elements per window measured on the scored streams, windowed.
fn denominator(
    exp: &Experiment,
    track: Track,
    cells: &[Scored],
    scored: &[u64],
) -> (f64, &'static str) {
    match track {
        Track::SinceStart => {
            let mut v: BTreeMap<u64, u64> = BTreeMap::new();
            for c in cells
                .iter()
                .filter(|c| scored.contains(&c.seed) && !c.tuning)
            {
                v.insert(c.seed, c.distinct);
            }
            (
                v.values().sum::<u64>() as f64 / v.len().max(1) as f64,
                "distinct key",
            )
        }
        Track::Windowed => match exp.window_seconds {
            None => (exp.window.unwrap_or(1) as f64, "window element"),
            Some(_) => {
                let w: Vec<u64> = cells
                    .iter()
                    .filter(|c| scored.contains(&c.seed) && !c.tuning)
                    .filter_map(|c| c.window)
                    .collect();
                (
                    w.iter().sum::<u64>() as f64 / w.len().max(1) as f64,
                    "mean window element",
                )
            }
        },
    }
}

/// The board's cells grouped by family, then by configuration and run size (a candidate over
/// its seeds, charged the most any of its cells held), in the order first seen.
fn candidates(cells: &[Scored]) -> Vec<(String, Vec<Candidate<'_>>)> {
    let mut families: Vec<(String, Vec<Candidate<'_>>)> = Vec::new();
    for c in cells {
        let i = match families.iter().position(|f| f.0 == c.family) {
            Some(i) => i,
            None => {
                families.push((c.family.clone(), Vec::new()));
                families.len() - 1
            }
        };
        let list = &mut families[i].1;
        match list
            .iter_mut()
            .find(|k| k.cells[0].config == c.config && k.cells[0].run == c.run)
        {
            Some(k) => {
                k.held = k.held.max(c.held);
                k.measured &= c.measured;
                k.cells.push(c);
            }
            None => list.push(Candidate {
                cells: vec![c],
                held: c.held,
                measured: c.measured,
            }),
        }
    }
    families
}

fn board(exp: &Experiment, stream: String, track: Track, cells: &[Scored]) -> Board {
    let mut scored: Vec<u64> = cells.iter().filter(|c| !c.tuning).map(|c| c.seed).collect();
    scored.sort_unstable();
    scored.dedup();
    let tuning_seed = cells.iter().find(|c| c.tuning).map(|c| c.seed);
    // One seed: tuned and scored on it (said in the description).
    let tuned_on_scored = tuning_seed.is_none();
    let of_scored = |c: &&Scored| scored.contains(&c.seed) && !c.tuning;
    let (per_element, unit) = denominator(exp, track, cells, &scored);
    let per = per_element.max(1.0);
    let mut grid = exp.memory_grid.clone();
    grid.sort_unstable();
    let columns: Vec<Column> = grid
        .iter()
        .map(|&m| Column {
            nominal_bits: m,
            budget_bits: m / exp.scale.max(1),
            bits_per_element: (m / exp.scale.max(1)) as f64 / per,
        })
        .collect();
    let families = candidates(cells);
    let mut rows: Vec<FamilyRow> = families
        .iter()
        .map(|(family, cands)| {
            let front = front(cands, &scored, tuned_on_scored, per);
            let cells: Vec<Option<Entry>> = columns
                .iter()
                .map(|col| {
                    let fit: Vec<&Candidate<'_>> = cands
                        .iter()
                        .filter(|c| c.held as f64 <= col.budget_bits as f64 * FIT)
                        .collect();
                    choose(&fit, &scored, tuned_on_scored, per)
                })
                .collect();
            let [r1, r01] = TARGETS.map(|t| reach_of(&front, t));
            FamilyRow {
                family: family.clone(),
                places: vec![None; cells.len()],
                cells,
                front,
                reach_1: r1,
                reach_01: r01,
            }
        })
        .filter(|r| !r.front.is_empty() || r.cells.iter().any(Option::is_some))
        .collect();
    for col in 0..columns.len() {
        let errs: Vec<Option<Entry>> = rows.iter().map(|r| r.cells[col].clone()).collect();
        for (i, row) in rows.iter_mut().enumerate() {
            row.places[col] = errs[i].as_ref().map(|e| place(e, errs.iter().flatten()));
        }
    }
    rows.sort_by(|a, b| {
        a.reach_1
            .bits()
            .total_cmp(&b.reach_1.bits())
            .then(a.reach_01.bits().total_cmp(&b.reach_01.bits()))
            .then(a.mean_error().total_cmp(&b.mean_error()))
            .then(a.family.cmp(&b.family))
    });
    let n = cells
        .iter()
        .filter(of_scored)
        .map(|c| c.n)
        .max()
        .unwrap_or(0);
    let real = exp
        .streams
        .iter()
        .any(|s| matches!(s.spec, dupstream_streams::StreamSpec::Replay { .. }));
    Board {
        experiment: exp.name.clone(),
        stream,
        track,
        real,
        scale: exp.scale,
        n,
        window: match exp.window_seconds {
            None => exp.window,
            Some(_) => Some(per_element.round() as u64),
        },
        window_seconds: exp.window_seconds,
        warmup: exp.warmup,
        per_element,
        unit,
        tuning: match (tuning_seed, real) {
            (None, _) => "the scored seed itself (one seed: no held-out tuning)".into(),
            (Some(s), false) => format!("seed {s}'s stream (another generated stream)"),
            (Some(s), true) => format!("seed {s}'s stream (the tuning part of the trace)"),
        },
        tuning_seed,
        scored_seeds: scored,
        columns,
        measured: rows
            .iter()
            .all(|r| r.cells.iter().flatten().chain(&r.front).all(|e| e.measured)),
        rows,
    }
}

/// A family's front (rule 7): at every level of memory it held (each candidate's), the
/// candidate chosen on the tuning stream among all that hold at most that much, as for a
/// column; each choice once, in order of the memory it holds. So a configuration that holds
/// more than another at the same run size is placed at what it holds, and a level is never
/// filled by something larger.
fn front(cands: &[Candidate<'_>], scored: &[u64], tuned_on_scored: bool, per: f64) -> Vec<Entry> {
    let mut levels: Vec<u64> = cands.iter().map(|c| c.held).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut out: Vec<Entry> = Vec::new();
    for level in levels {
        let fit: Vec<&Candidate<'_>> = cands.iter().filter(|c| c.held <= level).collect();
        if let Some(e) = choose(&fit, scored, tuned_on_scored, per)
            && !out
                .iter()
                .any(|o| o.config == e.config && o.run_nominal_bits == e.run_nominal_bits)
        {
            out.push(e);
        }
    }
    out.sort_by_key(|e| e.held_bits);
    out
}

/// An entry's place among `all` at its column (rule 5): 1 + the entries a paired t-test over
/// the scored seeds finds better.
fn place<'a>(e: &Entry, all: impl Iterator<Item = &'a Entry>) -> usize {
    1 + all
        .filter(|f| f.error_pct < e.error_pct && paired_worse(&e.errors_pct, &f.errors_pct))
        .count()
}

fn reach_of(front: &[Entry], target: f64) -> Reach {
    let points: Vec<(f64, f64)> = front
        .iter()
        .map(|e| (e.bits_per_element, e.error_pct))
        .collect();
    match reach(&points, target) {
        None => Reach::NotReached,
        Some((i, bits, at_most)) => Reach::At {
            bits,
            at_most,
            member: front[i].member.clone(),
            ns_per_element: front[i].ns_per_element,
        },
    }
}

/// Where a front first reaches `target` (rule 7): `points` are the front's `(bits per
/// element, error)` in order of memory held. Returns the reaching point's index, the bits
/// (interpolated on log bits against log error with the point before it; against the error
/// itself when the reaching error is 0) and whether it is the first point (so the bits are an
/// upper bound); `None` when no point reaches it.
pub fn reach(points: &[(f64, f64)], target: f64) -> Option<(usize, f64, bool)> {
    let i = points.iter().position(|p| p.1 <= target)?;
    if i == 0 {
        return Some((0, points[0].0, true));
    }
    let ((x0, e0), (x1, e1)) = (points[i - 1], points[i]);
    let t = if e1 > 0.0 {
        (target.ln() - e0.ln()) / (e1.ln() - e0.ln())
    } else {
        (e0 - target) / (e0 - e1)
    };
    let bits = if x0 > 0.0 && x1 > 0.0 {
        (x0.ln() + t * (x1.ln() - x0.ln())).exp()
    } else {
        x0 + t * (x1 - x0)
    };
    Some((i, bits, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(errors: &[f64], held: u64) -> Entry {
        let (m, ci) = mean_ci(errors);
        Entry {
            member: "X".into(),
            config: "X".into(),
            setting: String::new(),
            run_nominal_bits: held,
            held_bits: held,
            bits_per_element: held as f64,
            measured: true,
            tuning_error_pct: m,
            errors_pct: errors.to_vec(),
            error_pct: m,
            ci95_pct: Some(ci),
            fpr_pct: m,
            fnr_pct: 0.0,
            no_false_negative: true,
            ns_per_element: 10.0,
            candidates: 1,
        }
    }

    #[test]
    fn rule_7_reach_interpolates_between_adjacent_run_sizes_only() {
        // 4 % at 4 bits, 0.25 % at 16 bits: log-log, 1 % is half-way, at 8 bits.
        let (i, bits, at_most) = reach(&[(4.0, 4.0), (16.0, 0.25)], 1.0).unwrap();
        assert_eq!((i, at_most), (1, false));
        assert!((bits - 8.0).abs() < 1e-9, "{bits}");
        // Reached at the smallest size: an upper bound.
        assert_eq!(reach(&[(2.0, 0.5), (4.0, 0.1)], 1.0), Some((0, 2.0, true)));
        // Never reached; a size that was not run cannot help.
        assert_eq!(reach(&[(2.0, 5.0), (4.0, 2.0)], 1.0), None);
        assert_eq!(reach(&[], 1.0), None);
        // An error of exactly 0: linear in the error between the two points.
        let (_, bits, _) = reach(&[(4.0, 2.0), (16.0, 0.0)], 1.0).unwrap();
        assert!((bits - 8.0).abs() < 1e-9, "{bits}");
    }

    /// A cell of family "F": its seed, whether it tunes, run size, memory held, error (FPR,
    /// no FNR) and configuration.
    fn mk(seed: u64, tuning: bool, run: u64, held: u64, err: f64, config: &str) -> Scored {
        Scored {
            family: "F".into(),
            member: "F".into(),
            config: config.into(),
            setting: String::new(),
            run,
            held,
            measured: true,
            seed,
            tuning,
            error: (err, 0.0),
            ns: 1.0,
            n: 100,
            distinct: 10,
            window: None,
        }
    }

    #[test]
    fn rule_5_places_are_shared_unless_a_paired_test_separates() {
        let a = entry(&[1.0, 1.1, 0.9, 1.0, 1.05], 8);
        let b = entry(&[2.0, 2.1, 1.9, 2.0, 2.05], 8);
        // c is lower than b on average but not consistently.
        let c = entry(&[0.5, 3.5, 1.0, 3.0, 1.5], 8);
        let all = [a.clone(), b.clone(), c.clone()];
        assert_eq!(place(&a, all.iter()), 1);
        assert_eq!(place(&b, all.iter()), 2, "a separates from b");
        assert_eq!(place(&c, all.iter()), 1, "nothing separates from c");
    }

    #[test]
    fn rule_7_a_front_places_each_choice_at_the_memory_it_holds() {
        // At run size 100, "hog" holds 400 and errs least; "lean" holds 100. At 200, "lean"
        // holds 200.
        let cells = [
            mk(1, true, 100, 400, 0.5, "hog"),
            mk(2, false, 100, 400, 0.5, "hog"),
            mk(1, true, 100, 100, 8.0, "lean"),
            mk(2, false, 100, 100, 8.0, "lean"),
            mk(1, true, 200, 200, 2.0, "lean"),
            mk(2, false, 200, 200, 2.0, "lean"),
        ];
        let families = candidates(&cells);
        let cands = &families[0].1;
        let f = front(cands, &[2], false, 10.0);
        let points: Vec<(u64, f64)> = f.iter().map(|e| (e.held_bits, e.error_pct)).collect();
        // The hog is on the front at 400, not at its run size: levels 100 and 200 are lean's.
        assert_eq!(points, [(100, 8.0), (200, 2.0), (400, 0.5)]);
        let xy: Vec<(f64, f64)> = f
            .iter()
            .map(|e| (e.bits_per_element, e.error_pct))
            .collect();
        // 1 % is reached between 20 and 40 bits per element, not before the hog's memory.
        let (i, bits, _) = reach(&xy, 1.0).unwrap();
        assert_eq!(i, 2);
        assert!(bits > 20.0 && bits < 40.0, "{bits}");
    }

    #[test]
    fn rule_2_a_column_takes_only_what_fits_and_chooses_on_the_tuning_stream() {
        // Config "big" holds 2 % over the budget of 100: never in the column, however good.
        let cells = [
            mk(1, true, 100, 102, 0.1, "big"),
            mk(2, false, 100, 102, 0.1, "big"),
            mk(3, false, 100, 102, 0.1, "big"),
            mk(1, true, 100, 100, 5.0, "a"),
            mk(2, false, 100, 100, 1.0, "a"),
            mk(3, false, 100, 100, 1.0, "a"),
            mk(1, true, 100, 90, 4.0, "b"),
            mk(2, false, 100, 90, 9.0, "b"),
            mk(3, false, 100, 90, 9.0, "b"),
        ];
        let families = candidates(&cells);
        let cands = &families[0].1;
        let fit: Vec<&Candidate<'_>> = cands
            .iter()
            .filter(|c| c.held as f64 <= 100.0 * FIT)
            .collect();
        assert_eq!(fit.len(), 2);
        // "b" is better on the tuning stream (4 < 5), though worse on the scored seeds.
        let e = choose(&fit, &[2, 3], false, 10.0).unwrap();
        assert_eq!(e.config, "b");
        assert_eq!(e.error_pct, 9.0);
        assert_eq!(e.tuning_error_pct, 4.0);
        assert!((e.bits_per_element - 9.0).abs() < 1e-12);
    }
}
