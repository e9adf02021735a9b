"""Greedy's and the random strategies' compiled kernels, the learning encoding's
(:mod:`yahtzee_sim._core.observation`) and the card search's: the same outputs, byte for
byte, as the numba kernels they replaced (digests recorded by ``tools/strat1_digests.py``
before the port), whatever the number of threads, and clear errors for arguments they do
not take."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "strat1_digests.json").read_text())
_SPEC = importlib.util.spec_from_file_location("digests", ROOT / "tools" / "strat1_digests.py")
TOOL = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(TOOL)

#: Presets whose cases take more than a few seconds (the slow loop's).
SLOW = {"yatzy-no-bonus", "maxi-yatzy-3", "maxi-yatzy", "yatzy+forced", "yahtzee-single-bonus"}


def _param(name: str):
    return pytest.param(name, marks=(pytest.mark.slow,) if name in SLOW else ())


def _same(got: dict) -> None:
    """Every digest of ``got`` is the recorded one (and each key was recorded)."""
    assert got, "no case computed"
    for key, value in got.items():
        assert DIGESTS[key] == value, key


@pytest.mark.parametrize("name", [_param(n) for n in TOOL.ALL_STATES + TOOL.SAMPLED])
def test_greedy_state_tables_are_the_numba_kernels_byte_for_byte(name):
    _same(TOOL.greedy_states(name))


@pytest.mark.parametrize("name", [_param(n) for n in TOOL.POSITIONS])
def test_greedy_position_tables_are_the_numba_kernels_byte_for_byte(name):
    _same(TOOL.greedy_positions(name))


def _greedy_inputs(name: str):
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import decode_state
    from yahtzee_sim.strategies.greedy import Greedy

    rules = get_rules(name)
    strategy = Greedy()
    strategy.prepare(rules)
    return rules, kernel_rules(rules), strategy._order, decode_state


@pytest.mark.parametrize("name", ["yahtzee", "yatzy+forced"])
def test_greedy_tables_do_not_depend_on_the_number_of_threads(name):
    from yahtzee_sim.strategies.greedy_kernels import greedy_fill_positions, greedy_fill_states

    rules, kr, order, decode_state = _greedy_inputs(name)
    states = TOOL.state_sample(rules)[:150]
    used, upper, flag = decode_state(rules, states)
    n, n_rolls = len(states), rules.tables.n_rolls
    slots = np.arange(n, dtype=np.int64)[::-1].copy()
    pos = TOOL.position_sample(rules, 6)
    tables = []
    for threads in (1, 2, 3):
        keep, cat = np.zeros((n, n_rolls), np.int16), np.zeros((n, n_rolls), np.int8)
        greedy_fill_states(kr, order, True, used, upper, flag, slots, keep, cat, threads)
        pk = np.zeros((len(pos), 1, n_rolls), np.int16)
        pc = np.zeros((len(pos), 1, n_rolls), np.int8)
        greedy_fill_positions(kr, order, False, pos, pk, pc, threads)
        tables.append((keep, cat, pk, pc))
    for other in tables[1:]:
        for a, b in zip(tables[0], other, strict=True):
            assert np.array_equal(a, b)


def test_greedy_fills_refuse_arguments_they_do_not_take():
    from yahtzee_sim.strategies.greedy_kernels import greedy_fill_positions, greedy_fill_states

    rules, kr, order, _ = _greedy_inputs("2-yatzy")
    n_rolls = rules.tables.n_rolls
    one = np.zeros(1, dtype=np.int64)
    keep, cat = np.zeros((1, n_rolls), np.int16), np.zeros((1, n_rolls), np.int8)
    with pytest.raises(ValueError, match="one entry per state"):
        greedy_fill_states(kr, order, False, one, one, one, np.zeros(2, np.int64), keep, cat)
    with pytest.raises(ValueError, match="slots must be rows"):
        greedy_fill_states(kr, order, False, one, one, one, one + 1, keep, cat)
    with pytest.raises(ValueError, match="used-masks"):
        greedy_fill_states(kr, order, False, one + 4, one, one, one, keep, cat)
    with pytest.raises(ValueError, match="order must hold box indices"):
        greedy_fill_states(kr, order + 2, False, one, one, one, one, keep, cat)
    with pytest.raises(ValueError, match="rolls"):
        greedy_fill_states(kr, order, False, one, one, one, one, keep[:, :1].copy(), cat)
    with pytest.raises(ValueError, match="Buffer dtype mismatch"):
        greedy_fill_states(kr, order, False, one, one, one, one, cat, keep)
    pos = np.zeros((1, 3), dtype=np.int64)
    with pytest.raises(ValueError, match="3 columns"):
        greedy_fill_positions(kr, order, False, pos[:, :2].copy(), keep[:, None], cat[:, None])
    with pytest.raises(ValueError, match="same layers"):
        greedy_fill_positions(
            kr, order, False, pos, keep[:, None], np.zeros((1, 2, n_rolls), np.int8)
        )


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_greedy_positions_fill_as_states_would(data):
    """The runs' shortcuts (a run's points found once, upper totals out of the bonus's
    reach copied, equal rolls' keeps copied) give what filling each position does."""
    from yahtzee_sim.strategies.greedy_kernels import greedy_fill_positions, greedy_fill_states

    name = data.draw(st.sampled_from(["upper-3d4f", "yahtzee-6box", "yahtzee"]))
    rules, kr, order, _ = _greedy_inputs(name)
    n_rolls, cap = rules.tables.n_rolls, rules.upper_cap
    runs = data.draw(
        st.lists(
            st.tuples(st.integers(0, (1 << rules.n_boxes) - 2), st.integers(0, 1)),
            min_size=1,
            max_size=3,
        )
    )
    pos = np.array([(u, t, f) for u, f in sorted(set(runs)) for t in range(cap + 1)], np.int64)
    with_ybonus = data.draw(st.booleans())
    pk = np.zeros((len(pos), 1, n_rolls), np.int16)
    pc = np.zeros((len(pos), 1, n_rolls), np.int8)
    greedy_fill_positions(kr, order, with_ybonus, pos, pk, pc, 2)
    keep, cat = np.zeros((len(pos), n_rolls), np.int16), np.zeros((len(pos), n_rolls), np.int8)
    cols = [np.ascontiguousarray(pos[:, j]) for j in range(3)]
    greedy_fill_states(kr, order, with_ybonus, *cols, np.arange(len(pos)), keep, cat, 2)
    assert np.array_equal(pk[:, 0], keep) and np.array_equal(pc[:, 0], cat)


