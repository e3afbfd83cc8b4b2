// A structure of your own, run by dupstream without forking it.
//
// `DirectMapped` is a tiny duplicate detector: a table of 16-bit fingerprints, one slot per
// key hash; an element is called a duplicate when its slot holds its fingerprint, and then
// the slot takes it. It implements the filters crate's two traits (`DuplicateFilter` to run,
// `Structure` to be built from a memory budget) and is registered with the runner by type,
// `Registry::builtin().with_structure::<DirectMapped>()`, after which any experiment file may
// name it (`name = "direct_mapped"`) in an `[[algorithm]]` table, beside the built-in
// structures. (A structure without the `Structure` trait registers with closures instead:
// `Registry::with(CustomStructure::new(name, build).memory_bits_for(..).cost(..))`.)
//
//     cargo run --release -p dupstream-runner --example custom_structure
//         runs the small experiment below and prints its table;
//     cargo run --release -p dupstream-runner --example custom_structure -- run my.toml
//         is the whole `dupstream` command line, with `direct_mapped` known.

use dupstream_filters::{DuplicateFilter, Error, Occupancy, OccupancyKind, Param, Structure};
use dupstream_runner::Registry;
use dupstream_runner::orchestrate::{self, RunOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The parameters an `[[algorithm]]` table gives (`name = "direct_mapped"` plus these).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectMappedParams {
    /// Bits per fingerprint (1 to 16).
    pub fingerprint_bits: u32,
}

/// One fingerprint per slot; 0 marks an empty slot.
#[derive(Debug)]
pub struct DirectMapped {
    slots: Vec<u16>,
    bits: u32,
    seed: u64,
}

impl Structure for DirectMapped {
    const NAME: &'static str = "direct_mapped";
    type Params = DirectMappedParams;
    /// One probe per element, like a k=1 Bloom filter.
    const RELATIVE_COST: f64 = 1.0;

    fn new(budget_bits: u64, p: &DirectMappedParams, seed: u64) -> dupstream_filters::Result<Self> {
        let slots = Self::memory_bits_for(budget_bits, p)? / u64::from(p.fingerprint_bits);
        Ok(Self {
            slots: vec![0; slots as usize],
            bits: p.fingerprint_bits,
            seed,
        })
    }

    /// Whole slots only.
    fn memory_bits_for(budget_bits: u64, p: &DirectMappedParams) -> dupstream_filters::Result<u64> {
        if !(1..=16).contains(&p.fingerprint_bits) {
            return Err(Error::InvalidParameter {
                name: "fingerprint_bits",
                value: p.fingerprint_bits.to_string(),
                reason: "must be in 1..=16".into(),
            });
        }
        let bits = u64::from(p.fingerprint_bits);
        if budget_bits < bits {
            return Err(Error::BudgetTooSmall {
                structure: Self::NAME,
                budget_bits,
                needed_bits: bits,
            });
        }
        Ok(budget_bits / bits * bits)
    }

    /// One random cell per element: its slot.
    fn cells_per_element(_p: &DirectMappedParams, _budget_bits: u64) -> f64 {
        1.0
    }
}

impl DuplicateFilter for DirectMapped {
    fn step(&mut self, hash: u64) -> bool {
        let h = hash ^ self.seed;
        let slot = ((u128::from(h) * self.slots.len() as u128) >> 64) as usize;
        // A fingerprint from the low bits, never 0 (0 marks an empty slot).
        let fp = ((h & ((1 << self.bits) - 1)) as u16).max(1);
        let seen = self.slots[slot] == fp;
        self.slots[slot] = fp;
        seen
    }
    fn memory_bits(&self) -> u64 {
        self.slots.len() as u64 * u64::from(self.bits)
    }
    fn name(&self) -> &'static str {
        Self::NAME
    }
    fn params(&self) -> Vec<Param> {
        vec![
            Param::new("fingerprint_bits", self.bits),
            Param::new("slots", self.slots.len()),
        ]
    }
    fn occupancy(&self) -> Occupancy {
        let filled = self.slots.iter().filter(|&&s| s != 0).count();
        Occupancy {
            kind: OccupancyKind::FilledFraction,
            value: filled as f64 / self.slots.len().max(1) as f64,
        }
    }
}

/// The runner's structures plus `direct_mapped`.
pub fn registry() -> Registry {
    Registry::builtin().with_structure::<DirectMapped>()
}

/// A small experiment: `direct_mapped` beside a Bloom filter and the exact baseline.
pub const EXPERIMENT: &str = r#"name = "custom-structure"
description = "A user's structure (direct_mapped, registered by examples/custom_structure.rs) beside built-in ones"

[stream]
kind = "uniform"
n = 200_000
distinct_fraction = 0.5

[grid]
memory = ["16KB", "64KB"]
seeds = [1, 2]

[[algorithm]]
name = "direct_mapped"
fingerprint_bits = [8, 16]

[[algorithm]]
name = "bloom"
k = 2

[[algorithm]]
name = "exact"

[metrics]
checkpoints = 4
"#;

/// Writes the experiment into `work` and runs it there with the registry; returns the
/// results directory.
pub fn run_example(work: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(work)?;
    let file = work.join("custom-structure.toml");
    std::fs::write(&file, EXPERIMENT)?;
    let out = work.join("results");
    let opts = RunOptions {
        experiment: file,
        scale: None,
        threads: None,
        out: Some(out.clone()),
        resume: false,
        results_root: work.to_path_buf(),
        quiet: true,
        shard: None,
        json: false,
        diff: false,
    };
    orchestrate::run(&opts, &registry())?;
    Ok(out)
}

fn main() -> ExitCode {
    if std::env::args().len() > 1 {
        // The whole `dupstream` command line, with `direct_mapped` registered.
        return dupstream_runner::cli::main_with(&registry());
    }
    let work = std::env::temp_dir().join(format!("dupstream-example-{}", std::process::id()));
    match run_example(&work) {
        Ok(out) => {
            eprintln!("results in {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
