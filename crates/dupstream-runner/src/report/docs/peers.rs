//! The filters README's peer tables, from the committed run of `just peers`
//! ([`PEERS_CSV`], written by `crates/dupstream-filters/benches/peers.rs`):
//! - `peers`: the run's provenance (machine, load, date, revision, the peers' versions), each
//!   pair's ns, ratios and error rates, and the pairs where ours is not clearly faster;
//! - `peers batch`: our structures batched against per element.

use super::canonical::Catalogue;
use super::format::{href, secs};
use crate::report::charts::thousands;
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::Path;

/// The committed run of `just peers`, relative to the repository root.
pub const PEERS_CSV: &str = "crates/dupstream-filters/benches/peers.csv";

/// What makes [`PEERS_CSV`] (cargo runs a benchmark in its package's directory, so the path
/// is the crate's).
const MAKE_IT: &str = "`just peers` (cargo bench -p dupstream-filters --bench peers -- --write benches/peers.csv) writes it";

/// A ratio at or above which ours is not called faster: runs on a loaded machine move ratios by
/// 10 % and more.
const NOT_AHEAD: f64 = 0.9;

/// One pair (our structure, a peer) at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRow {
    pub structure: String,
    pub size: String,
    pub peer_crate: String,
    pub peer_version: String,
    /// The peer as the benchmark names it (`fastbloom xxh3 pre-hashed`).
    pub peer: String,
    /// ns per element: ours batched, the peer against it (pre-hashed blocks where it takes
    /// them, else per element).
    pub batch_ns: (f64, f64),
    pub batch_ratio: f64,
    /// ns per element: ours per element, the peer per element.
    pub step_ns: (f64, f64),
    pub step_ratio: f64,
    /// False positive and false negative rates, ours and the peer's.
    pub fpr: (f64, f64),
    pub fnr: (f64, f64),
}

/// The run every row of the file shares.
#[derive(Debug, Clone, PartialEq)]
pub struct PeersRun {
    pub machine: String,
    pub load_start: String,
    pub load_end: String,
    pub date: String,
    pub revision: String,
    pub wall_secs: f64,
    pub rounds: u64,
    pub keys_per_round: u64,
    pub warm_keys: u64,
    pub rows: Vec<PeerRow>,
}

/// The numeric columns of a row, in [`PeerRow`]'s order.
const NUMBERS: [&str; 10] = [
    "ours_batch_ns",
    "peer_batch_ns",
    "batch_ratio",
    "ours_step_ns",
    "peer_step_ns",
    "step_ratio",
    "ours_fpr",
    "peer_fpr",
    "ours_fnr",
    "peer_fnr",
];

/// The columns every row repeats (one run per file).
const RUN: [&str; 9] = [
    "machine",
    "load_start",
    "load_end",
    "date",
    "revision",
    "wall_secs",
    "rounds",
    "keys_per_round",
    "warm_keys",
];

