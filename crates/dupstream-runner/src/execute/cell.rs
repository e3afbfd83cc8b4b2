//! One cell: its structure over its stream, scored at each checkpoint against the stream's
//! ground truth.

use crate::execute::Progress;
use crate::execute::cancel::Cancel;
use crate::execute::truth::{Elements, Truths};
use crate::plan::cost::BATCH;
use crate::plan::heap::HeapMeter;
use crate::plan::seeds::{filter_seed, hash_seed};
use crate::plan::units::format_bits;
use crate::plan::{Cell, Experiment};
use crate::record::{CellTiming, RawRow};
use anyhow::{Context, Result, anyhow, bail};
use dupstream_filters::hash::hash_key;
use std::time::Instant;

/// Packs `verdicts` into words, 64 to a word (bit `i % 64` of word `i / 64` is verdict `i`),
/// into `words` (cleared first), for [`tally`].
fn pack(verdicts: &[bool], words: &mut Vec<u64>) {
    words.clear();
    words.extend(verdicts.chunks(64).map(|chunk| {
        chunk
            .iter()
            .enumerate()
            .fold(0u64, |v, (i, &b)| v | (u64::from(b) << i))
    }));
}

/// Adds the confusion counts of `n` verdicts of elements `pos..`, packed by [`pack`] into
/// `verdicts`, against `labels` (bit `p % 64` of word `p / 64` is element `p`'s truth,
/// 1 = duplicate) to `counts`, indexed `truth << 1 | verdict` (0 = TN, 1 = FP, 2 = FN, 3 = TP).
/// Word by word: the 64 labels a verdict word faces shifted into a word, and four population
/// counts.
fn tally(labels: &[u64], pos: u64, verdicts: &[u64], n: usize, counts: &mut [u64; 4]) {
    for (c, &v) in verdicts.iter().enumerate() {
        let p = pos + 64 * c as u64;
        let n = (n - 64 * c).min(64) as u32;
        let (w, off) = ((p >> 6) as usize, (p & 63) as u32);
        let mut t = labels[w] >> off;
        if off > 0 && off + n > 64 {
            t |= labels[w + 1] << (64 - off);
        }
        let live = u64::MAX >> (64 - n);
        t &= live;
        let tp = u64::from((v & t).count_ones());
        let fp = u64::from((v & !t).count_ones());
        let fneg = u64::from((!v & t).count_ones());
        counts[3] += tp;
        counts[1] += fp;
        counts[2] += fneg;
        counts[0] += u64::from(n) - tp - fp - fneg;
    }
}

