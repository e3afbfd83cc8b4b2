//! `[stream]`: swept values expanded, then one stream per seed, each validated as written and
//! after `--scale`.

mod case;
mod clock;
mod duplicates;
mod locate;
mod tuning;

pub use duplicates::{MIN_DUPLICATES_PER_CHECKPOINT, expected_duplicates, few_duplicates};

use crate::plan::StreamCase;
use crate::plan::error::{ConfigError, Source};
use case::case;
use locate::Locate;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use tuning::check_tuning;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::schema::RawExperiment;
    use dupstream_streams::StreamSpec;

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
