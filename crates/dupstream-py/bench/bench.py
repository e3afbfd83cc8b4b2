"""Python's batch path against the Rust batch path (a benchmark, not a test: it prints, and
asserts nothing). `just py-bench` runs it after installing the package.

For each structure: 2^22 keys of a uniform stream (half of them distinct) stepped by a fresh
filter, (a) from Python, `Filter.step` on arrays of `batch` keys (slicing, argument checks,
the GIL released, the output array), and (b) by the runner's cell loop without its scoring,
entirely in Rust (`Filter._rust_batch_secs`: the keys hashed and stepped with `step_batch` in
chunks of `batch` keys, at most the runner's 16,384). The best of `--repeat` runs of each,
interleaved, in the thread's CPU time (the time a loaded machine gives other processes is not
counted; both run on the calling thread); the ratio is (a) / (b). Then the overhead of one call
(wall time).

    python bench.py [--memory 128KB] [--batches 4096,65536,4194304] [--repeat 9] [--all] [name ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from typing import Any, Dict, List

import numpy as np

import dupstream

FAMILY = ["bloom", "bsbf", "bsbfsd", "rlbsbf", "rsbf", "sbf"]


def params_of(name: str) -> Dict[str, Any]:
    p = dict(next(s for s in dupstream.parameter_sets() if s["name"] == name))
    del p["name"]
    return p


def python_secs(name: str, memory: str, keys: np.ndarray, batch: int) -> float:
    f = dupstream.Filter(name, memory=memory, seed=1, **params_of(name))
    start = time.thread_time()
    for at in range(0, len(keys), batch):
        f.step(keys[at : at + batch])
    return time.thread_time() - start


def rust_secs(name: str, memory: str, keys: np.ndarray, batch: int) -> float:
    f = dupstream.Filter(name, memory=memory, seed=1, **params_of(name))
    start = time.thread_time()
    f._rust_batch_secs(keys, batch)  # builds a fresh copy of f (at this memory, microseconds)
    return time.thread_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="structures (default: the Bloom filter and the BSBF family)")
    ap.add_argument("--memory", default="128KB", help="memory size (default 128KB: in cache)")
    ap.add_argument("--batches", default="4096,65536,4194304")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--all", action="store_true", help="every registered structure")
    a = ap.parse_args()
    names = dupstream.structures() if a.all else (a.names or FAMILY)
    batches = [int(b) for b in a.batches.split(",")]
    n = 1 << 22
    keys = dupstream.stream(kind="uniform", n=n, distinct_fraction=0.5, seed=1).keys
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"# Python batch path / Rust batch path, {n} keys, memory {a.memory}, best of {a.repeat} (thread CPU time)")
    print(f"# {platform.machine()}, {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, dupstream {dupstream.__version__}")
    print()
    print("| structure | batch | Python ns/element | Rust ns/element | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        for batch in batches:
            py: List[float] = []
            rs: List[float] = []
            for _ in range(a.repeat):
                # Interleaved, so a change of load hits both sides alike.
                rs.append(rust_secs(name, a.memory, keys, batch))
                py.append(python_secs(name, a.memory, keys, batch))
            p, r = min(py) * 1e9 / n, min(rs) * 1e9 / n
            print(f"| {name} | {batch} | {p:.2f} | {r:.2f} | {p / r:.3f} |", flush=True)
    # The overhead of one call: an array of one key, and of none.
    f = dupstream.Filter("bloom", memory=a.memory, k=2)
    print()
    for size in (0, 1):
        k = keys[:size].copy()
        calls = 200_000
        best = float("inf")
        for _ in range(a.repeat):
            start = time.perf_counter()
            for _ in range(calls):
                f.step(k)
            best = min(best, (time.perf_counter() - start) / calls)
        print(f"Overhead of one `step` call on an array of {size} key(s): {best * 1e9:.0f} ns", end="")
        print(f" ({', '.join(f'{best * 1e9 / b:.3f} ns per element at {b}' for b in batches)})" if size else "")


if __name__ == "__main__":
    main()
