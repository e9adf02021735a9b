import numpy as np
import pytest

from yahtzee_sim import StrategyError, simulate
from yahtzee_sim.strategies import get_strategy

from helpers import view_for


def box(sid, dice, **kw):
    s = get_strategy(sid)
    v = view_for("yahtzee-free-joker", dice, **kw)
    return v.rules.box_names[s.box(v)[0]]


@pytest.mark.slow
def test_glenn_greedy_prefers_harder_box_on_ties():
    assert box("glenn-greedy", (3, 3, 3, 3, 5)) == "four_of_a_kind"  # 3K = 4K = Chance = 17
    assert box("glenn-greedy", (2, 2, 3, 3, 3), used=("full_house",)) == "three_of_a_kind"


@pytest.mark.slow
def test_heuristics_take_the_large_straight():
    for sid in ("glenn-heuristic", "glenn-better-heuristic"):
        assert box(sid, (1, 2, 3, 4, 5)) == "large_straight"


@pytest.mark.slow
def test_order_of_table_3_is_reproduced():
    means = {
        sid: simulate(sid, 20_000, seed=2, n_jobs=1).summary()["mean"]
        for sid in ("glenn-greedy", "glenn-heuristic", "glenn-better-heuristic", "optimal")
    }
    assert means["glenn-greedy"] < means["glenn-heuristic"] < means["glenn-better-heuristic"]
    assert means["glenn-better-heuristic"] < means["optimal"]


def test_needs_yahtzee_boxes():
    with pytest.raises(StrategyError, match="13 Yahtzee boxes"):
        simulate("glenn-heuristic", 10, rules="yatzy")


def kept(sid, dice, **kw):
    s = get_strategy(sid)
    v = view_for("yahtzee-free-joker", dice, rolls_left=2, **kw)
    return v.tables.faces_from_counts(s.keep(v)[0])


def test_yahtzee_chasers_keeps():
    assert kept("glenn-yahtzees-only", (2, 2, 5, 5, 1), used=("fives",)) == (2, 2)  # open box
    assert kept("glenn-yahtzees-only", (1, 2, 3, 4, 6)) == (6,)  # all singletons: highest
    assert kept("glenn-yahtzees-and-straights", (1, 2, 3, 4, 6)) == (1, 2, 3, 4)
    assert kept("glenn-yahtzees-and-straights", (2, 3, 4, 5, 6)) == (2, 3, 4, 5, 6)
    # Rational: a pair with an open box beats a triple whose box is filled
    assert kept("glenn-rational-yahtzees", (4, 4, 4, 2, 2), used=("fours",)) == (2, 2)
    assert kept("glenn-yahtzees-and-straights", (4, 4, 4, 2, 2), used=("fours",)) == (4, 4, 4)


def test_box_moments_are_kept_in_the_table_cache(tmp_path, monkeypatch):
    """The heuristics' box moments come from a simulation of optimal play once per rule
    set; later they are read from the table cache, bit for bit."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.cache import TableCache
    from yahtzee_sim.strategies.glenn2006 import _MOMENTS, optimal_box_moments

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    rules = get_rules("2-yatzy")
    key = TableCache.key(rules, "v1")
    _MOMENTS.memory.pop(key, None)
    first = optimal_box_moments(rules)
    assert len(list(tmp_path.glob("box-moments-*"))) == 2  # the means and the variances
    _MOMENTS.memory.pop(key, None)
    again = optimal_box_moments(rules)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert first[0].shape == (rules.n_boxes,) and (first[1] >= 0).all()
