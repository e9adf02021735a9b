"""The rule-based strategies of Hellström & Jaccopucci (2015): keep and scoring rules,
variants, the defensive family, and the v1/v2 readings of the paper."""

import numpy as np
import pytest

from yahtzee_sim import StrategyError, simulate
from yahtzee_sim.strategies._yahtzee_boxes import THREE_OF_A_KIND, YAHTZEE_BOXES
from yahtzee_sim.strategies.rule_based_v1 import Glenn2007Rules

from helpers import view_for

S = Glenn2007Rules()


def kept(dice, used=(), rolls_left=2, flag=0):
    v = view_for("yahtzee", dice, used=used, rolls_left=rolls_left, flag=flag)
    return v.tables.faces_from_counts(S.keep(v)[0])


def box(dice, used=(), upper_total=0, turn=3, flag=0):
    v = view_for("yahtzee", dice, used=used, upper_total=upper_total, turn=turn, flag=flag)
    return v.rules.box_names[S.box(v)[0]]


# Table V rows (keeping dice)
@pytest.mark.slow
def test_keep_rules():
    assert kept((4, 4, 4, 4, 4)) == (4, 4, 4, 4, 4)  # Yahtzee
    assert kept((2, 3, 4, 5, 6)) == (2, 3, 4, 5, 6)  # large straight, LS open
    assert kept((1, 2, 3, 4, 6)) == (1, 2, 3, 4)  # small straight run
    assert kept((5, 5, 5, 1, 2)) == (5, 5, 5)  # tripleton, Fives open
    assert kept((5, 5, 2, 2, 1)) == (5, 5)  # doubleton, high preferred
    assert kept((2, 3, 4, 6, 6), used=("sixes",)) == (2, 3, 4)  # [2 3 4], SS open
    lower = YAHTZEE_BOXES[THREE_OF_A_KIND:]
    # one upper box left open of those present, few upper open: a low singleton
    assert kept((1, 3, 5, 6, 2), used=(*lower, "ones", "twos")) == (3,)
    assert kept((1, 2, 3, 5, 6), used=(*lower, "threes", "fives", "sixes", "ones")) == (2,)


# Table VI rows (scoring)
def test_scoring_rules():
    assert box((3, 3, 3, 3, 3)) == "yahtzee"
    assert box((1, 2, 3, 4, 5)) == "large_straight"
    assert box((1, 2, 3, 4, 6)) == "small_straight"
    assert box((4, 4, 4, 1, 2), upper_total=52) == "fours"  # tripleton earns the bonus
    assert box((6, 6, 6, 6, 2)) == "sixes"  # four 6s in the upper box
    assert box((3, 3, 3, 3, 2)) == "four_of_a_kind"
    assert box((3, 3, 3, 3, 2), turn=0) != "four_of_a_kind"  # Kelly-Liese: not in round 1
    assert box((5, 5, 5, 2, 1), used=("fives", "four_of_a_kind")) == "three_of_a_kind"  # >= 22?
    assert box((2, 2, 3, 3, 3)) == "full_house"
    assert box((1, 1, 2, 3, 5), used=("full_house", "chance")) == "ones"  # doubleton, low


def test_throw_away_order_and_errors():
    assert box((1, 2, 4, 5, 5), used=("fives",)) == "chance"
    with pytest.raises(StrategyError, match="13 Yahtzee boxes"):
        simulate("glenn-2007-rules", 10, rules="yatzy")
    with pytest.raises(StrategyError, match="each of the 13 boxes"):
        simulate(Glenn2007Rules(throw_away=("chance",)), 10)


def test_plays_full_games_and_scores_between_greedy_and_optimal_ranges():
    s = simulate("glenn-2007-rules", 20_000, seed=5, n_jobs=1).summary()
    assert 205 < s["mean"] < 232  # paper 212.18, Glenn 218.18, ours ~224.7 (see README)
    assert s["bonus_rate"] > 0.2  # upper-section play, unlike greedy's 3%
    res = simulate("glenn-2007-rules", 2000, seed=5)
    assert (res.filled_turn[:, 7] > 1).all()  # Four of a kind never filled in round 1
    assert np.isfinite(res.total).all()


