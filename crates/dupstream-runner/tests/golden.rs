//! Golden results (filled in once the experiments exist).
