//! `name`, `--scale`, `[grid]` (memory, unfit, seeds) and `[metrics]` checkpoints and windows.

use crate::plan::error::{ConfigError, Source, line_of};
use crate::plan::schema::{RawMetrics, RawRun};
use crate::plan::units::parse_bits;
use crate::plan::{Sizing, StreamCase};
use toml::Spanned;

/// The experiment name: non-empty, letters, digits, `-` and `_` (it names directories).
pub fn name(src: Source<'_>, name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        let bad: String = name
            .chars()
            .filter(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
            .take(3)
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        Err(src.at_key(
            src.whole(),
            "name",
            if name.is_empty() {
                "must not be empty: it names the results directories".to_string()
            } else {
                format!(
                    "`{name}`: use only ASCII letters (a-z, A-Z), digits, '-' and '_' (it names the results directories); not {bad}"
                )
            },
        ))
    }
}

/// The scale (`--scale`, else `[run] scale`, else 1): at least 1. A zero is blamed on the
/// flag when it came from `--scale`, on `[run] scale` when it came from the file.
pub fn scale(
    src: Source<'_>,
    override_scale: Option<u64>,
    file_scale: Option<u64>,
) -> Result<u64, ConfigError> {
    match (override_scale, file_scale) {
        (Some(0), _) => Err(ConfigError::flag("--scale", SCALE_RULE)),
        (None, Some(0)) => Err(src.at_table_key("run", "scale", SCALE_RULE)),
        (Some(s), _) | (None, Some(s)) => Ok(s),
        (None, None) => Ok(1),
    }
}

/// What a scale must be.
pub const SCALE_RULE: &str = "must be a whole number >= 1";

/// `--scale` as given on a command line: a whole number, at least 1 (clap's error names the
/// flag and the value given).
pub fn parse_scale_flag(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(SCALE_RULE.to_string()),
    }
}

/// The scale the experiment runs at: `requested` (`--scale`, else `[run] scale`, else 1),
/// clamped to `[run] max_scale` with a warning (`--scale` above it), or refused (the file's
/// own `[run] scale` above it, or a `max_scale` of 0).
pub fn clamped_scale(
    src: Source<'_>,
    override_scale: Option<u64>,
    run: &RawRun,
) -> Result<(u64, Option<String>), ConfigError> {
    let requested = scale(src, override_scale, run.scale)?;
    let Some(max) = &run.max_scale else {
        return Ok((requested, None));
    };
    let (m, at) = (*max.get_ref(), max.span().start);
    if m == 0 {
        return Err(src.at_offset(at, "run.max_scale", "must be at least 1"));
    }
    if requested <= m {
        return Ok((requested, None));
    }
    if override_scale.is_none() {
        return Err(src.at_table_key(
            "run",
            "scale",
            format!("[run] scale = {requested} is above this file's max_scale = {m}"),
        ));
    }
    let line = line_of(src.text, at);
    Ok((
        m,
        Some(format!(
            "{}:{line}: key `run.max_scale`: --scale {requested} is above what this experiment allows (its streams are too short to divide further); running at scale {m}",
            src.file.display()
        )),
    ))
}

/// The grid's memory sizes in bits (nominal), each non-zero after scaling; at least one.
pub fn memories(
    src: Source<'_>,
    memory: &[Spanned<String>],
    scale: u64,
) -> Result<Vec<u64>, ConfigError> {
    let mut out: Vec<u64> = Vec::new();
    for m in memory {
        let at = m.span().start;
        let bits = parse_bits(m.get_ref())
            .map_err(|e| src.at_offset(at, "grid.memory", format!("bad unit: {e}")))?;
        if let Some(j) = out.iter().position(|&b| b == bits) {
            return Err(src.at_offset(
                at,
                "grid.memory",
                format!(
                    "`{}` is the same size as `{}` ({bits} bits); each memory size may appear once",
                    m.get_ref(),
                    memory[j].get_ref()
                ),
            ));
        }
        if bits / scale == 0 {
            return Err(src.at_offset(
                at,
                "grid.memory",
                format!("{} divided by --scale {scale} is zero bits", m.get_ref()),
            ));
        }
        out.push(bits);
    }
    if out.is_empty() {
        return Err(src.at_table_key("grid", "memory", "the grid needs at least one memory size"));
    }
    Ok(out)
}

