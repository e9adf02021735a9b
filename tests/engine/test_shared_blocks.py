"""A user's strategy with several jobs: its blocks are shared between worker processes and
a thread of the calling process, which starts at once; the games are the same."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import simulate, simulate_aggregate
from yahtzee_sim.errors import StrategyRuntimeError
from yahtzee_sim.strategies import FunctionStrategy


def keep(pos):
    best = max(set(pos.dice), key=pos.dice.count)
    return [d for d in pos.dice if d == best]


def box(pos):
    return max(pos.points, key=pos.points.get)


def fails_late(pos):
    if pos.game >= 2500 and pos.turn == 5:
        raise RuntimeError("game 2500")
    return box(pos)


def test_shared_blocks_play_the_same_games():
    one = simulate(FunctionStrategy(keep, box), 3000, seed=7, n_jobs=1)
    two = simulate(FunctionStrategy(keep, box), 3000, seed=7, n_jobs=2, chunk_size=128)
    for name in ("total", "box_scores", "filled_turn", "upper_bonus", "yahtzees"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    agg = simulate_aggregate(FunctionStrategy(keep, box), 3000, seed=7, n_jobs=2, chunk_size=128)
    assert agg.summary() == one.summary()


def test_an_error_in_any_block_is_raised():
    with pytest.raises(StrategyRuntimeError, match="game 2500"):
        simulate(FunctionStrategy(keep, fails_late), 3000, seed=7, n_jobs=2, chunk_size=128)
