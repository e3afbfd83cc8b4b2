//! The cells: each structure at each memory size over each stream, checked at the scaled size
//! without allocating.

use super::expand::Algorithm;
use crate::plan::Cell;
use crate::plan::error::{ConfigError, Source, mentioned_key};
use crate::plan::units::format_bits;
use std::sync::Arc;

/// The cells: for each stream, memory size and structure (in that order), the structure
/// checked at the scaled size. The sizes are the grid's, then those beyond it that an
/// `[[algorithm]]`'s own `memory` names (ascending), run by those structures only.
pub fn cells(
    src: Source<'_>,
    streams: usize,
    grid: &[u64],
    algorithms: &[Algorithm],
    scale: u64,
    skip_unfit: bool,
) -> Result<(Vec<Cell>, Vec<String>), ConfigError> {
    let mut cells = Vec::new();
    let mut skipped: Vec<(String, Vec<String>)> = Vec::new();
    // Parameters tied to the memory's size scale with it (`Structure::scaled_params`).
    let scaled: Vec<_> = algorithms
        .iter()
        .map(|a| {
            (scale > 1)
                .then(|| a.spec.scaled(scale))
                .flatten()
                .unwrap_or_else(|| Arc::clone(&a.spec))
        })
        .collect();
    let mut beyond: Vec<u64> = algorithms
        .iter()
        .flat_map(|a| a.only_memory.iter().flatten().copied())
        .filter(|m| !grid.contains(m))
        .collect();
    beyond.sort_unstable();
    beyond.dedup();
    for stream in 0..streams {
        for &mem in grid.iter().chain(&beyond) {
            for (a, spec) in algorithms.iter().zip(&scaled) {
                let runs_here = match &a.only_memory {
                    Some(o) => o.contains(&mem),
                    None => grid.contains(&mem),
                };
                if !runs_here {
                    continue;
                }
                let bits = mem / scale;
                if bits == 0 {
                    return Err(src.at_key(
                        a.span.clone(),
                        "memory",
                        format!("{} is 0 bits at scale 1/{scale}", format_bits(mem)),
                    ));
                }
                if let Err(e) = spec.memory_bits_for(bits) {
                    if skip_unfit {
                        let size = format_bits(mem);
                        match skipped.iter_mut().find(|s| s.0 == a.config) {
                            Some(s) if !s.1.contains(&size) => s.1.push(size),
                            Some(_) => {}
                            None => skipped.push((a.config.clone(), vec![size])),
                        }
                        continue;
                    }
                    let name = spec.name();
                    let msg = format!("{name} at {} (scaled: {bits} bits): {e}", format_bits(mem));
                    let key =
                        mentioned_key(&e.to_string(), &a.keys).unwrap_or_else(|| "name".into());
                    return Err(src.at_key(a.span.clone(), &key, msg));
                }
                cells.push(Cell {
                    index: cells.len(),
                    stream,
                    filter: Arc::clone(spec),
                    label: a.label.clone(),
                    family: a.family.clone(),
                    config: a.config.clone(),
                    swept: a.swept.clone(),
                    budget_bits: bits,
                    memory_nominal_bits: mem,
                });
            }
        }
    }
    let warnings = skipped
        .into_iter()
        .map(|(config, sizes)| {
            format!(
                "{}: `{config}` cannot be built at {} ([grid] unfit = \"skip\"): those cells are left out",
                src.file.display(),
                sizes.join(", ")
            )
        })
        .collect();
    Ok((cells, warnings))
}
