"""``check_rules`` catches a broken rule set: a box scoring past the most its kind declares,
a box that never scores, a solver value that optimal play does not reach, a total that is
not the sum of its boxes; its refusals are one line, and bad arguments are refused."""

from __future__ import annotations

import dataclasses

import pytest

from yahtzee_sim import RulesError, check_rules, get_rules
from yahtzee_sim.checks import rule_sets as checks
from yahtzee_sim.checks.rule_sets import RuleCheckError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.scoring import Box


@dataclasses.dataclass(frozen=True)
class DoubledBox(Box):
    """A box whose score of a roll is twice what its kind says."""

    def scores(self, counts, allow_one_pair: bool = False):
        return 2 * super().scores(counts, allow_one_pair)


def with_box(rules: str, name: str, box: Box) -> RuleSet:
    """``rules`` with its box ``name`` replaced by ``box``."""
    base = get_rules(rules)
    boxes = tuple(box if b.name == name else b for b in base.boxes)
    return dataclasses.replace(base, name=f"{rules} (broken)", boxes=boxes)


def test_a_box_scoring_past_its_declared_most_is_caught():
    broken = with_box(
        "yatzy",
        "small_straight",
        DoubledBox("small_straight", "straight", points=15, faces=(1, 2, 3, 4, 5)),
    )
    with pytest.raises(
        RuleCheckError,
        match=r"box scores check: box 'small_straight' scores 30 for \(1, 2, 3, 4, 5\), "
        r"outside 0\.\.15",
    ):
        check_rules(broken, solve=False)


def test_a_box_that_never_scores_is_caught():
    broken = with_box(
        "yatzy",
        "large_straight",
        Box("large_straight", "straight", points=20, faces=(1, 2, 3, 4, 5, 6)),
    )
    with pytest.raises(RuleCheckError, match="'large_straight' scores 0 on every roll"):
        check_rules(broken, solve=False)


def test_a_total_that_is_not_its_boxes_and_bonuses_is_caught(monkeypatch):
    play = checks.simulate

    def off_by_one(*args, **kwargs):
        res = play(*args, **kwargs)
        res.total[7] += 1
        return res

    monkeypatch.setattr(checks, "simulate", off_by_one)
    with pytest.raises(RuleCheckError, match="play check: random game 7 totals"):
        check_rules("yacht", solve=False, n_games=50)


def test_a_solver_value_optimal_play_does_not_reach_is_caught(monkeypatch):
    solve = checks.value_table

    class Inflated:
        def __init__(self, table):
            self.table = table

        def expected_value(self):
            return self.table.expected_value() + 3

    monkeypatch.setattr(checks, "value_table", lambda rules: Inflated(solve(rules)))
    with pytest.raises(RuleCheckError, match="solver check: optimal averages"):
        check_rules("upper-3d4f")


def test_a_refusal_is_one_line_and_a_rules_error():
    broken = with_box("2-yatzy", "twos", DoubledBox("twos", "upper", param=2))
    with pytest.raises(RulesError) as caught:
        check_rules(broken)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rules": "nope"}, "unknown rules 'nope'"),
        ({"rules": "yatzy", "n_games": 0}, "n_games must be an integer >= 1, got 0"),
        ({"rules": "yatzy", "solve": "yes"}, "solve must be"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(RulesError, match=message):
        check_rules(**kwargs)
