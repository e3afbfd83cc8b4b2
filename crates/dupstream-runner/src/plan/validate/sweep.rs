//! Sweeps: the cartesian product of a table's arrays, and the check that no array repeats a
//! value.

use crate::plan::error::{ConfigError, Source};
use std::ops::Range;

/// A swept array holding one value twice: its cells would be identical and pooled as
/// replicates (narrowing the confidence intervals falsely).
pub fn repeated_value(
    src: Source<'_>,
    span: &Range<usize>,
    key: &str,
    value: &toml::Value,
) -> Result<(), ConfigError> {
    let Some(items) = value.as_array() else {
        return Ok(());
    };
    for (i, item) in items.iter().enumerate() {
        if items[..i].contains(item) {
            return Err(src.at_key(
                span.clone(),
                key,
                format!(
                    "{} appears twice in the sweep; its cells would be identical and averaged as replicates",
                    match item {
                        toml::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// The cartesian product of a table's array values (arrays of tables are kept whole).
pub fn expand(table: &toml::Table) -> Vec<toml::Table> {
    let mut out = vec![toml::Table::new()];
    for (k, v) in table {
        match v {
            toml::Value::Array(items)
                if !items.is_empty() && !items.iter().all(toml::Value::is_table) =>
            {
                let mut next = Vec::with_capacity(out.len() * items.len());
                for base in &out {
                    for item in items {
                        let mut t = base.clone();
                        t.insert(k.clone(), item.clone());
                        next.push(t);
                    }
                }
                out = next;
            }
            _ => {
                for t in &mut out {
                    t.insert(k.clone(), v.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn arrays_are_swept_as_a_cartesian_product_in_order() {
        let t = table("name = \"sbf\"\nk = [1, 2]\np = [3, 4, 5]\nmax = 1");
        let all = expand(&t);
        assert_eq!(all.len(), 6);
        // The later key varies fastest; scalars are in every combination.
        let kp: Vec<(i64, i64)> = all
            .iter()
            .map(|c| (c["k"].as_integer().unwrap(), c["p"].as_integer().unwrap()))
            .collect();
        assert_eq!(kp, vec![(1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 5)]);
        assert!(
            all.iter()
                .all(|c| c["name"].as_str() == Some("sbf") && c["max"].as_integer() == Some(1))
        );
    }

    #[test]
    fn nothing_swept_is_one_combination_and_arrays_of_tables_stay_whole() {
        assert_eq!(expand(&toml::Table::new()), vec![toml::Table::new()]);
        let t = table("name = \"a\"\ninner = [{ x = 1 }, { x = 2 }]\nempty = []");
        let all = expand(&t);
        assert_eq!(all, vec![t.clone()], "an array of tables is one value");
    }

    #[test]
    fn a_value_repeated_in_a_sweep_is_refused_naming_it() {
        let text = "[[algorithm]]\nname = \"bloom\"\nk = [2, 3, 2]\n";
        let src = Source {
            file: Path::new("e.toml"),
            text,
        };
        let t = table(text);
        let algo = t["algorithm"].as_array().unwrap()[0].as_table().unwrap();
        let span = 0..text.len();
        let e = repeated_value(src, &span, "k", &algo["k"]).unwrap_err();
        assert!(e.message.contains("2 appears twice"), "{}", e.message);
        assert_eq!(e.key.as_deref(), Some("k"));
        let names = toml::Value::Array(vec!["a".into(), "a".into()]);
        let e = repeated_value(src, &span, "label", &names).unwrap_err();
        assert!(e.message.starts_with("a appears twice"), "{}", e.message);
        // Distinct values, and a scalar, pass.
        let ok = toml::Value::Array(vec![1.into(), 2.into()]);
        assert!(repeated_value(src, &span, "k", &ok).is_ok());
        assert!(repeated_value(src, &span, "k", &1.into()).is_ok());
    }
}
