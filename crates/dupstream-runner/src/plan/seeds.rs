//! Seeds: every random choice of a run derives from the replicate seed of its stream, so a
//! cell's result depends only on its own stream, structure and memory, not on the other cells
//! or the thread count.

use crate::plan::Cell;
use dupstream_filters::hash::mix64;

/// The key-hash seed shared by every structure on a stream with replicate seed `seed`.
pub fn hash_seed(seed: u64) -> u64 {
    mix64(seed ^ 0x6861_7368_5f73_6565)
}

/// The seed of the structure in cell `cell` on a stream with replicate seed `seed`. It does
/// not depend on anything but the seed and the cell's structure and memory, so adding a cell
/// to an experiment does not change the others' results.
pub fn filter_seed(seed: u64, cell: &Cell) -> u64 {
    let name = cell
        .filter
        .name()
        .bytes()
        .fold(0u64, |h, b| mix64(h ^ u64::from(b)));
    mix64(seed ^ mix64(name ^ cell.memory_nominal_bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn seeds_depend_on_seed_structure_and_memory_only() {
        let text = "name = \"s\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\n[grid]\nmemory = [\"1KB\", \"2KB\"]\nseeds = [1, 2]\n[[algorithm]]\nname = \"bloom\"\nk = 2\n[[algorithm]]\nname = \"sbf\"\np = 4\n";
        let e = crate::plan::parse(Path::new("s.toml"), text, None).unwrap();
        let seeds: Vec<u64> = e.cells.iter().map(|c| filter_seed(1, c)).collect();
        let mut unique = seeds.clone();
        unique.sort_unstable();
        unique.dedup();
        // Two streams (seeds) × two sizes × two structures: per seed, four distinct seeds.
        assert_eq!(unique.len(), 4, "{seeds:?}");
        assert_ne!(hash_seed(1), hash_seed(2));
        // Dropping a structure changes no other cell's seed.
        let fewer = text.replace("[[algorithm]]\nname = \"sbf\"\np = 4\n", "");
        let f = crate::plan::parse(Path::new("s.toml"), &fewer, None).unwrap();
        assert_eq!(filter_seed(1, &f.cells[0]), filter_seed(1, &e.cells[0]));
    }
}
