//! A hostile user's inputs, one test per class (issue: results that cannot be silently
//! wrong). Each asserts the refusal or the recovery, not merely a non-zero exit: a results
//! directory must never hold wrong results under exit code 0.

use crate::util::{dupstream, dupstream_ok, scratch};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Two structures, two memory sizes: four quick cells.
const TINY: &str = r#"name = "tiny"
description = "four quick cells"

[stream]
kind = "uniform"
n = 20_000
distinct_fraction = 0.5
seed = 5

[grid]
memory = ["16KB", "64KB"]

[[algorithm]]
name = "exact"

[[algorithm]]
name = "bloom"
k = 3

[metrics]
checkpoints = 2
"#;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    s(&p).to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The first line the command printed on stderr.
fn first_line(out: &Output) -> String {
    stderr(out).lines().next().unwrap_or("").to_string()
}

/// Ways to damage a cell's rows file, each of which must be caught.
const DAMAGE: [&str; 4] = ["truncated", "empty", "edited", "foreign"];

/// Damages cell `cell` of `dir` in the way `how`; `foreign` takes the cell's files from
/// `foreign_dir` (the same experiment at another scale).
fn damage(dir: &Path, cell: usize, how: &str, foreign_dir: &Path) {
    let csv = dir.join(format!("cells/cell-{cell:05}.csv"));
    let text = std::fs::read_to_string(&csv).unwrap();
    match how {
        // Cut at a line boundary: the header and the first row only.
        "truncated" => {
            let keep: String = text.split_inclusive('\n').take(2).collect();
            assert!(keep.len() < text.len());
            std::fs::write(&csv, keep).unwrap();
        }
        "empty" => std::fs::write(&csv, "").unwrap(),
        // A well-formed row with one value changed.
        "edited" => {
            let last = text.trim_end().rsplit_once(',').unwrap().0.len();
            let mut b = text.into_bytes();
            b[last - 1] = if b[last - 1] == b'1' { b'2' } else { b'1' };
            std::fs::write(&csv, b).unwrap();
        }
        "foreign" => {
            for ext in ["csv", "json"] {
                let name = format!("cells/cell-{cell:05}.{ext}");
                std::fs::copy(foreign_dir.join(&name), dir.join(&name)).unwrap();
            }
        }
        other => unreachable!("{other}"),
    }
}

fn run_part(file: &str, out: &Path, shard: &str, scale: &str) {
    dupstream_ok(&[
        "run",
        file,
        "--shard",
        shard,
        "--scale",
        scale,
        "--threads",
        "1",
        "--quiet",
        "--out",
        s(out),
    ]);
}

#[test]
fn merge_refuses_damaged_cell_files_naming_part_and_cell() {
    let dir = scratch("adv-merge");
    let file = write(&dir, "tiny.toml", TINY);
    let foreign = dir.join("foreign");
    run_part(&file, &foreign, "0/2", "2");
    for how in DAMAGE {
        let (p0, p1) = (dir.join(format!("{how}-0")), dir.join(format!("{how}-1")));
        run_part(&file, &p0, "0/2", "1");
        run_part(&file, &p1, "1/2", "1");
        let rec: serde_json::Value =
            serde_json::from_slice(&std::fs::read(p0.join("shard.json")).unwrap()).unwrap();
        let cell = rec["cells"][0].as_u64().unwrap() as usize;
        damage(&p0, cell, how, &foreign);
        let out_dir = dir.join(format!("{how}-merged"));
        let out = dupstream(&["merge", s(&p0), s(&p1), "--out", s(&out_dir), "--quiet"]);
        let line = first_line(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{how}: a damaged part is bad input: {}",
            stderr(&out)
        );
        assert!(
            line.contains(s(&p0)) && line.contains(&format!("cell {cell}")),
            "{how}: the error must name the part and the cell: {line}"
        );
        assert!(!out_dir.join("raw.csv").exists(), "{how}: results written");
    }
}

