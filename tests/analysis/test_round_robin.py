"""Tournaments with visible matches: blind strategies unchanged, round robins, and
selection on the win share against a field."""

from __future__ import annotations

import json

import numpy as np
import pytest

from yahtzee_sim.analysis import TournamentError, round_robin, tournament


@pytest.mark.slow
def test_strategies_that_ignore_the_match_play_their_blind_games():
    seats = ["optimal", "greedy", "optimal"]
    blind = tournament(seats, n_games=3_000, seed=5)
    visible = tournament(seats, n_games=3_000, seed=5, visible=True)
    assert np.array_equal(blind.scores, visible.scores)
    assert visible.parameters["visible"] is True


@pytest.mark.slow
def test_round_robin_win_matrix_is_complementary_and_ranked():
    rr = round_robin(["optimal", "greedy", "chase"], n_games=1_000, seed=2)
    wm = rr.win_matrix()
    m = wm.values
    off = ~np.eye(3, dtype=bool)
    assert np.allclose((m + m.T)[off], 1.0)
    assert len(rr.seatings) == 6
    rank = rr.ranking()
    assert rank["strategy"].iloc[-1] == "greedy"
    assert json.loads(json.dumps(rr.to_dict()))["strategies"] == ["optimal", "greedy", "chase"]


def test_round_robin_errors():
    with pytest.raises(TournamentError, match="at least 3 distinct"):
        round_robin(["optimal", "greedy"], players=3)
    with pytest.raises(TournamentError, match="players must be"):
        round_robin(["optimal", "greedy"], players=1)


@pytest.mark.slow
def test_select_best_ranks_on_the_win_share_against_a_field():
    from yahtzee_sim.analysis import WinMetric, select_best

    res = select_best(
        ["optimal", "greedy", "chase"],
        delta=0.02,
        metric=WinMetric(field="optimal", players=2),
        n0=10,
        batch=100,
        seed=1,
    )
    assert res.means["optimal"] == pytest.approx(0.5)  # the field itself, every seat
    assert "greedy" not in res.winners
    assert res.parameters["field"] == "optimal" and res.parameters["players"] == 2
    assert res.parameters["metric"] == "win"
