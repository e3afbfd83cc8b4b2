"""The README's example, and a structure of your own beside the project's: `python quickstart.py`.

A duplicate detector written in Python (here: remember the last 4096 distinct keys) is scored on
the same stream and against the same exact truth as the project's BSBF and SBF, at 64 KB each."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt

import dupstream

# The README's example.
f = dupstream.Filter("bsbf", memory="64MB", k=2, seed=1)  # any structure, with its TOML parameters
print(f.step(np.array([7, 8, 7], dtype=np.uint64)))  # [False False  True]: numpy in, numpy out
s = dupstream.stream(kind="uniform", n=1_000_000, distinct_fraction=0.15, seed=1)
rows = dupstream.score(dupstream.Filter("sbf", memory="128KB", max=1, k=2, p=4), s, dupstream.truth(s))
print(rows["fpr"], rows["fnr"])  # per checkpoint, as in raw.csv


class LastDistinct:
    """Remembers the last `capacity` distinct keys (64 bits each): an LRU buffer in Python."""

    name = "python lru"

    def __init__(self, memory_bits: int) -> None:
        self.capacity = memory_bits // 64
        self.memory_bits = self.capacity * 64
        self.seen: OrderedDict[int, None] = OrderedDict()

    def step(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
        out = np.empty(len(keys), dtype=np.bool_)
        seen = self.seen
        for i, k in enumerate(keys.tolist()):
            out[i] = k in seen
            if out[i]:
                seen.move_to_end(k)
            else:
                seen[k] = None
                if len(seen) > self.capacity:
                    seen.popitem(last=False)
        return out


stream = dupstream.stream(kind="uniform", n=1 << 18, distinct_fraction=0.3, seed=1)
truth = dupstream.truth(stream)
structures: list[Any] = [
    LastDistinct(64 * 1024 * 8),
    dupstream.Filter("bsbf", memory="64KB", k=2, seed=1),
    dupstream.Filter("sbf", memory="64KB", max=1, k=2, p=4, seed=1),
]
for x in structures:
    t = dupstream.score(x, stream, truth, checkpoints=1)
    fpr, fnr = t["fpr"][len(t["fpr"]) - 1], t["fnr"][len(t["fnr"]) - 1]
    print(f"{x.name:>12}: FPR {100 * fpr:6.2f} %  FNR {100 * fnr:6.2f} %")
