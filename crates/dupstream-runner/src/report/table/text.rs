//! The table as aligned plain text for a terminal (`run`, `compare`): ours, the paper's value
//! and ✓/✗ in every cell (the difference too when asked), the columns split into blocks that
//! fit a given width, each block repeating the row labels. `table.md` keeps the Markdown.

use super::TableCell;
use crate::plan::TableLayout;
use std::fmt::Write as _;

/// The width the terminal table fits.
pub const WIDTH: usize = 100;

/// Text as one terminal line: control characters (a line break in a label) made spaces.
fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Characters on screen (every character of the table is one column wide).
fn len(s: &str) -> usize {
    s.chars().count()
}

fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(len(s))))
}

fn pad_right(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(len(s))))
}

/// `text` wrapped at spaces into lines of at most `width` characters (a longer word stands
/// alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && len(&line) + 1 + len(word) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// One cell's parts: ours, the paper's value, the mark, the difference.
struct Parts {
    ours: String,
    paper: String,
    mark: &'static str,
    diff: String,
}

fn parts(c: &TableCell) -> Parts {
    let ours = match c.ours_ci95_pct {
        Some(ci) => format!("{:.4}±{ci:.4}", c.ours_pct),
        None => format!("{:.4}", c.ours_pct),
    };
    match (c.paper_pct, c.diff_pp, c.within_tolerance) {
        (Some(p), Some(d), Some(ok)) => Parts {
            ours,
            paper: format!("{p:.4}"),
            mark: if ok { "✓" } else { "✗" },
            diff: format!("{d:+.4}"),
        },
        _ => Parts {
            ours,
            paper: if c.paper_mismatch.is_some() {
                "—".into()
            } else {
                String::new()
            },
            mark: "",
            diff: String::new(),
        },
    }
}

/// The widths of a column's parts, and of the whole column.
struct Widths {
    ours: usize,
    paper: usize,
    diff: usize,
    total: usize,
}

/// Renders the table as aligned plain text at most `width` characters wide (wider only when
/// one column alone is): the title, the note, then the columns in blocks, each with the row
/// labels. `diff` adds each cell's difference from the paper, in percentage points.
pub fn text(
    title: &str,
    note: &str,
    layout: &TableLayout,
    cells: &[TableCell],
    diff: bool,
    width: usize,
) -> String {
    let (columns, rows) = super::markdown::axes(cells);
    let has_paper = cells
        .iter()
        .any(|c| c.paper_pct.is_some() || c.paper_mismatch.is_some());
    let find = |row: &(&str, &str), col: &str| {
        cells
            .iter()
            .find(|c| c.row == row.0 && c.metric == row.1 && c.column == col)
    };
    let grid: Vec<Vec<Option<Parts>>> = rows
        .iter()
        .map(|r| columns.iter().map(|c| find(r, c).map(parts)).collect())
        .collect();
    let widths = widths(&columns, &grid, has_paper, diff);
    let rows_head = layout.rows_heading();
    let label_w = rows
        .iter()
        .map(|(r, _)| len(&plain(r)))
        .max()
        .unwrap_or(0)
        .max(len(&rows_head));
    let metric_w = rows.iter().map(|(_, m)| len(m)).max().unwrap_or(0).max(1);
    let laid = Laid {
        columns: &columns,
        rows: &rows,
        grid: &grid,
        widths: &widths,
        has_paper,
        rows_head,
        label_w,
        metric_w,
    };

    let mut s = String::new();
    let _ = writeln!(s, "{}", plain(title));
    for para in note.split("\n\n") {
        let _ = writeln!(s);
        for line in wrap(para, width) {
            let _ = writeln!(s, "{line}");
        }
    }
    for block in blocks(&widths, laid.left(), width) {
        laid.write_block(&mut s, &block);
    }
    let _ = writeln!(s);
    footer(&mut s, cells, has_paper, diff, width);
    s
}

/// Each column's widths: ours, the paper's value and the difference (0 when not shown), and
/// the whole column with its name.
fn widths(
    columns: &[&str],
    grid: &[Vec<Option<Parts>>],
    has_paper: bool,
    diff: bool,
) -> Vec<Widths> {
    columns
        .iter()
        .enumerate()
        .map(|(j, name)| {
            let of = |f: &dyn Fn(&Parts) -> usize, head: &str| {
                grid.iter()
                    .filter_map(|r| r[j].as_ref().map(f))
                    .max()
                    .unwrap_or(0)
                    .max(len(head))
            };
            let ours = of(&|p| len(&p.ours), "ours");
            let paper = if has_paper {
                of(&|p| len(&p.paper), "paper")
            } else {
                0
            };
            let diff = if has_paper && diff {
                of(&|p| len(&p.diff), "diff")
            } else {
                0
            };
            let body = ours
                + if has_paper { 1 + paper + 2 } else { 0 }
                + if diff > 0 { 1 + diff } else { 0 };
            Widths {
                ours,
                paper,
                diff,
                total: body.max(len(&plain(name))),
            }
        })
        .collect()
}

/// The columns packed into blocks that fit `width`, each after `left` characters of row
/// labels.
fn blocks(widths: &[Widths], left: usize, width: usize) -> Vec<Vec<usize>> {
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let mut used = left;
    for (j, w) in widths.iter().enumerate() {
        match blocks.last_mut() {
            Some(b) if used + 3 + w.total <= width => b.push(j),
            _ => {
                blocks.push(vec![j]);
                used = left;
            }
        }
        used += 3 + w.total;
    }
    blocks
}

/// The table laid out: its columns, rows, cells' parts and widths.
struct Laid<'a> {
    columns: &'a [&'a str],
    rows: &'a [(&'a str, &'a str)],
    grid: &'a [Vec<Option<Parts>>],
    widths: &'a [Widths],
    has_paper: bool,
    rows_head: String,
    label_w: usize,
    metric_w: usize,
}

