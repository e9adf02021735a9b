"""The scoring step's batch entry points and the need lanes' liveness in the compiled core
(``_core/scoring.pyx``, ``_core/need_lanes.pyx``): equal, value for value and dtype for
dtype, to the numba helpers they replace for Python callers (still in ``_kernels`` for the
numba regret kernels), and checked inputs."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim._core import need_lanes, scoring
from yahtzee_sim._kernels import lanes as numba_lanes
from yahtzee_sim._kernels import scoring as numba_scoring
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import n_states

from helpers import bonus_limit_game, small_saved_game

GAMES = {
    **{
        name: (lambda name=name: get_rules(name))
        for name in (
            "yahtzee",
            "yatzy",
            "yahtzee-free-joker",
            "yahtzee-no-joker",
            "yahtzee-single-bonus",
            "yacht",
            "upper-3d4f",
            "maxi-yatzy",
        )
    },
    "bonus-limit": lambda: bonus_limit_game(2),
    "saved": lambda: small_saved_game(3),
}


def batch(kr, rng, n=2000):
    """Random rolls, used-masks, flags and upper totals of a batch."""
    roll = rng.integers(0, kr.roll_keep_index.shape[0], n)
    used = rng.integers(0, 1 << kr.n_boxes, n)
    flag = rng.integers(0, kr.flag_size, n)
    upper = rng.integers(0, kr.upper_cap + 1, n)
    return roll, used, flag, upper


@pytest.mark.parametrize("game", list(GAMES))
def test_batch_points_and_bonuses_equal_the_numba_helpers(game):
    kr = numba_scoring.kernel_rules(GAMES[game]())
    roll, used, flag, upper = batch(kr, np.random.default_rng(len(game)))
    points = scoring.box_options(kr, roll, used, flag)
    expected = numba_scoring.box_options(kr, roll, used, flag)
    assert points.dtype == expected.dtype == np.int16
    np.testing.assert_array_equal(points, expected)
    np.testing.assert_array_equal(
        scoring.yahtzee_bonuses(kr, roll, used, flag),
        numba_scoring.yahtzee_bonuses(kr, roll, used, flag),
    )
    bonuses = scoring.bonus_options(kr, roll, used, upper, flag, points)
    assert bonuses.dtype == np.int64
    np.testing.assert_array_equal(
        bonuses, numba_scoring.bonus_options(kr, roll, used, upper, flag, expected)
    )


@pytest.mark.parametrize("game", list(GAMES))
def test_one_scored_box_equals_the_numba_scoring_step(game):
    kr = numba_scoring.kernel_rules(GAMES[game]())
    rng = np.random.default_rng(7)
    for _ in range(200):
        c, p = int(rng.integers(0, kr.n_boxes)), int(rng.integers(0, 60))
        used = int(rng.integers(0, 1 << kr.n_boxes)) & ~(1 << c)
        upper, flag = int(rng.integers(0, kr.upper_cap + 1)), int(rng.integers(0, kr.flag_size))
        saved = int(rng.integers(0, kr.saved_size))
        got = scoring.saved_scored_state(kr, used, upper, flag, c, p, saved)
        assert got == tuple(numba_scoring.saved_scored_state(kr, used, upper, flag, c, p, saved))
        assert scoring.scored_state(kr, used, upper, flag, c, p) == tuple(
            numba_scoring.scored_state(kr, used, upper, flag, c, p)
        )
        yb = int(rng.integers(0, 2)) * 50
        assert scoring.flag_after_roll(kr, flag, yb) == numba_scoring.flag_after_roll(kr, flag, yb)


@pytest.mark.parametrize("with_first", [False, True])
def test_live_lanes_equal_the_numba_helper(with_first):
    rules = get_rules("upper-3d4f")
    rng = np.random.default_rng(11)
    ns = n_states(rules)
    length = rng.integers(0, 40, ns)
    offset = np.concatenate([[0], np.cumsum(length)[:-1]])
    values = rng.random(int(length.sum()) + 1)
    values[rng.random(values.shape) < 0.2] = 0.0  # lanes at ``bottom``: not live
    first = rng.integers(0, 5, ns) if with_first else np.zeros(0, dtype=np.int64)
    lanes = numba_lanes.points_needed_lanes(values, offset, length, first)
    states, t = rng.integers(0, ns, 5000), rng.integers(-2, 45, 5000)
    got = need_lanes.live_lanes(lanes, states, t)
    assert got.dtype == np.bool_ and got.any() and not got.all()
    np.testing.assert_array_equal(got, numba_lanes.live_lanes(lanes, states, t))


def test_bad_batches_are_refused_before_the_loops():
    kr = numba_scoring.kernel_rules(get_rules("yahtzee"))
    ok = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="roll indices"):
        scoring.box_options(kr, np.array([0, 1, 10_000]), ok, ok)
    with pytest.raises(ValueError, match="used-masks"):
        scoring.yahtzee_bonuses(kr, ok, np.array([0, -1, 0]), ok)
    with pytest.raises(ValueError, match="entries each"):
        scoring.box_options(kr, ok, ok[:2], ok)
    with pytest.raises(ValueError, match="rows of 13"):
        scoring.bonus_options(kr, ok, ok, ok, ok, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="box 13"):
        scoring.scored_state(kr, 0, 0, 0, 13, 5)
    upper_lanes = numba_lanes.upper_total_lanes(np.zeros(10))
    with pytest.raises(ValueError, match="need lanes"):
        need_lanes.live_lanes(upper_lanes, ok, ok)
