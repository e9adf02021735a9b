"""Visible multiplayer matches: lockstep seats on their blind dice, what a seat sees,
win-aware and chase play, remaining-score moments and laws, the live win probability,
round robins, and the CLI."""

from __future__ import annotations

import json
import threading
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import simulate
from yahtzee_sim._kernels.scoring import kernel_rules, scored_state, yahtzee_bonus_points
from yahtzee_sim._kernels.widget import buffer_rows, new_work
from yahtzee_sim.analysis import TournamentError, round_robin, tournament
from yahtzee_sim.cli import main
from yahtzee_sim.exact.future import future_law, future_moments
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import decode_state
from yahtzee_sim.multiplayer.matches import play_matches
from yahtzee_sim.multiplayer.winprob import (
    ScoreSheet,
    ScoreSheetError,
    win_probability_now,
    win_shares,
)
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies import Strategy, get_strategy

from helpers import exact_law

LATE_A = (
    "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,"
    "four_of_a_kind=0,full_house=25,small_straight=30,large_straight=40"
)
LATE_B = (
    "ones=2,twos=6,threes=12,fours=16,fives=20,sixes=24,three_of_a_kind=25,"
    "four_of_a_kind=22,full_house=25,small_straight=30,yahtzee=0"
)


# ----------------------------------------------------------------- the matches
@pytest.mark.slow
def test_strategies_that_ignore_the_match_play_their_blind_games():
    seats = ["optimal", "greedy", "optimal"]
    blind = tournament(seats, n_games=3_000, seed=5)
    visible = tournament(seats, n_games=3_000, seed=5, visible=True)
    assert np.array_equal(blind.scores, visible.scores)
    assert visible.parameters["visible"] is True


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


# ------------------------------------------------------- caller-valued lanes
@pytest.mark.slow
@pytest.mark.parametrize("rules_name", ["yahtzee", "yatzy"])
def test_mixed_lanes_with_max_ev_values_reproduce_optimal_decisions(rules_name):
    """Games at different states as the lanes of one widget_mixed call, each box valued
    by max-EV (points + bonuses + the next state's value): every lane's decisions and
    value are optimal's at its own state (joker rules and Yahtzee bonuses included)."""
    from yahtzee_sim._kernels.widget import mask_used_boxes, widget_mixed

    rules = get_rules(rules_name)
    kr = kernel_rules(rules)
    V = value_table(rules).values
    opt = get_strategy("optimal")
    rng = np.random.default_rng(0)
    states = rng.choice(np.flatnonzero(V > 0), size=12, replace=False)
    if rules.has_yahtzee_flag:  # and states whose rolls earn the Yahtzee bonus
        used, _, flag = decode_state(rules, np.flatnonzero(V > 0))
        states = np.r_[states, rng.choice(np.flatnonzero(V > 0)[flag == 1], 6, replace=False)]
    states = np.sort(states)
    keep_opt, cat_opt = opt.decision_table(rules, states)
    nu = len(states)
    work = new_work(kr, nu, 1)
    val = buffer_rows(work.val, kr.slot_points.shape[0], nu)
    val_bonus = buffer_rows(work.val_bonus, kr.slot_points.shape[0], nu)
    used_l, upper_l, flag_l = decode_state(rules, states)
    for t in range(nu):
        used, upper, flag = int(used_l[t]), int(upper_l[t]), int(flag_l[t])
        for c in range(rules.n_boxes):
            if (used >> c) & 1:
                continue
            for slot in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                p = int(kr.slot_points[slot])
                s2, bonus = scored_state(kr, used, upper, flag, c, p)
                val[slot, t] = p + bonus + V[s2]
                if flag:  # the roll also earns the Yahtzee bonus
                    val_bonus[slot, t] = p + bonus + V[s2] + rules.yahtzee_bonus
        mask_used_boxes(kr, used, t, val)
    lane_used = np.ascontiguousarray(used_l, dtype=np.int64)
    lane_flag = np.ascontiguousarray(flag_l, dtype=np.int64)
    W, cat, keep = widget_mixed(kr, lane_used, lane_flag, nu, work, 1)
    assert np.allclose(W[0, :nu], V[states], atol=1e-9)
    assert np.array_equal(cat[:, :nu].T, cat_opt)
    for j in range(1, rules.rolls_per_turn):
        assert np.array_equal(keep[j, :, :nu].T, keep_opt[:, j - 1])


