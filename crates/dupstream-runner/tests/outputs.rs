//! Records, experiments and the command line (issue #12): the build revision in `--version`
//! and the manifest, the host in the default directory name, `[run] max_scale`, the
//! few-duplicates warning, copied catalogue experiments, paper values matched on their
//! parameters, run-against-run `compare`, `--quiet`, `run --help` and shell completions.

use crate::util::{dupstream, dupstream_ok, root, scratch, write};
use std::path::Path;

const SMALL: &str = r#"name = "outputs"
description = "a small experiment for the output tests"

[stream]
kind = "uniform"
n = 40_000
distinct_fraction = 0.5
seed = 5

[grid]
memory = ["2KB", "8KB"]

[[algorithm]]
name = "bloom"
k = 2

[metrics]
checkpoints = 2
"#;

/// `dupstream run FILE --quiet --out OUT EXTRA…`, which must succeed.
fn run(file: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["run", file, "--quiet", "--out", out.to_str().unwrap()];
    args.extend(extra);
    dupstream_ok(&args)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `dupstream --version`: `dupstream <version> (revision <rev>, built <YYYY-MM-DD>)`.
fn version_revision() -> String {
    let v = stdout(&dupstream_ok(&["--version"]));
    let v = v.trim();
    let rest = v
        .strip_prefix(&format!(
            "dupstream {} (revision ",
            env!("CARGO_PKG_VERSION")
        ))
        .unwrap_or_else(|| panic!("{v}"));
    let (rev, date) = rest.split_once(", built ").unwrap_or_else(|| panic!("{v}"));
    let date = date.strip_suffix(')').unwrap();
    assert!(
        date.len() == 10 && date.bytes().filter(|b| *b == b'-').count() == 2,
        "{v}"
    );
    rev.to_string()
}

#[test]
fn version_and_manifest_name_the_build_revision_and_the_machine() {
    let rev = version_revision();
    // Built from this checkout: the revision is its HEAD (with -dirty when it was edited).
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(h) if root().join(".git").exists() => assert!(
            rev == h || rev == format!("{h}-dirty"),
            "--version says {rev}, HEAD is {h}"
        ),
        _ => crate::util::skipped(&format!("revision check (not a git checkout): {rev}")),
    }
    // Started from another directory, a run records the build's revision all the same.
    let dir = scratch("revision");
    let file = write(&dir, "small.toml", SMALL);
    let out = dir.join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dupstream"))
        .args(["run", &file, "--quiet", "--out", out.to_str().unwrap()])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["git_revision"].as_str(), Some(rev.as_str()));
    let machine = &m["machine"];
    assert!(machine["host"].as_str().is_some_and(|h| !h.is_empty()));
    assert!(machine["cores"].as_u64().unwrap() >= 1);
    assert_eq!(machine["load_average"].as_array().unwrap().len(), 3);
    if cfg!(target_os = "linux") {
        for k in ["kernel", "memory_bytes", "cpu"] {
            assert!(!machine[k].is_null(), "machine.{k} missing: {machine}");
        }
    }
}