/// `(checkpoints, checkpoint_every)`: one of the two (default 10 checkpoints), at least 1;
/// `checkpoint_every` is scaled.
pub fn checkpoints(
    src: Source<'_>,
    m: &RawMetrics,
    scale: u64,
) -> Result<(u64, Option<u64>), ConfigError> {
    if m.checkpoints.is_some() && m.checkpoint_every.is_some() {
        return Err(src.at_table_key(
            "metrics",
            "checkpoint_every",
            "give either checkpoints or checkpoint_every, not both",
        ));
    }
    if m.checkpoints == Some(0) {
        return Err(src.at_table_key("metrics", "checkpoints", "must be at least 1"));
    }
    if m.checkpoint_every == Some(0) {
        return Err(src.at_table_key("metrics", "checkpoint_every", "must be at least 1"));
    }
    Ok((
        m.checkpoints.unwrap_or(10),
        m.checkpoint_every.map(|c| (c / scale).max(1)),
    ))
}

/// The most checkpoints a stream may have: each is one row per cell in every output, and
/// more than this many draws files of gigabytes from one stream.
pub const MAX_CHECKPOINTS: u64 = 100_000;

/// Checkpoints that outnumber a stream's elements (as written) or exceed [`MAX_CHECKPOINTS`]
/// are refused at their key; a stream that `--scale` made shorter than `[metrics]
/// checkpoints` draws a warning (it is then checked after every element). `streams` are
/// `(n as written, n as run)` of the streams that declare their length.
pub fn checkpoint_counts(
    src: Source<'_>,
    m: &RawMetrics,
    streams: &[(u64, u64)],
    scale: u64,
) -> Result<Option<String>, ConfigError> {
    if let Some(c) = m.checkpoints {
        if c > MAX_CHECKPOINTS {
            return Err(src.at_table_key(
                "metrics",
                "checkpoints",
                format!("{c} is more than {MAX_CHECKPOINTS} checkpoints (each is a row per cell)"),
            ));
        }
        if let Some(&(n, _)) = streams.iter().filter(|s| s.0 < c).min() {
            return Err(src.at_table_key(
                "metrics",
                "checkpoints",
                format!("{c} checkpoints for a stream of {n} elements: at most one per element"),
            ));
        }
        if let Some(&(_, n)) = streams.iter().filter(|s| s.1 < c).min_by_key(|s| s.1) {
            let line = src
                .at_table_key("metrics", "checkpoints", "")
                .line
                .unwrap_or(1);
            return Ok(Some(format!(
                "{}:{line}: key `checkpoints`: at --scale {scale} a stream has {n} elements, fewer than {c} checkpoints: it is checked after every element",
                src.file.display()
            )));
        }
    }
    if let Some(every) = m.checkpoint_every.filter(|&e| e > 0) {
        let scaled = (every / scale).max(1);
        if let Some(&(_, n)) = streams
            .iter()
            .find(|s| s.1.div_ceil(scaled) > MAX_CHECKPOINTS)
        {
            return Err(src.at_table_key(
                "metrics",
                "checkpoint_every",
                format!(
                    "a checkpoint every {scaled} elements of a stream of {n} is more than {MAX_CHECKPOINTS} checkpoints (each is a row per cell)"
                ),
            ));
        }
    }
    Ok(None)
}

/// The `[metrics] window` in elements, scaled by `--scale` (at least 1); `None` when absent.
pub fn window(src: Source<'_>, m: &RawMetrics, scale: u64) -> Result<Option<u64>, ConfigError> {
    let Some(w) = &m.window else {
        return Ok(None);
    };
    match u64::try_from(*w.get_ref()) {
        Ok(v) if v >= 1 => Ok(Some((v / scale).max(1))),
        _ => Err(src.at_offset(
            w.span().start,
            "metrics.window",
            format!(
                "must be a whole number of elements, at least 1 (got {})",
                w.get_ref()
            ),
        )),
    }
}

/// The `[metrics] window_seconds`, divided by `--scale`; `None` when absent. It needs every
/// stream timestamped (`[stream] time`) and excludes `window`.
pub fn window_seconds(
    src: Source<'_>,
    m: &RawMetrics,
    streams: &[StreamCase],
    scale: u64,
) -> Result<Option<f64>, ConfigError> {
    let Some(w) = &m.window_seconds else {
        return Ok(None);
    };
    let at = |msg: String| src.at_offset(w.span().start, "metrics.window_seconds", msg);
    let secs = *w.get_ref();
    if !(secs.is_finite() && secs > 0.0) {
        return Err(at(format!(
            "must be a positive number of seconds (got {secs})"
        )));
    }
    if m.window.is_some() {
        return Err(at(
            "give one window: `window` (elements) or `window_seconds` (seconds), not both".into(),
        ));
    }
    if streams.iter().any(|s| s.time.is_none()) {
        return Err(at(
            "a time window needs timestamped elements: give `[stream] time` (e.g. `time = { process = \"poisson\", rate = 1000.0 }`; docs/experiments.md)".into(),
        ));
    }
    Ok(Some(secs / scale.max(1) as f64))
}

