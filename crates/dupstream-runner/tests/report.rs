//! `dupstream report`: the HTML pages over a results tree. Every `src` and `href` of every
//! page must be relative and resolve to a file; the pages must need no network; and a real
//! headless browser (Debian's Chromium) must draw them: its screenshot must not be blank and
//! must show the charts' colours. Without a Chromium binary the browser part skips, saying so.

use crate::util::{dupstream_ok, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Two structures at two memory sizes on a short stream: every chart kind of a run, and the
/// Pareto chart.
const SMALL: &str = r#"name = "report-small"
description = "two structures, two memory sizes, 20K elements"

[stream]
kind = "uniform"
n = 20_000
distinct_fraction = 0.5
seed = 3

[grid]
memory = ["2KB", "8KB"]

[[algorithm]]
label = "SBF"
name = "sbf"
max = 1
k = 2
p = 4

[[algorithm]]
label = "Bloom"
name = "bloom"
k = 3

[metrics]
checkpoints = 4

[output]
charts = ["rates_vs_length", "rates_vs_memory", { chart = "occupancy_vs_length", log_y = false }]
"#;

/// The values of `attr="…"` attributes in an HTML text.
fn attributes(html: &str, attr: &str) -> Vec<String> {
    let needle = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&needle) {
        rest = &rest[i + needle.len()..];
        let end = rest.find('"').expect("closed attribute");
        out.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).expect("percent escape"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Checks every link and image of `page`; returns how many images it has.
fn check_links(page: &Path) -> usize {
    let html = std::fs::read_to_string(page).unwrap();
    assert!(!html.contains("<script"), "{}: a script", page.display());
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "{}: an absolute URL (the page must need no network)",
        page.display()
    );
    let base = page.parent().unwrap();
    let srcs = attributes(&html, "src");
    for link in srcs.iter().chain(&attributes(&html, "href")) {
        if link.starts_with('#') {
            continue;
        }
        assert!(
            !link.starts_with('/') && !link.contains(':'),
            "{}: `{link}` is not a relative link",
            page.display()
        );
        let target = base.join(percent_decode(link));
        assert!(
            target.is_file(),
            "{}: `{link}` does not resolve ({})",
            page.display(),
            target.display()
        );
    }
    srcs.len()
}

/// Debian's Chromium, if installed (`DUPSTREAM_CHROMIUM` names another binary).
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DUPSTREAM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// A screenshot of `page` by headless Chromium, as RGB pixels and width.
fn screenshot(browser: &Path, page: &Path, scratch: &Path, name: &str) -> (Vec<u8>, usize) {
    let shot = scratch.join(format!("{name}.png"));
    let profile = scratch.join(format!("profile-{name}"));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1280,1600")
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        shot.is_file(),
        "chromium wrote no screenshot of {}",
        page.display()
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    (rgb, info.width as usize)
}

/// The variance of the pixels' luminance, and the number of pixels close to `color`.
fn stats(rgb: &[u8], color: [u8; 3]) -> (f64, usize) {
    let lum: Vec<f64> = rgb
        .chunks(3)
        .map(|p| 0.299 * p[0] as f64 + 0.587 * p[1] as f64 + 0.114 * p[2] as f64)
        .collect();
    let mean = lum.iter().sum::<f64>() / lum.len() as f64;
    let var = lum.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / lum.len() as f64;
    let near = rgb
        .chunks(3)
        .filter(|p| (0..3).all(|i| (p[i] as i32 - color[i] as i32).abs() <= 30))
        .count();
    (var, near)
}

#[test]
fn report_pages_link_only_to_files_and_render_in_a_headless_browser() {
    let dir = scratch("report");
    let file = dir.join("small.toml");
    std::fs::write(&file, SMALL).unwrap();
    let results = dir.join("results");
    let runs = [
        results.join("report-small/a"),
        results.join("report-small/b run"),
    ];
    for out in &runs {
        run_into(&file, out);
    }
    // Two structures: the Pareto chart is drawn without being asked for.
    assert!(runs[0].join("pareto-0.svg").is_file() && runs[0].join("pareto-0.png").is_file());

    // One directory, then the root over both.
    let one = dupstream_ok(&["report", runs[0].to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&one.stdout)
            .trim()
            .ends_with("index.html")
    );
    let no_up = std::fs::read_to_string(runs[0].join("index.html")).unwrap();
    assert!(
        !no_up.contains("all results"),
        "no root page above: no link to one"
    );
    // The documents cite the first run; the second, started later, supersedes it.
    std::fs::write(
        results.join("canonical.toml"),
        "[runs]\nreport-small = \"a\"\n",
    )
    .unwrap();
    dupstream_ok(&["report", results.to_str().unwrap()]);
    let root_page = results.join("index.html");
    check_links(&root_page);
    let root_html = std::fs::read_to_string(&root_page).unwrap();
    assert!(root_html.contains("report-small/a/index.html"));
    assert!(root_html.contains("report-small/b%20run/index.html"));
    // The canonical run is marked so, not greyed as superseded; bold marks it and nothing
    // else, and the page says so.
    let row = |dir: &str| {
        root_html
            .split("<tr")
            .find(|r| r.contains(&format!("report-small/{dir}/index.html")))
            .unwrap()
            .split("</tr>")
            .next()
            .unwrap()
            .to_string()
    };
    let (a, b) = (row("a"), row("b%20run"));
    assert!(
        a.contains("<strong>canonical</strong>") && a.contains("a later run: report-small/b run"),
        "{a}"
    );
    assert!(!a.contains("superseded"), "the canonical run greyed: {a}");
    assert!(b.contains(">latest<") && !b.contains("canonical"), "{b}");
    assert_eq!(root_html.matches("<strong>").count(), 2, "{root_html}");
    assert!(root_html.contains("(the only bold)"), "{root_html}");
    for run in &runs {
        let page = run.join("index.html");
        let images = check_links(&page);
        let html = std::fs::read_to_string(&page).unwrap();
        let charts = std::fs::read_dir(run)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "svg")
            })
            .count();
        assert!(charts >= 5, "{charts} charts");
        assert_eq!(images, charts, "every chart is on the page");
        assert!(
            html.contains("<table class=\"fit\">"),
            "the table, rendered from table.md"
        );
        for f in ["raw.csv", "streams.csv", "table.csv", "manifest.json"] {
            assert!(html.contains(&format!("href=\"{f}\"")), "no link to {f}");
        }
    }

    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: headless-browser check of `dupstream report` (no /usr/bin/chromium; `apt-get install chromium`, or set DUPSTREAM_CHROMIUM); the link checks above ran"
        );
        return;
    };
    for (name, page) in [("root", root_page), ("run", runs[0].join("index.html"))] {
        let (rgb, width) = screenshot(&browser, &page, &dir, name);
        assert!(width >= 1000, "screenshot {width} px wide");
        let (var, _) = stats(&rgb, [0, 0, 0]);
        assert!(
            var > 50.0,
            "{name} page: blank screenshot (luminance variance {var:.1})"
        );
        if name == "run" {
            // The charts drawn: pixels of the palette's red (second series) and green (third).
            let (_, red) = stats(&rgb, [214, 39, 40]);
            let (_, green) = stats(&rgb, [44, 160, 44]);
            assert!(
                red > 100 || green > 100,
                "no chart colours in the screenshot (red {red}, green {green} pixels)"
            );
        }
    }
}

