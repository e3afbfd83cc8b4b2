#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECS seconds (default 60) each, seeded from the
# experiment catalogue and small replay and cell files, and prints each target's executions
# and findings. Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly toolchain; without
# one, RUSTC_BOOTSTRAP=1 lets the stable compiler build the sanitizer flags cargo-fuzz uses.
# Findings (crashing inputs) land in fuzz/artifacts/<target>/; the exit code is 1 if any.
# Built with debug assertions (overflow checks) and without AddressSanitizer: the project's
# crates forbid unsafe code, and without the sanitizer a target runs about 4 times as many
# inputs in the same time (measured on replay_lines: 6,000 against 1,400 per second).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs="${1:-60}"

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
else
    echo "fuzz: no nightly toolchain; using RUSTC_BOOTSTRAP=1 with the default one"
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi

# Seeds: the catalogue's experiment files; a few replay files of each format (the first byte
# is the harness's option byte); a cell's rows file as the runner writes it.
c=fuzz/corpus
mkdir -p "$c"/{experiment,replay_lines,replay_columns,replay_clf,replay_gzip,part_files}
for f in experiments/*/*.toml; do cp "$f" "$c/experiment/$(echo "$f" | tr / -)"; done
printf '\000a\nb\n\na\r\nc\n' > "$c/replay_lines/seed"
printf '\001a\n\n\nb\n' > "$c/replay_lines/seed-skip"
printf '\002host\turl\nh1\t/a\nh2\nh3\t/b\n\000' > "$c/replay_columns/seed-tsv"
printf '\012id,url,n\n1,"/a,b",2\n2,/c,3\n3,"/x""y",4\n\001' > "$c/replay_columns/seed-csv"
# The NASA log's first lines, when the shared data is there (header, column `url`, tsv).
nasa=../shared/data/nasa-http-1995-08-01.tsv
if [ -f "$nasa" ]; then
    { printf '\012'; head -50 "$nasa"; printf '\000'; } > "$c/replay_columns/seed-nasa"
fi
printf '\000in24.inetnebr.com - - [01/Aug/1995:00:00:01 -0400] "GET /shuttle/a.txt HTTP/1.0" 200 1839\nh - - [01/Aug/1995:00:00:02 -0400] "GET /index.html" 200 1\n' > "$c/replay_clf/seed"
{ printf '\000'; printf 'a\nb\na\n' | gzip -c; } > "$c/replay_gzip/seed"
{ printf '\001'; printf 'a\nb\na\n' | gzip -c | head -c 12; } > "$c/replay_gzip/seed-cut"
{
    printf '\000'
    printf 'experiment,cell,algorithm,label,params,k,memory,memory_nominal_bits,memory_bits_budget,memory_bits_used,scale,stream,n_nominal,n,distinct_target,seed,position,tp,fp,tn,fn,unseen,duplicates,fpr,fnr,occupancy_kind,occupancy\n'
    printf 'v,0,sbf,SBF,max=1;k=2;p=4,2,16KB,131072,131072,131072,1,uniform,20000,20000,0.5,5,10000,10,20,30,40,50,50,0.4,0.8,load,0.5\n'
    printf '\000{"x":1}\000stream_index,stream\n0,u\n'
} > "$c/part_files/seed"

cd fuzz
# The main workspace's locked versions (fuzz/ is its own workspace: without this its lock
# would drift from the one the crates are built and tested with); cargo adds libfuzzer-sys.
cp ../Cargo.lock Cargo.lock
status=0
for t in $("${fuzz[@]}" list); do
    log="target/fuzz-$t.log"
    mkdir -p target
    if nice -n 10 "${fuzz[@]}" run --sanitizer none --debug-assertions "$t" -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 >"$log" 2>&1; then
        result="no finding"
    else
        result="FINDING (see fuzz/$log and fuzz/artifacts/$t/)"
        status=1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz: $t: $runs executions in ${secs} s, ${cov:-cov: ?}; $result"
done
exit $status
