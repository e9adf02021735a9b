"""Rule sets: each box kind's score and declared most, joker scores, the presets against
the published rules, overrides, fingerprints and pickling."""

import pickle

import numpy as np
import pytest

from yahtzee_sim import RulesError, get_rules
from yahtzee_sim.game.rules import PRESETS
from yahtzee_sim.game.scoring import BOX_KINDS, Box


def score(rules_name, dice, box):
    rules = get_rules(rules_name)
    counts = rules.tables.counts_from_faces(dice)
    r = int(rules.tables.roll_index(counts))
    return int(rules.tables.score_table[r, rules.box_index(box)])


YAHTZEE_CASES = [
    ((1, 1, 2, 3, 4), "ones", 2),
    ((3, 3, 3, 3, 3), "threes", 15),
    ((6, 6, 6, 2, 1), "sixes", 18),
    ((2, 2, 2, 5, 6), "three_of_a_kind", 17),
    ((2, 2, 5, 5, 6), "three_of_a_kind", 0),
    ((4, 4, 4, 4, 1), "four_of_a_kind", 17),
    ((4, 4, 4, 1, 1), "four_of_a_kind", 0),
    ((5, 5, 5, 5, 5), "four_of_a_kind", 25),
    ((2, 2, 3, 3, 3), "full_house", 25),
    ((3, 3, 3, 3, 3), "full_house", 0),  # five of a kind is not a full house
    ((2, 2, 3, 3, 4), "full_house", 0),
    ((1, 2, 3, 4, 6), "small_straight", 30),
    ((3, 4, 5, 6, 6), "small_straight", 30),
    ((1, 2, 3, 5, 6), "small_straight", 0),
    ((2, 3, 4, 5, 6), "large_straight", 40),
    ((1, 2, 3, 4, 5), "large_straight", 40),
    ((1, 2, 3, 4, 6), "large_straight", 0),
    ((2, 3, 4, 5, 6), "small_straight", 30),
    ((6, 6, 6, 6, 6), "yahtzee", 50),
    ((6, 6, 6, 6, 5), "yahtzee", 0),
    ((1, 3, 5, 5, 6), "chance", 20),
]


@pytest.mark.parametrize(("dice", "box", "expected"), YAHTZEE_CASES)
def test_yahtzee_scoring(dice, box, expected):
    assert score("yahtzee", dice, box) == expected


YATZY_CASES = [
    ((3, 3, 3, 3, 3), "threes", 15),
    ((1, 1, 4, 4, 6), "one_pair", 8),  # highest pair
    ((1, 2, 3, 4, 5), "one_pair", 0),
    ((2, 2, 5, 5, 6), "two_pairs", 14),
    ((5, 5, 5, 5, 6), "two_pairs", 0),  # two pairs must be different
    ((5, 5, 2, 3, 4), "two_pairs", 0),
    ((3, 3, 3, 6, 6), "two_pairs", 18),
    ((4, 4, 4, 2, 1), "three_of_a_kind", 12),  # matching dice only
    ((4, 4, 4, 4, 4), "three_of_a_kind", 12),
    ((6, 6, 6, 6, 1), "four_of_a_kind", 24),
    ((6, 6, 6, 1, 1), "four_of_a_kind", 0),
    ((1, 2, 3, 4, 5), "small_straight", 15),
    ((2, 3, 4, 5, 6), "small_straight", 0),
    ((2, 3, 4, 5, 6), "large_straight", 20),
    ((1, 2, 3, 4, 5), "large_straight", 0),
    ((2, 2, 3, 3, 3), "full_house", 13),  # Kåk = sum
    ((3, 3, 3, 3, 3), "full_house", 0),  # five of a kind is not a Kåk
    ((1, 1, 1, 1, 1), "yatzy", 50),
    ((1, 3, 5, 5, 6), "chance", 20),
]


@pytest.mark.parametrize(("dice", "box", "expected"), YATZY_CASES)
def test_yatzy_scoring(dice, box, expected):
    assert score("yatzy", dice, box) == expected


def test_kth2012_one_pair_scores_in_two_pairs():
    assert score("yatzy-kth2012", (5, 5, 2, 3, 4), "two_pairs") == 10
    assert score("yatzy-kth2012", (2, 2, 5, 5, 6), "two_pairs") == 14
    assert score("yatzy", (5, 5, 2, 3, 4), "two_pairs") == 0


