//! `dupstream theory`: the analytic figures of Deng & Rafiei (SIGMOD 2006), drawn from the
//! formulas in [`dupstream_filters::theory`], with an optional simulation overlay.
//!
//! - **`deng-fig1`**, Fig. 1 "FN rates vs. K": Eq. 19 with Eq. 9, 17 and 18 (`P` from Eq. 17
//!   unrounded, `φ̂ = 0`), the paper's testing values `δ = 200`, `f/N = 10⁻⁵` and more gaps and
//!   space sizes. Section 4.1: "in the case of Max = 1 and FPS = 0.1, we can set K to 2
//!   regardless of the input stream and the amount of space".
//! - **`deng-fig2`**, Fig. 2 "FN rates difference between Max = 3 and Max = 1 vs. gaps":
//!   Eq. 16 with Eq. 9 at `f/N = 0` ("we are considering the entire stream"), `K` set to the
//!   optimal value for each `Max` and setting
//!   ([`optimal_k_for_fn`](dupstream_filters::theory::optimal_k_for_fn) over `K = 1..=10` at
//!   the paper's testing gap `δ = 200`), for several `φ̂`, space sizes `m` (cells) and FPS.
//!
//! The figures' own parameter lists did not survive the text extraction, so the settings are
//! the ones the text names (Section 4.1). Each figure is written as `<figure>.csv` (long form:
//! panel, series, x, y in percent) and `<figure>.png` / `.svg`.
//!
//! **Simulation overlay** (`--sim RESULTS_DIR`, a run of `experiments/deng/fig1-sim.toml` or
//! `fig2-sim.toml`): for each simulated SBF, the FN rate Eq. 16 predicts *on that stream* is
//! Eq. 14/16 averaged over the gap distribution of a uniform stream of `n` elements over a
//! universe of `U` keys (a duplicate's gap `δ` is geometric with mean `U`, truncated by its
//! position: weight `(n − δ)·(1/U)(1 − 1/U)^{δ−1}`), with the structure's actual `m`, integer
//! `P`, `K`, `Max`, decrement probability `P/m` (Theorem 3), and `δ − 1` iterations between a
//! duplicate and its predecessor (the decrement of the duplicate's own iteration comes after
//! its probe; see `dupstream_filters::theory`). The setting probability of a cell is not the
//! same `K/m` for every cell: keys hash to fixed cells, so a cell is re-set at rate `X/U` where
//! `X ~ Poisson((U − 1)K/m)` counts the other keys on it ([`fn_rate_finite_universe`], Eq. 14
//! with the `k_ij` of Eq. 18 drawn per cell). With `U` below `m` most cells have no other key
//! and the plain `K/m` under-predicts the FN rate (by about 1 point at `U = m/2`, `K = 1`). The
//! overlay draws the prediction beside the measured FN rate (mean over seeds, with the 95 %
//! interval when there are several).

mod figures;
mod overlay;
mod prediction;
mod write;

pub use figures::Point;
pub use write::write;

use crate::record::{RawRow, read_result_rows};
use anyhow::{Context, Result, bail};
use figures::{fig1, fig2};
use overlay::{overlay_fig1, overlay_fig2};
use std::path::Path;

/// The analytic figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Figure {
    /// Deng & Rafiei Fig. 1: FN rate vs K (Eq. 19, 9, 17, 18).
    DengFig1,
    /// Deng & Rafiei Fig. 2: FN rate difference Max = 3 − Max = 1 vs gap (Eq. 16, 9).
    DengFig2,
    /// Both.
    All,
}

/// The points of an analytic figure (`DengFig1` or `DengFig2`), with the simulation overlay
/// when `sim` (the rows of the figure's simulation run) is given. Returns the figure's name.
pub fn figure(f: Figure, sim: Option<&[RawRow]>) -> Result<(&'static str, Vec<Point>)> {
    let (name, mut points) = match f {
        Figure::DengFig1 => ("deng-fig1", fig1()),
        Figure::DengFig2 => ("deng-fig2", fig2()),
        Figure::All => bail!("`all` is several figures"),
    };
    if let Some(rows) = sim {
        points.extend(match f {
            Figure::DengFig1 => overlay_fig1(rows)?,
            _ => overlay_fig2(rows)?,
        });
    }
    Ok((name, points))
}

/// The simulation rows of a results directory, for the overlay (checked against its commit
/// record first: a damaged run is refused).
pub fn simulation(dir: &Path) -> Result<Vec<RawRow>> {
    crate::record::verify_run(dir)?;
    read_result_rows::<RawRow>(dir, "raw.csv")
        .with_context(|| format!("reading the simulation in {}", dir.display()))
}
