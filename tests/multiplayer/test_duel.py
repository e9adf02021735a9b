"""The exact two-player solver and the exact evaluation of strategy pairs, against
brute-force recursion (tests/duel_brute.py) on the smallest games; the older ``cards=``
keyword."""

from __future__ import annotations

import numpy as np
import pytest
from duel_brute import Brute

from yahtzee_sim.exact.decision_tables import decision_tables
from yahtzee_sim.exact.pairs import PairError, evaluate_pair
from yahtzee_sim.game.rules import Box, RuleSet, get_rules
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.multiplayer.duel import DuelError, EndgameTooLarge, duel, solve_duel
from yahtzee_sim.strategies import get_strategy

from helpers import dask_cluster

#: Two dice, three faces, two rolls; two upper boxes with a bonus, and a pair box.
TINY = RuleSet(
    name="tiny-duel",
    n_dice=2,
    n_faces=3,
    rolls_per_turn=2,
    boxes=(
        Box("ones", "upper", param=1),
        Box("threes", "upper", param=3),
        Box("pair", "yahtzee", points=5),
    ),
    upper_bonus_threshold=4,
    upper_bonus=3,
)


@pytest.fixture(scope="module")
def brute():
    return Brute(TINY)


def _policy(rules: RuleSet, strategy_id: str):
    """A brute-force policy function playing the strategy's decision tables."""
    strategy = get_strategy(strategy_id)
    strategy.prepare(rules)
    t = rules.tables
    tables = {}

    def decide(card, dice, rolls_left):
        used = sum(1 << c for c, p in enumerate(card) if p is not None)
        upper = sum(p for c, p in enumerate(card) if p is not None and rules.boxes[c].is_upper)
        state = encode_state(rules, used, upper, 0)
        if state not in tables:
            tables[state] = decision_tables(
                strategy, rules, np.array([state]), bin(used).count("1")
            )
        keep, cat = tables[state]
        counts = t.counts_from_faces(dice)
        r = int(t.roll_index(counts[None])[0])
        if rolls_left == 0:
            return int(cat[0, r])
        return t.faces_from_counts(t.keep_counts[int(keep[0, rolls_left - 1, r])])

    return decide


def test_solver_matches_brute_force(brute):
    table = solve_duel(TINY)
    assert table.p_win(0) == pytest.approx(brute.p_win(0), abs=1e-12)
    assert table.p_win(0) + table.p_win(1) == pytest.approx(1.0, abs=1e-15)
    assert table.p_win(0) != pytest.approx(0.5, abs=1e-4)  # the game is not symmetric


def test_preset_two_yatzy_matches_brute_force():
    rules = get_rules("2-yatzy")
    assert solve_duel(rules).p_win(1) == pytest.approx(Brute(rules).p_win(1), abs=1e-12)


@pytest.mark.parametrize("fixed_seat", [0, 1])
def test_best_response_to_max_ev_matches_brute_force(fixed_seat):
    policies = [None, None]
    policies[fixed_seat] = "optimal"
    brute_policies = [None, None]
    brute_policies[fixed_seat] = _policy(TINY, "optimal")
    want = Brute(TINY, tuple(brute_policies)).p_win(1 - fixed_seat)
    table = solve_duel(TINY, policies=tuple(policies))
    assert table.p_win(1 - fixed_seat) == pytest.approx(want, abs=1e-12)
    # the best response beats mirroring max-EV play, which is exactly even here
    assert table.p_win(1 - fixed_seat) > 0.5


def test_pair_evaluation_agrees_with_solver_and_brute_force():
    fixed = solve_duel(TINY, policies=("optimal", "optimal")).p_win(0)
    assert fixed == pytest.approx(0.5, abs=1e-14)  # the same blind play in both seats
    pair = evaluate_pair(TINY, ("optimal", "optimal"))
    assert pair.p_win[0] == pytest.approx(fixed, abs=1e-12)
    # another position-only pair: forward pass (evaluate_pair) = backward pass (solver)
    got = evaluate_pair(TINY, ("greedy", "optimal"), modes=("state", "state"))
    assert got.p_win[0] == pytest.approx(
        solve_duel(TINY, policies=("greedy", "optimal")).p_win(0), abs=1e-12
    )
    assert got.p_win[0] == pytest.approx(
        Brute(TINY, (_policy(TINY, "greedy"), _policy(TINY, "optimal"))).p_win(0), abs=1e-12
    )


def test_match_play_is_below_the_best_response_and_matches_simulation():
    from yahtzee_sim.multiplayer.matches import play_matches, win_shares_of

    got = evaluate_pair(TINY, ("optimal", "win-aware"))
    best = solve_duel(TINY, policies=("optimal", None)).p_win(1)
    assert got.p_win[1] <= best + 1e-12  # no player beats the best response
    players = [get_strategy("optimal"), get_strategy("win-aware")]
    shares = win_shares_of(play_matches(players, TINY, 40_000, seed=3))[:, 1]
    se = shares.std(ddof=1) / np.sqrt(len(shares))
    assert abs(shares.mean() - got.p_win[1]) < 4 * se


