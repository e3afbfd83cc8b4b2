//! Stage 2, the record: typed result rows and the results directory that holds them.
//!
//! [`RawRow`] and [`StreamRow`] are the rows of `raw.csv` and `streams.csv`; a structure's
//! parameters are [`Params`], pairs rather than a string to split; `tidy.rs` adds the tidy
//! columns (`param_<name>`, `memory_bits`, `bits_per_distinct`), `cells.csv` ([`CellRow`])
//! and `gaps.csv` ([`GapRow`]). [`ResultsDir`] owns every file of a results directory;
//! [`verify_run`] checks a finished one against its commit record before anything reads it;
//! [`read_result_rows`] reads a CSV file of it, stored plain or gzip-compressed. `probe.rs`
//! reads the git revision, the host and the [`Machine`].

pub(crate) mod files;
mod lock;
mod manifest;
mod params;
pub(crate) mod probe;
pub(crate) mod results_dir;
pub(crate) mod rows;
pub(crate) mod tidy;
pub(crate) mod verify;

pub use files::{
    COMPRESSIBLE, is_compressed, read_json, read_result, read_result_json, read_result_rows,
    read_rows, result_path, rows_from,
};
pub(crate) use files::{atomic_write, write_csv, write_json};
pub use lock::{DirLock, Locked};
pub(crate) use manifest::{Identity, Outcome};
pub use manifest::{Manifest, ManifestStream};
pub use params::Params;
pub use probe::Machine;
pub use results_dir::{
    CellRecord, CellState, CommitRecord, CommittedCell, CommittedFile, ResultsDir, checksum,
    digest, run_toml,
};
pub(crate) use results_dir::{Purpose, run_toml_differs};
pub use rows::{CellTiming, RawRow, StreamRow};
pub use tidy::{CellRow, GapRow};
pub use verify::verify_run;
pub(crate) use verify::{update_commit, verify_run_but};
