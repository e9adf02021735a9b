"""The dice tables: sizes, keeps and rolls as multisets, keep→roll probabilities against
enumeration, roll→keep edges, roll indices, refusals, and read-only arrays."""

from itertools import product
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee_sim import get_rules
from yahtzee_sim.game.dice import DiceError


def test_table_sizes_5d6():
    t = get_rules("yahtzee").tables
    assert t.n_rolls == 252
    assert t.n_keeps == 462
    assert t.n_edges == 4368
    assert len(t.roll_keep_keep) == 4368
    assert t.keep_size[0] == 0 and t.keep_counts[0].sum() == 0


@pytest.mark.parametrize("rules", ["yahtzee", "2-yatzy"])
def test_keeps_are_sorted_by_size_with_full_keeps_last(rules):
    """The kernels rely on it: adding a die moves to a later keep, and the last
    n_rolls keeps are the full ones (the rolls themselves)."""
    t = get_rules(rules).tables
    assert (np.diff(t.keep_size) >= 0).all()
    assert (t.keep_size[-t.n_rolls :] == t.n_dice).all()
    assert (t.keep_size[: -t.n_rolls] < t.n_dice).all()
    partial = t.keep_add[: -t.n_rolls]
    assert (partial > np.arange(len(partial))[:, None]).all()


@pytest.mark.parametrize(("n_dice", "n_faces", "rules"), [(5, 6, "yatzy"), (2, 2, "2-yatzy")])
def test_sizes_generic(n_dice, n_faces, rules):
    t = get_rules(rules).tables
    assert t.n_rolls == comb(n_dice + n_faces - 1, n_dice)
    assert t.n_keeps == comb(n_dice + n_faces, n_dice)


def test_keep_roll_probabilities_match_enumeration():
    """P(roll | keep) equals brute-force enumeration of ordered rerolls."""
    t = get_rules("yahtzee").tables
    dense = t.dense_keep_roll()
    for k in [0, 3, 17, 100, 300, 461]:
        keep = t.keep_counts[k].astype(int)
        m = 5 - keep.sum()
        freq = np.zeros(t.n_rolls)
        for faces in product(range(6), repeat=m):
            counts = keep.copy()
            for f in faces:
                counts[f] += 1
            freq[t.roll_index(counts)] += 1
        np.testing.assert_allclose(dense[k], freq / 6**m, atol=1e-15)


def test_roll_keep_adjacency_is_sub_multisets():
    t = get_rules("yahtzee").tables
    for r in [0, 5, 100, 251]:
        keeps = t.roll_keep_keep[t.roll_keep_ptr[r] : t.roll_keep_ptr[r + 1]]
        expected = np.flatnonzero((t.keep_counts <= t.roll_counts[r]).all(axis=1))
        np.testing.assert_array_equal(np.sort(keeps), expected)
        assert t.roll_keep_index[r] in keeps


@given(st.lists(st.integers(1, 6), min_size=5, max_size=5), st.randoms())
def test_roll_index_ignores_dice_order(dice, rnd):
    t = get_rules("yahtzee").tables
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    a = t.roll_index(t.counts_from_faces(dice))
    b = t.roll_index(t.counts_from_faces(shuffled))
    assert a == b
    assert t.faces_from_counts(t.roll_counts[a]) == tuple(sorted(dice))


def test_bad_dice_raise_clear_errors():
    t = get_rules("yahtzee").tables
    with pytest.raises(DiceError, match="expected 5 dice"):
        t.counts_from_faces([1, 2, 3])
    with pytest.raises(DiceError, match="die value 7 out of range 1..6"):
        t.counts_from_faces([1, 2, 3, 4, 7])
    with pytest.raises(DiceError, match="exactly 5 dice"):
        t.roll_index(np.array([1, 1, 1, 0, 0, 0]))


def test_tables_are_read_only():
    t = get_rules("yahtzee").tables
    with pytest.raises(ValueError):
        t.score_table[0, 0] = 99
