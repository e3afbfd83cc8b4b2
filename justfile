# dupstream: reproduce published evaluations of approximate duplicate detection in streams.
# `just --list` shows every recipe on a line of its own; the comment above a recipe here says more.

set shell := ["bash", "-euo", "pipefail", "-c"]

bin := "target/release/dupstream"

# List the recipes.
default:
    @just --list

# Build the dupstream binary (release).
[group('build')]
build:
    cargo build --release -p dupstream-runner

# Bera et al. (journal) Table 7: 1B elements, 15 % distinct, 64-512 MB, SBF/RSBF/BSBF/BSBFSD/RLBSBF. `just reproduce-table7 64` runs at 1/64 scale.
[group('reproduce')]
[doc("Bera et al. journal Table 7 (1B elements, 64-512 MB).")]
reproduce-table7 scale="1": build
    {{bin}} run experiments/bera-journal/table7.toml --scale {{scale}}

# Any Bera et al. journal table (1-9), e.g. `just reproduce-bera-table 8 64`.
[group('reproduce')]
[doc("One Bera et al. journal table (1-9), e.g. `8 64`.")]
reproduce-bera-table table scale="1": build
    {{bin}} run experiments/bera-journal/table{{table}}.toml --scale {{scale}}

# Every Bera et al. table (journal 1-9, conference 2-5) at the given scale (conference Table 2, 100K elements, at full scale).
[group('reproduce')]
[doc("Every Bera et al. table (journal 1-9, conference 2-5).")]
reproduce-bera scale="1": build
    just _runs {{scale}} experiments/bera-journal/table*.toml experiments/bera-conference/table*.toml

# `--threads N` for every catalogue run when DUPSTREAM_THREADS is set (default: all cores).
threads := if env_var_or_default("DUPSTREAM_THREADS", "") == "" { "" } else { "--threads " + env_var("DUPSTREAM_THREADS") }

# Runs experiment files in order at `scale` (a file's `[run] max_scale` caps it: the small ones
# run at full scale, with a warning).
_runs scale +files:
    for f in {{files}}; do {{bin}} run "$f" --scale {{scale}} --quiet {{threads}}; done

# The analytic figures (Deng & Rafiei Fig. 1, 2) with the latest simulation overlays, if run.
[group('reproduce')]
[doc("Deng & Rafiei Fig. 1, 2 (with simulations, if run).")]
theory: build
    {{bin}} theory all --out results/theory
    if ls -d results/deng-fig1-sim/*/raw.csv >/dev/null 2>&1; then {{bin}} theory deng-fig1 --out results/theory --sim "$(dirname "$(ls -t results/deng-fig1-sim/*/raw.csv | head -1)")"; fi
    if ls -d results/deng-fig2-sim/*/raw.csv >/dev/null 2>&1; then {{bin}} theory deng-fig2 --out results/theory --sim "$(dirname "$(ls -t results/deng-fig2-sim/*/raw.csv | head -1)")"; fi

# Deng & Rafiei (SBF, SIGMOD 2006) Fig. 1-6: simulations for the theory figures, Fig. 3, the three Fig. 4 tables, Fig. 5, Fig. 6 a-d.
[group('reproduce')]
[doc("Deng & Rafiei (SBF) Fig. 1-6, then `just theory`.")]
reproduce-deng scale="1": build
    just _runs {{scale}} experiments/deng/fig1-sim.toml experiments/deng/fig2-sim.toml experiments/deng/fig3.toml experiments/deng/fig4a.toml experiments/deng/fig4b.toml experiments/deng/fig4c.toml experiments/deng/fig5.toml experiments/deng/fig6a.toml experiments/deng/fig6b.toml experiments/deng/fig6c.toml experiments/deng/fig6d.toml
    just theory

# Bera et al. figures: conference Fig. 3/5, 7, 8 and journal Fig. 2-4, 5-7, 8-10, 11.
[group('reproduce')]
[doc("Every Bera et al. figure (conference and journal).")]
reproduce-bera-figures scale="1": build
    just _runs {{scale}} experiments/bera-conference/fig*.toml experiments/bera-journal/fig*.toml

# Singh & Batra (FP-SBF) Fig. 5 a-f, 6, 7 a-d (100K elements: always full scale).
[group('reproduce')]
[doc("Singh & Batra (FP-SBF) Fig. 5-7, at full scale.")]
reproduce-fpsbf: build
    just _runs 1 experiments/singh-batra/*.toml

# Géraud et al. (QHT) Tables 1-5; Table 3's times beside the paper's via `dupstream timing`.
[group('reproduce')]
[doc("Géraud et al. (QHT) Tables 1-5, Table 3's times.")]
reproduce-qht scale="1": build
    just _runs {{scale}} experiments/qht/table1.toml experiments/qht/table2-4-u24.toml experiments/qht/table2-4-u27.toml experiments/qht/table3.toml experiments/qht/table5.toml
    {{bin}} timing "$(dirname "$(ls -t results/qht-table3/*/raw.csv | head -1)")"

