"""Decision fills of max-EV table strategies: the batched kernel, whose lanes are states
of any used-masks (``upper_lane_decisions``), records the same decisions, bit for bit, as
one widget run per used-mask and flag (``fill_lanes``) — ties, joker rules, Yahtzee
bonuses and bonus limits included; so do its serial chunks (``upper_lane_chunks``),
however many callers share them out."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import get_rules
from yahtzee_sim._core.decisions import fill_lanes
from yahtzee_sim._core.upper_lane_fill import upper_lane_chunks, upper_lane_decisions
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.state import decode_state, n_states, upper_total_lanes_of
from yahtzee_sim.solving.solver import value_table


def states_to_fill(rules, rng) -> np.ndarray:
    """Random states (mostly one per used-mask, as late turns ask) and every upper total
    of a few used-masks (runs wider than one box-value call spans), sorted, no full card."""
    n = n_states(rules)
    picked = rng.integers(0, n, size=3000)
    all_used = np.asarray(decode_state(rules, np.arange(n))[0])
    whole = [np.flatnonzero(all_used == all_used[s]) for s in picked[:6]]
    states = np.unique(np.concatenate([picked, *whole]))
    used = all_used[states]
    return states[np.asarray(used) != (1 << rules.n_boxes) - 1]


@pytest.mark.parametrize("preset", ["yahtzee", "yahtzee-single-bonus", "yatzy", "yacht"])
def test_batched_fill_records_the_widget_runs_decisions(preset):
    rules = get_rules(preset)
    kr = kernel_rules(rules)
    lanes = upper_total_lanes(np.ascontiguousarray(value_table(rules).values))
    states = states_to_fill(rules, np.random.default_rng(53))
    used, upper, flag = (np.asarray(a, dtype=np.int64) for a in decode_state(rules, states))
    n, n_rolls = len(states), rules.tables.n_rolls
    layers = max(rules.rolls_per_turn - 1, 1)
    rows = np.random.default_rng(1).permutation(n).astype(np.int64)  # any output rows
    expected = np.zeros((n, layers, n_rolls), np.int16), np.zeros((n, 1, n_rolls), np.int8)
    first, lo, nu, row0, lane = upper_total_lanes_of(used, upper, flag)
    lane_row = np.full(int(nu.sum()), -1, dtype=np.int64)
    lane_row[lane] = rows
    fill_lanes(kr, lanes, used[first], lo, flag[first], lo, nu, row0, lane_row, *expected)
    got = np.full((n, layers, n_rolls), -7, np.int16), np.full((n, 1, n_rolls), -7, np.int8)
    upper_lane_decisions(kr, lanes, used, upper, flag, rows, *got)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    for step in (1, 3):  # the serial kernel, its chunks shared out among `step` callers
        got = np.full((n, layers, n_rolls), -7, np.int16), np.full((n, 1, n_rolls), -7, np.int8)
        for first in range(step):
            upper_lane_chunks(kr, lanes, used, upper, flag, rows, *got, first, step)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
