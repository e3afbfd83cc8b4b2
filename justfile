# dupstream: reproduce published evaluations of approximate duplicate detection in streams.
# `just --list` shows every recipe.

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
reproduce-table7 scale="1": build
    {{bin}} run experiments/bera-journal/table7.toml --scale {{scale}}

# Any Bera et al. journal table (1-9), e.g. `just reproduce-bera-table 8 64`.
[group('reproduce')]
reproduce-bera-table table scale="1": build
    {{bin}} run experiments/bera-journal/table{{table}}.toml --scale {{scale}}

# Every Bera et al. table (journal 1-9, conference 4-5) at the given scale.
[group('reproduce')]
reproduce-bera scale="1": build
    for f in experiments/bera-journal/table*.toml experiments/bera-conference/table*.toml; do {{bin}} run "$f" --scale {{scale}}; done

# Run any experiment file, e.g. `just run experiments/bera-journal/table8.toml 16`.
[group('reproduce')]
run file scale="1": build
    {{bin}} run {{file}} --scale {{scale}}

# Write Slurm scripts running an experiment as N shards plus a merge (README, "Running on a cluster"), e.g. `just slurm experiments/bera-journal/table7.toml 16 --partition short --time 2:00:00 --submit`.
[group('reproduce')]
slurm file shards *args: build
    {{bin}} slurm {{file}} --shards {{shards}} {{args}}

# The experiment catalogue.
[group('reproduce')]
list: build
    {{bin}} list

# Everything CI runs: .ci/run (installs just if missing, format, lints, then the tests).
[group('test')]
ci:
    bash .ci/run

# The README's test command: unit, theory and regression tests (the slow ones are `just test-slow`).
[group('test')]
test:
    cargo test --workspace

# Slurm integration test: a one-node Slurm cluster (apt-get installs slurm-wlm and munge if missing; needs root) runs a sweep as a 4-task job array plus merge, kills and resubmits a task; merged results must equal a single-machine run byte for byte. Skips visibly where Slurm cannot run.
[group('test')]
slurm-test:
    bash scripts/slurm-test.sh

# The long statistical checks marked #[ignore].
[group('test')]
test-slow:
    cargo test --workspace --release -- --ignored

[group('test')]
fmt-check:
    cargo fmt --all -- --check

[group('test')]
clippy:
    cargo clippy --workspace --all-targets -- -D warnings

# Regenerate the committed golden results after a deliberate change, and show what moved.
[group('test')]
golden:
    DUPSTREAM_UPDATE_GOLDEN=1 cargo test -p dupstream-runner --test tests -- golden
    git --no-pager diff --stat -- crates/dupstream-runner/tests/golden
    git --no-pager diff -- crates/dupstream-runner/tests/golden | head -100

# Speed benchmarks: ns per element per structure and memory size.
[group('bench')]
bench:
    cargo bench -p dupstream-filters
    cargo bench -p dupstream-streams
