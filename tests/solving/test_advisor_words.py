"""The advisor in words on saved rolls, and plan odds on its options (API and CLI)."""

from __future__ import annotations

import json

import pytest

from yahtzee_sim.cli import main
from yahtzee_sim.game.plan_odds import plan_odds
from yahtzee_sim.solving.advisor import advise, with_plan_odds

from helpers import small_saved_game


def test_stopping_in_a_saved_roll_game_is_said_in_words():
    rules = small_saved_game(cap=2)
    options = advise([3, 3, 3], 1, rules=rules)
    stop = next(o for o in options if o.keep == (3, 3, 3))
    assert stop.stop_box == "all" and stop.saves == 1
    assert stop.text(rules) == "score All now and save 1 roll"
    assert stop.to_dict()["saves"] == 1
    boxes = advise([3, 3, 3], 0, rules=rules, saved_rolls=1)
    assert stop.value == pytest.approx(boxes[0].value) and boxes[0].box == "all"
    # five dice: keeping every die stays a keep
    (five,) = [o for o in advise([6, 6, 6, 6, 6], 2) if len(o.keep) == 5]
    assert five.stop_box is None and five.text(None) == "keep 6 6 6 6 6"


def test_plan_odds_on_the_advisors_options():
    options = with_plan_odds(advise([2, 3, 4, 5, 5], 2), 2, "yahtzee", ["large_straight"])
    assert options[0].keep == (2, 3, 4, 5)
    assert options[0].odds == {"large_straight": pytest.approx(5 / 9)}
    assert with_plan_odds(options[:1], 2, "yahtzee", ["small_straight"])[0].odds == {
        "small_straight": 1.0
    }
    for o in options:
        assert o.odds == plan_odds(o.keep, 2, boxes=["large_straight"])
    assert with_plan_odds(advise([2, 3, 4, 5, 5], 0), 0) == advise([2, 3, 4, 5, 5], 0)


def test_advise_cli_shows_plan_odds(capsys):
    args = ["advise", "--dice", "4,4,4,1,2", "--rolls-left", "2", "--top", "1"]
    assert main([*args, "--odds", "yahtzee,four_of_a_kind", "--json"]) == 0
    (best,) = json.loads(capsys.readouterr().out)["options"]
    assert best["keep"] == [4, 4, 4]
    assert best["odds"]["yahtzee"] == pytest.approx(121 / 1296)
    assert main([*args, "--odds", "open"]) == 0
    assert "yahtzee 9.3%" in capsys.readouterr().out
    assert main([*args, "--odds", "villa"]) == 2
    assert "unknown box 'villa'" in capsys.readouterr().err
