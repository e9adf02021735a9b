"""The games people play: house rules, forced order, Yacht and Maxi Yatzy (six dice, twenty
boxes, saved rolls) — published optima, brute force on small games, scoring, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from brute_games import brute_value

from yahtzee_sim import check_rules, get_rules, simulate
from yahtzee_sim.analysis.decisions.saved_rolls import saved_rolls_by_turn
from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.errors import RulesError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.dice import DiceError
from yahtzee_sim.game.rules import Box, RuleSet
from yahtzee_sim.game.scoring import group_points
from yahtzee_sim.game.state import decode_state, encode_state, n_states, saved_rolls_of
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import solve, value_table
from yahtzee_sim.solving.target import target_table

from helpers import options, small_saved_game, two_roll_game

#: Published optima (yatzy-solver 1.0.0's rules page; Yacht: an open-source exact solver).
PUBLISHED = {
    "yatzy+fh5": 248.4680909,
    "yatzy+tp4": 248.6440589,
    "yatzy+fh5+tp4": 248.6748827,
    "yacht": 191.774369,
}


@pytest.mark.slow
@pytest.mark.parametrize(("rules", "published"), PUBLISHED.items())
def test_published_optimum(rules, published):
    assert value_table(rules).expected_value() == pytest.approx(published, abs=1e-6)


def test_house_rule_order_does_not_matter():
    a, b = get_rules("yatzy+fh5+tp4"), get_rules("yatzy+tp4+fh5")
    assert a.fingerprint() == b.fingerprint()


@pytest.mark.parametrize("forced", [False, True], ids=["free-order", "forced-order"])
@pytest.mark.parametrize("cap", [0, 1, 3], ids=lambda c: f"cap{c}")
def test_solver_matches_brute_force_on_small_games(cap, forced):
    """Every saved-roll count's value at the start, and a mid-game state's, equal plain
    recursion over ordered dice (forced order, saved rolls, both)."""
    rules = small_saved_game(cap, forced)
    table = solve(rules)
    assert table.expected_value() == pytest.approx(brute_value(rules), abs=1e-11)
    mid = 0b000111 if forced else 0b010101  # three boxes filled: up to 3 saved rolls
    for saved in range(cap + 1):
        ours = table.values[encode_state(rules, mid, 4, 0, saved)]
        assert ours == pytest.approx(brute_value(rules, mid, 4, saved), abs=1e-11)


def test_four_dice_groups_match_brute_force():
    rules = small_saved_game(cap=1, n_dice=4)
    table = solve(rules)
    assert table.expected_value() == pytest.approx(brute_value(rules), abs=1e-11)


def test_saved_rolls_are_worth_something_and_the_cap_is_monotone():
    values = [solve(small_saved_game(cap)).expected_value() for cap in range(4)]
    assert all(b > a for a, b in itertools.pairwise(values))


def test_forced_order_is_worth_less_and_fills_boxes_in_order():
    free, forced = (
        solve(small_saved_game()).expected_value(),
        solve(small_saved_game(forced=True)).expected_value(),
    )
    assert forced < free
    filled = ("ones", "twos", "threes")
    assert options("yatzy+forced", [4, 4, 4, 5, 6], used=filled) == {"fours": 12}
    assert len(options("yatzy", [4, 4, 4, 5, 6], used=filled)) == 12


@pytest.mark.slow
def test_yatzy_forced_order_matches_the_peer():
    """Forced-order Yatzy's optimum, and that of the peer package where it is installed."""
    ours = value_table("yatzy+forced").expected_value()
    assert ours == pytest.approx(122.5585273964, abs=1e-9)
    ys = pytest.importorskip("yatzy_solver")
    peer = ys.Solver.build(ys.Variant("yatzy-scandinavian+forced"))
    assert ours == pytest.approx(peer.state_value("upper 0 | filled -"), abs=1e-9)


