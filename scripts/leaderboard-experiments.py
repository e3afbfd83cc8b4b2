#!/usr/bin/env python3
"""Writes experiments/leaderboard/*.toml: the leaderboard's boards, one file each.

Two tracks:
- since-start, memory from 1/4 to 16 bits per distinct key of the scored stream (the hard
  regime, where every structure saturates), plus the exact hash set at its real cost;
- windowed, memory from 2 to 64 bits per window element, plus the exact window.

Synthetic streams are written at full scale with a default [run] scale; real traces (read
from ../shared/data, never copied) are replayed whole: their first half tunes, their second
half is scored ([tuning] stream). Since-start memory sizes need the scored streams' distinct
counts: `--probe BIN` measures them by running the exact structure over each scored stream
(one cell per seed, at the default scale) and writes the files with those counts; without it
the counts recorded in DISTINCT below are used (they were measured that way).

    python3 scripts/leaderboard-experiments.py --probe target/release/dupstream
"""

import argparse
import json
import csv
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "experiments", "leaderboard")
DATA = "../../../shared/data"  # relative to experiments/leaderboard/

SINCE_BITS = [0.25, 0.5, 1, 2, 4, 8, 16]
WINDOW_BITS = [2, 4, 8, 16, 32, 64]
SEEDS = [1, 2, 3, 4, 5, 6]  # seed 1 tunes, 2-6 are scored

# Distinct keys of each since-start board's scored streams at its default scale (mean over the
# scored seeds), as measured by --probe and kept in this file beside the script.
DISTINCT_FILE = os.path.join(HERE, "leaderboard-distinct.json")
DISTINCT = json.load(open(DISTINCT_FILE)) if os.path.exists(DISTINCT_FILE) else {}

ATTRIBUTION = (
    "# Trace © headissue GmbH, Jens Wilke, CC BY 4.0, from cache2k-benchmark (../shared/data/README.md).\n"
)

TRACES = {
    # name: (file, column, events used, window W, attribution)
    "nasa": ("nasa-http-1995-08-01.tsv", "url", 30_969, 512, False),
    "web07": ("cache2k-web07.tsv", "key", 76_118, 1024, True),
    "web12": ("cache2k-web12.tsv", "key", 95_607, 1024, True),
    "orm-busy": ("cache2k-orm-busy.tsv.gz", "key", 262_144, 4096, True),
    "orm-night": ("cache2k-orm-night.tsv.gz", "key", 262_144, 4096, True),
}


def alg(label, name, family=None, memory=None, **params):
    lines = ["[[algorithm]]", f'label = "{label}"', f'name = "{name}"']
    if family:
        lines.append(f'family = "{family}"')
    for k, v in params.items():
        lines.append(f"{k} = {toml_value(v)}")
    if memory:
        lines.append("memory = [" + ", ".join(f'"{m} bits"' for m in memory) + "]")
    return "\n".join(lines) + "\n"


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    return str(v)


# The streaming Cuckoo filter's relocation limit is in its grid at 16 and 128: Fan et al.'s
# 500 costs about 9 µs per element once the table is saturated on this machine (the b-model
# board's smallest sizes), too slow for the leaderboard's time budget.


def bloom_relatives():
    """The SBF's successors and the quotient hash tables, on both tracks."""
    return [
        alg("RSBF", "rsbf", k=[1, 2, 3, 4]),
        alg("BSBF", "bsbf", k=[1, 2, 3, 4]),
        alg("BSBFSD", "bsbfsd", k=[1, 2, 3, 4]),
        alg("RLBSBF", "rlbsbf", k=[1, 2, 3, 4]),
        alg("QHT", "qht", k=[1, 3], s=[3, 6]),
        alg("QHTD", "qhtd", family="QHTD", k=3, s=[3, 6]),
        alg("QQHTD", "qqhtd", family="QHTD", k=3, s=[3, 6]),
    ]


def table_structures():
    """SQF, the streaming Cuckoo filter, A2 and FP-SBF, on both tracks."""
    return [
        alg("SQF", "sqf"),
        alg("Cuckoo", "cuckoo", f=[6, 12], b=[1, 4], max_num_kicks=[16, 128]),
        alg("A2", "a2", fpr=[0.001, 0.01, 0.1]),
        alg("FP-SBF", "fpsbf", c=2, f=4, k=2, xi=[0.5, 1.0], fps=[0.01, 0.1]),
    ]


