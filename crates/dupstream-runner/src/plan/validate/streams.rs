//! `[stream]`: swept values expanded, then one stream per seed, each validated as written and
//! after `--scale`.

use crate::plan::StreamCase;
use crate::plan::error::{ConfigError, Source, unknown_field};
use dupstream_streams::StreamSpec;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Every stream of the sweep: each combination of swept values, for each seed (`[grid] seeds`,
/// else the stream's own `seed`, else 1).
pub fn expand(
    src: Source<'_>,
    stream: &Spanned<toml::Table>,
    seeds: Option<&[u64]>,
    scale: u64,
) -> Result<Vec<StreamCase>, ConfigError> {
    let span = stream.span();
    let mut out = Vec::new();
    for combo in super::expand(stream.get_ref()) {
        for seed in seeds_of(src, &span, &combo, seeds)? {
            let table = with_seed_and_path(src.file, combo.clone(), seed);
            out.push(case(src, &span, table, seed, scale)?);
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
        return Err(src.at_key(src.whole(), "seeds", "needs at least one seed"));
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
    table: toml::Table,
    seed: u64,
    scale: u64,
) -> Result<StreamCase, ConfigError> {
    let nominal: StreamSpec =
        toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| {
                let key = unknown_field(e.message()).unwrap_or_else(|| "stream".into());
                src.at_key(span.clone(), &key, format!("[stream]: {}", e.message()))
            })?;
    nominal
        .validate()
        .map_err(|e| src.at_offset(span.start, "stream", e.to_string()))?;
    let spec = nominal.scaled(scale);
    spec.validate()
        .map_err(|e| src.at_offset(span.start, "stream", format!("after --scale {scale}: {e}")))?;
    Ok(StreamCase {
        spec,
        nominal,
        seed,
    })
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
        expand(src, &raw.stream, seeds, scale)
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
