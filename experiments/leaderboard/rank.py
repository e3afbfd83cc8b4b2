#!/usr/bin/env python3
"""Ranks the leaderboard's structures per workload, from the raw.csv files only.

Usage: python3 experiments/leaderboard/rank.py results/leaderboard-*/<run>/raw.csv ...

For each workload (raw.csv) and truth (since-start: fpr/fnr; windowed: w_fpr/w_fnr) it prints a
Markdown table: per structure, the error FPR + FNR at the last checkpoint at each memory size
(bits per window element), mean over the seeds (± half-width of a 95 % t-interval), and the
structure's mean rank over the memory sizes (rank 1 = least error at that size; ties share the
mean rank). Structures are sorted by mean rank. Standard library only.
"""
import csv
import math
import sys
from collections import defaultdict

T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}


def mean_ci(xs):
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, T95.get(len(xs) - 1, 1.96) * math.sqrt(var / len(xs))


def ranks(values):
    order = sorted(values, key=lambda kv: kv[1])
    out, i = {}, 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and order[j + 1][1] == order[i][1]:
            j += 1
        for a in range(i, j + 1):
            out[order[a][0]] = (i + j) / 2 + 1
        i = j + 1
    return out


def table(path, truth):
    fpr, fnr = ("fpr", "fnr") if truth == "since-start" else ("w_fpr", "w_fnr")
    rows = list(csv.DictReader(open(path)))
    last = {}
    for r in rows:
        c = int(r["cell"])
        if c not in last or int(r["position"]) >= int(last[c]["position"]):
            last[c] = r
    err = defaultdict(list)  # (label, bits/elem) -> [error per seed]
    window = None
    for r in last.values():
        window = int(r["window"])
        bpe = int(r["memory_bits_budget"]) / window
        e = float(r[fpr] or 0) + float(r[fnr] or 0)
        err[(r["label"], bpe)].append(e)
    labels = sorted({k[0] for k in err})
    sizes = sorted({k[1] for k in err})
    stats = {k: mean_ci(v) for k, v in err.items()}
    per_size_rank = defaultdict(list)
    for s in sizes:
        present = [(lab, stats[(lab, s)][0]) for lab in labels if (lab, s) in stats]
        for lab, rk in ranks(present).items():
            per_size_rank[lab].append(rk)
    mean_rank = {lab: sum(v) / len(v) for lab, v in per_size_rank.items()}
    name = rows[0]["experiment"]
    print(f"\n#### {name}: {truth} truth (FPR + FNR; W = {window} as run)\n")
    head = "| rank | structure | " + " | ".join(f"{s:g} b/el" for s in sizes) + " | mean rank |"
    print(head)
    print("|" + "---|" * (len(sizes) + 3))
    for i, lab in enumerate(sorted(labels, key=lambda l: (mean_rank[l], l)), 1):
        cells = []
        for s in sizes:
            if (lab, s) in stats:
                m, h = stats[(lab, s)]
                cells.append(f"{m:.4f} ± {h:.4f}")
            else:
                cells.append("–")
        print(f"| {i} | {lab} | " + " | ".join(cells) + f" | {mean_rank[lab]:.1f} |")


for p in sys.argv[1:]:
    for truth in ("since-start", "windowed"):
        table(p, truth)
