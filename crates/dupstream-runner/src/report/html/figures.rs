//! The charts of a run page: which, in what order, and each as a figure.

use super::text::{escape, href};
use std::fmt::Write as _;
use std::path::Path;

/// Charts of a directory: each SVG (or a PNG without one). They come in the order of
/// `kinds` (the experiment's charts as it lists them; a kind it does not list, such as the
/// Pareto chart added to a run of several structures, after them), and within a kind in
/// the order they were drawn (the number that ends the name: memory sizes in numeric order).
pub(super) fn charts(names: &[String], kinds: &[String]) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for n in names {
        let (stem, ext) = match n.rsplit_once('.') {
            Some(p) => p,
            None => continue,
        };
        let png = format!("{stem}.png");
        let has_png = names.contains(&png);
        match ext {
            "svg" => out.push((n.clone(), has_png.then_some(png))),
            "png" if !names.contains(&format!("{stem}.svg")) => out.push((n.clone(), None)),
            _ => {}
        }
    }
    let rank = |name: &str| {
        let stem = name.rsplit_once('.').map_or(name, |p| p.0);
        let kind = stem.split('-').next().unwrap_or(stem);
        let listed = kinds.iter().position(|k| k == kind).unwrap_or(kinds.len());
        let drawn: u64 = stem
            .rsplit('-')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(u64::MAX);
        (listed, kind.to_string(), drawn, name.to_string())
    };
    out.sort_by_key(|(n, _)| rank(n));
    out
}

/// The chart kinds an experiment file lists (`[output] charts`), by their file-name stem, in
/// its order; empty when it cannot be read.
pub(super) fn chart_kinds(run_toml: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(run_toml) else {
        return Vec::new();
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let Some(list) = doc
        .get("output")
        .and_then(|o| o.get("charts"))
        .and_then(|c| c.as_array())
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|c| match c {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Table(t) => t
                .get("chart")
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .or_else(|| t.keys().next().cloned()),
            _ => None,
        })
        .collect()
}

/// The charts section: each chart `(image, PNG)` as a [`figure`].
pub(super) fn figures_html(charts: &[(String, Option<String>)]) -> String {
    let mut out = String::from("<h2 id=\"charts\">Charts</h2>\n");
    for (img, png) in charts {
        out.push_str(&figure(img, png.as_deref()));
    }
    out
}

/// A chart as a figure: the image `img` (a relative path), linked to its `png` when there
/// is one, captioned with its name and links to both files. On a narrow screen, where a
/// chart drawn for the page's full width is too small to read, the caption leads with a link
/// to the chart at full size.
pub fn figure(img: &str, png: Option<&str>) -> String {
    let full = href(Path::new(png.unwrap_or(img)));
    let mut out = format!(
        "<figure><a href=\"{full}\"><img src=\"{}\" alt=\"{}\" loading=\"lazy\"></a>\n<figcaption><a class=\"narrow\" href=\"{full}\">Open the chart at full size</a> {}",
        href(Path::new(img)),
        escape(img),
        escape(img.rsplit_once('.').map_or(img, |p| p.0))
    );
    match png {
        Some(png) => {
            let _ = write!(
                out,
                " — <a href=\"{}\">PNG (300 dpi)</a> · <a href=\"{}\">SVG</a>",
                href(Path::new(png)),
                href(Path::new(img))
            );
        }
        None => {
            let _ = write!(out, " — <a href=\"{}\">full size</a>", href(Path::new(img)));
        }
    }
    out.push_str("</figcaption></figure>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chart_links_to_itself_at_full_size_first_on_a_narrow_screen() {
        for (img, png) in [("a b.svg", Some("a b.png")), ("c.svg", None)] {
            let html = figure(img, png);
            let full = href(Path::new(png.unwrap_or(img)));
            let caption = html.split("<figcaption>").nth(1).unwrap();
            assert!(
                caption.starts_with(&format!(
                    "<a class=\"narrow\" href=\"{full}\">Open the chart at full size</a>"
                )),
                "{html}"
            );
            // A chart without a PNG (as committed runs have) still names its full size.
            assert!(
                caption.contains(&format!("href=\"{}\"", href(Path::new(img)))),
                "{html}"
            );
        }
        assert!(super::super::page::page("t", "").contains("a.narrow { display: none; }"));
    }

    #[test]
    fn charts_prefer_svg_and_put_the_pareto_chart_first() {
        let names: Vec<String> = [
            "a.png",
            "a.svg",
            "b.png",
            "pareto-0.png",
            "pareto-0.svg",
            "raw.csv",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = charts(&names, &["pareto".to_string()]);
        assert_eq!(
            c,
            vec![
                ("pareto-0.svg".to_string(), Some("pareto-0.png".to_string())),
                ("a.svg".to_string(), Some("a.png".to_string())),
                ("b.png".to_string(), None),
            ]
        );
        // In the experiment's order, and in drawing order (memory sizes numerically).
        let names: Vec<String> = [
            "rates_vs_length-128MB-1.svg",
            "rates_vs_length-64MB-0.svg",
            "rates_vs_length-1GB-3.svg",
            "rates_vs_memory-0.svg",
            "pareto-0.svg",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let kinds = ["rates_vs_memory".to_string(), "rates_vs_length".to_string()];
        let order: Vec<String> = charts(&names, &kinds).into_iter().map(|c| c.0).collect();
        assert_eq!(
            order,
            [
                "rates_vs_memory-0.svg",
                "rates_vs_length-64MB-0.svg",
                "rates_vs_length-128MB-1.svg",
                "rates_vs_length-1GB-3.svg",
                "pareto-0.svg"
            ]
        );
    }
}
