//! The exact ground truth of a stream, computed once and shared by every cell on it: since
//! the start, and over the last `[metrics] window` elements when one is configured.

use crate::execute::Progress;
use crate::plan::ConfigError;
use crate::plan::Experiment;
use crate::record::StreamRow;
use anyhow::{Context, Result};
use dupstream_streams::{GroundTruth, WindowTruth};
use std::time::Instant;

/// A stream's labels: since the start, and within the window when one is configured.
#[derive(Debug)]
pub struct Truths {
    pub since_start: GroundTruth,
    pub window: Option<(u64, WindowTruth)>,
}

/// Labels stream `index` of `exp`; returns the labels and the stream's statistics.
pub fn label(exp: &Experiment, index: usize, progress: &Progress) -> Result<(Truths, StreamRow)> {
    let case = &exp.streams[index];
    let start = Instant::now();
    progress.message(&format!("ground truth for {}", case.spec.describe()));
    let truth = GroundTruth::compute(&case.spec)
        .with_context(|| format!("ground truth for {}", case.spec.describe()))?;
    let row = StreamRow::new(index, case, &truth, 0.0);
    if truth.is_empty() {
        let why = match row.skipped_note() {
            Some(note) => format!("every line was malformed: {note}"),
            None => "an empty file".to_string(),
        };
        return Err(ConfigError::new(
            &exp.file,
            None,
            Some("stream"),
            format!(
                "{} has no keys ({why}); nothing to measure",
                case.spec.describe()
            ),
        )
        .into());
    }
    if let Some(note) = row.skipped_note() {
        progress.warn(&format!("{}: {note}", case.spec.describe()));
    }
    let window = match exp.window {
        Some(w) => {
            progress.message(&format!(
                "windowed ground truth (W = {w}) for {}",
                case.spec.describe()
            ));
            let wt = WindowTruth::compute(&case.spec, w)
                .with_context(|| format!("windowed ground truth for {}", case.spec.describe()))?;
            if wt.len() != truth.len() {
                anyhow::bail!(
                    "stream {} gave {} elements to the windowed truth, {} to the since-start one",
                    case.spec.describe(),
                    wt.len(),
                    truth.len()
                );
            }
            Some((w, wt))
        }
        None => None,
    };
    let row = StreamRow {
        truth_secs: start.elapsed().as_secs_f64(),
        ..row
    };
    let truths = Truths {
        since_start: truth,
        window,
    };
    Ok((truths, row))
}
