//! Parameter sets of every registered structure, as an experiment file's `[[algorithm]]` table
//! writes them: the one list that the registry-wide tests (`tests/registry.rs`: every set),
//! the params fixture (`tests/params.rs`: every set, beside the experiment files' own), the
//! roofline benchmark (`benches/roofline.rs`: the sets with a [`row`](ParameterSet::row)) and
//! the runner's NASA replay test (the sets marked [`replay`](ParameterSet::replay), its golden
//! file) read.
//!
//! Adding a structure: add at least one set here (the registry-wide tests fail until every
//! registered name has one). Changing a set that has a `row` changes what the calibration
//! measured (`just roofline` regenerates it); changing or adding a `replay` set changes the
//! NASA replay's golden file (`just golden`).
//!
//! ```
//! use dupstream_filters::parameter_sets::ALL;
//! assert!(ALL.iter().any(|s| s.row == Some("bloom")));
//! ```

/// One parameter set of [`ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParameterSet {
    /// The `[[algorithm]]` table's keys as TOML: `name = "…"` and the structure's parameters
    /// (no `label` or `memory`).
    pub toml: &'static str,
    /// The row of the calibration table ([`crate::calibration::RATIOS`]) under which the
    /// roofline benchmark measures this set; `None` if it does not run it.
    pub row: Option<&'static str>,
    /// Whether the runner's NASA replay test runs this set.
    pub replay: bool,
    /// The replay's `label` for this set (`None`: the runner's default label).
    pub label: Option<&'static str>,
}

impl ParameterSet {
    const fn new(toml: &'static str) -> Self {
        Self {
            toml,
            row: None,
            replay: false,
            label: None,
        }
    }

    const fn in_roofline(self, row: &'static str) -> Self {
        Self {
            row: Some(row),
            ..self
        }
    }

    const fn in_replay(self) -> Self {
        Self {
            replay: true,
            ..self
        }
    }

    const fn labelled(self, label: &'static str) -> Self {
        Self {
            label: Some(label),
            ..self
        }
    }
}

const fn set(toml: &'static str) -> ParameterSet {
    ParameterSet::new(toml)
}

