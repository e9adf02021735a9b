"""Plan odds: exact, and equal to brute force over every outcome of the rerolls."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import numpy as np
import pytest

from yahtzee_sim import get_rules
from yahtzee_sim.game.plan_odds import PlanOddsError, keep_odds, plan_odds

from helpers import small_saved_game


def _makes(rules, dice, c) -> bool:
    t = rules.tables
    return bool(t.score_table[t.roll_index(t.counts_from_faces(list(dice))), c] > 0)


@functools.cache
def _chase(rules, dice, j, c) -> Fraction:
    """Brute force: the chance roll ``dice`` with ``j`` rerolls left makes box ``c``,
    trying every keep (stopping once made)."""
    dice = tuple(sorted(dice))
    if _makes(rules, dice, c):
        return Fraction(1)
    if j == 0:
        return Fraction(0)
    keeps = {tuple(sorted(k)) for n in range(len(dice)) for k in itertools.combinations(dice, n)}
    return max(_after_keep(rules, k, j, c) for k in keeps)


@functools.cache
def _after_keep(rules, keep, j, c) -> Fraction:
    """Brute force: keep ``keep`` with ``j`` rerolls left, every outcome of the reroll."""
    n = rules.n_dice - len(keep)
    if n == 0:
        return Fraction(int(_makes(rules, keep, c)))
    outcomes = list(itertools.product(range(1, rules.n_faces + 1), repeat=n))
    total = sum(_chase(rules, tuple(sorted((*keep, *o))), j - 1, c) for o in outcomes)
    return total / len(outcomes)


@pytest.mark.parametrize(
    ("rules", "keep", "j"),
    [
        ("yahtzee", (2, 3, 4, 5), 1),
        ("yahtzee", (6, 6, 6), 1),
        ("yahtzee", (1, 2, 2), 2),
        ("yatzy", (3, 3, 5), 1),
        ("2-yatzy", (), 1),
        (small_saved_game(cap=2), (1,), 2),
        (small_saved_game(cap=2, n_dice=4), (2, 3), 2),
        (small_saved_game(cap=5), (), 3),
    ],
    ids=str,
)
def test_plan_odds_are_brute_force_over_the_dice(rules, keep, j):
    rules = get_rules(rules)
    odds = keep_odds(rules, j)[rules.tables.keep_from_faces(list(keep))]
    for c in range(rules.n_boxes):
        assert odds[c] == pytest.approx(float(_after_keep(rules, keep, j, c)), abs=1e-12)


def test_known_figures():
    # a straight's missing end, two rerolls: 1 - (2/3)**2
    assert plan_odds([2, 3, 4, 5], 2)["large_straight"] == pytest.approx(5 / 9, abs=1e-12)
    # three of a kind to Yahtzee in two rerolls: 1/36 + 10/36 * 1/6 + 25/36 * 1/36
    assert plan_odds([4, 4, 4], 2, boxes=["yahtzee"]) == {
        "yahtzee": pytest.approx(121 / 1296, abs=1e-12)
    }
    # three rolls in all, the best keep after the first: Yahtzee's classic 4.6%
    rules = get_rules("yahtzee")
    t, y = rules.tables, rules.box_index("yahtzee")
    q = keep_odds(rules, 2)[:, y]
    best = [
        q[t.roll_keep_keep[t.roll_keep_ptr[r] : t.roll_keep_ptr[r + 1]]].max()
        for r in range(t.n_rolls)
    ]
    first = t.keep_roll_prob[t.keep_roll_ptr[0] : t.keep_roll_ptr[1]]
    assert first @ np.array(best)[t.keep_roll_roll[: len(first)]] == pytest.approx(
        2783176 / 60466176, abs=1e-12
    )
    # keeping every die stops: the odds are whether those dice make the box
    assert plan_odds([1, 2, 3, 4, 6], 2, boxes=["small_straight", "large_straight"]) == {
        "small_straight": 1.0,
        "large_straight": 0.0,
    }


def test_bad_questions_are_refused():
    with pytest.raises(PlanOddsError, match="rolls_left"):
        plan_odds([1], 0)
    with pytest.raises(PlanOddsError, match="rolls_left"):
        plan_odds([1], 3)
    with pytest.raises(PlanOddsError, match="at most 5 dice"):
        plan_odds([1, 1, 1, 1, 1, 1], 1)
    with pytest.raises(ValueError, match="unknown box"):
        plan_odds([1], 1, boxes=["nope"])
    # saved-roll games: as many rerolls as a turn can hold
    maxi = get_rules("maxi-yatzy+cap1")
    assert keep_odds(maxi, 3).shape == (maxi.tables.n_keeps, maxi.n_boxes)
