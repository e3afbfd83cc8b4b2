#!/usr/bin/env bash
# The Python package, as a user gets it: a fresh virtual environment, the package built from
# source with the README's command (`pip install ./crates/dupstream-py`, maturin from PyPI), then
# its tests (pytest: every public function, Python's verdicts beside the runner's for every
# registered structure), its types (mypy --strict on the package and the example), the README's
# Python example, the example script and the notebook (executed; it redraws its chart).
# Needs python3 (3.9 or newer) with venv and pip, and the Rust toolchain. `just py-test`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
start=$(date +%s)
venv="${DUPSTREAM_PY_VENV:-target/py-venv}"
python3 -m venv "$venv"
py="$PWD/$venv/bin/python"
pip() { "$py" -m pip --quiet --disable-pip-version-check "$@"; }
pip install --upgrade pip
pip install pytest numpy pandas matplotlib mypy nbconvert nbclient ipykernel
echo "py-test: building the package ($(( $(date +%s) - start )) s)"
pip install ./crates/dupstream-py
echo "py-test: built ($(( $(date +%s) - start )) s)"
cd crates/dupstream-py
# pytest exits 5 when it collects no test: `set -e` fails the script then, as on any failure.
"$py" -m pytest -q -p no:cacheprovider tests
"$py" -m mypy --strict --no-incremental python/dupstream examples/quickstart.py bench/bench.py
"$py" examples/quickstart.py
"$py" -m jupyter nbconvert --to notebook --execute examples/compare.ipynb --output-dir "$(mktemp -d)"
test -s examples/compare.png
echo "py-test: passed in $(( $(date +%s) - start )) s"
