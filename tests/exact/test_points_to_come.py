"""Points still to come under max-EV play: their moments and law from any state,
between turns and inside one; the module's former name still imports."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.exact.points_to_come import future_law, future_moments
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.win_probability import (
    ScoreSheet,
)
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table

from helpers import LATE_A, exact_law


@pytest.mark.slow
@pytest.mark.parametrize("rules_name", ["2-yatzy", "yahtzee"])
def test_future_moments_mean_is_the_value_table_and_sd_the_exact_sd(rules_name):
    fm = future_moments(rules_name)
    V = value_table(rules_name).values
    reach = V != 0
    assert np.abs(fm.mean[reach] - V[reach]).max() < 1e-9
    ev = exact_law("optimal", rules_name)
    assert fm.sd[0] == pytest.approx(ev.sd, rel=1e-10)


def test_future_law_from_the_start_is_optimal_play_s_law():
    ev = evaluate("optimal", "2-yatzy")
    law = future_law("2-yatzy", 0)
    assert np.allclose(law, ev.pmf[: len(law)], atol=1e-14)
    assert ev.pmf[len(law) :].sum() < 1e-14


def test_the_former_module_name_still_imports():
    from yahtzee_sim.exact import future, points_to_come
    from yahtzee_sim.exact.future import FutureLaws, future_law

    assert future is points_to_come
    assert (future_law, FutureLaws) == (points_to_come.future_law, points_to_come.FutureLaws)


def test_future_law_inside_a_turn_has_the_advisor_s_value():
    rules = get_rules("yahtzee")
    card = ScoreSheet.parse(LATE_A.split(",four_of_a_kind")[0], rules)
    for dice, rolls_left in (([6, 6, 6, 2, 3], 2), ([1, 2, 3, 4, 6], 1), ([5, 5, 5, 5, 2], 0)):
        counts = rules.tables.counts_from_faces(dice)
        law = future_law(rules, card.state, counts, rolls_left)
        best = advise(dice, rolls_left, used=card.boxes, upper=card.upper_total, rules=rules)[0]
        assert law.sum() == pytest.approx(1.0, abs=1e-12)
        assert float(law @ np.arange(len(law))) == pytest.approx(best.value, abs=1e-9)


def test_future_law_inside_a_turn_refuses_rolls_left_out_of_range():
    from yahtzee_sim.errors import FutureError
    from yahtzee_sim.game.state import encode_state

    start = encode_state(get_rules("yahtzee"), 0, 0, 0)
    for bad in (-1, 3, None, 1.5):
        with pytest.raises(FutureError, match="rolls_left"):
            future_law("yahtzee", start, dice=[1, 1, 1, 1, 1, 0], rolls_left=bad)