@pytest.mark.parametrize(
    ("box", "dice", "points"),
    [
        # Maxi Yatzy (six dice): the dice used
        (Box("three_pairs", "groups", groups=(2, 2, 2)), [2, 2, 5, 5, 6, 6], 26),
        (Box("full_house", "groups", groups=(3, 2)), [3, 4, 4, 6, 6, 6], 26),
        (Box("villa", "groups", groups=(3, 3)), [2, 2, 2, 5, 5, 5], 21),
        (Box("tower", "groups", groups=(4, 2)), [3, 3, 6, 6, 6, 6], 30),
        (Box("tower", "groups", groups=(4, 2)), [6, 6, 6, 6, 6, 6], 0),
        (Box("two_pairs", "two_pairs"), [2, 1, 3, 3, 5, 5], 16),
        (Box("five", "n_equal", param=5), [3, 3, 2, 3, 3, 3], 15),
        (Box("full", "straight", points=21, faces=(1, 2, 3, 4, 5, 6)), [1, 2, 3, 4, 5, 6], 21),
        # house rules (five dice)
        (Box("full_house", "full_house"), [3, 3, 3, 3, 3], 0),
        (Box("full_house", "full_house", share_face=True), [3, 3, 3, 3, 3], 15),
        (Box("two_pairs", "two_pairs"), [3, 3, 3, 3, 5], 0),
        (Box("two_pairs", "two_pairs", share_face=True), [3, 3, 3, 3, 5], 12),
        (Box("two_pairs", "two_pairs", share_face=True), [2, 2, 3, 3, 3], 10),
    ],
)
def test_box_scores(box, dice, points):
    counts = [dice.count(f) for f in range(1, 7)]
    assert box.score(counts) == points


def test_group_points_takes_the_best_faces():
    assert group_points([0, 2, 0, 2, 0, 2], (2, 2)) == 2 * 6 + 2 * 4
    assert group_points([0, 0, 0, 0, 0, 4], (2, 2), share_face=True) == 24


def test_maxi_yatzy_presets():
    rules = get_rules("maxi-yatzy-3")
    assert (rules.n_dice, rules.n_boxes, rules.upper_bonus_threshold) == (6, 20, 84)
    assert rules.saved_roll_cap == 0 and rules.box_names[-1] == "maxi_yatzy"
    t = rules.tables
    assert (t.n_rolls, t.n_keeps) == (462, 924)
    assert get_rules("maxi-yatzy+cap3").saved_roll_cap == 3
    assert get_rules("maxi-yatzy+bonus100").upper_bonus == 100


def test_saved_rolls_join_the_state_encoding():
    """Games with saved rolls index only the states that occur: with k boxes filled at
    most min(2k, cap) saved rolls, upper totals up to what the filled boxes make."""
    rules = get_rules("maxi-yatzy+cap2")
    masks = np.arange(2**20)
    filled = np.array([bin(m).count("1") for m in range(2**20)])
    upper_sum = sum(((masks >> f) & 1) * (f + 1) * 6 for f in range(6))
    expected = ((np.minimum(upper_sum, 84) + 1) * (np.minimum(2 * filled, 2) + 1)).sum()
    assert n_states(rules) == expected < 2**20 * 3 * 85
    index = encode_state(rules, 0b1011, 40, 0, 2)
    assert decode_state(rules, index) == (0b1011, 40, 0)
    assert saved_rolls_of(rules, index) == 2
    assert encode_state(rules, 0b1011, 40, 0, 9) == index  # capped at the cap


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("yatzy+cap3", "does not save rolls"),
        ("maxi-yatzy+cap0", r"must be 1\.\.38"),
        ("maxi-yatzy+cap39", r"must be 1\.\.38 .*every unused roll saved"),
        ("yatzy+nonsense", "unknown house rule"),
        ("yacht+tp4", "needs a two pairs box"),
        ("yatzy+fh5+fh5", "given twice"),
        ("yatzy+bonusX", "followed by a number"),
    ],
)
def test_bad_rules_are_one_clear_error(name, message):
    with pytest.raises(RulesError, match=message):
        get_rules(name)


def test_six_dice_on_a_five_dice_game_and_a_keep_of_seven_dice_are_refused():
    with pytest.raises(DiceError, match="expected 5 dice"):
        get_rules("yatzy").tables.counts_from_faces([1, 2, 3, 4, 5, 6])
    with pytest.raises(DiceError, match="at most 6"):
        get_rules("maxi-yatzy-3").tables.keep_from_faces([1, 1, 2, 2, 3, 3, 4])
    assert np.issubdtype(type(get_rules("maxi-yatzy-3").tables.keep_from_faces([6] * 6)), int)


def _six_dice(cap: int) -> RuleSet:
    """Six two-faced dice, two rolls a turn: groups and six of a kind."""
    boxes = (
        Box("ones", "upper", param=1),
        Box("twos", "upper", param=2),
        Box("villa", "groups", groups=(3, 3)),
        Box("tower", "groups", groups=(4, 2)),
        Box("all", "yahtzee", points=20),
    )
    return two_roll_game("six-dice", 6, 2, boxes, (12, 4), saved_roll_cap=cap)


@pytest.mark.parametrize("cap", [0, 2])
def test_six_dice_solver_matches_brute_force(cap):
    rules = _six_dice(cap)
    assert solve(rules).expected_value() == pytest.approx(brute_value(rules), abs=1e-11)


