//! The tidy columns of the result files (`SCHEMA.md`): one column per structure parameter
//! (`param_<name>`, blank where the structure has no such parameter), the numeric memory and
//! bits per distinct element beside `raw.csv`'s own columns; `cells.csv`, one row per cell
//! with its timing; and `gaps.csv`, the streams' gap histograms in long format.
//!
//! The parameter columns depend on the structures of the experiment: they are the parameter
//! names of all rows, in order of first appearance (rows in cell order), so the same rows give
//! the same columns, byte for byte, whatever the thread count or the shards.

use crate::record::{CellTiming, Params, RawRow, StreamRow};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The prefix of the parameter columns.
pub const PARAM_PREFIX: &str = "param_";

/// The columns `raw.csv` appends to a [`RawRow`]'s own (before the parameter columns).
#[derive(Debug, Clone, Serialize)]
struct RawExtra {
    memory_bits: u64,
    bits_per_distinct: Option<f64>,
    stream_kind: String,
    stream_params: String,
}

impl RawRow {
    /// The memory the structure holds as run, in bits (`memory_bits_used`).
    pub fn memory_bits(&self) -> u64 {
        self.memory_bits_used
    }

    /// Bits of memory per distinct element seen so far (`memory_bits_used / unseen`: every
    /// unseen element is a first occurrence); `None` before any.
    pub fn bits_per_distinct(&self) -> Option<f64> {
        (self.unseen > 0).then(|| self.memory_bits_used as f64 / self.unseen as f64)
    }

    /// The stream's kind (`shuffled`), the first word of its label.
    pub fn stream_kind(&self) -> &str {
        self.stream.split(' ').next().unwrap_or("")
    }

    /// The stream's parameters as `name=value;…` (its label without the kind).
    pub fn stream_params(&self) -> String {
        self.stream.split(' ').skip(1).collect::<Vec<_>>().join(";")
    }

    fn extra(&self) -> RawExtra {
        RawExtra {
            memory_bits: self.memory_bits(),
            bits_per_distinct: self.bits_per_distinct(),
            stream_kind: self.stream_kind().to_string(),
            stream_params: self.stream_params(),
        }
    }
}

/// `raw.csv` (and `derived.csv`): every [`RawRow`] column, then `memory_bits`,
/// `bits_per_distinct`, `stream_kind`, `stream_params` and one `param_<name>` column per
/// structure parameter.
pub fn raw_csv_bytes(rows: &[RawRow]) -> Result<Vec<u8>> {
    let with: Vec<(&RawRow, RawExtra)> = rows.iter().map(|r| (r, r.extra())).collect();
    csv_with_params(&with, |(r, _)| &r.params)
}

/// One row of `cells.csv`: a cell at its last checkpoint, with its timing. Not byte-stable:
/// the times differ from run to run, which is why they are not in `raw.csv`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CellRow {
    /// `experiment`, as in `raw.csv`.
    pub experiment: String,
    /// `cell`, as in `raw.csv`.
    pub cell: usize,
    /// `algorithm`, as in `raw.csv`.
    pub algorithm: String,
    /// `label`, as in `raw.csv`.
    pub label: String,
    /// The configuration (see [`RawRow::config`]).
    #[serde(default)]
    pub config: String,
    /// `params`, as in `raw.csv`.
    pub params: Params,
    /// The swept parameters as written (see [`RawRow::swept`]).
    #[serde(default)]
    pub swept: Params,
    /// `k`, as in `raw.csv`.
    pub k: Option<u64>,
    /// `memory`, as in `raw.csv`.
    pub memory: String,
    /// `memory_nominal_bits`, as in `raw.csv`.
    pub memory_nominal_bits: u64,
    /// `memory_bits`: the bits the structure reports it uses (`raw.csv`'s `memory_bits_used`).
    pub memory_bits: u64,
    /// The heap the structure held at most, in bits (see [`RawRow::memory_bits_held`]; empty
    /// for cells computed before it was measured).
    #[serde(default)]
    pub memory_bits_held: Option<u64>,
    /// `bits_per_distinct`: `memory_bits` per distinct element of the stream (`None` when it has none).
    pub bits_per_distinct: Option<f64>,
    /// `scale`, as in `raw.csv`.
    pub scale: u64,
    /// `stream`, as in `raw.csv`.
    pub stream: String,
    /// `n`, as in `raw.csv`.
    pub n: u64,
    /// `seed`, as in `raw.csv`.
    pub seed: u64,
    /// `position`: the last checkpoint.
    pub position: u64,
    /// `fpr` at the last checkpoint.
    pub fpr: Option<f64>,
    /// `fnr` at the last checkpoint.
    pub fnr: Option<f64>,
    /// The cell's wall time per element, in nanoseconds.
    pub ns_per_element: f64,
    /// The cell's wall time, in seconds (a resumed cell keeps the time of the run that computed it).
    pub wall_secs: f64,
    /// The cost model's single-thread estimate per element (empty when the cell's record has
    /// none).
    pub estimated_ns_per_element: Option<f64>,
}