# Every table and figure of the five papers (REPRODUCTION.md). Prints the runner's time estimate
# of the files it runs first (single-thread CPU time shared by the threads; `just calibrate`).
[group('reproduce')]
[doc("Every table and figure of the five papers.")]
reproduce-all scale="1": build
    {{bin}} estimate experiments/deng experiments/bera-journal experiments/bera-conference experiments/singh-batra experiments/qht {{threads}} --scale {{scale}} | tail -1
    just reproduce-deng {{scale}}
    just reproduce-bera {{scale}}
    just reproduce-bera-figures {{scale}}
    just reproduce-fpsbf
    just reproduce-qht {{scale}}

# The leaderboard: every structure at equal measured memory, tuned on streams it is not scored on, on two tracks (since-start and windowed), each file at its own [run] scale unless `scale` is given; then the leaderboard of these runs in target/leaderboard-latest.md. A board whose trace is absent is skipped with a message. LEADERBOARD.md cites the canonical runs: name new ones in results/canonical.toml, then `just leaderboard-doc`.
[group('reproduce')]
[doc("Run the leaderboard's experiments, then rank them.")]
leaderboard scale="": build
    for f in experiments/leaderboard/*.toml; do \
        trace=$(sed -n 's/^path = "\(.*\)"$/\1/p' "$f" | head -1); \
        if [ -n "$trace" ] && [ ! -f "$(dirname "$f")/$trace" ]; then \
            echo "SKIPPED: $f (its trace $(basename "$trace") is not in ../shared/data; see that directory's README)"; continue; \
        fi; \
        {{bin}} run "$f" {{ if scale == "" { "" } else { "--scale " + scale } }} --quiet {{threads}}; \
    done
    {{bin}} leaderboard results --prefix leaderboard- --out target/leaderboard-latest.md
    @echo "The leaderboard of the latest runs: target/leaderboard-latest.md"

# LEADERBOARD.md from the canonical leaderboard runs (results/canonical.toml; a test checks it).
[group('reproduce')]
[doc("LEADERBOARD.md from the canonical leaderboard runs.")]
leaderboard-doc: build
    {{bin}} leaderboard results --prefix leaderboard- --canonical results/canonical.toml --out LEADERBOARD.md

# Run any experiment file, e.g. `just run experiments/bera-journal/table8.toml 16`.
[group('reproduce')]
[doc("Run any experiment file at a scale, e.g. `FILE 16`.")]
run file scale="1": build
    {{bin}} run {{file}} --scale {{scale}}

# Write Slurm scripts running an experiment as N shards plus a merge (docs/cluster.md, "Slurm"), e.g. `just slurm experiments/bera-journal/table7.toml 16 --partition short --time 2:00:00 --submit`.
[group('reproduce')]
[doc("Slurm scripts: N shards and a merge (docs/cluster.md).")]
slurm file shards *args: build
    {{bin}} slurm {{file}} --shards {{shards}} {{args}}

# Rewrite the generated blocks of README.md, REPRODUCTION.md, docs/ and results/README.md from the committed results (`dupstream docs --write`; `--check` is what the tests run).
[group('docs')]
[doc("Rewrite the documents' generated blocks.")]
docs: build
    {{bin}} docs --write

# The experiment catalogue.
[group('reproduce')]
list: build
    {{bin}} list

# Everything CI runs: .ci/run (installs just if missing, format, lints, then the tests).
[group('test')]
[doc("Everything CI runs (.ci/run).")]
ci:
    bash .ci/run

# The README's test command: every test in parallel across the test binaries (cargo-nextest), then the doctests. Slow ones: `just test-slow`.
[group('test')]
[doc("The README's test command (the slow ones: test-slow).")]
test:
    cargo nextest run --workspace && cargo test --workspace --doc

# The Python package (crates/dupstream-py) as a user gets it: a fresh venv, `pip install ./crates/dupstream-py`, pytest (Python's verdicts beside the runner's for every structure), mypy --strict, the example script and the notebook (scripts/py-test.sh). A few minutes.
[group('test')]
[doc("The Python package as a user gets it (a few minutes).")]
py-test:
    bash scripts/py-test.sh

# Slurm integration test: a one-node Slurm cluster (apt-get installs slurm-wlm and munge if missing; needs root) runs a sweep as a 4-task job array plus merge, kills and resubmits a task; merged results must equal a single-machine run byte for byte. Skips visibly where Slurm cannot run.
[group('test')]
[doc("A sweep on a one-node Slurm cluster (needs root).")]
slurm-test:
    bash scripts/slurm-test.sh

# The long statistical checks marked #[ignore].
[group('test')]
test-slow:
    cargo test --workspace --release -- --ignored

[group('test')]
[doc("Check the formatting (cargo fmt).")]
fmt-check:
    cargo fmt --all -- --check

[group('test')]
[doc("The lints, warnings as errors (cargo clippy).")]
clippy:
    cargo clippy --workspace --all-targets -- -D warnings

# Regenerate the committed golden results after a deliberate change, and show what moved.
[group('test')]
[doc("Regenerate the golden results and show what moved.")]
golden:
    DUPSTREAM_UPDATE_GOLDEN=1 cargo test -p dupstream-runner --test tests -- golden
    DUPSTREAM_UPDATE_GOLDEN=1 cargo test -p dupstream-filters --test tests -- params::
    git --no-pager diff --stat -- crates/dupstream-runner/tests/golden crates/dupstream-filters/tests/params-fixture.txt
    git --no-pager diff -- crates/dupstream-runner/tests/golden | head -100

# Python's batch path against the Rust batch path, per structure, on 2^22 keys in arrays of 4096 and more (prints; installs the package into target/py-venv first). `just py-bench --all` for every structure.
[group('bench')]
[doc("Python's batch path against Rust's, per structure.")]
py-bench *args:
    test -x target/py-venv/bin/python || python3 -m venv target/py-venv
    target/py-venv/bin/python -m pip install --quiet --disable-pip-version-check numpy ./crates/dupstream-py
    target/py-venv/bin/python crates/dupstream-py/bench/bench.py {{args}}

# Speed benchmarks: the roofline (ns per element per structure and memory size, beside the limit loop; prints, writes nothing) and the streams.
[group('bench')]
[doc("Speed benchmarks: roofline, APBFs, streams.")]
bench:
    cargo bench -p dupstream-filters --bench roofline
    cargo bench -p dupstream-filters --bench apbf
    cargo bench -p dupstream-streams

# The roofline and the structures' half of the cost model's calibration: each structure beside the limit loop touching as many cells at 64 Kbit, 1 Mbit, 8 MiB, 64 MB and 512 MB, on streams of 50 % and 90 % duplicates (ns per element, ratio); rewrites crates/dupstream-filters/src/calibration_table.rs with the machine and its load. `just roofline sbf 1mbit` filters and does not write; `just roofline draws` measures the SBF against a limit loop that draws its decrement cells as it does. 10 to 20 minutes.
[group('bench')]
[doc("The roofline and the structures' calibration.")]
roofline *filter:
    if [ -z "{{filter}}" ]; then cargo bench -p dupstream-filters --bench roofline -- --write {{justfile_directory()}}/crates/dupstream-filters/src/calibration_table.rs && cargo fmt --all; else cargo bench -p dupstream-filters --bench roofline -- {{filter}}; fi

# The runner's half of the calibration: per stream kind, generating and a cell's own loop; the ground-truth oracles at three sizes; rewrites crates/dupstream-runner/src/plan/calibration_table.rs with the machine and its load. About a minute.
[group('bench')]
[doc("The runner's half of the calibration (a minute).")]
calibrate-streams:
    cargo bench -p dupstream-runner --bench calibrate -- --write {{justfile_directory()}}/crates/dupstream-runner/src/plan/calibration_table.rs && cargo fmt --all

# Calibrate `dupstream estimate` on this machine: `just roofline` and `just calibrate-streams` (one thread, thread CPU time; on a shared machine run `nice -n 10 just calibrate`), then rebuild. 10 to 20 minutes.
[group('bench')]
[doc("Calibrate `dupstream estimate` here (10-20 minutes).")]
calibrate:
    just roofline
    just calibrate-streams
    just build

# Today's estimate against the committed runs: rerun each canonical run estimated at most `max_secs` at its own scale and threads (into a temporary directory), and record the estimate beside the wall and CPU time measured in results/timing-check.csv; `just docs` renders it in docs/timing.md.
[group('bench')]
[doc("Rerun the canonical runs, estimate against measured.")]
timing-check max_secs="60": build
    python3 scripts/timing-check.py --max-secs {{max_secs}}

# Fuzz every target in fuzz/ (cargo-fuzz; experiment parser, each replay format, merge's part
# and cell files) for `secs` seconds each; prints executions and findings (scripts/fuzz.sh).
[group('test')]
[doc("Fuzz every target in fuzz/ for `secs` seconds each.")]
fuzz secs="60":
    bash scripts/fuzz.sh {{secs}}

# Our structures beside the Rust crates that implement them (fastbloom, bloomfilter, probabilistic-collections): the same keys at the same memory, 1 Mbit and 512 MB, batched and per element; ns per element, ratios and error rates, with the machine and its load. Rewrites crates/dupstream-filters/benches/peers.csv (then `just docs` rewrites the filters README's tables). A few minutes. `just peers bloom 1mbit` filters and does not write.
[group('bench')]
[doc("Our structures beside other Rust crates' (a few min).")]
peers *filter:
    if [ -z "{{filter}}" ]; then cargo bench -p dupstream-filters --bench peers -- --write {{justfile_directory()}}/crates/dupstream-filters/benches/peers.csv; else cargo bench -p dupstream-filters --bench peers -- {{filter}}; fi
