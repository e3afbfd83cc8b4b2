"""Streams, truth, score, run, read_run, read_leaderboard; Python's verdicts beside the runner's."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

import dupstream

REPO = Path(__file__).resolve().parents[3]
MEMORY = "64KB"
CHECKPOINTS = 16


def one_set_per_structure() -> List[Dict[str, Any]]:
    sets: List[Dict[str, Any]] = []
    for name in dupstream.structures():
        s = next(dict(p) for p in dupstream.parameter_sets() if p["name"] == name)
        sets.append(s)
    return sets


def column(t: Any, name: str) -> List[Any]:
    v = t[name]
    return list(v.tolist() if hasattr(v, "tolist") else v)


def rows_of(t: Any, label: str) -> Dict[str, List[Any]]:
    labels = column(t, "label")
    idx = [i for i, x in enumerate(labels) if x == label]
    return {c: [column(t, c)[i] for i in idx] for c in (t.columns if hasattr(t, "columns") else t.keys())}


# --- streams and truth ------------------------------------------------------------------


def test_stream_is_deterministic_and_as_run() -> None:
    a = dupstream.stream(kind="uniform", n=10_000, distinct_fraction=0.5, seed=3)
    b = dupstream.stream(kind="uniform", n=10_000, distinct_fraction=0.5, seed=3)
    c = dupstream.stream(kind="uniform", n=10_000, distinct_fraction=0.5, seed=4)
    assert a.keys.dtype == np.uint64 and len(a) == 10_000 and a.times is None
    assert np.array_equal(a.keys, b.keys) and not np.array_equal(a.keys, c.keys)
    assert np.array_equal(np.asarray(a), a.keys)
    assert a.label.startswith("uniform") and a.seed == 3
    distinct = len(np.unique(a.keys)) / len(a)
    assert abs(distinct - 0.5) < 0.03
    z = dupstream.stream(kind="zipf", n=5000, universe=1000, s=1.1, seed=1)
    assert len(z) == 5000
    t = dupstream.stream(kind="uniform", n=2000, universe=500, seed=1, time={"process": "poisson", "rate": 100.0})
    assert t.times is not None and t.times.dtype == np.float64 and len(t.times) == 2000
    assert np.all(np.diff(t.times) >= 0)


def test_stream_errors() -> None:
    with pytest.raises(ValueError, match="kind"):
        dupstream.stream(kind="nope", n=10)
    with pytest.raises(ValueError, match="dupstream.stream"):
        dupstream.stream(kind="uniform", n=100)  # neither universe nor distinct_fraction
    with pytest.raises(ValueError, match="not a list"):
        dupstream.stream(kind="uniform", n=[10, 20], universe=5)


def test_truth_since_start_windowed_and_timed() -> None:
    k = np.array([1, 2, 1, 3, 2, 1, 1], dtype=np.uint64)
    assert dupstream.truth(k).labels.tolist() == [False, False, True, False, True, True, True]
    w = dupstream.truth(k, window=2)
    assert w.labels.tolist() == [False, False, True, False, False, False, True]
    assert w.window == 2 and w.duplicates == 2
    t = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 10.0, 10.5])
    ts = dupstream.truth(k, window=2.5, times=t)
    assert ts.labels.tolist() == [False, False, True, False, False, False, True]
    assert ts.window_seconds == 2.5 and ts.window == 1  # round(6 * 2.5 / 10.5)
    assert dupstream.truth(["x", "y", "x"]).labels.tolist() == [False, False, True]
    s = dupstream.stream(kind="uniform", n=3000, universe=100, seed=1, time={"process": "poisson", "rate": 10.0})
    assert len(dupstream.truth(s, window=5.0).labels) == 3000
    with pytest.raises(ValueError, match="needs times"):
        dupstream.truth(k, window=2.5)
    with pytest.raises(ValueError, match="at least 1"):
        dupstream.truth(k, window=0)
    with pytest.raises(TypeError, match="uint64"):
        dupstream.truth(np.arange(5))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        dupstream.truth(k, window="3")  # type: ignore[arg-type]


# --- score ---------------------------------------------------------------------------------


class PySet:
    """An exact structure in Python: what a notebook's idea looks like."""

    name = "pyset"

    def __init__(self) -> None:
        self.seen: set[int] = set()

    def step(self, keys: np.ndarray) -> np.ndarray:
        out = np.empty(len(keys), dtype=np.bool_)
        for i, key in enumerate(keys.tolist()):
            out[i] = key in self.seen
            self.seen.add(key)
        return out


