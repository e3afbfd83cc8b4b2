"""Type stubs of the extension module (Rust, PyO3) behind :mod:`dupstream`."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Keys = Union[npt.NDArray[np.uint64], Sequence[str], Sequence[bytes]]

class Filter:
    """A duplicate-detection structure of the project's registry, by name, with the
    parameters of an experiment file's ``[[algorithm]]`` table as keyword arguments::

        f = dupstream.Filter("bsbf", memory="64MB", k=2, seed=1)

    It is built as a run builds the cell of that structure at that memory size for replicate
    seed ``seed``: the same budget (``memory``: a size with its unit as the files write it, or
    a number of bits), the same structure seed, and the same key hash, so that ``step`` on a
    stream's keys gives the verdicts the runner counts in ``raw.csv``. ``memory`` bounds the
    structure's state, as ``[grid] budget = "state"`` does; to rebuild a cell of a run whose
    budget bounds what is held (``budget = "held"``, the leaderboard's), pass its
    ``memory_bits_budget`` from ``raw.csv`` as the number of bits. A bad name or parameter
    raises ``ValueError`` with the command line's one-line message; a wrong type of argument,
    ``TypeError``.

    ``fingerprint_seed`` is the seed with which ``str``/``bytes`` keys are fingerprinted (a
    replay's ``fingerprint_seed``, 0 by default)."""

    def __init__(
        self,
        name: str,
        memory: Union[str, int],
        seed: int = 1,
        fingerprint_seed: int = 0,
        **params: Any,
    ) -> None: ...
    def step(self, keys: _Keys) -> npt.NDArray[np.bool_]:
        """Verdicts for ``keys``, in order (``True``: reported a duplicate), updating the
        structure as it goes. ``keys`` is a one-dimensional numpy ``uint64`` array (a
        non-contiguous one is copied first), or a sequence of ``str``/``bytes`` keys,
        fingerprinted as a replay fingerprints its lines. Each key is hashed with the seeded
        key hash and the structure's batch path runs over them with the GIL released."""
    def step_at(self, keys: _Keys, times: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """As :meth:`step`, with each key's arrival time (seconds, non-decreasing, one per
        key): a structure with a clock (the time-window ones) ages its state by them, the
        others ignore them."""
    def reset(self) -> None:
        """Empties the structure: a fresh one with the same parameters and seeds."""
    def _rust_batch_secs(self, keys: npt.NDArray[np.uint64], batch: int) -> float: ...
    @property
    def name(self) -> str:
        """The structure's registry name."""
    @property
    def memory(self) -> str:
        """The memory size as given."""
    @property
    def budget_bits(self) -> int:
        """The budget the structure was built with, in bits (``raw.csv``'s
        ``memory_bits_budget``)."""
    @property
    def memory_bits(self) -> int:
        """The bits the structure uses (at most the budget; ``raw.csv``'s ``memory_bits``)."""
    @property
    def seed(self) -> int:
        """The replicate seed."""
    @property
    def hash_seed(self) -> int:
        """The key-hash seed derived from the replicate seed."""
    @property
    def filter_seed(self) -> int:
        """The structure's own seed, derived from the replicate seed, its name and memory."""
    @property
    def fingerprint_seed(self) -> int:
        """The seed ``str``/``bytes`` keys are fingerprinted with."""
    @property
    def cells_per_element(self) -> Optional[float]:
        """Random memory cells an element touches (the cost model's count)."""
    @property
    def params(self) -> Dict[str, Union[int, float, bool, str, None]]:
        """The structure's parameters, given and derived (``None``: left unset)."""
    @property
    def params_text(self) -> str:
        """The parameters as ``raw.csv``'s ``params`` column writes them (``k=v;…``)."""
    @property
    def occupancy(self) -> Tuple[str, float]:
        """``(kind, value)``: what the occupancy measures and its value now."""

def structures() -> List[str]:
    """The name of every registered structure."""

def parameter_sets() -> List[Dict[str, Any]]:
    """Every parameter set the project's registry-wide tests use, as ``[[algorithm]]``
    tables (``{"name": "bsbf", "k": 2}``): at least one per registered structure."""

def fingerprint(keys: Union[Sequence[str], Sequence[bytes]], seed: int = 0) -> npt.NDArray[np.uint64]:
    """64-bit fingerprints of ``str`` (UTF-8) or ``bytes`` keys: XXH3-64 with ``seed``, as a
    replay with ``fingerprint_seed = seed`` computes them."""

def hash_keys(keys: _Keys, seed: int = 1) -> npt.NDArray[np.uint64]:
    """The seeded key hash a structure receives for ``keys`` under replicate seed ``seed``."""

def _stream(
    seed: int, params: Mapping[str, Any]
) -> Tuple[npt.NDArray[np.uint64], Optional[npt.NDArray[np.float64]], str]: ...
def _truth(
    keys: _Keys,
    window: Optional[int] = None,
    seconds: Optional[float] = None,
    times: Optional[npt.NDArray[np.float64]] = None,
) -> npt.NDArray[np.bool_]: ...
def _run(
    path: str,
    scale: Optional[int] = None,
    threads: Optional[int] = None,
    out: Optional[str] = None,
    results_root: str = "results",
    resume: bool = False,
    quiet: bool = True,
) -> str: ...
def _toml_text(d: Mapping[str, Any]) -> str: ...
def _leaderboard_json(
    dirs: List[str], prefix: Optional[str] = None, canonical: Optional[str] = None
) -> str: ...
