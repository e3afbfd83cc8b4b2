//! `dupstream report`: static HTML pages to browse results, with no server, no network and
//! nothing outside the page (the style is inline, there is no script; every link is
//! relative, so a results tree can be copied or served as it is).
//!
//! - [`write_run`]: `index.html` in one results directory: the table (`table.md` and any
//!   other Markdown file of the directory, rendered by pulldown-cmark), every chart (SVG,
//!   linked to its 300 dpi PNG), what produced the run (`manifest.json`: summary, per-cell
//!   timings, the file itself) and links to every file.
//! - [`write_root`]: the same for every results directory under a root (a directory holding
//!   `raw.csv`), and `index.html` in the root listing them by experiment.
//!
//! One concern a module: `text` (escaping, links, Markdown, human sizes and times),
//! `page` (the page shell and its style), `run_page` (a results directory's page) with
//! `manifest` and `figures`, and `index` (the root page over many runs).

pub mod dirs;
mod figures;
mod grid;
mod index;
mod manifest;
mod page;
mod run_page;
mod text;

pub use dirs::{is_results_dir, results_dirs};
pub use figures::figure;
pub use grid::markdown;
pub use index::{latest_runs, write_root};
pub use page::{INDEX, page};
pub use run_page::write_run;
pub use text::{escape, href};
