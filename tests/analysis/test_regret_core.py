"""The regret kernels of the compiled core (:mod:`yahtzee_sim._core.regret`,
:mod:`~yahtzee_sim._core.saved_regret`): the same regret analyses, byte for byte, as the
numba kernels they replaced (digests recorded by ``tools/regret_digests.py`` before the
port), whatever the number of threads or chunks, and clear errors for arguments they do not
take."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim._core.regret import level_regret
from yahtzee_sim._core.saved_regret import saved_level_regret, scatter_reach
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import threads_limited
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import state_layout
from yahtzee_sim.solving.solver import value_table

from helpers import small_saved_game

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = json.loads((ROOT / "tests" / "golden" / "regret_digests.json").read_text())
#: Cases whose table takes seconds to solve (the others are quick).
SLOW = ("maxi-yatzy",)


def _recorder():
    """``tools/regret_digests.py``, the recorder of the digests, as a module."""
    spec = importlib.util.spec_from_file_location(
        "regret_digests", ROOT / "tools" / "regret_digests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


R = _recorder()


def _cases(kind: str):
    for key in sorted(DIGESTS[kind]):
        slow = key.startswith(SLOW)
        yield pytest.param(key, id=key, marks=(pytest.mark.slow,) if slow else ())


@pytest.mark.parametrize("key", list(_cases("regrets")))
def test_every_regret_is_the_numba_kernels_byte_for_byte(key):
    preset, strategy = key.split("/")
    assert R.regret_digests(preset, strategy) == DIGESTS["regrets"][key]


@pytest.mark.parametrize("key", list(_cases("levels")))
def test_the_first_levels_of_full_size_games_are_the_numba_kernels_byte_for_byte(key):
    preset, strategy, turns = key.split("/")
    assert R.level_digest(preset, strategy, int(turns)) == DIGESTS["levels"][key]


@pytest.mark.parametrize("key", list(_cases("random")))
def test_random_decisions_are_charged_as_the_numba_kernels_charged_them(key):
    preset, size, seed = key.split("/")
    assert R.random_digest(preset, int(size), int(seed)) == DIGESTS["random"][key]


@pytest.mark.parametrize(
    "case",
    [
        lambda: R.random_digest("yahtzee", 1000, 1),
        lambda: R.random_digest("small-saved:2:free:4", 4, 11),
        lambda: R.regret_digests("small-saved:3:forced:4", "greedy"),
    ],
    ids=["fixed-rolls", "saved-rolls", "saved-pass"],
)
def test_the_regret_does_not_depend_on_the_number_of_threads(case):
    with threads_limited(1):
        one = case()
    with threads_limited(2):
        assert case() == one


def _fixed_args(name: str = "upper-3d4f"):
    """Arguments of :func:`level_regret` for the states of the second level of ``name``
    (one used-mask and flag per group), keeping nothing, first box open chosen."""
    rules = get_rules(name)
    kr = kernel_rules(rules)
    lanes = upper_total_lanes(value_table(rules).values)
    n_rolls, rolls = rules.tables.n_rolls, rules.rolls_per_turn
    used = np.repeat(np.arange(1, 1 << rules.n_boxes, 2, dtype=np.int64), 3)
    n = len(used)
    upper = np.minimum(np.tile(np.array([0, 1, 2], np.int64), n // 3), kr.upper_cap)
    flag = np.zeros(n, np.int64)
    groups = np.arange(0, n + 1, 3, dtype=np.int64)
    keep = np.zeros((n, max(rolls - 1, 1), n_rolls), np.int16)
    first_open = np.array([(~int(u) & (int(u) + 1)).bit_length() - 1 for u in used], np.int8)
    cat = np.repeat(first_open[:, None], n_rolls, axis=1)
    out = (
        np.zeros((n, rolls)),
        np.zeros((n, rules.n_boxes)),
        np.zeros((n, rolls), np.int64),
        np.zeros((n, rolls)),
        np.zeros((n, rolls)),
        np.zeros((n, rolls), np.int64),
    )
    return [kr, lanes, used, upper, flag, groups, keep, cat, out]


def test_the_chunks_do_not_change_the_fixed_roll_losses():
    args = _fixed_args()
    level_regret(*args, 1, 1)
    one = [a.copy() for a in args[8]]
    for chunks, threads in ((3, 2), (64, 2)):
        args[8] = tuple(np.full_like(a, 7) for a in args[8])
        level_regret(*args, chunks, threads)
        assert all(np.array_equal(a, b) for a, b in zip(one, args[8], strict=True))
    assert one[0].sum() > 0


def test_a_filled_box_is_not_charged():
    """A box already filled has no value in the widget's tables: choosing it charges
    nothing (the forward pass refuses such a strategy), whatever the chunks."""
    args = _fixed_args()
    used = args[2]
    args[7] = np.ones_like(args[7])  # box 1, filled in the states with used bit 1
    filled = ((used >> 1) & 1) == 1
    assert filled.any() and not filled.all()
    for chunks, threads in ((1, 1), (3, 2)):
        level_regret(*args, chunks, threads)
        loss, by_cat = args[8][0], args[8][1]
        assert (loss[filled, 0] == 0).all() and (by_cat[filled] == 0).all()
        assert loss[~filled, 0].sum() > 0


def _refused(args, at: int, value, match: str) -> None:
    bad = list(args)
    bad[at] = value
    with pytest.raises(ValueError, match=match):
        level_regret(*bad, 4, 2)


def test_level_regret_refuses_arguments_it_does_not_take():
    args = _fixed_args()
    used, upper, groups, keep, cat, out = (args[k] for k in (2, 3, 5, 6, 7, 8))
    _refused(args, 2, used.astype(np.int32), "dtype mismatch")
    _refused(args, 2, np.full_like(used, 1 << 20), "used-masks")
    _refused(args, 3, np.full_like(upper, 999), "upper totals")
    _refused(args, 5, groups[::-1].copy(), "group_ptr")
    _refused(args, 5, np.array([0, len(used)], np.int64), "one used-mask and flag")
    _refused(args, 6, keep.astype(np.int64), "int16")
    _refused(args, 6, np.full_like(keep, 9999), "keep indices")
    _refused(args, 7, cat[:, :3], "rolls")
    _refused(args, 8, out[:5], "out must be")
    _refused(args, 8, (out[0][:2], *out[1:]), r"loss and top_\* must be")
    _refused(args, 8, (*out[:2], out[2].astype(np.float64), *out[3:]), "dtype mismatch")
    saved = small_saved_game(2)
    _refused(args, 0, kernel_rules(saved), "without saved rolls")
    _refused(args, 1, value_table(saved).lanes(), "lanes")


def _saved_args():
    """Arguments of :func:`saved_level_regret` for the empty sheet of a small saved game."""
    rules = small_saved_game(2, n_dice=4)
    kr = kernel_rules(rules)
    layout = state_layout(rules)
    n_rolls, kinds = rules.tables.n_rolls, kr.levels + 1
    pos = np.zeros((1, 3), np.int64)
    keep = np.zeros((1, 1, n_rolls), np.int16)
    cat = np.zeros((1, 1, n_rolls), np.int8)
    out = (
        np.zeros((1, kinds)),
        np.zeros((1, kinds, 2)),
        np.full((1, kinds, 4), -1),
        np.zeros((1, rules.n_boxes)),
        np.zeros(1),
        np.empty((1, 40), np.int64),
        np.empty((1, 40)),
        np.empty(1, np.int64),
    )
    return [
        kr,
        value_table(rules).lanes(),
        (layout.block_offset, layout.upper_count),
        pos,
        np.zeros(1, np.int64),
        np.array([0, 1], np.int64),
        np.ones((1, 1)),
        keep,
        cat,
        out,
    ]


def test_saved_level_regret_refuses_arguments_it_does_not_take():
    args = _saved_args()
    saved_level_regret(*args, 1, 1)
    out = args[9]
    assert out[7][0] > 0 and out[6][0, : out[7][0]].sum() == pytest.approx(1.0)
    assert out[4][0] > 0  # the first turn's expected points
    cases = [
        (3, np.array([[0, 99, 0]], np.int64), "within their mask's lanes"),
        (3, np.array([[1 << 20, 0, 0]], np.int64), "used-masks"),
        (5, np.array([0, 2], np.int64), "group_ptr"),
        (6, np.ones((1, 9)), "saved-roll counts"),
        (7, np.full_like(args[7], 9999), "keep indices"),
        (8, args[8].astype(np.int16), "int8"),
        (9, out[:7], "out must be"),
        (9, (*out[:5], out[5][:, :3], *out[6:]), "alike"),
        (0, kernel_rules(get_rules("2-yatzy")), "with saved rolls"),
    ]
    for at, value, match in cases:
        bad = list(args)
        bad[at] = value
        with pytest.raises(ValueError, match=match):
            saved_level_regret(*bad, 1, 1)


def test_scatter_reach_adds_the_next_states_and_refuses_states_outside():
    idx = np.array([[3, 1, 0], [1, 0, 0]], np.int64)
    mass = np.array([[0.5, 0.25, 9.0], [0.125, 9.0, 9.0]])
    reach = np.zeros(4)
    scatter_reach(idx, mass, np.array([2, -1], np.int64), reach, 0)
    assert reach.tolist() == [0.0, 0.25, 0.0, 0.5]
    scatter_reach(idx + 10, mass, np.array([0, 1], np.int64), reach, 10)
    assert reach[1] == 0.375
    with pytest.raises(ValueError, match="next states must lie"):
        scatter_reach(idx, mass, np.array([2, 1], np.int64), reach, 2)
    with pytest.raises(ValueError, match="at most the width"):
        scatter_reach(idx, mass, np.array([4, 1], np.int64), reach, 0)
    with pytest.raises(ValueError, match="alike"):
        scatter_reach(idx, mass[:, :2].copy(), np.array([1, 1], np.int64), reach, 0)
