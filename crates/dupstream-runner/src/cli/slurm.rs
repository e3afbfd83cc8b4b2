//! `dupstream slurm`: Slurm scripts for a sharded sweep.

pub use crate::orchestrate::slurm::{SLURM_EXAMPLES, SlurmArgs};
use crate::plan::Registry;
use anyhow::Result;

pub fn run(args: SlurmArgs, registry: &Registry) -> Result<()> {
    crate::orchestrate::slurm::slurm(&args, registry)
}
