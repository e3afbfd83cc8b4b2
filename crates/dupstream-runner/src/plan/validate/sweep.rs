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