@pytest.mark.parametrize("name", [_param(n) for n in TOOL.ENCODED])
def test_random_kernels_are_the_numba_kernels_byte_for_byte(name):
    _same(TOOL.random_kernels(name))


@pytest.mark.parametrize("name", [_param(n) for n in TOOL.SIMULATED])
def test_games_are_the_numba_kernels_games(name):
    """Greedy, random and tiered-random play the same games for the same seeds."""
    _same(TOOL.simulations(name))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_keeps_are_sub_multisets_and_boxes_legal(data):
    """Every keep holds only dice of the roll (tiered: uniform count, so any size), and
    every box chosen is legal, a positive one whenever there is one."""
    from yahtzee_sim._core.scoring import box_options
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.strategies.random_kernels import random_box, random_keep

    rules = get_rules(data.draw(st.sampled_from(["2-yatzy", "yahtzee", "yatzy+forced"])))
    x = TOOL.random_inputs(rules, 200, data.draw(st.integers(0, 2**32)))
    k0, k1 = x["keys"]
    for tiered in (False, True):
        keep = random_keep(x["dice"], x["games"], k0, k1, x["base"], tiered)
        assert ((keep >= 0) & (keep <= x["dice"])).all()
    kr = kernel_rules(rules)
    box = random_box(kr, x["roll"], x["used"], x["flag"], x["games"], k0, k1, x["base"])
    points = box_options(kr, x["roll"], x["used"], x["flag"])
    chosen = points[np.arange(len(box)), box]
    assert (chosen >= 0).all()
    assert ((chosen > 0) | ~(points > 0).any(axis=1)).all()


