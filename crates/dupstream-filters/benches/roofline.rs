//! The roofline: every structure beside the limit loop that touches as many cells, in the same
//! process, the same memory size and the same run.
//!
//! The limit loop is what any structure must at least do per element: generate the key, hash it,
//! then test-and-set `L` random bits of an array as large as the structure's budget, prefetched
//! [`PREFETCH_DISTANCE`] elements ahead, where `L` is
//! [`cells_per_element`](dupstream_filters::calibration::cells_per_element) of the structure.
//! A structure that also clears memory in sequence
//! ([`cleared_lines_per_element`](dupstream_filters::calibration::cleared_lines_per_element):
//! the APBF's slice reset) has those lines taken out of `L` and cleared instead by the limit loop
//! as a stream (a memset of as many bytes per element, cycling through a second array of the
//! same size). Both loops see the same stream and hash their keys inside the timed region: a
//! stationary one with a fraction [`DUP_LOW`] (0.5) of duplicates, then again with
//! [`DUP_HIGH`] (0.9), since a structure may do less for a duplicate (the BSBF family inserts
//! only what it reports new) while the limit loop does the same for both. Each ratio is
//! against the limit loop on the same stream. Rounds alternate limit and structure, so a change
//! of machine load hits both; the ratio is the median of the per-round ratios.
//!
//! The limit loop spreads its prefetches, one per cell set, rather than issuing an element's
//! at once.
//!
//! The SBF rows of [`DRAWN`] are measured a second time against a limit loop that draws their
//! `P` decrement cells from the filter generator as they do ([`draw_limit_block`]): the cost of
//! their own work beyond the random cells their specification asks for. That table is printed,
//! not part of the calibration; the full run measures it, and a filtered one when its words
//! select it (`draws`, a size, or the row's name).
//!
//! ```text
//! cargo bench -p dupstream-filters --bench roofline                 # the table
//! cargo bench -p dupstream-filters --bench roofline -- 1mbit sbf    # filters on size / name
//! cargo bench -p dupstream-filters --bench roofline -- draws        # the SBF against the drawing limit
//! just roofline                                                     # table + calibration
//! cargo bench -p dupstream-filters --bench roofline -- --update-kicks crates/dupstream-filters/src/calibration_table.rs
//! ```
//!
//! `--write PATH` also writes the calibration table (`src/calibration_table.rs`): the limit
//! loop's per-element base and per-cell cost at each size, the cost of a cache line cleared in
//! sequence (the filter `lines` shows it alone), the cuckoo filter's relocation for each
//! geometry of [`KICK_GEOMETRIES`] (`kicks`), and every structure's ratio at both duplicate
//! fractions. `--update-kicks PATH` measures the relocations alone (a few minutes) and replaces
//! only those rows of the table at `PATH`, noting it in the table's header.

use dupstream_filters::bits::BitArray;
use dupstream_filters::calibration::{
    DUP_HIGH, DUP_LOW, cells_per_element, cleared_lines_per_element,
};
use dupstream_filters::cuckoo::{
    BYTE_CELLS_MAX, CuckooParams, LINKED_CELLS_MAX, StreamingCuckoo, kicks_per_element,
    saturation_load, small_cells,
};
use dupstream_filters::hash::{DoubleHash, reduce};
use dupstream_filters::parameter_sets::ALL;
use dupstream_filters::rng::{FilterRng, Rng, filter_rng};
use dupstream_filters::spec::FilterSpec;
use dupstream_filters::{DuplicateFilter, PREFETCH_DISTANCE};
use std::fmt::Write as _;
use std::hint::black_box;

#[path = "support/limit.rs"]
mod limit;
mod support;
use limit::{BLOCK, Clear, Stream, limit_block, prefetch_cells, timed};
use support::{Clock, load_average, machine, median};

/// (row, TOML spec): the parameter sets with a roofline row
/// ([`dupstream_filters::parameter_sets::ALL`], which says which and why). The names are the
/// rows of the calibration table (`calibration::row_name` picks one for a spec, `name/variant`
/// rows are its other parameter sets).
fn structures() -> impl Iterator<Item = (&'static str, &'static str)> {
    ALL.iter().filter_map(|s| s.row.map(|row| (row, s.toml)))
}

/// Structures left out above 8 MiB: b_DBF decays a megabyte per element at 512 MB; a
/// buffer's uncharged index would take gigabytes.
const NOT_ABOVE_8MIB: &[&str] = &["bdbf", "lru_buffering", "fp_buffering"];

