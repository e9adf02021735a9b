"""Rules that pay the Yahtzee bonus a limited number of times ("Simulating Yahtzee"'s
engine: `yahtzee-single-bonus`): the three-valued flag, checked against an independent
brute-force recursion on a small game, the exact evaluator and the engine."""

import itertools
from functools import cache

import numpy as np
import pytest

from yahtzee_sim import get_rules, simulate
from yahtzee_sim.errors import RulesError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import bonus_payable, flag_size, max_points_to_come
from yahtzee_sim.solving.solver import value_table

from helpers import bonus_limit_game


def _brute_value(rules: RuleSet) -> float:
    """Max expected score by plain recursion over dice sequences and every keep (shares
    nothing with the widget but :meth:`Box.score`)."""
    F, N, C = rules.n_faces, rules.n_dice, rules.n_boxes
    yi = rules.yahtzee_index
    limit = rules.yahtzee_bonus_limit

    def counts(dice):
        return [sorted(dice).count(f + 1) for f in range(F)]

    @cache
    def state_value(used: int, upper: int, flag: int) -> float:
        if used == (1 << C) - 1:
            return 0.0
        rolls = list(itertools.product(range(1, F + 1), repeat=N))
        return sum(
            best(tuple(sorted(d)), rules.rolls_per_turn - 1, used, upper, flag) for d in rolls
        ) / len(rolls)

    @cache
    def best(dice, left, used, upper, flag) -> float:
        value = score_now(dice, used, upper, flag)
        if left:
            for k in range(N):  # keep k dice (keeping all = scoring now)
                for kept in set(itertools.combinations(dice, k)):
                    rolls = list(itertools.product(range(1, F + 1), repeat=N - k))
                    v = sum(
                        best(tuple(sorted(kept + r)), left - 1, used, upper, flag) for r in rolls
                    ) / len(rolls)
                    value = max(value, v)
        return value

    def score_now(dice, used, upper, flag) -> float:
        cnt = counts(dice)
        is_yahtzee = max(cnt) == N
        payable = flag >= 1 and (limit == 0 or flag <= limit)
        ybonus = rules.yahtzee_bonus if is_yahtzee and (used >> yi) & 1 and payable else 0
        if ybonus and limit:
            flag += 1
        out = -1.0
        for c, cat in enumerate(rules.boxes):
            if (used >> c) & 1:
                continue
            p = cat.score(cnt)
            up, ub = upper, 0
            if cat.is_upper:
                up = min(upper + p, rules.upper_bonus_threshold)
                ub = rules.upper_bonus if upper < rules.upper_bonus_threshold <= upper + p else 0
            nf = 1 if c == yi and p == cat.points else flag
            out = max(out, p + ub + ybonus + state_value(used | (1 << c), up, nf))
        return out

    return state_value(0, 0, 0)


@pytest.mark.parametrize("limit", [0, 1, 2])
def test_solver_matches_brute_force_recursion(limit):
    rules = bonus_limit_game(limit)
    assert value_table(rules).expected_value() == pytest.approx(_brute_value(rules), abs=1e-11)


def test_fewer_bonuses_are_worth_less():
    values = [value_table(bonus_limit_game(limit)).expected_value() for limit in (1, 2, 0)]
    no_bonus = value_table(bonus_limit_game(0, bonus=0)).expected_value()
    assert no_bonus < values[0] < values[1] < values[2]


@pytest.mark.parametrize("limit", [1, 0])
def test_exact_law_and_engine_agree_with_the_solver(limit):
    rules = bonus_limit_game(limit)
    ev = value_table(rules).expected_value()
    assert evaluate("optimal", rules).mean == pytest.approx(ev, abs=1e-10)
    res = simulate("optimal", 40_000, seed=3, rules=rules)
    s = res.summary()
    assert abs(s["mean"] - ev) < 4 * s["sd"] / np.sqrt(40_000)
    # the engine pays at most `limit` bonuses
    if limit:
        assert res.yahtzee_bonuses.max() == limit


def test_single_bonus_preset():
    rules = get_rules("yahtzee-single-bonus")
    assert (rules.yahtzee_bonus, rules.yahtzee_bonus_limit, rules.joker) == (100, 1, "none")
    assert flag_size(rules) == 3
    assert bonus_payable(rules, np.array([0, 1, 2])).tolist() == [False, True, False]
    # unlimited and limited rules alike: after the box holds 50, at most one more bonus
    full_but_two = 0b1100000000000  # Yahtzee and Chance filled (bits 11, 12)
    bound = max_points_to_come(rules, [full_but_two], 1)[0]
    assert bound == max_points_to_come(get_rules("yahtzee-no-joker"), [full_but_two], 1)[0] - 1000
    assert max_points_to_come(rules, [full_but_two], 2)[0] == bound - 100
    # the solved value lies between no bonus and an unlimited bonus
    ev = value_table(rules).expected_value()
    assert 245.8707745 < ev < 253.9702412
    assert ev == pytest.approx(252.9569127, abs=5e-8)


def test_bonus_limit_is_validated_and_keeps_old_fingerprints():
    with pytest.raises(RulesError, match="yahtzee_bonus_limit"):
        bonus_limit_game(-1)
    with pytest.raises(RulesError, match="needs a yahtzee_bonus"):
        bonus_limit_game(1, bonus=0)
    assert "yahtzee_bonus_limit" not in get_rules("yahtzee").describe()
    assert get_rules("yahtzee-single-bonus").describe()["yahtzee_bonus_limit"] == 1


def test_advisor_counts_paid_bonuses():
    from yahtzee_sim.solving.advisor import PositionError, advise

    used = ["yahtzee", "chance"]
    five = [4, 4, 4, 4, 4]
    first = advise(five, 0, used=used, flag=True, rules="yahtzee-single-bonus")
    after = advise(five, 0, used=used, flag=True, bonuses_paid=1, rules="yahtzee-single-bonus")
    # the one bonus still to earn is worth 100 now; once paid, a Yahtzee earns nothing extra
    assert first[0].value - after[0].value > 100
    with pytest.raises(PositionError, match="do not limit"):
        advise(five, 0, used=used, flag=True, bonuses_paid=1, rules="yahtzee")
    with pytest.raises(PositionError, match="at most 1"):
        advise(five, 0, used=used, flag=True, bonuses_paid=2, rules="yahtzee-single-bonus")
