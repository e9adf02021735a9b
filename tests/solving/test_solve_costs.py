"""The solve's progress bar weighs each level by its expected seconds and the solver's
compiling by its compile seconds, only when the kernel is missing from the numba cache."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim.engine import compile_costs
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import solve_costs, solver
from yahtzee_sim.solving.levels import SOLVER_KERNELS, levels, upper_lanes

from helpers import assert_each_step_taken_once, bars_made


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "2-yatzy"])
def test_each_level_weighs_its_widget_lanes(name):
    rules = get_rules(name)
    seconds = solve_costs.level_seconds(rules)
    masks = levels(rules.n_boxes, rules.forced_order)
    assert len(seconds) == len(masks) == rules.n_boxes
    for got, level in zip(seconds, masks, strict=True):
        _, n_upper = upper_lanes(rules, level)
        flags = np.ones(len(level), dtype=np.int64)
        if rules.yahtzee_index is not None:
            flags = np.where((level >> rules.yahtzee_index) & 1, rules.flag_size, 1)
        expected = solve_costs.LANE_SECONDS * (n_upper * flags).sum()
        assert got == pytest.approx(expected) and got > 0


def cold_setup(rules) -> float:
    return sum(SOLVER_KERNELS.values())


def test_a_cached_solver_adds_no_compiling(monkeypatch):
    rules = get_rules("yatzy")
    work = sum(solve_costs.level_seconds(rules))
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    warm = solve_costs.solve_bar(rules, False)
    loading = sum(compile_costs.LOAD_SECONDS[kernel] for kernel in SOLVER_KERNELS)
    assert warm.weights["setup"] == pytest.approx(loading)
    assert loading == 0.0 < cold_setup(rules)  # the compiled core loads with its module
    assert warm.total == pytest.approx(work + warm.weights["setup"])
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    cold = solve_costs.solve_bar(rules, False)
    assert cold.weights["setup"] == cold_setup(rules)
    assert cold.weights["setup"] == sum(SOLVER_KERNELS.values())
    assert cold.total == pytest.approx(work + sum(SOLVER_KERNELS.values()))
    assert solve_costs.solve_seconds(rules) == pytest.approx(cold.total)


def test_a_solve_takes_every_step_of_its_bar_once(monkeypatch):
    made = bars_made(monkeypatch, solve_costs, "solve_bar")
    table = solver.solve("2-yatzy", progress=False)
    (bar,) = made
    assert_each_step_taken_once(bar)
    assert table.expected_value() == pytest.approx(solver.solve("2-yatzy").expected_value())


def test_a_stored_table_costs_a_read_a_missing_one_a_solve():
    rules = get_rules("2-yatzy")
    solver.value_table(rules)
    assert solver.table_seconds(rules) == 0.0  # in memory
    key = solver.TABLES.key(rules)
    solver.TABLES.forget(key)
    on_disk = solver.table_seconds(rules)
    assert 0.0 < on_disk < 1.0
    for path in solver.TABLES.paths(key):
        path.unlink()
    assert solver.table_seconds(rules) == pytest.approx(solve_costs.solve_seconds(rules))