#[test]
fn default_directories_name_the_host_and_resume_finds_them() {
    let dir = scratch("hostdir");
    let file = write(&dir, "small.toml", SMALL);
    let root_dir = dir.join("results");
    let r = root_dir.to_str().unwrap();
    dupstream_ok(&["run", &file, "--quiet", "--results-root", r]);
    let runs: Vec<_> = std::fs::read_dir(root_dir.join("outputs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    let name = runs[0].file_name().unwrap().to_str().unwrap().to_string();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(runs[0].join("manifest.json")).unwrap()).unwrap();
    let host = m["machine"]["host"]
        .as_str()
        .unwrap()
        .split('.')
        .next()
        .unwrap()
        .to_string();
    let rev = version_revision();
    assert!(
        name.ends_with(&format!("-{host}-{rev}")) && name.len() == 10 + 2 + host.len() + rev.len(),
        "{name} is not <date>-{host}-{rev}"
    );
    // An interrupted run (no commit record) is found again by --resume, under its name.
    std::fs::remove_file(runs[0].join("commit.json")).unwrap();
    dupstream_ok(&["run", &file, "--quiet", "--resume", "--results-root", r]);
    assert!(runs[0].join("commit.json").is_file());
    assert_eq!(
        std::fs::read_dir(root_dir.join("outputs")).unwrap().count(),
        1
    );
}

#[test]
fn quiet_means_only_warnings_and_errors_on_stderr() {
    let dir = scratch("quiet");
    let file = write(&dir, "small.toml", SMALL);
    let out = dir.join("q");
    let o = run(&file, &out, &[]);
    assert_eq!(stderr(&o), "", "--quiet printed on stderr");
    assert!(
        stdout(&o).lines().any(|l| l.starts_with("memory ")) && stdout(&o).contains("ours"),
        "the table still goes to stdout"
    );
    let loud = dir.join("l");
    let o = dupstream_ok(&["run", &file, "--out", loud.to_str().unwrap()]);
    assert!(stderr(&o).contains("writing to"), "{}", stderr(&o));
    // A warning is printed even when quiet.
    let repeated = SMALL.replace("[grid]\n", "[grid]\nseeds = [1, 1]\n");
    let file = write(&dir, "repeated.toml", &repeated);
    let out = dir.join("r");
    let o = run(&file, &out, &[]);
    assert!(stderr(&o).contains("warning: ") && stderr(&o).contains("seed 1 repeated"));
}

#[test]
fn run_help_shows_run_examples_only_and_completions_are_generated() {
    let help = stdout(&dupstream_ok(&["run", "--help"]));
    assert!(
        help.contains("Examples:") && help.contains("dupstream run"),
        "{help}"
    );
    for other in [
        "dupstream list",
        "dupstream theory",
        "dupstream plot",
        "dupstream check",
    ] {
        assert!(!help.contains(other), "run --help shows `{other}`:\n{help}");
    }
    let top = stdout(&dupstream_ok(&["--help"]));
    assert!(
        top.contains("completions") && top.contains("dupstream list"),
        "{top}"
    );
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout(&dupstream_ok(&["completions", shell]));
        assert!(
            script.contains("dupstream")
                && script.contains("compare")
                && script.contains("--scale"),
            "{shell}: {script}"
        );
    }
    let o = dupstream(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn max_scale_clamps_with_a_warning_and_few_duplicates_warn() {
    let dir = scratch("maxscale");
    let pinned = format!("{SMALL}\n[run]\nmax_scale = 2\n");
    let file = write(&dir, "pinned.toml", &pinned);
    let out = dir.join("p");
    let o = run(&file, &out, &["--scale", "64"]);
    let err = stderr(&o);
    assert!(
        err.contains("pinned.toml:21: key `run.max_scale`: --scale 64 is above")
            && err.contains("running at scale 2"),
        "{err}"
    );
    let raw = std::fs::read_to_string(out.join("raw.csv")).unwrap();
    assert!(
        raw.lines().nth(1).unwrap().contains(",20000,"),
        "run at n = 40,000 / 2: {raw}"
    );
    let run_toml = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(
        run_toml.contains("max_scale = 2") && run_toml.contains("scale = 2"),
        "{run_toml}"
    );
    // estimate and check honour it too.
    let est: serde_json::Value = serde_json::from_slice(
        &dupstream_ok(&["estimate", &file, "--scale", "64", "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(est["files"][0]["scale"].as_u64(), Some(2));
    // The catalogue's small files carry it: QHT Table 1 at --scale 64 runs at full scale.
    let est: serde_json::Value = serde_json::from_slice(
        &dupstream_ok(&[
            "estimate",
            "experiments/qht/table1.toml",
            "--scale",
            "64",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(est["files"][0]["scale"].as_u64(), Some(1));
    // 40,000 elements at 50 % distinct over 2 checkpoints: 10,000 duplicates per checkpoint,
    // 156 at scale 64 (a warning), 2,500 at scale 4 (none).
    let plain = write(&dir, "small.toml", SMALL);
    let text = stdout(&dupstream_ok(&["check", &plain, "--scale", "64"]));
    assert!(
        text.contains("about 156 duplicates per checkpoint (fewer than 1000)"),
        "{text}"
    );
    let text = stdout(&dupstream_ok(&["check", &plain, "--scale", "4"]));
    assert!(!text.contains("duplicates per checkpoint"), "{text}");
    // A stream without a closed form is counted once labelled: a Zipf stream of 625 elements
    // (40,000 at scale 64) has a few hundred duplicates.
    let zipf = SMALL.replace(
        "kind = \"uniform\"\nn = 40_000\ndistinct_fraction = 0.5",
        "kind = \"zipf\"\nn = 40_000\nuniverse = 100_000\ns = 1.0",
    );
    let zipf = write(&dir, "zipf.toml", &zipf);
    let o = run(&zipf, &dir.join("z"), &["--scale", "64"]);
    let err = stderr(&o);
    assert!(
        err.contains("warning: at --scale 64 the stream zipf")
            && err.contains("duplicates per checkpoint"),
        "{err}"
    );
}

#[test]
fn two_spellings_of_one_memory_size_are_refused() {
    let dir = scratch("twice");
    let file = write(
        &dir,
        "twice.toml",
        &SMALL.replace("\"8KB\"", "\"2^14 bits\""),
    );
    let o = dupstream(&["check", &file]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(
        out.contains("twice.toml:11: key `grid.memory`: `2^14 bits` is the same size as `2KB`"),
        "{out}"
    );
}

/// Table 7 copied elsewhere, with SBF's k changed to 3, at one memory size and a large scale.
fn copied_table7(dir: &Path, name: Option<&str>) -> String {
    let text =
        std::fs::read_to_string(root().join("experiments/bera-journal/table7.toml")).unwrap();
    let mut text = text.replacen("k = 2\np = 4", "k = 3\np = 4", 1).replace(
        "memory = [\"64MB\", \"128MB\", \"256MB\", \"512MB\"]",
        "memory = [\"64MB\"]",
    );
    if let Some(n) = name {
        text = text.replace("name = \"bera-journal-table7\"", &format!("name = \"{n}\""));
    }
    write(dir, "table7.toml", &text)
}

#[test]
fn a_copied_experiment_finds_its_paper_values_and_differing_parameters_are_not_scored() {
    let dir = scratch("copied");
    let file = copied_table7(&dir, None);
    let out = dir.join("out");
    let o = run(&file, &out, &["--scale", "1024"]);
    let err = stderr(&o);
    assert!(
        err.contains("reference paper-values.csv is not beside this file; using experiments/bera-journal/paper-values.csv"),
        "{err}"
    );
    let table = std::fs::read_to_string(out.join("table.md")).unwrap();
    let row = table
        .lines()
        .find(|l| l.starts_with("| 64MB | FPR |"))
        .unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // Columns: memory, metric, SBF, SBF-rand31, RSBF, …
    assert!(
        cells[3].contains("/ — (k=3 ≠ paper k=2)"),
        "SBF (k = 3): {row}"
    );
    assert!(
        cells[4].contains(" / 2.9156 "),
        "SBF-rand31 (k = 2) is still scored: {row}"
    );
    assert!(table.contains("cells not scored"), "{table}");
    // Renamed, the copy is no catalogue experiment: refused, naming where it looked.
    let other = scratch("copied-renamed");
    let file = copied_table7(&other, Some("my-table7"));
    let o = dupstream(&["check", &file]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains("no catalogue experiment named `my-table7`"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn compare_puts_two_runs_side_by_side() {
    let dir = scratch("runs");
    let seeded = SMALL.replace("[grid]\n", "[grid]\nseeds = [1, 2, 3]\n");
    let file = write(&dir, "seeded.toml", &seeded);
    let (a, b) = (dir.join("a"), dir.join("b"));
    for d in [&a, &b] {
        run(&file, d, &[]);
    }
    let text = stdout(&dupstream_ok(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]));
    assert!(
        text.contains("Matched on algorithm, label, config, params, memory, stream, checkpoint"),
        "{text}"
    );
    assert!(
        text.contains("4 values compared") && text.contains("4 identical"),
        "{text}"
    );
    assert!(
        text.contains("0 of 4 with a confidence interval differ"),
        "{text}"
    );
    // A run of other memory sizes: the cells of one run only are named.
    let other = write(&dir, "other.toml", &seeded.replace("\"8KB\"", "\"16KB\""));
    let c = dir.join("c");
    run(&other, &c, &[]);
    let text = stdout(&dupstream_ok(&[
        "compare",
        a.to_str().unwrap(),
        c.to_str().unwrap(),
        "--all-checkpoints",
    ]));
    assert!(text.contains("Only in A (1): bloom 8KB uniform"), "{text}");
    assert!(text.contains("Only in B (1): bloom 16KB uniform"), "{text}");
    assert!(text.contains("every checkpoint"), "{text}");
    // One seed: said so.
    let single = dir.join("single");
    let f = write(&dir, "small.toml", SMALL);
    run(&f, &single, &[]);
    let text = stdout(&dupstream_ok(&[
        "compare",
        single.to_str().unwrap(),
        single.to_str().unwrap(),
    ]));
    assert!(
        text.contains("identical (1 seed)") && text.contains("one seed"),
        "{text}"
    );
    // The paper comparison of one directory still works, and says when there is none.
    let o = dupstream(&["compare", a.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "bad input");
    assert!(stderr(&o).contains("has no paper values"), "{}", stderr(&o));
}

#[test]
fn the_readme_example_experiment_is_valid() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("```toml\n").expect("a TOML example") + 8;
    let end = start + readme[start..].find("```").unwrap();
    let dir = scratch("readme-toml");
    let file = write(&dir, "my-experiment.toml", &readme[start..end]);
    let out = stdout(&dupstream_ok(&["check", &file]));
    assert!(out.contains("ok "), "{out}");
    assert!(
        !readme[start..end].contains("skewed"),
        "the example's stream is uniform"
    );
}
