"""Blind tournaments: exact cross-checks (two players; Tillius §4.4's four max-EV Yatzy
players), tie splitting, reproducibility, seats, errors and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from yahtzee_sim.analysis import (
    TournamentError,
    exact_winning_law,
    tournament,
    win_probability,
)
from yahtzee_sim.cli import main

from helpers import exact_law


@pytest.mark.slow
def test_two_player_win_rate_matches_the_exact_win_probability():
    res = tournament(["optimal", "greedy"], n_games=40_000, seed=1)
    exact = win_probability(exact_law("optimal").pmf, exact_law("greedy").pmf)
    rates = res.win_rates()
    se = res.wins[:, 0].std(ddof=1) / np.sqrt(res.games)
    assert abs(rates["win_rate"].iloc[0] - exact) < 4 * se
    assert rates["win_rate"].sum() == pytest.approx(1.0)


@pytest.mark.slow
def test_four_max_ev_yatzy_players_winning_score_tillius():
    law = exact_winning_law([exact_law("optimal", "yatzy").pmf] * 4)
    scores = np.arange(len(law))
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    mean = float(scores @ law)
    median = int(np.searchsorted(np.cumsum(law), 0.5))
    # Tillius §4.4 simulated 100,000 games: median 289, mean 286.9367 (SE about 0.13)
    assert median == 289
    assert abs(mean - 286.9367) < 3 * 0.13
    res = tournament(["optimal"], players=4, n_games=20_000, seed=2, rules="yatzy")
    w = res.winning_scores()
    assert abs(w.mean() - mean) < 4 * w.std(ddof=1) / np.sqrt(len(w))


def test_ties_split_and_identical_seats_are_symmetric():
    res = tournament(["greedy"], players=3, n_games=30_000, seed=3)
    np.testing.assert_allclose(res.wins.sum(axis=1), 1.0)
    ties = (res.scores == res.scores.max(axis=1, keepdims=True)).sum(axis=1) > 1
    assert ties.any() and np.all(res.wins[ties].max(axis=1) <= 0.5)
    rates = res.win_rates()
    assert np.all((rates["win_lo"] < 1 / 3) & (rates["win_hi"] > 1 / 3))


def test_seats_have_their_own_dice_and_results_are_reproducible():
    a = tournament(["greedy", "greedy"], n_games=2_000, seed=5)
    assert not np.array_equal(a.scores[:, 0], a.scores[:, 1])
    b = tournament(["greedy", "greedy"], n_games=2_000, seed=5, n_jobs=2)
    np.testing.assert_array_equal(a.scores, b.scores)


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"strategies": "", "players": 2}, "at least one strategy"),
        ({"strategies": "greedy", "players": 1}, "players must be an integer >= 2"),
        ({"strategies": "greedy,optimal,random", "players": 2}, "at most one strategy per seat"),
        ({"strategies": "greedy", "players": 2, "n_games": 0}, "n_games must be"),
    ],
)
def test_tournament_refuses_bad_inputs(kwargs, msg):
    with pytest.raises(TournamentError, match=msg):
        tournament(**kwargs)


def test_cli_tournament(capsys):
    argv = [
        "tournament",
        "--strategies",
        "optimal,greedy",
        "--players",
        "3",
        "--games",
        "500",
        "--json",
        "--quiet",
    ]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seats"] == ["optimal", "greedy", "greedy"]
    assert sum(out["win_rates"]) == pytest.approx(1.0)
    assert main(["tournament", "--strategies", "a,b,c", "--players", "2"]) == 2
    assert "at most one strategy per seat" in capsys.readouterr().err
