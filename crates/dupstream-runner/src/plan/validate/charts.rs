//! `[output]`: the table layout and the charts, with their defaults; a chart that cannot be
//! drawn from the experiment's series is refused before the run.

use crate::plan::error::{ConfigError, Source};
use crate::plan::schema::{ChartKind, ChartSpec, DerivedKind, DerivedSpec, RawOutput, TableLayout};

/// The charts drawn when `[output] charts` is not given.
pub fn default_charts() -> Vec<ChartSpec> {
    vec![
        ChartKind::RatesVsLength.into(),
        ChartKind::RatesVsMemory.into(),
    ]
}

/// The table layout (default: memory in rows, structures in columns) and the charts.
pub fn resolve(
    src: Source<'_>,
    output: RawOutput,
    derived: &[DerivedSpec],
) -> Result<(TableLayout, Vec<ChartSpec>), ConfigError> {
    let charts = output.charts.unwrap_or_else(default_charts);
    for chart in &charts {
        match &chart.kind {
            ChartKind::RatesVsParam(p) if p.trim().is_empty() => {
                return Err(src.at_table_key(
                    "output",
                    "charts",
                    "rates_vs_param needs a parameter name",
                ));
            }
            ChartKind::FnDifference
                if !derived.iter().any(|d| d.kind == DerivedKind::Difference) =>
            {
                return Err(src.at_table_key(
                    "output",
                    "charts",
                    "fn_difference needs a `difference` series ([[derived]] kind = \"difference\")",
                ));
            }
            _ => {}
        }
    }
    Ok((output.table.unwrap_or_default(), charts))
}

/// A Pareto chart of a windowed error needs `[metrics] window`.
pub fn check_window(
    src: Source<'_>,
    charts: &[ChartSpec],
    window: bool,
) -> Result<(), ConfigError> {
    use crate::plan::schema::ErrorMetric as E;
    let windowed = charts.iter().any(|c| {
        matches!(
            c.error,
            Some(E::WindowFpr) | Some(E::WindowFnr) | Some(E::WindowSum)
        )
    });
    if windowed && !window {
        return Err(src.at_table_key(
            "output",
            "charts",
            "pareto: a windowed error (w_…) needs [metrics] window",
        ));
    }
    Ok(())
}

/// A `rates_vs_param` chart must name something the rows will have: `memory`, `n`, a key of
/// the stream or a key of some `[[algorithm]]` table.
pub fn check_params(
    src: Source<'_>,
    charts: &[ChartSpec],
    stream: &toml::Spanned<toml::Table>,
    algorithms: &[toml::Spanned<toml::Table>],
) -> Result<(), ConfigError> {
    let mut known: Vec<&str> = vec!["memory", "n"];
    known.extend(stream.get_ref().keys().map(String::as_str));
    for a in algorithms {
        known.extend(
            a.get_ref()
                .keys()
                .map(String::as_str)
                .filter(|k| !matches!(*k, "name" | "label" | "memory")),
        );
    }
    for chart in charts {
        if let ChartKind::RatesVsParam(p) = &chart.kind
            && !known.contains(&p.as_str())
        {
            known.sort_unstable();
            known.dedup();
            return Err(src.at_table_key(
                    "output",
                    "charts",
                    format!(
                        "rates_vs_param: no structure or stream of this experiment has a parameter `{p}` (known: {})",
                        known.join(", ")
                    ),
                ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::schema::Dim;
    use std::path::Path;

    #[test]
    fn defaults_and_impossible_charts() {
        let text = "[output]\ncharts = [\"fn_difference\"]\n";
        let src = Source {
            file: Path::new("c.toml"),
            text,
        };
        let (table, charts) = resolve(src, RawOutput::default(), &[]).unwrap();
        assert_eq!(
            (table.rows, table.columns),
            (vec![Dim::Memory], Dim::Algorithm)
        );
        assert_eq!(charts, default_charts());
        let out = |c: ChartKind| RawOutput {
            table: None,
            charts: Some(vec![c.into()]),
            compress: None,
        };
        let e = resolve(src, out(ChartKind::FnDifference), &[]).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("charts"), Some(2)));
        let diff = DerivedSpec {
            label: "d".into(),
            kind: DerivedKind::Difference,
            a: "x".into(),
            b: "y".into(),
        };
        assert!(resolve(src, out(ChartKind::FnDifference), &[diff]).is_ok());
        assert!(resolve(src, out(ChartKind::RatesVsParam(" ".into())), &[]).is_err());
    }

    #[test]
    fn chart_entries_with_options() {
        use crate::plan::schema::ErrorMetric;
        let parse = |t: &str| -> Result<Vec<ChartSpec>, String> {
            #[derive(serde::Deserialize)]
            struct C {
                charts: Vec<ChartSpec>,
            }
            toml::from_str::<C>(&format!("charts = {t}"))
                .map(|c| c.charts)
                .map_err(|e| e.to_string())
        };
        let c = parse(
            r#"["rates_vs_length", { chart = "rates_vs_memory", log_y = false },
               { rates_vs_param = "s", x_pow2 = true, x_label = "S" }, { chart = "pareto", error = "fnr" }]"#,
        )
        .unwrap();
        assert_eq!(c[0], ChartKind::RatesVsLength.into());
        assert_eq!(
            (&c[1].kind, c[1].log_y),
            (&ChartKind::RatesVsMemory, Some(false))
        );
        assert_eq!(c[2].kind, ChartKind::RatesVsParam("s".into()));
        assert!(c[2].x_pow2 && c[2].x_label.as_deref() == Some("S"));
        assert_eq!(c[3].error, Some(ErrorMetric::Fnr));
        for (bad, why) in [
            (r#"["rates_vs_lenght"]"#, "unknown chart `rates_vs_lenght`"),
            (
                r#"[{ chart = "pareto", logy = true }]"#,
                "unknown chart option `logy`",
            ),
            (
                r#"[{ chart = "rates_vs_k", error = "fnr" }]"#,
                "pareto only",
            ),
            (
                r#"[{ chart = "rates_vs_k", x_pow2 = true }]"#,
                "rates_vs_param only",
            ),
            (
                r#"[{ chart = "pareto", error = "e" }]"#,
                "unknown error `e`",
            ),
            (r#"[{ log_y = true }]"#, "needs `chart"),
            ("[3]", "a name or a table"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
