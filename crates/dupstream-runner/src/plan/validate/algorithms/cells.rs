//! The cells: each structure at each memory size over each stream, checked at the scaled size
//! (without allocating when the budget bounds its state; built and measured when it bounds
//! what it holds, `[grid] budget = "held"`).

use super::expand::Algorithm;
use crate::plan::error::{ConfigError, Source, mentioned_key};
use crate::plan::heap::HeapMeter;
use crate::plan::units::format_bits;
use crate::plan::{BuildError, Cell, Sizing, StructureSpec};
use std::collections::HashMap;
use std::sync::Arc;

/// How many times [`held_fit`] builds a structure at most while it searches.
const HELD_FIT_TRIES: usize = 48;

/// The most heap a structure built to measure it ([`held_fit`]) may be expected to hold:
/// planning must not take the machine's memory. Above it the fixed part is far under 1 % of
/// the size, and a budget of the state (`[grid] budget = "state"`) is as good.
pub const HELD_TRIAL_MAX_BYTES: u64 = 1 << 30;

/// The heap `spec` measurably holds once built within `bits` bits of state, in bits.
fn held_bits(spec: &dyn StructureSpec, bits: u64) -> Result<u64, String> {
    let (_, meter) = HeapMeter::build(|| spec.build(bits, 0)).map_err(|e| e.to_string())?;
    Ok(meter.peak_bits())
}

/// The largest state budget at which `spec`, once built, holds at most `budget` bits of heap
/// (its state plus its own value and whatever else it allocates), found by building it and
/// measuring. A search between the largest state budget known to fit and the smallest known
/// not to: each step moves the last one by what its build held beyond (or short of) the
/// budget, or, when that leaves the interval, scales it by held against budget (a structure
/// whose held bits are a multiple of its state), or else (and whenever a move would cut less
/// than 1/16 of the interval off) halves the interval; a structure whose fixed part is
/// constant lands on its fit in two or three builds. It stops on an exact fit, or once the
/// interval is within 1/1024 of the budget. An error when nothing fits: the structure's
/// smallest build holds more than `budget` (its fixed part alone).
fn held_fit(spec: &dyn StructureSpec, budget: u64) -> Result<u64, String> {
    spec.memory_bits_for(budget).map_err(|e| e.to_string())?;
    let held = held_bits(spec, budget)?;
    if held <= budget {
        return Ok(budget);
    }
    let tolerance = (budget >> 10).max(1);
    // `lo` fits (0: none known), `hi` does not; `least`: the smallest build's held bits.
    let (mut lo, mut hi, mut least) = (0u64, budget, (held, budget));
    let mut next = [
        budget.saturating_sub(held - budget),
        scaled(budget, budget, held),
    ];
    for step in 0..HELD_FIT_TRIES {
        if hi - lo <= tolerance {
            break;
        }
        // After the first step a move must cut at least 1/16 of the interval off, so that a
        // structure whose held bits rise in steps is not crept towards a bit at a time.
        let margin = if step == 0 {
            1
        } else {
            ((hi - lo) / 16).max(1)
        };
        let bits = next
            .into_iter()
            .find(|&b| b >= lo + margin && b + margin <= hi)
            .unwrap_or(lo + (hi - lo) / 2);
        // A state budget the structure refuses is too small (every larger one was accepted).
        let held = match spec.memory_bits_for(bits) {
            Ok(_) => Some(held_bits(spec, bits)?),
            Err(_) => None,
        };
        match held {
            Some(h) if h <= budget => {
                lo = bits;
                if h == budget {
                    break;
                }
                next = [bits + (budget - h), scaled(bits, budget, h)];
            }
            Some(h) => {
                hi = bits;
                least = least.min((h, bits));
                next = [bits.saturating_sub(h - budget), scaled(bits, budget, h)];
            }
            None => {
                hi = bits;
                next = [0, 0];
            }
        }
    }
    if lo > 0 {
        return Ok(lo);
    }
    Err(format!(
        "it holds more than {budget} bits of heap at every state budget it can be built within: {} bits within a state budget of {} ([grid] budget = \"held\")",
        least.0, least.1
    ))
}

/// `bits · budget / held`, rounded down: a state budget scaled by how far its build's held
/// bits were from the budget.
fn scaled(bits: u64, budget: u64, held: u64) -> u64 {
    (u128::from(bits) * u128::from(budget) / u128::from(held.max(1))) as u64
}