def test_prioritize_upper_paper_example():
    """ "Simulating Yahtzee": 3 2 3 2 3 with Ones, Twos, Sixes open, 20 points short: keep 2 2."""
    from yahtzee_sim.strategies.rule_based_v1 import PrioritizeUpper

    s = PrioritizeUpper()
    used = ("threes", "fours", "fives")
    v = view_for("yahtzee", (3, 2, 3, 2, 3), used=used, upper_total=43, rolls_left=2)
    assert v.tables.faces_from_counts(s.keep(v)[0]) == (2, 2)
    v = view_for("yahtzee", (6, 6, 1, 2, 3), used=used, upper_total=43)
    assert v.rules.box_names[s.box(v)[0]] == "sixes"
    v = view_for("yahtzee", (6, 6, 6, 6, 6), used=used, upper_total=43)
    assert v.rules.box_names[s.box(v)[0]] == "yahtzee"


def test_prioritize_yahtzee_keeps_most_frequent_face():
    from yahtzee_sim.strategies.rule_based_v1 import PrioritizeYahtzee

    s = PrioritizeYahtzee()
    v = view_for("yahtzee", (3, 2, 3, 2, 3), used=("threes", "fours", "fives"), rolls_left=2)
    assert v.tables.faces_from_counts(s.keep(v)[0]) == (3, 3, 3)
    v = view_for("yahtzee", (1, 1, 5, 5, 2), used=("ones",), rolls_left=1)
    assert v.tables.faces_from_counts(s.keep(v)[0]) == (5, 5)  # tie: open upper box


def test_variants_move_the_metrics_they_target():
    base = simulate("glenn-2007-rules", 20_000, seed=9, n_jobs=1).summary()
    up = simulate("prioritize-upper", 20_000, seed=9, n_jobs=1).summary()
    yz = simulate("prioritize-yahtzee", 20_000, seed=9, n_jobs=1).summary()
    assert up["box_fill_turn"]["sixes"] < 2.5  # "Simulating Yahtzee": Sixes filled on turn 1.86
    assert yz["yahtzees_mean"] > base["yahtzees_mean"]  # "Simulating Yahtzee" Table 4
    assert (
        yz["mean"] < base["mean"] and up["mean"] < base["mean"]
    )  # "Simulating Yahtzee" Table 2 order


def test_defensive_decisions():
    from yahtzee_sim.strategies.defensive import DefensiveYahtzee

    d = DefensiveYahtzee()

    def k(dice, used=()):
        v = view_for("yahtzee-no-bonus", dice, used=used, rolls_left=2)
        return v.tables.faces_from_counts(d.keep(v)[0])

    def b(dice, used=(), upper_total=0):
        v = view_for("yahtzee-no-bonus", dice, used=used, upper_total=upper_total)
        return v.rules.box_names[d.box(v)[0]]

    assert k((2, 3, 4, 5, 6)) == (2, 3, 4, 5, 6)  # made large straight
    assert k((1, 2, 3, 4, 6)) == (1, 2, 3, 4)  # four-run, reroll the last die
    assert k((6, 6, 2, 2, 5)) == (6, 6)  # most dice of an open upper box, high preferred
    assert k((6, 6, 2, 2, 5), used=("sixes",)) == (2, 2)
    assert b((6, 6, 6, 6, 6), upper_total=20) == "sixes"  # below 38: sixes for the bonus
    assert b((6, 6, 6, 6, 6), upper_total=40) == "yahtzee"
    assert b((6, 6, 6, 6, 2), upper_total=50) == "four_of_a_kind"
    assert b((5, 5, 5, 1, 2)) == "three_of_a_kind"
    assert b((1, 1, 3, 4, 6), used=("three_of_a_kind",)) == "ones"
    assert b((4, 5, 6, 6, 1), used=("ones", "chance")) == "four_of_a_kind"  # zero: lowest EV


# ------------------------------------------- v2: the readings of the paper's own program
SB = "yahtzee-single-bonus"


def _v2(sid):
    from yahtzee_sim.strategies import get_strategy

    return get_strategy(sid)


def kept_v2(sid, dice, used=(), rolls_left=2, flag=0, upper_total=0):
    v = view_for(SB, dice, used=used, rolls_left=rolls_left, flag=flag, upper_total=upper_total)
    return v.tables.faces_from_counts(_v2(sid).keep(v)[0])


def box_v2(sid, dice, used=(), upper_total=0, turn=3, flag=0):
    v = view_for(SB, dice, used=used, upper_total=upper_total, turn=turn, flag=flag)
    return v.rules.box_names[_v2(sid).box(v)[0]]


