//! The cells: each structure at each memory size over each stream, checked at the scaled size
//! (without allocating when the budget bounds its state; built and measured when it bounds
//! what it holds, `[grid] budget = "held"`).

use super::expand::Algorithm;
use crate::plan::error::{ConfigError, Source, mentioned_key};
use crate::plan::heap::HeapMeter;
use crate::plan::units::format_bits;
use crate::plan::{Cell, Sizing, StructureSpec};
use std::collections::HashMap;
use std::sync::Arc;

/// How many times [`held_fit`] builds a structure before it gives up.
const HELD_FIT_TRIES: usize = 16;

/// The heap `spec` measurably holds once built within `bits` bits of state, in bits.
fn held_bits(spec: &dyn StructureSpec, bits: u64) -> Result<u64, String> {
    let (_, meter) = HeapMeter::build(|| spec.build(bits, 0)).map_err(|e| e.to_string())?;
    Ok(meter.peak_bits())
}

/// The largest state budget (found by building and measuring) at which `spec` holds at most
/// `budget` bits of heap once built: its state plus its own value and whatever else it
/// allocates. Starts at `budget` and takes off what the build held beyond it, until the build
/// fits; an error when no state budget fits (the fixed part alone is over `budget`).
fn held_fit(spec: &dyn StructureSpec, budget: u64) -> Result<u64, String> {
    let mut bits = budget;
    for _ in 0..HELD_FIT_TRIES {
        spec.memory_bits_for(bits).map_err(|e| e.to_string())?;
        let held = held_bits(spec, bits)?;
        if held <= budget {
            return Ok(bits);
        }
        match bits.checked_sub(held - budget) {
            Some(b) if b > 0 => bits = b,
            _ => break,
        }
    }
    Err(format!(
        "it holds more than {budget} bits of heap at every state budget that fits in it ([grid] budget = \"held\")"
    ))
}

/// The bits of state a cell is built within: its scaled budget (`Sizing::State`), or the
/// largest state budget whose build holds at most that ([`held_fit`]).
fn build_bits(spec: &dyn StructureSpec, bits: u64, sizing: Sizing) -> Result<u64, String> {
    match sizing {
        Sizing::State => spec
            .memory_bits_for(bits)
            .map(|_| bits)
            .map_err(|e| e.to_string()),
        Sizing::Held => held_fit(spec, bits),
    }
}

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
    sizing: Sizing,
) -> Result<(Vec<Cell>, Vec<String>), ConfigError> {
    let mut cells = Vec::new();
    // Each structure's fit at each size, found once for all streams.
    let mut fits: HashMap<(usize, u64), Result<u64, String>> = HashMap::new();
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
            for (i, (a, spec)) in algorithms.iter().zip(&scaled).enumerate() {
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
                let fit = fits
                    .entry((i, bits))
                    .or_insert_with(|| build_bits(spec.as_ref(), bits, sizing));
                let build = match fit {
                    Ok(b) => *b,
                    Err(_) if skip_unfit => {
                        let size = format_bits(mem);
                        match skipped.iter_mut().find(|s| s.0 == a.config) {
                            Some(s) if !s.1.contains(&size) => s.1.push(size),
                            Some(_) => {}
                            None => skipped.push((a.config.clone(), vec![size])),
                        }
                        continue;
                    }
                    Err(e) => {
                        let name = spec.name();
                        let msg =
                            format!("{name} at {} (scaled: {bits} bits): {e}", format_bits(mem));
                        let key = mentioned_key(e, &a.keys).unwrap_or_else(|| "name".into());
                        return Err(src.at_key(a.span.clone(), &key, msg));
                    }
                };
                cells.push(Cell {
                    index: cells.len(),
                    stream,
                    filter: Arc::clone(spec),
                    label: a.label.clone(),
                    family: a.family.clone(),
                    config: a.config.clone(),
                    swept: a.swept.clone(),
                    budget_bits: build,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Registry;
    use dupstream_filters::parameter_sets::ALL;

    /// Every parameter set of every registered structure, as the registry parses it.
    fn specs() -> Vec<Arc<dyn StructureSpec>> {
        let registry = Registry::builtin();
        ALL.iter()
            .map(|s| registry.parse(toml::from_str(s.toml).unwrap()).unwrap())
            .collect()
    }

    /// Sized to what it holds, every structure that fits holds at most its budget, measured,
    /// within a state budget no larger; a Bloom filter, whose state grows by words, within a
    /// word of it.
    #[test]
    fn held_sizing_keeps_every_structure_within_its_budget() {
        for spec in specs() {
            for budget in [1u64 << 13, 100_000, 1 << 20] {
                let Ok(bits) = held_fit(spec.as_ref(), budget) else {
                    continue;
                };
                let held = held_bits(spec.as_ref(), bits).unwrap();
                assert!(
                    bits <= budget && held <= budget,
                    "{} at {budget}: built within {bits} bits, holds {held}",
                    spec.name()
                );
                // A Bloom filter's state is whole words: its fit is within a word of the budget.
                if spec.name() == "bloom" {
                    assert!(held + 64 > budget, "bloom at {budget}: holds only {held}");
                }
            }
        }
    }
}
