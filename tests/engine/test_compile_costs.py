"""The numba cache inspection: which kernels are missing, and the setup seconds of a set of
kernels (compiled when missing, loaded when cached)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from yahtzee_sim.engine import compile_costs

SOLVER = ("yahtzee_sim._core.solve", "solve_level")
OTHER = ("yahtzee_sim._kernels.regret", "level_regret")


def test_an_unknown_kernel_is_neither_missing_nor_cached():
    assert compile_costs.kernel_missing("yahtzee_sim._kernels.regret", "no_such_kernel") is None
    assert compile_costs.kernel_missing("yahtzee_sim.no_such_module", "solve_level") is None
    assert compile_costs.kernel_missing(*SOLVER) is False  # the compiled core: built, never missing
    assert compile_costs.kernel_missing("yahtzee_sim._core.solve", "no_such_kernel") is None


def test_every_kernel_with_a_compile_time_is_found():
    for kernel in compile_costs.COMPILE_SECONDS:
        assert compile_costs.kernel_missing(*kernel) is not None, kernel


@pytest.mark.parametrize(
    ("state", "expected"),
    [(True, 30.0), (None, 30.0), (False, 30.0 * compile_costs.LOAD_SHARE)],
)
def test_a_missing_kernel_weighs_its_compiling_a_cached_one_its_load(monkeypatch, state, expected):
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: state)
    assert compile_costs.setup_seconds({OTHER: 30.0}) == pytest.approx(expected)
    assert compile_costs.setup_seconds({}) == 0.0


def test_a_kernel_whose_loading_was_timed_weighs_that(monkeypatch):
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    got = compile_costs.setup_seconds({SOLVER: 30.0})
    assert got == compile_costs.LOAD_SECONDS[SOLVER] != 30.0 * compile_costs.LOAD_SHARE


def test_only_the_missing_kernels_add_their_compiling(monkeypatch):
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda *kernel: kernel == SOLVER)
    got = compile_costs.setup_seconds({SOLVER: 30.0, OTHER: 5.0})
    assert got == pytest.approx(30.0 + 5.0 * compile_costs.LOAD_SHARE)


def test_the_calibration_is_a_fraction_of_a_second():
    assert 0.0 < compile_costs.calibration_seconds(repeat=1) < 5.0


STALE_SCRIPT = """
import pickle
from yahtzee_sim.engine.compile_costs import kernel_missing
from yahtzee_sim._kernels.scoring import kernel_rules, state_index
from yahtzee_sim.game.rules import get_rules

kernel = ("yahtzee_sim._kernels.scoring", "state_index")
seen = [kernel_missing(*kernel)]
state_index(kernel_rules(get_rules("2-yatzy")), 0, 0, 0)
seen.append(kernel_missing(*kernel))
index = state_index._cache._cache_file._index_path
with open(index, "rb") as f:
    version = pickle.load(f)
    stamp, overloads = pickle.loads(f.read())
with open(index, "wb") as f:  # as after an edit of a kernel file: another source stamp
    pickle.dump(version, f)
    f.write(pickle.dumps(((0.0, 0), overloads)))
seen.append(kernel_missing(*kernel))
print(seen)
"""


def test_a_kernel_is_missing_until_compiled_and_again_when_its_cache_is_stale(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", STALE_SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[True,", "False,", "True]"]
