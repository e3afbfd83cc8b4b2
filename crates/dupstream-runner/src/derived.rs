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

use crate::error::ConfigError;
use crate::output::RawRow;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// One `[[derived]]` table.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DerivedSpec {
    /// Label of the derived series.
    pub label: String,
    /// How it is computed.
    pub kind: DerivedKind,
    /// First input series (label).
    pub a: String,
    /// Second input series (label).
    pub b: String,
}

/// What a derived series computes (see the module doc).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DerivedKind {
    /// FPBuffering's expected rates with its coin at `b`'s FP rate, from LRU buffering `a`.
    FpBufferingAt,
    /// `a − b`.
    Difference,
}

impl DerivedKind {
    /// The name used in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FpBufferingAt => "fp_buffering_at",
            Self::Difference => "difference",
        }
    }

    /// The `algorithm` column of the derived rows.
    pub fn algorithm(self) -> &'static str {
        match self {
            Self::FpBufferingAt => "fp_buffering",
            Self::Difference => "difference",
        }
    }
}

/// Checks that every derived series names existing series and a fresh label.
pub fn validate(file: &Path, specs: &[DerivedSpec], labels: &[String]) -> Result<(), ConfigError> {
    let mut known: Vec<&str> = labels.iter().map(String::as_str).collect();
    for d in specs {
        for (key, input) in [("a", &d.a), ("b", &d.b)] {
            if !known.contains(&input.as_str()) {
                return Err(ConfigError::new(
                    file,
                    None,
                    Some(&format!("derived.{key}")),
                    format!(
                        "[[derived]] `{}`: no series labelled `{input}` (known: {})",
                        d.label,
                        known.join(", ")
                    ),
                ));
            }
        }
        if known.contains(&d.label.as_str()) {
            return Err(ConfigError::new(
                file,
                None,
                Some("derived.label"),
                format!("[[derived]] label `{}` is already used", d.label),
            ));
        }
        known.push(&d.label);
    }
    Ok(())
}

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
            r.algorithm = d.kind.algorithm().to_string();
            r.cell = cells * (di + 1) + rb.cell % cells.max(1);
            r.params = format!(
                "derived={};a={};b={};{}",
                d.kind.as_str(),
                d.a,
                d.b,
                rb.params
            );
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
                    r.k = ra.k.clone();
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

/// A measured-looking row for unit tests.
#[cfg(test)]
pub fn tests_row() -> RawRow {
    tests::row("SBF", 0, 0.1, 0.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn row(label: &str, cell: usize, fpr: f64, fnr: f64) -> RawRow {
        RawRow {
            experiment: "t".into(),
            cell,
            algorithm: label.to_lowercase(),
            label: label.into(),
            params: "fps=0.1".into(),
            k: "2".into(),
            memory: "1KB".into(),
            memory_nominal_bits: 8192,
            memory_bits_budget: 8192,
            memory_bits_used: 8192,
            scale: 1,
            stream: "uniform".into(),
            n_nominal: 1000,
            n: 1000,
            distinct_target: None,
            seed: 1,
            position: 1000,
            tp: 0,
            fp: 0,
            tn: 0,
            fn_: 0,
            unseen: 600,
            duplicates: 400,
            fpr: Some(fpr),
            fnr: Some(fnr),
            occupancy_kind: "load".into(),
            occupancy: 0.5,
        }
    }

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
        assert!(d[0].params.contains("fps=0.1"));
    }

    #[test]
    fn validation_names_unknown_series() {
        let labels = vec!["SBF".to_string()];
        let bad = vec![DerivedSpec {
            label: "x".into(),
            kind: DerivedKind::Difference,
            a: "SBF".into(),
            b: "nope".into(),
        }];
        let e = validate(Path::new("f.toml"), &bad, &labels).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
        let dup = vec![DerivedSpec {
            label: "SBF".into(),
            kind: DerivedKind::Difference,
            a: "SBF".into(),
            b: "SBF".into(),
        }];
        assert!(validate(Path::new("f.toml"), &dup, &labels).is_err());
    }
}