@pytest.mark.parametrize(("cap", "forced"), [(2, False), (3, True)])
def test_optimal_play_with_saved_rolls_matches_its_value(cap, forced):
    """The engine plays saved rolls as the solver values them: the mean of optimal play
    is within 3 standard errors of the exact value, the same for any number of jobs."""
    rules = small_saved_game(cap, forced)
    one = simulate("optimal", rules=rules, n_games=40_000, seed=3, n_jobs=1)
    two = simulate("optimal", rules=rules, n_games=40_000, seed=3, n_jobs=2)
    assert np.array_equal(one.total, two.total)
    se = one.total.std() / np.sqrt(len(one.total))
    assert abs(one.total.mean() - solve(rules).expected_value()) < 3 * se


def test_a_game_with_saved_rolls_saves_them():
    """Keeping every die ends the turn and saves the rolls left (up to the cap); the next
    turn has them on top of its own."""
    rules = small_saved_game(cap=1)
    batch = GameBatch(rules, 1)
    batch.seed(0)
    batch.start(np.array([0]), np.array([0]))
    assert int(batch.rolls_left[0]) == 1  # two rolls a turn: one reroll
    batch.roll(np.array([True]), batch.dice.copy())  # keep every die: stop
    assert (int(batch.rolls_left[0]), int(batch.saved_rolls[0])) == (0, 1)
    assert batch.write_boxes(np.array([5]), np.array([True])) == -1
    batch.turn[:] = 1
    batch.roll(np.array([True]))
    assert int(batch.rolls_left[0]) == 2  # its own reroll and the saved one


@pytest.mark.parametrize("forced", [False, True], ids=["free-order", "forced-order"])
@pytest.mark.parametrize("cap", [0, 2], ids=lambda c: f"cap{c}")
def test_small_games_pass_the_checks(cap, forced):
    """``check_rules`` on games written by hand, saved rolls and forced order included (the
    presets and their house rules: tests/game/test_every_rule_set.py)."""
    assert check_rules(small_saved_game(cap, forced))[-1] == "solver"


@pytest.mark.parametrize(
    "call",
    [
        lambda: target_table(small_saved_game(cap=2), 30),
        lambda: evaluate("optimal", rules=small_saved_game(cap=2)),
    ],
    ids=["target", "exact"],
)
def test_fixed_roll_capabilities_refuse_saved_rolls_in_one_line(call):
    with pytest.raises(ValueError, match="not available for games with saved rolls"):
        call()


def test_a_paper_heuristic_refuses_another_game():
    with pytest.raises(ValueError, match="needs the 13 Yahtzee boxes"):
        simulate("glenn-heuristic", rules="yacht", n_games=10)


@pytest.mark.parametrize("saved", [0, 2])
def test_advice_with_saved_rolls_adds_up_to_the_state_value(saved):
    """The best option at each first roll of a turn with ``saved`` saved rolls, averaged
    over the first rolls, is the state's value (the advisor values stopping with the rolls
    it saves)."""
    rules = small_saved_game(cap=2)
    table = solve(rules)
    t = rules.tables
    first = t.dense_keep_roll()[0]
    total = 0.0
    used = ["ones", "pair"]  # two turns played: up to two saved rolls
    for r in range(t.n_rolls):
        dice = t.faces_from_counts(t.roll_counts[r])
        left = rules.rolls_per_turn - 1 + saved
        best = advise(dice, left, used=used, upper=2, rules=rules, table=table)[0]
        total += first[r] * best.value
    assert total == pytest.approx(table.value(0b1001, 2, 0, saved), abs=1e-9)


def test_advice_refuses_more_rerolls_than_the_turns_played_can_save():
    with pytest.raises(ValueError, match="at most 1 rerolls"):
        advise([1, 2, 3], 2, rules=small_saved_game(cap=2))


def test_advice_refuses_saved_rolls_where_there_are_none():
    with pytest.raises(ValueError, match="do not save rolls"):
        advise([1, 2, 3, 4, 5], 0, rules="yatzy", saved_rolls=1)


def test_saved_rolls_by_turn_stay_within_the_cap_and_what_turns_can_save():
    rules = small_saved_game(cap=2)
    out = saved_rolls_by_turn("optimal", rules, n_games=500, seed=2)
    turns = np.arange(1, rules.n_boxes + 1)
    assert np.all(out.held <= np.minimum(rules.saved_roll_cap, turns))  # one reroll a turn
    rows = out.by_turn()
    assert [r["turn"] for r in rows] == list(turns) and rows[0]["mean"] > 0
    assert np.array_equal(np.sort(out.box_filled, axis=1), np.tile(np.arange(6), (500, 1)))
    with pytest.raises(RulesError, match="do not save rolls"):
        saved_rolls_by_turn("optimal", "yatzy", n_games=10)