/// Every parameter set, grouped by structure. The replay runs its sets in this order. The
/// roofline's rows: every structure at `k = 2` where `k` applies; the SBF variants the
/// catalogue runs (the QHT paper's, `P` from Eq. 17 with 2-bit cells; Deng & Rafiei's adjacent
/// decrements, 1- and 2-bit cells); the BSBF family and RSBF at a second `k` (`name/k4`: their
/// work per `k` exceeds the limit loop's per cell, and the calibration interpolates between the
/// two); the leaderboard's window structures and buffers. The sets that are neither replayed
/// nor benchmarked render each optional and enumerated parameter in its other forms, and
/// cover the structures the other two do not.
pub const ALL: &[ParameterSet] = &[
    set(r#"name = "exact""#).in_replay(),
    set("name = \"bloom\"\nk = 2")
        .in_roofline("bloom")
        .in_replay(),
    set(r#"name = "bloom""#),
    set("name = \"bloom\"\nn = 100000"),
    set("name = \"bloom\"\nk = 3\nn = 7"),
    set("name = \"sbf\"\nmax = 1\nk = 2\np = 4")
        .in_roofline("sbf")
        .in_replay(),
    set("name = \"sbf\"\nmax = 3\nk = 2\nfps = 0.1\ndecrement = \"adjacent\"")
        .in_replay()
        .labelled("sbf max=3 adjacent"),
    set("name = \"sbf\"\nmax = 3\nk = 2\nfps = 0.02").in_roofline("sbf_qht"),
    set("name = \"sbf\"\nmax = 1\nk = 2\np = 4\ndecrement = \"adjacent\"")
        .in_roofline("sbf_adjacent"),
    set("name = \"sbf\"\nmax = 3\nk = 4\nfps = 0.005\ndecrement = \"adjacent\"")
        .in_roofline("sbf_adjacent_max3"),
    set("name = \"sbf\"\nmax = 3\nk = 3\np = 9\np_rounding = \"ceil\""),
    set("name = \"sbf\"\nmax = 1\nk = 2\nfps = 0.1\np_rounding = \"ceil\""),
    set(r#"name = "lru_buffering""#).in_replay(),
    set("name = \"lru_buffering\"\nentry_bits = 64").in_roofline("lru_buffering"),
    set("name = \"fp_buffering\"\nq = 0.1")
        .in_roofline("fp_buffering")
        .in_replay(),
    set("name = \"fp_buffering\"\nq = 0.1\nentry_bits = 32"),
    set("name = \"fp_buffering\"\nq = 0.0\nentry_bits = 32"),
    set("name = \"fpsbf\"\nc = 2\nf = 4\nk = 2\nxi = 1.0\nfps = 0.1")
        .in_roofline("fpsbf")
        .in_replay(),
    set("name = \"fpsbf\"\nc = 2\nf = 4\nk = 2\nxi = 0.5\nl = 1000\nfingerprint_update = \"xor\""),
    set(r#"name = "a2""#).in_replay(),
    set("name = \"a2\"\nfpr = 0.1").in_roofline("a2"),
    set(r#"name = "bdbf""#).in_replay(),
    set("name = \"bdbf\"\nwindow = 6000").in_roofline("bdbf"),
    set(r#"name = "qht""#).in_replay(),
    set("name = \"qht\"\nk = 1\ns = 3").in_roofline("qht"),
    set(r#"name = "qhtd""#).in_replay(),
    set("name = \"qhtd\"\nk = 2\ns = 4"),
    set("name = \"qhtd\"\nk = 1\ns = 3").in_roofline("qhtd"),
    set(r#"name = "qqhtd""#).in_replay(),
    set("name = \"qqhtd\"\nk = 1\ns = 3").in_roofline("qqhtd"),
    set(r#"name = "sqf""#).in_replay(),
    set("name = \"sqf\"\nk = 1\nr = 2\nr_prime = 1").in_roofline("sqf"),
    set("name = \"sqf\"\nrows = \"fill\""),
    set(r#"name = "cuckoo""#).in_replay(),
    set("name = \"cuckoo\"\nb = 1\nf = 3").in_roofline("cuckoo"),
    set(
        "name = \"cuckoo\"\nzero_fingerprint = \"rehash\"\ninsert_duplicates = true\nbuckets = \"power_of_two\"",
    ),
    set("name = \"rsbf\"\nk = 2")
        .in_roofline("rsbf")
        .in_replay(),
    set("name = \"rsbf\"\nk = 4").in_roofline("rsbf/k4"),
    set("name = \"rsbf\"\nreading = \"conference\"\nfpr_t = 0.1"),
    set(r#"name = "rsbf""#),
    set("name = \"rsbf\"\nfpr_t = 0.01\nk_rule = \"formula\""),
    set("name = \"bsbf\"\nk = 2")
        .in_roofline("bsbf")
        .in_replay(),
    set("name = \"bsbf\"\nk = 4").in_roofline("bsbf/k4"),
    set("name = \"bsbfsd\"\nk = 2")
        .in_roofline("bsbfsd")
        .in_replay(),
    set("name = \"bsbfsd\"\nk = 4").in_roofline("bsbfsd/k4"),
    set("name = \"rlbsbf\"\nk = 2")
        .in_roofline("rlbsbf")
        .in_replay(),
    set("name = \"rlbsbf\"\nk = 4").in_roofline("rlbsbf/k4"),
    set("name = \"apbf\"\nk = 4\nl = 3"),
    set("name = \"apbf\"\nk = 4\nl = 3\nwindow = 65536").in_roofline("apbf"),
    set("name = \"apbf\"\nfpr = 0.001\nwindow = 10000"),
    set("name = \"apbf_blocked\"\nfpr = 0.01\nwindow = 5000"),
    set("name = \"apbf_blocked\"\nk = 7\nl = 5\nwindow = 65536").in_roofline("apbf_blocked"),
    set("name = \"apbf_blocked\"\nk = 7\nl = 5\ng = 1000"),
    set("name = \"swamp\"\nwindow = 1000"),
    set("name = \"swamp\"\nwindow = 16384").in_roofline("swamp"),
    set("name = \"swamp\"\nwindow = 10000\nfpr = 0.01"),
    set("name = \"swamp_plain\"\nwindow = 1000"),
    set("name = \"swamp_plain\"\nwindow = 16384").in_roofline("swamp_plain"),
    set("name = \"swamp_plain\"\nwindow = 10000\nfpr = 0.01"),
    set("name = \"naor_yogev\"\nwindow = 1000"),
    set("name = \"naor_yogev\"\nwindow = 16384").in_roofline("naor_yogev"),
    set("name = \"naor_yogev\"\nwindow = 10000\ngenerations = 7\nfpr = 0.01"),
    set("name = \"naor_yogev\"\nwindow = 1000\ngenerations = 1000"),
    set("name = \"tlbf\"\nk = 4\nl = 3\nwindow_seconds = 10.0\nrate = 1000.0"),
    set(r#"name = "exact_window""#),
    set("name = \"exact_window\"\nwindow = 500"),
    set("name = \"exact_window\"\nwindow = 1000"),
    set(r#"name = "inverse_bloom""#),
    set("name = \"rotating_bloom\"\nwindow = 5000"),
    set("name = \"rotating_bloom\"\nwindow = 10000"),
    set("name = \"rotating_bloom\"\nwindow = 10000\ngenerations = 5\nk = 3"),
    set("name = \"fbf\"\nwindow = 5000\nfilters = 4"),
    set("name = \"fbf\"\nwindow = 10000"),
    set("name = \"fbf\"\nwindow = 10000\nfilters = 3\nk = 4"),
    set("name = \"sliding_bloom\"\nwindow = 5000"),
    set("name = \"sliding_bloom\"\nwindow = 10000"),
    set("name = \"sliding_bloom\"\nwindow = 10000\nk = 10"),
    set("name = \"queue\"\nwindow = 5000\ninner = { name = \"qqhtd\" }"),
    set(
        "name = \"queue\"\nwindow = 5000\nfilters = 3\ninner = { name = \"sbf\", max = 1, k = 2, p = 4 }",
    ),
    set("name = \"queue\"\nwindow = 10000\ninner = { name = \"qqhtd\", k = 3, s = 8 }"),
    set("name = \"queue\"\nwindow = 10000\nfilters = 4\ninner = { name = \"bloom\", k = 3 }"),
    set("name = \"sw_bf\"\nwindow = 10000"),
    set("name = \"sw_bf\"\nwindow = 65536").in_roofline("sw_bf"),
    set("name = \"sw_bf\"\nwindow = 10000\nblocks = 32\nlevels = 1\nk = 4"),
    set("name = \"aged_cuckoo\"\nwindow = 10000"),
    set("name = \"aged_cuckoo\"\nwindow = 65536").in_roofline("aged_cuckoo"),
    set("name = \"aged_cuckoo\"\nwindow = 10000\nclock_bits = 2\nfingerprint_bits = 8"),
    set("name = \"aged_cuckoo\"\nwindow_seconds = 10.0\nrate = 1000.0"),
    set("name = \"aged_cuckoo\"\nwindow = 10000\naging = \"stamp\"\nstamp_bits = 6"),
    set(
        "name = \"aged_cuckoo\"\nwindow_seconds = 10.0\nrate = 1000.0\naging = \"stamp\"\nload = 0.5",
    ),
    set("name = \"timing_bloom\"\nwindow = 10000"),
    set("name = \"timing_bloom\"\nwindow = 65536").in_roofline("timing_bloom"),
    set("name = \"timing_bloom\"\nwindow = 10000\nstamp_bits = 6\nk = 3"),
    set("name = \"timing_bloom\"\nwindow_seconds = 10.0\nrate = 1000.0"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_unique_and_every_set_names_its_structure() {
        let mut rows: Vec<&str> = ALL.iter().filter_map(|s| s.row).collect();
        let n = rows.len();
        rows.sort_unstable();
        rows.dedup();
        assert_eq!(rows.len(), n, "a roofline row twice");
        for s in ALL {
            assert!(s.toml.starts_with("name = \""), "{}", s.toml);
            assert!(
                s.label.is_none() || s.replay,
                "{}: a label outside the replay",
                s.toml
            );
        }
    }
}
