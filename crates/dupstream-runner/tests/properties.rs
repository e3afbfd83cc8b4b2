//! The fuzz targets' invariants (`fuzz/harness.rs`) on generated inputs, on stable Rust in
//! `cargo test`: experiment text (valid files with values, lines or bytes changed), replay files of each format (plain and gzip, whole and cut), and the part
//! and cell files `merge` reads. `just fuzz` runs the same checks under cargo-fuzz.

#[path = "../../../fuzz/harness.rs"]
mod harness;

use dupstream_streams::ReplayFormat;
use proptest::prelude::*;
use std::io::Write;

/// Few cases each: the whole module stays within a few seconds.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A value, valid or not, for an experiment key.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..100).prop_map(|n| n.to_string()),
        (-3i64..10_000_000).prop_map(|n| n.to_string()),
        Just("0".to_string()),
        Just("18446744073709551615".to_string()),
        Just("1e400".to_string()),
        Just("nan".to_string()),
        (0.0f64..1.5).prop_map(|f| f.to_string()),
        prop::sample::select(vec![
            "exact",
            "bloom",
            "sbf",
            "bsbf",
            "rsbf",
            "bsbfsd",
            "rlbsbf",
            "qht",
            "buffering",
            "uniform",
            "zipf",
            "zipf_drift",
            "deng_poisson",
            "replay",
            "lines",
            "4KB",
            "2^20 bits",
            "SBF",
            "",
        ])
        .prop_map(|s| format!("\"{s}\"")),
        Just("[]".to_string()),
        Just("[1, 2, 1]".to_string()),
        Just("[\"16KB\", \"2^17 bits\"]".to_string()),
        Just("[\"1KB\", \"1MB\"]".to_string()),
        Just("true".to_string()),
        Just("{ rates_vs_param = \"k\" }".to_string()),
        Just("{ n = 500 }".to_string()),
        Just("{ bogus = 1 }".to_string()),
    ]
}

/// A key an experiment table may hold (or not).
fn key() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "n",
        "distinct_fraction",
        "universe",
        "exponent",
        "k",
        "p",
        "max",
        "seed",
        "seeds",
        "memory",
        "checkpoints",
        "checkpoint_every",
        "window",
        "label",
        "name",
        "format",
        "path",
        "scale",
        "charts",
        "fps",
        "offset",
        "limit",
        "period",
        "shift",
        "stream",
    ])
}

/// One change to a line of a valid experiment.
#[derive(Debug, Clone)]
enum Edit {
    /// The value of the `key = value` line at this index.
    Set(prop::sample::Index, String),
    /// A `key = value` line after this index.
    Insert(prop::sample::Index, &'static str, String),
    /// The line at this index removed.
    Delete(prop::sample::Index),
}

/// A valid experiment with a few values changed, lines added or lines removed: some stay
/// valid (and must keep every invariant), most are refused (with one line).
fn edited_experiment() -> impl Strategy<Value = String> {
    let edit = prop_oneof![
        3 => (any::<prop::sample::Index>(), value()).prop_map(|(i, v)| Edit::Set(i, v)),
        2 => (any::<prop::sample::Index>(), key(), value()).prop_map(|(i, k, v)| Edit::Insert(i, k, v)),
        1 => any::<prop::sample::Index>().prop_map(Edit::Delete),
    ];
    prop::collection::vec(edit, 0..4).prop_map(|edits| {
        let mut lines: Vec<String> = VALID.lines().map(str::to_string).collect();
        for e in edits {
            match e {
                Edit::Set(i, v) if !lines.is_empty() => {
                    let at = i.index(lines.len());
                    let l = &mut lines[at];
                    if let Some((k, _)) = l.split_once(" = ") {
                        *l = format!("{k} = {v}");
                    }
                }
                Edit::Set(..) => {}
                Edit::Insert(i, k, v) => {
                    let at = i.index(lines.len() + 1);
                    lines.insert(at, format!("{k} = {v}"));
                }
                Edit::Delete(i) if !lines.is_empty() => {
                    let at = i.index(lines.len());
                    lines.remove(at);
                }
                Edit::Delete(_) => {}
            }
        }
        lines.join("\n")
    })
}

const VALID: &str = "name = \"v\"\ndescription = \"d\"\n\n[stream]\nkind = \"uniform\"\nn = 20_000\ndistinct_fraction = 0.5\nseed = 5\n\n[tuning]\nstream = { n = 10_000 }\n\n[grid]\nmemory = [\"16KB\", \"64KB\"]\nseeds = [5, 6]\n\n[[algorithm]]\nname = \"sbf\"\np = 4\n\n[[algorithm]]\nname = \"bloom\"\nk = 3\n\n[metrics]\ncheckpoints = 2\n";

/// `text` with bytes replaced at some positions.
fn mutated(text: &'static str) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6).prop_map(
        move |edits| {
            let mut b = text.as_bytes().to_vec();
            for (at, byte) in edits {
                let i = at.index(b.len());
                // Mostly printable ASCII, so that most results are still UTF-8 text.
                b[i] = if byte < 0xf0 { b' ' + byte % 95 } else { byte };
            }
            b
        },
    )
}

