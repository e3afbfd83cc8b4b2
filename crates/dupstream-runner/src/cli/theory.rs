//! `dupstream theory`: the analytic figures of Deng & Rafiei from the paper's equations, with
//! an optional simulation overlay.

use crate::report::theory::{self, Figure};
use anyhow::{Context, Result};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct TheoryArgs {
    /// Which figure.
    #[arg(value_enum)]
    pub figure: Figure,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "results/theory")]
    pub out: PathBuf,
    /// A results directory of the figure's simulation to overlay (`dupstream run
    /// experiments/deng/fig1-sim.toml` or `fig2-sim.toml`).
    #[arg(long, value_name = "RESULTS_DIR")]
    pub sim: Option<PathBuf>,
}

pub fn run(args: TheoryArgs) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let figures: &[Figure] = match args.figure {
        Figure::All => &[Figure::DengFig1, Figure::DengFig2],
        Figure::DengFig1 => &[Figure::DengFig1],
        Figure::DengFig2 => &[Figure::DengFig2],
    };
    let sim = args.sim.as_deref().map(theory::simulation).transpose()?;
    for &f in figures {
        let (name, points) = theory::figure(f, sim.as_deref())?;
        for p in theory::write(&args.out, name, &points)? {
            outln!("{}", p.display())?;
        }
    }
    Ok(())
}