/// The rows of `cells.csv`: each measured cell's last row with its timing (cells without a
/// timing are left out).
pub fn cell_rows(rows: &[RawRow], timings: &[CellTiming]) -> Vec<CellRow> {
    RawRow::finals(rows)
        .into_iter()
        .filter_map(|r| {
            let t = timings.iter().find(|t| t.cell == r.cell)?;
            Some(CellRow {
                experiment: r.experiment.clone(),
                cell: r.cell,
                algorithm: r.algorithm.clone(),
                label: r.label.clone(),
                config: r.config().to_string(),
                params: r.params.clone(),
                swept: r.swept.clone(),
                k: r.k,
                memory: r.memory.clone(),
                memory_nominal_bits: r.memory_nominal_bits,
                memory_bits: r.memory_bits(),
                memory_bits_held: r.memory_bits_held,
                bits_per_distinct: r.bits_per_distinct(),
                scale: r.scale,
                stream: r.stream.clone(),
                n: r.n,
                seed: r.seed,
                position: r.position,
                fpr: r.fpr,
                fnr: r.fnr,
                ns_per_element: t.ns_per_element,
                wall_secs: t.wall_secs,
                estimated_ns_per_element: t.estimated_ns_per_element(),
            })
        })
        .collect()
}

/// `cells.csv`: [`CellRow`] columns, then one `param_<name>` column per structure parameter.
pub fn cells_csv_bytes(rows: &[CellRow]) -> Result<Vec<u8>> {
    csv_with_params(rows, |r| &r.params)
}

/// One row of `gaps.csv`: one bucket of a stream's gap histogram.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GapRow {
    /// `stream_index`, as in `streams.csv`.
    pub stream_index: usize,
    /// `stream`, as in `streams.csv`.
    pub stream: String,
    /// `seed`, as in `streams.csv`.
    pub seed: u64,
    /// The bucket holds gaps `gap_min ..= gap_max` (`2^j .. 2^(j+1) − 1`).
    pub gap_min: u64,
    /// The bucket's largest gap.
    pub gap_max: u64,
    /// Gaps in the bucket, over the sampled keys.
    pub count: u64,
    /// The fraction of keys whose gaps are counted (`streams.csv`'s `gap_sample_rate`).
    pub sample_rate: f64,
}

/// The non-empty buckets of every stream's gap histogram, stream by stream.
pub fn gap_rows(streams: &[StreamRow]) -> Vec<GapRow> {
    let mut out = Vec::new();
    for s in streams {
        for (j, &count) in s.gaps.iter().enumerate() {
            if count == 0 || j >= 64 {
                continue;
            }
            out.push(GapRow {
                stream_index: s.stream_index,
                stream: s.stream.clone(),
                seed: s.seed,
                gap_min: 1u64 << j,
                gap_max: ((1u128 << (j + 1)) - 1).min(u64::MAX as u128) as u64,
                count,
                sample_rate: s.gap_sample_rate,
            });
        }
    }
    out
}

/// Puts the gap histograms of `gaps.csv` back into the stream rows they belong to.
pub fn attach_gaps(streams: &mut [StreamRow], gaps: &[GapRow]) -> Result<()> {
    for g in gaps {
        let s = streams
            .iter_mut()
            .find(|s| s.stream_index == g.stream_index)
            .with_context(|| {
                format!(
                    "gaps.csv names stream {}, which streams.csv lacks",
                    g.stream_index
                )
            })?;
        let j = g.gap_min.trailing_zeros() as usize;
        if s.gaps.len() <= j {
            s.gaps.resize(j + 1, 0);
        }
        s.gaps[j] = g.count;
    }
    Ok(())
}

/// The parameter names of some rows, in order of first appearance.
fn param_names<'a>(params: impl Iterator<Item = &'a Params>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in params {
        for (n, _) in p.iter() {
            if !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
    }
    names
}

/// A parameter's cell: its value, blank when the structure has no such parameter or leaves it
/// unset (`-` in the `params` column).
fn param_cell(value: Option<&str>) -> String {
    match value {
        Some("-") | None => String::new(),
        Some(v) => v.to_string(),
    }
}

