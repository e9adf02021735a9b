"""Win probabilities: shares of a win, two laws' win probability, win probability now
against play-outs, score sheets and their refusals, the old keyword spellings."""

from __future__ import annotations

import warnings
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.win_probability import (
    ScoreSheet,
    ScoreSheetError,
    win_probability,
    win_probability_now,
    win_shares,
)

from helpers import LATE_A, LATE_B


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, 5), min_size=1, max_size=4).filter(lambda w: sum(w) > 0),
        min_size=2,
        max_size=4,
    )
)
def test_win_shares_match_brute_force_enumeration(weights):
    pmfs = [np.asarray(w, dtype=float) / sum(w) for w in weights]
    brute = np.zeros(len(pmfs))
    for xs in product(*[range(len(p)) for p in pmfs]):
        pr = np.prod([p[x] for p, x in zip(pmfs, xs, strict=True)])
        top = max(xs)
        winners = [i for i, x in enumerate(xs) if x == top]
        for i in winners:
            brute[i] += pr / len(winners)
    assert np.allclose(win_shares(pmfs), brute, atol=1e-12)


def _random_sheet(rules, boxes: int, rng) -> ScoreSheet:
    """A random score sheet with ``boxes`` boxes filled, each with the points of a random roll."""
    t = rules.tables
    names = rng.choice(rules.box_names, size=boxes, replace=False)
    rolls = rng.integers(t.n_rolls, size=boxes)
    pts = {
        str(n): int(t.score_table[r, rules.box_index(n)]) for n, r in zip(names, rolls, strict=True)
    }
    return ScoreSheet(rules, pts)


@pytest.mark.parametrize("position", range(3))
def test_win_probability_now_agrees_with_play_outs_at_random_positions(position):
    """Random mid-game score sheets (two or three players, late turns): the exact probabilities
    against 20,000 play-outs of max-EV players, within 4 SE."""
    rules = get_rules("yahtzee")
    rng = np.random.default_rng(100 + position)
    n, t = (2, 3, 2)[position], (9, 10, 11)[position]
    sheets = [_random_sheet(rules, t + (1 if i < n - 1 else 0), rng) for i in range(n)]
    res = win_probability_now(sheets, n_playouts=20_000, strategy="optimal", seed=position)
    assert res.to_move == n - 1 and sum(res.exact) == pytest.approx(1.0)
    for p, (lo, hi) in zip(res.exact, res.simulated_ci95, strict=True):
        se = (hi - lo) / 2 / 1.96
        assert abs(p - (lo + hi) / 2) < 4 * max(se, 1e-4)


def test_a_finished_game_has_a_certain_winner():
    full_a = LATE_A + ",yahtzee=50,chance=20"
    full_b = LATE_B + ",large_straight=40,chance=22"
    res = win_probability_now([full_a, full_b])
    a, b = (ScoreSheet.parse(c).score for c in (full_a, full_b))
    assert res.to_move == -1
    assert res.exact == ([1.0, 0.0] if a > b else [0.0, 1.0])


@pytest.mark.parametrize(
    "sheets, match",
    [
        (["ones=7", ""], "ones=7 is impossible"),
        (["aces=3", ""], "unknown box 'aces'"),
        (["ones=3,ones=2", ""], "given twice"),
        (["ones", ""], "is not box=points"),
        (["ones=3,yahtzee_bonuses=1", ""], "yahtzee_bonuses=1 needs"),
        (["ones=3,twos=6", ""], "seat 0 has 2 boxes filled"),
        (["ones=3"], "at least two score sheets"),
    ],
)
def test_impossible_score_sheets_are_refused(sheets, match):
    with pytest.raises(ScoreSheetError, match=match):
        win_probability_now(sheets)


def test_score_sheet_totals_include_bonuses():
    c = ScoreSheet.parse("fours=16,fives=25,sixes=24,yahtzee=50,chance=20,yahtzee_bonuses=1")
    assert c.upper_total == 65 and c.flag == 1
    assert c.score == 16 + 25 + 24 + 35 + 50 + 20 + 100


def test_two_laws_win_probability_is_the_two_player_share():
    a, b = np.array([0.2, 0.5, 0.3]), np.array([0.6, 0.1, 0.1, 0.2])
    assert win_probability(a, b) == pytest.approx(win_shares([a, b])[0], abs=1e-12)
    assert win_probability(a, a) == pytest.approx(0.5)


def test_play_outs_need_the_strategy_of_every_seat():
    with pytest.raises(ScoreSheetError, match="give the strategy every seat plays"):
        win_probability_now([LATE_A, LATE_B], n_playouts=10)


def test_the_old_keywords_still_work_with_a_deprecation_warning():
    """``cards=`` and ``simulate=`` are the old spellings of ``sheets=`` and ``n_playouts=``:
    the same result, and a DeprecationWarning naming the new keyword."""
    new = win_probability_now(sheets=[LATE_A, LATE_B], n_playouts=50, strategy="optimal", seed=3)
    with pytest.warns(DeprecationWarning, match="simulate= is now called n_playouts="):
        old = win_probability_now([LATE_A, LATE_B], simulate=50, strategy="optimal", seed=3)
    with pytest.warns(DeprecationWarning, match="cards= is now called sheets="):
        assert win_probability_now(cards=[LATE_A, LATE_B]).exact == new.exact
    assert old.to_dict() == new.to_dict()
    with warnings.catch_warnings(), pytest.raises(TypeError, match="both simulate= and"):
        warnings.simplefilter("ignore", DeprecationWarning)
        win_probability_now([LATE_A, LATE_B], simulate=5, n_playouts=5)
