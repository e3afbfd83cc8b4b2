#!/usr/bin/env bash
# Regenerates the SW-BF rows of crates/dupstream-filters/tests/conformance.csv from the
# Sliding Sketches code (github.com/sliding-sketch/Sliding-Sketch, src/Membership/SW-BF/).
#
# Usage: scripts/conformance-swbf.sh CHECKOUT
#   CHECKOUT is a clone of sliding-sketch/Sliding-Sketch at the commit to record. Nothing of it
#   is copied into this repository: a driver is written to a temporary directory, includes the
#   checkout's SWSketch.h, is built with g++ and prints one CSV row per geometry.
#
# The driver feeds the conformance key stream (the crate README, "Conformance") to
# SlidingSketchLevel, each key as its decimal digits (the class hashes NUL-terminated strings
# with strlen, so raw little-endian bytes would be cut at their first zero byte; its own demo
# queries decimal strings too), and for each element calls query() then insert(), counting
# false positives and negatives against the windowed truth. check() is not called: the demo
# calls it before its own measurements, with the window 100,000 written into it.
set -euo pipefail
src=${1:?usage: $0 CHECKOUT}
src=$(cd "$src" && pwd)
commit=$(git -C "$src" rev-parse HEAD)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/driver.cpp" <<'CPP'
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <unordered_map>
#include <vector>
#include "SWSketch.h"

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t reduce(uint64_t h, uint64_t n) {
    return (uint64_t)(((unsigned __int128)h * n) >> 64);
}

int main(int argc, char **argv) {
    // W in thousands, memory in kB (8,000 bits), blocks, levels: the constructor's units.
    int w_k = atoi(argv[1]), mem_kb = atoi(argv[2]), blocks = atoi(argv[3]), levels = atoi(argv[4]);
    const uint64_t N = 262144, U = 65536, SEED = 0x636f6e66;
    uint64_t window = (uint64_t)w_k * 1000;
    std::streambuf *out = std::cout.rdbuf(nullptr); // the constructor prints its geometry
    SlidingSketchLevel f(w_k, mem_kb, blocks, levels);
    std::cout.rdbuf(out);
    std::unordered_map<uint64_t, uint64_t> last;
    uint64_t neg = 0, pos = 0, fp = 0, fn = 0;
    char buf[32];
    for (uint64_t i = 0; i < N; i++) {
        uint64_t key = reduce(mix64(i + SEED), U);
        auto it = last.find(key);
        bool truth = it != last.end() && i - it->second <= window;
        last[key] = i;
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)key);
        bool v = f.query(buf);
        f.insert(buf);
        if (truth) { pos++; fn += !v; } else { neg++; fp += v; }
    }
    printf("%llu,%llu,%llu,%llu\n", (unsigned long long)neg, (unsigned long long)pos,
           (unsigned long long)fp, (unsigned long long)fn);
}
CPP
g++ -std=c++11 -O2 -w -I "$src/src/Membership/SW-BF" -o "$tmp/driver" "$tmp/driver.cpp"
# W = 10,000, 200,000 bits (25 kB), 2 levels; 16 blocks divide W, 32 do not (312-element blocks).
for geometry in "10 25 16 2" "10 25 32 2" "10 25 16 1"; do
    read -r w_k mem_kb blocks levels <<< "$geometry"
    counts=$("$tmp/driver" "$w_k" "$mem_kb" "$blocks" "$levels")
    echo "sliding-sketch/Sliding-Sketch,$commit,sw_bf,memory=$((mem_kb * 8000));blocks=$blocks;levels=$levels;hash_num=3;window=$((w_k * 1000)),decimal(key),262144,$((w_k * 1000)),$counts"
done
