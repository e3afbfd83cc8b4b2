//! The table as Markdown, in the paper's layout.

use super::TableCell;
use crate::plan::TableLayout;
use std::fmt::Write as _;

fn fmt_pct(v: f64) -> String {
    format!("{v:.4}")
}

/// Text for a Markdown table cell: `|` escaped so that it cannot end the cell, and a line
/// break made a space. (HTML in it is shown as text by the report, which renders no raw
/// HTML.)
pub fn md_cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        // Markdown passes raw HTML through: a label's `<b>` or `<script>` is shown as text.
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The table's columns and its rows (row label, metric), in the order the cells first name
/// them.
pub(super) fn axes(cells: &[TableCell]) -> (Vec<&str>, Vec<(&str, &str)>) {
    let mut columns: Vec<&str> = Vec::new();
    let mut rows: Vec<(&str, &str)> = Vec::new();
    for c in cells {
        if !columns.contains(&c.column.as_str()) {
            columns.push(&c.column);
        }
        if !rows.contains(&(c.row.as_str(), c.metric.as_str())) {
            rows.push((&c.row, &c.metric));
        }
    }
    (columns, rows)
}

/// Renders the table as Markdown in the paper's layout.
pub fn markdown(title: &str, note: &str, layout: &TableLayout, cells: &[TableCell]) -> String {
    let (columns, rows) = axes(cells);
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n\n{note}\n", md_cell(title));
    let has_paper = cells
        .iter()
        .any(|c| c.paper_pct.is_some() || c.paper_mismatch.is_some());
    if has_paper {
        let _ = writeln!(
            s,
            "Each cell: **ours** / paper (difference in percentage points); ✓ = within 3 % relative or 0.05 pp of the paper.\n"
        );
    } else {
        let _ = writeln!(
            s,
            "Each cell: **ours** (the paper prints no number for it).\n"
        );
    }
    let rows_head = layout.rows_heading();
    let heads: Vec<String> = columns.iter().map(|c| md_cell(c)).collect();
    let _ = writeln!(s, "| {rows_head} | % | {} |", heads.join(" | "));
    let _ = writeln!(s, "|---|---|{}", "---|".repeat(columns.len()));
    for (row, metric) in &rows {
        let mut line = format!("| {} | {} |", md_cell(row), metric.to_uppercase());
        for col in &columns {
            let text = cells
                .iter()
                .find(|c| c.row == *row && c.metric == *metric && c.column == *col)
                .map(|c| {
                    let ours = match c.ours_ci95_pct {
                        Some(ci) => format!("**{}** ± {}", fmt_pct(c.ours_pct), fmt_pct(ci)),
                        None => format!("**{}**", fmt_pct(c.ours_pct)),
                    };
                    match (c.paper_pct, c.diff_pp, c.within_tolerance) {
                        (Some(p), Some(d), Some(ok)) => format!(
                            "{ours} / {} ({d:+.4}) {}",
                            fmt_pct(p),
                            if ok { "✓" } else { "✗" }
                        ),
                        _ => match &c.paper_mismatch {
                            Some(why) => format!("{ours} / — ({})", md_cell(why)),
                            None => ours,
                        },
                    }
                })
                .unwrap_or_default();
            line.push_str(&format!(" {text} |"));
        }
        let _ = writeln!(s, "{line}");
    }
    let compared: Vec<&TableCell> = cells
        .iter()
        .filter(|c| c.within_tolerance.is_some())
        .collect();
    let unscored = cells.iter().filter(|c| c.paper_mismatch.is_some()).count();
    if unscored > 0 {
        let _ = writeln!(
            s,
            "\n{unscored} cells not scored: their structure's parameters differ from those of the paper's values (— and the parameter shown instead)."
        );
    }
    if !compared.is_empty() {
        let ok = compared
            .iter()
            .filter(|c| c.within_tolerance == Some(true))
            .count();
        let _ = writeln!(
            s,
            "\n{ok} of {} cells within tolerance of the paper.",
            compared.len()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::md_cell;

    /// A label's HTML is shown as text in Markdown (LEADERBOARD.md, table.md), as the report
    /// shows it.
    #[test]
    fn html_in_a_label_is_text_in_markdown() {
        assert_eq!(
            md_cell("<script>x</script> & | y"),
            "&lt;script&gt;x&lt;/script&gt; &amp; \\| y"
        );
    }
}
