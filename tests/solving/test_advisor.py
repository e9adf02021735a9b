"""The advisor: every option's value at a position, their order, bonus and joker positions,
refusals, optimal play taking the best option, and `advise` / `solve` on the command line."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import get_rules
from yahtzee_sim.cli import main
from yahtzee_sim.errors import RulesError
from yahtzee_sim.game.dice import DiceError
from yahtzee_sim.solving.advisor import PositionError, advise, reachable_upper_totals
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies import get_strategy

from helpers import view_for


def test_large_straight_example():
    """Fresh game, Hasbro rules, last roll 1-2-3-4-5: Large straight, 261.53."""
    best = advise([1, 2, 3, 4, 5], 0)[0]
    assert best.box == "large_straight"
    assert best.value == pytest.approx(261.53, abs=0.005)


def test_keep_values_average_to_the_game_value():
    """Sum over first rolls of P(roll) x best option value = optimal EV."""
    rules = get_rules("yahtzee")
    t = rules.tables
    total = 0.0
    for r in range(t.n_rolls):
        p = t.keep_roll_prob[t.keep_roll_ptr[0] + r]
        assert t.keep_roll_roll[t.keep_roll_ptr[0] + r] == r
        total += p * advise(t.faces_from_counts(t.roll_counts[r]), 2)[0].value
    assert total == pytest.approx(value_table(rules).expected_value(), abs=1e-9)


def test_options_are_distinct_and_sorted():
    opts = advise([1, 3, 5, 5, 6], 2)
    keeps = [o.keep for o in opts]
    assert len(keeps) == len(set(keeps)) == 24  # sub-multisets of {1,3,5,5,6}
    assert () in keeps and (1, 3, 5, 5, 6) in keeps
    values = [o.value for o in opts]
    assert values == sorted(values, reverse=True)


def test_upper_bonus_and_joker_positions():
    # forced joker: five 4s with Yahtzee 50 and Fours open -> only Fours, +100 bonus
    opts = advise([4, 4, 4, 4, 4], 0, used=["yahtzee"], flag=True)
    assert [o.box for o in opts] == ["fours"]
    nxt = value_table("yahtzee").value(
        used=(1 << 11) | (1 << 3), upper=20, flag=1
    )  # yahtzee + fours filled
    assert opts[0].value == pytest.approx(20 + 100 + nxt)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dice": [1, 2, 3]}, DiceError, "expected 5 dice"),
        ({"dice": [0, 1, 2, 3, 4]}, DiceError, "out of range"),
        ({"used": ["kniffel"]}, RulesError, "unknown box"),
        ({"used": ["ones", "ones"]}, PositionError, "twice"),
        ({"upper": 12, "used": ["ones"]}, PositionError, "impossible"),
        ({"upper": -1}, PositionError, "impossible"),
        ({"rolls_left": 3}, PositionError, "rolls_left"),
        ({"flag": True}, PositionError, "needs 'yahtzee'"),
        ({"flag": True, "used": ["yahtzee"], "rules": "yatzy"}, RulesError, "unknown"),
    ],
)
def test_bad_positions(kwargs, error, match):
    args = {"dice": [1, 3, 5, 5, 6], "rolls_left": 2} | kwargs
    with pytest.raises(error, match=match):
        advise(**args)


def test_reachable_upper_totals():
    rules = get_rules("yahtzee")
    assert reachable_upper_totals(rules, 0) == {0}
    assert reachable_upper_totals(rules, 0b1) == {0, 1, 2, 3, 4, 5}
    assert 12 in reachable_upper_totals(rules, 0b1001)  # ones + fours


@settings(max_examples=60, deadline=None)
@given(
    dice=st.lists(st.integers(1, 6), min_size=5, max_size=5),
    used=st.integers(0, 2**13 - 2),
    rolls_left=st.integers(0, 2),
    data=st.data(),
)
def test_optimal_strategy_plays_the_advisors_best_option(dice, used, rolls_left, data):
    rules = get_rules("yahtzee")
    names = [n for i, n in enumerate(rules.box_names) if (used >> i) & 1]
    upper = data.draw(st.sampled_from(sorted(reachable_upper_totals(rules, used))))
    yi = rules.yahtzee_index
    flag = data.draw(st.integers(0, 1)) if (used >> yi) & 1 else 0
    opts = advise(dice, rolls_left, used=names, upper=upper, flag=bool(flag))
    v = view_for("yahtzee", dice, used=names, flag=flag, upper_total=upper, rolls_left=rolls_left)
    s = get_strategy("optimal")
    if rolls_left:
        kept = v.tables.faces_from_counts(s.keep(v)[0])
        chosen = next(o for o in opts if o.keep == kept)
    else:
        chosen = next(o for o in opts if o.box == rules.box_names[s.box(v)[0]])
    assert chosen.value == pytest.approx(opts[0].value, abs=1e-9)


def test_cli_advise_json(capsys):
    code = main(["advise", "--dice", "1,2,3,4,5", "--rolls-left", "0", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["rules"] == "yahtzee"
    assert data["options"][0] == {
        "box": "large_straight",
        "value": pytest.approx(261.53, abs=0.005),
    }
    code = main(
        [
            "advise",
            "--dice",
            "1,3,5,5,6",
            "--rolls-left",
            "2",
            "--used",
            "ones,fours,chance",
            "--upper",
            "12",
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert data["options"][0]["keep"] == [5, 5]
    assert all(isinstance(o["keep"], list) for o in data["options"])


@pytest.mark.parametrize(
    "args",
    [
        ["--dice", "1,3,5,5,6", "--rolls-left", "2", "--used", "ones,chance", "--upper", "12"],
        ["--dice", "1,3,5,5,x", "--rolls-left", "2"],
        ["--dice", "1,3,5,5,6", "--rolls-left", "2", "--used", "kniffel"],
        ["--dice", "1,3,5,5,6,6", "--rolls-left", "0"],
    ],
)
def test_cli_advise_errors(capsys, args):
    assert main(["advise", *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error" in err


def test_cli_solve_json(capsys):
    assert main(["solve", "--rules", "2-yatzy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["expected_value"] == pytest.approx(5.0)
    assert data["states"] == 4 and {"seconds", "rules", "source"} <= set(data)
    assert np.isfinite(data["seconds"])


def test_keeping_every_die_is_valued_as_the_best_box_now():
    """Keeping every die ends the rolling (as in the engine), so that option is worth
    the roll's best box, not the value of the same roll with a reroll still in hand."""
    dice = [1, 2, 3, 3, 6]
    keep_all = {tuple(o.keep): o.value for o in advise(dice, 2)}[(1, 2, 3, 3, 6)]
    assert keep_all == advise(dice, 0)[0].value
    assert keep_all < advise(dice, 1)[0].value  # with a reroll left this roll is worth more
