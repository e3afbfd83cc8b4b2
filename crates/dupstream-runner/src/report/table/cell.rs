//! One cell of a paper-style table.

use serde::Serialize;

/// One cell of `table.csv`. `row` and `column` are the labels shown in `table.md`; the
/// typed columns after them give each dimension on its own (empty where the cell's rows
/// differ in it, e.g. `memory_nominal_bits` in a table whose columns are memory sizes).
#[derive(Debug, Clone, Serialize)]
pub struct TableCell {
    pub row: String,
    pub metric: String,
    pub column: String,
    pub label: Option<String>,
    pub config: Option<String>,
    pub memory_nominal_bits: Option<u64>,
    pub k: Option<u64>,
    pub distinct_target: Option<f64>,
    pub n_nominal: Option<u64>,
    pub stream: Option<String>,
    /// The swept parameters as written (`k=2;p=4`), when the cell's rows share them.
    pub swept: Option<String>,
    pub ours_pct: f64,
    pub ours_ci95_pct: Option<f64>,
    pub seeds: usize,
    pub paper_pct: Option<f64>,
    /// Why the paper's value for this row and column is not compared: the structure
    /// parameters that differ from the paper row's (`k=3 ≠ paper k=2`).
    pub paper_mismatch: Option<String>,
    pub diff_pp: Option<f64>,
    pub rel_diff: Option<f64>,
    pub within_tolerance: Option<bool>,
}
