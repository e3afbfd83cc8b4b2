//! `[tuning] stream`: what it may replace of `[stream]`.

use super::locate::tuning_error;
use crate::plan::error::{ConfigError, Source};
use toml::Spanned;

/// `[tuning] stream`: at least two seeds (the first tunes, the others are scored), and one
/// value for each of some `[stream]` fields, other than `kind` and `seed`.
pub(super) fn check_tuning(
    src: Source<'_>,
    tuning: &Spanned<toml::Table>,
    seeds: Option<&[u64]>,
) -> Result<(), ConfigError> {
    if seeds.is_none_or(|s| s.len() < 2) {
        return Err(src.at_table_key(
            "grid",
            "seeds",
            format!(
                "[tuning] needs at least 2 seeds in [grid] seeds (the first tunes, the others are scored); given {}",
                seeds.map_or("none".into(), |s| format!("{s:?}"))
            ),
        ));
    }
    let at = |key: &str, msg: String| tuning_error(src, tuning, key, msg);
    if tuning.get_ref().is_empty() {
        let mut e = src.at_table_key(
            "tuning",
            "stream",
            "[tuning] stream replaces no [stream] field; give some, e.g. `{ offset = 0, limit = 1000 }`",
        );
        e.key = Some("tuning.stream".into());
        return Err(e);
    }
    for (key, value) in tuning.get_ref() {
        match (key.as_str(), value) {
            ("kind" | "seed", _) => {
                return Err(at(
                    key,
                    format!(
                        "[tuning] stream cannot replace `{key}`: the tuning stream is of [stream]'s kind, and its seed is the first of [grid] seeds"
                    ),
                ));
            }
            (_, toml::Value::Array(_)) => {
                return Err(at(
                    key,
                    "[tuning] stream takes one value per field, not an array: the tuning stream is not swept".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