def since_algorithms(exact_bits):
    """Every since-start structure, each with a grid of at most 8 configurations."""
    return [
        alg("Bloom", "bloom", k=[1, 2, 3, 4, 6, 8]),
        alg("SBF", "sbf", max=[1, 3], k=[1, 2, 3, 4], fps=0.1),
        *bloom_relatives(),
        *table_structures(),
        alg("LRU buffering", "lru_buffering"),
        alg("Exact", "exact", memory=exact_bits),
    ]


def window_algorithms(w, exact_bits, time=None):
    """Every windowed structure at window W, each with a grid of at most 8 configurations."""
    out = [
        alg("Bloom", "bloom", k=[1, 2, 3, 4]),
        alg("SBF", "sbf", max=[1, 3], k=[2, 3], fps=0.1),
        *bloom_relatives(),
        alg("Queue of QQHTD", "queue", family="QHTD", window=w, inner={"name": "qqhtd"}),
        *table_structures(),
        # The QHT paper's b_DBF (its running counter): its window scales with --scale, as the
        # other structures' do; the block schedule keeps its window a fixed count of elements.
        alg("b_DBF", "bdbf", window=w, schedule="running_counter"),
        alg("APBF", "apbf", window=w, k=[4, 10], l=[3, 7]),
        # SWAMP with its succinct count table fits every column; the plain table (the reading
        # that the runs before issue 35 name `swamp`) only from about 32 bits.
        alg("SWAMP", "swamp", window=w),
        alg("SWAMP (plain table)", "swamp_plain", window=w, memory=[32 * w, 64 * w, 128 * w]),
        # Naor-Yogev: g generations per window, slack about 1/g; g = W is the zero-slack limit.
        alg("Naor-Yogev", "naor_yogev", window=w, generations=[4, 16, 64, 256, w]),
        alg("Rotating Bloom", "rotating_bloom", window=w, generations=[2, 4, 8]),
        alg("FBF", "fbf", window=w, filters=[4, 10]),
        alg("Sl-BF", "sliding_bloom", window=w),
        alg("SW-BF", "sw_bf", window=w, blocks=[4, 8, 16, 32], levels=[1, 2]),
        alg("Inverse Bloom", "inverse_bloom"),
        alg("Exact window", "exact_window", family="Exact window", window=w, memory=exact_bits),
        alg("Perfect filter", "exact_window"),
    ]
    if time is None:
        out += [
            alg("Aged cuckoo", "aged_cuckoo", window=w, clock_bits=[2, 3, 4, 6], load=[0.8, 0.95]),
            # 18 bits hold a window of 2^16 exactly (14 at --scale 16).
            alg("Timing Bloom", "timing_bloom", window=w, stamp_bits=[4, 6, 8, 10, 12, 14, 16, 18]),
        ]
    else:
        t, rate = time
        out += [
            alg("TLBF", "tlbf", window_seconds=t, rate=rate, fpr=[0.01, 0.1]),
            # Sized for `rate`, the mean: a lower load leaves room for bursts above it.
            alg("Aged cuckoo", "aged_cuckoo", window_seconds=t, rate=rate,
                clock_bits=[2, 3, 4, 6], load=[0.25, 0.5]),
            # The stamp rule: c-bit stamps, slack about T/2^c, cleaning cost independent of c;
            # loads on either side of mean/peak (the MMPP's 1024/3328 = 0.31), so that a
            # burst's window fits.
            alg("Aged cuckoo (stamp)", "aged_cuckoo", window_seconds=t, rate=rate, aging="stamp",
                stamp_bits=[6, 8, 10, 12], load=[0.25, 0.35]),
            alg("Timing Bloom", "timing_bloom", window_seconds=t, rate=rate,
                stamp_bits=[4, 6, 8, 10, 12, 14, 16, 18]),
        ]
    return out


def header(name, description, comment):
    return "\n".join(f"# {l}" if l else "#" for l in comment.strip().split("\n")) + (
        f'\nname = "{name}"\ndescription = "{description}"\n\n'
    )


def grid(sizes):
    # A size bounds all the heap a structure holds, measured (`budget = "held"`): each is
    # built within the largest state that fits it with its fixed part (docs/experiments.md).
    return (
        "[grid]\nmemory = ["
        + ", ".join(f'"{int(round(s))} bits"' for s in sizes)
        + "]\nunfit = \"skip\"\nbudget = \"held\"\nseeds = "
        + toml_value(SEEDS)
        + "\n\n"
    )


