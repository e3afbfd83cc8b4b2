//! One stream validated, as written and after `--scale`: its arrival process, its spec (an
//! error named by its key), a replayed file that can be read twice.

use super::clock::clock_advances;
use super::locate::Locate;
use crate::plan::StreamCase;
use crate::plan::error::{ConfigError, culprit_key, line_of_key, mentioned_key};
use dupstream_streams::{StreamSpec, TimeSpec};
use std::path::Path;

/// One validated stream, as written and as run.
pub(super) fn case(
    loc: &Locate<'_>,
    mut table: toml::Table,
    seed: u64,
    scale: u64,
    probe: bool,
) -> Result<StreamCase, ConfigError> {
    let src = loc.src;
    let span = &loc.span;
    let time = arrival_process(loc, &mut table)?;
    let keys: Vec<String> = table.keys().cloned().collect();
    // The value at fault, named by the message, else the table.
    let at = |msg: String| {
        let key = mentioned_key(&msg, &keys).unwrap_or_else(|| "stream".into());
        loc.at(&key, msg)
    };
    let nominal = nominal_spec(loc, &table, &keys)?;
    if let StreamSpec::Replay { path, .. } = &nominal {
        if !probe {
            // A recorded run read back: its stream was checked when it ran.
            return Ok(as_run(nominal, time, seed, scale));
        }
        replayed_file(loc, path)?;
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
    Ok(as_run(nominal, time, seed, scale))
}

/// The stream as written (`nominal`, `time`) and as run at `scale`.
fn as_run(nominal: StreamSpec, time: Option<TimeSpec>, seed: u64, scale: u64) -> StreamCase {
    StreamCase {
        spec: nominal.scaled(scale),
        nominal,
        seed,
        time: time.as_ref().map(|t| t.scaled(scale)),
        time_nominal: time,
        tuning: false,
        tunes_for: None,
    }
}

/// `time`, the arrival process, taken out of the stream's table: it is not part of the key
/// stream, and is parsed on its own.
fn arrival_process(
    loc: &Locate<'_>,
    table: &mut toml::Table,
) -> Result<Option<TimeSpec>, ConfigError> {
    table
        .remove("time")
        .map(|v| {
            v.try_into::<TimeSpec>().map_err(|e: toml::de::Error| {
                loc.at(
                    "time",
                    loc.about_stream(" ", format!("time: {}", e.message())),
                )
            })
        })
        .transpose()
}

/// The stream's spec as written (`keys`: the table's keys), or an error at the key at fault.
fn nominal_spec(
    loc: &Locate<'_>,
    table: &toml::Table,
    keys: &[String],
) -> Result<StreamSpec, ConfigError> {
    let (src, span) = (loc.src, &loc.span);
    let parse = |t: toml::Table| -> Result<StreamSpec, String> {
        toml::Value::Table(t)
            .try_into()
            .map_err(|e: toml::de::Error| e.message().to_string())
    };
    parse(table.clone()).map_err(|msg| {
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
                    table,
                    &msg,
                    &["seed", "kind"],
                    |k| line_of_key(src.text, span.clone(), k),
                    |t| parse(t).map(|_| ()),
                )
            })
            .unwrap_or_else(|| "stream".into());
        loc.at(&key, loc.about_stream(": ", msg))
    })
}

/// A replayed file must be there and be a regular file (it is read once for the ground truth
/// and again for each cell).
fn replayed_file(loc: &Locate<'_>, path: &Path) -> Result<(), ConfigError> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(loc
            .at(
                "path",
                format!(
                    "replayed file {} not found; {}",
                    path.display(),
                    crate::plan::catalogue::SHARED_DATA_HINT
                ),
            )
            .missing(path)),
        Ok(m) if m.is_dir() => Err(loc.at(
            "path",
            format!("{} is a directory; give the replayed file", path.display()),
        )),
        Ok(m) if !m.is_file() => Err(loc.at(
            "path",
            format!(
                "{} is not a regular file (a pipe or a device?): it cannot be read twice, and dupstream reads a replayed file once for the ground truth and again for each cell; give a regular file",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}
