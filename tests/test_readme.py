"""The README's Python examples run as written, and its test command is CI's."""

import re
from pathlib import Path

import numpy as np

from yahtzee_sim import simulate

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_examples_run():
    ns: dict = {}
    for block in re.findall(r"```python\n(.*?)```", README, flags=re.S):
        if "tcp://" in block:  # needs a running dask scheduler (tested in test_scaleout)
            continue
        exec(compile(block, "README.md", "exec"), ns)
    res = simulate(ns["ChanceLover"](), 200, seed=1)
    assert (res.category_scores[:, -1] > 0).all()
    assert np.all(res.filled_turn[:, -1] == 1)  # Chance first


def test_ci_runs_the_readme_test_command():
    quick = re.search(r"```bash\n(.*?)```", README, flags=re.S).group(1)
    test_cmd = quick.strip().splitlines()[1].split("#")[0].strip()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd in [line.strip() for line in ci]
