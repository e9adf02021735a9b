"""The exact evaluator's compiled kernels (:mod:`yahtzee_sim._core.exact`,
:mod:`~yahtzee_sim._core.saved_moments`, :mod:`~yahtzee_sim._core.points_to_come`): the
same exact results, points to come and laws, byte for byte, as the numba kernels they
replaced (digests recorded by ``tools/exact_digests.py`` before the port), whatever the
number of threads, and clear errors for arguments they do not take."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim._core.exact import pmf_level, support_top, turn_outcomes
from yahtzee_sim._core.points_to_come import (
    law_fill,
    law_lengths,
    moments_level,
    outcomes_from_roll,
)
from yahtzee_sim._core.saved_moments import hopeless_lanes_equal, saved_moments_level
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import threads_limited
from yahtzee_sim.exact.forward import level_outcomes
from yahtzee_sim.exact.laws import evaluate, prepared
from yahtzee_sim.exact.points_to_come import (
    future_law,
    future_laws,
    future_moments,
    level_states,
)
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import encode_state, n_states
from yahtzee_sim.solving.levels import levels

from helpers import exact_law, small_saved_game

DIGESTS = json.loads(
    (Path(__file__).resolve().parents[1] / "golden" / "exact_digests.json").read_text()
)
#: Evaluations quick enough for the quick loop (the others are marked slow).
QUICK_PRESETS = ("2-yatzy", "upper-3d4f", "yahtzee-6box", "small-saved")


def digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()


def rules_of_key(name: str):
    """The rules of a recorded name (``small-saved:CAP:ORDER:DICE``: the small saved game)."""
    if not name.startswith("small-saved:"):
        return get_rules(name)
    parts = name.split(":")[1:]
    cap, order, dice = parts + ["0", "free", "3"][len(parts) :]
    return small_saved_game(int(cap), order == "forced", int(dice))


def result_arrays(result) -> np.ndarray:
    head = [result.mean, result.sd, result.bonus_rate, result.yahtzee_bonuses_mean]
    parts = [np.array([*head, result.n_states], dtype=float)]
    parts += [result.box_means, result.box_zero_rate, result.box_fill_turn]
    if result.pmf is not None:
        parts.append(result.pmf)
    return np.concatenate([np.asarray(p, dtype=float) for p in parts])


def _evaluations():
    for key in sorted(DIGESTS["evaluations"]):
        preset = key.split("/")[0]
        quick = preset.split(":")[0].split("+")[0] in QUICK_PRESETS
        yield pytest.param(key, id=key, marks=() if quick else (pytest.mark.slow,))


@pytest.mark.parametrize("key", list(_evaluations()))
def test_every_exact_result_is_the_numba_kernels_byte_for_byte(key):
    preset, strategy, kind = key.split("/")
    if preset == "yahtzee":  # the evaluation the suite's other tests of these laws share
        result = exact_law(strategy, preset, distribution=kind == "law")
    else:
        result = evaluate(strategy, rules_of_key(preset), distribution=kind == "law")
    assert digest(result_arrays(result)) == DIGESTS["evaluations"][key]


def future_positions(preset: str):
    rules = get_rules(preset)
    dice = np.zeros(rules.n_faces, dtype=np.int8)
    dice[0], dice[-1] = rules.n_dice - 1, 1
    one = int(encode_state(rules, 1 << (rules.n_boxes - 1), 0, 0))
    return [(0, None, None), (one, None, None), (0, dice, 1), (0, dice, 0)]


#: The positions whose law is checked on a full-size game (each law is a whole game's
#: pass): the empty sheet before a turn and mid-turn; the small presets check all four.
LAWS_CHECKED = {"yahtzee": (0, 2)}


@pytest.mark.parametrize(
    "preset",
    [p if p != "yahtzee" else pytest.param(p, marks=pytest.mark.slow) for p in DIGESTS["future"]],
)
def test_the_points_to_come_are_the_numba_kernels_byte_for_byte(preset):
    want = DIGESTS["future"][preset]
    moments = future_moments(preset, use_cache=False)
    assert digest(np.concatenate([moments.mean, moments.sd])) == want["moments"]
    for k, (state, dice, rolls_left) in enumerate(future_positions(preset)):
        if preset in LAWS_CHECKED and k not in LAWS_CHECKED[preset]:
            continue
        assert digest(future_law(preset, state, dice, rolls_left)) == want[f"law:{k}"]
    (key,) = (k for k in want if k.startswith("laws:"))
    laws = future_laws(preset, int(key.split(":")[1]))
    parts = (laws.pool, laws.offset, laws.length, laws.support)
    assert digest(np.concatenate([np.asarray(p, float) for p in parts])) == want[key]


@pytest.mark.parametrize("name", ["yahtzee-6box+forced", "upper-3d4f"])
def test_the_exact_law_does_not_depend_on_the_number_of_threads(name):
    with threads_limited(1):
        one = result_arrays(evaluate("greedy", name))
    with threads_limited(3):
        assert np.array_equal(one, result_arrays(evaluate("greedy", name)))


def test_the_saved_roll_moments_do_not_depend_on_the_number_of_threads():
    rules = small_saved_game(2, False, 4)
    with threads_limited(1):
        one = [result_arrays(evaluate(s, rules, distribution=False)) for s in ("greedy", "optimal")]
    with threads_limited(2):
        two = [result_arrays(evaluate(s, rules, distribution=False)) for s in ("greedy", "optimal")]
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(one, two, strict=True))


def _level(name: str):
    """The rules and the turn outcomes of the second level of optimal play on ``name``."""
    strategy, rules = prepared("optimal", name)
    masks = levels(rules.n_boxes, rules.forced_order)[1]
    turn = int(bin(int(masks[0])).count("1"))
    return rules, level_outcomes(strategy, rules, level_states(rules, masks), turn)


def _level_kernels(rules, lv, threads: int) -> list[np.ndarray]:
    """:func:`moments_level`, :func:`pmf_level` and :func:`law_fill` of one level, on
    fixed made-up values of the next level, on ``threads`` threads."""
    rng = np.random.default_rng(5)
    size = n_states(rules)
    mean, second = rng.random(size), rng.random(size)
    moments_level(lv.states, lv.ptr, lv.nxt, lv.pts, lv.prob, mean, second, threads)
    nexts, rows = np.unique(lv.nxt, return_inverse=True)
    top_next = np.full(len(nexts), 4, dtype=np.int64)
    top = support_top(lv.ptr, rows.astype(np.int64), lv.pts, top_next)
    V = np.empty((len(lv.states), int(top.max()) + 1))
    pmf_level(lv.ptr, rows.astype(np.int64), lv.pts, lv.prob, rng.random((len(nexts), 5)),
              top_next, V, threads)  # fmt: skip
    offset, length = np.zeros(size, np.int64), np.zeros(size, np.int64)
    offset[nexts], length[nexts] = 3 * np.arange(len(nexts)), 3
    law_lengths(lv.states, lv.ptr, lv.nxt, lv.pts, length)
    own = length[lv.states]
    offset[lv.states] = 3 * len(nexts) + np.cumsum(own) - own
    pool = np.concatenate([rng.random(3 * len(nexts)), np.zeros(int(own.sum()))])
    law_fill(lv.states, lv.ptr, lv.nxt, lv.pts, lv.prob, pool, offset, length, threads)
    return [mean, second, V, pool]


def test_the_level_kernels_do_not_depend_on_the_number_of_threads():
    rules, lv = _level("yahtzee-6box")
    one = _level_kernels(rules, lv, 1)
    for threads in (2, 3):
        for a, b in zip(one, _level_kernels(rules, lv, threads), strict=True):
            assert np.array_equal(a, b)


def _turn_args(rules, n: int = 2):
    """Arguments of :func:`turn_outcomes` for ``n`` start states keeping nothing."""
    n_rolls, layers = rules.tables.n_rolls, max(rules.rolls_per_turn - 1, 1)
    zeros = np.zeros(n, np.int64)
    keep = np.zeros((n, layers, n_rolls), np.int16)
    cat = np.zeros((n, n_rolls), np.int8)
    out = [np.zeros((n, n_rolls), t) for t in (np.int8, np.int16, np.int8, np.float64)]
    n_out, bad = np.zeros(n, np.int64), np.zeros(n, np.int64)
    return [zeros, zeros, zeros.copy(), keep, cat, *out, n_out, bad]


def test_arguments_the_kernels_do_not_take_are_refused_with_a_clear_error():
    rules = get_rules("2-yatzy")
    kr = kernel_rules(rules)
    args = _turn_args(rules)
    turn_outcomes(kr, *args)
    assert np.allclose(args[8].sum(axis=1), 1.0)  # every turn's outcomes sum to 1
    bad_keep = list(args)
    bad_keep[3] = np.full_like(args[3], 999)
    with pytest.raises(ValueError, match="keep indices"):
        turn_outcomes(kr, *bad_keep)
    wide = list(args)
    wide[3] = args[3].astype(np.int64)
    with pytest.raises(ValueError, match="int16"):
        turn_outcomes(kr, *wide)
    bad_used = list(args)
    bad_used[0] = np.full(2, 1 << 20, np.int64)
    with pytest.raises(ValueError, match="used-masks"):
        turn_outcomes(kr, *bad_used)
    ptr, nxt = np.array([0, 1], np.int64), np.array([5], np.int64)
    with pytest.raises(ValueError, match="next-level rows"):
        support_top(ptr, nxt, np.zeros(1, np.int64), np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="column for every reachable score"):
        pmf_level(ptr, np.zeros(1, np.int64), np.array([3], np.int64), np.ones(1),
                  np.ones((1, 1)), np.zeros(1, np.int64), np.zeros((1, 2)))  # fmt: skip
    with pytest.raises(ValueError, match="rolls_left"):
        outcomes_from_roll(kr, np.zeros((1, rules.tables.n_rolls), np.int16),
                           np.zeros(rules.tables.n_rolls, np.int8),
                           np.ones(rules.tables.n_rolls), 0, 0, 0, 2)  # fmt: skip
    with pytest.raises(ValueError, match="next states"):
        moments_level(np.zeros(1, np.int64), ptr, nxt, np.zeros(1, np.int64), np.ones(1),
                      np.zeros(3), np.zeros(3))  # fmt: skip


def test_the_saved_roll_kernels_refuse_moments_that_miss_states():
    rules = small_saved_game(1)
    kr = kernel_rules(rules)
    from yahtzee_sim.game.state import state_layout

    layout = state_layout(rules)
    pos = np.array([[0, 0, 0]], np.int64)
    keep = np.zeros((1, 1, rules.tables.n_rolls), np.int16)
    cat = np.zeros((1, 1, rules.tables.n_rolls), np.int8)
    share = np.full(1, -1, np.int64)
    out = np.zeros(int(layout.level_start[1]))
    args = (kr, layout.block_offset, layout.upper_count, pos, 1, keep, cat, share)
    with pytest.raises(ValueError, match="do not hold every state"):
        saved_moments_level(*args, np.zeros(1), np.zeros(1), 0, out, out.copy(), 0)
    with pytest.raises(ValueError, match="o1 and o2 must hold"):
        saved_moments_level(*args, np.zeros(1), np.zeros(1), 0, out[:0], out[:0], 0)
    masks, flags = np.zeros(1, np.int64), np.ones(1, np.int64)
    lanes = (layout.block_offset, layout.upper_count, rules.flag_size)
    with pytest.raises(ValueError, match="hopeless lanes"):
        hopeless_lanes_equal(np.zeros(1), np.zeros(1), *lanes, masks, masks + 3, flags, 1, 0)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_turn_s_outcomes_carry_all_its_probability(data):
    """From any roll law, under any keeps and any boxes of an empty score sheet, the turn's
    outcomes sum to the law's mass and lead to states with one box filled."""
    rules = get_rules(data.draw(st.sampled_from(["2-yatzy", "upper-3d4f", "yahtzee-6box"])))
    kr = kernel_rules(rules)
    n_rolls, n_keeps = rules.tables.n_rolls, len(kr.keep_size)
    layers = max(rules.rolls_per_turn - 1, 1)
    ints = st.integers(0, n_keeps - 1)
    keep = np.array(data.draw(st.lists(ints, min_size=layers * n_rolls, max_size=layers * n_rolls)),
                    dtype=np.int16).reshape(layers, n_rolls)  # fmt: skip
    boxes = st.integers(0, rules.n_boxes - 1)
    cat = np.array(data.draw(st.lists(boxes, min_size=n_rolls, max_size=n_rolls)), np.int8)
    weights = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n_rolls, max_size=n_rolls)))
    p = weights / weights.sum() if weights.sum() > 0 else np.full(n_rolls, 1 / n_rolls)
    rolls_left = data.draw(st.integers(0, rules.rolls_per_turn - 1))
    nxt, pts, prob = outcomes_from_roll(kr, keep, cat, p.copy(), 0, 0, 0, rolls_left)
    assert prob.sum() == pytest.approx(1.0, abs=1e-12)
    assert (prob > 0).all() and (pts >= 0).all()
    assert (nxt >= 0).all() and (nxt < n_states(rules)).all()