# --------------------------------------------------------- win-aware and chase
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
    for r in range(t.n_rolls):
        p = int(t.score_table[r, c])
        _, bonus = scored_state(kr, used, upper, flag, c, p)
        x = card.score + p + bonus + yahtzee_bonus_points(kr, r, used, flag)
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


# ------------------------------------------------------ moments and exact laws
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


def test_future_law_inside_a_turn_has_the_advisor_s_value():
    rules = get_rules("yahtzee")
    card = ScoreSheet.parse(LATE_A.split(",four_of_a_kind")[0], rules)
    for dice, rolls_left in (([6, 6, 6, 2, 3], 2), ([1, 2, 3, 4, 6], 1), ([5, 5, 5, 5, 2], 0)):
        counts = rules.tables.counts_from_faces(dice)
        law = future_law(rules, card.state, counts, rolls_left)
        best = advise(dice, rolls_left, used=card.boxes, upper=card.upper_total, rules=rules)[0]
        assert law.sum() == pytest.approx(1.0, abs=1e-12)
        assert float(law @ np.arange(len(law))) == pytest.approx(best.value, abs=1e-9)


# ---------------------------------------------------------- live win probability
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


def _random_card(rules, boxes: int, rng) -> ScoreSheet:
    """A random card with ``boxes`` boxes filled, each with the points of a random roll."""
    t = rules.tables
    names = rng.choice(rules.box_names, size=boxes, replace=False)
    rolls = rng.integers(t.n_rolls, size=boxes)
    pts = {
        str(n): int(t.score_table[r, rules.box_index(n)]) for n, r in zip(names, rolls, strict=True)
    }
    return ScoreSheet(rules, pts)


@pytest.mark.parametrize("position", range(3))
def test_win_probability_now_agrees_with_play_outs_at_random_positions(position):
    """Random mid-game cards (two or three players, late turns): the exact probabilities
    against 20,000 play-outs of max-EV players, within 4 SE."""
    rules = get_rules("yahtzee")
    rng = np.random.default_rng(100 + position)
    n, t = (2, 3, 2)[position], (9, 10, 11)[position]
    cards = [_random_card(rules, t + (1 if i < n - 1 else 0), rng) for i in range(n)]
    res = win_probability_now(cards, simulate=20_000, strategy="optimal", seed=position)
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
    "cards, match",
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
def test_impossible_score_cards_are_refused(cards, match):
    with pytest.raises(ScoreSheetError, match=match):
        win_probability_now(cards)


def test_score_card_totals_include_bonuses():
    c = ScoreSheet.parse("fours=16,fives=25,sixes=24,yahtzee=50,chance=20,yahtzee_bonuses=1")
    assert c.upper_total == 65 and c.flag == 1
    assert c.score == 16 + 25 + 24 + 35 + 50 + 20 + 100


# ------------------------------------------------------------------ round robin
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