def test_v2_is_the_default_and_v1_keeps_its_label():
    from yahtzee_sim.engine.summary import strategy_label
    from yahtzee_sim.strategies import get_strategy

    for sid in ("glenn-2007-rules", "prioritize-upper", "prioritize-yahtzee"):
        assert get_strategy(sid).version == 2
        assert strategy_label(get_strategy(sid)) == sid
        assert strategy_label(get_strategy(f"{sid}-v1")) == f"{sid}-v1"


def test_v2_keep_readings():
    g = "glenn-2007-rules"
    closed = (
        "fours",
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "chance",
        "small_straight",
    )
    # rule 9 keeps exactly three dice (v1 kept all four)
    assert kept_v2(g, (4, 4, 4, 4, 2), used=closed) == (4, 4, 4)
    assert kept((4, 4, 4, 4, 2), used=closed) == (4, 4, 4, 4)
    # ... and needs the Yahtzee box open or the bonus still to earn (flag 1, not 2)
    assert kept_v2(g, (4, 4, 4, 1, 2), used=(*closed, "yahtzee"), flag=1) == (4, 4, 4)
    # (flag 2: rule 11, "any doubleton", takes two of the three)
    assert kept_v2(g, (4, 4, 4, 1, 2), used=(*closed, "yahtzee"), flag=2) == (4, 4)
    # a five of a kind is kept while it counts: box holding 0 (flag 0) or the bonus open
    assert kept_v2(g, (2,) * 5, used=("yahtzee", "twos")) == (2,) * 5
    # "any doubleton" is the highest face with two or more
    lower_closed = (*YAHTZEE_BOXES[THREE_OF_A_KIND:-2], "chance")
    many = (*lower_closed, "yahtzee", "twos", "threes", "fours", "fives", "sixes")  # Ones open
    assert kept_v2(g, (6, 6, 6, 2, 2), used=many, flag=2) == (6, 6)


def test_v2_scoring_readings():
    g = "glenn-2007-rules"
    # exactly three 6s in the upper box (rule 7); four 6s go there by rule 5
    assert box_v2(g, (6, 6, 6, 1, 2)) == "sixes"
    assert box_v2(g, (6, 6, 6, 6, 2)) == "sixes"
    # nothing placed by the rules: the box with the most points, zeros to the last open
    # box of the tie order (Sixes before Ones)
    assert box_v2(g, (1, 2, 4, 6, 6), used=("sixes", "chance")) == "fours"
    zeros = YAHTZEE_BOXES[:3] + YAHTZEE_BOXES[6:]
    assert box_v2(g, (1, 1, 2, 2, 3), used=zeros) == "sixes"


def test_v2_bonus_yahtzee_box():
    g = "glenn-2007-rules"
    up_closed = ("threes", "yahtzee")
    # its upper box if open; else Chance, 3K, 4K; else a stolen joker box (SS first), at 0
    assert box_v2(g, (3,) * 5, used=("yahtzee",), flag=1) == "threes"
    assert box_v2(g, (3,) * 5, used=up_closed, flag=1) == "chance"
    assert box_v2(g, (3,) * 5, used=(*up_closed, "chance"), flag=1) == "three_of_a_kind"
    no_sum = (*up_closed, "chance", "three_of_a_kind", "four_of_a_kind")
    assert (
        box_v2(g, (3,) * 5, used=(*no_sum, "ones", "twos", "fours", "fives", "sixes"), flag=1)
        == "small_straight"
    )
    # only zeros and an upper box open: the upper box (the last in the tie order)
    assert box_v2(g, (3,) * 5, used=no_sum, flag=1) == "sixes"


def test_v2_variants():
    py, pu = "prioritize-yahtzee", "prioritize-upper"
    # ties go to an open upper box, then the LOWER face; stops once two Yahtzees counted
    assert kept_v2(py, (2, 2, 5, 5, 6)) == (2, 2)
    assert kept_v2(py, (2, 2, 5, 5, 6), used=("yahtzee",), flag=2) == (5, 5)
    # upper priority: keep nothing when no face showing has an open upper box
    used = ("ones", "twos", "threes")
    assert kept_v2(pu, (1, 1, 2, 3, 3), used=used, upper_total=10) == ()
    # ... but only while the bonus is reachable (10 + 4 x (4 + 5 + 6) >= 63)
    assert kept_v2(pu, (1, 1, 2, 3, 3), used=used, upper_total=2) == (3, 3)
