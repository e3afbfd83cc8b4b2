//! The exact ground truth of a stream, computed once and shared by every cell on it.

use crate::execute::Progress;
use crate::plan::Experiment;
use crate::record::StreamRow;
use anyhow::{Context, Result};
use dupstream_streams::GroundTruth;
use std::time::Instant;

/// Labels stream `index` of `exp`; returns the labels and the stream's statistics.
pub fn label(
    exp: &Experiment,
    index: usize,
    progress: &Progress,
) -> Result<(GroundTruth, StreamRow)> {
    let case = &exp.streams[index];
    let start = Instant::now();
    progress.message(&format!("ground truth for {}", case.spec.describe()));
    let truth = GroundTruth::compute(&case.spec)
        .with_context(|| format!("ground truth for {}", case.spec.describe()))?;
    let row = StreamRow::new(index, case, &truth, start.elapsed().as_secs_f64());
    Ok((truth, row))
}