#[test]
fn resume_recomputes_damaged_cell_files() {
    let dir = scratch("adv-resume");
    let file = write(&dir, "tiny.toml", TINY);
    let full = dir.join("full");
    dupstream_ok(&["run", &file, "--threads", "1", "--quiet", "--out", s(&full)]);
    let foreign = dir.join("foreign");
    dupstream_ok(&[
        "run",
        &file,
        "--scale",
        "2",
        "--threads",
        "1",
        "--quiet",
        "--out",
        s(&foreign),
    ]);
    let want = std::fs::read(full.join("raw.csv")).unwrap();
    for how in DAMAGE {
        let run = dir.join(how);
        copy_dir(&full, &run);
        // Interrupted before the commit: the cells are there, the run is not finished.
        for f in ["commit.json", "raw.csv", "manifest.json"] {
            let _ = std::fs::remove_file(run.join(f));
        }
        damage(&run, 1, how, &foreign);
        let out = dupstream(&["run", &file, "--resume", "--threads", "1", "--out", s(&run)]);
        assert_eq!(out.status.code(), Some(0), "{how}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("cell 1 cannot be trusted"),
            "{how}: the damaged cell was not noticed: {}",
            stderr(&out)
        );
        assert!(
            std::fs::read(run.join("raw.csv")).unwrap() == want,
            "{how}: resumed raw.csv differs from the full run's"
        );
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else if p.file_name().unwrap() != ".lock" {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

#[test]
fn a_locked_output_directory_is_refused_naming_the_holder() {
    let dir = scratch("adv-lock");
    let file = write(&dir, "tiny.toml", TINY);
    let out_dir = dir.join("out");
    // Another process's lock, as far as the command can tell: an flock on DIR/.lock held by
    // an open file of this test process.
    let held = dupstream_runner::record::DirLock::acquire(&out_dir).unwrap();
    for args in [
        vec!["run", &file, "--quiet", "--out", s(&out_dir)],
        vec!["run", &file, "--resume", "--quiet", "--out", s(&out_dir)],
        vec![
            "run",
            &file,
            "--shard",
            "0/2",
            "--quiet",
            "--out",
            s(&out_dir),
        ],
    ] {
        let out = dupstream(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let text = stderr(&out);
        assert_eq!(text.lines().count(), 1, "one line: {text}");
        assert!(
            text.contains(s(&out_dir)) && text.contains(&format!("pid {}", std::process::id())),
            "names the directory and the holder: {text}"
        );
        assert!(!out_dir.join("raw.csv").exists() && !out_dir.join(".digest").exists());
    }
    // merge into a locked directory, too.
    let parts = dir.join("parts");
    run_part(&file, &parts.join("p0"), "0/1", "1");
    let out = dupstream(&["merge", s(&parts), "--out", s(&out_dir), "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    drop(held);
    dupstream_ok(&["run", &file, "--quiet", "--out", s(&out_dir)]);
}

#[test]
fn a_run_interrupted_before_its_commit_record_is_resumed_in_place() {
    let dir = scratch("adv-commit");
    let file = write(&dir, "tiny.toml", TINY);
    let root = dir.join("results");
    dupstream_ok(&["run", &file, "--quiet", "--results-root", s(&root)]);
    let runs: Vec<PathBuf> = std::fs::read_dir(root.join("tiny"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let want = std::fs::read(run.join("raw.csv")).unwrap();
    // Killed after raw.csv, before the manifest and the commit record; a stray temporary
    // file from the interrupted write.
    let _ = std::fs::remove_file(run.join("commit.json"));
    std::fs::remove_file(run.join("manifest.json")).unwrap();
    std::fs::write(run.join(".manifest.json.99.partial"), "{").unwrap();
    let out = dupstream(&["run", &file, "--resume", "--results-root", s(&root)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("writing to {}", run.display())),
        "resumed elsewhere: {}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_dir(root.join("tiny")).unwrap().count(), 1);
    assert!(run.join("manifest.json").is_file() && run.join("commit.json").is_file());
    assert!(!run.join(".manifest.json.99.partial").exists());
    assert!(std::fs::read(run.join("raw.csv")).unwrap() == want);
}

/// Runs `dupstream run` on `text` (written as `bad.toml` beside `extra` files) and asserts a
/// refusal before anything is written: exit 2, one line naming the file, `line` and `key`.
fn assert_refused(
    name: &str,
    text: &str,
    extra: &[(&str, &str)],
    line: usize,
    key: &str,
) -> String {
    let dir = scratch(&format!("adv-{name}"));
    let file = write(&dir, "bad.toml", text);
    for (f, t) in extra {
        write(&dir, f, t);
    }
    let results = dir.join("results");
    let out = dupstream(&["run", &file, "--results-root", s(&results)]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{name}: {text}");
    assert_eq!(text.lines().count(), 1, "{name}: one line: {text}");
    let want = format!("bad.toml:{line}: key `{key}`");
    assert!(text.contains(&want), "{name}: wanted `{want}` in: {text}");
    assert!(!results.exists(), "{name}: a results directory was written");
    // `check` refuses it the same way.
    let out = dupstream(&["check", &file]);
    assert_eq!(out.status.code(), Some(2), "{name}: check passed it");
    text
}

#[test]
fn two_structures_under_one_label_are_refused() {
    let text = TINY.replace(
        "[[algorithm]]\nname = \"bloom\"\nk = 3\n",
        "[[algorithm]]\nname = \"sbf\"\nlabel = \"SBF\"\np = 4\n\n[[algorithm]]\nname = \"bsbf\"\nlabel = \"SBF\"\n",
    );
    let line = text.lines().position(|l| l == "name = \"bsbf\"").unwrap() + 2;
    let msg = assert_refused("label", &text, &[], line, "label");
    assert!(msg.contains("`SBF` is already used"), "{msg}");
}

#[test]
fn one_memory_size_spelled_twice_is_refused_naming_both() {
    let text = TINY.replace(
        "memory = [\"16KB\", \"64KB\"]",
        "memory = [\"64MB\",\n  \"2^29 bits\"]",
    );
    let line = text.lines().position(|l| l.contains("2^29")).unwrap() + 1;
    let msg = assert_refused("memory", &text, &[], line, "grid.memory");
    assert!(
        msg.contains("`2^29 bits`") && msg.contains("`64MB`"),
        "{msg}"
    );
}

#[test]
fn a_repeated_seed_draws_a_warning() {
    let dir = scratch("adv-seeds");
    let text = TINY
        .replace("seed = 5\n", "")
        .replace("[grid]\n", "[grid]\nseeds = [1, 2, 1]\n");
    let file = write(&dir, "seeds.toml", &text);
    let out = dupstream_ok(&["run", &file, "--quiet", "--out", s(&dir.join("out"))]);
    assert!(
        stderr(&out).contains("seeds.toml:10: key `seeds`: seed 1 repeated"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn reference_csv_errors_are_refused_before_the_run() {
    let with_ref =
        |table: &str| format!("{TINY}\n[reference]\nfile = \"values.csv\"\ntable = \"{table}\"\n");
    let lines = |t: &str| t.lines().count();
    // A value that is not a number: the CSV's own line and column.
    let csv = "table,metric,value_pct,memory\nT,fpr,1.5,16KB\nT,fnr,n/a,16KB\n";
    let dir = scratch("adv-ref");
    let file = write(&dir, "bad.toml", &with_ref("T"));
    write(&dir, "values.csv", csv);
    let results = dir.join("results");
    let out = dupstream(&["run", &file, "--results-root", s(&results)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("values.csv:3: key `value_pct`"),
        "{}",
        stderr(&out)
    );
    assert!(!results.exists(), "a results directory was written");
    assert_eq!(dupstream(&["check", &file]).status.code(), Some(2));
    // An unknown metric, a bad memory size, a table the file does not have.
    for (csv, want) in [
        (
            "table,metric,value_pct\nT,fpz,1\n",
            "values.csv:2: key `metric`",
        ),
        (
            "table,metric,value_pct,memory\nT,fpr,1,16KX\n",
            "values.csv:2: key `memory`",
        ),
    ] {
        write(&dir, "values.csv", csv);
        let out = dupstream(&["check", &file]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(want),
            "{want}"
        );
    }
    let text = with_ref("Nope");
    let msg = assert_refused(
        "ref-table",
        &text,
        &[("values.csv", "table,metric,value_pct\nT,fpr,1\n")],
        lines(&text),
        "table",
    );
    assert!(msg.contains("tables there: T"), "{msg}");
}

#[test]
fn a_chart_of_an_unknown_parameter_is_refused_before_the_run() {
    let text = format!("{TINY}\n[output]\ncharts = [{{ rates_vs_param = \"kk\" }}]\n");
    let line = text.lines().count();
    assert_refused("chart", &text, &[], line, "charts");
}

#[test]
fn absurd_thread_counts_are_refused_or_capped() {
    let dir = scratch("adv-threads");
    let file = write(&dir, "tiny.toml", TINY);
    let out = dupstream(&[
        "run",
        &file,
        "--threads",
        "40000",
        "--out",
        s(&dir.join("a")),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(!dir.join("a").exists());
    let out = dupstream_ok(&[
        "run",
        &file,
        "--threads",
        "64",
        "--quiet",
        "--out",
        s(&dir.join("b")),
    ]);
    assert!(
        stderr(&out).contains("--threads 64 capped at 4, the number of cells"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn errors_point_at_the_offending_value() {
    let at = |needle: &str, text: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let cases = [
        (
            "checkpoints",
            TINY.replace("checkpoints = 2", "checkpoints = 0"),
            "checkpoints = 0",
            "checkpoints",
        ),
        (
            "seeds",
            TINY.replace("[grid]\n", "[grid]\nseeds = []\n"),
            "seeds = []",
            "seeds",
        ),
        (
            "memory",
            TINY.replace("memory = [\"16KB\", \"64KB\"]", "memory = []"),
            "memory = []",
            "memory",
        ),
        ("k", TINY.replace("k = 3", "k = 0"), "k = 0", "k"),
        (
            "stream",
            TINY.replace("distinct_fraction = 0.5", "distinct_fraction = 1.5"),
            "distinct_fraction",
            "distinct_fraction",
        ),
        (
            "reffile",
            format!("{TINY}\n[reference]\nfile = \"missing.csv\"\ntable = \"T\"\n"),
            "missing.csv",
            "file",
        ),
    ];
    for (name, text, needle, key) in cases {
        assert_refused(&format!("loc-{name}"), &text, &[], at(needle, &text), key);
    }
}

/// A replay experiment over `path`.
fn replay(path: &str) -> String {
    format!(
        "name = \"rp\"\ndescription = \"d\"\n[stream]\nkind = \"replay\"\npath = \"{path}\"\nformat = \"lines\"\n[grid]\nmemory = [\"1KB\"]\n[[algorithm]]\nname = \"exact\"\n"
    )
}

#[test]
fn an_empty_replay_is_an_input_error() {
    let dir = scratch("adv-empty-replay");
    write(&dir, "empty.txt", "");
    let file = write(&dir, "rp.toml", &replay("empty.txt"));
    let out = dupstream(&["run", &file, "--quiet", "--out", s(&dir.join("out"))]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let line = stderr(&out).lines().last().unwrap_or("").to_string();
    assert!(line.contains("has no keys"), "{line}");
    assert!(!dir.join("out/raw.csv").exists());
}

#[cfg(unix)]
#[test]
fn a_fifo_gets_a_plain_language_message() {
    let dir = scratch("adv-fifo");
    let fifo = dir.join("keys.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::util::skipped("mkfifo unavailable");
        return;
    }
    // A writer that feeds the FIFO once (a second open blocks, so it is detached).
    let mut feeder = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf 'a\\nb\\na\\n' > '{}'", fifo.display()))
        .spawn()
        .unwrap();
    let file = write(&dir, "rp.toml", &replay("keys.fifo"));
    let out = dupstream(&["run", &file, "--quiet", "--out", s(&dir.join("out"))]);
    let text = stderr(&out);
    let _ = feeder.kill(); // it may still wait for a reader
    let _ = feeder.wait();
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("os error 29"), "bare OS message: {text}");
    assert!(text.contains("cannot be read twice"), "{text}");
}

#[test]
fn skipped_replay_lines_are_counted_and_reported() {
    let dir = scratch("adv-skipped");
    // Lines 2, 4, 5, 7, 8 and 10 are empty (malformed for `lines`); 4 keys remain.
    write(&dir, "keys.txt", "a\n\nb\n\n\na\n\n\nc\n\n");
    let text = replay("keys.txt").replace(
        "format = \"lines\"\n",
        "format = \"lines\"\nbad_lines = \"skip\"\n",
    );
    let file = write(&dir, "rp.toml", &text);
    let out_dir = dir.join("out");
    let out = dupstream_ok(&["run", &file, "--quiet", "--out", s(&out_dir)]);
    let err = stderr(&out);
    assert!(
        err.contains("skipped 6 malformed lines, the first at lines 2, 4, 5, 7, 8"),
        "stderr: {err}"
    );
    // streams.csv: the count and the first line numbers, by column name.
    let streams = std::fs::read_to_string(out_dir.join("streams.csv")).unwrap();
    let mut lines = streams.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| {
        let i = header.iter().position(|h| *h == name);
        row[i.unwrap_or_else(|| panic!("no `{name}` column: {streams}"))]
    };
    assert_eq!(col("n"), "4", "{streams}");
    assert_eq!(col("skipped_lines"), "6", "{streams}");
    assert_eq!(col("skipped_first"), "2 4 5 7 8", "{streams}");
    // manifest.json: the same, per stream.
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["streams"][0]["skipped_lines"], 6, "{m}");
    assert_eq!(
        m["streams"][0]["first_skipped_lines"],
        serde_json::json!([2, 4, 5, 7, 8]),
        "{m}"
    );
    // Every line skipped: exit 2, and the message says so with the count.
    write(&dir, "keys.txt", "\n\n\n");
    let out = dupstream(&["run", &file, "--quiet", "--out", s(&dir.join("none"))]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let last = stderr(&out).lines().last().unwrap_or("").to_string();
    assert!(
        last.contains("has no keys")
            && last.contains("skipped 3 malformed lines, at lines 1, 2, 3"),
        "{last}"
    );
    assert!(!dir.join("none/raw.csv").exists());
}

/// Runs `dupstream ARGS` with stdout a pipe whose reader is already gone (as under
/// `| head -1` once head has exited); returns the exit code and stderr.
fn closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dupstream"))
        .args(args)
        .current_dir(crate::util::root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run dupstream");
    // Close the read end before the command writes (it is still starting up).
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    (out.status.code(), stderr(&out))
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let dir = scratch("adv-pipe");
    // With paper values, for `compare`.
    write(
        &dir,
        "values.csv",
        "table,metric,value_pct,memory\nT,fpr,1.5,16KB\n",
    );
    let text = format!("{TINY}\n[reference]\nfile = \"values.csv\"\ntable = \"T\"\n");
    let file = write(&dir, "tiny.toml", &text);
    let done = dir.join("done");
    dupstream_ok(&["run", &file, "--quiet", "--out", s(&done)]);
    let parts = dir.join("parts");
    run_part(&file, &parts.join("p0"), "0/1", "1");
    let cases: Vec<Vec<String>> = [
        vec!["list"],
        vec!["check"],
        vec!["list", "--json"],
        vec!["estimate", "experiments/bera-journal", "--scale", "64"],
        vec!["completions", "bash"],
        vec!["docs", "--check"],
        vec!["compare", s(&done)],
        vec!["plot", s(&done)],
        vec!["timing", s(&done)],
        vec!["report", s(&done)],
        vec!["theory", "deng-fig1", "--out", s(&dir.join("theory"))],
        vec!["run", &file, "--quiet", "--out", s(&dir.join("run"))],
        vec!["merge", s(&parts), "--out", s(&dir.join("merged"))],
        vec![
            "slurm",
            &file,
            "--shards",
            "2",
            "--out",
            s(&dir.join("slurm")),
        ],
        vec!["leaderboard", "results"],
        // Last: it rewrites the run's derived files in place.
        vec!["migrate", s(&done)],
    ]
    .iter()
    .map(|a| a.iter().map(|x| x.to_string()).collect())
    .collect();
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = closed_stdout(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
    // The run and the merge finished their results before printing the table.
    for d in ["run", "merged"] {
        assert!(dir.join(d).join("commit.json").is_file(), "{d}");
    }
}

/// Eight cells of about 0.05-0.15 s each at one thread (two structures at four memory sizes
/// over 2·10^6 elements): long enough to be interrupted between cells.
fn eight_cells() -> String {
    TINY.replace("n = 20_000", "n = 2_000_000").replace(
        "memory = [\"16KB\", \"64KB\"]",
        "memory = [\"16KB\", \"64KB\", \"256KB\", \"1MB\"]",
    )
}

/// Files named `*.json` in `dir/cells` (finished cells), 0 when it does not exist.
fn finished_cells(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("cells")).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
        .count()
    })
}

#[cfg(unix)]
#[test]
fn a_signal_stops_the_run_keeping_finished_cells_and_says_how_to_resume() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = scratch("adv-signal");
    let file = write(&dir, "eight.toml", &eight_cells());
    // One thread, so that cells finish one at a time.
    let run =
        |out: &Path| ["run", &file, "--threads", "1", "--quiet", "--out", s(out)].map(String::from);
    let full = dir.join("full");
    dupstream_ok(&run(&full).each_ref().map(String::as_str));
    let want = std::fs::read(full.join("raw.csv")).unwrap();
    for (signal, code, name) in [("INT", 130, "SIGINT"), ("TERM", 143, "SIGTERM")] {
        let out_dir = dir.join(name);
        let child = Command::new(env!("CARGO_BIN_EXE_dupstream"))
            .args(run(&out_dir))
            .current_dir(crate::util::root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Signal once the first cell is finished (seven are still to run).
        let start = Instant::now();
        while finished_cells(&out_dir) == 0 {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no cell finished"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{name}: {text}");
        let last: Vec<&str> = text.lines().filter(|l| l.contains("resume")).collect();
        assert_eq!(
            last.len(),
            1,
            "{name}: one line saying how to resume: {text}"
        );
        let line = last[0];
        assert!(
            line.starts_with(&format!("dupstream: interrupted by {name}: ")),
            "{line}"
        );
        // Finished cells kept (as many as the line says), nothing of a finished run written.
        let kept = finished_cells(&out_dir);
        assert!((1..8).contains(&kept), "{name}: {kept} cells kept");
        assert!(line.contains(&format!("{kept} of 8 cells")), "{line}");
        for f in ["raw.csv", "commit.json", "manifest.json"] {
            assert!(!out_dir.join(f).exists(), "{name}: {f} written");
        }
        // The printed command resumes the run, and its raw.csv is the uninterrupted one's.
        let cmd = line.split_once("resume with: ").unwrap().1;
        let words: Vec<&str> = cmd.split_whitespace().collect();
        assert_eq!(words[0], env!("CARGO_BIN_EXE_dupstream"), "{cmd}");
        assert!(
            cmd.contains("--resume") && cmd.contains(s(&out_dir)),
            "{cmd}"
        );
        let resumed = Command::new(words[0])
            .args(&words[1..])
            .arg("--quiet")
            .current_dir(crate::util::root())
            .output()
            .unwrap();
        assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
        assert!(
            std::fs::read(out_dir.join("raw.csv")).unwrap() == want,
            "{name}: resumed raw.csv differs from the uninterrupted run's"
        );
    }
}

/// A count above 2^63 − 1 fits the typed field (u64) but not the TOML record the run writes of
/// itself: it was accepted by `check` and failed in `run` with a multi-line error. Refused up
/// front, naming the line and key, for every integer field tried.
#[test]
fn an_integer_above_i64_is_refused_before_the_run() {
    for (from, to, key) in [
        ("seed = 5", "seed = 18446744073709551615", "seed"),
        (
            "checkpoints = 2",
            "checkpoints = 18446744073709551615",
            "checkpoints",
        ),
    ] {
        assert!(TINY.contains(from), "{from}");
        let text = TINY.replacen(from, to, 1);
        let line = text
            .lines()
            .position(|l| l.contains("18446744073709551615"))
            .unwrap()
            + 1;
        let msg = assert_refused(&format!("i64-{key}"), &text, &[], line, key);
        assert!(msg.contains("too large"), "{msg}");
    }
}

/// A replay file damaged in transit (a gzip stream cut short) is bad input: exit 2 and one
/// line naming the file and the line reached, the cause said once; no cell file is written.
#[test]
fn a_truncated_gzip_replay_is_refused_in_one_line() {
    use std::io::Write as _;
    let dir = scratch("adv-truncated-gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..5_000 {
        writeln!(gz, "key{}", i % 700).unwrap();
    }
    let whole = gz.finish().unwrap();
    std::fs::write(dir.join("cut.gz"), &whole[..whole.len() / 2]).unwrap();
    let file = write(
        &dir,
        "cut.toml",
        "name = \"cut\"\ndescription = \"d\"\n\n[stream]\nkind = \"replay\"\npath = \"cut.gz\"\nformat = \"lines\"\n\n[grid]\nmemory = [\"16KB\"]\n\n[[algorithm]]\nname = \"bloom\"\nk = 2\n",
    );
    let out_dir = dir.join("out");
    let out = dupstream(&["run", &file, "--out", s(&out_dir), "--quiet"]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    assert!(text.contains("cut.gz:"), "names the file and line: {text}");
    let cause = text.trim_end().rsplit(": ").next().unwrap();
    assert_eq!(text.matches(cause).count(), 1, "the cause once: {text}");
    assert!(!out_dir.join("raw.csv").exists() && !out_dir.join("cells").exists());
}

/// The 1-based line of the first line of `text` that is `needle`, else that contains it.
fn line_of(needle: &str, text: &str) -> usize {
    let lines = || text.lines();
    lines()
        .position(|l| l == needle)
        .or_else(|| lines().position(|l| l.contains(needle)))
        .unwrap()
        + 1
}

/// TINY with an SBF whose keys are each on their own line.
fn with_sbf() -> String {
    TINY.replace(
        "name = \"bloom\"\nk = 3\n",
        "name = \"sbf\"\nmax = 3\nk = 2\np = 4\n",
    )
}

#[test]
fn errors_inside_tables_name_the_value_s_own_line_and_key() {
    let sbf = with_sbf();
    // (name, text, needle on the line at fault, key)
    let mut cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "max",
            sbf.replace("max = 3", "max = \"one\""),
            "max =",
            "max",
        ),
        (
            "k-str",
            sbf.replace("k = 2", "k = \"two\""),
            "k = \"two\"",
            "k",
        ),
        ("p", sbf.replace("p = 4", "p = \"x\""), "p = \"x\"", "p"),
        ("k-neg", sbf.replace("k = 2", "k = -1"), "k = -1", "k"),
        ("k-empty", sbf.replace("k = 2", "k = []"), "k = []", "k"),
        (
            "decrement",
            sbf.replace("p = 4", "p = 4\ndecrement = \"bogus\""),
            "decrement",
            "decrement",
        ),
        (
            "n-str",
            TINY.replace("n = 20_000", "n = \"300000\""),
            "n = \"300000\"",
            "n",
        ),
        ("n-neg", TINY.replace("n = 20_000", "n = -1"), "n = -1", "n"),
        (
            "kind",
            TINY.replace("kind = \"uniform\"", "kind = \"uniformm\""),
            "kind =",
            "kind",
        ),
        (
            "scale",
            format!("{TINY}\n[run]\nscale = 0\n"),
            "scale = 0",
            "scale",
        ),
        (
            "single-brackets",
            TINY.replace(
                "[[algorithm]]\nname = \"bloom\"",
                "[algorithm]\nname = \"bloom\"",
            ),
            "[algorithm]",
            "algorithm",
        ),
    ];
    let rp = replay("keys.txt");
    cases.push((
        "format",
        rp.replace("format = \"lines\"", "format = \"xml\""),
        "format =",
        "format",
    ));
    cases.push((
        "bad-lines",
        rp.replace(
            "format = \"lines\"",
            "format = \"lines\"\nbad_lines = \"bogus\"",
        ),
        "bad_lines",
        "bad_lines",
    ));
    for (name, text, needle, key) in &cases {
        let msg = assert_refused(
            &format!("own-{name}"),
            text,
            &[("keys.txt", "a\nb\na\n")],
            line_of(needle, text),
            key,
        );
        assert!(!msg.contains("unknown algorithm"), "{name}: {msg}");
    }
}

#[test]
fn a_reference_file_that_is_a_directory_is_named_as_one() {
    let dir = scratch("adv-ref-dir");
    std::fs::create_dir_all(dir.join("values.csv")).unwrap();
    let text = format!("{TINY}\n[reference]\nfile = \"values.csv\"\ntable = \"T\"\n");
    let file = write(&dir, "ref.toml", &text);
    let out = dupstream(&["check", &file]);
    let text_out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(2), "{text_out}");
    assert!(
        text_out.contains(&format!(
            "ref.toml:{}: key `file`",
            line_of("file =", &text)
        )) && text_out.contains("is a directory"),
        "{text_out}"
    );
}

#[test]
fn flags_are_blamed_as_flags() {
    let dir = scratch("adv-flags");
    let file = write(&dir, "tiny.toml", TINY);
    for (args, flag, says) in [
        (vec!["--scale", "0"], "--scale", "whole number >= 1"),
        (vec!["--scale", "3.5"], "--scale", "whole number >= 1"),
        (vec!["--shard", "-1/3"], "--shard", "I/N"),
    ] {
        let mut all = vec!["run", file.as_str()];
        all.extend(args.iter().copied());
        let out = dupstream(&all);
        let line = first_line(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {line}");
        assert!(
            line.contains(flag) && line.contains(says),
            "{args:?}: {line}"
        );
        assert!(
            !line.contains("tiny.toml"),
            "{args:?} blames the file: {line}"
        );
    }
    for cmd in ["check", "estimate"] {
        let out = dupstream(&[cmd, &file, "--scale", "3.5"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(first_line(&out).contains("--scale"), "{}", stderr(&out));
    }
}

#[test]
fn identical_cells_empty_labels_and_excess_checkpoints_are_refused() {
    let sbf = with_sbf();
    let twice = sbf.replace("k = 2", "k = [2, 2]");
    let msg = assert_refused("k-twice", &twice, &[], line_of("k = [2, 2]", &twice), "k");
    assert!(msg.contains("appears twice"), "{msg}");
    let streams = TINY.replace("n = 20_000", "n = [20_000, 20_000]");
    let msg = assert_refused("n-twice", &streams, &[], line_of("n = [", &streams), "n");
    assert!(msg.contains("appears twice"), "{msg}");
    let empty = sbf.replace("max = 3", "label = \"\"\nmax = 3");
    assert_refused(
        "label-empty",
        &empty,
        &[],
        line_of("label", &empty),
        "label",
    );
    for c in ["20001", "1000001", "9223372036854775807"] {
        let text = TINY.replace("checkpoints = 2", &format!("checkpoints = {c}"));
        assert_refused(
            &format!("checkpoints-{c}"),
            &text,
            &[],
            line_of("checkpoints =", &text),
            "checkpoints",
        );
    }
}

#[test]
fn a_label_a_spreadsheet_would_run_draws_a_warning() {
    let dir = scratch("adv-formula");
    let text = with_sbf().replace("max = 3", "label = \"=HYPERLINK(\\\"x\\\")\"\nmax = 3");
    let file = write(&dir, "f.toml", &text);
    let out = dupstream_ok(&["check", &file]);
    let text_out = String::from_utf8_lossy(&out.stdout);
    assert!(
        text_out.contains(&format!("f.toml:{}: key `label`", line_of("label", &text)))
            && text_out.contains("formula"),
        "{text_out}"
    );
}

#[test]
fn a_structure_scaled_to_a_few_cells_draws_a_warning() {
    let dir = scratch("adv-small");
    let text = with_sbf()
        .replace("memory = [\"16KB\", \"64KB\"]", "memory = [\"1KB\"]")
        .replace("n = 20_000", "n = 2_000_000");
    let file = write(&dir, "small.toml", &text);
    let out = dupstream_ok(&["check", &file, "--scale", "256"]);
    let text_out = String::from_utf8_lossy(&out.stdout);
    // 1KB / 256 = 32 bits: 32 SBF cells of one bit... or fewer of more.
    let warning = text_out
        .lines()
        .find(|l| l.contains("`sbf`"))
        .unwrap_or_else(|| panic!("no warning about sbf: {text_out}"));
    assert!(
        warning.contains("memory = \"1KB\"")
            && warning.contains("runs on 32 bits at --scale 256")
            && warning.contains("fewer than 256")
            && warning.contains("or less keeps"),
        "{warning}"
    );
    // At scale 1 the same structure is the file's own choice: no warning.
    let out = dupstream_ok(&["check", &file]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("`sbf`"));
}

#[test]
fn a_replay_whose_data_is_missing_is_skipped_not_failed() {
    let dir = scratch("adv-missing-data");
    write(&dir, "tiny.toml", TINY);
    write(&dir, "nasa.toml", &replay("not-here/log.tsv"));
    let out = dupstream(&["check", s(&dir)]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.lines()
            .any(|l| l.starts_with("SKIPPED") && l.contains("nasa.toml") && l.contains("log.tsv")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("ok ") && l.contains("tiny.toml")),
        "{text}"
    );
    let out = dupstream(&["estimate", s(&dir)]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        text.contains("tiny.toml") && text.contains("1 file(s) skipped"),
        "{text}"
    );
    assert!(stderr(&out).contains("SKIPPED"), "{}", stderr(&out));
    let est: serde_json::Value =
        serde_json::from_slice(&dupstream_ok(&["estimate", s(&dir), "--json"]).stdout).unwrap();
    assert_eq!(est["skipped"].as_array().map(Vec::len), Some(1), "{est}");
    // An invalid file beside them still fails the check.
    write(&dir, "bad.toml", "name = 3\n");
    assert_eq!(dupstream(&["check", s(&dir)]).status.code(), Some(2));
}

#[test]
fn a_replay_run_records_its_input_so_it_reruns_and_redraws_from_its_directory() {
    let dir = scratch("adv-rerun");
    std::fs::create_dir_all(dir.join("exp")).unwrap();
    write(&dir, "keys.txt", "a\nb\na\nc\nb\n");
    let file = write(&dir.join("exp"), "rp.toml", &replay("../keys.txt"));
    let out = dir.join("results/deeper/run");
    dupstream_ok(&["run", &file, "--quiet", "--threads", "1", "--out", s(&out)]);
    let run_toml = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(
        run_toml.contains("path = \"../../../keys.txt\""),
        "{run_toml}"
    );
    // The recorded experiment runs again from its own directory (here: from the workspace).
    let again = dupstream_ok(&["check", s(&out.join("run.toml"))]);
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("length known after reading"), "{text}");
    assert!(!text.contains("0.000e0"), "{text}");
    // Charts and the page need only the results directory.
    std::fs::remove_file(dir.join("keys.txt")).unwrap();
    dupstream_ok(&["plot", s(&out)]);
    let page = dupstream_ok(&["report", s(&out), "--plot"]);
    assert!(!stderr(&page).contains("not re-drawn"), "{}", stderr(&page));
}

#[test]
fn refused_directories_and_paths_exit_2() {
    let dir = scratch("adv-exit2");
    let file = write(&dir, "tiny.toml", TINY);
    let out1 = dir.join("out");
    dupstream_ok(&["run", &file, "--quiet", "--threads", "1", "--out", s(&out1)]);
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    let v = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // Resume into the directory of another scale.
    cases.push((
        "another scale".into(),
        v(&[
            "run",
            &file,
            "--resume",
            "--scale",
            "2",
            "--out",
            s(&out1),
            "--quiet",
        ]),
    ));
    // A finished run's directory.
    cases.push((
        "finished".into(),
        v(&["run", &file, "--out", s(&out1), "--quiet"]),
    ));
    let missing = dir.join("nope");
    for cmd in ["report", "list", "check", "estimate"] {
        cases.push((format!("{cmd} missing"), v(&[cmd, s(&missing)])));
    }
    cases.push((
        "report not results".into(),
        v(&["report", s(&dir.join("tiny.toml"))]),
    ));
    // A missing shard.
    let p0 = dir.join("p0");
    run_part(&file, &p0, "0/2", "1");
    cases.push((
        "missing shard".into(),
        v(&["merge", s(&p0), "--out", s(&dir.join("m")), "--quiet"]),
    ));
    for (name, args) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dupstream(&args);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {text}");
        assert_eq!(text.lines().count(), 1, "{name}: one line: {text}");
    }
}

#[test]
fn resume_says_how_many_cells_remain_and_run_json_prints_the_summary() {
    let dir = scratch("adv-resume-count");
    let file = write(&dir, "tiny.toml", TINY);
    let out = dir.join("out");
    let json = dupstream_ok(&["run", &file, "--threads", "1", "--out", s(&out), "--json"]);
    let summary: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        summary["cells"].as_array().map(Vec::len),
        Some(4),
        "{summary}"
    );
    assert!(summary["wall_secs_total"].as_f64().is_some(), "{summary}");
    // Undo the commit and one cell: the resume has 3 of 4 done, 1 to run.
    std::fs::remove_file(out.join("commit.json")).unwrap();
    for ext in ["csv", "json"] {
        std::fs::remove_file(out.join(format!("cells/cell-00002.{ext}"))).unwrap();
    }
    let resumed = dupstream_ok(&["run", &file, "--threads", "1", "--out", s(&out), "--resume"]);
    assert!(
        stderr(&resumed).contains("3 of 4 cells finished, 1 to run"),
        "{}",
        stderr(&resumed)
    );
}

#[test]
fn merge_refuses_a_part_holding_a_cell_of_another_shard() {
    let dir = scratch("adv-merge-extra");
    let file = write(&dir, "tiny.toml", TINY);
    let (p0, p1) = (dir.join("p0"), dir.join("p1"));
    run_part(&file, &p0, "0/2", "1");
    run_part(&file, &p1, "1/2", "1");
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(p1.join("shard.json")).unwrap()).unwrap();
    let theirs = rec["cells"][0].as_u64().unwrap();
    for ext in ["csv", "json"] {
        let name = format!("cells/cell-{theirs:05}.{ext}");
        std::fs::copy(p1.join(&name), p0.join(&name)).unwrap();
    }
    let merged = dir.join("merged");
    let out = dupstream(&["merge", s(&p0), s(&p1), "--out", s(&merged), "--quiet"]);
    let line = first_line(&out);
    assert_eq!(out.status.code(), Some(2), "{line}");
    assert!(line.contains(&format!("holds cell {theirs}")), "{line}");
    assert!(!merged.join("raw.csv").exists());
}

#[test]
fn report_refuses_a_raw_csv_that_is_not_a_results_table() {
    let dir = scratch("adv-garbage-raw");
    for (name, text) in [("garbage", "<html>\u{0}\u{1}not,a\ncsv\"\n"), ("empty", "")] {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("raw.csv"), text).unwrap();
        let out = dupstream(&["report", s(&d)]);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {text}");
        assert_eq!(text.lines().count(), 1, "{name}: {text}");
        assert!(text.contains("raw.csv"), "{text}");
        assert!(!d.join("index.html").exists(), "{name}: a page was written");
    }
}

#[cfg(unix)]
#[test]
fn a_lock_file_that_is_a_symlink_is_refused() {
    let dir = scratch("adv-lock-link");
    let file = write(&dir, "tiny.toml", TINY);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let target = dir.join("elsewhere");
    std::os::unix::fs::symlink(&target, out.join(".lock")).unwrap();
    let o = dupstream(&["run", &file, "--quiet", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(first_line(&o).contains("symbolic link"), "{}", stderr(&o));
    assert!(!target.exists(), "written through the link");
}

#[cfg(unix)]
#[test]
fn check_skips_a_fifo_named_like_an_experiment() {
    use std::time::{Duration, Instant};
    let dir = scratch("adv-check-fifo");
    write(&dir, "tiny.toml", TINY);
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("x.toml"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        crate::util::skipped("mkfifo unavailable");
        return;
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dupstream"))
        .args(["check", s(&dir)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("check blocked on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("x.toml is not a regular file"),
        "{}",
        stderr(&out)
    );
    // Named directly, to check or to run, it is refused without being opened.
    let fifo = dir.join("x.toml");
    for cmd in ["check", "run"] {
        let out = dupstream(&[cmd, s(&fifo)]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a regular file"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn short_estimates_and_replay_lengths_are_said_in_words() {
    let dir = scratch("adv-words");
    let file = write(&dir, "tiny.toml", TINY);
    let out = dupstream_ok(&["estimate", &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("< 1 s"), "{text}");
    assert!(!text.contains(" 0 s"), "{text}");
}

#[test]
fn a_copied_experiment_s_warning_names_no_path_compiled_into_the_binary() {
    // Run from a directory without `experiments/`: the catalogue dupstream was built from is
    // the one found.
    let dir = scratch("adv-copied");
    let original =
        std::fs::read_to_string(crate::util::root().join("experiments/bera-journal/table7.toml"))
            .unwrap();
    write(&dir, "table7.toml", &original);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dupstream"))
        .args(["check", "table7.toml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let warning = text
        .lines()
        .find(|l| l.contains("not beside this file"))
        .unwrap_or_else(|| panic!("no warning: {text}"));
    let root = crate::util::root();
    assert!(!warning.contains(root.to_str().unwrap()), "{warning}");
    assert!(!warning.contains(env!("CARGO_MANIFEST_DIR")), "{warning}");
    assert!(warning.contains("experiments/bera-journal/"), "{warning}");
}

#[test]
fn refused_slurm_arguments_exit_2() {
    let dir = scratch("adv-slurm-args");
    let file = write(&dir, "tiny.toml", TINY);
    let out = dir.join("sweep");
    for args in [
        vec!["--shards", "0"],
        vec!["--shards", "5"],
        vec!["--shards", "2", "--mem", "lots"],
        vec!["--shards", "2", "--time", "two hours"],
    ] {
        let mut all = vec!["slurm", file.as_str(), "--out", s(&out)];
        all.extend(args.iter().copied());
        let o = dupstream(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
    assert!(!out.join("submit.sh").exists());
}

/// SIGINT or SIGTERM while the ground truth is computed (issue 38, item 4): the run stops
/// within a second, not when the truth is done (it waited for it: a truth of minutes made a
/// signal wait minutes, and a clock that never advanced made it wait for ever), says how to
/// resume, and the printed command resumes it to a finished run.
#[cfg(unix)]
#[test]
fn a_signal_during_the_ground_truth_stops_the_run_within_a_second() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = scratch("adv-signal-truth");
    // About 6 s of ground truth in the test profile, then one cell of about 5 s.
    let text = "name = \"gt\"\ndescription = \"a long ground truth\"\n[stream]\nkind = \"uniform\"\nn = 600_000_000\nuniverse = 16_777_216\nseed = 5\n[grid]\nmemory = [\"16KB\"]\n[[algorithm]]\nname = \"bloom\"\nk = 1\n[metrics]\ncheckpoints = 1\n";
    let file = write(&dir, "gt.toml", text);
    for (signal, code, name) in [("INT", 130, "SIGINT"), ("TERM", 143, "SIGTERM")] {
        let out_dir = dir.join(name);
        let child = Command::new(env!("CARGO_BIN_EXE_dupstream"))
            .args([
                "run",
                &file,
                "--threads",
                "1",
                "--quiet",
                "--out",
                s(&out_dir),
            ])
            .current_dir(crate::util::root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The checks take milliseconds; 1.5 s in, the truth is being computed.
        std::thread::sleep(Duration::from_millis(1500));
        let sent_at = Instant::now();
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let took = sent_at.elapsed();
        let text = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{name}: {text}{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            took < Duration::from_millis(1500),
            "{name}: stopped {took:?} after the signal: {text}"
        );
        let line = text
            .lines()
            .find(|l| l.contains("resume with: "))
            .unwrap_or_else(|| panic!("{name}: no line saying how to resume: {text}"));
        assert!(line.contains("0 of 1 cells"), "{line}");
        assert_eq!(finished_cells(&out_dir), 0);
        if name == "SIGTERM" {
            let cmd = line.split_once("resume with: ").unwrap().1;
            let words: Vec<&str> = cmd.split_whitespace().collect();
            let resumed = Command::new(words[0])
                .args(&words[1..])
                .arg("--quiet")
                .current_dir(crate::util::root())
                .output()
                .unwrap();
            assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
            assert!(out_dir.join("commit.json").is_file());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
