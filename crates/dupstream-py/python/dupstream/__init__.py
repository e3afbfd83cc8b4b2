"""dupstream from Python: approximate duplicate detection in streams.

Every structure of the project's registry on numpy arrays (:class:`Filter`), the project's
deterministic streams (:func:`stream`) and their exact ground truth (:func:`truth`), a
structure written in Python scored as the runner scores its own (:func:`score`), and the
experiment runner itself (:func:`run`, :func:`read_run`, :func:`read_leaderboard`).

Tables come back as pandas DataFrames when pandas is installed, else as :class:`Table`, a
dict of columns (lists). Their columns are those of the result files (``SCHEMA.md``).

>>> import numpy as np, dupstream
>>> f = dupstream.Filter("bsbf", memory="1MB", k=2, seed=1)
>>> f.step(np.array([7, 8, 7], dtype=np.uint64)).tolist()
[False, False, True]
"""

from __future__ import annotations

import csv
import gzip
import importlib
import itertools
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._dupstream import (
    Filter,
    __version__,
    fingerprint,
    hash_keys,
    parameter_sets,
    structures,
)
from . import _dupstream

__all__ = [
    "Filter",
    "Stream",
    "Table",
    "Truth",
    "__version__",
    "fingerprint",
    "hash_keys",
    "parameter_sets",
    "read_leaderboard",
    "read_run",
    "run",
    "score",
    "stream",
    "structures",
    "truth",
]

KeyArray = npt.NDArray[np.uint64]
BoolArray = npt.NDArray[np.bool_]
TimeArray = npt.NDArray[np.float64]
Keys = Union[KeyArray, Sequence[str], Sequence[bytes]]


class Table(Dict[str, List[Any]]):
    """A table as a dict of columns (each a list), what the functions returning tables give
    when pandas is not installed. ``attrs`` holds what a DataFrame's ``attrs`` would (the
    results directory of a run)."""

    attrs: Dict[str, Any]

    def __init__(self, columns: Optional[Mapping[str, List[Any]]] = None) -> None:
        super().__init__(columns or {})
        self.attrs = {}


def _pandas() -> Any:
    if os.environ.get("DUPSTREAM_NO_PANDAS"):
        return None
    try:
        return importlib.import_module("pandas")
    except ImportError:
        return None


def _frame(columns: Mapping[str, List[Any]], attrs: Optional[Dict[str, Any]] = None) -> Any:
    """A DataFrame of ``columns`` when pandas is installed, else a :class:`Table`."""
    pd = _pandas()
    if pd is not None:
        df = pd.DataFrame(dict(columns))
        df.attrs.update(attrs or {})
        return df
    t = Table(columns)
    t.attrs.update(attrs or {})
    return t


# --- Streams and ground truth -------------------------------------------------------------


@dataclass(frozen=True)
class Stream:
    """A stream's keys (``uint64``), with their arrival times (seconds) when it is timestamped.

    ``np.asarray(stream)`` is its keys. ``label`` is the stream as ``raw.csv``'s ``stream``
    column writes it; ``seed`` the replicate seed it was generated with."""

    keys: KeyArray
    times: Optional[TimeArray] = None
    label: str = ""
    seed: int = 1

    def __len__(self) -> int:
        return len(self.keys)

    def __array__(self, dtype: Any = None, copy: Any = None) -> KeyArray:
        return self.keys if dtype is None else self.keys.astype(dtype)


def stream(kind: str, n: Optional[int] = None, seed: int = 1, **params: Any) -> Stream:
    """The project's deterministic stream ``kind`` (``uniform``, ``zipf``, ``shuffled``,
    ``deng_poisson``, ``deng_b_model``, ``replay``) of ``n`` elements for replicate seed
    ``seed``, with the other keys of an experiment file's ``[stream]`` table as keyword
    arguments (``distinct_fraction=0.5``, ``universe=...``, ``time={"process": "poisson",
    "rate": 1000.0}``, ...). The keys are those a run with ``[grid] seeds = [seed]`` feeds
    its cells (before the key hash). A bad kind or parameter raises ``ValueError`` with the
    command line's message."""
    table: Dict[str, Any] = {"kind": kind, **params}
    if n is not None:
        table["n"] = n
    keys, times, label = _dupstream._stream(seed, table)
    return Stream(keys=keys, times=times, label=label, seed=seed)


@dataclass(frozen=True)
class Truth:
    """Exact labels of a stream (``True``: a duplicate). ``window`` is ``None`` since the
    start, else the window in elements (for a time window: the stream's mean number of
    elements per window, as ``raw.csv``'s ``window``); ``window_seconds`` is a time window's
    length."""

    labels: BoolArray
    window: Optional[int] = None
    window_seconds: Optional[float] = None

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def duplicates(self) -> int:
        """How many positions are duplicates."""
        return int(np.count_nonzero(self.labels))


