//! How many duplicates a stream is expected to hold, and the warning when a scaled stream
//! holds too few per checkpoint for its rates to mean much.

use crate::plan::StreamCase;
use crate::plan::error::Source;
use dupstream_streams::StreamSpec;

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
