"""Regret without the score law: the forward pass streamed a block of states at a time, as
on games whose law does not fit in memory (``maxi-yatzy-3``), gives the regret of the pass
that keeps every level, bit for bit."""

from __future__ import annotations

import pytest

from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret, regret
from yahtzee_sim.exact import forward
from yahtzee_sim.exact.laws import ExactEvaluationError
from yahtzee_sim.game.rules import RuleSet, get_rules

from helpers import BatchedOnly


def six_dice_game() -> RuleSet:
    """Maxi Yatzy's dice and rolls (six dice, three rolls a turn, nothing saved) with six of
    its boxes, two of them upper boxes with a bonus at 40."""
    base = get_rules("maxi-yatzy-3")
    keep = ("fives", "sixes", "three_pairs", "villa", "chance", "maxi_yatzy")
    return RuleSet(
        name="maxi-6box",
        n_dice=6,
        n_faces=6,
        rolls_per_turn=3,
        boxes=tuple(b for b in base.boxes if b.name in keep),
        upper_bonus_threshold=40,
        upper_bonus=25,
    )


SIX = six_dice_game()


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["greedy", BatchedOnly], ids=["table", "asked"])
def test_streamed_regret_is_the_regret_of_the_whole_pass(strategy, monkeypatch):
    # small blocks and chunks: every level of the small game is streamed in several blocks
    monkeypatch.setattr(forward, "STREAM_STATES", 40)
    monkeypatch.setattr(forward, "_STATES_PER_TABLE", 16)
    monkeypatch.setattr(forward, "ROWS_PER_CHUNK", 9 * SIX.tables.n_rolls)  # 9 states a call
    make = (lambda: strategy) if isinstance(strategy, str) else strategy
    law, whole = evaluate_with_regret(make(), SIX, top=8)  # keeps every level's outcomes
    moments, streamed = evaluate_with_regret(make(), SIX, top=8, distribution=False)
    assert streamed.to_dict() == whole.to_dict()
    assert regret(make(), SIX, top=8).to_dict() == whole.to_dict()  # regret alone streams too
    assert (moments.mean, moments.sd) == (law.mean, law.sd)
    assert streamed.total == pytest.approx(streamed.optimal_value - law.mean, abs=1e-9)
    assert streamed.by_turn.sum() == pytest.approx(streamed.total, abs=1e-9)
    assert streamed.by_box.sum() == pytest.approx(streamed.by_decision["box"], abs=1e-9)
    assert streamed.total > 1 and len(streamed.situations) == 8


def test_the_law_of_maxi_yatzy_3_is_still_refused_for_its_size():
    with pytest.raises(ExactEvaluationError, match="out of reach"):
        evaluate_with_regret("greedy", "maxi-yatzy-3", distribution=True)