/// CSV of `rows` (their own columns, header from their field names) followed by one
/// `param_<name>` column per parameter of any row.
fn csv_with_params<T: Serialize>(rows: &[T], params: impl Fn(&T) -> &Params) -> Result<Vec<u8>> {
    let names = param_names(rows.iter().map(&params));
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    if let Some(first) = rows.first() {
        let mut header: Vec<String> = header_of(first)?.iter().map(str::to_string).collect();
        header.extend(names.iter().map(|n| format!("{PARAM_PREFIX}{n}")));
        w.write_record(&header)?;
    }
    for r in rows {
        let p = params(r);
        let cells: Vec<String> = names.iter().map(|n| param_cell(p.get(n))).collect();
        w.serialize((r, cells))?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))
}

/// The header a row's type writes (its field names, skipped fields left out).
fn header_of<T: Serialize>(row: &T) -> Result<csv::StringRecord> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.serialize(row)?;
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))?;
    Ok(csv::Reader::from_reader(bytes.as_slice())
        .headers()?
        .clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::rows::test_row;

    #[test]
    fn parameters_get_a_column_each_blank_where_absent() {
        let mut a = test_row("SBF", 0, 0.1, 0.2);
        a.params = Params::parse("max=1;k=2;fps=-");
        let mut b = test_row("QHT", 1, 0.1, 0.2);
        b.params = Params::parse("k=1;s=2");
        b.unseen = 0;
        let bytes = raw_csv_bytes(&[a.clone(), b.clone()]).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert!(
            header.ends_with(
                ",occupancy,memory_bits,bits_per_distinct,stream_kind,stream_params,param_max,param_k,param_fps,param_s"
            ),
            "{header}"
        );
        assert!(
            lines
                .next()
                .unwrap()
                .ends_with(",8192,13.653333333333334,uniform,,1,2,,")
        );
        assert!(lines.next().unwrap().ends_with(",8192,,uniform,,,1,,2"));
        // The old columns are the bytes `csv_bytes` writes, and the rows read back.
        let old =
            String::from_utf8(crate::record::files::csv_bytes(&[a.clone(), b.clone()]).unwrap())
                .unwrap();
        for (new, old) in text.lines().zip(old.lines()) {
            assert!(new.starts_with(old), "{new}\n{old}");
        }
        let back: Vec<RawRow> = crate::record::rows_from(&bytes).unwrap();
        assert_eq!(back, vec![a, b]);
        assert!(raw_csv_bytes(&[]).unwrap().is_empty());
    }

    #[test]
    fn cells_take_the_last_row_and_the_timing() {
        let mut first = test_row("SBF", 0, 0.5, 0.5);
        first.position = 500;
        let last = test_row("SBF", 0, 0.1, 0.2);
        let untimed = test_row("derived", 1, 0.1, 0.2);
        let t = CellTiming {
            cell: 0,
            label: "SBF".into(),
            elements: 1000,
            wall_secs: 2.0,
            ns_per_element: 2e6,
            estimated_secs: Some(1.0),
            resumed: false,
        };
        let rows = cell_rows(&[first, last, untimed], &[t]);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].position, rows[0].fpr), (1000, Some(0.1)));
        assert_eq!(rows[0].ns_per_element, 2e6);
        assert_eq!(rows[0].estimated_ns_per_element, Some(1e6));
        let text = String::from_utf8(cells_csv_bytes(&rows).unwrap()).unwrap();
        assert!(
            text.lines()
                .next()
                .unwrap()
                .ends_with(",wall_secs,estimated_ns_per_element,param_fps"),
            "{text}"
        );
    }

    #[test]
    fn gap_histograms_round_trip_in_long_format() {
        let row = |i: usize, gaps: Vec<u64>| StreamRow {
            gaps,
            ..crate::record::rows::test_stream_row(i)
        };
        let streams = vec![row(0, vec![3, 0, 2]), row(1, vec![0, 1])];
        let gaps = gap_rows(&streams);
        let spans: Vec<(u64, u64, u64)> = gaps
            .iter()
            .map(|g| (g.gap_min, g.gap_max, g.count))
            .collect();
        assert_eq!(spans, vec![(1, 1, 3), (4, 7, 2), (2, 3, 1)]);
        let mut back = vec![row(0, vec![]), row(1, vec![])];
        attach_gaps(&mut back, &gaps).unwrap();
        assert_eq!(back[0].gaps, vec![3, 0, 2]);
        assert_eq!(back[1].gaps, vec![0, 1]);
        assert!(attach_gaps(&mut back[..1], &gaps).is_err());
    }
}
