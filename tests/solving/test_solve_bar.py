"""The solve's progress bar counts its work: each level weighs its widget lanes."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import solver
from yahtzee_sim.solving.levels import levels, upper_lanes

from helpers import assert_each_step_taken_once, bars_made


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "2-yatzy"])
def test_each_level_weighs_its_widget_lanes(name):
    rules = get_rules(name)
    lanes = solver.level_lanes(rules)
    masks = levels(rules.n_boxes, rules.forced_order)
    assert len(lanes) == len(masks) == rules.n_boxes
    for got, level in zip(lanes, masks, strict=True):
        _, n_upper = upper_lanes(rules, level)
        flags = np.ones(len(level), dtype=np.int64)
        if rules.yahtzee_index is not None:
            flags = np.where((level >> rules.yahtzee_index) & 1, rules.flag_size, 1)
        assert got == (n_upper * flags).sum() > 0
    bar = solver.solve_bar(rules, False)
    assert bar.total == sum(lanes)
    assert list(bar.weights) == [f"level {k}" for k in range(rules.n_boxes)]


def test_a_solve_takes_every_step_of_its_bar_once(monkeypatch):
    made = bars_made(monkeypatch, solver, "solve_bar")
    table = solver.solve("2-yatzy", progress=False)
    (bar,) = made
    assert_each_step_taken_once(bar)
    assert table.expected_value() == pytest.approx(solver.solve("2-yatzy").expected_value())


def test_a_stored_table_is_read_a_missing_one_solved():
    rules = get_rules("2-yatzy")
    key = solver.TABLES.key(rules)
    solver.TABLES.forget(key)
    solver.value_table(rules)  # read from the cache folder, or solved and written there
    assert solver.table_lanes(rules) == 0  # in memory
    solver.TABLES.forget(key)
    assert solver.table_lanes(rules) == 0  # on disk
    for path in solver.TABLES.paths(key):
        path.unlink()
    assert solver.table_lanes(rules) == sum(solver.level_lanes(rules))