/// Parses the peers CSV `bytes`, named `file` in errors: a missing column names the header
/// line, a bad value its line and column, a run column that differs from the first row's its
/// line and column.
pub fn parse_peers(bytes: &[u8], file: &str) -> Result<PeersRun> {
    let mut r = csv::Reader::from_reader(bytes);
    let headers = r
        .headers()
        .with_context(|| format!("{file}: line 1: malformed header"))?
        .clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim() == name)
            .with_context(|| format!("{file}: line 1: no column `{name}`"))
    };
    let text_cols = ["structure", "size", "peer_crate", "peer_version", "peer"].map(col);
    let number_cols = NUMBERS.map(col);
    let run_cols = RUN.map(col);
    let text_cols = text_cols.into_iter().collect::<Result<Vec<_>>>()?;
    let number_cols = number_cols.into_iter().collect::<Result<Vec<_>>>()?;
    let run_cols = run_cols.into_iter().collect::<Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    let mut first: Option<(usize, Vec<String>)> = None;
    for rec in r.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            anyhow::anyhow!("{file}: line {line}: malformed row: {e}")
        })?;
        let line = rec.position().map_or(0, |p| p.line()) as usize;
        let get = |i: usize| rec.get(i).unwrap_or("").trim();
        let number = |k: usize| -> Result<f64> {
            let v = get(number_cols[k]);
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .with_context(|| {
                    format!(
                        "{file}: line {line}: field `{}`: `{v}` is not a number of 0 or more",
                        NUMBERS[k]
                    )
                })
        };
        let n: Vec<f64> = (0..NUMBERS.len()).map(number).collect::<Result<_>>()?;
        let t: Vec<String> = text_cols.iter().map(|&i| get(i).to_string()).collect();
        if let Some(k) = t.iter().position(String::is_empty) {
            let name = ["structure", "size", "peer_crate", "peer_version", "peer"][k];
            bail!("{file}: line {line}: field `{name}` is empty");
        }
        let run: Vec<String> = run_cols.iter().map(|&i| get(i).to_string()).collect();
        match &first {
            None => first = Some((line, run)),
            Some((at, want)) => {
                if let Some(k) = (0..RUN.len()).find(|&k| run[k] != want[k]) {
                    bail!(
                        "{file}: line {line}: field `{}`: `{}` differs from line {at}'s `{}` (the file holds one run)",
                        RUN[k],
                        run[k],
                        want[k]
                    );
                }
            }
        }
        let [structure, size, peer_crate, peer_version, peer] =
            <[String; 5]>::try_from(t).expect("five text columns");
        rows.push(PeerRow {
            structure,
            size,
            peer_crate,
            peer_version,
            peer,
            batch_ns: (n[0], n[1]),
            batch_ratio: n[2],
            step_ns: (n[3], n[4]),
            step_ratio: n[5],
            fpr: (n[6], n[7]),
            fnr: (n[8], n[9]),
        });
    }
    let Some((line, run)) = first else {
        bail!("{file}: no rows; {MAKE_IT}");
    };
    let parsed = |k: usize| -> Result<f64> {
        run[k]
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .with_context(|| {
                format!(
                    "{file}: line {line}: field `{}`: `{}` is not a number of 0 or more",
                    RUN[k], run[k]
                )
            })
    };
    let (wall_secs, rounds, keys_per_round, warm_keys) =
        (parsed(5)?, parsed(6)?, parsed(7)?, parsed(8)?);
    Ok(PeersRun {
        machine: run[0].clone(),
        load_start: run[1].clone(),
        load_end: run[2].clone(),
        date: run[3].clone(),
        revision: run[4].clone(),
        wall_secs,
        rounds: rounds as u64,
        keys_per_round: keys_per_round as u64,
        warm_keys: warm_keys as u64,
        rows,
    })
}

/// Reads [`PEERS_CSV`] under `root`; a missing file says what writes it.
pub fn read_peers(root: &Path) -> Result<PeersRun> {
    let path = root.join(PEERS_CSV);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{PEERS_CSV}: not found; {MAKE_IT}")
        }
        Err(e) => return Err(e).with_context(|| format!("reading {PEERS_CSV}")),
    };
    parse_peers(&bytes, PEERS_CSV)
}

/// `a–b×` over `values`, or `a×` when they round alike.
fn span(values: impl Iterator<Item = f64>) -> String {
    let v: Vec<f64> = values.collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = (format!("{lo:.2}"), format!("{hi:.2}"));
    if lo == hi {
        format!("{lo}×")
    } else {
        format!("{lo}–{hi}×")
    }
}