impl Laid<'_> {
    /// The width of the row labels and the metric.
    fn left(&self) -> usize {
        self.label_w + 2 + self.metric_w
    }

    /// One block of columns: the two header lines, then a line per row.
    fn write_block(&self, s: &mut String, block: &[usize]) {
        let (label_w, metric_w, has_paper) = (self.label_w, self.metric_w, self.has_paper);
        let _ = writeln!(s);
        let mut head = format!(
            "{}  {}",
            pad_right(&self.rows_head, label_w),
            pad_right("%", metric_w)
        );
        let mut sub = " ".repeat(self.left());
        for &j in block {
            let w = &self.widths[j];
            head.push_str(&format!(
                "   {}",
                pad_right(&plain(self.columns[j]), w.total)
            ));
            let mut t = pad_left("ours", w.ours);
            if has_paper {
                t.push_str(&format!(" {}  ", pad_left("paper", w.paper)));
            }
            if w.diff > 0 {
                t.push_str(&format!(" {}", pad_left("diff", w.diff)));
            }
            sub.push_str(&format!("   {}", pad_right(&t, w.total)));
        }
        let _ = writeln!(s, "{}", head.trim_end());
        let _ = writeln!(s, "{}", sub.trim_end());
        for (i, (row, metric)) in self.rows.iter().enumerate() {
            let mut line = format!(
                "{}  {}",
                pad_right(&plain(row), label_w),
                pad_right(&metric.to_uppercase(), metric_w)
            );
            for &j in block {
                let w = &self.widths[j];
                let t = match &self.grid[i][j] {
                    Some(p) => {
                        let mut t = pad_left(&p.ours, w.ours);
                        if has_paper {
                            t.push_str(&format!(
                                " {} {}",
                                pad_left(&p.paper, w.paper),
                                pad_right(p.mark, 1)
                            ));
                        }
                        if w.diff > 0 {
                            t.push_str(&format!(" {}", pad_left(&p.diff, w.diff)));
                        }
                        t
                    }
                    None => String::new(),
                };
                line.push_str(&format!("   {}", pad_right(&t, w.total)));
            }
            let _ = writeln!(s, "{}", line.trim_end());
        }
    }
}

/// The lines after the table: what a cell holds, the cells not scored and why, and how many
/// are within tolerance.
fn footer(s: &mut String, cells: &[TableCell], has_paper: bool, diff: bool, width: usize) {
    let legend = if !has_paper {
        "Each cell: ours, in % (the paper prints no number for it).".to_string()
    } else if diff {
        "Each cell: ours, the paper's value and the difference, in %; ✓ = within 3 % relative or 0.05 pp of the paper.".to_string()
    } else {
        "Each cell: ours and the paper's value, in %; ✓ = within 3 % relative or 0.05 pp of the paper (--diff shows the difference).".to_string()
    };
    for line in wrap(&legend, width) {
        let _ = writeln!(s, "{line}");
    }
    let mut unscored: Vec<String> = cells
        .iter()
        .filter_map(|c| {
            c.paper_mismatch
                .as_ref()
                .map(|why| format!("{}: {}", plain(&c.column), plain(why)))
        })
        .collect();
    unscored.dedup();
    if !unscored.is_empty() {
        let n = cells.iter().filter(|c| c.paper_mismatch.is_some()).count();
        let msg = format!(
            "{n} cells not scored (—): their structure's parameters differ from the paper's ({}).",
            unscored.join("; ")
        );
        for line in wrap(&msg, width) {
            let _ = writeln!(s, "{line}");
        }
    }
    let compared = cells
        .iter()
        .filter(|c| c.within_tolerance.is_some())
        .count();
    if compared > 0 {
        let ok = cells
            .iter()
            .filter(|c| c.within_tolerance == Some(true))
            .count();
        let _ = writeln!(s, "{ok} of {compared} cells within tolerance of the paper.");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Dim;

    fn cell(row: &str, column: &str, ours: f64, paper: Option<f64>) -> TableCell {
        TableCell {
            row: row.into(),
            metric: "fpr".into(),
            column: column.into(),
            label: None,
            config: None,
            memory_nominal_bits: None,
            k: None,
            distinct_target: None,
            n_nominal: None,
            stream: None,
            swept: None,
            ours_pct: ours,
            ours_ci95_pct: None,
            seeds: 1,
            paper_pct: paper,
            paper_mismatch: None,
            diff_pp: paper.map(|p| ours - p),
            rel_diff: None,
            within_tolerance: paper.map(|p| (ours - p).abs() < 0.05),
        }
    }

    #[test]
    fn wide_tables_are_split_into_blocks_that_fit() {
        let layout = TableLayout {
            rows: vec![Dim::Memory],
            columns: Dim::Algorithm,
        };
        let cells: Vec<TableCell> = (0..9)
            .flat_map(|j| {
                ["64MB", "128MB"].map(|m| {
                    cell(
                        m,
                        &format!("structure-{j}"),
                        12.3456 + j as f64,
                        Some(12.34),
                    )
                })
            })
            .collect();
        for diff in [false, true] {
            let t = text("t", "a note", &layout, &cells, diff, 100);
            assert!(t.lines().all(|l| len(l) <= 100), "{t}");
            assert!(t.contains("structure-8"), "{t}");
            assert_eq!(t.contains("+0.0056"), diff, "{t}");
            assert!(t.contains("12.3456 12.3400 ✓"), "{t}");
            assert!(t.contains("2 of 18 cells within tolerance"), "{t}");
            let blocks = t.lines().filter(|l| l.starts_with("memory")).count();
            assert!(blocks >= 2, "{t}");
        }
    }
}
