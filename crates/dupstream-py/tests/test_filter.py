"""dupstream.Filter: construction through the runner's parser, the batch path, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import dupstream


def keys(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n // 2, size=n, dtype=np.uint64)


def test_every_registered_structure_builds_and_steps() -> None:
    names = dupstream.structures()
    assert "bloom" in names and "bsbf" in names and "sbf" in names and len(names) >= 25
    sets = dupstream.parameter_sets()
    k = keys(5000)
    for name in names:
        params = next(dict(s) for s in sets if s["name"] == name)
        del params["name"]
        f = dupstream.Filter(name, memory="64KB", seed=3, **params)
        v = f.step(k)
        assert v.dtype == np.bool_ and v.shape == k.shape, name
        assert 0 < f.memory_bits <= f.budget_bits == 64 * 1024 * 8, name
        assert f.name == name
        assert isinstance(f.params, dict)
        assert repr(f).startswith(f"Filter({name!r}, memory='64KB', seed=3"), repr(f)


def test_step_is_the_same_in_one_call_or_many_and_reset_starts_over() -> None:
    k = keys(20_000)
    a = dupstream.Filter("bsbf", memory="16KB", k=2, seed=1)
    whole = a.step(k)
    b = dupstream.Filter("bsbf", memory="16KB", k=2, seed=1)
    parts = np.concatenate([b.step(k[i : i + 777]) for i in range(0, len(k), 777)])
    assert np.array_equal(whole, parts)
    a.reset()
    assert np.array_equal(a.step(k), whole)
    # Another seed, other verdicts; a repeat is always caught by the exact baseline.
    c = dupstream.Filter("bsbf", memory="16KB", k=2, seed=2)
    assert not np.array_equal(c.step(k), whole)
    e = dupstream.Filter("exact", memory="1MB")
    assert e.step(np.array([5, 6, 5, 5], dtype=np.uint64)).tolist() == [False, False, True, True]


def test_properties() -> None:
    f = dupstream.Filter("bsbf", memory="64MB", k=2, seed=1)
    assert f.budget_bits == 64 * 2**23
    assert f.memory_bits <= f.budget_bits
    assert f.params["k"] == 2
    assert "k=2" in f.params_text
    assert f.cells_per_element is not None and f.cells_per_element > 0
    kind, value = f.occupancy
    assert isinstance(kind, str) and 0.0 <= value <= 1.0
    assert f.seed == 1 and f.hash_seed != f.filter_seed
    s = dupstream.Filter("sbf", memory=1 << 20, max=1, k=2, p=4)
    assert s.params["p"] == 4 and s.budget_bits == 1 << 20
    assert "memory='1048576'" in repr(s)


def test_unknown_name_and_bad_parameters_raise_value_error_with_the_cli_message() -> None:
    with pytest.raises(ValueError, match=r"unknown algorithm `nope` \(known: exact, bloom"):
        dupstream.Filter("nope", memory="1MB")
    with pytest.raises(ValueError, match="unknown field `q`"):
        dupstream.Filter("bsbf", memory="1MB", q=3)
    with pytest.raises(ValueError, match="key `k`"):
        dupstream.Filter("bsbf", memory="1MB", k="two")
    with pytest.raises(ValueError, match="not a list"):
        dupstream.Filter("bsbf", memory="1MB", k=[1, 2])
    with pytest.raises(ValueError, match="not a structure parameter"):
        dupstream.Filter("bsbf", memory="1MB", label="x")
    # The message has one line.
    with pytest.raises(ValueError) as e:
        dupstream.Filter("sbf", memory="1MB", decrement="sideways")
    assert "\n" not in str(e.value) and str(e.value).startswith("dupstream.Filter: key `decrement`")


def test_negative_zero_and_malformed_memory() -> None:
    with pytest.raises(ValueError, match="out of range"):
        dupstream.Filter("bloom", memory=-8)
    with pytest.raises(ValueError, match="out of range"):
        dupstream.Filter("bloom", memory="-1MB")
    with pytest.raises(ValueError, match="out of range"):
        dupstream.Filter("bloom", memory=0)
    with pytest.raises(ValueError, match="unknown unit"):
        dupstream.Filter("bloom", memory="64 parsecs")
    with pytest.raises(TypeError, match="memory must be"):
        dupstream.Filter("bloom", memory=1.5)  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        dupstream.Filter("bloom", memory="1MB", seed=-1)


def test_wrong_dtype_and_shape() -> None:
    f = dupstream.Filter("bloom", memory="1MB", k=2)
    with pytest.raises(TypeError, match="uint64 array, not int64"):
        f.step(np.arange(10))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="uint64"):
        f.step(np.arange(10, dtype=np.float64))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one-dimensional"):
        f.step(np.zeros((2, 2), dtype=np.uint64))
    with pytest.raises(TypeError, match="str or bytes"):
        f.step([1, 2, 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not one str"):
        f.step("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        f.step(None)  # type: ignore[arg-type]
    assert f.step(np.array([], dtype=np.uint64)).shape == (0,)


def test_non_contiguous_arrays_are_read_as_their_values() -> None:
    k = keys(10_000)
    strided = np.repeat(k, 2)[::2]
    assert not strided.flags["C_CONTIGUOUS"] and np.array_equal(strided, k)
    a = dupstream.Filter("bsbf", memory="8KB", k=2).step(strided)
    b = dupstream.Filter("bsbf", memory="8KB", k=2).step(np.ascontiguousarray(k))
    assert np.array_equal(a, b)
    # Read-only and big-endian-free views work too.
    k.setflags(write=False)
    assert np.array_equal(dupstream.Filter("bsbf", memory="8KB", k=2).step(k), b)


def test_step_at_passes_times() -> None:
    n = 4000
    k = np.arange(n, dtype=np.uint64) % 100
    t = np.arange(n, dtype=np.float64) / 1000.0
    f = dupstream.Filter("tlbf", memory="64KB", k=4, l=3, window_seconds=0.05, rate=1000.0)
    v = f.step_at(k, t)
    # A key repeats every 0.1 s, past the 0.05 s window: mostly reported unseen after the start.
    assert v[200:].mean() < 0.2
    g = dupstream.Filter("tlbf", memory="64KB", k=4, l=3, window_seconds=1.0, rate=1000.0)
    assert g.step_at(k, t)[200:].mean() > 0.8
    with pytest.raises(ValueError, match="one time per key"):
        f.step_at(k, t[:-1])
    with pytest.raises(TypeError, match="float64"):
        f.step_at(k, t.astype(np.float32))  # type: ignore[arg-type]


def test_str_and_bytes_keys_are_fingerprinted_as_a_replay() -> None:
    urls = ["/a", "/b", "/a", "/ü", "/b"]
    fp = dupstream.fingerprint(urls)
    assert fp.dtype == np.uint64 and fp[0] == fp[2] and fp[0] != fp[1]
    assert np.array_equal(dupstream.fingerprint([u.encode() for u in urls]), fp)
    assert not np.array_equal(dupstream.fingerprint(urls, seed=9), fp)
    a = dupstream.Filter("exact", memory="1MB").step(urls)
    assert a.tolist() == [False, False, True, False, True]
    b = dupstream.Filter("bsbf", memory="1KB", k=2).step(urls)
    c = dupstream.Filter("bsbf", memory="1KB", k=2).step(fp)
    assert np.array_equal(b, c)
    with pytest.raises(TypeError):
        dupstream.fingerprint(np.arange(3, dtype=np.uint64))  # type: ignore[arg-type]


def test_hash_keys_is_the_seeded_key_hash() -> None:
    k = np.arange(5, dtype=np.uint64)
    assert not np.array_equal(dupstream.hash_keys(k, seed=1), dupstream.hash_keys(k, seed=2))
    assert dupstream.hash_keys(k).dtype == np.uint64


def test_the_gil_is_released_while_stepping() -> None:
    import threading
    import time

    k = keys(1 << 22)
    f = dupstream.Filter("bloom", memory="64MB", k=2)
    ticks = 0
    stop = False

    def tick() -> None:
        nonlocal ticks
        while not stop:
            ticks += 1
            time.sleep(0)

    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.01)
    before = ticks
    f.step(k)
    after = ticks
    stop = True
    t.join()
    assert after > before + 10, "the other thread ran while step ran"
