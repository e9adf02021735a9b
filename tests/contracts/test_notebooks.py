"""The notebooks run end to end (small sizes) and are committed without outputs.

Each notebook's cell tagged ``parameters`` is replaced by small sizes (and the reduced
six-box game, ``yahtzee-6box``, where the notebook's checks hold on any rules) before it
is executed with nbclient; the notebooks' own assertions (exact mean = simulated mean
within 5 standard errors, regret = optimal - strategy exactly) then run too.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

SMALL = {
    "benchmark_your_heuristic.ipynb": 'GAMES = 3_000\nRULES = "yahtzee-6box"\nWEIGHTS = [0.0, 1.0]',
    "rank_strategies.ipynb": (
        'GAMES = 2_000\nRULES = "yahtzee-6box"\n'
        'STRATEGIES = ["greedy", "optimal"]\nDELTA = 1.0\nALPHA = 0.05'
    ),
    "train_an_agent.ipynb": (
        'RULES = "2-yatzy"\nITERATIONS = 2\nPOPULATION = 6\nELITES = 2\nEPISODES = 64\n'
        "GAMES = 2_000"
    ),
}


def _load(name: str):
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def test_every_notebook_has_small_parameters():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(SMALL)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_is_committed_without_outputs(name):
    code = [cell for cell in _load(name).cells if cell.cell_type == "code"]
    assert code, f"{name} has no code cell"
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, name


def test_the_no_outputs_check_fails_on_an_empty_notebook(monkeypatch):
    monkeypatch.setitem(globals(), "_load", lambda name: nbformat.v4.new_notebook())
    with pytest.raises(AssertionError, match="no code cell"):
        test_notebook_is_committed_without_outputs(sorted(SMALL)[0])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs(name, tmp_path):
    book = _load(name)
    params = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "one cell tagged 'parameters'"
    params[0].source = SMALL[name]
    NotebookClient(
        book, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    errors = [
        o
        for c in book.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors
    images = sum(
        "image/png" in o.get("data", {})
        for c in book.cells
        if c.cell_type == "code"
        for o in c.outputs
    )
    assert images >= 2  # the figures were drawn