/// Runs one cell over its stream, scoring against the shared ground truth (and the windowed
/// one, when configured). Stops with [`Interrupted`](crate::execute::cancel::Interrupted)
/// once `cancel` is set (checked once per batch).
pub fn run(
    exp: &Experiment,
    cell: &Cell,
    truths: &Truths,
    progress: &Progress,
    cancel: &Cancel,
) -> Result<(Vec<RawRow>, CellTiming)> {
    let case = &exp.streams[cell.stream];
    let start = Instant::now();
    // The structure's own allocations only (its build and its batches, on this thread) are
    // counted: what it holds, checked after each batch (`plan/heap.rs`).
    let (mut filter, mut heap) = HeapMeter::build(|| {
        cell.filter
            .build(cell.budget_bits, filter_seed(case.seed, cell))
    })
    .map_err(|e| anyhow!(e))
    .with_context(|| format!("building {} at {} bits", cell.config, cell.budget_bits))?;
    let truth = &truths.since_start;
    let n = truth.len();
    let labels = truth.label_words();
    let window = truths.window.as_ref().map(|(w, t)| (*w, t.label_words()));
    let hseed = hash_seed(case.seed);
    // A timestamped stream's times go to every structure (those without a clock ignore them).
    let mut stream = Elements::open(case, truths.held.as_ref())
        .with_context(|| format!("opening stream {}", case.spec.describe()))?;
    let timed = stream.timed();
    let mut times = vec![0f64; if timed { BATCH } else { 0 }];
    let mut keys = vec![0u64; BATCH];
    let mut hashes = vec![0u64; BATCH];
    let mut verdicts = vec![false; BATCH];
    let mut packed = Vec::with_capacity(BATCH.div_ceil(64));
    // counts[truth << 1 | verdict]: 0 = TN, 1 = FP, 2 = FN, 3 = TP.
    let mut counts = [0u64; 4];
    let mut w_counts = [0u64; 4];
    let mut pos = 0u64;
    let stops = exp.checkpoints(n);
    let mut rows = Vec::with_capacity(stops.len());
    let bar = progress.cell_bar(&cell.config, &format_bits(cell.memory_nominal_bits), n);
    for &stop in &stops {
        while pos < stop {
            if let Err(stopped) = cancel.check() {
                bar.finish_and_clear();
                return Err(stopped.into());
            }
            let want = ((stop - pos) as usize).min(BATCH);
            let timed_want = want.min(times.len());
            let (ks, ts) = stream.next(&mut keys[..want], &mut times[..timed_want])?;
            let got = ks.len();
            if got == 0 {
                bail!(
                    "stream {} ended at {pos} elements, but its ground truth has {n}",
                    case.spec.describe()
                );
            }
            for (h, &k) in hashes[..got].iter_mut().zip(ks) {
                *h = hash_key(k, hseed);
            }
            heap.step(|| {
                if timed {
                    filter.step_batch_at(&hashes[..got], ts, &mut verdicts[..got]);
                } else {
                    filter.step_batch(&hashes[..got], &mut verdicts[..got]);
                }
            });
            heap.check();
            // Packed once, scored against each truth.
            pack(&verdicts[..got], &mut packed);
            tally(labels, pos, &packed, got, &mut counts);
            if let Some((_, wl)) = window {
                tally(wl, pos, &packed, got, &mut w_counts);
            }
            pos += got as u64;
            bar.inc(got as u64);
            progress.inc(got as u64);
        }
        let held = heap.peak_bits();
        let row = RawRow::measured(exp, cell, filter.as_ref(), held, n, pos, counts);
        rows.push(match window {
            Some((w, _)) => RawRow {
                window_seconds: exp.window_seconds,
                ..row.with_window(w, w_counts)
            },
            None => row,
        });
    }
    bar.finish_and_clear();
    let wall = start.elapsed().as_secs_f64();
    let timing = CellTiming {
        cell: cell.index,
        label: cell.config.clone(),
        elements: n,
        wall_secs: wall,
        ns_per_element: wall * 1e9 / n.max(1) as f64,
        // The wall time above stops before the cell's rows and record are written, which its
        // fixed part prices: compared with its work alone.
        estimated_secs: Some(crate::plan::cost::cell_work_secs(exp, cell)),
        resumed: false,
    };
    Ok((rows, timing))
}

#[cfg(test)]
mod tests {
    use super::{pack, tally};
    use crate::execute::{Cancel, Progress, truth};
    use crate::plan::{Registry, cost};
    use dupstream_filters::hash::mix64;
    use std::path::Path;

