"""Writes compare.ipynb from the cells below (outputs stripped): `python make_notebook.py`."""

import nbformat

md = nbformat.v4.new_markdown_cell
code = nbformat.v4.new_code_cell

cells = [
    md(
        "# A structure written in Python beside BSBF and SBF\n\n"
        "A duplicate detector of a few lines of Python, scored on the same stream and against the same "
        "exact truth as the project's BSBF (Bera et al.) and SBF (Deng & Rafiei), at equal memory. "
        "`dupstream.score` counts false positives and false negatives at checkpoints as the runner "
        "does (`raw.csv`'s columns), so the three land in one table and one chart."
    ),
    code(
        "import numpy as np\n"
        "import matplotlib\n"
        "matplotlib.use('Agg')\n"
        "import matplotlib.pyplot as plt\n"
        "import dupstream\n\n"
        "# 2^20 elements, 30 % of them distinct (Bera et al.'s uniform model), replicate seed 1.\n"
        "s = dupstream.stream(kind='uniform', n=1 << 20, distinct_fraction=0.3, seed=1)\n"
        "truth = dupstream.truth(s)\n"
        "len(s), truth.duplicates"
    ),
    md(
        "## The idea: a Bloom filter that starts over\n\n"
        "A plain Bloom filter fills up and then reports everything as a duplicate. This one clears "
        "itself when half of its bits are set: false positives stay low, at the price of forgetting "
        "(false negatives) after each reset. It hashes a batch at once with the project's key hash, "
        "then steps element by element in Python."
    ),
    code(
        "class ResettingBloom:\n"
        "    name = 'python resetting bloom'\n\n"
        "    def __init__(self, memory_bits: int, k: int = 2, seed: int = 1):\n"
        "        self.m, self.k, self.seed = memory_bits, k, seed\n"
        "        self.memory_bits = memory_bits\n"
        "        self.bits = bytearray(memory_bits // 8)\n"
        "        self.ones = 0\n\n"
        "    def step(self, keys: np.ndarray) -> np.ndarray:\n"
        "        h = dupstream.hash_keys(keys, seed=self.seed)\n"
        "        h1 = (h >> np.uint64(32)).astype(np.int64) % self.m\n"
        "        h2 = (h & np.uint64(0xFFFFFFFF)).astype(np.int64) | 1\n"
        "        out = np.empty(len(keys), dtype=bool)\n"
        "        bits, m, k = self.bits, self.m, self.k\n"
        "        for i, (a, b) in enumerate(zip(h1.tolist(), h2.tolist())):\n"
        "            seen = True\n"
        "            for j in range(k):\n"
        "                p = (a + j * b) % m\n"
        "                byte, mask = p >> 3, 1 << (p & 7)\n"
        "                if not bits[byte] & mask:\n"
        "                    seen = False\n"
        "                    bits[byte] |= mask\n"
        "                    self.ones += 1\n"
        "            out[i] = seen\n"
        "            if self.ones * 2 >= m:\n"
        "                bits[:] = bytes(len(bits))\n"
        "                self.ones = 0\n"
        "        return out"
    ),
    md("## Scored beside BSBF and SBF at four memory sizes"),
    code(
        "rows = []\n"
        "for kb in [8, 16, 32, 64]:\n"
        "    bits = kb * 8 * 1024\n"
        "    for f in [ResettingBloom(bits),\n"
        "              dupstream.Filter('bsbf', memory=f'{kb}KB', k=2, seed=1),\n"
        "              dupstream.Filter('sbf', memory=f'{kb}KB', max=1, k=2, p=4, seed=1)]:\n"
        "        t = dupstream.score(f, s, truth, checkpoints=1)\n"
        "        last = t.iloc[-1]\n"
        "        rows.append({'structure': f.name, 'memory_kb': kb, 'bits_per_distinct': last.bits_per_distinct,\n"
        "                     'fpr': last.fpr, 'fnr': last.fnr, 'error': last.fpr + last.fnr})\n"
        "import pandas as pd\n"
        "table = pd.DataFrame(rows)\n"
        "table.round(4)"
    ),
    code(
        "fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)\n"
        "for name, g in table.groupby('structure'):\n"
        "    ax.plot(g.bits_per_distinct, 100 * g.error, marker='o', label=name)\n"
        "ax.set_xscale('log', base=2)\n"
        "ax.set_xlabel('bits of memory per distinct element')\n"
        "ax.set_ylabel('FPR + FNR (%)')\n"
        "ax.set_title('2^20 uniform elements, 30 % distinct, seed 1')\n"
        "ax.grid(alpha=0.3)\n"
        "ax.legend()\n"
        "fig.tight_layout()\n"
        "fig.savefig('compare.png', metadata={'Software': None})\n"
        "table.pivot(index='memory_kb', columns='structure', values='error').round(4)"
    ),
    md(
        "The chart is `compare.png` beside this notebook. The same three rows come out of the runner "
        "for BSBF and SBF: `dupstream.run` on an experiment naming them gives `raw.csv` counts equal "
        "to `dupstream.score`'s (the package's tests check it for every registered structure)."
    ),
]

nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbformat.write(nb, "compare.ipynb")
