//! A board as text: LEADERBOARD.md's Markdown and the CSV behind the report's page.

use super::model::{Board, Entry, Reach, Track};
use crate::report::table::md_cell;
use std::fmt::Write as _;

/// An error in percent, to about three significant digits.
pub fn pct(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else if x >= 0.01 {
        format!("{x:.3}")
    } else {
        format!("{x:.1e}")
    }
}

/// Bits per element, short (`0.25`, `2`, `16`, `7.8`).
pub fn bits(x: f64) -> String {
    let s = if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A reach as the tables show it: `≤ 2`, `7.9`, or `not reached`.
pub fn reach_text(r: &Reach) -> String {
    match r {
        Reach::At {
            bits: b, at_most, ..
        } => {
            format!("{}{}", if *at_most { "≤ " } else { "" }, bits(*b))
        }
        Reach::NotReached => "not reached".into(),
    }
}

/// The ns per element and member at a reach (`—` when not reached).
fn reach_cost(r: &Reach) -> (String, String) {
    match r {
        Reach::At {
            member,
            ns_per_element,
            ..
        } => (
            if ns_per_element.is_finite() {
                format!("{ns_per_element:.0}")
            } else {
                "—".into()
            },
            member.clone(),
        ),
        Reach::NotReached => ("—".into(), "—".into()),
    }
}

/// A place (1 = best), bold when first.
pub fn place_text(p: usize) -> String {
    if p == 1 {
        "**1**".into()
    } else {
        p.to_string()
    }
}

/// An entry's distance to Naor & Yogev's sliding-window bound (rule 10): whole bits per window
/// element above the bound at zero slack with its measured FPR as ε, for a count-window entry
/// without false negatives; `exact` for one with no error at all; `n/c` otherwise.
pub fn bound_cell(b: &Board, e: &Entry) -> String {
    let (Track::Windowed, None, Some(w)) = (b.track, b.window_seconds, b.window) else {
        return "n/c".into();
    };
    if !e.no_false_negative || w == 0 {
        return "n/c".into();
    }
    let eps = e.fpr_pct / 100.0;
    if eps == 0.0 {
        return "exact".into();
    }
    if eps >= 1.0 {
        return "n/c".into();
    }
    let bound = dupstream_filters::theory::sliding_window_lower_bound_bits(w, eps) / w as f64;
    let d = (e.bits_per_element - bound).round();
    if d == 0.0 {
        "0".into()
    } else {
        format!("{d:+.0}")
    }
}

impl Board {
    /// What was scored, in one sentence.
    pub fn description(&self) -> String {
        let what = match self.track {
            Track::SinceStart => format!(
                "error = FPR + FNR over the whole stream against the since-start truth; memory in measured bits per distinct key of the scored stream ({:.0} distinct keys)",
                self.per_element
            ),
            Track::Windowed => format!(
                "error = windowed FPR + FNR ({}) over elements {}–{}; memory in measured bits per {}",
                match self.window_seconds {
                    None => format!("window W = {} elements", self.window.unwrap_or(0)),
                    Some(t) => format!(
                        "time window T = {t} s, a mean of {} elements per window, measured on the streams",
                        self.window.unwrap_or(0)
                    ),
                },
                self.warmup.map_or(1, |w| w + 1),
                self.n,
                self.unit,
            ),
        };
        format!(
            "{} elements scored (scale 1/{}); {what}; tuned on {}; scored on seeds {}{}.",
            self.n,
            self.scale,
            self.tuning,
            self.scored_seeds
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            if self.measured {
                ""
            } else {
                "; memory as declared (a run from before memory was measured)"
            }
        )
    }

    /// The board as Markdown: what was scored, the frontier, the columns (place, error with
    /// FPR and FNR apart, and memory held) and, on count windows, the distance to the bound.
    pub fn markdown(&self, id: &str) -> String {
        let mut s = String::new();
        let (experiment, stream, track) = self.heading();
        let _ = writeln!(s, "### {}: {} — {track}\n", md_cell(id), md_cell(stream));
        let _ = writeln!(s, "{} Run: {}.\n", self.description(), md_cell(experiment));
        let _ = writeln!(
            s,
            "| family | bits to 1 % | ns/el | by | bits to 0.1 % | ns/el | by |\n|---|---|---|---|---|---|---|"
        );
        for r in &self.rows {
            let (ns1, m1) = reach_cost(&r.reach_1);
            let (ns01, m01) = reach_cost(&r.reach_01);
            let _ = writeln!(
                s,
                "| {} | {} | {ns1} | {} | {} | {ns01} | {} |",
                md_cell(&r.family),
                reach_text(&r.reach_1),
                md_cell(&m1),
                reach_text(&r.reach_01),
                md_cell(&m01)
            );
        }
        let cols: Vec<String> = self
            .columns
            .iter()
            .map(|c| bits(c.bits_per_element))
            .collect();
        let _ = writeln!(
            s,
            "\nAt each memory column (bits per {}): place, error % (FPR / FNR), bits held per {}; — where nothing the family ran fits.\n\n| family | {} |\n|---|{}",
            self.unit,
            self.unit,
            cols.join(" | "),
            "---|".repeat(cols.len())
        );
        for r in &self.rows {
            let cells: Vec<String> = r
                .cells
                .iter()
                .zip(&r.places)
                .map(|(e, p)| match (e, p) {
                    (Some(e), Some(p)) => format!(
                        "{}: {} ({} / {}) {}",
                        place_text(*p),
                        pct(e.error_pct),
                        pct(e.fpr_pct),
                        pct(e.fnr_pct),
                        bits(e.bits_per_element)
                    ),
                    _ => "—".into(),
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", md_cell(&r.family), cells.join(" | "));
        }
        if self.track == Track::Windowed && self.window_seconds.is_none() {
            let _ = writeln!(
                s,
                "\nBits per window element above Naor & Yogev's bound at zero slack (whole bits; n/c: not comparable, rule 10).\n\n| family | {} |\n|---|{}",
                cols.join(" | "),
                "---|".repeat(cols.len())
            );
            for r in &self.rows {
                let cells: Vec<String> = r
                    .cells
                    .iter()
                    .map(|e| e.as_ref().map_or("—".into(), |e| bound_cell(self, e)))
                    .collect();
                let _ = writeln!(s, "| {} | {} |", md_cell(&r.family), cells.join(" | "));
            }
        }
        s
    }

    /// The numbers behind the board's page, as CSV: one row per column entry (`kind =
    /// column`) and per front point (`kind = front`).
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record([
            "family",
            "kind",
            "column_bits_per_element",
            "place",
            "member",
            "config",
            "setting",
            "run_nominal_bits",
            "held_bits",
            "bits_per_element",
            "measured",
            "error_pct",
            "ci95_pct",
            "fpr_pct",
            "fnr_pct",
            "tuning_error_pct",
            "ns_per_element",
            "above_bound_bits",
        ]);
        let mut row = |family: &str, kind: &str, col: String, place: String, e: &Entry| {
            let _ = w.write_record([
                family.to_string(),
                kind.to_string(),
                col,
                place,
                e.member.clone(),
                e.config.clone(),
                e.setting.clone(),
                e.run_nominal_bits.to_string(),
                e.held_bits.to_string(),
                e.bits_per_element.to_string(),
                e.measured.to_string(),
                e.error_pct.to_string(),
                e.ci95_pct.map_or(String::new(), |c| c.to_string()),
                e.fpr_pct.to_string(),
                e.fnr_pct.to_string(),
                e.tuning_error_pct.to_string(),
                e.ns_per_element.to_string(),
                bound_cell(self, e),
            ]);
        };
        for r in &self.rows {
            for ((e, p), c) in r.cells.iter().zip(&r.places).zip(&self.columns) {
                if let (Some(e), Some(p)) = (e, p) {
                    row(
                        &r.family,
                        "column",
                        c.bits_per_element.to_string(),
                        p.to_string(),
                        e,
                    );
                }
            }
            for e in &r.front {
                row(&r.family, "front", String::new(), String::new(), e);
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}
