//! Derived series: rows computed from two measured series of the same run, declared in an
//! experiment file as `[[derived]]` tables.
//!
//! ```toml
//! [[derived]]
//! label = "FPBuffering"      # the new series
//! kind = "fp_buffering_at"   # LRU buffering with FPBuffering's coin at another series' FP rate
//! a = "Buffering"            # the measured LRU buffering series
//! b = "SBF"                  # the series whose FP rate the coin matches
//!
//! [[derived]]
//! label = "FPBuffering − SBF"
//! kind = "difference"        # a − b, for FPR and FNR
//! a = "FPBuffering"
//! b = "SBF"
//! ```
//!
//! - **`fp_buffering_at`.** Deng & Rafiei (Section 5.2, 5.4) compare SBF with FPBuffering "at
//!   the same FP rate": FPBuffering's coin `q` is set to the SBF's false positive rate, which is
//!   only known after the SBF has run. FPBuffering stores every element whatever the coin says
//!   (`dupstream_filters::buffering`), so its buffer, and hence which duplicates it misses, is
//!   exactly LRU buffering's; a missed duplicate is then still called a duplicate with
//!   probability `q`, and an unseen element is called a duplicate with probability `q`. So with
//!   `q = FPR(b)`, in expectation, `FPR = FPR(b)` and `FNR = FNR(a) · (1 − FPR(b))`. The derived
//!   row holds these expectations (the counts are rounded); it has no coin noise, and needs no
//!   second pass over the stream. `tests/catalogue.rs` checks the identity against a measured
//!   FPBuffering.
//! - **`difference`.** `FPR(a) − FPR(b)` and `FNR(a) − FNR(b)` (the counts are left at zero).
//!
//! Rows are paired by stream, seed, memory and checkpoint; `a` and `b` are labels of measured
//! series (or of earlier derived ones). Derived rows are written to `derived.csv`, never to
//! `raw.csv`, and are recomputed by `dupstream plot` and `dupstream compare`.

use crate::plan::{DerivedKind, DerivedSpec};
use crate::record::RawRow;
use std::collections::HashMap;

type Key = (String, u64, u64, u64);

fn key(r: &RawRow) -> Key {
    (r.stream.clone(), r.seed, r.memory_nominal_bits, r.position)
}

/// The rows of every derived series, computed from `rows` (measured) in declaration order.
/// `cells` is the number of measured cells (derived rows get cell numbers above it).
pub fn compute(specs: &[DerivedSpec], rows: &[RawRow], cells: usize) -> Vec<RawRow> {
    let mut all: Vec<RawRow> = rows.to_vec();
    let mut out = Vec::new();
    for (di, d) in specs.iter().enumerate() {
        let by_label = |label: &str| -> HashMap<Key, &RawRow> {
            all.iter()
                .filter(|r| r.label == label)
                .map(|r| (key(r), r))
                .collect()
        };
        let a = by_label(&d.a);
        let b = by_label(&d.b);
        let mut new: Vec<RawRow> = Vec::new();
        for (k, ra) in &a {
            let Some(rb) = b.get(k) else { continue };
            let mut r = (*rb).clone();
            r.label = d.label.clone();
            r.config = d.label.clone();
            r.swept = Default::default();
            r.algorithm = d.kind.algorithm().to_string();
            r.cell = cells * (di + 1) + rb.cell % cells.max(1);
            r.params = rb
                .params
                .prepend(&[("derived", d.kind.as_str()), ("a", &d.a), ("b", &d.b)]);
            match d.kind {
                DerivedKind::FpBufferingAt => {
                    let q = rb.fpr.unwrap_or(0.0);
                    r.unseen = ra.unseen;
                    r.duplicates = ra.duplicates;
                    r.fp = (q * ra.unseen as f64).round() as u64;
                    r.tn = ra.unseen - r.fp.min(ra.unseen);
                    r.fpr = (ra.unseen > 0).then_some(q);
                    let fnr = ra.fnr.map(|f| f * (1.0 - q));
                    r.fn_ = fnr.map_or(0, |f| (f * ra.duplicates as f64).round() as u64);
                    r.tp = ra.duplicates - r.fn_.min(ra.duplicates);
                    r.fnr = fnr;
                    r.occupancy = ra.occupancy;
                    r.occupancy_kind = ra.occupancy_kind.clone();
                    r.memory_bits_used = ra.memory_bits_used;
                    r.memory_bits_held = ra.memory_bits_held;
                    r.k = ra.k;
                }
                DerivedKind::Difference => {
                    r.fpr = ra.fpr.zip(rb.fpr).map(|(x, y)| x - y);
                    r.fnr = ra.fnr.zip(rb.fnr).map(|(x, y)| x - y);
                    (r.tp, r.fp, r.tn, r.fn_) = (0, 0, 0, 0);
                    r.occupancy = ra.occupancy - rb.occupancy;
                }
            }
            new.push(r);
        }
        new.sort_by_key(|x| (x.cell, x.position));
        all.extend(new.iter().cloned());
        out.extend(new);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row as row;

    #[test]
    fn fp_buffering_at_and_difference() {
        let rows = vec![row("Buffering", 0, 0.0, 0.5), row("SBF", 1, 0.08, 0.3)];
        let specs = vec![
            DerivedSpec {
                label: "FPBuffering".into(),
                kind: DerivedKind::FpBufferingAt,
                a: "Buffering".into(),
                b: "SBF".into(),
            },
            DerivedSpec {
                label: "diff".into(),
                kind: DerivedKind::Difference,
                a: "FPBuffering".into(),
                b: "SBF".into(),
            },
        ];
        let d = compute(&specs, &rows, 2);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].label, "FPBuffering");
        assert_eq!(d[0].algorithm, "fp_buffering");
        assert!((d[0].fpr.unwrap() - 0.08).abs() < 1e-15);
        assert!((d[0].fnr.unwrap() - 0.5 * 0.92).abs() < 1e-15);
        assert_eq!(d[0].fp, 48);
        assert_eq!(d[0].fn_, 184);
        assert_eq!(d[0].tp + d[0].fn_, 400);
        assert!((d[1].fnr.unwrap() - (0.46 - 0.3)).abs() < 1e-12);
        assert!(d[1].fpr.unwrap().abs() < 1e-15);
        assert_ne!(d[0].cell, d[1].cell);
        assert_eq!(
            d[0].params.to_string(),
            "derived=fp_buffering_at;a=Buffering;b=SBF;fps=0.1"
        );
        assert_eq!(d[1].params.get("derived"), Some("difference"));
    }
}
