//! A user's structure, registered with the runner library: `examples/custom_structure.rs`
//! (compiled here as a module), run end to end.

use crate::util::scratch;

#[allow(dead_code)]
mod example {
    include!("../examples/custom_structure.rs");
}

#[derive(Debug, serde::Deserialize)]
struct Row {
    algorithm: String,
    label: String,
    params: String,
    memory_bits_used: u64,
    position: u64,
    n: u64,
    tp: u64,
    fp: u64,
    #[serde(rename = "fn")]
    fn_: Option<u64>,
    duplicates: u64,
    fnr: Option<f64>,
}

#[test]
fn a_registered_structure_runs_beside_the_builtin_ones() {
    let out = example::run_example(&scratch("custom-structure")).expect("the example runs");
    let mut reader = csv::Reader::from_path(out.join("raw.csv")).unwrap();
    let rows: Vec<Row> = reader.deserialize().map(|r| r.unwrap()).collect();
    // 2 seeds × 2 sizes × (2 direct_mapped + bloom + exact), 4 checkpoints each.
    assert_eq!(rows.len(), 2 * 2 * 4 * 4);
    let finals: Vec<&Row> = rows.iter().filter(|r| r.position == r.n).collect();
    let ours: Vec<&&Row> = finals
        .iter()
        .filter(|r| r.algorithm == "direct_mapped")
        .collect();
    assert_eq!(ours.len(), 8);
    for r in &ours {
        assert!(
            r.label.starts_with("direct_mapped fingerprint_bits="),
            "{}",
            r.label
        );
        assert!(r.params.starts_with("fingerprint_bits="), "{}", r.params);
        // Whole 8- or 16-bit slots within 16 KB or 64 KB.
        assert!(r.memory_bits_used <= 64 * 8192);
        assert_eq!(r.tp + r.fn_.unwrap_or(0), r.duplicates);
        // 200 000 elements, half distinct, into at most 64 K slots: a direct-mapped table
        // forgets most duplicates, but not all.
        let fnr = r.fnr.unwrap();
        assert!(fnr > 0.05 && fnr < 1.0, "FNR {fnr}");
    }
    // The exact baseline on the same streams: no errors at all.
    for r in finals.iter().filter(|r| r.algorithm == "exact") {
        assert_eq!((r.fp, r.fnr), (0, Some(0.0)));
    }
    let table = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(
        table.contains("direct_mapped fingerprint_bits=16"),
        "{table}"
    );
}
