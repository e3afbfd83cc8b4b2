//! Typed result records: a row of `raw.csv` ([`RawRow`]), a row of `streams.csv`
//! ([`StreamRow`]) and a finished cell's timing ([`CellTiming`]).

use crate::plan::units::format_bits;
use crate::plan::{Cell, Experiment, StreamCase, distinct_target};
use crate::record::Params;
use dupstream_filters::DuplicateFilter;
use dupstream_streams::GroundTruth;
use serde::{Deserialize, Serialize};

/// One row of `raw.csv`: one cell at one checkpoint. Counts are cumulative from the start
/// of the stream; TP/FN are over duplicates, FP/TN over unseen elements.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RawRow {
    /// `experiment`: the experiment's `name`.
    pub experiment: String,
    /// `cell`: the cell's index in the experiment's grid.
    pub cell: usize,
    /// `algorithm`: the structure's registry name (`sbf`, `apbf`, …).
    pub algorithm: String,
    /// `label`: the `[[algorithm]]` label (or one derived from its parameters).
    pub label: String,
    /// The configuration this cell runs: the label plus the parameters its experiment sweeps
    /// under that label, as written (`BSBF k=2`). Charts, `compare` and summaries group by it;
    /// only replicate seeds of one configuration are pooled. Files written before the column
    /// existed read it as empty: [`RawRow::config`] then falls back to the label.
    #[serde(default)]
    pub config: String,
    /// `params`: the structure's resolved parameters.
    pub params: Params,
    /// The swept parameters of the configuration as written in the experiment, unscaled
    /// (`k=2`; empty when nothing is swept under the label).
    #[serde(default)]
    pub swept: Params,
    /// The structure's `K`, when it has one.
    pub k: Option<u64>,
    /// `memory`: the nominal memory size, formatted (`64MB`, `4096 bits`).
    pub memory: String,
    /// `memory_nominal_bits`: the nominal memory size in bits, before `--scale`.
    pub memory_nominal_bits: u64,
    /// `memory_bits_budget`: the bits of state the structure was built within: nominal /
    /// scale, or under `[grid] budget = "held"` the largest state budget whose build holds at
    /// most that.
    pub memory_bits_budget: u64,
    /// `memory_bits_used`: the bits the structure reports it uses (at most the budget).
    pub memory_bits_used: u64,
    /// The heap the structure measurably holds, in bits: the peak so far of the bytes its
    /// build and its batches allocated and did not free, its own value included (the runner's
    /// counting allocator, `plan/heap.rs`). Empty in files written before the column
    /// existed.
    #[serde(default)]
    pub memory_bits_held: Option<u64>,
    /// `scale`: the `--scale` divisor.
    pub scale: u64,
    /// `stream`: the stream's label, as written (before scaling).
    pub stream: String,
    /// `n_nominal`: the stream's declared length before scaling.
    pub n_nominal: u64,
    /// `n`: the stream's length as run.
    pub n: u64,
    /// `distinct_target`: the `distinct_fraction` asked for, when one was.
    pub distinct_target: Option<f64>,
    /// `seed`: the replicate seed (stream, key hash and structure seeds derive from it).
    pub seed: u64,
    /// `position`: the checkpoint, in elements processed.
    pub position: u64,
    /// `tp`: duplicates reported as duplicates (against the since-start truth).
    pub tp: u64,
    /// `fp`: unseen elements reported as duplicates.
    pub fp: u64,
    /// `tn`: unseen elements reported as unseen.
    pub tn: u64,
    /// `fn`: duplicates missed.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// `unseen`: `tn + fp`, the distinct elements so far.
    pub unseen: u64,
    /// `duplicates`: `tp + fn`.
    pub duplicates: u64,
    /// `fpr`: `fp / unseen` (`None` when `unseen` is 0).
    pub fpr: Option<f64>,
    /// `fnr`: `fn / duplicates` (`None` when `duplicates` is 0).
    pub fnr: Option<f64>,
    /// `occupancy_kind`: what `occupancy` measures (`load`, `zero_fraction`, `filled_fraction`).
    pub occupancy_kind: String,
    /// `occupancy`: the structure's occupancy at the checkpoint.
    pub occupancy: f64,
    /// Against the windowed truth (`[metrics] window`, see `SCHEMA.md`). These columns are
    /// appended only when a window is configured (absent fields write no column), so
    /// since-start-only files keep their layout. `w_duplicates`: positions whose previous
    /// occurrence is at most `window` elements earlier; `w_fp`/`w_fn`: wrong verdicts against
    /// those labels; `w_fpr = w_fp / (position − w_duplicates)`, `w_fnr = w_fn / w_duplicates`
    /// (empty when the denominator is zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    /// A time window (`[metrics] window_seconds`, as run): its length in seconds; `window` is
    /// then the stream's mean number of elements per window (its measured mean rate times
    /// the window). Absent for count windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_seconds: Option<f64>,
    /// `w_duplicates`: positions up to `position` labelled duplicate within the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_duplicates: Option<u64>,
    /// `w_fp`: reported, but not seen within the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_fp: Option<u64>,
    /// `w_fn`: seen within the window, not reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_fn: Option<u64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    /// `w_fpr`: `w_fp / (position − w_duplicates)`; `Some(None)` when the denominator is 0,
    /// `None` when the file has no windowed columns.
    pub w_fpr: Option<Option<f64>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    /// `w_fnr`: `w_fn / w_duplicates`, present as `w_fpr` is.
    pub w_fnr: Option<Option<f64>>,
}

