//! `[stream]`: swept values expanded, then one stream per seed, each validated as written and
//! after `--scale`.

use crate::plan::StreamCase;
use crate::plan::error::{ConfigError, Source, culprit_key, line_of_key, mentioned_key};
use dupstream_streams::{StreamSpec, TimeSpec};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Every stream of the sweep: each combination of swept values, for each seed (`[grid] seeds`,
/// else the stream's own `seed`, else 1). `probe`: open a replayed file to check it (a run, a
/// check); a recorded run read back (`run.toml`) does not need its input.
pub fn expand(
    src: Source<'_>,
    stream: &Spanned<toml::Table>,
    seeds: Option<&[u64]>,
    scale: u64,
    probe: bool,
) -> Result<Vec<StreamCase>, ConfigError> {
    let span = stream.span();
    for (key, value) in stream.get_ref() {
        super::sweep::repeated_value(src, &span, key, value)?;
    }
    let mut out = Vec::new();
    for combo in super::sweep::expand(stream.get_ref()) {
        for seed in seeds_of(src, &span, &combo, seeds)? {
            let table = with_seed_and_path(src.file, combo.clone(), seed);
            out.push(case(src, &span, table, seed, scale, probe)?);
        }
    }
    Ok(out)
}

/// Fewer expected duplicates per checkpoint than this, in a scaled stream, draws a warning:
/// the rates at each checkpoint rest on too few events to mean much.
pub const MIN_DUPLICATES_PER_CHECKPOINT: f64 = 1000.0;

/// The expected number of duplicates in a stream, where it has a closed form (uniform draws:
/// `N·(1 − d)` for a distinct fraction `d`, `N − U·(1 − (1 − 1/U)^N)` for a universe `U`);
/// `None` for other kinds (the run then checks the exact count after the ground truth).
pub fn expected_duplicates(spec: &StreamSpec) -> Option<f64> {
    match *spec {
        StreamSpec::Uniform {
            n,
            distinct_fraction: Some(d),
            ..
        } => Some(n as f64 * (1.0 - d)),
        StreamSpec::Uniform {
            n,
            universe: Some(u),
            ..
        } if u > 0 => {
            let (n, u) = (n as f64, u as f64);
            let distinct = u * -((n * (-1.0 / u).ln_1p()).exp_m1());
            Some(n - distinct)
        }
        _ => None,
    }
}

/// One warning naming the scaled stream with the fewest expected duplicates per checkpoint,
/// when that is below [`MIN_DUPLICATES_PER_CHECKPOINT`] (none at scale 1, where the stream is
/// the paper's own). `checkpoints(n)` is the number of checkpoints of a stream of `n`.
pub fn few_duplicates(
    src: Source<'_>,
    streams: &[StreamCase],
    scale: u64,
    checkpoints: impl Fn(u64) -> u64,
) -> Option<String> {
    if scale <= 1 {
        return None;
    }
    let (per, case) = streams
        .iter()
        .filter_map(|c| {
            let d = expected_duplicates(&c.spec)?;
            let n = c.spec.declared_len()?;
            Some((d / checkpoints(n).max(1) as f64, c))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    (per < MIN_DUPLICATES_PER_CHECKPOINT).then(|| {
        format!(
            "{}: at --scale {scale} the stream {} has about {per:.0} duplicates per checkpoint (fewer than {MIN_DUPLICATES_PER_CHECKPOINT:.0}): its rates are noisy; use a smaller --scale",
            src.file.display(),
            case.spec.describe()
        )
    })
}

/// The seeds of one combination.
fn seeds_of(
    src: Source<'_>,
    span: &Range<usize>,
    combo: &toml::Table,
    seeds: Option<&[u64]>,
) -> Result<Vec<u64>, ConfigError> {
    let seeds: Vec<u64> = match (seeds, combo.get("seed")) {
        (Some(s), _) => s.to_vec(),
        (None, Some(v)) => vec![
            v.as_integer()
                .and_then(|i| u64::try_from(i).ok())
                .ok_or_else(|| {
                    src.at_key(span.clone(), "seed", "must be a non-negative integer")
                })?,
        ],
        (None, None) => vec![1],
    };
    if seeds.is_empty() {
        return Err(src.at_table_key("grid", "seeds", "needs at least one seed"));
    }
    Ok(seeds)
}

/// The stream table with its seed (generated streams) or its path made relative to the
/// experiment file (replays).
fn with_seed_and_path(file: &Path, mut table: toml::Table, seed: u64) -> toml::Table {
    let replay = table.get("kind").and_then(|v| v.as_str()) == Some("replay");
    if !replay {
        table.insert("seed".into(), toml::Value::Integer(seed as i64));
        return table;
    }
    if let Some(toml::Value::String(p)) = table.get("path") {
        let path = Path::new(p);
        if path.is_relative() {
            let base = file.parent().unwrap_or(Path::new("."));
            let joined = base.join(path).to_string_lossy().into_owned();
            table.insert("path".into(), toml::Value::String(joined));
        }
    }
    table
}

/// One validated stream, as written and as run.
fn case(
    src: Source<'_>,
    span: &Range<usize>,
    mut table: toml::Table,
    seed: u64,
    scale: u64,
    probe: bool,
) -> Result<StreamCase, ConfigError> {
    // `time`, the arrival process, is not part of the key stream: parsed on its own.
    let time = table
        .remove("time")
        .map(|v| {
            v.try_into::<TimeSpec>().map_err(|e: toml::de::Error| {
                src.at_key(
                    span.clone(),
                    "time",
                    format!("[stream] time: {}", e.message()),
                )
            })
        })
        .transpose()?;
    let keys: Vec<String> = table.keys().cloned().collect();
    // The value at fault, named by the message, else the table.
    let at = |msg: String| {
        let key = mentioned_key(&msg, &keys).unwrap_or_else(|| "stream".into());
        src.at_key(span.clone(), &key, msg)
    };
    let parse = |t: toml::Table| -> Result<StreamSpec, String> {
        toml::Value::Table(t)
            .try_into()
            .map_err(|e: toml::de::Error| e.message().to_string())
    };
    let nominal = parse(table.clone()).map_err(|msg| {
        // A serde message names the field only when it is unknown or missing; a value of the
        // wrong type or an unknown variant (`kind = "uniformm"`) is found by its key.
        // A `kind` that is not a string (`kind = 5`): serde names the tag a variant identifier.
        let tag = (msg.contains("expected variant identifier") && keys.iter().any(|k| k == "kind"))
            .then(|| "kind".to_string());
        let key = tag
            .or_else(|| crate::plan::error::unknown_field(&msg))
            .filter(|k| {
                !msg.contains("unknown variant")
                    && (keys.contains(k) || msg.contains("missing field"))
            })
            .or_else(|| {
                culprit_key(
                    &table,
                    &msg,
                    &["seed", "kind"],
                    |k| line_of_key(src.text, span.clone(), k),
                    |t| parse(t).map(|_| ()),
                )
            })
            .unwrap_or_else(|| "stream".into());
        src.at_key(span.clone(), &key, format!("[stream]: {msg}"))
    })?;
    if let StreamSpec::Replay { path, .. } = &nominal {
        if !probe {
            // A recorded run read back: its stream was checked when it ran.
            return Ok(StreamCase {
                spec: nominal.scaled(scale),
                nominal,
                seed,
                time: time.as_ref().map(|t| t.scaled(scale)),
                time_nominal: time,
            });
        }
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(src
                    .at_key(
                        span.clone(),
                        "path",
                        format!(
                            "replayed file {} not found (external data: see docs/experiments.md, \"External data\")",
                            path.display()
                        ),
                    )
                    .missing(path));
            }
            Ok(m) if m.is_dir() => {
                return Err(src.at_key(
                    span.clone(),
                    "path",
                    format!("{} is a directory; give the replayed file", path.display()),
                ));
            }
            Ok(m) if !m.is_file() => {
                return Err(src.at_key(
                    span.clone(),
                    "path",
                    format!(
                        "{} is not a regular file (a pipe or a device?): it cannot be read twice, and dupstream reads a replayed file once for the ground truth and again for each cell; give a regular file",
                        path.display()
                    ),
                ));
            }
            _ => {}
        }
    }
    nominal.validate().map_err(|e| at(e.to_string()))?;
    let spec = nominal.scaled(scale);
    spec.validate()
        .map_err(|e| at(format!("after --scale {scale}: {e}")))?;
    let in_time = |e: dupstream_streams::Error| src.at_key(span.clone(), "time", e.to_string());
    if let Some(t) = &time {
        t.validate(&nominal).map_err(in_time)?;
        let scaled = t.scaled(scale);
        clock_advances(&scaled, spec.declared_len())
            .map_err(|msg| src.at_key(span.clone(), "time", msg))?;
    }
    Ok(StreamCase {
        spec,
        nominal,
        seed,
        time: time.as_ref().map(|t| t.scaled(scale)),
        time_nominal: time,
    })
}

/// The fewest arrivals, on average, that a burst and a lull together must span: a clock that
/// changes phase more often than a million times per arrival spends its time switching, and
/// with phases shorter than the spacing of floating-point times it never advances.
pub const MIN_ARRIVALS_PER_CYCLE: f64 = 1e-6;

/// Refuses an arrival process (as run) whose clock cannot advance time or would overflow it
/// over a stream of `n` elements (`None`: a replay of unknown length): the span `n / mean
/// rate` must stay within [`MAX_SECONDS`](super::grid::MAX_SECONDS), and an MMPP's cycle must
/// hold at least [`MIN_ARRIVALS_PER_CYCLE`] arrivals, each phase long enough to move the
/// clock at the end of the span. The message names the field (`time.rate`, ...).
pub fn clock_advances(time: &TimeSpec, n: Option<u64>) -> Result<(), String> {
    let Some(rate) = time.mean_rate() else {
        return Ok(());
    };
    let field = match time {
        TimeSpec::Mmpp { .. } => "time.burst_rate",
        _ => "time.rate",
    };
    let span = n.map(|n| n as f64 / rate);
    if let Some(t) = span.filter(|t| !(t.is_finite() && *t <= super::grid::MAX_SECONDS)) {
        return Err(format!(
            "{field}: {} elements at a mean rate of {} per second span {t:e} seconds, past the {:e} seconds times can span: give a higher rate",
            n.unwrap_or(0),
            super::grid::number(rate),
            super::grid::MAX_SECONDS
        ));
    }
    if let TimeSpec::Mmpp {
        burst_seconds,
        lull_seconds,
        ..
    } = *time
    {
        let shortest = burst_seconds.min(lull_seconds);
        let key = if burst_seconds <= lull_seconds {
            "time.burst_seconds"
        } else {
            "time.lull_seconds"
        };
        if (burst_seconds + lull_seconds) * rate < MIN_ARRIVALS_PER_CYCLE {
            return Err(format!(
                "{key}: phases of {burst_seconds:e} and {lull_seconds:e} seconds at a mean rate of {} per second change more than {:e} times per arrival: the clock would not advance; give longer phases",
                super::grid::number(rate),
                1.0 / MIN_ARRIVALS_PER_CYCLE
            ));
        }
        if let Some(t) = span.filter(|t| t + shortest == *t) {
            return Err(format!(
                "{key}: a phase of {shortest:e} seconds does not move a clock at {t:e} seconds (the end of the stream) in floating point: the clock would not advance; give longer phases"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::schema::RawExperiment;

    const HEAD: &str = "name = \"s\"\ndescription = \"d\"\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n";

    fn streams(
        stream: &str,
        seeds: Option<&[u64]>,
        scale: u64,
    ) -> Result<Vec<StreamCase>, ConfigError> {
        let text = format!("{HEAD}[stream]\n{stream}\n");
        let raw: RawExperiment = toml::from_str(&text).unwrap();
        let src = Source {
            file: Path::new("dir/s.toml"),
            text: &text,
        };
        expand(src, &raw.stream, seeds, scale, true)
    }

    #[test]
    fn sweeps_and_seeds_multiply() {
        let s = streams(
            "kind = \"uniform\"\nn = [1000, 2000]\ndistinct_fraction = 0.5",
            Some(&[1, 2, 3]),
            1,
        )
        .unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(s[0].seed, 1);
        assert_eq!(s[0].nominal.declared_len(), Some(1000));
        let own = streams(
            "kind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\nseed = 9",
            None,
            1,
        )
        .unwrap();
        assert_eq!(own[0].seed, 9);
        let scaled = streams(
            "kind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5",
            None,
            10,
        )
        .unwrap();
        assert_eq!(
            (scaled[0].seed, scaled[0].spec.declared_len()),
            (1, Some(100))
        );
    }

    #[test]
    fn few_duplicates_per_checkpoint_draw_a_warning_when_scaled() {
        // QHT Table 1: 100K draws from 2^20 keys, about 4,600 duplicates (4.6 %).
        let qht = "kind = \"uniform\"\nn = 100_000\nuniverse = 1_048_576";
        let full = streams(qht, None, 1).unwrap();
        let d = expected_duplicates(&full[0].spec).unwrap();
        assert!((d - 4_599.0).abs() < 30.0, "{d}");
        let src = Source {
            file: Path::new("q.toml"),
            text: "",
        };
        assert!(
            few_duplicates(src, &full, 1, |_| 10).is_none(),
            "never at scale 1"
        );
        let scaled = streams(qht, None, 64).unwrap();
        let w = few_duplicates(src, &scaled, 64, |_| 10).unwrap();
        assert!(w.contains("about 7 duplicates per checkpoint"), "{w}");
        // Table 7's stream keeps ~13M duplicates at scale 64: no warning.
        let t7 = "kind = \"uniform\"\nn = 1_000_000_000\ndistinct_fraction = 0.15";
        assert!(few_duplicates(src, &streams(t7, None, 64).unwrap(), 64, |_| 10).is_none());
        let zipf = "kind = \"zipf\"\nn = 1000\nuniverse = 100\ns = 1.0";
        assert!(expected_duplicates(&streams(zipf, None, 1).unwrap()[0].spec).is_none());
    }

    #[test]
    fn bad_streams_name_their_key_and_line() {
        let e = streams(
            "kind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5",
            Some(&[]),
            1,
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("seeds"));
        let e = streams("kind = \"uniform\"\nn = 1000\nbogus = 1", None, 1).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("bogus"));
        let e = streams(
            "kind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\nseed = -1",
            None,
            1,
        )
        .unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("seed"), Some(11)));
        let e = streams("kind = \"uniform\"\nn = 1000", None, 1).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("stream"), Some(7)));
    }
}
