//! `[output]`: the table layout and the charts, with their defaults; a chart that cannot be
//! drawn from the experiment's series is refused before the run.

use crate::plan::error::{ConfigError, Source};
use crate::plan::schema::{ChartKind, DerivedKind, DerivedSpec, RawOutput, TableLayout};

/// The charts drawn when `[output] charts` is not given.
pub fn default_charts() -> Vec<ChartKind> {
    vec![ChartKind::RatesVsLength, ChartKind::RatesVsMemory]
}

/// The table layout (default: memory in rows, structures in columns) and the charts.
pub fn resolve(
    src: Source<'_>,
    output: RawOutput,
    derived: &[DerivedSpec],
) -> Result<(TableLayout, Vec<ChartKind>), ConfigError> {
    let charts = output.charts.unwrap_or_else(default_charts);
    for chart in &charts {
        match chart {
            ChartKind::RatesVsParam(p) if p.trim().is_empty() => {
                return Err(src.at_key(
                    src.whole(),
                    "charts",
                    "rates_vs_param needs a parameter name",
                ));
            }
            ChartKind::FnDifference
                if !derived.iter().any(|d| d.kind == DerivedKind::Difference) =>
            {
                return Err(src.at_key(
                    src.whole(),
                    "charts",
                    "fn_difference needs a `difference` series ([[derived]] kind = \"difference\")",
                ));
            }
            _ => {}
        }
    }
    Ok((output.table.unwrap_or_default(), charts))
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
            charts: Some(vec![c]),
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
}