def test_every_box_kind_has_a_score_and_a_most():
    for kind in BOX_KINDS:
        box = Box("x", kind, param=1, points=5, groups=(2,))
        assert 0 < box.score([2, 0, 0]) <= box.most(2, 3) or kind == "two_pairs"
    with pytest.raises(RulesError, match="unknown kind 'pairs'"):
        Box("x", "pairs").score([2, 0, 0])
    with pytest.raises(RulesError, match="unknown kind 'pairs'"):
        Box("x", "pairs").most(2, 3)


def test_two_yatzy_toy_game():
    rules = get_rules("2-yatzy")
    assert (rules.n_dice, rules.n_faces, rules.rolls_per_turn) == (2, 2, 2)
    assert rules.box_names == ("ones", "twos")
    assert score("2-yatzy", (2, 2), "twos") == 4
    assert score("2-yatzy", (1, 2), "ones") == 1


def test_joker_scores():
    rules = get_rules("yahtzee")
    t = rules.tables
    r = int(t.roll_index(t.counts_from_faces((4, 4, 4, 4, 4))))
    joker = dict(zip(rules.box_names, t.joker_table[r].tolist(), strict=True))
    assert joker["full_house"] == 25
    assert joker["small_straight"] == 30
    assert joker["large_straight"] == 40
    assert joker["three_of_a_kind"] == 20
    assert joker["chance"] == 20
    assert joker["fours"] == 20
    assert joker["sixes"] == 0


def test_presets_match_reference():
    expected = {
        "yahtzee": ("forced", 100, 35),
        "yahtzee-free-joker": ("free", 100, 35),
        "yahtzee-no-joker": ("none", 100, 35),
        "yahtzee-no-bonus": ("none", 0, 35),
        "yahtzee-single-bonus": ("none", 100, 35),  # paid once: tests/game/test_bonus_limit.py
        "yatzy": ("none", 0, 50),
        "yatzy-no-bonus": ("none", 0, 0),
        "yatzy-kth2012": ("none", 0, 50),
    }
    for name, (joker, ybonus, ubonus) in expected.items():
        r = get_rules(name)
        assert (r.joker, r.yahtzee_bonus, r.upper_bonus) == (joker, ybonus, ubonus), name
        assert r.upper_bonus_threshold == 63
        assert r.n_boxes == (15 if name.startswith("yatzy") else 13)


def test_unknown_preset_lists_presets():
    with pytest.raises(RulesError, match="unknown rules 'nope'.*yahtzee-free-joker.*2-yatzy"):
        get_rules("nope")
    with pytest.raises(ValueError):  # errors are ValueError subclasses
        get_rules("nope")


def test_rolls_per_turn_override():
    r4 = get_rules("yahtzee", rolls_per_turn=4)
    assert r4.rolls_per_turn == 4
    assert get_rules("yahtzee@4") is r4
    assert r4.fingerprint() != get_rules("yahtzee").fingerprint()
    assert get_rules("yatzy", rolls_per_turn=4).rolls_per_turn == 4
    with pytest.raises(RulesError, match="rolls_per_turn"):
        get_rules("yahtzee", rolls_per_turn=0)
    with pytest.raises(RulesError, match="number of rolls"):
        get_rules("yahtzee@x")


def test_fingerprint_ignores_name_and_is_stable():
    a = get_rules("yahtzee")
    assert a.fingerprint() == get_rules("yahtzee").fingerprint()
    assert len({get_rules(p).fingerprint() for p in PRESETS}) == len(PRESETS)


def test_rules_pickle_roundtrip_drops_caches():
    r = get_rules("yatzy")
    _ = r.tables
    blob = pickle.dumps(r)
    assert len(blob) < 5000
    r2 = pickle.loads(blob)
    assert r2 == r and r2.fingerprint() == r.fingerprint()
    np.testing.assert_array_equal(r2.tables.score_table, r.tables.score_table)


def test_unknown_box_name():
    with pytest.raises(RulesError, match="unknown box 'kniffel'"):
        get_rules("yahtzee").box_index("kniffel")
