//! Tables that fit the page at any width, never hidden behind a sideways scroll.
//!
//! A table's leading key columns (what a row is: memory, rate) stay at the left; its other
//! columns are split, when too wide together, into parts of whole columns side by side with
//! the keys again. On a narrow screen (the style's `max-width` rule) every table shows each
//! row as a card, one labelled line per cell, so no table is wider than the screen.

use super::text::escape;
use pulldown_cmark::{Event, Tag, TagEnd, html};
use std::fmt::Write as _;

/// The widest part, in characters of cell text plus two per cell for padding and border:
/// about 120 × 6.5 px at the table's 0.9em font, so that a part fits the page from the
/// card layout's 50em breakpoint up.
pub(super) const PART_CHARS: usize = 120;

/// A table: header and body cells as HTML, with each cell's plain text for its width.
#[derive(Debug, Default)]
pub(super) struct Grid {
    head: Vec<Cell>,
    rows: Vec<Vec<Cell>>,
    /// The leading columns that name a row, repeated in every part.
    keys: usize,
    /// Each row's class (`""` for none), parallel to `rows`.
    classes: Vec<&'static str>,
    /// Whether its columns are split into parts when too wide together (cells that do not
    /// wrap); a table of wrapping text only gets the narrow screens' cards.
    split: bool,
}

#[derive(Debug, Default, Clone)]
struct Cell {
    html: String,
    text: String,
}

impl Cell {
    fn text(text: &str) -> Self {
        Self {
            html: escape(text),
            text: text.to_string(),
        }
    }

    fn width(&self) -> usize {
        self.text.chars().count() + 2
    }
}

impl Grid {
    /// A table of wrapping cells: `head` as text, rows of HTML cells whose text is given
    /// beside (for the cards' labels only).
    pub(super) fn new(head: &[&str]) -> Self {
        Self {
            head: head.iter().map(|h| Cell::text(h)).collect(),
            keys: 1,
            ..Self::default()
        }
    }

    /// Appends a row of cells given as HTML.
    pub(super) fn row(&mut self, cells: Vec<String>) {
        self.row_of_class("", cells);
    }

    /// Appends a heading row over the rows after it: `html` across every column.
    pub(super) fn group(&mut self, html: String) {
        self.row_of_class("group", vec![html]);
    }

    /// Appends a row of cells given as HTML, of the style's `class`.
    pub(super) fn row_of_class(&mut self, class: &'static str, cells: Vec<String>) {
        self.classes.push(class);
        let cells = cells
            .into_iter()
            .map(|html| Cell {
                text: String::new(),
                html,
            })
            .collect();
        self.rows.push(cells);
    }

