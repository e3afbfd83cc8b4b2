//! `[stream]`: swept values expanded, then one stream per seed, each validated as written and
//! after `--scale`.

use crate::plan::StreamCase;
use crate::plan::error::{ConfigError, Source, culprit_key, line_of_key, mentioned_key};
use dupstream_streams::{StreamSpec, TimeSpec};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Every stream of the sweep: each combination of swept values, for each seed (`[grid] seeds`,
/// else the stream's own `seed`, else 1). With `[tuning] stream = { ... }` (`tuning`), the
/// first seed's stream of each combination is the combination with those fields replaced
/// ([`StreamCase::tuning`]). `probe`: open a replayed file to check it (a run, a check); a
/// recorded run read back (`run.toml`) does not need its input.
pub fn expand(
    src: Source<'_>,
    stream: &Spanned<toml::Table>,
    tuning: Option<&Spanned<toml::Table>>,
    seeds: Option<&[u64]>,
    scale: u64,
    probe: bool,
) -> Result<Vec<StreamCase>, ConfigError> {
    let span = stream.span();
    for (key, value) in stream.get_ref() {
        super::sweep::repeated_value(src, &span, key, value)?;
    }
    if let Some(t) = tuning {
        check_tuning(src, t, seeds)?;
    }
    let plain = Locate {
        src,
        span: span.clone(),
        tuning: None,
    };
    let mut out = Vec::new();
    for combo in super::sweep::expand(stream.get_ref()) {
        let combo_seeds = seeds_of(src, &span, &combo, seeds)?;
        let first = out.len();
        for &seed in &combo_seeds {
            let table = with_seed_and_path(src.file, combo.clone(), seed);
            out.push(case(&plain, table, seed, scale, probe)?);
        }
        if let Some(t) = tuning {
            // The tuning seed's stream: the combination with [tuning]'s fields.
            let locate = Locate {
                src,
                span: span.clone(),
                tuning: Some(t),
            };
            let mut merged = combo.clone();
            merged.extend(t.get_ref().clone());
            let seed = combo_seeds[0];
            let table = with_seed_and_path(src.file, merged, seed);
            let mut tuned = case(&locate, table, seed, scale, probe)?;
            tuned.tuning = true;
            // Seeds are at least 2 ([`check_tuning`]): the second's stream is the one scored.
            tuned.tunes_for = Some(out[first + 1].label());
            out[first] = tuned;
        }
    }
    Ok(out)
}

/// `[tuning] stream`: at least two seeds (the first tunes, the others are scored), and one
/// value for each of some `[stream]` fields, other than `kind` and `seed`.
fn check_tuning(
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

/// An error at `key` of `[tuning] stream` (its line when written on one, else the line of
/// `stream =`), named `tuning.stream.<key>`.
fn tuning_error(
    src: Source<'_>,
    tuning: &Spanned<toml::Table>,
    key: &str,
    msg: String,
) -> ConfigError {
    let line = line_of_key(src.text, tuning.span(), key);
    ConfigError::new(
        src.file,
        Some(line),
        Some(&format!("tuning.stream.{key}")),
        msg,
    )
}

/// Where a stream's errors point: at `[stream]`'s keys, and for a tuning stream at the keys
/// `[tuning] stream` replaces.
struct Locate<'a> {
    src: Source<'a>,
    span: Range<usize>,
    tuning: Option<&'a Spanned<toml::Table>>,
}

impl Locate<'_> {
    /// An error at `key`, its message prefixed with the table it is about.
    fn at(&self, key: &str, msg: impl std::fmt::Display) -> ConfigError {
        match self.tuning {
            Some(t) if t.get_ref().contains_key(key) => {
                tuning_error(self.src, t, key, format!("[tuning] stream: {msg}"))
            }
            Some(_) => self.src.at_key(
                self.span.clone(),
                key,
                format!("[stream] with [tuning]'s fields: {msg}"),
            ),
            None => self.src.at_key(self.span.clone(), key, msg.to_string()),
        }
    }

    /// `msg` about `[stream]` as a whole: prefixed `[stream]{sep}` for an ordinary stream (a
    /// tuning stream's errors are prefixed by [`Locate::at`]).
    fn about_stream(&self, sep: &str, msg: impl std::fmt::Display) -> String {
        match self.tuning {
            None => format!("[stream]{sep}{msg}"),
            Some(_) => msg.to_string(),
        }
    }
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
/// experiment file (replays; a relative path found nowhere is looked for by its file name in
/// `$DUPSTREAM_SHARED_DATA`).
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
            let joined = base.join(path);
            let found = crate::plan::catalogue::shared_data(&joined).unwrap_or(joined);
            let joined = found.to_string_lossy().into_owned();
            table.insert("path".into(), toml::Value::String(joined));
        }
    }
    table
}