/// The `[metrics] warmup` in elements, scaled by `--scale`; `None` when absent.
pub fn warmup(src: Source<'_>, m: &RawMetrics, scale: u64) -> Result<Option<u64>, ConfigError> {
    let Some(w) = &m.warmup else {
        return Ok(None);
    };
    match u64::try_from(*w.get_ref()) {
        Ok(v) if v >= 1 => Ok(Some((v / scale).max(1))),
        _ => Err(src.at_offset(
            w.span().start,
            "metrics.warmup",
            format!(
                "must be a whole number of elements, at least 1 (got {})",
                w.get_ref()
            ),
        )),
    }
}

/// A warm-up that leaves no element to score (at least the length of a stream that declares
/// one, as run) is refused at its key: the windowed rates would be over an empty range.
/// `streams` are `(n as written, n as run)`.
pub fn warmup_within(
    src: Source<'_>,
    m: &RawMetrics,
    warmup: Option<u64>,
    streams: &[(u64, u64)],
    scale: u64,
) -> Result<(), ConfigError> {
    let (Some(w), Some(at)) = (warmup, &m.warmup) else {
        return Ok(());
    };
    match streams.iter().filter(|s| s.1 <= w).min_by_key(|s| s.1) {
        Some(&(_, n)) => Err(src.at_offset(
            at.span().start,
            "metrics.warmup",
            format!(
                "a warm-up of {w} elements{} leaves nothing to score in a stream of {n}: it must be shorter than the stream",
                if scale > 1 {
                    format!(" at --scale {scale}")
                } else {
                    String::new()
                }
            ),
        )),
        None => Ok(()),
    }
}

/// The longest time, in seconds, that a stream's arrivals and a time window may span: past it,
/// times lose the precision that orders arrivals a window apart, and counts derived from
/// them saturate.
pub const MAX_SECONDS: f64 = 1e15;

/// `x` as Rust prints it, or in scientific notation when that would be long.
pub fn number(x: f64) -> String {
    if x == 0.0 || (1e-4..1e9).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// A time window longer than [`MAX_SECONDS`], or one that holds the whole of every stream
/// (at its mean rate, where the process has one), is refused at its key: it would saturate
/// the counts derived from it, or make the windowed truth the since-start one.
pub fn window_seconds_within(
    src: Source<'_>,
    m: &RawMetrics,
    window_seconds: Option<f64>,
    streams: &[StreamCase],
) -> Result<(), ConfigError> {
    let (Some(w), Some(written)) = (window_seconds, &m.window_seconds) else {
        return Ok(());
    };
    let at = |msg: String| src.at_offset(written.span().start, "metrics.window_seconds", msg);
    if w > MAX_SECONDS {
        return Err(at(format!(
            "{} seconds saturates: a time window is at most {MAX_SECONDS:e} seconds",
            number(w)
        )));
    }
    let spans: Vec<f64> = streams
        .iter()
        .filter_map(|s| {
            let rate = s.time.as_ref()?.mean_rate()?;
            Some(s.spec.declared_len()? as f64 / rate)
        })
        .collect();
    if !spans.is_empty() && spans.len() == streams.len() && spans.iter().all(|&t| w >= t) {
        let longest = spans.iter().cloned().fold(0.0, f64::max);
        return Err(at(format!(
            "a window of {} seconds holds the whole stream ({} seconds at its mean rate, as run): every duplicate is within it, so it scores nothing a since-start run does not; give a shorter window",
            number(w),
            number(longest)
        )));
    }
    Ok(())
}

/// A structure's own `window_seconds` (the TLBF's) is the window `[metrics] window_seconds`
/// measures, when that is given: the two must be equal as written (both are divided by
/// `--scale` alike). The error is at the structure's key.
pub fn structure_window_seconds(
    src: Source<'_>,
    m: &RawMetrics,
    algorithms: &[Spanned<toml::Table>],
) -> Result<(), ConfigError> {
    let Some(metrics) = &m.window_seconds else {
        return Ok(());
    };
    let truth = *metrics.get_ref();
    for alg in algorithms {
        let Some(v) = alg.get_ref().get("window_seconds") else {
            continue;
        };
        let values: Vec<&toml::Value> = match v {
            toml::Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        let own = values
            .iter()
            .filter_map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)));
        if let Some(w) = own.into_iter().find(|w| *w != truth) {
            let name = alg
                .get_ref()
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or("?");
            return Err(src.at_key(
                alg.span(),
                "window_seconds",
                format!(
                    "{name}'s window of {} seconds differs from [metrics] window_seconds = {}, the window its verdicts are scored in; give both the same value",
                    number(w),
                    number(truth)
                ),
            ));
        }
    }
    Ok(())
}