    /// The table of a Markdown table's events (after its `Start(Table)`, through its
    /// `End(Table)`): its key columns are those up to the `%` column (the measure), else
    /// the first; its cells do not wrap, so its columns are split into parts.
    pub(super) fn from_markdown<'a>(events: &mut impl Iterator<Item = Event<'a>>) -> Self {
        let mut grid = Self {
            split: true,
            ..Self::default()
        };
        let mut in_head = false;
        let mut cell: Option<Vec<Event<'a>>> = None;
        for e in events.by_ref() {
            match e {
                Event::End(TagEnd::Table) => break,
                Event::Start(Tag::TableHead) => in_head = true,
                Event::End(TagEnd::TableHead) => in_head = false,
                Event::Start(Tag::TableRow) => {
                    grid.rows.push(Vec::new());
                    grid.classes.push("");
                }
                Event::Start(Tag::TableCell) => cell = Some(Vec::new()),
                Event::End(TagEnd::TableCell) => {
                    let events = cell.take().unwrap_or_default();
                    let done = markdown_cell(events);
                    match grid.rows.last_mut().filter(|_| !in_head) {
                        Some(row) => row.push(done),
                        None => grid.head.push(done),
                    }
                }
                e => {
                    if let Some(c) = cell.as_mut() {
                        c.push(e);
                    }
                }
            }
        }
        grid.keys = grid
            .head
            .iter()
            .take(3)
            .position(|h| h.text.trim() == "%")
            .map_or(1, |p| p + 1)
            .min(grid.head.len());
        grid
    }

    /// The widest cell of each column, header included, in characters.
    fn widths(&self) -> Vec<usize> {
        (0..self.head.len())
            .map(|c| {
                std::iter::once(&self.head[c])
                    .chain(self.rows.iter().filter_map(|r| r.get(c)))
                    .map(Cell::width)
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// The value columns (after the keys) of each part: the fewest parts of near-equal
    /// numbers of whole columns each within [`PART_CHARS`] with the keys (a single column
    /// wider than that makes a part of its own).
    fn parts(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.head.len();
        let keys = self.keys.min(n);
        if !self.split || n == keys {
            return std::iter::once(keys..n).collect();
        }
        let widths = self.widths();
        let key_width: usize = widths[..keys].iter().sum();
        let values = n - keys;
        for count in 1..=values {
            let ranges: Vec<_> = (0..count)
                .map(|p| keys + p * values / count..keys + (p + 1) * values / count)
                .collect();
            let fits = |r: &std::ops::Range<usize>| {
                r.len() == 1 || key_width + widths[r.clone()].iter().sum::<usize>() <= PART_CHARS
            };
            if ranges.iter().all(fits) {
                return ranges;
            }
        }
        std::iter::once(keys..n).collect()
    }

    /// The table as HTML: one `<table class="fit">` per part, each cell labelled with its
    /// column for the narrow screens' cards.
    pub(super) fn to_html(&self) -> String {
        let parts = self.parts();
        let mut out = String::new();
        for (p, range) in parts.iter().enumerate() {
            let columns: Vec<usize> = (0..self.keys.min(self.head.len()))
                .chain(range.clone())
                .collect();
            out.push_str("<table class=\"fit\">\n");
            if parts.len() > 1 {
                let _ = writeln!(
                    out,
                    "<caption>{} to {} (part {} of {})</caption>",
                    escape(&self.head[range.start].text),
                    escape(&self.head[range.end - 1].text),
                    p + 1,
                    parts.len()
                );
            }
            out.push_str("<thead><tr>");
            for &c in &columns {
                let _ = write!(out, "<th>{}</th>", self.head[c].html);
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for (row, class) in self.rows.iter().zip(&self.classes) {
                match *class {
                    "group" => {
                        let cell = row.first().map_or("", |c| c.html.as_str());
                        let span = columns.len();
                        let _ = writeln!(
                            out,
                            "<tr class=\"group\"><th colspan=\"{span}\">{cell}</th></tr>"
                        );
                        continue;
                    }
                    "" => out.push_str("<tr>"),
                    class => {
                        let _ = write!(out, "<tr class=\"{class}\">");
                    }
                }
                for &c in &columns {
                    let cell = row.get(c).map_or("", |c| c.html.as_str());
                    let _ = write!(
                        out,
                        "<td data-label=\"{}\">{cell}</td>",
                        escape(&self.head[c].text)
                    );
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody></table>\n");
        }
        out
    }
}

/// A Markdown table cell's events as HTML, with its plain text.
fn markdown_cell(events: Vec<Event<'_>>) -> Cell {
    let text = events
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect();
    let mut html_out = String::new();
    html::push_html(&mut html_out, events.into_iter());
    Cell {
        html: html_out,
        text,
    }
}

/// Markdown rendered as HTML, its tables as grids that fit the page. Raw HTML in the
/// Markdown is shown as text, never executed: a label or description is the user's text,
/// and the page runs no script.
pub fn markdown(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, html};
    let mut events = Parser::new_ext(md, Options::ENABLE_TABLES).map(|e| match e {
        Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
        e => e,
    });
    let mut out = String::new();
    let mut pending = Vec::new();
    while let Some(e) = events.next() {
        if let Event::Start(Tag::Table(_)) = e {
            html::push_html(&mut out, pending.drain(..));
            out.push_str(&Grid::from_markdown(&mut events).to_html());
        } else {
            pending.push(e);
        }
    }
    html::push_html(&mut out, pending.into_iter());
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn markdown_tables_and_a_labels_html_as_text() {
        let html = markdown("| a | b |\n|---|---|\n| **1** | 2 |\n");
        assert!(
            html.contains("<table") && html.contains("<strong>1</strong>"),
            "{html}"
        );
        // A label's HTML is text, in a table cell as in a paragraph.
        for md in [
            "| a |\n|---|\n| <script>alert(1)</script> |\n",
            "<img src=x onerror=alert(1)>\n",
            "x <b onclick=alert(1)>y</b>\n",
        ] {
            let html = markdown(md);
            assert!(
                !html.contains("<script") && !html.contains("<img") && !html.contains("<b "),
                "{html}"
            );
            assert!(html.contains("&lt;"), "{html}");
        }
    }

    use super::markdown;

    /// The text of an HTML fragment, tags removed and the common entities decoded.
    fn text_of(html: &str) -> String {
        let mut out = String::new();
        let mut tag = false;
        for c in html.chars() {
            match c {
                '<' => tag = true,
                '>' => tag = false,
                c if !tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&amp;", "&").replace("&lt;", "<")
    }

    /// The committed Table 7 table, as `table.md` has it: nine columns of 30 characters.
    fn table7() -> String {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../results/bera-journal-table7");
        let run = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .find(|e| e.path().join("table.md").exists())
            .expect("a committed Table 7 run");
        std::fs::read_to_string(run.path().join("table.md")).unwrap()
    }

    #[test]
    fn a_wide_table_is_split_into_parts_that_fit_and_keep_every_cell() {
        let md = table7();
        let html = markdown(&md);
        let tables: Vec<&str> = html.split("<table").skip(1).collect();
        assert!(tables.len() >= 2, "Table 7 shown as one table: {html}");
        let columns = ["SBF", "SBF-rand31", "RSBF", "BSBF", "BSBFSD", "RLBSBF"];
        for c in columns {
            assert!(
                html.contains(&format!("<th>{c}</th>")),
                "column {c} missing: {html}"
            );
        }
        for t in &tables {
            // Every row of a part, as the text a reader sees on one line, with two
            // characters of padding per cell: within the part's budget.
            for row in t
                .split("<tr>")
                .skip(1)
                .filter_map(|r| r.split("</tr>").next())
            {
                let cells = row.matches("<td").count().max(row.matches("<th>").count());
                let width = text_of(row).trim().chars().count() + 2 * cells;
                assert!(width <= super::PART_CHARS, "{width} chars: {row}");
            }
            // The keys (memory, %) lead every part, and every cell is labelled for the cards.
            assert!(t.contains("<th>memory</th><th>%</th>"), "{t}");
            assert_eq!(t.matches("<td").count(), t.matches("data-label=").count());
        }
        // Each row's cells all appear: 8 rows × 9 columns of the source, keys repeated per part.
        let cells_md = md
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| memory"))
            .map(|l| l.matches(" | ").count() + 1)
            .sum::<usize>();
        let values = html.matches("<td").count() - 2 * 8 * tables.len();
        assert_eq!(values + 2 * 8, cells_md);
    }

    #[test]
    fn a_narrow_table_stays_whole_and_user_html_stays_text() {
        let html = markdown("| memory | % | SBF |\n|---|---|---|\n| 8MB | FPR | <b>1</b> |\n");
        assert_eq!(html.matches("<table").count(), 1, "{html}");
        assert!(!html.contains("<caption>"), "{html}");
        assert!(html.contains("&lt;b&gt;1"), "{html}");
        assert!(html.contains("<td data-label=\"SBF\">"), "{html}");
    }
}