def test_score_an_exact_python_structure_and_a_callable() -> None:
    s = dupstream.stream(kind="uniform", n=20_000, distinct_fraction=0.5, seed=1)
    t = dupstream.truth(s)
    rows = rows_of(dupstream.score(PySet(), s, t, checkpoints=4), "pyset")
    assert rows["position"] == [5000, 10000, 15000, 20000]
    assert rows["fp"] == [0] * 4 and rows["fn"] == [0] * 4
    assert rows["fpr"] == [0.0] * 4 and rows["fnr"] == [0.0] * 4
    assert rows["unseen"][-1] == len(np.unique(s.keys))
    never = dupstream.score(lambda k: np.zeros(len(k), dtype=bool), s, t, label="never", batch=999)
    r = rows_of(never, "never")
    assert r["fnr"][-1] == 1.0 and r["fpr"][-1] == 0.0 and len(r["position"]) == 10
    w = dupstream.score(PySet(), s, dupstream.truth(s, window=100), checkpoints=2)
    r = rows_of(w, "pyset")
    assert r["w_fn"] == [0, 0] and r["w_fp"][-1] > 0 and r["window"] == [100, 100]
    with pytest.raises(ValueError, match="verdicts"):
        dupstream.score(lambda k: np.zeros(3, dtype=bool), s, t)
    with pytest.raises(TypeError, match="step"):
        dupstream.score(object(), s, t)
    with pytest.raises(ValueError, match="labels"):
        dupstream.score(PySet(), s, dupstream.truth(s.keys[:10]))


def test_tables_are_dicts_of_columns_without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUPSTREAM_NO_PANDAS", "1")
    s = dupstream.stream(kind="uniform", n=1000, universe=300, seed=1)
    t = dupstream.score(PySet(), s, checkpoints=2)
    assert isinstance(t, dupstream.Table) and isinstance(t, dict)
    assert t["position"] == [500, 1000] and t["fp"] == [0, 0]


def test_tables_are_dataframes_with_pandas() -> None:
    pd = pytest.importorskip("pandas")
    s = dupstream.stream(kind="uniform", n=1000, universe=300, seed=1)
    assert isinstance(dupstream.score(PySet(), s), pd.DataFrame)


# --- the runner and Python, verdict for verdict ----------------------------------------------


def experiment(tmp: Path, stream: Dict[str, Any], metrics: Dict[str, Any]) -> Dict[str, Any]:
    algs = []
    for s in one_set_per_structure():
        if "window_seconds" in s and "window_seconds" in metrics:
            # A structure's own time window must be the one its verdicts are scored in.
            s = {**s, "window_seconds": metrics["window_seconds"]}
        algs.append({**s, "label": s["name"]})
    return {
        "name": "python-identity",
        "description": "every registered structure, one parameter set each",
        "stream": stream,
        "grid": {"memory": [MEMORY], "seeds": [7]},
        "algorithm": algs,
        "metrics": {"checkpoints": CHECKPOINTS, **metrics},
        "output": {"charts": []},
    }