/// (label, bits): 64 Kbit (in L1: the QHT paper's smallest filters, and most of a
/// `--scale 64` run), 1 Mbit (in L2), 8 MiB (about the last-level cache), 64 MB (beyond it: the
/// sizes `--scale 8` runs Bera et al.'s tables at) and 512 MB (DRAM, their full scale).
const SIZES: &[(&str, u64)] = &[
    ("64Kbit", 1 << 16),
    ("1Mbit", 1 << 20),
    ("8MiB", 8 << 23),
    ("64MB", 64 << 23),
    ("512MB", 512 << 23),
];

/// (label, bits): sizes between the levels where the cuckoo filter's relocation is measured
/// too. Its cost is the latency of a dependent chain, which jumps where the table leaves a
/// cache level (the QHT paper's 8·10^6-bit filter, 1 MB packed, is at the edge of L2);
/// interpolating from 1 Mbit to 8 MiB alone priced that filter at 1.7× its measured time.
/// It also jumps where the host layout changes ([`layout_edges`]).
const KICK_SIZES: &[(&str, u64)] = &[
    ("2Mbit", 1 << 21),
    ("4Mbit", 1 << 22),
    ("8Mbit", 1 << 23),
    ("16Mbit", 1 << 24),
    ("32Mbit", 1 << 25),
];

/// The cuckoo geometries whose relocation is measured, `(b, f, max_num_kicks)`: the QHT
/// paper's (`b = 1`, `f = 3`, Fan et al.'s 500 kicks) and the leaderboard's `b ∈ {1, 4}` ×
/// `f ∈ {6, 12}` at the larger of its kick limits. A kick's cost is the same work whatever the
/// limit (the limit sets how many); a lower limit only spreads the element's own probes over
/// fewer kicks. `calibration::kick_row` prices other geometries by the nearest of these.
const KICK_GEOMETRIES: &[(u32, u32, u32)] = &[
    (1, 3, 500),
    (1, 6, 128),
    (1, 12, 128),
    (4, 6, 128),
    (4, 12, 128),
];

/// (label, bits) where a geometry's host layout changes: the largest linked table
/// ([`LINKED_CELLS_MAX`] cells) and one cell more (stored one per byte), the largest table
/// stored one per byte ([`BYTE_CELLS_MAX`] cells) and one cell more (packed); none for a
/// geometry that is always packed.
fn layout_edges(b: u32, f: u32) -> Vec<(String, u64)> {
    if !small_cells(b, f) {
        return vec![];
    }
    let f64b = u64::from(f);
    let mut edges = vec![];
    for (name, cells) in [("linked", LINKED_CELLS_MAX), ("bytes", BYTE_CELLS_MAX)] {
        edges.push((format!("{name} end"), f64b * cells));
        edges.push((format!("{name} end+"), f64b * (cells + 1)));
    }
    edges
}

/// One relocation measurement: the geometry of [`KICK_GEOMETRIES`], the size in bits, ns per
/// relocation, and the dependent chain's ns at that size (NaN where not measured).
struct KickMeasure {
    geometry: (u32, u32, u32),
    bits: u64,
    ns: f64,
    chain: f64,
}

/// Rounds (limit, structure) per case.
const ROUNDS: usize = 21;
/// Target seconds per timed stretch.
const STRETCH_SECS: f64 = 0.01;
/// Interquartile range of a case's per-round ratios, over their median, above which the case
/// is measured again.
const MAX_SPREAD: f64 = 0.5;
/// How many times a case is measured again at most.
const RETRIES: usize = 2;

/// Cells drawn at random for [`draw_limit_block`]: groups of `per` positions from the filter
/// generator (`reduce(next_u64(), m)`, as the SBF draws its decrements, without its check that
/// a group's cells are distinct), drawn [`DRAW_AHEAD`] elements ahead and prefetched.
struct Draws {
    rng: FilterRng,
    ring: Vec<u64>,
    per: usize,
    head: usize,
}

/// How many elements ahead [`Draws`] are drawn and prefetched (the SBF's `AHEAD`).
const DRAW_AHEAD: usize = 16;

impl Draws {
    fn new(per: usize, m: u64) -> Self {
        let mut rng = filter_rng(1, 0);
        let ring = (0..DRAW_AHEAD * per)
            .map(|_| reduce(rng.next_u64(), m))
            .collect();
        Self {
            rng,
            ring,
            per,
            head: 0,
        }
    }
}

