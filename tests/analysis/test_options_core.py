"""The compiled kernels of the decision options (:mod:`yahtzee_sim._core.options`,
``analysis/decisions/saved_options_kernels``) and of the score-dependent laws
(:mod:`yahtzee_sim._core.score_dependent_law`): the same option values and exact laws,
byte for byte, as the numba kernels they replaced (digests recorded by
``tools/options_digests.py`` before the port), whatever the number of threads, and clear
errors for arguments they do not take."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.dataset import grade_decisions
from yahtzee_sim.engine.threads import threads_limited

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "options_digests", ROOT / "tools" / "options_digests.py"
)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)
DIGESTS = json.loads(tool.OUT.read_text())


@pytest.mark.parametrize("case", tool.DATASETS, ids=lambda c: tool.dataset_key(*c))
def test_decision_datasets_are_the_numba_kernels_byte_for_byte(case):
    assert tool.dataset_digests(*case) == DIGESTS["datasets"][tool.dataset_key(*case)]


@pytest.mark.parametrize("name", tool.MIXED)
def test_options_of_mixed_decisions_are_the_numba_kernels_byte_for_byte(name):
    rules = tool.game(name)
    got = tool.grade_digests(grade_decisions(rules, tool.mixed_decisions(rules)))
    assert got == DIGESTS["mixed"][name]


@pytest.mark.parametrize("name", tool.SAVED_BOXES)
def test_saved_box_values_are_the_numba_kernels_byte_for_byte(name):
    assert tool.saved_box_digest(name) == DIGESTS["saved_boxes"][name]


@pytest.mark.parametrize("case", tool.LAWS, ids="/".join)
def test_score_dependent_laws_are_the_numba_kernels_byte_for_byte(case):
    assert tool.law_digests(*case) == DIGESTS["laws"]["/".join(case)]


@pytest.mark.parametrize("name", ["yahtzee", "small-limit:2:forced"])
def test_the_options_do_not_depend_on_the_number_of_threads(name):
    rules = tool.game(name)
    rec = tool.mixed_decisions(rules, seed=11)
    runs = []
    for threads in (1, 2):
        with threads_limited(threads):
            runs.append(grade_decisions(rules, rec))
    for k, v in runs[0].items():
        assert np.array_equal(v, runs[1][k], equal_nan=True), k