@pytest.mark.parametrize("timed", [False, True], ids=["count-window", "time-window"])
def test_python_verdicts_equal_the_runners_for_every_structure(tmp_path: Path, timed: bool) -> None:
    stream: Dict[str, Any] = {"kind": "uniform", "n": 30_000, "distinct_fraction": 0.5}
    metrics: Dict[str, Any] = {"window": 2000}
    if timed:
        stream["time"] = {"process": "poisson", "rate": 1000.0}
        metrics = {"window_seconds": 2.0}
    exp = experiment(tmp_path, stream, metrics)
    raw = dupstream.run(exp, threads=2, out=tmp_path / "run")
    assert Path(raw.attrs["results_dir"]) == tmp_path / "run"
    assert (tmp_path / "run" / "manifest.json").is_file()
    s = dupstream.stream(seed=7, **stream)
    since = dupstream.truth(s)
    window = dupstream.truth(s, window=2.0) if timed else dupstream.truth(s, window=2000)
    names = dupstream.structures()
    assert sorted(set(column(raw, "algorithm"))) == sorted(names)
    counted = ["position", "tp", "fp", "tn", "fn", "fpr", "fnr", "w_duplicates", "w_fp", "w_fn", "w_fpr", "w_fnr", "window", "memory_bits"]
    for alg in exp["algorithm"]:
        params = {k: v for k, v in alg.items() if k not in ("name", "label")}
        f = dupstream.Filter(alg["name"], memory=MEMORY, seed=7, **params)
        ours = rows_of(dupstream.score(f, s, window, checkpoints=CHECKPOINTS), alg["name"])
        theirs = rows_of(raw, alg["label"])
        for c in counted:
            assert ours[c] == theirs[c], f"{alg['name']}: {c}"
        written = theirs["params"][0]
        assert (written if isinstance(written, str) else "") == f.params_text, alg["name"]
        assert ours["tp"][-1] + ours["fn"][-1] == since.duplicates


def test_run_from_a_file_read_run_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "small.toml"
    f.write_text(
        'name = "small"\ndescription = "d"\n[stream]\nkind = "uniform"\nn = 5000\ndistinct_fraction = 0.5\n'
        '[grid]\nmemory = ["1KB", "4KB"]\nseeds = [1, 2]\n[[algorithm]]\nname = "bsbf"\nk = 2\n'
        '[[algorithm]]\nname = "sbf"\nmax = 1\nk = 2\np = 4\n'
    )
    raw = dupstream.run(f, threads=1, results_root=tmp_path / "results")
    d = Path(raw.attrs["results_dir"])
    assert d.parent == tmp_path / "results" / "small"
    assert len(column(raw, "cell")) == 2 * 2 * 2 * 10
    again = dupstream.read_run(d)
    assert column(again, "fpr") == column(raw, "fpr")
    cells = dupstream.read_run(d, "cells")
    assert len(column(cells, "ns_per_element")) == 8
    assert len(column(dupstream.read_run(d, "streams"), "distinct")) == 2
    with pytest.raises(ValueError, match="no such results directory"):
        dupstream.read_run(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="file must be one of"):
        dupstream.read_run(d, "nope")
    with pytest.raises(ValueError, match="already holds a finished run"):
        dupstream.run(f, out=d)
    bad = tmp_path / "bad.toml"
    bad.write_text(f.read_text().replace('name = "bsbf"', 'name = "nope"'))
    with pytest.raises(ValueError, match=r"bad.toml:\d+: key `name`: unknown algorithm `nope`"):
        dupstream.run(bad)
    with pytest.raises(ValueError, match="scale"):
        dupstream.run(f, scale=0)
    with pytest.raises(ValueError, match="cannot read|no such|not a regular"):
        dupstream.run(tmp_path / "missing.toml")


