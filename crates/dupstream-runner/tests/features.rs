//! The runner's feature pins (its Cargo.toml) cover every feature that the workspace's other
//! members switch on in crates the runner builds: `cargo test --workspace`, a narrow
//! `cargo test -p dupstream-runner --test tests …` and `cargo build --release -p
//! dupstream-runner` then resolve the same feature set for each crate they share, so none of
//! them rebuilds what another built. Read from `cargo tree` (offline, from Cargo.lock).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Each package (`name vX.Y.Z`) with the feature sets it is built with (one per build unit: a
/// crate built for the host and for the target appears twice).
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "--locked", "--manifest-path"])
        .arg(&manifest)
        .args(["--prefix", "none", "--no-dedupe", "--format", "{p}|{f}"])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // "name v1.2.3 (/path) (proc-macro)" → "name v1.2.3"; "(*)" marks a repeat.
        let name: Vec<&str> = package.split_whitespace().take(2).collect();
        let features = features.trim_end_matches(" (*)").trim().to_string();
        map.entry(name.join(" ")).or_default().insert(features);
    }
    map
}

/// The packages of `narrow` whose feature sets are not among those of `wide`.
fn differences(
    wide: &BTreeMap<String, BTreeSet<String>>,
    narrow: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    narrow
        .iter()
        .filter_map(|(package, sets)| {
            let built = wide.get(package)?;
            (!sets.is_subset(built)).then(|| format!("{package}: {sets:?}, not in {built:?}"))
        })
        .collect()
}

#[test]
fn narrow_test_and_release_build_resolve_the_workspace_features() {
    let all = ["-e", "normal,build,dev"];
    let workspace = features(&[&["--workspace"][..], &all].concat());
    let runner_tests = features(&[&["-p", "dupstream-runner"][..], &all].concat());
    let runner_build = features(&["-p", "dupstream-runner", "-e", "normal,build"]);
    assert!(
        runner_tests.len() > 50 && runner_build.len() > 50,
        "cargo tree listed too little"
    );
    // Equal both ways: the narrow test builds nothing with features the workspace lacks, and
    // lacks none the workspace turns on.
    let mut problems = differences(&workspace, &runner_tests);
    problems.extend(differences(&runner_tests, &workspace));
    problems.extend(differences(&runner_tests, &runner_build));
    assert!(
        problems.is_empty(),
        "a crate the runner builds gets other features from the workspace's other members or \
         from dev-dependencies; pin them in crates/dupstream-runner/Cargo.toml:\n{}",
        problems.join("\n")
    );
}
