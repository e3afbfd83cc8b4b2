//! A structure table refused: a key its mode ignores, or what the registry refuses, each at
//! the key at fault.

use crate::plan::Registry;
use crate::plan::error::{
    ConfigError, Source, culprit_key, line_of_key, mentioned_key, unknown_field,
};
use std::ops::Range;

/// Keys that a structure's mode derives itself, so that a value written for them would be
/// ignored (or, below the structure's own check, blamed on another line): `(structure, mode
/// key, mode value, keys)`.
pub const IGNORED_IN_MODE: &[(&str, &str, &str, &[&str])] = &[(
    "bdbf",
    "schedule",
    "running_counter",
    &["cell_bits", "blocks", "k"],
)];

/// Refuses, at its own line, a key the structure's mode ignores ([`IGNORED_IN_MODE`]).
pub(super) fn ignored_in_mode(
    src: Source<'_>,
    span: &Range<usize>,
    combo: &toml::Table,
) -> Result<(), ConfigError> {
    let name = combo.get("name").and_then(|v| v.as_str());
    for &(structure, mode, value, keys) in IGNORED_IN_MODE {
        if name != Some(structure) || combo.get(mode).and_then(|v| v.as_str()) != Some(value) {
            continue;
        }
        if let Some(key) = keys.iter().find(|k| combo.contains_key(**k)) {
            return Err(src.at_key(
                span.clone(),
                key,
                format!(
                    "`{key}` is not used with {mode} = \"{value}\", which derives it from the budget and the window; remove it"
                ),
            ));
        }
    }
    Ok(())
}

/// A structure table the registry refuses: the key at fault is the unknown field, the key whose
/// value is wrong, or `name` for an unknown structure.
pub(super) fn structure_error(
    src: Source<'_>,
    span: &Range<usize>,
    message: String,
    combo: &toml::Table,
    registry: &Registry,
) -> ConfigError {
    let name = combo.get("name").and_then(toml::Value::as_str);
    if !name.is_some_and(|n| registry.knows(n)) {
        let msg = match name {
            Some(n) => format!(
                "unknown algorithm `{n}` (known: {})",
                registry.names().join(", ")
            ),
            None => format!("unknown algorithm: {message}"),
        };
        return src.at_key(span.clone(), "name", msg);
    }
    let named: Vec<String> = combo.keys().filter(|k| *k != "name").cloned().collect();
    let key = unknown_field(&message)
        .filter(|k| !message.contains("unknown variant") && !registry.knows(k))
        .or_else(|| {
            culprit_key(
                combo,
                &message,
                &["name"],
                |k| line_of_key(src.text, span.clone(), k),
                |t| registry.parse(t).map(|_| ()),
            )
        })
        .or_else(|| mentioned_key(&message, &named))
        .unwrap_or_else(|| "name".to_string());
    src.at_key(span.clone(), &key, message)
}