# ------------------------------------------------------------------------- CLI
def test_cli_winprob_json_and_errors(capsys):
    assert main(["winprob", "--me", LATE_A, "--opponent", LATE_B, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["to_move"] == 0 and len(out["exact"]) == 2
    assert main(["winprob", "--me", "ones=9", "--opponent", "", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ones=9 is impossible" in err
    assert main(["winprob", "--me", "", "--opponent", "", "--rolls-left", "1"]) == 2
    assert "--rolls-left needs --dice" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_visible_tournament_and_round_robin(capsys, tmp_path):
    args = ["tournament", "--strategies", "chase,optimal", "--games", "500", "--json"]
    assert main([*args, "--visible"]) == 0
    assert json.loads(capsys.readouterr().out)["parameters"]["visible"] is True
    plot = tmp_path / "rr.png"
    assert main([*args, "--visible", "--round-robin", "--plot", str(plot)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["win_matrix"][0][0] is None and plot.stat().st_size > 0
    assert main(["tournament", "--plot", str(plot)]) == 2


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


@given(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=300), st.integers(1, 20))
@settings(max_examples=50, deadline=None)
def test_distinct_keys_match_numpy_unique(values, spread):
    """Table play groups games by (state, lane) with ``distinct``: the same groups, in the
    same key order, as ``np.unique``; each representative holds its group's key."""
    from yahtzee_sim._kernels.batched import distinct

    keys = np.array(values, dtype=np.int64) // spread  # many repeats
    rep, inverse = distinct(keys)
    uniq, inv = np.unique(keys, return_inverse=True)
    assert np.array_equal(keys[rep], uniq)
    assert np.array_equal(inverse, inv.reshape(-1))


@pytest.mark.parametrize("rules_name", ["yahtzee", "yahtzee-single-bonus", "yatzy"])
def test_batched_need_lanes_decide_as_one_lane_widget_runs(rules_name):
    """Score-dependent table play batches (state, lane) pairs sharing filled boxes as the
    lanes of one widget call with given box values; on a random need-lane table its
    decisions equal one-lane need-lane widget runs, pair by pair (Yahtzee bonus and
    bonus limit included)."""
    from yahtzee_sim._kernels.batched import (
        SPAN,
        decision_buffers,
        lane_order,
        need_lane_decisions,
        read_decisions,
    )
    from yahtzee_sim._kernels.decisions import fill_states
    from yahtzee_sim._kernels.widget import points_needed_lanes
    from yahtzee_sim.game.state import n_states

    rules = get_rules(rules_name)
    kr = kernel_rules(rules)
    rng = np.random.default_rng(3)
    size, width = n_states(rules), 6
    first = rng.integers(0, 40, size=size)
    table = points_needed_lanes(
        rng.random(size * width),
        np.arange(size, dtype=np.int64) * width,
        np.full(size, width, dtype=np.int64),
        first,
        top=1.0,
        bottom=0.0,
    )
    V = value_table(rules).values
    reachable = np.flatnonzero(V > 0)
    states = np.sort(rng.choice(reachable, size=150, replace=False))
    # one to three lanes per state: runs of pairs of one state share a box-value fill, a
    # lone pair or a run spread over more than SPAN lanes is filled pair by pair
    states = np.repeat(states, rng.integers(1, 4, size=len(states)))
    used, upper, flag = decode_state(rules, states)
    lane = first[states] + rng.integers(-2, width + 2, size=len(states))
    lane += np.where(rng.random(len(states)) < 0.2, SPAN + 8, 0)  # spread, past the row
    layers, n_rolls = max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls
    keep_a = np.empty((len(states), layers, n_rolls), np.int16)
    cat_a = np.empty((len(states), n_rolls), np.int8)
    fill_states(kr, table, used, upper, flag, lane, np.arange(len(states)), keep_a, cat_a)
    order = lane_order(states)
    p = np.arange(len(states))  # pair order[p] in row p
    none = np.zeros(0, dtype=np.int64)
    keep_b, cat_b = decision_buffers(threading.local(), len(states), rules)
    need_lane_decisions(kr, table, order, used, upper, flag, lane, none, none, keep_b, cat_b, none)
    for left in range(layers + 1):  # every roll recorded
        got = read_decisions(keep_b, cat_b, p, left, np.arange(n_rolls)[:, None]).T
        assert np.array_equal(got, cat_a[order] if left == 0 else keep_a[order, left - 1])
    # the first roll's keeps taken at given rolls: here every roll of every pair, some
    # twice, in a shuffled order within each row
    per_row = np.tile(np.r_[np.arange(n_rolls), np.arange(0, n_rolls, 7)], (len(p), 1))
    per_row = rng.permuted(per_row, axis=1)
    first_ptr = np.arange(len(p) + 1, dtype=np.int64) * per_row.shape[1]
    first_keep = np.full(per_row.size, -1, dtype=np.int64)
    keep_c, cat_c = decision_buffers(threading.local(), len(states), rules)
    need_lane_decisions(kr, table, order, used, upper, flag, lane, first_ptr,
                        per_row.ravel().astype(np.int64), keep_c, cat_c, first_keep)  # fmt: skip
    expected = np.take_along_axis(keep_a[order, layers - 1], per_row, axis=1)
    assert np.array_equal(first_keep.reshape(per_row.shape), expected)
    for left in range(layers):  # the later rolls as before
        got = read_decisions(keep_c, cat_c, p, left, np.arange(n_rolls)[:, None]).T
        assert np.array_equal(got, cat_a[order] if left == 0 else keep_a[order, left - 1])
