//! `[[derived]]`: every derived series names existing series and a fresh label.

use crate::plan::error::{ConfigError, Source};
use crate::plan::schema::DerivedSpec;

/// Checks the derived series against the measured labels, in declaration order (a derived
/// series may use an earlier one).
pub fn check(src: Source<'_>, specs: &[DerivedSpec], labels: &[String]) -> Result<(), ConfigError> {
    let mut known: Vec<&str> = labels.iter().map(String::as_str).collect();
    for d in specs {
        for (key, input) in [("a", &d.a), ("b", &d.b)] {
            if !known.contains(&input.as_str()) {
                return Err(src.at(
                    &format!("derived.{key}"),
                    format!(
                        "[[derived]] `{}`: no series labelled `{input}` (known: {})",
                        d.label,
                        known.join(", ")
                    ),
                ));
            }
        }
        if known.contains(&d.label.as_str()) {
            return Err(src.at(
                "derived.label",
                format!("[[derived]] label `{}` is already used", d.label),
            ));
        }
        known.push(&d.label);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::schema::DerivedKind;
    use std::path::Path;

    fn spec(label: &str, a: &str, b: &str) -> DerivedSpec {
        DerivedSpec {
            label: label.into(),
            kind: DerivedKind::Difference,
            a: a.into(),
            b: b.into(),
        }
    }

    #[test]
    fn names_unknown_series_and_reused_labels() {
        let src = Source {
            file: Path::new("f.toml"),
            text: "",
        };
        let labels = vec!["SBF".to_string(), "Buffering".to_string()];
        assert!(
            check(
                src,
                &[spec("x", "SBF", "Buffering"), spec("y", "x", "SBF")],
                &labels
            )
            .is_ok()
        );
        let e = check(src, &[spec("x", "SBF", "nope")], &labels).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
        assert_eq!(e.key.as_deref(), Some("derived.b"));
        let e = check(src, &[spec("SBF", "SBF", "SBF")], &labels).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("derived.label"));
    }
}
