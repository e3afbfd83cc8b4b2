//! `[[algorithm]]`: swept parameters expanded into labelled structures, each checked at every
//! memory size of the grid (without allocating), giving the cells.

mod cells;
mod expand;
mod refusals;
mod warnings;

pub use cells::cells;
pub use expand::expand;
pub use warnings::{formula_labels, too_small};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::error::{ConfigError, Source};
    use crate::plan::schema::RawExperiment;
    use crate::plan::{Cell, Registry, Sizing};
    use std::path::Path;

    fn run(algorithms: &str, scale: u64) -> Result<Vec<Cell>, ConfigError> {
        let text = format!(
            "name = \"a\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\n[grid]\nmemory = [\"1KB\", \"2KB\"]\n{algorithms}"
        );
        let raw: RawExperiment = toml::from_str(&text).unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text: &text,
        };
        let grid = [8192, 16384];
        let algs = expand(src, &raw.algorithm, &Registry::builtin())?;
        cells(src, 2, &grid, &algs, scale, false, Sizing::State).map(|c| c.0)
    }

    /// `cell_bits`, `blocks` or `k` with b_DBF's `running_counter` are refused at their own
    /// line, even at their default value (`cell_bits = 4` was accepted and ignored).
    #[test]
    fn keys_a_mode_ignores_are_refused_at_their_line() {
        for (key, value) in [
            ("cell_bits", "4"),
            ("cell_bits", "8"),
            ("blocks", "10"),
            ("k", "3"),
        ] {
            let e = run(
                &format!("[[algorithm]]\nname = \"bdbf\"\nschedule = \"running_counter\"\nwindow = 100\n{key} = {value}\n"),
                1,
            )
            .unwrap_err();
            assert_eq!((e.line, e.key.as_deref()), (Some(12), Some(key)), "{e}");
            assert!(e.to_string().contains("not used with schedule"), "{e}");
        }
        assert!(
            run(
                "[[algorithm]]\nname = \"bdbf\"\nwindow = 100\ncell_bits = 8\n",
                1
            )
            .is_ok()
        );
    }

    #[test]
    fn sweeps_labels_and_restrictions() {
        let c = run("[[algorithm]]\nname = \"bloom\"\nk = [1, 2]\n[[algorithm]]\nname = \"sbf\"\nlabel = \"SBF\"\np = 4\nmemory = \"2KB\"\n", 1).unwrap();
        let labels: Vec<&str> = c.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["bloom k=1", "bloom k=2", "bloom k=1", "bloom k=2", "SBF"].repeat(2)
        );
        assert_eq!(
            c.iter().map(|c| c.index).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!((c[9].stream, c[9].budget_bits), (1, 16384));
        let scaled = run("[[algorithm]]\nname = \"bloom\"\nk = 2\n", 4).unwrap();
        assert_eq!(
            (scaled[0].budget_bits, scaled[0].memory_nominal_bits),
            (2048, 8192)
        );
    }

    #[test]
    fn sizes_beyond_the_grid_run_after_it_and_families_default_to_the_label() {
        let c = run("[[algorithm]]\nname = \"bloom\"\nk = 2\n[[algorithm]]\nname = \"exact\"\nlabel = \"Exact\"\nfamily = \"Baseline\"\nmemory = [\"2KB\", \"8KB\"]\n", 1).unwrap();
        let one: Vec<(&str, &str, u64)> = c
            .iter()
            .filter(|c| c.stream == 0)
            .map(|c| (c.label.as_str(), c.family.as_str(), c.memory_nominal_bits))
            .collect();
        assert_eq!(
            one,
            [
                ("bloom", "bloom", 8192),
                ("bloom", "bloom", 16384),
                ("Exact", "Baseline", 16384),
                ("Exact", "Baseline", 65536),
            ]
        );
    }

    #[test]
    fn unfit_cells_are_skipped_with_a_warning_when_asked() {
        let text = "name = \"a\"\ndescription = \"d\"\n[stream]\nkind = \"uniform\"\nn = 1000\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"lru_buffering\"\n[[algorithm]]\nname = \"bloom\"\nk = 2\n";
        let raw: RawExperiment = toml::from_str(text).unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text,
        };
        let algs = expand(src, &raw.algorithm, &Registry::builtin()).unwrap();
        // At scale 1024, 1KB is 8 bits: too small for LRU buffering, not for a Bloom filter.
        assert!(cells(src, 1, &[8192], &algs, 1024, false, Sizing::State).is_err());
        let (c, warnings) = cells(src, 1, &[8192], &algs, 1024, true, Sizing::State).unwrap();
        assert_eq!(
            c.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(),
            ["bloom"]
        );
        // The size it is left out at, and that it is left out of the run entirely.
        assert_eq!(warnings.len(), 2);
        assert!(
            warnings[0].contains("`lru_buffering` cannot be built at 1KB"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].contains("a.toml:8: `lru_buffering` fits at none of its memory sizes"),
            "{warnings:?}"
        );
    }

    #[test]
    fn errors_name_the_key() {
        let key = |a: &str| run(a, 1).unwrap_err().key.unwrap();
        let src = Source {
            file: Path::new("a.toml"),
            text: "",
        };
        let none = expand(src, &[], &Registry::builtin()).unwrap_err();
        assert_eq!(none.key.as_deref(), Some("algorithm"));
        assert_eq!(key("[[algorithm]]\nname = \"nope\"\n"), "name");
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nzz = 1\n"),
            "zz"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nlabel = 3\n"),
            "label"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nmemory = [\"4KB\", \"4096 bytes\"]\n"),
            "memory"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nfamily = 3\n"),
            "family"
        );
        assert_eq!(
            key("[[algorithm]]\nname = \"bloom\"\nk = 2\nmemory = 4\n"),
            "memory"
        );
        // Too small for a structure at some size: `name`, with the size in the message.
        let e = run("[[algorithm]]\nname = \"lru_buffering\"\n", 1024).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("name"));
        assert!(e.message.contains("lru_buffering at 1KB"), "{e}");
        assert_eq!(e.line, Some(9));
    }
}