impl PeersRun {
    /// The `peers` block, for the document `doc`.
    pub fn block(&self, doc: &str) -> String {
        let mut versions: Vec<String> = self
            .rows
            .iter()
            .map(|r| format!("{} {}", r.peer_crate, r.peer_version))
            .collect();
        let mut seen = std::collections::HashSet::new();
        versions.retain(|v| seen.insert(v.clone()));
        let mut out = format!(
            "From [`{name}`]({link}), written by `just peers` on {date} at revision {rev} ({wall} wall): {machine}, load average (1, 5, 15 min) {ls} at the start and {le} at the end; {versions} as `Cargo.lock` resolves them. ns per element: the median of {rounds} rounds of {keys} keys, thread CPU time, hashing included; a ratio: the median of the rounds' ratios, ours over the peer's (below 1: ours faster). Error rates over the first {warm} keys of a fresh filter (FPR over new keys, FNR over duplicates).\n\n",
            name = Path::new(PEERS_CSV)
                .strip_prefix("crates/dupstream-filters")
                .map_or(PEERS_CSV.into(), |p| p.display().to_string()),
            link = href(doc, PEERS_CSV),
            date = self.date,
            rev = self.revision,
            wall = secs(Some(self.wall_secs)),
            machine = self.machine,
            ls = self.load_start,
            le = self.load_end,
            versions = versions.join(", "),
            rounds = self.rounds,
            keys = thousands(self.keys_per_round),
            warm = thousands(self.warm_keys),
        );
        out.push_str("| structure | size | peer | batch: ours / peer ns | ratio | per element: ours / peer ns | ratio | FPR ours / peer | FNR ours / peer |\n|---|---|---|---|---|---|---|---|---|\n");
        for r in &self.rows {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.1} / {:.1} | {:.2}× | {:.1} / {:.1} | {:.2}× | {:.4} / {:.4} | {:.4} / {:.4} |",
                r.structure,
                r.size,
                r.peer,
                r.batch_ns.0,
                r.batch_ns.1,
                r.batch_ratio,
                r.step_ns.0,
                r.step_ns.1,
                r.step_ratio,
                r.fpr.0,
                r.fpr.1,
                r.fnr.0,
                r.fnr.1
            );
        }
        let (close, ahead): (Vec<&PeerRow>, Vec<&PeerRow>) = self
            .rows
            .iter()
            .partition(|r| r.batch_ratio >= NOT_AHEAD || r.step_ratio >= NOT_AHEAD);
        out.push('\n');
        if !close.is_empty() {
            let list: Vec<String> = close
                .iter()
                .map(|r| {
                    format!(
                        "{} at {} against {} ({:.2}× batched, {:.2}× per element)",
                        r.structure, r.size, r.peer, r.batch_ratio, r.step_ratio
                    )
                })
                .collect();
            let _ = write!(
                out,
                "Ratios of {NOT_AHEAD} or more (ours not clearly faster): {}. ",
                list.join("; ")
            );
        }
        if ahead.is_empty() {
            let _ = writeln!(out, "No pair has both ratios below {NOT_AHEAD}.");
        } else {
            let _ = writeln!(
                out,
                "{}: batched {}, per element {}.",
                if close.is_empty() {
                    "Ours is faster against every peer"
                } else {
                    "Against every other peer ours is faster"
                },
                span(ahead.iter().map(|r| r.batch_ratio)),
                span(ahead.iter().map(|r| r.step_ratio))
            );
        }
        out
    }

    /// The `peers batch` block: ours batched against per element, a row per structure and
    /// a column group per size.
    pub fn batch_block(&self) -> String {
        let mut structures: Vec<&str> = Vec::new();
        let mut sizes: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !structures.contains(&r.structure.as_str()) {
                structures.push(&r.structure);
            }
            if !sizes.contains(&r.size.as_str()) {
                sizes.push(&r.size);
            }
        }
        let mut out = String::from("| structure |");
        for size in &sizes {
            let _ = write!(out, " {size}: batched / per element ns | ratio |");
        }
        out.push_str("\n|---|");
        out.push_str(&"---|---|".repeat(sizes.len()));
        out.push('\n');
        for structure in structures {
            let _ = write!(out, "| {structure} |");
            for size in &sizes {
                // Ours has one time per structure and size, repeated on each of its peers' rows.
                match self
                    .rows
                    .iter()
                    .find(|r| r.structure == structure && r.size == *size)
                {
                    Some(r) => {
                        let (batch, step) = (r.batch_ns.0, r.step_ns.0);
                        let _ = write!(out, " {batch:.1} / {step:.1} | {:.2}× |", step / batch);
                    }
                    None => out.push_str(" — | — |"),
                }
            }
            out.push('\n');
        }
        out
    }
}

