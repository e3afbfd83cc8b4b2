//! Across boards: each track's frontier summary (rule 8) and the transfer of the synthetic
//! boards' orders to the real traces (rule 11).

use super::markdown::bits;
use super::model::{Board, FamilyRow, Reach, Track};
use crate::report::stats::kendall_tau_b;
use crate::report::table::md_cell;
use serde::Serialize;
use std::fmt::Write as _;

/// A family's summary on one track.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub family: String,
    /// Boards it ran on, of the track's.
    pub boards: usize,
    /// Per target (1 %, 0.1 %): boards where it reaches it, the median bits over all of
    /// the track's boards (infinite when it reaches it on at most half of them), and the
    /// median ns per element where it reaches it.
    pub reached: [usize; 2],
    pub median_bits: [f64; 2],
    /// Whether a median is a board's “≤” (an upper bound: reached at its smallest size).
    pub median_at_most: [bool; 2],
    pub median_ns: [f64; 2],
}

/// The median of `xs` (infinite values included), NaN when empty.
fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else if xs[m - 1].is_infinite() || xs[m].is_infinite() {
        xs[m - 1].max(xs[m])
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// Each family's summary over `boards` (one track), best median bits to 1 % first.
pub fn summary(boards: &[&Board]) -> Vec<SummaryRow> {
    let mut families: Vec<String> = Vec::new();
    for b in boards {
        for r in &b.rows {
            if !families.contains(&r.family) {
                families.push(r.family.clone());
            }
        }
    }
    let mut out: Vec<SummaryRow> = families
        .into_iter()
        .map(|family| {
            let rows: Vec<Option<&FamilyRow>> = boards
                .iter()
                .map(|b| b.rows.iter().find(|r| r.family == family))
                .collect();
            let per = |pick: fn(&FamilyRow) -> &Reach| -> (usize, f64, f64, bool) {
                let reaches: Vec<Option<&Reach>> = rows.iter().map(|r| r.map(pick)).collect();
                let bits: Vec<f64> = reaches
                    .iter()
                    .map(|r| r.map_or(f64::INFINITY, Reach::bits))
                    .collect();
                let ns: Vec<f64> = reaches
                    .iter()
                    .filter_map(|r| match r {
                        Some(Reach::At { ns_per_element, .. }) => Some(*ns_per_element),
                        _ => None,
                    })
                    .collect();
                let reached = bits.iter().filter(|b| b.is_finite()).count();
                // The middle boards' reaches: is one of them a “≤”?
                let mut pairs: Vec<(f64, bool)> = reaches
                    .iter()
                    .map(|r| match r {
                        Some(Reach::At { bits, at_most, .. }) => (*bits, *at_most),
                        _ => (f64::INFINITY, false),
                    })
                    .collect();
                pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
                let m = pairs.len() / 2;
                let middle = if pairs.len() % 2 == 1 {
                    &pairs[m..=m]
                } else {
                    &pairs[m.saturating_sub(1)..=m.min(pairs.len().saturating_sub(1))]
                };
                let at_most = !pairs.is_empty() && middle.iter().any(|p| p.1);
                (reached, median(bits), median(ns), at_most)
            };
            let (r1, b1, n1, m1) = per(|r| &r.reach_1);
            let (r01, b01, n01, m01) = per(|r| &r.reach_01);
            SummaryRow {
                family,
                boards: rows.iter().flatten().count(),
                reached: [r1, r01],
                median_bits: [b1, b01],
                median_at_most: [m1, m01],
                median_ns: [n1, n01],
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.median_bits[0]
            .total_cmp(&b.median_bits[0])
            .then(a.median_bits[1].total_cmp(&b.median_bits[1]))
            .then(b.reached[0].cmp(&a.reached[0]))
            .then(a.family.cmp(&b.family))
    });
    out
}

/// Kendall τ-b between two boards' orders (rule 11): at each pair of columns of the same
/// bits per element (within 15 %), over the families with an entry in both, by error; the
/// mean over the columns with at least three such families. `None` without any.
pub fn tau(a: &Board, b: &Board) -> Option<f64> {
    let mut taus = Vec::new();
    for (i, ca) in a.columns.iter().enumerate() {
        let Some(j) = b.columns.iter().position(|cb| {
            (cb.bits_per_element / ca.bits_per_element).ln().abs() < 0.15f64.ln_1p()
        }) else {
            continue;
        };
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for ra in &a.rows {
            let Some(ea) = &ra.cells[i] else { continue };
            let Some(rb) = b.rows.iter().find(|r| r.family == ra.family) else {
                continue;
            };
            let Some(eb) = &rb.cells[j] else { continue };
            x.push(ea.error_pct);
            y.push(eb.error_pct);
        }
        if x.len() >= 3 {
            taus.extend(kendall_tau_b(&x, &y));
        }
    }
    (!taus.is_empty()).then(|| taus.iter().sum::<f64>() / taus.len() as f64)
}

/// What a synthetic board's mean τ over the real traces says, in words.
pub fn verdict(mean: Option<f64>) -> &'static str {
    match mean {
        Some(t) if t >= 0.6 => "predicts the real traces",
        Some(t) if t >= 0.4 => "predicts them in part",
        Some(_) => "does not predict them",
        None => "not comparable",
    }
}

/// A track's transfer table: per synthetic board, τ against each real trace and the mean.
#[derive(Debug, Clone, Serialize)]
pub struct Transfer {
    pub real: Vec<String>,
    /// `(synthetic board, τ per real trace, mean τ)`.
    pub rows: Vec<(String, Vec<Option<f64>>, Option<f64>)>,
}

/// The transfer of `boards` (ids and boards of one track).
pub fn transfer(boards: &[(String, &Board)]) -> Transfer {
    let real: Vec<&(String, &Board)> = boards.iter().filter(|b| b.1.real).collect();
    let rows = boards
        .iter()
        .filter(|b| !b.1.real)
        .map(|(id, s)| {
            let taus: Vec<Option<f64>> = real.iter().map(|(_, r)| tau(s, r)).collect();
            let known: Vec<f64> = taus.iter().flatten().copied().collect();
            let mean = (!known.is_empty()).then(|| known.iter().sum::<f64>() / known.len() as f64);
            (id.clone(), taus, mean)
        })
        .collect();
    Transfer {
        real: real.iter().map(|b| b.0.clone()).collect(),
        rows,
    }
}

fn bits_or(x: f64, at_most: bool) -> String {
    if x.is_finite() {
        format!("{}{}", if at_most { "≤ " } else { "" }, bits(x))
    } else {
        "not reached".into()
    }
}

fn ns_or(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.0}")
    } else {
        "—".into()
    }
}

