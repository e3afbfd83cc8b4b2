//! The rendering of every structure's parameters, `k=v;k=v;...` as `raw.csv`'s `params` column
//! writes it, and the registry's sizing and cost figures, pinned in `tests/params-fixture.txt`.
//!
//! The fixture covers the crate's parameter sets ([`dupstream_filters::parameter_sets::ALL`])
//! and every `[[algorithm]]` table of the repository's experiment files (swept keys
//! expanded), each built at a few budgets, so every registry entry, each optional and
//! enumerated parameter in its forms, and the parameter values the papers use are rendered.
//! It was generated from the string-valued `params()` before they became typed values, so a
//! match shows the typed rendering is byte-identical. After a deliberate change (a new
//! parameter, a new structure),
//! `DUPSTREAM_UPDATE_GOLDEN=1 cargo test -p dupstream-filters --test tests -- params::`
//! rewrites it (`just golden` does too); commit the diff.

use dupstream_filters::DuplicateFilter;
use dupstream_filters::parameter_sets::ALL;
use dupstream_filters::spec::FilterSpec;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Budgets each parameter set is built at, in bits: tiny, a power of two, an odd size, 2 MiB.
const BUDGETS: &[u64] = &[1 << 12, 1 << 20, 3_000_017, 1 << 24];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every experiment file.
fn experiment_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("experiments"))
        .expect("experiments/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut tomls: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        tomls.sort();
        files.extend(tomls);
    }
    files
}

/// Cartesian product of the swept (array-valued) keys of one `[[algorithm]]` table, with the
/// runner's own keys (`label`, `memory`, `family`) removed.
fn expand(table: &toml::Table) -> Vec<toml::Table> {
    let mut combos = vec![toml::Table::new()];
    for (key, value) in table {
        if key == "label" || key == "memory" || key == "family" {
            continue;
        }
        let choices = match value {
            toml::Value::Array(a) => a.clone(),
            v => vec![v.clone()],
        };
        combos = combos
            .into_iter()
            .flat_map(|c| {
                choices.iter().map(move |v| {
                    let mut c = c.clone();
                    c.insert(key.clone(), v.clone());
                    c
                })
            })
            .collect();
    }
    combos
}

/// The parameter sets, each rendered as its TOML line, without repeats, in a stable order:
/// the crate's own list, then the experiment files'.
fn parameter_sets() -> Vec<(String, FilterSpec)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut add = |table: toml::Table, origin: &str| {
        let line = toml::Value::Table(table.clone()).to_string();
        let line = line.trim().replace('\n', ", ");
        if seen.insert(line.clone()) {
            let spec: FilterSpec = toml::Value::Table(table)
                .try_into()
                .unwrap_or_else(|e| panic!("{origin}: {line}: {e}"));
            out.push((line, spec));
        }
    };
    for set in ALL {
        add(toml::from_str(set.toml).unwrap(), "parameter_sets::ALL");
    }
    for file in experiment_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: toml::Table = toml::from_str(&text).unwrap();
        let Some(toml::Value::Array(algs)) = doc.get("algorithm") else {
            continue;
        };
        for alg in algs {
            for combo in expand(alg.as_table().unwrap()) {
                add(combo, &file.display().to_string());
            }
        }
    }
    out
}

/// `k=v;k=v;...`, exactly as the runner writes the `params` column (each [`Param`]'s
/// `Display`, joined with `;`).
///
/// [`Param`]: dupstream_filters::Param
fn render(filter: &dyn DuplicateFilter) -> String {
    filter
        .params()
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(";")
}

fn rendered() -> String {
    let mut out = String::new();
    for (line, spec) in parameter_sets() {
        for &budget in BUDGETS {
            let result = match spec.build(budget, 1) {
                Ok(f) => render(&*f),
                Err(e) => format!("error: {e}"),
            };
            out.push_str(&format!("{line} @ {budget}: {result}\n"));
            // The registry's sizing and cost figures, pinned alongside.
            let memory = spec
                .memory_bits_for(budget)
                .map_or_else(|e| format!("error: {e}"), |b| b.to_string());
            out.push_str(&format!(
                "{line} @ {budget}: memory_bits_for={memory} relative_cost={} cost_at={} heap_bytes_estimate={}\n",
                spec.relative_cost(),
                spec.cost_at(budget),
                spec.heap_bytes_estimate(budget, 1000),
            ));
        }
    }
    out
}

#[test]
fn params_render_as_the_fixture() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/params-fixture.txt");
    let actual = rendered();
    if std::env::var_os("DUPSTREAM_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    let diffs: Vec<String> = expected
        .lines()
        .zip(actual.lines())
        .filter(|(e, a)| e != a)
        .take(5)
        .map(|(e, a)| format!("fixture: {e}\nactual:  {a}"))
        .collect();
    assert!(
        diffs.is_empty() && expected.lines().count() == actual.lines().count(),
        "parameter rendering differs from {} ({} vs {} lines):\n{}",
        path.display(),
        expected.lines().count(),
        actual.lines().count(),
        diffs.join("\n")
    );
}

#[test]
fn the_fixture_covers_every_registered_structure() {
    let covered: BTreeSet<&str> = parameter_sets().iter().map(|(_, s)| s.name()).collect();
    let missing: Vec<&&str> = FilterSpec::NAMES
        .iter()
        .filter(|n| !covered.contains(**n))
        .collect();
    assert!(
        missing.is_empty(),
        "no parameter set or experiment file uses {missing:?}"
    );
}

/// A built structure's derived parameter `key` as its `params` render it.
fn built_param(filter: &dyn DuplicateFilter, key: &str) -> f64 {
    let rendered = render(filter);
    rendered
        .split(';')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no `{key}` in {rendered}"))
        .parse()
        .unwrap_or_else(|e| panic!("`{key}` in {rendered}: {e}"))
}

/// [`FilterSpec::cells_per_element`] counts the cells the built structure's own `k`, `p`, `l`
/// and generations make, for every fixture set of the structures whose count follows them.
/// FP-SBF's count with `L` from `fps` is the unrounded `L` of the formula, where the filter
/// builds the nearest integer: equal once rounded.
#[test]
fn cells_per_element_follow_the_built_parameters() {
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for (line, spec) in parameter_sets() {
        for &budget in BUDGETS {
            let Ok(f) = spec.build(budget, 1) else {
                continue;
            };
            let p = |key: &str| built_param(&*f, key);
            let expected = match spec.name() {
                "bloom" => p("k"),
                "sbf" => p("k") + p("p"),
                "fpsbf" => p("k") + p("l"),
                "rsbf" | "bsbf" | "rlbsbf" | "a2" => 2.0 * p("k"),
                "bsbfsd" => p("k") + 1.0,
                "rotating_bloom" => p("k") * (p("generations") + 1.0),
                "fbf" => p("k") * (p("filters") + 2.0),
                _ => continue,
            };
            let mut got = spec.cells_per_element(budget);
            if spec.name() == "fpsbf" {
                got = got.round();
            }
            checked += 1;
            if got != expected {
                mismatches.push(format!("{line} @ {budget}: {got} vs built {expected}"));
            }
        }
    }
    assert!(checked > 300, "{checked}");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