impl Catalogue {
    /// The `peers` block (`arg` empty) or the `peers batch` block, from [`PEERS_CSV`].
    pub(super) fn peers(&self, arg: &str, doc: &str) -> Result<String> {
        let run = read_peers(&self.root)?;
        match arg {
            "" => Ok(run.block(doc)),
            "batch" => Ok(run.batch_block()),
            _ => bail!("unknown generated block `peers {arg}` (known: peers, peers batch)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "structure,size,bits,peer_crate,peer_version,peer,ours_batch_ns,peer_batch_ns,batch_ratio,ours_step_ns,peer_step_ns,step_ratio,ours_fpr,peer_fpr,ours_fnr,peer_fnr,rounds,keys_per_round,warm_keys,machine,load_start,load_end,date,revision,wall_secs\n";
    const RUN_COLS: &str =
        "15,262144,2097152,\"CPU X, 2 cores\",1.00 2.00 3.00,1.50 2.00 3.00,2026-11-28,abc1234,95";

    fn line(structure: &str, peer: &str, ns: &str) -> String {
        format!(
            "{structure},1Mbit,1048576,fastbloom,0.17.0,{peer},{ns},0.380400,0.380500,0.000000,0.000000,{RUN_COLS}\n"
        )
    }

    fn sample() -> String {
        HEADER.to_string()
            + &line(
                "bloom",
                "fastbloom xxh3 pre-hashed",
                "4.9,4.6,1.06,5.7,5.5,1.05",
            )
            + &line("bloom", "fastbloom default", "4.9,10.8,0.46,5.7,10.8,0.53")
    }

    #[test]
    fn a_run_is_read_with_its_provenance() {
        let run = parse_peers(sample().as_bytes(), "p.csv").unwrap();
        assert_eq!(run.rows.len(), 2);
        assert_eq!(run.machine, "CPU X, 2 cores");
        assert_eq!((run.rounds, run.keys_per_round), (15, 262_144));
        assert_eq!(run.rows[0].batch_ns, (4.9, 4.6));
        assert_eq!(run.rows[1].step_ratio, 0.53);
    }

    #[test]
    fn the_blocks_state_the_run_and_every_number_from_it() {
        let run = parse_peers(sample().as_bytes(), "p.csv").unwrap();
        let b = run.block("crates/dupstream-filters/README.md");
        assert!(
            b.starts_with("From [`benches/peers.csv`](benches/peers.csv), written by `just peers` on 2026-11-28 at revision abc1234 (1 min 35 s wall): CPU X, 2 cores, load average (1, 5, 15 min) 1.00 2.00 3.00 at the start and 1.50 2.00 3.00 at the end; fastbloom 0.17.0 as"),
            "{b}"
        );
        assert!(
            b.contains("| bloom | 1Mbit | fastbloom default | 4.9 / 10.8 | 0.46× | 5.7 / 10.8 | 0.53× | 0.3804 / 0.3805 | 0.0000 / 0.0000 |"),
            "{b}"
        );
        assert!(
            b.contains("(ours not clearly faster): bloom at 1Mbit against fastbloom xxh3 pre-hashed (1.06× batched, 1.05× per element). Against every other peer ours is faster: batched 0.46×, per element 0.53×."),
            "{b}"
        );
        // Ours once per structure and size, per element over batched; a size a structure was
        // not run at is a dash.
        assert_eq!(
            run.batch_block(),
            "| structure | 1Mbit: batched / per element ns | ratio |\n|---|---|---|\n| bloom | 4.9 / 5.7 | 1.16× |\n"
        );
        let more = sample()
            + &line("bsbf", "prob-coll xxh3", "20.0,200.0,0.1,50.0,200.0,0.25")
                .replace(",1Mbit,1048576,", ",512MB,4294967296,");
        let run = parse_peers(more.as_bytes(), "p.csv").unwrap();
        assert_eq!(
            run.batch_block().lines().skip(2).collect::<Vec<_>>(),
            [
                "| bloom | 4.9 / 5.7 | 1.16× | — | — |",
                "| bsbf | — | — | 20.0 / 50.0 | 2.50× |"
            ]
        );
    }

    #[test]
    fn a_missing_file_names_itself_and_the_command_that_writes_it() {
        let dir = std::env::temp_dir().join(format!("dupstream-peers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = format!("{:#}", read_peers(&dir).unwrap_err());
        assert!(
            err.contains(PEERS_CSV) && err.contains("just peers"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
        let empty = format!("{:#}", parse_peers(HEADER.as_bytes(), "p.csv").unwrap_err());
        assert!(
            empty.contains("p.csv: no rows") && empty.contains("just peers"),
            "{empty}"
        );
    }

    #[test]
    fn a_malformed_line_names_the_file_line_and_field() {
        let bad = sample().replace("4.9,10.8,0.46", "4.9,fast,0.46");
        let err = format!("{:#}", parse_peers(bad.as_bytes(), "p.csv").unwrap_err());
        assert_eq!(
            err,
            "p.csv: line 3: field `peer_batch_ns`: `fast` is not a number of 0 or more"
        );
        let no_col = sample().replacen("step_ratio", "ratio2", 1);
        let err = format!("{:#}", parse_peers(no_col.as_bytes(), "p.csv").unwrap_err());
        assert_eq!(err, "p.csv: line 1: no column `step_ratio`");
        // Two runs mixed in one file.
        let text = sample();
        let lines: Vec<&str> = text.lines().collect();
        let mixed = format!(
            "{}\n{}\n{}\n",
            lines[0],
            lines[1],
            lines[2].replace("2026-11-28", "2026-11-29")
        );
        let err = format!("{:#}", parse_peers(mixed.as_bytes(), "p.csv").unwrap_err());
        assert_eq!(
            err,
            "p.csv: line 3: field `date`: `2026-11-29` differs from line 2's `2026-11-28` (the file holds one run)"
        );
        let short = sample() + "bloom,1Mbit\n";
        let err = format!("{:#}", parse_peers(short.as_bytes(), "p.csv").unwrap_err());
        assert!(err.starts_with("p.csv: line 4: malformed row"), "{err}");
    }
}