def test_read_run_without_pandas_types_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUPSTREAM_NO_PANDAS", "1")
    exp = {
        "name": "tiny",
        "description": "d",
        "stream": {"kind": "uniform", "n": 1000, "universe": 400},
        "grid": {"memory": ["1KB"]},
        "algorithm": [{"name": "bloom", "k": 2}],
    }
    monkeypatch.chdir(tmp_path)
    t = dupstream.run(exp)
    assert isinstance(t, dupstream.Table)
    assert all(isinstance(x, int) for x in t["tp"])
    assert all(isinstance(x, float) for x in t["fpr"] if x is not None)
    assert t["algorithm"] == ["bloom"] * 10
    assert t.attrs["results_dir"].startswith("results/tiny/")
    assert not any(p.name.startswith(".dupstream-") for p in tmp_path.iterdir())


def test_read_leaderboard_of_the_committed_runs() -> None:
    canonical = REPO / "results" / "canonical.toml"
    if not canonical.is_file():
        pytest.skip("not in a clone of the repository")
    board = dupstream.read_leaderboard(REPO / "results", canonical=canonical)
    families = set(column(board, "family"))
    assert {"BSBF", "SBF", "Bloom"} <= families
    for c in ("id", "experiment", "track", "kind", "held_bits", "error_pct", "fpr_pct", "place", "setting"):
        assert c in (board.columns if hasattr(board, "columns") else board), c
    assert set(column(board, "track")) == {"since_start", "windowed"}
    assert set(column(board, "kind")) == {"column", "front"}
    with pytest.raises(ValueError, match="no such directory"):
        dupstream.read_leaderboard(REPO / "nowhere")


@pytest.mark.parametrize(
    "name, params",
    [("sbf", {"k": "two"}), ("bsbf", {"q": 3}), ("sbf", {"decrement": "sideways"}), ("nope", {}), ("bloom", {"k": 0})],
)
def test_filter_errors_are_the_command_lines(tmp_path: Path, name: str, params: Dict[str, Any]) -> None:
    exp = {
        "name": "bad",
        "description": "d",
        "stream": {"kind": "uniform", "n": 1000, "universe": 100},
        "grid": {"memory": ["1KB"]},
        "algorithm": [{"name": name, **params}],
    }
    f = tmp_path / "bad.toml"
    f.write_text(dupstream._dupstream._toml_text(exp))
    with pytest.raises(ValueError) as cli:
        dupstream.run(f, out=tmp_path / "out")
    with pytest.raises(ValueError) as py:
        dupstream.Filter(name, memory="1KB", **params)
    where_cli, what_cli = str(cli.value).split(": key ", 1)
    where_py, what_py = str(py.value).split(": key ", 1)
    assert where_py == "dupstream.Filter" and re.search(r"bad\.toml:\d+$", where_cli)
    assert what_py == what_cli


def test_a_url_list_gives_the_verdicts_of_a_replay(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    urls = [f"/images/{int(i)}.gif" for i in rng.integers(0, 1500, size=6000)]
    log = tmp_path / "urls.txt"
    log.write_text("\n".join(urls) + "\n")
    exp = {
        "name": "replay",
        "description": "a URL list",
        "stream": {"kind": "replay", "path": str(log), "format": "lines"},
        "grid": {"memory": ["1KB"], "seeds": [3]},
        "algorithm": [{"name": "bsbf", "k": 2}, {"name": "sbf", "max": 1, "k": 2, "p": 4}],
        "metrics": {"checkpoints": 1},
    }
    raw = dupstream.run(exp, out=tmp_path / "run")
    replayed = dupstream.stream(kind="replay", path=str(log), format="lines", seed=3)
    assert np.array_equal(replayed.keys, dupstream.fingerprint(urls))
    labels = dupstream.truth(urls).labels
    for alg, params in [("bsbf", {"k": 2}), ("sbf", {"max": 1, "k": 2, "p": 4})]:
        v = dupstream.Filter(alg, memory="1KB", seed=3, **params).step(urls)
        theirs = rows_of(raw, alg)
        assert int(np.count_nonzero(v & labels)) == theirs["tp"][-1]
        assert int(np.count_nonzero(v & ~labels)) == theirs["fp"][-1]
        assert int(np.count_nonzero(~v & labels)) == theirs["fn"][-1]
