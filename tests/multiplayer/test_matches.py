"""Visible matches: seats in lockstep on their blind dice, what a seat sees of the
others, and opponent-aware play (win-aware, chase) in them."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import simulate
from yahtzee_sim._core.scoring import scored_state, yahtzee_bonuses
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis import tournament
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.matches import play_matches
from yahtzee_sim.multiplayer.win_probability import (
    ScoreSheet,
)
from yahtzee_sim.strategies import Strategy, get_strategy

from helpers import LATE_A, LATE_B


def test_visible_results_do_not_depend_on_jobs_or_chunks():
    players = [get_strategy("win-aware"), get_strategy("optimal")]
    rules = get_rules("yahtzee")
    a = play_matches(players, rules, 1_500, seed=3)
    b = play_matches(players, rules, 1_500, seed=3, n_jobs=2, chunk_size=400)
    assert np.array_equal(a, b)


class _Spy(Strategy):
    """Plays optimal and records what it sees of the match at every box choice."""

    name = "spy"

    def __init__(self) -> None:
        self.seen = []

    def prepare(self, rules) -> None:
        self._opt = get_strategy("optimal")
        self._opt.prepare(rules)

    def keep(self, view):
        return self._opt.keep(view)

    def box(self, view):
        tb = view.match
        self.seen.append((view.turn, view.seat, view.n_players, tb.turns.copy(), tb.score.copy()))
        return self._opt.box(view)


def test_a_seat_sees_the_others_cards_as_they_stand():
    rules = get_rules("yahtzee")
    spies = [_Spy(), _Spy(), _Spy()]
    for s in spies:
        s.prepare(rules)
    totals = play_matches(spies, rules, 50, seed=9)
    for seat, spy in enumerate(spies):
        assert len(spy.seen) == 13
        for turn, s, n, turns, _ in spy.seen:
            assert (s, n) == (seat, 3)
            others = [j for j in range(3) if j != seat]
            assert turns.tolist() == [turn + 1 if j < seat else turn for j in others]
    # the last seat's last look: the others have finished, their scores are final
    _, _, _, turns, score = spies[2].seen[-1]
    assert turns.tolist() == [13, 13]
    assert np.array_equal(score, totals[:, :2])


def test_without_a_match_opponent_aware_play_is_max_ev():
    a = simulate("win-aware", 2_000, seed=4)
    b = simulate("optimal", 2_000, seed=4)
    assert np.array_equal(a.total, b.total)


def _paired_gain(strategy, seat, games, seed):
    seats = ["optimal", "optimal"]
    base = tournament(seats, n_games=games, seed=seed, visible=True, n_jobs=2)
    seats[seat] = strategy
    res = tournament(seats, n_games=games, seed=seed, visible=True, n_jobs=2)
    return res.wins[:, seat] - base.wins[:, seat]


@pytest.mark.slow
def test_chase_wins_more_than_max_ev_in_the_last_seat_on_the_same_dice():
    d = _paired_gain("chase", 1, 20_000, 11)
    assert np.count_nonzero(d) > 0
    assert d.mean() - 3 * d.std(ddof=1) / np.sqrt(len(d)) > 0


@pytest.mark.slow
def test_win_aware_wins_more_than_max_ev_on_the_same_dice():
    d = _paired_gain("win-aware", 1, 20_000, 12)
    assert d.mean() - 2 * d.std(ddof=1) / np.sqrt(len(d)) > 0


def _best_last_turn(rules, card, opp_total) -> float:
    """The largest P(win) (ties half) of the last turn of ``card`` (one box open) against
    a finished total, by brute force: every roll, every keep, both rerolls."""
    t = rules.tables
    kr = kernel_rules(rules)
    used, upper, flag = card.used, min(card.upper_total, rules.upper_cap), card.flag
    c = next(j for j in range(rules.n_boxes) if not (used >> j) & 1)
    share = np.empty(t.n_rolls)
    rolls = np.arange(t.n_rolls)
    yahtzee_bonus = yahtzee_bonuses(kr, rolls, np.full(t.n_rolls, used), np.full(t.n_rolls, flag))
    for r in range(t.n_rolls):
        p = int(t.score_table[r, c])
        _, bonus = scored_state(kr, used, upper, flag, c, p)
        x = card.score + p + bonus + int(yahtzee_bonus[r])
        share[r] = 1.0 if x > opp_total else 0.5 if x == opp_total else 0.0
    dense = t.dense_keep_roll() if callable(t.dense_keep_roll) else t.dense_keep_roll
    sub = (t.keep_counts[None, :, :] <= t.roll_counts[:, None, :]).all(axis=2)  # rolls x keeps
    value = share
    for _ in range(rules.rolls_per_turn - 1):
        v_keep = dense @ value
        value = np.where(sub, v_keep[None, :], -1.0).max(axis=1)
    return float(dense[0] @ value)


@pytest.mark.parametrize("opp_chance", [22, 30])
def test_chase_plays_the_exact_best_last_turn(opp_chance):
    """Seat 1 with only Chance open (263 points), seat 0 finished (279 or 287): chase's
    (and win-aware's) win rate from there matches the brute-force best over every keep
    plan; max-EV play's is lower."""
    rules = get_rules("yahtzee")
    me = ScoreSheet.parse(LATE_A + ",yahtzee=50", rules)
    opp = ScoreSheet.parse(LATE_B + f",large_straight=40,chance={opp_chance}", rules)
    best = _best_last_turn(rules, me, opp.score)
    for name in ("chase", "win-aware", "optimal"):
        players = [get_strategy("optimal"), get_strategy(name)]
        totals = play_matches(players, rules, 60_000, seed=7, start=([opp, me], 1))
        assert (totals[:, 0] == opp.score).all()
        wins = (totals[:, 1] > opp.score) + 0.5 * (totals[:, 1] == opp.score)
        se = wins.std(ddof=1) / np.sqrt(len(wins))
        if name == "optimal":
            assert wins.mean() < best - 4 * se
        else:
            assert abs(wins.mean() - best) < 4 * se


@pytest.mark.slow
def test_matches_split_by_first_game_and_blind_matches_hide_the_cards():
    rules = get_rules("yahtzee")
    players = [get_strategy("win-aware"), get_strategy("optimal")]
    whole = play_matches(players, rules, 900, seed=2)
    tail = play_matches(players, rules, 400, seed=2, first_game=500)
    assert np.array_equal(whole[500:], tail)
    blind = play_matches(players, rules, 900, seed=2, visible=False)
    both_optimal = play_matches([get_strategy("optimal")] * 2, rules, 900, seed=2)
    assert np.array_equal(blind, both_optimal)


def test_a_decided_game_is_still_played_max_ev():
    """Seat 0 finished out of reach: every move wins with probability 0, and the
    opponent-aware strategies then play exactly max-EV (same dice, same totals)."""
    rules = get_rules("yahtzee")
    me = ScoreSheet.parse(LATE_A + ",yahtzee=50", rules)
    far = LATE_B.replace("yahtzee=0", "yahtzee=50") + ",large_straight=40,chance=22"
    opp = ScoreSheet.parse(far + ",yahtzee_bonuses=3", rules)
    start = ([opp, me], 1)
    ref = play_matches([get_strategy("optimal")] * 2, rules, 5_000, seed=1, start=start)
    for name in ("chase", "win-aware"):
        got = play_matches(
            [get_strategy("optimal"), get_strategy(name)], rules, 5_000, 1, start=start
        )
        assert np.array_equal(got, ref)