def _keys_and_times(
    keys: Union[Stream, Keys], times: Optional[TimeArray]
) -> "tuple[Any, Optional[TimeArray]]":
    if isinstance(keys, Stream):
        return keys.keys, times if times is not None else keys.times
    return keys, times


def truth(
    keys: Union[Stream, Keys],
    window: Union[None, int, float] = None,
    times: Optional[TimeArray] = None,
) -> Truth:
    """The exact ground truth of ``keys`` (a :class:`Stream`, a ``uint64`` array, or
    ``str``/``bytes`` keys, fingerprinted as a replay does), computed as the runner computes
    it: since the start (``window=None``), within the last ``W`` elements (``window=W``, an
    int; ``W = 1``: the element just before), or within ``T`` seconds of the ``times`` (``window=T``, a
    float; ``times`` from the argument or the stream)."""
    ks, ts = _keys_and_times(keys, times)
    if window is None:
        return Truth(_dupstream._truth(ks))
    if isinstance(window, bool) or not isinstance(window, (int, float, np.integer, np.floating)):
        raise TypeError(f"window must be None, an int (elements) or a float (seconds), not {type(window).__name__}")
    if isinstance(window, (int, np.integer)):
        if window < 1:
            raise ValueError(f"window = {window}: a window holds at least 1 element")
        return Truth(_dupstream._truth(ks, window=int(window)), window=int(window))
    seconds = float(window)
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"window = {window}: a time window is a positive number of seconds")
    if ts is None:
        raise ValueError(
            f"window = {window} (a float) is in seconds and needs times; give times=, or an int window in elements"
        )
    labels = _dupstream._truth(ks, seconds=seconds, times=ts)
    t = np.asarray(ts, dtype=np.float64)
    elapsed = float(t[-1] - t[0]) if len(t) else 0.0
    if elapsed <= 0:
        raise ValueError("a time window needs times that advance")
    per_window = max(1, int(math.floor((len(t) - 1) * seconds / elapsed + 0.5)))
    return Truth(labels, window=per_window, window_seconds=seconds)


_since_start = truth

# --- Scoring a structure --------------------------------------------------------------------