/// A leaderboard experiment on both tracks (the leaderboard tests' file, renamed to be
/// ranked): one structure with a grid of settings, one whose label holds HTML; its run's
/// Pareto chart on the windowed error.
fn board_toml() -> String {
    crate::leaderboard::TUNED
        .replace("name = \"lb-tiny\"", "name = \"leaderboard-tiny\"")
        .replace("label = \"BSBF\"", "label = \"<b>BSBF</b> & co\"")
        + "\n[output]\ncharts = [{ chart = \"pareto\", error = \"w_fpr+w_fnr\" }]\n"
}

/// `dupstream run FILE --out OUT` on two threads, quietly.
fn run_into(file: &Path, out: &Path) {
    dupstream_ok(&[
        "run",
        file.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
}

/// The text of an HTML fragment: each tag a space, the five escapes undone.
fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The numbers of a text (`12.345`, `0.12`, `2`), in order.
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars().chain([' ']) {
        if c.is_ascii_digit() || (c == '.' && !cur.is_empty()) {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(cur.trim_end_matches('.').to_string());
            cur.clear();
        }
    }
    out
}

#[test]
fn the_report_ranks_the_leaderboard_as_leaderboard_md_does() {
    let dir = scratch("report-leaderboard");
    let file = dir.join("board.toml");
    let board = board_toml();
    assert!(board.contains("<b>BSBF</b> & co") && board.contains("leaderboard-tiny"));
    std::fs::write(&file, board).unwrap();
    let results = dir.join("results");
    let run = results.join("leaderboard-tiny/run");
    run_into(&file, &run);
    dupstream_ok(&["report", results.to_str().unwrap()]);
    let index = results.join("leaderboard/index.html");
    assert!(index.is_file(), "no leaderboard page");
    let root_html = std::fs::read_to_string(results.join("index.html")).unwrap();
    assert!(
        root_html.contains("href=\"leaderboard/index.html\""),
        "the root index links to the leaderboard"
    );
    check_links(&index);
    let index_html = std::fs::read_to_string(&index).unwrap();
    assert!(
        index_html.contains("href=\"board-0.html\""),
        "a page per board"
    );
    let page = results.join("leaderboard/board-0.html");
    let images = check_links(&page);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(images, 1, "the board's front chart");
    assert!(
        html.find("<img").unwrap() < html.find("<table").unwrap(),
        "the chart comes first"
    );
    // The numbers behind the chart, as CSV: every column entry and front point.
    let csv_text = std::fs::read_to_string(results.join("leaderboard/board-0.csv")).unwrap();
    assert!(html.contains("href=\"board-0.csv\""));
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let kinds: Vec<String> = r.records().map(|x| x.unwrap()[1].to_string()).collect();
    assert!(kinds.iter().any(|k| k == "column") && kinds.iter().any(|k| k == "front"));

    // A label's HTML is text.
    assert!(!html.contains("<b>BSBF"), "unescaped label");
    assert!(
        html.contains("&lt;b&gt;BSBF&lt;/b&gt; &amp; co"),
        "label not escaped"
    );

    // The same numbers as LEADERBOARD.md's board, in the same order.
    let md_file = dir.join("LEADERBOARD.md");
    dupstream_ok(&[
        "leaderboard",
        results.to_str().unwrap(),
        "--prefix",
        "leaderboard-",
        "--out",
        md_file.to_str().unwrap(),
    ]);
    let md = std::fs::read_to_string(&md_file).unwrap();
    let section = &md[md.find("### tiny").expect("the board's section")..];
    let body = &html[html.find("<div class=\"markdown").unwrap()..];
    assert_eq!(numbers(&html_text(body)), numbers(section));
    assert!(
        section.contains("&lt;b&gt;BSBF&lt;/b&gt; &amp; co") && !section.contains("<b>"),
        "LEADERBOARD.md shows a label's HTML as text"
    );

    // The windowed chart has the sliding-window bound: the leaderboard's and the run's.
    let bound = "lower bound at FNR 0";
    for c in attributes(&html, "src") {
        let svg = std::fs::read_to_string(page.parent().unwrap().join(&c)).unwrap();
        assert!(svg.contains(bound), "{c}");
        assert!(
            svg.contains("BSBF") && svg.contains("Bloom"),
            "{c}: a series per family"
        );
    }
    let run_chart = std::fs::read_to_string(run.join("pareto-0.svg")).unwrap();
    assert!(
        run_chart.contains(bound) && run_chart.contains("after the warm-up of 20000"),
        "the run's windowed Pareto chart: the bound, and its error after the warm-up"
    );
}