/// A `[grid]` key that takes one of a few words: the value of the word given (the first
/// choice's when the key is absent), or an error at the word naming the choices.
fn one_of<T: Copy>(
    src: Source<'_>,
    key: &str,
    given: Option<&Spanned<String>>,
    choices: &[(&str, T)],
) -> Result<T, ConfigError> {
    let Some(v) = given else {
        return Ok(choices[0].1);
    };
    match choices.iter().find(|(word, _)| *word == v.get_ref()) {
        Some(&(_, value)) => Ok(value),
        None => {
            let words: Vec<String> = choices.iter().map(|(w, _)| format!("\"{w}\"")).collect();
            Err(src.at_offset(
                v.span().start,
                &format!("grid.{key}"),
                format!("`{}` is not one of {}", v.get_ref(), words.join(", ")),
            ))
        }
    }
}

/// `[grid] unfit`: whether a structure that cannot be built at a memory size skips those
/// cells (`"skip"`) or is an error (`"error"`, the default).
pub fn skip_unfit(src: Source<'_>, unfit: Option<&Spanned<String>>) -> Result<bool, ConfigError> {
    one_of(src, "unfit", unfit, &[("error", false), ("skip", true)])
}

/// `[grid] budget`: what a memory size bounds, the structure's state (`"state"`, the default)
/// or all the heap it holds (`"held"`).
pub fn sizing(src: Source<'_>, budget: Option<&Spanned<String>>) -> Result<Sizing, ConfigError> {
    one_of(
        src,
        "budget",
        budget,
        &[("state", Sizing::State), ("held", Sizing::Held)],
    )
}

