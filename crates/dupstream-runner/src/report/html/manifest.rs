//! The manifest section of a run page: its summary, streams and cells.

use super::grid::Grid;
use super::text::{duration, escape, human_bytes, iso_utc, value_text};
use serde_json::Value;

/// A manifest field's value as text for a person: sizes in binary units, durations in
/// seconds, minutes and hours, Unix times as ISO 8601 dates (UTC), an object's fields in
/// turn.
fn field_text(key: &str, v: &Value) -> String {
    match v {
        Value::Number(n) if key.ends_with("bytes") => n.as_u64().map_or(n.to_string(), human_bytes),
        Value::Number(n) if key.ends_with("secs") || key.ends_with("secs_total") => {
            duration(n.as_f64())
        }
        Value::Number(n) if key.ends_with("unix") => n.as_i64().map_or(n.to_string(), iso_utc),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}: {}", field_text(k, v)))
            .collect::<Vec<_>>()
            .join("; "),
        v => value_text(v),
    }
}

/// The manifest's summary: its scalar fields and the machine's, then per-cell timings when
/// `cells_table` (a run without `cells.csv`).
pub(super) fn manifest_html(m: &Value, cells_table: bool) -> String {
    let Some(obj) = m.as_object() else {
        return String::new();
    };
    let mut summary = Grid::new(&["field", "value"]);
    for (k, v) in obj
        .iter()
        .filter(|(k, _)| !["streams", "cells"].contains(&k.as_str()))
    {
        summary.row(vec![escape(k), escape(&field_text(k, v))]);
    }
    let mut out = summary.to_html();
    if let Some(streams) = m["streams"].as_array().filter(|s| !s.is_empty()) {
        let mut grid = Grid::new(&["stream", "n (as run)", "distinct", "ground truth"]);
        for s in streams {
            grid.row(vec![
                escape(&value_text(&s["stream"])),
                value_text(&s["n"]),
                value_text(&s["distinct"]),
                format!(
                    "{} ({})",
                    duration(s["ground_truth_secs"].as_f64()),
                    escape(&value_text(&s["oracle"]))
                ),
            ]);
        }
        out.push_str("<h3>Streams</h3>\n");
        out.push_str(&grid.to_html());
    }
    if let Some(cells) = m["cells"]
        .as_array()
        .filter(|c| !c.is_empty() && cells_table)
    {
        let mut grid = Grid::new(&["cell", "structure", "elements", "wall", "ns/element"]);
        for c in cells {
            grid.row(vec![
                value_text(&c["cell"]),
                escape(&value_text(&c["label"])),
                value_text(&c["elements"]),
                duration(c["wall_secs"].as_f64()),
                format!("{:.1}", c["ns_per_element"].as_f64().unwrap_or(f64::NAN)),
            ]);
        }
        out.push_str("<h3>Cells</h3>\n");
        out.push_str(&grid.to_html());
    }
    out
}

/// The cells table of a run page, from `cells.csv`: each cell's configuration, memory,
/// seed, parameters, final rates and timing.
pub(super) fn cells_html(rows: &[crate::record::CellRow]) -> String {
    let pct = |v: Option<f64>| v.map_or("—".into(), |v| format!("{:.4}", v * 100.0));
    let mut grid = Grid::new(&[
        "cell",
        "configuration",
        "memory",
        "stream",
        "seed",
        "FPR (%)",
        "FNR (%)",
        "wall",
        "ns/element",
        "parameters as run",
    ]);
    for r in rows {
        grid.row(vec![
            r.cell.to_string(),
            escape(&r.config),
            escape(&r.memory),
            escape(&r.stream),
            r.seed.to_string(),
            pct(r.fpr),
            pct(r.fnr),
            duration(Some(r.wall_secs)),
            format!("{:.1}", r.ns_per_element),
            escape(&r.params.to_string().replace(';', "; ")),
        ]);
    }
    format!("<h3>Cells</h3>\n{}", grid.to_html())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_shows_times_and_sizes_for_a_person() {
        let m = serde_json::json!({
            "started_unix": 1_795_499_884,
            "wall_secs_total": 143.2,
            "peak_rss_bytes": 1_207_197_696,
            "machine": { "memory_bytes": 25_276_502_016u64, "cores": 2 },
            "streams": [{ "stream": "s", "n": 10, "distinct": 5, "ground_truth_secs": 7.22, "oracle": "bitmap" }],
            "cells": [{ "cell": 0, "label": "SBF", "elements": 10, "wall_secs": 394.9, "ns_per_element": 1.0 }],
        });
        let html = manifest_html(&m, true);
        for shown in [
            "2026-11-24T05:58:04Z",
            "2 min 23 s",
            "1.1 GiB",
            "memory_bytes: 23.5 GiB",
            "7.2 s (bitmap)",
            "6 min 35 s",
        ] {
            assert!(html.contains(shown), "{shown} not in {html}");
        }
        for raw in ["1795499884", "143.2", "25276502016", "394.9"] {
            assert!(!html.contains(raw), "{raw} shown raw: {html}");
        }
    }
}
