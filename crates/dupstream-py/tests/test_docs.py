"""The README's Python example runs, and the package's public names are typed and documented."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import dupstream

README = Path(__file__).resolve().parents[3] / "README.md"


def test_the_readmes_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    if not README.is_file():
        pytest.skip("not in a clone of the repository")
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, "the README has one Python example"
    assert len(blocks[0].strip().splitlines()) <= 6
    assert "pip install ./crates/dupstream-py" in text
    exec(compile(blocks[0], "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "[False False  True]" in out and "0.4" in out


def test_every_public_name_has_a_docstring() -> None:
    for name in dupstream.__all__:
        obj = getattr(dupstream, name)
        if name == "__version__":
            assert isinstance(obj, str)
            continue
        assert (inspect.getdoc(obj) or "").strip(), name


def test_the_stubs_and_the_marker_ship() -> None:
    pkg = Path(dupstream.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "_dupstream.pyi").is_file()
