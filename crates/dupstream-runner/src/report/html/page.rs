//! The page shell: the inline style and the HTML around a body.

use super::text::escape;

/// The page's file name.
pub const INDEX: &str = "index.html";

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 90em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em 0; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
tr.group th { background: #e8eef5; }
.markdown td { white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
caption { text-align: left; font-size: 0.85em; color: #555; padding: 0.2em 0; }
.superseded, .superseded a { color: #888; }
figure { margin: 1em 0 2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
a.narrow { display: none; }
pre { background: #f6f6f6; padding: 0.8em; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85em; }
nav { font-size: 0.9em; margin-bottom: 1em; }
.muted { color: #666; font-size: 0.9em; }
@media (max-width: 50em) {
  a.narrow { display: block; font-size: 1.1em; margin-bottom: 0.2em; }
  table.fit, table.fit tbody, table.fit tr, table.fit td, table.fit th, table.fit caption { display: block; }
  table.fit thead { display: none; }
  table.fit tr { border: 1px solid #ccc; margin: 0.5em 0; }
  table.fit td { border: none; border-top: 1px solid #eee; white-space: normal; overflow-wrap: anywhere; }
  table.fit td::before { content: attr(data-label) \": \"; color: #555; }
}
";

/// A whole page: `body` under `title`, with the inline style.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}
