"""The compiled core's decision fills (:mod:`yahtzee_sim._core.decisions`): the same
decision tables, option values, advice and simulations, byte for byte, as the numba kernels
they replaced (digests recorded by ``tools/duel_digests.py`` before the port), whatever the
number of threads, and clear errors for arguments they do not take."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim._core.decisions import (
    fill_lanes,
    fill_states,
    gather_decisions,
    keep_codes,
    position_values,
)
from yahtzee_sim._kernels.lanes import points_needed_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import decode_state, upper_total_lanes_of
from yahtzee_sim.solving.solver import value_table

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "duel_digests.json").read_text())


def _tool():
    path = ROOT / "tools" / "duel_digests.py"
    spec = importlib.util.spec_from_file_location("duel_digests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()

#: The parts of the record this module checks: (function, slow).
PARTS = {
    "table_read_digests": False,
    "advice_digests": True,
    "position_values_digests": True,
    "fill_states_digests": True,
    "fill_lanes_digests": True,
    "simulate_digests": True,
}


@pytest.fixture(scope="module")
def games():
    return TOOL.games()


@pytest.mark.parametrize(
    "part", [pytest.param(p, marks=[pytest.mark.slow] if slow else []) for p, slow in PARTS.items()]
)
def test_every_decision_digest_is_the_numba_kernels_byte_for_byte(part, games):
    got = getattr(TOOL, part)(games)
    assert got
    assert got == {key: DIGESTS[key] for key in got}


def _groups(rules, n: int):
    """Groups of lanes of ``n`` sampled states: ``fill_lanes``' arguments but the outputs."""
    states = TOOL.sample_states(rules, n, seed=1)
    used, upper, flag = decode_state(rules, states)
    first, lo, nu, row0, lane = upper_total_lanes_of(used, upper, flag)
    lane_row = np.full(int(nu.sum()), -1, dtype=np.int64)
    lane_row[lane] = np.arange(len(states))
    u, f = np.asarray(used, np.int64)[first], np.asarray(flag, np.int64)[first]
    return len(states), (u, lo, f, lo, nu, row0, lane_row)


def _buffers(rules, n: int):
    keep = np.zeros((n, max(rules.max_rolls - 1, 1), rules.tables.n_rolls), np.int16)
    return keep, np.zeros((n, rules.saved_size, rules.tables.n_rolls), np.int8)


@pytest.mark.parametrize("name", ["upper-3d4f", "yahtzee-6box"])
def test_the_fills_do_not_depend_on_the_number_of_threads(name):
    rules = get_rules(name)
    kr, lanes = kernel_rules(rules), value_table(rules).lanes()
    n, groups = _groups(rules, 600)
    got = []
    for threads in (1, 2, 3):
        keep, cat = _buffers(rules, n)
        fill_lanes(kr, lanes, *groups, keep, cat, threads)
        got.append((keep, cat))
    for keep, cat in got[1:]:
        assert np.array_equal(keep, got[0][0]) and np.array_equal(cat, got[0][1])
    assert (got[0][1] >= 0).all()


def test_one_lane_per_state_is_the_fill_of_groups():
    rules = get_rules("upper-3d4f")
    kr, lanes = kernel_rules(rules), value_table(rules).lanes()
    n, groups = _groups(rules, 300)
    keep, cat = _buffers(rules, n)
    fill_lanes(kr, lanes, *groups, keep, cat)
    states = TOOL.sample_states(rules, 300, seed=1)
    used, upper, flag = (np.ascontiguousarray(a, np.int64) for a in decode_state(rules, states))
    keep2, cat2 = _buffers(rules, n)
    fill_states(kr, lanes, used, upper, flag, upper, np.arange(n), keep2, cat2[:, 0], 2)
    assert np.array_equal(keep, keep2) and np.array_equal(cat, cat2)


