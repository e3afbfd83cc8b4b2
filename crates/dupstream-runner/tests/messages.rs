//! Messages and exit codes of issue 38, item 5: each refusal names its own line and key, and
//! every subcommand exits 2 for bad input or arguments.

use crate::util::{dupstream, dupstream_ok, scratch, write};

const HEAD: &str = "name = \"m\"\ndescription = \"d\"\n";
const REST: &str = "[grid]\nmemory = [\"8KB\"]\n[[algorithm]]\nname = \"bloom\"\nk = 2\n";
const UNIFORM: &str = "[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\n";

/// Runs `dupstream ARGS`; asserts exit 2 and a message (`check`'s on stdout, the others' on
/// stderr) containing each of `wants`.
fn refused(args: &[&str], wants: &[&str]) {
    let out = dupstream(args);
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    for w in wants {
        assert!(err.contains(w), "{args:?}: wants `{w}`: {err}");
    }
}

#[test]
fn values_are_blamed_on_their_own_key_and_line() {
    let dir = scratch("messages-keys");
    // `kind = 5` is on line 4, key `kind` (it was blamed on line 3, key `stream`).
    let f = write(
        &dir,
        "k.toml",
        &format!("{HEAD}[stream]\nkind = 5\nn = 100\n{REST}"),
    );
    refused(&["check", &f], &["k.toml:4: key `kind`"]);
    // An unknown value of `rows` names the key `rows`, not the value.
    let f = write(
        &dir,
        "r.toml",
        &format!("{HEAD}{UNIFORM}{REST}[output.table]\nrows = [\"bogus\"]\n"),
    );
    refused(&["check", &f], &["r.toml:13: key `rows`", "bogus"]);
    // A name with a non-ASCII letter says ASCII and names the character.
    let f = write(
        &dir,
        "e.toml",
        &format!("name = \"état\"\ndescription = \"d\"\n{UNIFORM}{REST}"),
    );
    refused(&["check", &f], &["key `name`", "ASCII letters", "`é`"]);
    // An unknown `[grid] budget` names its line and the two it may be; a size a structure's
    // fixed part alone is over is refused naming the structure, unless skipped.
    let f = write(
        &dir,
        "b.toml",
        &format!(
            "{HEAD}{UNIFORM}[grid]\nmemory = [\"8KB\"]\nbudget = \"all\"\n[[algorithm]]\nname = \"bloom\"\nk = 2\n"
        ),
    );
    refused(
        &["check", &f],
        &["b.toml:9", "budget", "\"state\", \"held\""],
    );
    let f = write(
        &dir,
        "h.toml",
        &format!(
            "{HEAD}{UNIFORM}[grid]\nmemory = [\"256 bits\"]\nbudget = \"held\"\n[[algorithm]]\nname = \"bloom\"\nk = 2\n"
        ),
    );
    refused(
        &["check", &f],
        &[
            "h.toml:11: key `name`",
            "bloom at 256 bits",
            "holds more than 256 bits",
        ],
    );
    // Skipping unfit sizes does not drop a structure whose parameters are refused (here for
    // want of `k`): it is refused at its table, with the reason.
    let f = write(
        &dir,
        "s.toml",
        &format!(
            "{HEAD}{UNIFORM}[grid]\nmemory = [\"8KB\"]\nunfit = \"skip\"\n[[algorithm]]\nname = \"bloom\"\n"
        ),
    );
    refused(
        &["check", &f],
        &[
            "s.toml:11: key `name`",
            "fits at none of its memory sizes",
            "`k`",
        ],
    );
    // A size too large to build for measuring is refused, even where unfit cells are skipped.
    let f = write(
        &dir,
        "t.toml",
        &format!(
            "{HEAD}{UNIFORM}[grid]\nmemory = [\"4GB\"]\nunfit = \"skip\"\nbudget = \"held\"\n[[algorithm]]\nname = \"bloom\"\nk = 2\n"
        ),
    );
    refused(
        &["check", &f],
        &[
            "t.toml:",
            "key `budget`",
            "bloom at 4096MB",
            "budget = \"state\"",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The aged cuckoo's stamp rule: a stamp width out of range, the clock rule's width under
/// it, and an unknown rule are each refused at their own key and line.
#[test]
fn aged_cuckoo_aging_keys_are_blamed_on_their_own_line() {
    let dir = scratch("messages-aged-cuckoo");
    let alg = "[grid]\nmemory = [\"8KB\"]\n[metrics]\nwindow = 100\n[[algorithm]]\nname = \"aged_cuckoo\"\nwindow = 100\n";
    for (i, (keys, want)) in [
        (
            "aging = \"stamp\"\nstamp_bits = 1\n",
            "15: key `stamp_bits`",
        ),
        (
            "aging = \"stamp\"\nclock_bits = 4\n",
            "15: key `clock_bits`",
        ),
        ("stamp_bits = 8\n", "14: key `stamp_bits`"),
        ("aging = \"stmp\"\n", "14: key `aging`"),
    ]
    .into_iter()
    .enumerate()
    {
        let f = write(
            &dir,
            &format!("a{i}.toml"),
            &format!("{HEAD}{UNIFORM}{alg}{keys}"),
        );
        refused(&["check", &f], &[&format!("a{i}.toml:{want}")]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A TLBF's own `window_seconds` and the truth's `[metrics] window_seconds` are one window:
/// a TLBF whose window differs is refused at its own key and line.
#[test]
fn a_structure_window_other_than_the_metrics_window_is_refused() {
    let dir = scratch("messages-window-seconds");
    let text = |own: &str| {
        format!(
            "{HEAD}[stream]\nkind = \"uniform\"\nn = 1000\ndistinct_fraction = 0.5\ntime = {{ process = \"even\", rate = 100.0 }}\n[grid]\nmemory = [\"8KB\"]\n[[algorithm]]\nname = \"tlbf\"\nk = 4\nl = 3\nwindow_seconds = {own}\nrate = 100.0\n[metrics]\nwindow_seconds = 2.0\n"
        )
    };
    let bad = write(&dir, "w.toml", &text("3.0"));
    refused(
        &["check", &bad],
        &[
            "w.toml:14: key `window_seconds`",
            "differs from [metrics] window_seconds = 2",
        ],
    );
    let good = write(&dir, "g.toml", &text("2.0"));
    dupstream_ok(&["check", &good]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_exits_2_in_every_subcommand() {
    let dir = scratch("messages-exit");
    let f = write(&dir, "m.toml", &format!("{HEAD}{UNIFORM}{REST}"));
    // `run --out FILE`: a file where the results directory should be.
    let file = write(&dir, "a-file", "x");
    refused(
        &["run", &f, "--quiet", "--out", &file],
        &["a-file: not a directory"],
    );
    // `theory --sim DIR` of a directory that holds no run.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    refused(
        &[
            "theory",
            "deng-fig1",
            "--out",
            dir.join("theory").to_str().unwrap(),
            "--sim",
            empty.to_str().unwrap(),
        ],
        &["no commit.json"],
    );
    // `compare RUN --json` of a run without paper values.
    let run = dir.join("run");
    dupstream_ok(&["run", &f, "--quiet", "--out", run.to_str().unwrap()]);
    refused(
        &["compare", run.to_str().unwrap(), "--json"],
        &["no paper values"],
    );
    // A log whose every line is at the same time, under a time window.
    let mut log = String::new();
    for i in 0..50 {
        log.push_str(&format!(
            "h - - [01/Aug/1995:10:00:00 -0400] \"GET /p{} HTTP/1.0\" 200 1\n",
            i % 7
        ));
    }
    std::fs::write(dir.join("same.log"), log).unwrap();
    let f = write(
        &dir,
        "same.toml",
        &format!(
            "{HEAD}[stream]\nkind = \"replay\"\npath = \"same.log\"\nformat = \"clf\"\ntime = {{ process = \"log\" }}\n{REST}[metrics]\nwindow_seconds = 60.0\n"
        ),
    );
    refused(
        &[
            "run",
            &f,
            "--quiet",
            "--out",
            dir.join("same").to_str().unwrap(),
        ],
        &["all arrive at time"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A canonical run whose directory is missing is named as missing.
#[test]
fn a_missing_canonical_directory_is_named_as_missing() {
    let root = scratch("messages-canonical");
    std::fs::create_dir_all(root.join("experiments/x")).unwrap();
    write(
        &root.join("experiments/x"),
        "m.toml",
        &format!("{HEAD}{UNIFORM}{REST}"),
    );
    std::fs::create_dir_all(root.join("results")).unwrap();
    write(
        &root.join("results"),
        "canonical.toml",
        "[runs]\nm = \"gone\"\n",
    );
    let out = dupstream(&["docs", "--check", "--root", root.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("results/m/gone/, is missing"), "{err}");
    let _ = std::fs::remove_dir_all(&root);
}