    /// A cell reading its stream from the keys held in memory gives the rows it gives reading
    /// the stream itself, for the held kinds: Zipf, with and without arrival times (for a time
    /// window, the times go to the structures that keep time), and replays of a log with an
    /// offset, a limit, a malformed line skipped and the log's own times.
    #[test]
    fn held_keys_give_the_rows_of_the_stream_itself() {
        let zipf = "kind = \"zipf\"\nn = 20000\nuniverse = 3000\ns = 1.1\nseed = 3";
        // Two logs: one with a malformed line (skipped), one without (a log's own times need
        // every line).
        let tmp = std::env::temp_dir();
        let logs = ["bad", "clean"]
            .map(|k| tmp.join(format!("dupstream-held-{k}-{}.tsv", std::process::id())));
        for (log, bad) in logs.iter().zip([true, false]) {
            let mut text = String::from("url\ttime\n");
            for i in 0..6000u64 {
                text += &format!("/page/{}\t{}\n", mix64(i) % 900, i / 10);
                if bad && i == 2500 {
                    text += "a line without its time\n";
                }
            }
            std::fs::write(log, text).unwrap();
        }
        let replay = |log: &std::path::Path, bad_lines: &str| {
            format!(
                "kind = \"replay\"\npath = {:?}\nformat = \"tsv\"\nheader = true\ncolumn = \"url\"\nbad_lines = \"{bad_lines}\"\noffset = 100\nlimit = 5000",
                log.display().to_string()
            )
        };
        let cases = [
            (zipf.to_string(), "window = 500", "window = 500"),
            (
                format!("{zipf}\ntime = {{ process = \"poisson\", rate = 100.0 }}"),
                "window_seconds = 5.0",
                "window_seconds = 5.0\nrate = 100.0",
            ),
            (replay(&logs[0], "skip"), "window = 500", "window = 500"),
            (
                format!(
                    "{}\ntime = {{ process = \"log\", column = \"time\" }}",
                    replay(&logs[1], "fail")
                ),
                "window_seconds = 50.0",
                "window_seconds = 50.0\nrate = 10.0",
            ),
        ];
        for (stream, window, tbf) in cases {
            let text = format!(
                "name = \"held\"\ndescription = \"held keys\"\n[stream]\n{stream}\n[grid]\nmemory = [\"4KB\"]\n[[algorithm]]\nname = \"sbf\"\nfps = 0.1\n[[algorithm]]\nname = \"timing_bloom\"\n{tbf}\n[metrics]\ncheckpoints = 3\n{window}\n"
            );
            let exp =
                crate::plan::parse_with(Path::new("held.toml"), &text, None, &Registry::builtin())
                    .unwrap_or_else(|e| panic!("{e}"));
            assert!(cost::holds_keys(&exp, 0), "{stream}");
            let (progress, cancel) = (Progress::new(0, true), Cancel::new());
            let (mut truths, _) = truth::label(&exp, 0, true, &progress, &cancel).unwrap();
            assert!(truths.held.is_some());
            let held: Vec<_> = exp
                .cells
                .iter()
                .map(|c| super::run(&exp, c, &truths, &progress, &cancel).unwrap().0)
                .collect();
            truths.held = None;
            let read: Vec<_> = exp
                .cells
                .iter()
                .map(|c| super::run(&exp, c, &truths, &progress, &cancel).unwrap().0)
                .collect();
            assert_eq!(held, read, "{stream}");
            assert!(held.iter().flatten().any(|r| r.fp + r.tp > 0));
        }
        for log in &logs {
            let _ = std::fs::remove_file(log);
        }
    }

    /// Word-wise counting equals counting element by element, at every offset and length
    /// (chunks that start mid-word, end mid-word, and span two label words).
    #[test]
    fn tally_equals_per_element_counting() {
        let labels: Vec<u64> = (0..8u64).map(|i| mix64(i ^ 0xab)).collect();
        for pos in [0u64, 1, 5, 63, 64, 65, 100, 127] {
            for len in [0usize, 1, 2, 63, 64, 65, 130, 300] {
                if pos as usize + len > labels.len() * 64 {
                    continue;
                }
                let verdicts: Vec<bool> = (0..len as u64)
                    .map(|i| mix64(i * 7 + pos) & 1 == 1)
                    .collect();
                let mut fast = [0u64; 4];
                let mut packed = Vec::new();
                pack(&verdicts, &mut packed);
                tally(&labels, pos, &packed, verdicts.len(), &mut fast);
                let mut slow = [0u64; 4];
                for (i, &v) in verdicts.iter().enumerate() {
                    let p = pos + i as u64;
                    let t = (labels[(p >> 6) as usize] >> (p & 63)) & 1;
                    slow[((t << 1) | u64::from(v)) as usize] += 1;
                }
                assert_eq!(fast, slow, "pos {pos}, len {len}");
            }
        }
    }
}