def _checkpoints(n: int, checkpoints: Union[int, Sequence[int]]) -> List[int]:
    """The runner's checkpoints: ``c`` evenly spaced ones ending at ``n``, or the positions
    given (``n`` added)."""
    if isinstance(checkpoints, (int, np.integer)):
        c = min(int(checkpoints), max(n, 1))
        if c < 1:
            raise ValueError("checkpoints must be at least 1")
        v = [n * i // c for i in range(1, c) if n * i // c > 0]
    else:
        v = sorted({int(p) for p in checkpoints if 0 < int(p) < n})
    return sorted(set(v)) + [n]


def _rate(num: int, den: int) -> Optional[float]:
    return num / den if den else None


def score(
    structure: Any,
    stream: Union[Stream, Keys],
    truth: Optional[Truth] = None,
    *,
    checkpoints: Union[int, Sequence[int]] = 10,
    batch: int = 1 << 16,
    label: Optional[str] = None,
    times: Optional[TimeArray] = None,
) -> Any:
    """Runs ``structure`` over ``stream`` and scores it as the runner scores a cell: one row
    per checkpoint with ``raw.csv``'s counts and rates (``tp``, ``fp``, ``tn``, ``fn``,
    ``unseen``, ``duplicates``, ``fpr``, ``fnr``) against the since-start truth, and the
    windowed columns (``window``, ``w_duplicates``, ``w_fp``, ``w_fn``, ``w_fpr``, ``w_fnr``)
    when ``truth`` is windowed.

    ``structure`` is an object with a ``step(keys) -> bools`` method (a :class:`Filter`, or
    your own; given a ``step_at(keys, times)`` method and a timestamped stream, that is called
    instead), or a callable ``f(keys) -> bools``. It receives the stream's keys (``uint64``,
    before the key hash) in arrays of ``batch`` elements, in order, and returns one verdict per
    key (``True``: a duplicate). ``truth`` defaults to the since-start truth of the stream.
    Overhead: one Python call per batch (under a microsecond, nothing per element at the
    default batch) and the counting (numpy, about 2 ns per element); a structure stepping
    element by element in Python pays its own loop, about 0.3 µs per element for a loop over
    ``keys.tolist()`` with a set."""
    keys, times = _keys_and_times(stream, times)
    if not isinstance(keys, np.ndarray):
        keys = fingerprint(keys)
    n = len(keys)
    if truth is not None and len(truth) != n:
        raise ValueError(f"the truth has {len(truth)} labels for {n} keys")
    since = truth if truth is not None and truth.window is None else _since_start(keys)
    windowed = truth if truth is not None and truth.window is not None else None
    if batch < 1:
        raise ValueError("batch must be at least 1")
    step_at = getattr(structure, "step_at", None) if times is not None else None
    step: Callable[..., Any]
    if step_at is not None:
        step = step_at
    elif hasattr(structure, "step"):
        step = structure.step
    elif callable(structure):
        step = structure
    else:
        raise TypeError("structure must have a step(keys) method or be callable")
    stops = _checkpoints(n, checkpoints)
    verdicts = np.empty(n, dtype=np.bool_)
    # Stepped up to each checkpoint, where the structure's memory is read (as the runner does).
    memory: List[Optional[int]] = []
    at = 0
    for stop in stops:
        while at < stop:
            end = min(at + batch, stop)
            chunk = keys[at:end]
            got = step(chunk, times[at:end]) if step_at is not None and times is not None else step(chunk)
            got = np.asarray(got, dtype=np.bool_)
            if got.shape != chunk.shape:
                raise ValueError(
                    f"step returned {got.shape[0] if got.ndim == 1 else got.shape} verdicts for {len(chunk)} keys"
                )
            verdicts[at:end] = got
            at = end
        mem = getattr(structure, "memory_bits", None)
        memory.append(int(mem) if isinstance(mem, (int, np.integer)) else None)
    bounds = list(zip([0] + stops[:-1], stops))

    def upto(mask: BoolArray) -> List[int]:
        """How many of ``mask`` are set up to each checkpoint."""
        return list(itertools.accumulate(int(np.count_nonzero(mask[lo:hi])) for lo, hi in bounds))

    v, lab = verdicts, since.labels
    tp, fp, fn_ = upto(v & lab), upto(v & ~lab), upto(~v & lab)
    name = label or getattr(structure, "name", None) or type(structure).__name__
    cols: Dict[str, List[Any]] = {
        "label": [str(name)] * len(stops),
        "position": list(stops),
        "tp": tp,
        "fp": fp,
        "tn": [p - a - b - c for p, a, b, c in zip(stops, tp, fp, fn_)],
        "fn": fn_,
    }
    cols["unseen"] = [tn + f for tn, f in zip(cols["tn"], cols["fp"])]
    cols["duplicates"] = [t + f for t, f in zip(cols["tp"], cols["fn"])]
    cols["fpr"] = [_rate(f, u) for f, u in zip(cols["fp"], cols["unseen"])]
    cols["fnr"] = [_rate(f, d) for f, d in zip(cols["fn"], cols["duplicates"])]
    if windowed is not None:
        wl = windowed.labels
        wd, wfp, wfn = upto(wl), upto(v & ~wl), upto(~v & wl)
        cols["window"] = [windowed.window] * len(stops)
        if windowed.window_seconds is not None:
            cols["window_seconds"] = [windowed.window_seconds] * len(stops)
        cols["w_duplicates"] = wd
        cols["w_fp"] = wfp
        cols["w_fn"] = wfn
        cols["w_fpr"] = [_rate(f, p - d) for f, p, d in zip(wfp, stops, wd)]
        cols["w_fnr"] = [_rate(f, d) for f, d in zip(wfn, wd)]
    if all(m is not None for m in memory):
        cols["memory_bits"] = memory
        cols["bits_per_distinct"] = [_rate(m, u) for m, u in zip(memory, cols["unseen"]) if m is not None]
    return _frame(cols)


# --- Experiments and results ------------------------------------------------------------------


def run(
    experiment: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    scale: Optional[int] = None,
    threads: Optional[int] = None,
    *,
    out: Union[None, str, "os.PathLike[str]"] = None,
    results_root: Union[str, "os.PathLike[str]"] = "results",
    resume: bool = False,
    quiet: bool = True,
) -> Any:
    """Runs an experiment through the runner library, as ``dupstream run`` does: the same
    results directory (``results/<experiment>/<date>-<host>-<rev>[-scale<F>]/`` unless
    ``out`` is given) with ``raw.csv``, tables, charts and ``manifest.json``. Returns the tidy
    rows of ``raw.csv`` (``attrs["results_dir"]`` is the directory).

    ``experiment`` is an experiment file, or its content as a dict (``{"name": ...,
    "stream": {...}, "grid": {...}, "algorithm": [{...}, ...]}``), written to a temporary file
    in the current directory (relative paths resolve from there; ``run.toml`` in the results
    directory keeps it). Errors in the experiment raise ``ValueError`` with the command line's
    one-line message; the table the command prints goes to the process's standard output."""
    if isinstance(experiment, Mapping):
        text = _dupstream._toml_text(dict(experiment))
        fd, tmp = tempfile.mkstemp(prefix=".dupstream-", suffix=".toml", dir=os.getcwd())
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            path = os.path.basename(tmp)
            d = _dupstream._run(path, scale, threads, None if out is None else os.fspath(out), os.fspath(results_root), resume, quiet)
        finally:
            os.unlink(tmp)
    else:
        d = _dupstream._run(
            os.fspath(experiment), scale, threads, None if out is None else os.fspath(out), os.fspath(results_root), resume, quiet
        )
    return read_run(d)


_FILES = ("raw", "cells", "streams", "gaps", "derived", "table", "timing")


def _parse_column(values: List[str]) -> List[Any]:
    """A CSV column as ints, else floats, else strings; an empty field is ``None``."""
    present = [v for v in values if v != ""]
    for conv in (int, float):
        try:
            converted = [conv(v) for v in present]
        except ValueError:
            continue
        it = iter(converted)
        return [next(it) if v != "" else None for v in values]
    return [v if v != "" else None for v in values]


def _read_csv(path: Path) -> Any:
    opener: Callable[..., Any] = gzip.open if path.suffix == ".gz" else open
    pd = _pandas()
    if pd is not None:
        return pd.read_csv(path, keep_default_na=False, na_values=[""], low_memory=False)
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return Table()
    header, body = rows[0], rows[1:]
    cols = {h: _parse_column([r[i] if i < len(r) else "" for r in body]) for i, h in enumerate(header)}
    return Table(cols)


def read_run(directory: Union[str, "os.PathLike[str]"], file: str = "raw") -> Any:
    """A results directory's ``raw.csv`` (or ``file``: ``cells``, ``streams``, ``gaps``,
    ``derived``, ``table``, ``timing``; plain or gzipped) as a table with SCHEMA.md's
    columns; ``attrs["results_dir"]`` is the directory."""
    d = Path(directory)
    if file not in _FILES:
        raise ValueError(f"file must be one of {', '.join(_FILES)}, not {file!r}")
    if not d.is_dir():
        raise ValueError(f"{d}: no such results directory")
    for name in (f"{file}.csv", f"{file}.csv.gz"):
        if (d / name).is_file():
            t = _read_csv(d / name)
            t.attrs["results_dir"] = str(d)
            return t
    raise ValueError(f"{d}: no {file}.csv (is it a finished results directory?)")


def read_leaderboard(
    directories: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]] = "results",
    prefix: Optional[str] = "leaderboard-",
    canonical: Union[None, str, "os.PathLike[str]"] = None,
) -> Any:
    """The leaderboard of finished runs, as ``dupstream leaderboard`` computes it: the latest
    run of each experiment under ``directories`` whose name starts with ``prefix`` (or the
    runs a ``canonical.toml`` names). One row per board, family and point, as the report's
    ``board-N.csv``: ``kind`` is ``column`` (the family's entry in a memory column, with its
    ``column_bits_per_element`` and ``place``) or ``front`` (a point of its front); then the
    entry's fields (``member``, ``config``, ``setting``, ``run_nominal_bits``, ``held_bits``,
    ``bits_per_element``, ``error_pct``, ``ci95_pct``, ``fpr_pct``, ``fnr_pct``,
    ``tuning_error_pct``, ``ns_per_element``, ...) after the board's (``id``, ``experiment``,
    ``stream``, ``track``, ``real``, ``scale``, ``n``, ``window``, ...)."""
    if isinstance(directories, (str, os.PathLike)):
        dirs = [os.fspath(directories)]
    else:
        dirs = [os.fspath(d) for d in directories]
    boards = json.loads(
        _dupstream._leaderboard_json(dirs, prefix, None if canonical is None else os.fspath(canonical))
    )
    board_keys = [
        "id", "experiment", "stream", "track", "real", "scale", "n", "window",
        "window_seconds", "warmup", "tuning_seed", "per_element", "unit",
    ]
    rows: List[Dict[str, Any]] = []
    for b in boards:
        for r in b["rows"]:
            points: List[Any] = [
                ("column", c["bits_per_element"], p, e)
                for c, e, p in zip(b["columns"], r["cells"], r["places"])
            ] + [("front", None, None, e) for e in r["front"]]
            for kind, col, place, e in points:
                if e is None:
                    continue
                row: Dict[str, Any] = {k: b.get(k) for k in board_keys}
                row.update(family=r["family"], kind=kind, column_bits_per_element=col, place=place)
                row.update({k: v for k, v in e.items() if k != "errors_pct"})
                rows.append(row)
    keys: List[str] = []
    for row in rows:
        keys.extend(k for k in row if k not in keys)
    cols: Dict[str, List[Any]] = {k: [row.get(k) for row in rows] for k in keys}
    return _frame(cols)
