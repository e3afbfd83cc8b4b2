//! The manifest section of a run page: its summary, streams and cells.

use super::text::{escape, human_bytes, value_text};
use serde_json::Value;
use std::fmt::Write as _;

/// The manifest's summary: its scalar fields and the machine's, then per-cell timings when
/// `cells_table` (a run without `cells.csv`).
pub(super) fn manifest_html(m: &Value, cells_table: bool) -> String {
    let mut out = String::from("<div class=\"scroll\"><table>\n");
    let Some(obj) = m.as_object() else {
        return String::new();
    };
    for (k, v) in obj {
        let text = match (k.as_str(), v) {
            ("streams" | "cells", _) => continue,
            (k, Value::Number(n)) if k.ends_with("bytes") => {
                n.as_u64().map_or(n.to_string(), human_bytes)
            }
            (k, Value::Number(n)) if k.ends_with("secs") || k.ends_with("secs_total") => {
                n.as_f64().map_or(n.to_string(), |s| format!("{s:.1} s"))
            }
            (_, Value::Object(o)) => o
                .iter()
                .map(|(k, v)| format!("{k}: {}", value_text(v)))
                .collect::<Vec<_>>()
                .join("; "),
            (_, v) => value_text(v),
        };
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(k),
            escape(&text)
        );
    }
    out.push_str("</table></div>\n");
    if let Some(streams) = m["streams"].as_array().filter(|s| !s.is_empty()) {
        out.push_str("<h3>Streams</h3>\n<div class=\"scroll\"><table>\n<tr><th>stream</th><th>n (as run)</th><th>distinct</th><th>ground truth</th></tr>\n");
        for s in streams {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2} s ({})</td></tr>",
                escape(&value_text(&s["stream"])),
                value_text(&s["n"]),
                value_text(&s["distinct"]),
                s["ground_truth_secs"].as_f64().unwrap_or(f64::NAN),
                escape(&value_text(&s["oracle"]))
            );
        }
        out.push_str("</table></div>\n");
    }
    if let Some(cells) = m["cells"]
        .as_array()
        .filter(|c| !c.is_empty() && cells_table)
    {
        out.push_str("<h3>Cells</h3>\n<div class=\"scroll\"><table>\n<tr><th>cell</th><th>structure</th><th>elements</th><th>wall (s)</th><th>ns/element</th></tr>\n");
        for c in cells {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.1}</td></tr>",
                value_text(&c["cell"]),
                escape(&value_text(&c["label"])),
                value_text(&c["elements"]),
                c["wall_secs"].as_f64().unwrap_or(f64::NAN),
                c["ns_per_element"].as_f64().unwrap_or(f64::NAN)
            );
        }
        out.push_str("</table></div>\n");
    }
    out
}

/// The cells table of a run page, from `cells.csv`: each cell's configuration, memory,
/// seed, parameters, final rates and timing.
pub(super) fn cells_html(rows: &[crate::record::CellRow]) -> String {
    let pct = |v: Option<f64>| v.map_or("—".into(), |v| format!("{:.4}", v * 100.0));
    let mut out = String::from(
        "<h3>Cells</h3>\n<div class=\"scroll\"><table>\n<tr><th>cell</th><th>configuration</th><th>memory</th><th>stream</th><th>seed</th><th>FPR (%)</th><th>FNR (%)</th><th>wall (s)</th><th>ns/element</th><th>parameters as run</th></tr>\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.1}</td><td>{}</td></tr>",
            r.cell,
            escape(&r.config),
            escape(&r.memory),
            escape(&r.stream),
            r.seed,
            pct(r.fpr),
            pct(r.fnr),
            r.wall_secs,
            r.ns_per_element,
            escape(&r.params.to_string().replace(';', "; "))
        );
    }
    out.push_str("</table></div>\n");
    out
}
