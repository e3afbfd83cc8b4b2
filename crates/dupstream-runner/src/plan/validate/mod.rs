//! Validation, split by concern: each part checks one kind of table and names the file, line
//! and key of what is wrong. [`parse`] runs them in a fixed order, so the first error is
//! always the same one.

pub mod algorithms;
pub mod charts;
pub mod derived;
pub mod grid;
pub mod reference;
pub mod streams;
pub mod sweep;

use crate::plan::error::{ConfigError, Source, key_at, line_of, unknown_field};
use crate::plan::schema::RawExperiment;
use crate::plan::{Experiment, Registry};
use std::path::Path;

/// Parses and validates experiment text; `scale_override` is `--scale`.
pub fn parse(
    file: &Path,
    text: &str,
    scale_override: Option<u64>,
    registry: &Registry,
) -> Result<Experiment, ConfigError> {
    parse_with(file, text, scale_override, registry, true)
}

/// [`parse`], opening a replayed file to check it only when `probe` is set (a recorded run
/// read back from its `run.toml` does not need its input).
pub fn parse_with(
    file: &Path,
    text: &str,
    scale_override: Option<u64>,
    registry: &Registry,
    probe: bool,
) -> Result<Experiment, ConfigError> {
    let toml_error = |e: toml::de::Error| {
        if let Some((table, line)) = single_bracketed(text, e.span(), e.message()) {
            return ConfigError::new(
                file,
                Some(line),
                Some(&table),
                format!("write `[[{table}]]` (an array of tables, one per entry), not `[{table}]`"),
            );
        }
        let line = e.span().map(|s| line_of(text, s.start));
        // An unknown variant is a value: the key is the one written on its line.
        let key = if e.message().contains("unknown variant `") {
            key_at(text, e.span()).or_else(|| unknown_field(e.message()))
        } else {
            unknown_field(e.message()).or_else(|| key_at(text, e.span()))
        };
        ConfigError::new(file, line, key.as_deref(), e.message())
    };
    let raw: RawExperiment = toml::from_str(text).map_err(toml_error)?;
    // The run records the file as a TOML table (`run.toml`, the digest), whose integers are
    // i64: a count above 2^63 − 1 that the typed parse took must be refused here, not when the
    // run writes its record.
    toml::from_str::<toml::Table>(text).map_err(toml_error)?;
    validate(Source { file, text }, raw, scale_override, registry, probe)
}

/// The checks in order: grid (name, scale, memory), streams, algorithms and their cells,
/// checkpoints, derived series, reference, table and charts.
fn validate(
    src: Source<'_>,
    raw: RawExperiment,
    scale_override: Option<u64>,
    registry: &Registry,
    probe: bool,
) -> Result<Experiment, ConfigError> {
    grid::name(src, &raw.name)?;
    let (scale, clamped) = grid::clamped_scale(src, scale_override, &raw.run)?;
    let memories = grid::memories(src, &raw.grid.memory, scale)?;
    let tuning = raw.tuning.as_ref().map(|t| &t.stream);
    let streams = streams::expand(
        src,
        &raw.stream,
        tuning,
        raw.grid.seeds.as_deref(),
        scale,
        probe,
    )?;
    let algorithms = algorithms::expand(src, &raw.algorithm, registry)?;
    let skip_unfit = grid::skip_unfit(src, raw.grid.unfit.as_ref())?;
    let sizing = grid::sizing(src, raw.grid.budget.as_ref())?;
    let (cells, skipped) = algorithms::cells(
        src,
        streams.len(),
        &memories,
        &algorithms,
        scale,
        skip_unfit,
        sizing,
    )?;
    let (checkpoints, checkpoint_every) = grid::checkpoints(src, &raw.metrics, scale)?;
    let window = grid::window(src, &raw.metrics, scale)?;
    let window_seconds = grid::window_seconds(src, &raw.metrics, &streams, scale)?;
    let warmup = grid::warmup(src, &raw.metrics, scale)?;
    let lengths: Vec<(u64, u64)> = streams
        .iter()
        .filter_map(|s| Some((s.nominal.declared_len()?, s.spec.declared_len()?)))
        .collect();
    let short = grid::checkpoint_counts(src, &raw.metrics, &lengths, scale)?;
    grid::warmup_within(src, &raw.metrics, warmup, &lengths, scale)?;
    grid::window_seconds_within(src, &raw.metrics, window_seconds, &streams)?;
    grid::structure_window_seconds(src, &raw.metrics, &raw.algorithm)?;
    let labels: Vec<String> = cells.iter().map(|c| c.label.clone()).collect();
    derived::check(src, &raw.derived, &labels)?;
    let (reference, moved) = reference::resolve(src, &raw.name, raw.reference.as_ref())?;
    let compress = raw.output.compress.unwrap_or(false);
    let (table, charts) = charts::resolve(src, raw.output, &raw.derived)?;
    charts::check_params(src, &charts, &raw.stream, &raw.algorithm)?;
    charts::check_window(src, &charts, window.is_some() || window_seconds.is_some())?;
    let mut warnings: Vec<String> = clamped
        .into_iter()
        .chain(moved)
        .chain(short)
        .chain(skipped)
        .collect();
    warnings.extend(algorithms::formula_labels(src, &raw.algorithm));
    warnings.extend(algorithms::too_small(src, &cells, scale));
    warnings.extend(streams::few_duplicates(src, &streams, scale, |n| {
        checkpoint_count(n, checkpoints, checkpoint_every)
    }));
    warnings.extend(grid::repeated_seeds(src, raw.grid.seeds.as_deref()));
    Ok(Experiment {
        memory_grid: memories.clone(),
        sizing,
        file: src.file.to_path_buf(),
        source: src.text.to_string(),
        name: raw.name,
        description: raw.description,
        paper: raw.paper,
        reference,
        scale,
        streams,
        cells,
        checkpoint_every,
        checkpoints,
        window,
        window_seconds,
        warmup,
        table,
        charts,
        compress,
        derived: raw.derived,
        warnings,
    })
}