def test_pair_evaluation_with_full_keys_equals_declared_keys():
    a = evaluate_pair(TINY, ("win-aware", "optimal"))
    b = evaluate_pair(TINY, ("win-aware", "optimal"), modes=("full", "full"))
    assert a.p_win[0] == pytest.approx(b.p_win[0], abs=1e-14)
    assert b.decisions >= a.decisions


def test_pair_evaluation_keys_each_seat_by_its_declared_capabilities():
    from yahtzee_sim.strategies.optimal import Optimal

    def decisions(players, modes=(None, None)):
        return evaluate_pair(TINY, players, modes=modes).decisions

    # optimal declares decision_key "state": asked once per state
    pair = ("optimal", "optimal")
    assert decisions(pair) == decisions(pair, ("state", "state")) < decisions(pair, ("full",) * 2)

    class Mine(Optimal):  # not registered: it may decide on more than its family
        pass

    assert decisions((Mine(), Mine())) == decisions(pair, ("full", "full"))


@pytest.mark.slow
def test_parallel_blocks_and_memory_map_are_identical(tmp_path):
    one = solve_duel(TINY)
    two = solve_duel(TINY, n_jobs=2, path=tmp_path / "duel.npy")
    np.testing.assert_array_equal(np.asarray(two.values), one.values)


def test_endgame_position_matches_brute_force():
    rules = TINY
    sheets = ["ones=2", "threes=3"]
    res = duel(sheets, rules)
    brute = Brute(rules)
    want = brute.value(0, ((2, None, None), (None, 3, None)))
    assert res.seat == 0 and res.p_win == pytest.approx(want, abs=1e-12)
    # inside the turn: the best box of a final roll and its value
    got = duel(sheets, rules, dice=[3, 3], rolls_left=0)
    values = {c: brute._after_box(0, ((2, None, None), (None, 3, None)), c, (3, 3)) for c in (1, 2)}
    best = max(values, key=values.get)
    assert got.box == rules.box_names[best]
    assert got.p_win == pytest.approx(values[best], abs=1e-12)
    keep = duel(sheets, rules, dice=[1, 3], rolls_left=1)
    assert keep.p_win == pytest.approx(
        brute.roll_value(0, ((2, None, None), (None, 3, None)), (1, 3), 1), abs=1e-12
    )


def test_the_old_cards_keyword_still_works_with_a_deprecation_warning():
    sheets = ["ones=2", "threes=3"]
    with pytest.warns(DeprecationWarning, match="cards= is now called sheets="):
        old = duel(cards=sheets, rules=TINY)
    with pytest.warns(DeprecationWarning, match="cards= is now called sheets="):
        table = solve_duel(TINY, cards=sheets)
    assert old.p_win == duel(sheets, TINY).p_win == table.p_win(0)


def test_bad_input_raises_value_errors():
    with pytest.raises(EndgameTooLarge, match="at most 3 open boxes"):
        duel(["", ""], "yahtzee")
    with pytest.raises(DuelError, match="two score sheets"):
        duel(["ones=1"], TINY)
    with pytest.raises(DuelError, match="game is over"):
        duel(["ones=1, threes=3, pair=5", "ones=1, threes=3, pair=0"], TINY)
    with pytest.raises(ValueError, match="seats play in order"):
        duel(["", "ones=2"], TINY)
    with pytest.raises(PairError):
        evaluate_pair(TINY, ("optimal",))


# ------------------------------------------------------------------ CLI
def _cli(argv):
    from yahtzee_sim.cli import main

    return main(["duel", *argv])


def test_cli_prints_the_best_box_and_json(capsys):
    import json

    rules = get_rules("2-yatzy")
    argv = ["--rules", "2-yatzy", "--me", "", "--opponent", "ones=1", "--seat", "1"]
    assert _cli([*argv, "--dice", "2,2", "--rolls-left", "0"]) == 0
    out = capsys.readouterr().out
    brute = Brute(rules)
    seat0_wins = {c: brute._after_box(1, ((1, None), (None, None)), c, (2, 2)) for c in (0, 1)}
    best = min(seat0_wins, key=seat0_wins.get)  # seat 1 (me) minimizes seat 0's P(win)
    assert f"best box: {rules.box_names[best]}" in out
    assert f"P(you win), both playing optimally, ties split: {1 - seat0_wins[best]:.6f}" in out
    assert _cli(["--rules", "2-yatzy", "--me", "", "--opponent", "", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["seat"] == 0 and got["p_win_me"] == pytest.approx(brute.p_win(0), abs=1e-12)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--me", "", "--opponent", ""], "at most 3 open boxes"),
        (["--rules", "2-yatzy", "--me", "ones=9", "--opponent", ""], "ones=9 is impossible"),
        (["--rules", "2-yatzy", "--me", "", "--opponent", "", "--rolls-left", "1"], "needs --dice"),
        (["--rules", "2-yatzy", "--me", "", "--opponent", "", "--dice", "1,x"], "--dice must"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    assert _cli(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.slow
def test_duel_on_a_dask_local_cluster_is_bit_identical():
    local = solve_duel(TINY)
    with dask_cluster() as client:
        from dask.distributed import get_task_stream

        with get_task_stream(client) as tasks:
            remote = solve_duel(TINY, n_jobs=2)
        assert len(tasks.data) >= 2  # the stages' blocks ran on the cluster's workers
    np.testing.assert_array_equal(remote.values, local.values)