/// A warning naming the seeds `[grid] seeds` repeats: their replicates are identical.
pub fn repeated_seeds(src: Source<'_>, seeds: Option<&[u64]>) -> Option<String> {
    let mut seen = std::collections::BTreeSet::new();
    let repeated: Vec<String> = seeds?
        .iter()
        .filter(|s| !seen.insert(**s))
        .map(u64::to_string)
        .collect();
    if repeated.is_empty() {
        return None;
    }
    let line = src.at_table_key("grid", "seeds", "").line.unwrap_or(1);
    Some(format!(
        "{}:{line}: key `seeds`: seed {} repeated; its replicates are identical and narrow the confidence intervals falsely",
        src.file.display(),
        repeated.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn src(text: &str) -> Source<'_> {
        Source {
            file: Path::new("g.toml"),
            text,
        }
    }

    #[test]
    fn names_and_scales() {
        let s = src("name = \"a b\"\n");
        assert!(name(s, "ok-name_1").is_ok());
        let e = name(s, "a b").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(1), Some("name")));
        assert!(name(s, "").is_err());
        assert_eq!(scale(s, None, None).unwrap(), 1);
        assert_eq!(scale(s, Some(64), Some(2)).unwrap(), 64);
        assert_eq!(scale(s, None, Some(2)).unwrap(), 2);
        let flag = scale(s, Some(0), Some(2)).unwrap_err();
        assert_eq!(flag.to_string(), "--scale: must be a whole number >= 1");
        let text = "name = \"x\"\n[run]\nscale = 0\n";
        let file = scale(src(text), None, Some(0)).unwrap_err();
        assert_eq!((file.line, file.key.as_deref()), (Some(3), Some("scale")));
        assert_eq!(parse_scale_flag("16"), Ok(16));
        for bad in ["0", "3.5", "-1", "x"] {
            assert!(
                parse_scale_flag(bad).unwrap_err().contains(SCALE_RULE),
                "{bad}"
            );
        }
    }

    #[test]
    fn max_scale_clamps_a_larger_scale_with_a_warning() {
        #[derive(serde::Deserialize)]
        struct Doc {
            run: RawRun,
        }
        let text = "[run]\nmax_scale = 4\n";
        let run = toml::from_str::<Doc>(text).unwrap().run;
        let s = src(text);
        assert_eq!(clamped_scale(s, Some(2), &run).unwrap(), (2, None));
        assert_eq!(clamped_scale(s, None, &run).unwrap(), (1, None));
        let (scale, warning) = clamped_scale(s, Some(64), &run).unwrap();
        assert_eq!(scale, 4);
        let w = warning.unwrap();
        assert!(
            w.starts_with("g.toml:2: key `run.max_scale`: --scale 64"),
            "{w}"
        );
        let text = "[run]\nscale = 8\nmax_scale = 4\n";
        let run = toml::from_str::<Doc>(text).unwrap().run;
        let e = clamped_scale(src(text), None, &run).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(2), Some("scale")), "{e}");
        let text = "[run]\nmax_scale = 0\n";
        let run = toml::from_str::<Doc>(text).unwrap().run;
        assert!(clamped_scale(src(text), None, &run).is_err());
        assert_eq!(
            clamped_scale(s, Some(16), &RawRun::default()).unwrap(),
            (16, None)
        );
    }

    #[test]
    fn the_same_size_spelled_twice_is_refused() {
        let text = "[grid]\nmemory = [\"64MB\", \"2^29 bits\"]\n";
        #[derive(serde::Deserialize)]
        struct Doc {
            grid: crate::plan::schema::RawGrid,
        }
        let raw = toml::from_str::<Doc>(text).unwrap().grid;
        let e = memories(src(text), &raw.memory, 1).unwrap_err();
        assert!(e.message.contains("is the same size as `64MB`"), "{e}");
    }

    #[test]
    fn memories_parse_scale_and_name_the_line() {
        let text = "[grid]\nmemory = [\"1KB\", \"8 bits\", \"3 parsecs\"]\n";
        #[derive(serde::Deserialize)]
        struct Doc {
            grid: crate::plan::schema::RawGrid,
        }
        let raw = toml::from_str::<Doc>(text).unwrap().grid;
        let e = memories(src(text), &raw.memory, 1).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("unknown unit"), "{e}");
        let ok = &raw.memory[..2];
        assert_eq!(memories(src(text), ok, 1).unwrap(), vec![8192, 8]);
        let e = memories(src(text), ok, 16).unwrap_err();
        assert!(e.message.contains("is zero bits"), "{e}");
        assert!(memories(src(text), &[], 1).is_err());
    }

    #[test]
    fn checkpoints_one_or_the_other() {
        let s = src("");
        let m = |c, e| RawMetrics {
            checkpoints: c,
            checkpoint_every: e,
            window: None,
            window_seconds: None,
            warmup: None,
        };
        assert_eq!(checkpoints(s, &m(None, None), 4).unwrap(), (10, None));
        assert_eq!(
            checkpoints(s, &m(None, Some(100)), 4).unwrap(),
            (10, Some(25))
        );
        assert_eq!(checkpoints(s, &m(None, Some(2)), 4).unwrap(), (10, Some(1)));
        assert!(checkpoints(s, &m(Some(3), Some(100)), 1).is_err());
        assert!(checkpoints(s, &m(Some(0), None), 1).is_err());
    }

    #[test]
    fn windows_scale_and_bad_values_name_the_line() {
        #[derive(serde::Deserialize)]
        struct Doc {
            metrics: RawMetrics,
        }
        let ok = "[metrics]\nwindow = 1000\n";
        let m = toml::from_str::<Doc>(ok).unwrap().metrics;
        assert_eq!(window(src(ok), &m, 1).unwrap(), Some(1000));
        assert_eq!(window(src(ok), &m, 16).unwrap(), Some(62));
        assert_eq!(window(src(ok), &m, 4000).unwrap(), Some(1));
        assert_eq!(window(src(""), &RawMetrics::default(), 1).unwrap(), None);
        for bad in ["[metrics]\nwindow = 0\n", "[metrics]\nwindow = -5\n"] {
            let m = toml::from_str::<Doc>(bad).unwrap().metrics;
            let e = window(src(bad), &m, 1).unwrap_err();
            assert_eq!(
                (e.line, e.key.as_deref()),
                (Some(2), Some("metrics.window")),
                "{e}"
            );
        }
    }
}