/// The table and line of a `[name]` header where `[[name]]` is expected: serde's "invalid
/// type: map, expected a sequence" at that header, or "duplicate key" where `[name]` and
/// `[[name]]` headers are mixed.
fn single_bracketed(
    text: &str,
    span: Option<std::ops::Range<usize>>,
    message: &str,
) -> Option<(String, usize)> {
    let start = span?.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let here = text[line_start..].lines().next()?.trim();
    let name = if message.contains("expected a sequence") {
        here.strip_prefix('[')?.strip_suffix(']')?
    } else if message.contains("duplicate key") {
        let name = here.trim_start_matches('[').trim_end_matches(']').trim();
        let double = format!("[[{name}]]");
        if !text.lines().any(|l| l.trim() == double) {
            return None;
        }
        name
    } else {
        return None;
    };
    let name = name.trim();
    let single = format!("[{name}]");
    let line = text.lines().position(|l| l.trim() == single)? + 1;
    Some((name.to_string(), line))
}

/// The number of checkpoints of a stream of `n` elements (as [`Experiment::checkpoints`]).
fn checkpoint_count(n: u64, checkpoints: u64, every: Option<u64>) -> u64 {
    match every {
        Some(e) => n.div_ceil(e.max(1)).max(1),
        None => checkpoints.min(n.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::sweep::expand;
    use super::*;

    #[test]
    fn expand_is_the_cartesian_product_of_arrays() {
        let t: toml::Table =
            toml::from_str("a = [1, 2]\nb = [\"x\", \"y\", \"z\"]\nc = 5").unwrap();
        let all = expand(&t);
        assert_eq!(all.len(), 6);
        assert!(all.iter().all(|x| x["c"].as_integer() == Some(5)));
        let t: toml::Table = toml::from_str("a = []\nb = [{ x = 1 }]").unwrap();
        assert_eq!(
            expand(&t).len(),
            1,
            "empty arrays and arrays of tables are kept whole"
        );
    }

    #[test]
    fn a_whole_experiment_validates() {
        let text = "name = \"ok\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = [1000, 2000]\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"1KB\", \"2KB\"]\nseeds = [1, 2]\n[[algorithm]]\nname = \"bloom\"\nk = [1, 2]\n";
        let e = parse(Path::new("ok.toml"), text, None, &Registry::builtin()).unwrap();
        assert_eq!(e.streams.len(), 4);
        assert_eq!(e.cells.len(), 4 * 2 * 2);
        assert_eq!(e.cells[0].label, "bloom k=1");
        let e = parse(Path::new("ok.toml"), "name = 3", None, &Registry::builtin()).unwrap_err();
        assert_eq!(e.line, Some(1));
    }
}