def test_fill_arguments_it_does_not_take_are_refused_with_a_clear_error():
    rules = get_rules("upper-3d4f")
    kr, lanes = kernel_rules(rules), value_table(rules).lanes()
    n, (u, lo, f, up, nu, row0, lane_row) = _groups(rules, 50)
    keep, cat = _buffers(rules, n)
    with pytest.raises(ValueError, match="used-masks"):
        fill_lanes(kr, lanes, u + (1 << rules.n_boxes), lo, f, up, nu, row0, lane_row, keep, cat)
    with pytest.raises(ValueError, match="upper totals"):
        fill_lanes(kr, lanes, u, lo, f, up, nu + rules.upper_cap, row0, lane_row, keep, cat)
    with pytest.raises(ValueError, match="rows past"):
        fill_lanes(kr, lanes, u, lo, f, up, nu, row0, lane_row, keep[:1], cat[:1])
    with pytest.raises(ValueError, match="one entry per group"):
        fill_lanes(kr, lanes, u, lo[:-1], f, up, nu, row0, lane_row, keep, cat)
    with pytest.raises(ValueError, match="keep_rows must be"):
        fill_lanes(kr, lanes, u, lo, f, up, nu, row0, lane_row, keep[:, :, :3].copy(), cat)
    with pytest.raises(ValueError, match="dtype|type"):
        fill_lanes(kr, lanes, u, lo, f, up, nu, row0, lane_row, keep.astype(np.int64), cat)
    need = points_needed_lanes(np.zeros(3), np.zeros(1, np.int64), np.ones(1, np.int64))
    with pytest.raises(ValueError, match="row .* for every state"):
        fill_lanes(kr, need, u, lo, f, up, nu, row0, lane_row, keep, cat)
    with pytest.raises(ValueError, match="no state"):
        position_values(kr, lanes, 0, rules.upper_cap + 1, 0)
    with pytest.raises(ValueError, match="upper totals"):
        position_values(kr, need, 0, 0, 0)


def test_gather_and_keep_codes_refuse_reads_outside_the_tables():
    table = np.zeros((4, 2, 6), np.int16)
    slot = np.array([0, 3, -1], np.int32)
    assert gather_decisions(slot, np.array([1, 0]), np.array([5, 0]), table, 1).dtype == np.int64
    with pytest.raises(ValueError, match="decision 0"):
        gather_decisions(slot, np.array([2]), np.array([0]), table, 0)  # a state not cached
    with pytest.raises(ValueError, match="decision 1"):
        gather_decisions(slot, np.array([0, 0]), np.array([0, 6]), table, 0)
    with pytest.raises(ValueError, match="layer"):
        gather_decisions(slot, np.array([0]), np.array([0]), table, 2)
    kr = kernel_rules(get_rules("upper-3d4f"))
    dice = np.array([[3, 0, 0, 0]], np.int8)
    out = np.empty(1, np.int16)
    with pytest.raises(ValueError, match="face counts"):
        keep_codes(kr, dice[:, :3], dice[:, :3], out)
    assert keep_codes(kr, dice, dice, out) == -1 and keep_codes(kr, dice + 1, dice, out) == 0


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
def test_keep_codes_read_every_integer_dtype_alike(dtype):
    """int8 counts (the engine's) are read as they are, others widened: the same codes and
    the same first illegal row either way."""
    rules = get_rules("yahtzee")
    kr, t = kernel_rules(rules), rules.tables
    rng = np.random.default_rng(5)
    dice = t.roll_counts[rng.integers(0, t.n_rolls, 500)].astype(np.int8)
    keeps = (dice * rng.integers(0, 2, dice.shape)).astype(np.int8)
    want, got = np.empty(500, np.int64), np.empty(500, np.int64)
    assert keep_codes(kr, keeps.astype(np.int64), dice.astype(np.int64), want) == -1
    assert keep_codes(kr, keeps.astype(dtype), dice.astype(dtype), got) == -1
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(t.keep_counts[got], keeps)
    keeps[300, 0] = dice[300, 0] + 1  # keeps a die it does not show
    assert keep_codes(kr, keeps.astype(dtype), dice.astype(dtype), got) == 300


def test_only_lanes_over_upper_totals_refuse_a_negative_first_lane():
    """A lane over upper totals below 0 names no table row: refused. A need lane below 0
    (the target already met) is valid and read as the row's top value."""
    rules = get_rules("upper-3d4f")
    kr, lanes = kernel_rules(rules), value_table(rules).lanes()
    n, (used, upper, flag, lo, nu, row0, lane_row) = _groups(rules, 50)
    bad_lo = lo.copy()
    bad_lo[0] = -1
    with pytest.raises(ValueError, match="lanes over upper totals start at lane 0"):
        fill_lanes(kr, lanes, used, upper, flag, bad_lo, nu, row0, lane_row, *_buffers(rules, n))
    with pytest.raises(ValueError, match="every group needs at least one lane"):
        fill_lanes(kr, lanes, used, upper, flag, lo, 0 * nu, row0, lane_row, *_buffers(rules, n))