/// The limit loop of a structure that draws `draws.per` of its cells at random rather than
/// from the key's hash: per element, test-and-set `l` double-hashed bits and the `per` drawn
/// ones, and draw the `per` cells of the element [`DRAW_AHEAD`] later in their place,
/// prefetching them. What the SBF must do per element by its specification (`K` probes, `P`
/// random cells), as a plain loop: its ratio to this is its cost beyond that work.
fn draw_limit_block(
    bits: &mut BitArray,
    hashes: &[u64],
    l: u32,
    draws: &mut Draws,
    out: &mut [bool],
) {
    let m = bits.len();
    for &h in hashes.iter().take(PREFETCH_DISTANCE) {
        prefetch_cells(bits, h, l);
    }
    let per = draws.per;
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&ahead) = hashes.get(i + PREFETCH_DISTANCE) {
            prefetch_cells(bits, ahead, l);
        }
        let dh = DoubleHash::new(h);
        let mut dup = true;
        for j in 0..l {
            dup &= bits.set(dh.index(j, m));
        }
        let group = &mut draws.ring[draws.head * per..(draws.head + 1) * per];
        for cell in group.iter_mut() {
            bits.set(*cell);
            *cell = reduce(draws.rng.next_u64(), m);
            bits.prefetch(*cell);
        }
        draws.head = (draws.head + 1) % DRAW_AHEAD;
        out[i] = dup;
    }
}

struct Row {
    name: &'static str,
    size: &'static str,
    /// The stream's duplicate fraction ([`DUP_LOW`] or [`DUP_HIGH`]).
    dup: f64,
    cells: f64,
    /// Of `cells`, cache lines the limit loop clears in sequence.
    cleared: f64,
    ns: f64,
    limit_ns: f64,
    ratio: f64,
    spread: f64,
}

/// What [`measure`] runs: a structure (name, TOML spec) at a size, on a stream with a
/// fraction `dup` of duplicates.
struct Case<'a> {
    name: &'static str,
    toml: &'a str,
    size: (&'static str, u64),
    dup: f64,
    /// Of the structure's cells, how many the limit loop draws at random ([`Draws`]) rather
    /// than from the hash; 0 for the plain limit loop.
    draws: usize,
}

/// One case: warm-up, then `ROUNDS` of (limit, structure).
fn measure(case: &Case, limit: &mut BitArray) -> Option<Row> {
    let &Case {
        name,
        toml,
        size,
        dup,
        draws,
    } = case;
    let spec: FilterSpec = toml::from_str(toml).expect("spec");
    let bits = size.1;
    let mut f = match spec.build(bits, 1) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("skipping {name} at {}: {e}", size.0);
            return None;
        }
    };
    let cells = cells_per_element(&spec, bits);
    let cleared = cleared_lines_per_element(&spec, bits);
    let l = (cells - cleared).round().max(1.0) as u32;
    assert!(
        draws == 0 || cleared == 0.0,
        "{name}: the drawing limit does not clear lines"
    );
    let mut clear = Clear::new(cleared, bits);
    let mut drawn = Draws::new(draws, limit.len());
    let mut run_limit = |h: &[u64], o: &mut [bool]| {
        if draws == 0 {
            limit_block(limit, h, l, &mut clear, o);
        } else {
            draw_limit_block(limit, h, l.saturating_sub(draws as u32), &mut drawn, o);
        }
    };
    // Stationary streams with a fraction `dup` of duplicates at every point of the run.
    let warm = (bits as usize / 4).clamp(1 << 18, 1 << 22);
    let mut stream = Stream::duplicates(dup);
    let mut limit_stream = Stream::duplicates(dup);
    timed(&mut stream, warm, |h, o| f.step_batch(h, o));
    timed(&mut limit_stream, warm.min(1 << 20), &mut run_limit);
    // Size the stretches from a short trial of each.
    let trial = 1 << 14;
    let s_ns = timed(&mut stream, trial, |h, o| f.step_batch(h, o));
    let l_ns = timed(&mut limit_stream, trial, &mut run_limit);
    let n_s = ((STRETCH_SECS * 1e9 / s_ns) as usize).clamp(trial, 1 << 23);
    let n_l = ((STRETCH_SECS * 1e9 / l_ns) as usize).clamp(trial, 1 << 23);
    let (mut ss, mut ls, mut rs) = (vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let a = timed(&mut limit_stream, n_l, &mut run_limit);
        let b = timed(&mut stream, n_s, |h, o| f.step_batch(h, o));
        ls.push(a);
        ss.push(b);
        rs.push(b / a);
    }
    let ratio = median(&mut rs);
    Some(Row {
        name,
        size: size.0,
        dup,
        cells,
        cleared,
        ns: median(&mut ss),
        limit_ns: median(&mut ls),
        ratio,
        spread: (rs[ROUNDS * 3 / 4] - rs[ROUNDS / 4]) / ratio,
    })
}

