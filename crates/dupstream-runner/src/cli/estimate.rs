//! `dupstream estimate`: the time `dupstream run` would estimate for each experiment file
//! (the same cost model it prints before starting) and the total.

use crate::plan::{self, Registry, cost};
use anyhow::Result;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct EstimateArgs {
    /// Files or directories.
    #[arg(default_value = "experiments")]
    paths: Vec<PathBuf>,
    /// As `run --scale`.
    #[arg(long, value_name = "F")]
    scale: Option<u64>,
    /// As `run --threads`.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// A file that runs at its own scale whatever --scale says, as `NAME.toml=SCALE`
    /// (matched against the end of the path); repeatable.
    #[arg(long, value_name = "FILE=SCALE")]
    fixed: Vec<String>,
}

pub fn run(args: EstimateArgs, registry: &Registry) -> Result<()> {
    let threads = plan::threads(args.threads, usize::MAX)?.0;
    let (mut total, mut unknown) = (0.0, 0);
    for path in &args.paths {
        for file in super::experiment_files(path)? {
            let text = file.to_string_lossy();
            let own = args
                .fixed
                .iter()
                .filter_map(|f| f.split_once('='))
                .find(|(name, _)| text.ends_with(name))
                .and_then(|(_, s)| s.parse::<u64>().ok());
            let exp = plan::load_with(&file, own.or(args.scale), registry)?;
            let secs = cost::run_secs(&exp, threads);
            unknown += usize::from(cost::has_unknown_len(&exp));
            total += secs;
            outln!("{:>10.0} s  {} (scale {})", secs, file.display(), exp.scale)?;
        }
    }
    let note = if unknown > 0 {
        format!(
            "; {unknown} file(s) replay streams of unknown length, counted as {} elements each",
            cost::UNKNOWN_LEN
        )
    } else {
        String::new()
    };
    outln!(
        "{:>10.0} s  total ({:.1} h) with {threads} thread(s){note}",
        total,
        total / 3600.0,
    )?;
    Ok(())
}