/// Why `spec` at `bits` is too large to be built to measure it ([`HELD_TRIAL_MAX_BYTES`]), if
/// it is: an error even where unfit cells are skipped, since the structure may well fit.
fn too_large_to_measure(spec: &dyn StructureSpec, bits: u64) -> Option<String> {
    let expected = spec.heap_bytes_estimate(bits, 0);
    (expected > HELD_TRIAL_MAX_BYTES).then(|| {
        format!(
            "[grid] budget = \"held\" measures a structure by building it, and this one would hold about {:.1} GiB, over the {} GiB such a trial may take; size it with budget = \"state\" (its fixed part is far under 1 % of so large a size)",
            expected as f64 / f64::from(1u32 << 30),
            HELD_TRIAL_MAX_BYTES >> 30
        )
    })
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

/// A structure refused (`what`: which, and where) for `why`, at the key of its table that
/// `why` names, else its `name`.
fn refused(src: Source<'_>, a: &Algorithm, what: &str, why: &str) -> ConfigError {
    let key = mentioned_key(why, &a.keys).unwrap_or_else(|| "name".into());
    src.at_key(a.span.clone(), &key, format!("{what}: {why}"))
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
    // Per structure: whether any of its cells fits.
    let mut built = vec![false; algorithms.len()];
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
                if sizing == Sizing::Held
                    && let Some(why) = too_large_to_measure(spec.as_ref(), bits)
                {
                    let msg = format!("{} at {}: {why}", spec.name(), format_bits(mem));
                    return Err(src.at_table_key("grid", "budget", msg));
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
                        let what = format!(
                            "{} at {} (scaled: {bits} bits)",
                            spec.name(),
                            format_bits(mem)
                        );
                        return Err(refused(src, a, &what, e));
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
                built[i] = true;
            }
        }
    }
    // Skipping leaves out the sizes a structure does not fit, not a structure whose parameters
    // are wrong: an `[[algorithm]]` table none of whose configurations fits anywhere is
    // refused when its first one, sized to its state at the largest size it runs, is refused
    // for a parameter.
    let mut empty = Vec::new();
    for (i, a) in algorithms.iter().enumerate() {
        let table = |j: &usize| algorithms[*j].span == a.span;
        let first = (0..algorithms.len()).find(table) == Some(i);
        if !first || (0..algorithms.len()).filter(table).any(|j| built[j]) {
            continue;
        }
        let largest = match &a.only_memory {
            Some(own) => own.iter().max(),
            None => grid.iter().max(),
        };
        let Some(bits) = largest.map(|m| (m / scale).max(1)) else {
            continue;
        };
        if let Err(e @ BuildError::Filter(dupstream_filters::Error::InvalidParameter { .. })) =
            scaled[i].memory_bits_for(bits)
        {
            let what = format!(
                "{} fits at none of its memory sizes ([grid] unfit = \"skip\" leaves out sizes, not a structure whose parameters are refused)",
                a.config
            );
            return Err(refused(src, a, &what, &e.to_string()));
        }
        empty.push(format!(
            "{}:{}: `{}` fits at none of its memory sizes: this run leaves it out entirely",
            src.file.display(),
            crate::plan::error::line_of(src.text, a.span.start),
            a.label
        ));
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
        .chain(empty)
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

    /// Sized to what it holds, every structure holds at most its budget, measured, within a
    /// state budget no larger, and no state budget that fits is missed: wherever some power
    /// of two from 2^6 bits up builds within the budget, the fit is at least as large (the
    /// structures whose held bits are several times their state included: LRU buffering's
    /// index, the cuckoo's linked cells); a Bloom filter, whose state grows by words, holds
    /// within a word of the budget.
    #[test]
    fn held_sizing_keeps_every_structure_within_its_budget() {
        for spec in specs() {
            for budget in [1u64 << 13, 100_000, 1 << 20] {
                let fitting = (6..=20)
                    .map(|e| 1u64 << e)
                    .filter(|&b| b <= budget && spec.memory_bits_for(b).is_ok())
                    .filter(|&b| held_bits(spec.as_ref(), b).is_ok_and(|h| h <= budget))
                    .max();
                let fit = held_fit(spec.as_ref(), budget);
                let Ok(bits) = fit else {
                    assert!(
                        fitting.is_none(),
                        "{} at {budget}: no fit found, but {fitting:?} bits fit: {fit:?}",
                        spec.name()
                    );
                    continue;
                };
                let held = held_bits(spec.as_ref(), bits).unwrap();
                assert!(
                    bits <= budget && held <= budget,
                    "{} at {budget}: built within {bits} bits, holds {held}",
                    spec.name()
                );
                assert!(
                    fitting.is_none_or(|f| bits >= f),
                    "{} at {budget}: fit {bits} bits, but {fitting:?} fit",
                    spec.name()
                );
                if spec.name() == "bloom" {
                    assert!(held + 64 > budget, "bloom at {budget}: holds only {held}");
                }
            }
        }
    }
}
