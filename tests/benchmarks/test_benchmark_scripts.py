"""The benchmark scripts (``benchmarks/*.py``) run without numba: none imports it or sets
one of its environment variables (``NUMBA_CACHE_DIR``, ``NUMBA_NUM_THREADS``, ...); the
compiled core's threads are set through :mod:`yahtzee_sim.engine.threads`.
"""

from __future__ import annotations

import ast
from pathlib import Path

SCRIPTS = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py"))


def numba_uses(path: Path) -> list[str]:
    """Where script ``path`` imports numba or names one of its variables."""
    text = path.read_text()
    out = [f"{path.name}: NUMBA_ variable" for line in text.splitlines() if "NUMBA_" in line]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "numba" for name in names):
            out.append(f"{path.name}:{node.lineno}: imports numba")
    return out


def test_no_benchmark_script_uses_numba():
    assert len(SCRIPTS) > 10
    assert [use for path in SCRIPTS for use in numba_uses(path)] == []


def test_the_check_finds_a_numba_import(tmp_path):
    script = tmp_path / "bench_x.py"
    script.write_text("import os\nfrom numba.core import event\nos.environ['NUMBA_CACHE_DIR']\n")
    assert numba_uses(script) == ["bench_x.py: NUMBA_ variable", "bench_x.py:2: imports numba"]