OUTPUT = '[output]\ntable = { rows = ["memory"], columns = "algorithm" }\ncharts = [{ chart = "pareto", error = "%s" }]\n# Stored gzip-compressed: thousands of cells, kept small in git.\ncompress = true\n\n'


def synthetic_since(key, stream, scale, what):
    n = stream["n"]
    d = DISTINCT.get(f"since-{key}")
    # Sized per distinct key at the default scale; the file is written at full scale.
    per = d * scale if d else None
    sizes = [b * per for b in SINCE_BITS] if per else [b * n // 4 for b in SINCE_BITS]
    text = header(
        f"leaderboard-since-{key}",
        f"Leaderboard, since-start: {what}, 1/4-16 bits per distinct key, tuned per structure",
        f"""Leaderboard, since-start track: {what}.
An element is a duplicate iff it occurred anywhere before; error = FPR + FNR over the whole
stream. Memory from 1/4 to 16 bits per distinct key of the scored streams
({d if d else '?'} distinct keys at the default scale, measured by
scripts/leaderboard-experiments.py --probe), the hard regime; the exact hash set at its real
cost. Seed 1's stream tunes each structure's setting, seeds 2-6 are scored (LEADERBOARD.md).
Written at full scale by scripts/leaderboard-experiments.py; `just leaderboard` runs it at its
[run] scale.""",
    )
    text += "[stream]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in stream.items()) + "\n"
    text += grid(sizes)
    text += f"[metrics]\ncheckpoints = 1\n\n[run]\nscale = {scale}\n\n"
    text += OUTPUT % "fpr+fnr"
    text += "\n".join(since_algorithms([512 * per if per else n * 128]))
    return text


def synthetic_window(key, stream, w, scale, what, time=None, window_seconds=None):
    text = header(
        f"leaderboard-window-{key}",
        f"Leaderboard, windowed: {what}, 2-64 bits per window element, tuned per structure",
        f"""Leaderboard, windowed track: {what}.
An element is a duplicate iff its previous occurrence is at most W elements earlier{' (here: T seconds)' if window_seconds else ''};
error = windowed FPR + FNR after a warm-up of 2 W. Memory from 2 to 64 bits per window
element; the exact window at its real cost. Seed 1's stream tunes each structure's setting,
seeds 2-6 are scored (LEADERBOARD.md). Written at full scale by
scripts/leaderboard-experiments.py (windows scale with --scale); `just leaderboard` runs it
at its [run] scale.""",
    )
    text += "[stream]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in stream.items()) + "\n"
    text += grid([b * w for b in WINDOW_BITS])
    metrics = f"[metrics]\ncheckpoints = 1\n"
    if window_seconds:
        metrics += f"window_seconds = {window_seconds}\n"
    else:
        metrics += f"window = {w}\n"
    metrics += f"warmup = {2 * w}\n\n[run]\nscale = {scale}\n\n"
    text += metrics + OUTPUT % "w_fpr+w_fnr"
    text += "\n".join(window_algorithms(w, [128 * w, 256 * w], time))
    return text


def trace_stream(name, half, time=False):
    file, column, events, _, _ = TRACES[name]
    first = events // 2
    s = {
        "kind": "replay",
        "path": f"{DATA}/{file}",
        "format": "tsv",
        "header": True,
        "column": column,
        "offset": first,
        "limit": events - first,
    }
    if time:
        s["time"] = {"process": "log", "column": "time"}
    tuning = {"offset": 0, "limit": first}
    return s, tuning


def trace_common(name, track):
    file, _, events, w, cc = TRACES[name]
    first = events // 2
    return f"""{ATTRIBUTION if cc else ''}# The trace {file} ({events:,} events used) replayed as it is: its first half
# ({first:,} events) tunes each structure's setting ([tuning] stream), its second half
# ({events - first:,} events) is scored under seeds 2-6 (hash seeds). Read from ../shared/data
# (never copied); `just leaderboard` skips the board with a message when the file is absent.
"""


def real_since(name):
    s, tuning = trace_stream(name, 2)
    d = DISTINCT.get(f"since-{name}")
    per = d if d else 1000
    text = header(
        f"leaderboard-since-{name}",
        f"Leaderboard, since-start: the {name} trace, 1/4-16 bits per distinct key, tuned on its first half",
        f"""Leaderboard, since-start track on a real trace: {name}, {d if d else '?'} distinct keys in
the scored half (measured by scripts/leaderboard-experiments.py --probe). Memory from 1/4
to 16 bits per distinct key; the exact hash set at its real cost.""",
    )
    text += trace_common(name, "since")
    text += "[stream]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in s.items()) + "\n"
    text += "[tuning]\nstream = " + toml_value(tuning) + "\n\n"
    text += grid([b * per for b in SINCE_BITS])
    text += "[metrics]\ncheckpoints = 1\n\n[run]\nscale = 1\nmax_scale = 1\n\n"
    text += OUTPUT % "fpr+fnr"
    text += "\n".join(since_algorithms([512 * per]))
    return text


# The NASA log's second half holds a mean of 613 requests per 600 s (15,485 requests over
# 15,163 s): the time board's memory columns are per mean window element at that mean.
NASA_PER_600S = 613


def real_window(name, time_seconds=None):
    _, _, events, w, _ = TRACES[name]
    if time_seconds:
        w = NASA_PER_600S
    s, tuning = trace_stream(name, 2, time=time_seconds is not None)
    key = f"{name}-time" if time_seconds else name
    what = (
        f"the {name} trace on its own times, T = {time_seconds:g} s"
        if time_seconds
        else f"the {name} trace, W = {w}"
    )
    text = header(
        f"leaderboard-window-{key}",
        f"Leaderboard, windowed: {what}, 2-64 bits per window element, tuned on its first half",
        f"""Leaderboard, windowed track on a real trace: {what}. Memory from 2 to 64 bits per
{'mean ' if time_seconds else ''}window element; the exact window at its real cost.""",
    )
    text += trace_common(name, "window")
    text += "[stream]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in s.items()) + "\n"
    text += "[tuning]\nstream = " + toml_value(tuning) + "\n\n"
    text += grid([b * w for b in WINDOW_BITS])
    text += "[metrics]\ncheckpoints = 1\n"
    text += f"window_seconds = {time_seconds}\n" if time_seconds else f"window = {w}\n"
    text += f"warmup = {2 * w}\n\n[run]\nscale = 1\nmax_scale = 1\n\n"
    text += OUTPUT % "w_fpr+w_fnr"
    text += "\n".join(
        window_algorithms(w, [128 * w, 256 * w], (time_seconds, w / time_seconds) if time_seconds else None)
    )
    return text


def boards():
    n = 1 << 24
    return {
        "since-shuffled": lambda: synthetic_since(
            "shuffled", {"kind": "shuffled", "n": n, "distinct_fraction": 0.15}, 64,
            "a shuffled stream of 2^24 elements, 15 % distinct (each distinct key once, the rest repeats)"),
        "since-zipf": lambda: synthetic_since(
            "zipf", {"kind": "zipf", "n": n, "universe": n, "s": 1.0}, 64,
            "a Zipf (s = 1) stream of 2^24 elements over 2^24 keys"),
        "since-bmodel": lambda: synthetic_since(
            "bmodel", {"kind": "deng_b_model", "n": n, "b": 0.7, "l": 6, "v": 0.1, "u": 1000.0}, 64,
            "Deng & Rafiei's b-model stream (b = 0.7, l = 6, v = 0.1, u = 1000) of 2^24 elements"),
        "since-drift": lambda: synthetic_since(
            "drift", {"kind": "zipf_drift", "n": n, "universe": n // 4, "s": 1.0, "period": n // 64, "shift": 256}, 64,
            "a Zipf (s = 1) stream of 2^24 elements over 2^22 keys whose popularity drifts (the rank-to-key map moves by 256 ranks every 2^18 elements: at the default scale, 1/256 of the universe every 2^12 elements)"),
        **{f"since-{t}": (lambda t=t: real_since(t)) for t in TRACES},
        "window-uniform": lambda: synthetic_window(
            "uniform", {"kind": "uniform", "n": 1 << 22, "universe": 1 << 26}, 1 << 16, 16,
            "a uniform stream of 2^22 elements over 2^26 keys, W = 2^16 (a large universe: few repeats)"),
        "window-uniform-small": lambda: synthetic_window(
            "uniform-small", {"kind": "uniform", "n": 1 << 22, "universe": 1 << 18}, 1 << 16, 16,
            "a uniform stream of 2^22 elements over 2^18 = 4 W keys, W = 2^16 (a small universe: every key recurs)"),
        "window-zipf": lambda: synthetic_window(
            "zipf", {"kind": "zipf", "n": 1 << 22, "universe": 1 << 26, "s": 1.0}, 1 << 16, 16,
            "a Zipf (s = 1) stream of 2^22 elements over 2^26 keys, W = 2^16"),
        "window-zipf-small": lambda: synthetic_window(
            "zipf-small", {"kind": "zipf", "n": 1 << 22, "universe": 1 << 18, "s": 1.0}, 1 << 16, 16,
            "a Zipf (s = 1) stream of 2^22 elements over 2^18 = 4 W keys, W = 2^16"),
        "window-drift": lambda: synthetic_window(
            "drift", {"kind": "zipf_drift", "n": 1 << 22, "universe": 1 << 20, "s": 1.0, "period": 1 << 16, "shift": 256}, 1 << 16, 16,
            "a Zipf (s = 1) stream of 2^22 elements over 2^20 keys whose popularity drifts (the rank-to-key map moves by 256 ranks every W: at the default scale, 1/256 of the universe), W = 2^16"),
        "window-time": lambda: synthetic_window(
            "time", {"kind": "uniform", "n": 1 << 22, "universe": 1 << 19,
                     "time": {"process": "mmpp", "burst_rate": 3328.0, "lull_rate": 256.0, "burst_seconds": 32.0, "lull_seconds": 96.0}},
            1 << 16, 16,
            "a uniform stream of 2^22 elements over 2^19 keys arriving in bursts and lulls (MMPP, a mean of 1,024 elements/s), T = 64 s (a mean of 2^16 elements per window)",
            time=(64.0, 1024.0), window_seconds=64.0),
        **{f"window-{t}": (lambda t=t: real_window(t)) for t in TRACES},
        "window-nasa-time": lambda: real_window("nasa", time_seconds=600.0),
    }


def probe(binary):
    """Measures each since-start board's scored streams' distinct keys at the default scale."""
    global DISTINCT
    for key, make in boards().items():
        if not key.startswith("since-"):
            continue
        text = make()
        with tempfile.TemporaryDirectory() as tmp:
            # Only the exact structure, on the scored seeds, at a size it always fits.
            head = text[: text.index("[[algorithm]]")]
            head = head.replace("seeds = " + toml_value(SEEDS), "seeds = " + toml_value(SEEDS[1:]))
            head = head.replace("compress = true\n", "")
            # No tuning stream: every probed seed replays the scored part.
            if "\n[tuning]\n" in head:
                a = head.index("\n[tuning]\n") + 1
                head = head[:a] + head[head.index("\n\n", a) + 2 :]
            probe_file = os.path.join(OUT, f".probe-{key}.toml")
            with open(probe_file, "w") as f:
                f.write(head + '[[algorithm]]\nname = "exact"\n')
            try:
                r = subprocess.run(
                    [binary, "run", probe_file, "--quiet", "--out", os.path.join(tmp, "run")],
                    capture_output=True, text=True)
            finally:
                os.remove(probe_file)
            if r.returncode != 0:
                print(f"probe {key}: {r.stderr.strip()}", file=sys.stderr)
                continue
            # The leaderboard's own count: first occurrences in the scored stream (raw.csv's
            # `unseen` at its end), per seed.
            with open(os.path.join(tmp, "run", "raw.csv")) as f:
                rows = list(csv.DictReader(f))
            DISTINCT[key] = round(sum(int(r["unseen"]) for r in rows) / len(rows))
            print(f"{key}: {DISTINCT[key]} distinct keys per scored stream", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probe", metavar="BIN", help="measure distinct counts with this dupstream binary")
    args = ap.parse_args()
    if args.probe:
        probe(args.probe)
        with open(DISTINCT_FILE, "w") as f:
            json.dump(DISTINCT, f, indent=1, sort_keys=True)
            f.write("\n")
    for old in glob.glob(os.path.join(OUT, "*.toml")):
        os.remove(old)
    for key, make in boards().items():
        with open(os.path.join(OUT, f"{key}.toml"), "w") as f:
            f.write(make())
    print(f"wrote {len(boards())} files to experiments/leaderboard/", file=sys.stderr)


if __name__ == "__main__":
    main()