/// Replay file bodies over the bytes that matter to the formats.
fn replay_body() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(b"ab/ \t,\"\n\r[]:-0GET HTTP".to_vec()),
        0..200,
    )
}

/// A gzip file of a replay body, cut or with a byte changed.
fn gzip_body() -> impl Strategy<Value = Vec<u8>> {
    (replay_body(), any::<prop::sample::Index>(), 0u8..3).prop_map(|(text, at, how)| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&text).unwrap();
        let mut gz = enc.finish().unwrap();
        let i = at.index(gz.len());
        match how {
            0 => gz.truncate(i.max(2)),
            1 => gz[i.max(2)] ^= 0x55,
            _ => {}
        }
        gz
    })
}

const CELL_ROWS: &str = "experiment,cell,algorithm,label,params,k,memory,memory_nominal_bits,memory_bits_budget,memory_bits_used,scale,stream,n_nominal,n,distinct_target,seed,position,tp,fp,tn,fn,unseen,duplicates,fpr,fnr,occupancy_kind,occupancy\nv,0,sbf,SBF,max=1;k=2;p=4,2,16KB,131072,131072,131072,1,uniform,20000,20000,0.5,5,10000,10,20,30,40,50,50,0.4,0.8,load,0.5\n";

proptest! {
    #![proptest_config(config())]

    #[test]
    fn valid_experiments_edited(text in edited_experiment()) {
        let _ = harness::experiment(text.as_bytes());
    }

    #[test]
    fn valid_experiments_with_bytes_changed(bytes in mutated(VALID)) {
        let _ = harness::experiment(&bytes);
    }

    #[test]
    fn replays_of_every_format(
        format in prop_oneof![
            Just(ReplayFormat::Lines),
            Just(ReplayFormat::Tsv),
            Just(ReplayFormat::Csv),
            Just(ReplayFormat::Clf),
        ],
        opts in any::<u8>(),
        body in replay_body(),
    ) {
        let mut data = vec![opts];
        data.extend(body);
        harness::replay(format, &data);
    }

    #[test]
    fn gzip_replays_whole_and_damaged(opts in any::<u8>(), gz in gzip_body()) {
        let mut data = vec![opts];
        data.extend(gz);
        harness::replay_gzip(&data);
    }

    #[test]
    fn part_and_cell_files(
        mode in any::<u8>(),
        rows in mutated(CELL_ROWS),
        record in "[{}\":,a-z0-9 ]{0,40}",
        shard in "[{}\":,a-z0-9 ]{0,40}",
    ) {
        let mut data = vec![mode];
        for (i, part) in [rows, record.into_bytes(), shard.into_bytes()].into_iter().enumerate() {
            if i > 0 {
                data.push(0);
            }
            data.extend(part.into_iter().filter(|&b| b != 0));
        }
        let _ = harness::part_files(&data);
    }
}

#[test]
fn unchanged_valid_inputs_pass_the_invariants() {
    // The generators' starting points must be accepted, or the properties test only refusals.
    assert!(harness::experiment(VALID.as_bytes()));
    let mut data = vec![0u8];
    data.extend(CELL_ROWS.as_bytes());
    assert!(
        harness::part_files(&data),
        "a well-formed cell is taken as done"
    );
}