/// ns per element of the benchmark's own key generation and hashing ([`Stream::fill`], nothing
/// stepped): what [`calibration::step_ns`](dupstream_filters::calibration::step_ns) subtracts
/// to leave a structure's own work.
fn fill_ns() -> f64 {
    let mut stream = Stream::duplicates(DUP_LOW);
    // The keys must be seen as used, or the generation is optimised away.
    let used = |h: &[u64], _: &mut [bool]| {
        black_box(h);
    };
    timed(&mut stream, 1 << 20, used);
    let mut v: Vec<f64> = (0..ROUNDS)
        .map(|_| timed(&mut stream, 1 << 18, used))
        .collect();
    median(&mut v)
}

/// The limit loop at one size: for each `L` the rows ran, the median of their limit timings
/// (b_DBF's sweep and the APBF's clearing are not random cells: left out).
fn level(size: (&'static str, u64), rows: &[Row], line_ns: f64) -> Level {
    let mut by_cells: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for r in rows
        .iter()
        .filter(|r| r.size == size.0 && r.name != "bdbf" && r.cleared == 0.0)
    {
        by_cells
            .entry(r.cells.round().max(1.0) as u64)
            .or_default()
            .push(r.limit_ns);
    }
    // The limit's time may only grow with L: a point below its predecessor (noise between two
    // rows' runs) is raised to it.
    let mut limit: Vec<(f64, f64)> = Vec::new();
    for (cells, mut ns) in by_cells {
        let t = median(&mut ns);
        let floor = limit.last().map_or(0.0, |p| p.1);
        limit.push((cells as f64, t.max(floor)));
    }
    Level {
        memory_bits: size.1,
        limit,
        line_ns,
    }
}

/// A row of the generated `CalibrationLevel` table, before it is rendered.
struct Level {
    memory_bits: u64,
    limit: Vec<(f64, f64)>,
    line_ns: f64,
}

/// ns per cache line the limit loop's [`Clear`] zeroes at `bits` (32 lines per element, over
/// an area of `bits` cycled twice at least): the price of an APBF's slice reset.
fn line_ns(bits: u64) -> f64 {
    let lines = 32.0;
    let mut clear = Clear::new(lines, bits);
    let blocks = ((2 * bits / 512) as f64 / (lines * BLOCK as f64))
        .ceil()
        .max(16.0) as usize;
    let mut v: Vec<f64> = (0..5)
        .map(|_| {
            let start = Clock::now();
            for _ in 0..blocks {
                clear.block();
            }
            black_box(&clear.area);
            start.elapsed_ns() / (blocks as f64 * BLOCK as f64 * lines)
        })
        .collect();
    median(&mut v)
}

/// A dependent chain of random read-modify-writes (the next bit's index depends on the last
/// bit read): the latency floor of a cuckoo relocation. ns per step.
fn chain_ns(limit: &mut BitArray) -> f64 {
    let m = limit.len();
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut run = |steps: usize| {
        let start = Clock::now();
        for _ in 0..steps {
            let bit = limit.set(reduce(x, m));
            x = x
                .wrapping_add(u64::from(bit))
                .wrapping_mul(0x5851_f42d_4c95_7f2d)
                .wrapping_add(0x1405_7b7e_f767_814f);
        }
        black_box(x);
        start.elapsed_ns() / steps as f64
    };
    run(1 << 20);
    let mut v: Vec<f64> = (0..ROUNDS).map(|_| run(1 << 18)).collect();
    median(&mut v)
}

/// A cuckoo filter of geometry `(b, f, max_num_kicks)` ([`KICK_GEOMETRIES`]) saturated at
/// `bits`: ns per relocation (the whole element time over the relocations executed, which
/// dominate; a small table's periodic walks skip some, `StreamingCuckoo::walked_kicks`), kicks
/// per element measured and from [`kicks_per_element`].
///
/// The stream is uniform over 4 keys per entry (`C = n_b·b` entries), warmed over `2·C`
/// elements, or the model's saturation (`−U·ln(1 − S/U)` elements, `S` =
/// [`saturation_load`]`·C`) and a quarter more if that is longer. (Warmed only to the model's
/// saturation, a large `b = 1` table still placed most fingerprints after a few kicks: 1.8
/// kicks per element at 8 MiB, where the element's own probes then made up most of the time
/// per kick.) Then timed over `14·C` elements, at most 2^21 and `2^26 / max_num_kicks` (a few seconds
/// per size at 8 MiB).
fn cuckoo_kicks(&(b, f, max_num_kicks): &(u32, u32, u32), bits: u64) -> (f64, f64, f64) {
    let p = CuckooParams {
        b,
        f,
        max_num_kicks,
        ..Default::default()
    };
    let mut filter = StreamingCuckoo::new(bits, &p, 1).expect("cuckoo");
    let entries = filter.buckets() * u64::from(b);
    let mut stream = Stream::universe(4 * entries);
    let (u, stored) = (stream.u as f64, saturation_load(b) * entries as f64);
    let saturated = -u * (-stored / u).ln_1p();
    let warm = (2 * entries as usize).max((1.25 * saturated) as usize);
    timed(&mut stream, warm.max(BLOCK), |h, o| filter.step_batch(h, o));
    let (k0, w0, e0) = (filter.kicks(), filter.walked_kicks(), stream.next);
    let elements = (entries as usize * 14)
        .min(1 << 21)
        .min((1 << 26) / max_num_kicks as usize)
        .max(BLOCK);
    let ns = timed(&mut stream, elements, |h, o| filter.step_batch(h, o));
    let elements = stream.next - e0;
    let kicks = (filter.kicks() - k0) as f64;
    let walked = (filter.walked_kicks() - w0) as f64;
    let model = kicks_per_element(&p, bits, stream.next, stream.u) * stream.next as f64
        - kicks_per_element(&p, bits, e0, stream.u) * e0 as f64;
    (
        ns * elements as f64 / walked.max(1.0),
        kicks / elements as f64,
        model / elements as f64,
    )
}

/// [`measure`], again if the machine disturbed it: a case whose per-round ratios spread over
/// more than half their median is measured again, up to [`RETRIES`] times; the tightest stays.
fn measure_steady(case: &Case, limit: &mut BitArray) -> Option<Row> {
    let mut best = measure(case, limit);
    for _ in 0..RETRIES {
        match &best {
            Some(r) if r.spread > MAX_SPREAD => {
                eprintln!(
                    "{} at {} ({:.0} % duplicates): ratios spread {:.0} %, measuring again",
                    case.name,
                    case.size.0,
                    case.dup * 100.0,
                    r.spread * 100.0
                );
                if let Some(again) = measure(case, limit)
                    && again.spread < r.spread
                {
                    best = Some(again);
                }
            }
            _ => break,
        }
    }
    best
}

/// The roofline tables in Markdown: ns per element, the limit loop's and the ratio at
/// [`DUP_LOW`] duplicates; then the ratio at [`DUP_LOW`] and [`DUP_HIGH`] side by side.
fn print_table(rows: &[Row]) {
    let find = |name: &str, size: &str, dup: f64| {
        rows.iter()
            .find(|r| r.name == name && r.size == size && r.dup == dup)
    };
    markdown(
        rows,
        |size| format!("{size} ns (limit) ratio"),
        |name, size| {
            find(name, size, DUP_LOW)
                .map(|r| format!("{:.1} ({:.1}) {:.2}×", r.ns, r.limit_ns, r.ratio))
        },
    );
    markdown(
        rows,
        |size| {
            format!(
                "{size} ratio at {:.0} / {:.0} % dup",
                DUP_LOW * 100.0,
                DUP_HIGH * 100.0
            )
        },
        |name, size| {
            let (a, b) = (find(name, size, DUP_LOW)?, find(name, size, DUP_HIGH)?);
            Some(format!("{:.2}× / {:.2}×", a.ratio, b.ratio))
        },
    );
}

/// One Markdown table: a row per structure that ran, a column per size (`header(size)`), each
/// cell `cell(name, size)` or `–`.
fn markdown(
    rows: &[Row],
    header: impl Fn(&str) -> String,
    cell: impl Fn(&str, &str) -> Option<String>,
) {
    let sizes: Vec<String> = SIZES.iter().map(|s| header(s.0)).collect();
    println!("\n| structure | L | {} |", sizes.join(" | "));
    println!("|---|---|{}", "---|".repeat(SIZES.len()));
    for (name, _) in structures() {
        let Some(first) = rows.iter().find(|r| r.name == name) else {
            continue;
        };
        let mut line = format!("| {name} | {:.0} |", first.cells);
        for &(size, _) in SIZES {
            let text = cell(name, size).unwrap_or_else(|| "–".to_string());
            write!(line, " {text} |").expect("string");
        }
        println!("{line}");
    }
}

/// A measured case, one line.
fn print_row(r: &Row) {
    println!(
        "{:<8} {:>6} {:>3.0} % dup  L={:>5.1}{}  {:>9.1} ns  limit {:>7.1} ns  ratio {:>5.2}  (IQR {:>3.0} %)",
        r.name,
        r.size,
        r.dup * 100.0,
        r.cells,
        if r.cleared > 0.0 {
            format!(" ({:.1} lines cleared)", r.cleared)
        } else {
            String::new()
        },
        r.ns,
        r.limit_ns,
        r.ratio,
        r.spread * 100.0
    );
}

/// The SBF rows measured against [`draw_limit_block`] as well: besides their `K` hashed cells,
/// their `P` decrement cells are drawn at random, which the plain limit loop does not do.
const DRAWN: &[&str] = &["sbf", "sbf_qht"];

/// The [`DRAWN`] rows against the limit loop that draws their `P` cells: ns per element (that
/// limit in brackets) and ratio, at [`DUP_LOW`] duplicates.
fn print_drawn(rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    markdown(
        rows,
        |size| format!("{size} ns (drawing limit) ratio"),
        |name, size| {
            rows.iter()
                .find(|r| r.name == name && r.size == size)
                .map(|r| format!("{:.1} ({:.1}) {:.2}×", r.ns, r.limit_ns, r.ratio))
        },
    );
}

fn main() {
    let update_kicks = update_kicks_path();
    let (write, filters) = match update_kicks {
        Some(_) => (None, vec!["kicks".to_string()]),
        None => support::arguments(),
    };
    let wanted = |name: &str, size: &str| {
        filters.is_empty()
            || filters
                .iter()
                .all(|f| name.contains(f.as_str()) || size.to_lowercase() == *f)
    };
    let load_start = load_average();
    let fill = fill_ns();
    println!("key generation and hashing alone: {fill:.2} ns per element");
    let mut rows = vec![];
    let mut drawn_rows = vec![];
    let mut kick_ns = vec![];
    let mut lines_ns = vec![];
    for &size in SIZES {
        let mut limit = BitArray::new("roofline", size.1).expect("limit array");
        if wanted("lines", size.0) {
            let ns = line_ns(size.1);
            println!(
                "cleared line {:>6}  {ns:.2} ns per 64-byte line (memset)",
                size.0
            );
            lines_ns.push(ns);
        }
        if wanted("kicks", size.0) {
            let chain = chain_ns(&mut limit);
            for g in KICK_GEOMETRIES {
                let (kick, measured, model) = if size.1 <= 1 << 26 {
                    cuckoo_kicks(g, size.1)
                } else {
                    // Saturating 64 or 512 MB takes too long: the geometry's 8 MiB ratio to
                    // the chain, scaled.
                    let r = kick_ns
                        .iter()
                        .rev()
                        .find(|k: &&KickMeasure| k.geometry == *g && k.chain.is_finite())
                        .map_or(1.0, |k| k.ns / k.chain);
                    (chain * r, f64::NAN, f64::NAN)
                };
                print_kick(g, size.0, kick, chain, measured, model);
                kick_ns.push(KickMeasure {
                    geometry: *g,
                    bits: size.1,
                    ns: kick,
                    chain,
                });
            }
        }
        for (name, toml) in structures() {
            if !wanted(name, size.0) {
                continue;
            }
            if NOT_ABOVE_8MIB.contains(&name) && size.1 > 1 << 26 {
                continue;
            }
            for dup in [DUP_LOW, DUP_HIGH] {
                let case = Case {
                    name,
                    toml,
                    size,
                    dup,
                    draws: 0,
                };
                if let Some(r) = measure_steady(&case, &mut limit) {
                    print_row(&r);
                    rows.push(r);
                }
            }
        }
        for &name in DRAWN {
            if !wanted(&format!("draws {name}"), size.0) {
                continue;
            }
            let toml = structures().find(|s| s.0 == name).expect("row").1;
            let spec: FilterSpec = toml::from_str(toml).expect("spec");
            let FilterSpec::Sbf(p) = &spec else {
                panic!("{name}: DRAWN rows are SBFs");
            };
            // Of its K + P cells, the P decrement cells are drawn.
            let draws = cells_per_element(&spec, size.1) - f64::from(p.k);
            let case = Case {
                name,
                toml,
                size,
                dup: DUP_LOW,
                draws: draws.round() as usize,
            };
            if let Some(r) = measure_steady(&case, &mut limit) {
                print!("drawn    ");
                print_row(&r);
                drawn_rows.push(r);
            }
        }
    }
    print_table(&rows);
    print_drawn(&drawn_rows);
    for g in KICK_GEOMETRIES {
        let sizes = KICK_SIZES
            .iter()
            .map(|&(label, bits)| (label.to_string(), bits))
            .chain(layout_edges(g.0, g.1));
        for (label, bits) in sizes {
            if wanted("kicks", &label) {
                let (kick, measured, model) = cuckoo_kicks(g, bits);
                print_kick(g, &label, kick, f64::NAN, measured, model);
                kick_ns.push(KickMeasure {
                    geometry: *g,
                    bits,
                    ns: kick,
                    chain: f64::NAN,
                });
            }
        }
    }
    if let Some(path) = update_kicks {
        if let Err(e) = update_kick_rows(&path, &kick_ns) {
            eprintln!("could not update the kick rows of {path}: {e}");
            std::process::exit(1);
        }
        eprintln!("updated the kick rows of {path}");
        return;
    }
    if let Some(path) = write {
        let levels: Vec<Level> = SIZES
            .iter()
            .zip(&lines_ns)
            .map(|(&s, &l)| level(s, &rows, l))
            .collect();
        let header = format!(
            "// Measured on {}; load average (1, 5, 15 min) {load_start} at the start, {} at the end.\n",
            machine(),
            load_average()
        );
        let table = render(&header, &levels, &kick_ns, fill, &rows);
        println!("\n{table}");
        if let Err(e) = support::atomic_write(std::path::Path::new(&path), table.as_bytes()) {
            eprintln!("could not write {path}: {e} (the table is printed above)");
        }
        eprintln!("wrote {path}");
    }
}

/// The calibration table as Rust source (`include!`d by `calibration.rs`).
fn render(
    header: &str,
    levels: &[Level],
    kicks: &[KickMeasure],
    fill: f64,
    rows: &[Row],
) -> String {
    let mut s = String::from(
        "// Generated by `just roofline` (benches/roofline.rs); do not edit by hand.\n",
    );
    s += header;
    s += "\n/// ns per element of the benchmark's key generation and hashing alone (in every figure below).\n";
    writeln!(s, "pub const FILL_NS: f64 = {fill:.2};\n").expect("string");
    s += "/// The limit loop at 64 Kbit, 1 Mbit, 8 MiB, 64 MB and 512 MB: `(L, ns per element)` at each\n/// `L` measured, and `line_ns` per cache line cleared in sequence.\n";
    s += "pub const LEVELS: &[CalibrationLevel] = &[\n";
    for l in levels {
        let points: Vec<String> = l
            .limit
            .iter()
            .map(|(c, ns)| format!("({c:.0}.0, {ns:.2})"))
            .collect();
        writeln!(
            s,
            "    CalibrationLevel {{\n        memory_bits: {},\n        limit: &[{}],\n        line_ns: {:.2},\n    }},",
            l.memory_bits,
            points.join(", "),
            l.line_ns
        )
        .expect("string");
    }
    s += "];\n\n";
    s += &render_kicks(kicks);
    s += "\n/// Each structure's ns per element over the limit loop's with as many cells, at the\n/// sizes of [`LEVELS`], with the cells its benchmarked parameters touch.\n";
    s += "pub const RATIOS: &[RatioRow] = &[\n";
    for (name, toml) in structures() {
        let (Some(low), Some(high)) = (
            size_ratios(rows, name, DUP_LOW),
            size_ratios(rows, name, DUP_HIGH),
        ) else {
            continue; // never built: priced by its nominal cost (calibration::step_ns)
        };
        let spec: FilterSpec = toml::from_str(toml).expect("spec");
        writeln!(
            s,
            "    RatioRow {{ name: \"{name}\", cells: {:.2}, ratio: &[{}], ratio_dup: &[{}] }},",
            cells_per_element(&spec, 1 << 20),
            list(&low),
            list(&high)
        )
        .expect("string");
    }
    s += "];\n";
    s
}

/// A row's ratio at each size of [`SIZES`] at duplicate fraction `dup`; `None` if it was never
/// built. The cuckoo row at 64 Kbit and 1 Mbit is saturated (its time is relocations,
/// `KICK_NS`): the per-element ratio without relocations is taken from 8 MiB, where it is not.
/// A size left out (b_DBF and the buffers above 8 MiB, SWAMP where its window does not fit)
/// takes the ratio of the nearest size measured, the smaller one first.
fn size_ratios(rows: &[Row], name: &str, dup: f64) -> Option<Vec<f64>> {
    let r: Vec<f64> = SIZES
        .iter()
        .map(|&(size, _)| {
            if name == "cuckoo" && (size == "64Kbit" || size == "1Mbit") {
                "8MiB"
            } else {
                size
            }
        })
        .map(|size| {
            rows.iter()
                .find(|r| r.name == name && r.size == size && r.dup == dup)
                .map_or(f64::NAN, |r| r.ratio)
        })
        .collect();
    if r.iter().all(|x| x.is_nan()) {
        return None;
    }
    let fill = |i: usize| {
        let mut order: Vec<usize> = (0..r.len()).collect();
        order.sort_by_key(|&j| (j.abs_diff(i), j > i));
        order
            .iter()
            .map(|&j| r[j])
            .find(|x| !x.is_nan())
            .expect("one size measured")
    };
    Some((0..SIZES.len()).map(fill).collect())
}

/// `1.00, 2.00, …`: numbers to two decimals, comma-separated.
fn list(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:.2}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The calibration table's relocation rows (`KICK_NS`), one per geometry of
/// [`KICK_GEOMETRIES`] measured, sizes increasing.
fn render_kicks(kicks: &[KickMeasure]) -> String {
    let mut s = String::from(
        "/// Per cuckoo geometry (`b`, `f`, and the `max_num_kicks` measured), `(bits, ns per\n/// relocation)`: at the sizes of [`LEVELS`], between 1 Mbit and 8 MiB, and where the host\n/// layout changes.\n",
    );
    s += "pub const KICK_NS: &[KickRow] = &[\n";
    for g in KICK_GEOMETRIES {
        let mut row: Vec<&KickMeasure> = kicks.iter().filter(|k| k.geometry == *g).collect();
        if row.is_empty() {
            continue;
        }
        row.sort_by_key(|k| k.bits);
        let pairs: Vec<String> = row
            .iter()
            .map(|k| format!("({}, {:.2})", k.bits, k.ns))
            .collect();
        writeln!(
            s,
            "    KickRow {{ b: {}, f: {}, max_num_kicks: {}, ns: &[{}] }},",
            g.0,
            g.1,
            g.2,
            pairs.join(", ")
        )
        .expect("string");
    }
    s += "];\n";
    s
}

/// `--update-kicks PATH`: measure only the relocations (`kicks`) and replace the `KICK_NS`
/// rows of the calibration table at `PATH`, keeping its other rows (the lead's full run
/// rewrites all of it with `--write`).
fn update_kicks_path() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == "--update-kicks")?;
    match args.get(at + 1) {
        Some(path) => Some(path.clone()),
        None => {
            eprintln!("--update-kicks needs a path");
            std::process::exit(2);
        }
    }
}

