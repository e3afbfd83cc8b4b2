//! Stage 2, the record: typed result rows and the results directory that holds them.
//!
//! [`RawRow`] and [`StreamRow`] are the rows of `raw.csv` and `streams.csv`; a structure's
//! parameters are [`Params`], pairs rather than a string to split; [`tidy`] adds the tidy
//! columns (`param_<name>`, `memory_bits`, `bits_per_distinct`), `cells.csv` and `gaps.csv`. [`ResultsDir`] owns every
//! file of a results directory; [`verify_run`] checks a finished one against its commit record
//! before anything reads it. [`probe`] reads the git revision, the host and the machine.

pub mod files;
pub mod lock;
pub mod manifest;
pub mod params;
pub mod probe;
pub mod results_dir;
pub mod rows;
pub mod tidy;
pub mod verify;

pub use files::{
    COMPRESSIBLE, atomic_write, csv_bytes, gzip, is_compressed, read_json, read_result,
    read_result_json, read_result_rows, read_rows, result_path, rows_from, sync_dir, write_csv,
    write_json, write_result,
};
pub use lock::{DirLock, Locked};
pub use manifest::{Identity, Manifest, ManifestStream, Outcome};
pub use params::Params;
pub use results_dir::{
    COMMIT_FILE, CellRecord, CellState, CommitRecord, PAPER_VALUES, Purpose, ResultsDir, checksum,
    digest, run_toml, run_toml_differs,
};
pub use rows::{CellTiming, RawRow, StreamRow};
pub use tidy::{CellRow, GapRow};
pub use verify::{update_commit, verify_run, verify_run_but};