/// A track's summary and transfer as Markdown.
pub fn markdown(track: Track, boards: &[(String, &Board)]) -> String {
    let mut s = String::new();
    let only: Vec<&Board> = boards.iter().map(|b| b.1).collect();
    let unit = match track {
        Track::SinceStart => "bits per distinct key",
        Track::Windowed => "bits per window element",
    };
    let _ = writeln!(
        s,
        "### The {} over its {} boards\n\nMedian {unit} to reach a total error of 1 % and 0.1 % over all {} boards, a board not reached counting as infinite (rule 8); ns per element: the median where reached.\n\n| family | ran on | reaches 1 % on | median bits to 1 % | ns/el | reaches 0.1 % on | median bits to 0.1 % | ns/el |\n|---|---|---|---|---|---|---|---|",
        track.title(),
        only.len(),
        only.len()
    );
    for r in summary(&only) {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            md_cell(&r.family),
            r.boards,
            r.reached[0],
            bits_or(r.median_bits[0], r.median_at_most[0]),
            ns_or(r.median_ns[0]),
            r.reached[1],
            bits_or(r.median_bits[1], r.median_at_most[1]),
            ns_or(r.median_ns[1]),
        );
    }
    let t = transfer(boards);
    if t.real.is_empty() || t.rows.is_empty() {
        let _ = writeln!(
            s,
            "\nNo transfer table: the track needs both a synthetic board and a real trace."
        );
        return s;
    }
    let _ = writeln!(
        s,
        "\n**Transfer.** Kendall τ-b between each synthetic board's order and each real trace's, at the same columns, averaged over them (rule 11); the real traces are scored at settings tuned on their own first half, never on the part scored. A mean τ of at least 0.6 is read as “predicts”, 0.4–0.6 as “in part”.\n\n| synthetic board | {} | mean τ | verdict |\n|---|{}---|---|",
        t.real
            .iter()
            .map(|r| md_cell(r))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(t.real.len())
    );
    for (id, taus, mean) in &t.rows {
        let cells: Vec<String> = taus
            .iter()
            .map(|t| t.map_or("—".into(), |t| format!("{t:.2}")))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            md_cell(id),
            cells.join(" | "),
            mean.map_or("—".into(), |m| format!("{m:.2}")),
            verdict(*mean)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_8_medians_count_not_reached_as_infinite() {
        // Reached on 2 of 5 boards: the median is not reached, however few bits those took.
        let m = median(vec![1.0, 2.0, f64::INFINITY, f64::INFINITY, f64::INFINITY]);
        assert!(m.is_infinite());
        assert_eq!(
            median(vec![1.0, 2.0, 3.0, f64::INFINITY, f64::INFINITY]),
            3.0
        );
        assert_eq!(median(vec![1.0, 3.0]), 2.0);
        assert!(median(vec![1.0, f64::INFINITY]).is_infinite());
    }

    #[test]
    fn verdicts_follow_the_stated_thresholds() {
        assert_eq!(verdict(Some(0.6)), "predicts the real traces");
        assert_eq!(verdict(Some(0.45)), "predicts them in part");
        assert_eq!(verdict(Some(0.1)), "does not predict them");
        assert_eq!(verdict(None), "not comparable");
    }
}