/// Replaces the `KICK_NS` constant of the table at `path` (its doc comment, from the line
/// after the previous item, to its closing `];`) by [`render_kicks`]`(kicks)`, and notes the
/// run in the table's header.
fn update_kick_rows(path: &str, kicks: &[KickMeasure]) -> std::io::Result<()> {
    let old = std::fs::read_to_string(path)?;
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let at = old
        .find("pub const KICK_NS")
        .ok_or_else(|| invalid("no KICK_NS"))?;
    // Back over the doc comment's lines.
    let mut start = at;
    while let Some(line_start) = old[..start.saturating_sub(1)].rfind('\n').map(|i| i + 1) {
        if old[line_start..start].trim_start().starts_with("///") {
            start = line_start;
        } else {
            break;
        }
    }
    let end = old[at..]
        .find("];")
        .map(|i| at + i + 2)
        .ok_or_else(|| invalid("KICK_NS not closed"))?;
    let end = if old[end..].starts_with('\n') {
        end + 1
    } else {
        end
    };
    let note = format!(
        "// Relocations (KICK_NS) measured again alone (`--update-kicks`) on {}; load average {} at the end.\n",
        machine(),
        load_average()
    );
    let mut new = String::new();
    for line in old[..start].lines() {
        if !line.starts_with("// Relocations (KICK_NS) measured again alone") {
            new += line;
            new.push('\n');
        }
    }
    // The note goes after the generated header's lines.
    let header_end = new.find("\n\n").map_or(0, |i| i + 1);
    new.insert_str(header_end, &note);
    new += &render_kicks(kicks);
    new += &old[end..];
    support::atomic_write(std::path::Path::new(path), new.as_bytes())
}

/// A relocation measurement, one line.
fn print_kick(
    &(b, f, max): &(u32, u32, u32),
    label: &str,
    kick: f64,
    chain: f64,
    measured: f64,
    model: f64,
) {
    let chain = if chain.is_finite() {
        format!(
            ", dependent chain {chain:.1} ns (ratio {:.2})",
            kick / chain
        )
    } else {
        String::new()
    };
    println!(
        "cuckoo kick b={b} f={f:<2} max={max:<3} {label:>12}  {kick:.1} ns per relocation{chain}; kicks per element measured {measured:.1}, model {model:.1}"
    );
}