/// One validated stream, as written and as run.
fn case(
    loc: &Locate<'_>,
    mut table: toml::Table,
    seed: u64,
    scale: u64,
    probe: bool,
) -> Result<StreamCase, ConfigError> {
    let src = loc.src;
    let span = &loc.span;
    // `time`, the arrival process, is not part of the key stream: parsed on its own.
    let time = table
        .remove("time")
        .map(|v| {
            v.try_into::<TimeSpec>().map_err(|e: toml::de::Error| {
                loc.at(
                    "time",
                    loc.about_stream(" ", format!("time: {}", e.message())),
                )
            })
        })
        .transpose()?;
    let keys: Vec<String> = table.keys().cloned().collect();
    // The value at fault, named by the message, else the table.
    let at = |msg: String| {
        let key = mentioned_key(&msg, &keys).unwrap_or_else(|| "stream".into());
        loc.at(&key, msg)
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
        loc.at(&key, loc.about_stream(": ", msg))
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
                tuning: false,
                tunes_for: None,
            });
        }
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(loc
                    .at(
                        "path",
                        format!(
                            "replayed file {} not found; {}",
                            path.display(),
                            crate::plan::catalogue::SHARED_DATA_HINT
                        ),
                    )
                    .missing(path));
            }
            Ok(m) if m.is_dir() => {
                return Err(loc.at(
                    "path",
                    format!("{} is a directory; give the replayed file", path.display()),
                ));
            }
            Ok(m) if !m.is_file() => {
                return Err(loc.at(
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
    let in_time = |e: dupstream_streams::Error| loc.at("time", e);
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
        tuning: false,
        tunes_for: None,
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
        expanded(&format!("{HEAD}[stream]\n{stream}\n"), seeds, scale)
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

    /// The streams of `[stream] stream` with `[tuning] tuning` (a line of its own, after
    /// `[stream]`), the seeds and the scale.
    fn tuned(
        stream: &str,
        tuning: &str,
        seeds: Option<&[u64]>,
        scale: u64,
    ) -> Result<Vec<StreamCase>, ConfigError> {
        expanded(
            &format!("{HEAD}[stream]\n{stream}\n[tuning]\n{tuning}\n"),
            seeds,
            scale,
        )
    }

    /// The streams of an experiment's text (`[stream]`, and `[tuning]` if it has one).
    fn expanded(
        text: &str,
        seeds: Option<&[u64]>,
        scale: u64,
    ) -> Result<Vec<StreamCase>, ConfigError> {
        let raw: RawExperiment = toml::from_str(text).unwrap();
        let src = Source {
            file: Path::new("dir/s.toml"),
            text,
        };
        let t = raw.tuning.as_ref().map(|t| &t.stream);
        expand(src, &raw.stream, t, seeds, scale, true)
    }

    #[test]
    fn without_tuning_every_stream_is_scored_as_itself() {
        let s = streams(
            "kind = \"uniform\"\nn = 1000\ndistinct_fraction = [0.5, 0.9]",
            Some(&[1, 2]),
            1,
        )
        .unwrap();
        assert_eq!(s.len(), 4);
        for c in &s {
            assert!(!c.tuning);
            assert_eq!(c.tunes_for, None);
            assert_eq!(c.board_label(), c.label());
        }
    }

    #[test]
    fn tuning_replaces_fields_of_the_first_seeds_stream_of_each_combination() {
        let stream = "kind = \"uniform\"\nn = 10_000\ndistinct_fraction = [0.5, 0.9]";
        let s = tuned(stream, "stream = { n = 4000 }", Some(&[7, 8, 9]), 2).unwrap();
        assert_eq!(s.len(), 6);
        let seeds: Vec<u64> = s.iter().map(|c| c.seed).collect();
        assert_eq!(seeds, [7, 8, 9, 7, 8, 9]);
        for (i, c) in s.iter().enumerate() {
            let tuning = i % 3 == 0;
            assert_eq!(c.tuning, tuning, "{i}");
            // Its own length (and so its own ground truth), scaled like the others.
            let n = if tuning { 4000 } else { 10_000 };
            assert_eq!(c.nominal.declared_len(), Some(n), "{i}");
            assert_eq!(c.spec.declared_len(), Some(n / 2), "{i}");
            // Scored as the other seeds' stream of its combination; labelled as itself.
            let scored = &s[i / 3 * 3 + 1];
            assert_eq!(c.board_label(), scored.label(), "{i}");
            if tuning {
                assert_ne!(c.label(), scored.label());
                assert!(c.label().contains("n=4000"), "{}", c.label());
                assert_eq!(c.tunes_for.as_deref(), Some(scored.label().as_str()));
            } else {
                assert_eq!(c.tunes_for, None);
            }
        }
        assert!(s[0].label().contains("distinct_fraction=0.5"));
        assert!(s[3].label().contains("distinct_fraction=0.9"));
        assert!(s[0].spec != s[3].spec);
    }

    #[test]
    fn tuning_a_replay_takes_other_keys_of_the_file() {
        let dir = std::env::temp_dir().join(format!("dupstream-tuning-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("keys.txt");
        std::fs::write(&file, "a\nb\nc\nd\n").unwrap();
        let stream = format!(
            "kind = \"replay\"\nformat = \"lines\"\npath = {:?}\noffset = 2\nlimit = 2",
            file.display().to_string()
        );
        let s = tuned(&stream, "stream = { offset = 0 }", Some(&[1, 2]), 4).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let window = |c: &StreamCase| match c.spec {
            StreamSpec::Replay { offset, limit, .. } => (offset, limit),
            _ => unreachable!(),
        };
        assert_eq!(window(&s[0]), (0, Some(2)));
        assert_eq!(window(&s[1]), (2, Some(2)));
        assert!(s[0].tuning && !s[1].tuning);
        assert_eq!(s[0].board_label(), s[1].label());
        assert!(s[1].label().contains("offset=2"), "{}", s[1].label());
        assert!(!s[0].label().contains("offset"), "{}", s[0].label());
    }

    #[test]
    fn a_bad_replay_offset_names_its_key_and_line() {
        let replay = "kind = \"replay\"\nformat = \"lines\"\npath = \"k.txt\"";
        for bad in ["-1", "\"ten\"", "1.5"] {
            let e = streams(&format!("{replay}\noffset = {bad}"), None, 1).unwrap_err();
            assert_eq!(
                (e.key.as_deref(), e.line),
                (Some("offset"), Some(11)),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn bad_tuning_sections_name_their_key_and_line() {
        let uniform = "kind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5";
        let two: Option<&[u64]> = Some(&[1, 2]);
        // Line 12 is `stream = { ... }` under [tuning].
        let err = |tuning: &str, seeds| tuned(uniform, tuning, seeds, 1).unwrap_err();
        let e = err("stream = { bogus = 1 }", two);
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("tuning.stream.bogus"), Some(12))
        );
        assert!(
            e.message
                .starts_with("[tuning] stream: unknown field `bogus`"),
            "{}",
            e.message
        );
        let e = err("stream = { time = { process = \"poison\" } }", two);
        assert_eq!(e.key.as_deref(), Some("tuning.stream.time"));
        assert!(
            e.message
                .starts_with("[tuning] stream: time: unknown variant `poison`"),
            "{}",
            e.message
        );
        // A field of another kind.
        let e = err("stream = { limit = 10 }", two);
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("tuning.stream.limit"), Some(12))
        );
        // A value out of range, and one of the wrong type.
        let e = err("stream = { distinct_fraction = 1.5 }", two);
        assert_eq!(e.key.as_deref(), Some("tuning.stream.distinct_fraction"));
        let e = err("stream = { n = \"many\" }", two);
        assert_eq!(e.key.as_deref(), Some("tuning.stream.n"));
        // Written as a table of its own: the key's own line.
        let e = err("[tuning.stream]\nn = 10\nbogus = 2", two);
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("tuning.stream.bogus"), Some(14))
        );
        // Too few seeds.
        for seeds in [None, Some(&[1u64][..])] {
            let e = err("stream = { n = 500 }", seeds);
            assert_eq!(e.key.as_deref(), Some("seeds"));
            assert!(e.message.contains("at least 2 seeds"), "{}", e.message);
        }
        // Nothing replaced, kind, seed, a swept value.
        let e = err("stream = {}", two);
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("tuning.stream"), Some(12))
        );
        for (tuning, key) in [
            ("stream = { kind = \"zipf\" }", "tuning.stream.kind"),
            ("stream = { seed = 3 }", "tuning.stream.seed"),
            ("stream = { n = [10, 20] }", "tuning.stream.n"),
        ] {
            assert_eq!(err(tuning, two).key.as_deref(), Some(key), "{tuning}");
        }
        // An unknown key of [tuning] itself is the TOML parse's error.
        let text = format!("{HEAD}[stream]\n{uniform}\n[tuning]\nstreams = {{ n = 1 }}\n");
        assert!(toml::from_str::<RawExperiment>(&text).is_err());
    }

    #[test]
    fn a_drifting_zipf_stream_scales_and_names_its_bad_keys() {
        let ok =
            "kind = \"zipf_drift\"\nn = 1000\nuniverse = 100\ns = 1.0\nperiod = 50\nshift = [0, 7]";
        let s = streams(ok, Some(&[1, 2]), 10).unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(
            s[2].spec,
            StreamSpec::ZipfDrift {
                n: 100,
                universe: 10,
                s: 1.0,
                period: 5,
                shift: 7,
                seed: 1
            }
        );
        assert_eq!(
            s[2].label(),
            "zipf_drift n=1000 period=50 s=1.0 shift=7 universe=100"
        );
        let e = streams(&ok.replace("[0, 7]", "100"), None, 1).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("shift"), Some(13)));
        // A shift the scaled universe no longer holds.
        let e = streams(&ok.replace("[0, 7]", "10"), None, 10).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("shift"));
        assert!(e.message.contains("after --scale 10"), "{}", e.message);
        let e = streams(&ok.replace("period = 50", "period = 0"), None, 1).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("period"), Some(12)));
        let e = streams(&ok.replace("period = 50", "periods = 50"), None, 1).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("periods"));
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