/// A column that is present (possibly empty): `Some(value)`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

impl RawRow {
    /// A measured row from a structure's state, the heap it has held at most so far
    /// (`held_bits`) and the cumulative counts `[TN, FP, FN, TP]` at `position` of a stream of
    /// `n` elements.
    pub fn measured(
        exp: &Experiment,
        cell: &Cell,
        filter: &dyn DuplicateFilter,
        held_bits: u64,
        n: u64,
        position: u64,
        counts: [u64; 4],
    ) -> RawRow {
        let case = &exp.streams[cell.stream];
        let [tn, fp, fn_, tp] = counts;
        let unseen = tn + fp;
        let duplicates = tp + fn_;
        let params = Params::of(&filter.params());
        let occ = filter.occupancy();
        RawRow {
            experiment: exp.name.clone(),
            cell: cell.index,
            algorithm: filter.name().to_string(),
            label: cell.label.clone(),
            config: cell.config.clone(),
            swept: Params::new(cell.swept.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
            k: params.k(),
            params,
            memory: format_bits(cell.memory_nominal_bits),
            memory_nominal_bits: cell.memory_nominal_bits,
            memory_bits_budget: cell.budget_bits,
            memory_bits_used: filter.memory_bits(),
            memory_bits_held: Some(held_bits),
            scale: exp.scale,
            stream: case.label(),
            n_nominal: case.nominal.declared_len().unwrap_or(n),
            n,
            distinct_target: distinct_target(&case.nominal),
            seed: case.seed,
            position,
            tp,
            fp,
            tn,
            fn_,
            unseen,
            duplicates,
            fpr: (unseen > 0).then(|| fp as f64 / unseen as f64),
            fnr: (duplicates > 0).then(|| fn_ as f64 / duplicates as f64),
            occupancy_kind: occ.kind.as_str().to_string(),
            occupancy: occ.value,
            window: None,
            window_seconds: None,
            w_duplicates: None,
            w_fp: None,
            w_fn: None,
            w_fpr: None,
            w_fnr: None,
        }
    }

    /// This row scored also against a window of `window` elements, with the cumulative
    /// windowed counts `[TN, FP, FN, TP]`. For a time window, set
    /// [`window_seconds`](Self::window_seconds) too (`window` is then its mean elements).
    pub fn with_window(mut self, window: u64, counts: [u64; 4]) -> RawRow {
        let [tn, fp, fn_, tp] = counts;
        let (unseen, duplicates) = (tn + fp, tp + fn_);
        self.window = Some(window);
        self.w_duplicates = Some(duplicates);
        self.w_fp = Some(fp);
        self.w_fn = Some(fn_);
        self.w_fpr = Some((unseen > 0).then(|| fp as f64 / unseen as f64));
        self.w_fnr = Some((duplicates > 0).then(|| fn_ as f64 / duplicates as f64));
        self
    }

    /// The configuration's name (`config`, or the label in files written before it).
    pub fn config(&self) -> &str {
        if self.config.is_empty() {
            &self.label
        } else {
            &self.config
        }
    }

    /// The structure a configuration belongs to (its Pareto front groups its configurations):
    /// the label when the experiment names one, else the structure's name (a generated label
    /// holds the swept values, `bloom k=1`).
    pub fn structure(&self) -> &str {
        if !self.swept.is_empty() && self.config() == self.label {
            &self.algorithm
        } else {
            &self.label
        }
    }

    /// The last checkpoint of each cell, in cell order.
    pub fn finals(rows: &[RawRow]) -> Vec<&RawRow> {
        let mut last: std::collections::BTreeMap<usize, &RawRow> = Default::default();
        for r in rows {
            let e = last.entry(r.cell).or_insert(r);
            if r.position >= e.position {
                *e = r;
            }
        }
        last.into_values().collect()
    }
}

/// One row of `streams.csv`: a stream's exact statistics.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StreamRow {
    /// `stream_index`: the stream's index in the experiment's grid.
    pub stream_index: usize,
    /// `stream`: the stream's label, as in `raw.csv`.
    pub stream: String,
    /// `seed`: the replicate seed.
    pub seed: u64,
    /// `n`: elements, as run.
    pub n: u64,
    /// `distinct`: distinct keys, as run (exact).
    pub distinct: u64,
    /// `distinct_fraction`: `distinct / n`.
    pub distinct_fraction: f64,
    /// `distinct_target`: the `distinct_fraction` asked for, when one was.
    pub distinct_target: Option<f64>,
    /// `oracle`: how the ground truth was computed (`bitmap`, `hash_set`).
    pub oracle: String,
    /// `gap_sample_rate`: the fraction of keys whose gaps are counted (1 = every key).
    pub gap_sample_rate: f64,
    /// The gap histogram: bucket `j` counts gaps in `[2^j, 2^(j+1))` (written to `gaps.csv`,
    /// in long format).
    #[serde(skip)]
    pub gaps: Vec<u64>,
    /// The seconds its ground truth took to compute (not written to `streams.csv`).
    #[serde(skip)]
    pub truth_secs: f64,
    /// Malformed lines a replay skipped (`bad_lines = "skip"`); 0 for generated streams.
    #[serde(default)]
    pub skipped_lines: u64,
    /// The first skipped lines' numbers, space-separated (empty when none was skipped).
    #[serde(default)]
    pub skipped_first: String,
}