def test_random_kernels_refuse_arguments_they_do_not_take():
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.strategies.random_kernels import random_box, random_keep

    kr = kernel_rules(get_rules("yahtzee"))
    dice, games = np.ones((2, 6), np.int8), np.arange(2)
    with pytest.raises(ValueError, match="one entry per row"):
        random_keep(dice, games[:1], 1, 2, 0, False)
    with pytest.raises(ValueError, match="at most 63 dice"):
        random_keep(np.full((2, 6), 11, np.int8), games, 1, 2, 0, True)
    with pytest.raises(ValueError, match="face counts"):
        random_keep(np.array([[1] * 6, [1, 1, 1, 1, 1, -1]], np.int8), games, 1, 2, 0, False)
    one = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="roll indices"):
        random_box(kr, one + 252, one, one, games, 1, 2, 0)
    with pytest.raises(ValueError, match="roll indices"):
        random_box(kr, one - 1, one, one, games, 1, 2, 0)
    with pytest.raises(ValueError, match="used-masks"):
        random_box(kr, one, one + (1 << 13), one, games, 1, 2, 0)
    with pytest.raises(ValueError, match="used-masks"):
        random_box(kr, one, one - 1, one, games, 1, 2, 0)
    with pytest.raises(ValueError, match="2 entries each"):
        random_box(kr, one, one[:1], one, games, 1, 2, 0)


@pytest.mark.parametrize("name", [_param(n) for n in TOOL.ENCODED])
def test_the_learning_encoding_is_the_numba_kernels_byte_for_byte(name):
    _same(TOOL.encoding(name))


def test_the_encoding_kernels_refuse_arguments_they_do_not_take():
    from yahtzee_sim._core.observation import fill_masks, pick_legal
    from yahtzee_sim._core.scoring import box_options
    from yahtzee_sim._kernels.scoring import kernel_rules
    from yahtzee_sim.game.rules import get_rules

    kr = kernel_rules(get_rules("2-yatzy"))
    one = np.zeros(1, np.int64)
    out = np.zeros((1, kr.keep_add.shape[0] + kr.n_boxes), np.int8)
    with pytest.raises(ValueError, match="entries each"):
        fill_masks(kr, one, np.zeros(2, np.int64), one, one, out)
    with pytest.raises(ValueError, match="out must be"):
        fill_masks(kr, one, one, one, one, out[:, 1:].copy())
    with pytest.raises(ValueError, match="roll indices"):
        fill_masks(kr, one + 99, one, one, one, out)
    with pytest.raises(ValueError, match="used-masks"):
        box_options(kr, one, one + 4, one)
    with pytest.raises(ValueError, match="one entry per row"):
        pick_legal(out, np.zeros(2), np.zeros(1, np.int64))


def test_the_card_search_kernels_are_the_numba_kernels_byte_for_byte():
    _same(TOOL.card_search_kernels())


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=(pytest.mark.slow,) if c[0] == "yahtzee" else ())
        for c in TOOL.SEARCHES
    ],
)
def test_card_searches_learn_what_they_learnt_with_numba(case):
    _same(TOOL.searches(case))


def test_pair_sums_do_not_depend_on_the_number_of_threads():
    from yahtzee_sim.analysis.decisions.card_search_kernels import pair_gains

    inputs = TOOL.pair_inputs(700, 12, 5)
    one = pair_gains(*inputs, 4, 1)
    for threads in (2, 3):
        assert np.array_equal(one, pair_gains(*inputs, 4, threads))


def test_the_card_search_kernels_refuse_arguments_they_do_not_take():
    from yahtzee_sim.analysis.decisions.card_search_kernels import option_values, pair_gains

    X, allowed, gain, bottom = TOOL.pair_inputs(20, 4, 3)
    with pytest.raises(ValueError, match="bool array"):
        pair_gains(X.astype(np.int8), allowed, gain, bottom, 4)
    with pytest.raises(ValueError, match="n_chunks"):
        pair_gains(X, allowed, gain, bottom, 0)
    with pytest.raises(ValueError, match="allowed 4 entries"):
        pair_gains(X, allowed[:3], gain, bottom, 4)
    ptr, acts, vals, rows, actions = TOOL.option_inputs(10)
    with pytest.raises(ValueError, match="rows must be decisions"):
        option_values(ptr, acts, vals, rows + 10, actions)
    with pytest.raises(ValueError, match="non-decreasing"):
        option_values(ptr[::-1].copy(), acts, vals, rows, actions)
    with pytest.raises(ValueError, match="one entry per decision"):
        option_values(ptr, acts, vals, rows[:1], actions)
