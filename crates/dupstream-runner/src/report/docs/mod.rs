//! Documents that cannot go stale: every count, rate and time the reference documents state
//! about results is written here, from the committed results and the experiments'
//! `paper-values.csv`, into blocks between two markers:
//!
//! ```text
//! <!-- generated: table bera-journal-table7 -->
//! … rewritten by `dupstream docs --write` …
//! <!-- end generated -->
//! ```
//!
//! The runs are the canonical run of each experiment, declared in `results/canonical.toml`
//! (experiment name = directory name under `results/<experiment>/`). `results/` holds those
//! and nothing else: a results directory that is not canonical is reported as a difference,
//! as is a canonical run that is missing.
//!
//! The blocks, by name:
//! - `table EXPERIMENT`: the canonical run's `table.md`, from "Each cell" on (or its table);
//! - `run EXPERIMENT`: one paragraph naming the run, its scale, threads, wall time against
//!   the estimate, peak memory, machine, load, revision and date;
//! - `papers`: per paper, the experiment files, those with a committed run, and the cells
//!   within tolerance of the paper over the cells compared, apart for each reading of a column
//!   ([`readings`](super::readings): faithful, hypotheses, pseudo-code, the authors' code,
//!   E of saturated filters, stand-in data);
//! - `catalogue`: the same per experiment file, with scale, wall time, peak memory and
//!   revision;
//! - `timing`: the canonical runs' wall times and peak memory beside their estimates;
//! - `results-index`: the kept runs, for `results/README.md`;
//! - `timing-check`: today's estimate against the committed runs rerun, from
//!   `results/timing-check.csv` (`just timing-check`);
//! - `peers`, `peers batch`: the filters README's peer tables, from the committed run of
//!   `just peers` ([`PEERS_CSV`]; `peers`).

mod blocks;
mod canonical;
mod format;
mod peers;
mod regenerate;
mod timing_check;

pub use canonical::{CANONICAL, Catalogue, ExperimentFile, Run, canonical_runs};
pub use format::{bytes, secs};
pub use peers::{PEERS_CSV, PeerRow, PeersRun, parse_peers, read_peers};
pub use regenerate::{BEGIN, Document, END, Stale, documents};
pub use timing_check::{CheckRow, TIMING_CHECK_CSV, WITHIN, check_block, parse_check};