impl StreamRow {
    /// The statistics of stream `index`, labelled in `secs` seconds.
    pub fn new(index: usize, case: &StreamCase, truth: &GroundTruth, secs: f64) -> StreamRow {
        let s = truth.stats();
        StreamRow {
            stream_index: index,
            stream: case.label(),
            seed: case.seed,
            n: s.n,
            distinct: s.distinct,
            distinct_fraction: s.distinct_fraction,
            distinct_target: distinct_target(&case.nominal),
            oracle: s.oracle.as_str().to_string(),
            gap_sample_rate: s.gap_sample_rate,
            gaps: s.gap_histogram.clone(),
            truth_secs: secs,
            skipped_lines: s.skipped_lines,
            skipped_first: s
                .first_skipped_lines
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// The first skipped lines' numbers.
    pub fn first_skipped_lines(&self) -> Vec<u64> {
        self.skipped_first
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect()
    }

    /// The skipped lines as one sentence for stderr, or `None` when nothing was skipped:
    /// `skipped 12 malformed lines, the first at lines 3, 7, 9, 10, 15`.
    pub fn skipped_note(&self) -> Option<String> {
        let n = self.skipped_lines;
        if n == 0 {
            return None;
        }
        let first = self.first_skipped_lines();
        let lines = first
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let at = match (n, first.len()) {
            (1, _) => format!("at line {lines}"),
            (n, k) if n as usize == k => format!("at lines {lines}"),
            (_, 1) => format!("the first at line {lines}"),
            _ => format!("the first at lines {lines}"),
        };
        Some(format!(
            "skipped {n} malformed line{}, {at}",
            if n == 1 { "" } else { "s" }
        ))
    }
}

/// What a finished cell reports besides its rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellTiming {
    /// The cell's index in the experiment's grid.
    pub cell: usize,
    /// The cell's configuration ([`RawRow::config`]).
    pub label: String,
    /// Elements the cell processed.
    pub elements: u64,
    /// The cell's wall time, in seconds.
    pub wall_secs: f64,
    /// The cell's wall time per element, in nanoseconds.
    pub ns_per_element: f64,
    /// The cost model's single-thread estimate of the cell (`plan::cost::cell_secs`), in
    /// seconds; absent from the records of versions that did not write it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_secs: Option<f64>,
    /// Whether an earlier run computed the cell and this one kept it (`--resume`).
    pub resumed: bool,
}

impl CellTiming {
    /// The estimate per element, in nanoseconds.
    pub fn estimated_ns_per_element(&self) -> Option<f64> {
        self.estimated_secs
            .map(|s| s * 1e9 / self.elements.max(1) as f64)
    }
}

/// A `streams.csv` row of a uniform stream, for unit tests.
#[cfg(test)]
pub fn test_stream_row(index: usize) -> StreamRow {
    StreamRow {
        stream_index: index,
        stream: "uniform".into(),
        seed: 1,
        n: 10,
        distinct: 5,
        distinct_fraction: 0.5,
        distinct_target: None,
        oracle: "bitmap".into(),
        gap_sample_rate: 1.0,
        gaps: Vec::new(),
        truth_secs: 0.0,
        skipped_lines: 0,
        skipped_first: String::new(),
    }
}

/// A measured-looking row, for unit tests of the stages above.
#[cfg(test)]
pub fn test_row(label: &str, cell: usize, fpr: f64, fnr: f64) -> RawRow {
    RawRow {
        experiment: "t".into(),
        cell,
        algorithm: label.to_lowercase(),
        label: label.into(),
        config: label.into(),
        params: Params::parse("fps=0.1"),
        swept: Params::default(),
        k: Some(2),
        memory: "1KB".into(),
        memory_nominal_bits: 8192,
        memory_bits_budget: 8192,
        memory_bits_used: 8192,
        memory_bits_held: None,
        scale: 1,
        stream: "uniform".into(),
        n_nominal: 1000,
        n: 1000,
        distinct_target: None,
        seed: 1,
        position: 1000,
        tp: 0,
        fp: 0,
        tn: 0,
        fn_: 0,
        unseen: 600,
        duplicates: 400,
        fpr: Some(fpr),
        fnr: Some(fnr),
        occupancy_kind: "load".into(),
        occupancy: 0.5,
        window: None,
        window_seconds: None,
        w_duplicates: None,
        w_fp: None,
        w_fn: None,
        w_fpr: None,
        w_fnr: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_csv_byte_for_byte() {
        let mut r = test_row("SBF", 3, 0.25, 0.5);
        r.params = Params::parse("max=1;k=2;p=4;fps=-");
        let mut none = r.clone();
        none.k = None;
        none.fpr = None;
        let bytes = crate::record::files::csv_bytes(&[r.clone(), none.clone()]).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.contains(",SBF,SBF,max=1;k=2;p=4;fps=-,,2,1KB,"),
            "{text}"
        );
        assert!(text.contains(",max=1;k=2;p=4;fps=-,,,1KB,"), "{text}");
        let back: Vec<RawRow> = csv::Reader::from_reader(bytes.as_slice())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, vec![r.clone(), none.clone()]);
        assert_eq!(crate::record::files::csv_bytes(&back).unwrap(), bytes);
        // A configuration of a swept label, and a file written before the column: its
        // configuration is its label.
        let mut swept = r.clone();
        swept.config = "SBF k=2".into();
        swept.swept = Params::parse("k=2");
        let bytes2 = crate::record::files::csv_bytes(std::slice::from_ref(&swept)).unwrap();
        let text2 = String::from_utf8(bytes2.clone()).unwrap();
        assert!(
            text2.contains(",SBF,SBF k=2,max=1;k=2;p=4;fps=-,k=2,2,"),
            "{text2}"
        );
        let back: Vec<RawRow> = csv::Reader::from_reader(bytes2.as_slice())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back[0].config(), "SBF k=2");
        let old = text
            .replace("label,config,params,swept,", "label,params,")
            .replace(
                ",SBF,SBF,max=1;k=2;p=4;fps=-,,",
                ",SBF,max=1;k=2;p=4;fps=-,",
            );
        let back: Vec<RawRow> = csv::Reader::from_reader(old.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!((back[0].config(), back[0].structure()), ("SBF", "SBF"));
        assert!(
            !text.contains("w_fp"),
            "no window, no windowed columns: {text}"
        );

        // With a window, the columns come last and round-trip, empty rates included.
        let w = vec![
            r.with_window(50, [5, 1, 2, 3]),
            none.with_window(50, [5, 1, 0, 0]),
        ];
        let bytes = crate::record::files::csv_bytes(&w).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let header = text.lines().next().unwrap();
        assert!(
            header.ends_with(",occupancy,window,w_duplicates,w_fp,w_fn,w_fpr,w_fnr"),
            "{header}"
        );
        assert!(
            text.contains(",50,5,1,2,0.16666666666666666,0.4\n"),
            "{text}"
        );
        assert!(text.contains(",50,0,1,0,0.16666666666666666,\n"), "{text}");
        let back: Vec<RawRow> = csv::Reader::from_reader(bytes.as_slice())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, w);
    }

    #[test]
    fn skipped_lines_read_as_one_sentence() {
        let row = |n: u64, first: &str| StreamRow {
            skipped_lines: n,
            skipped_first: first.into(),
            ..test_stream_row(0)
        };
        assert_eq!(row(0, "").skipped_note(), None);
        assert_eq!(
            row(1, "7").skipped_note().unwrap(),
            "skipped 1 malformed line, at line 7"
        );
        assert_eq!(
            row(3, "2 4 5").skipped_note().unwrap(),
            "skipped 3 malformed lines, at lines 2, 4, 5"
        );
        assert_eq!(
            row(12, "3 7 9 10 15").skipped_note().unwrap(),
            "skipped 12 malformed lines, the first at lines 3, 7, 9, 10, 15"
        );
        assert_eq!(
            row(12, "3 7 9 10 15").first_skipped_lines(),
            [3, 7, 9, 10, 15]
        );
    }
}
