"""The lockstep engine: the scoring step's joker and bonus rules, illegal moves refused
with details, rerolls drawn from the keep→roll table, common random numbers, results
independent of chunking, and the memory of a result."""

import numpy as np
import pytest
from scipy.stats import chisquare

from yahtzee_sim import IllegalMoveError, get_rules, simulate
from yahtzee_sim._core.batch_play import roll_dice
from yahtzee_sim._core.rng import keys_from_seed
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.lockstep import play_block
from yahtzee_sim.strategies import FunctionStrategy

from helpers import options, view_for

FIVE_FOURS = (4, 4, 4, 4, 4)
LOWER = (
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "chance",
)


# ----------------------------------------------------------------- joker rules
def test_open_yahtzee_box_scores_normally():
    opts = options("yahtzee", FIVE_FOURS)
    assert opts["yahtzee"] == 50 and opts["full_house"] == 0 and opts["four_of_a_kind"] == 20
    assert len(opts) == 13


def test_forced_joker_matching_upper_box_first():
    opts = options("yahtzee", FIVE_FOURS, used=("yahtzee",), flag=1)
    assert opts == {"fours": 20}
    bonus = view_for("yahtzee", FIVE_FOURS, used=("yahtzee",), flag=1).bonus_points()
    assert (bonus == 100).all()


def test_forced_joker_lower_boxes_at_joker_values():
    opts = options("yahtzee", FIVE_FOURS, used=("yahtzee", "fours"), flag=0)
    assert opts == {
        "three_of_a_kind": 20,
        "four_of_a_kind": 20,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 20,
    }
    bonus = view_for("yahtzee", FIVE_FOURS, used=("yahtzee", "fours"), flag=0).bonus_points()
    assert (bonus == 0).all()  # box holds 0: no Yahtzee bonus


def test_forced_joker_zero_in_upper_box_when_lower_full():
    opts = options("yahtzee", FIVE_FOURS, used=("yahtzee", "fours", *LOWER), flag=1)
    assert opts == {"ones": 0, "twos": 0, "threes": 0, "fives": 0, "sixes": 0}


def test_free_joker_matching_box_open_scores_normally_anywhere():
    opts = options("yahtzee-free-joker", FIVE_FOURS, used=("yahtzee",), flag=1)
    assert opts["fours"] == 20 and opts["full_house"] == 0 and opts["chance"] == 20
    assert len(opts) == 12


def test_free_joker_matching_box_filled_any_box_at_joker_values():
    opts = options("yahtzee-free-joker", FIVE_FOURS, used=("yahtzee", "fours"), flag=1)
    assert opts["full_house"] == 25 and opts["large_straight"] == 40
    assert opts["sixes"] == 0 and opts["ones"] == 0
    assert len(opts) == 11


def test_no_joker_still_pays_bonus():
    opts = options("yahtzee-no-joker", FIVE_FOURS, used=("yahtzee", "fours"), flag=1)
    assert opts["full_house"] == 0 and opts["large_straight"] == 0
    v = view_for("yahtzee-no-joker", FIVE_FOURS, used=("yahtzee", "fours"), flag=1)
    assert (v.bonus_points() == 100).all()
    v = view_for("yahtzee-no-bonus", FIVE_FOURS, used=("yahtzee", "fours"), flag=1)
    assert (v.bonus_points() == 0).all()


def test_upper_bonus_counted_when_reached():
    v = view_for("yahtzee", (6, 6, 6, 1, 2), upper_total=50)
    names = v.rules.box_names
    bonus = dict(zip(names, v.bonus_points()[0].tolist(), strict=True))
    assert bonus["sixes"] == 35 and bonus["ones"] == 0 and bonus["chance"] == 0


# ------------------------------------------------------------ illegal moves
def _first_legal(pos):
    return max(pos.points, key=pos.points.get)


def test_keep_not_in_dice_raises_with_details():
    bad = FunctionStrategy(lambda pos: [6, 6, 6, 6, 6], _first_legal, label="sixes-fan")
    with pytest.raises(IllegalMoveError) as info:
        simulate(bad, 50, seed=3)
    err = info.value
    msg = str(err)
    assert (
        "sixes-fan" in msg and "game" in msg and "turn 1" in msg and "keep [6, 6, 6, 6, 6]" in msg
    )
    assert err.game >= 0 and err.turn == 1 and len(err.dice) == 5
    assert err.dice != (6, 6, 6, 6, 6)


def test_used_box_raises():
    bad = FunctionStrategy(lambda pos: list(pos.dice), lambda pos: "chance", label="chancer")
    with pytest.raises(IllegalMoveError, match=r"chancer.*turn 2.*chance \(already filled\)"):
        simulate(bad, 10, seed=0)


def test_box_index_out_of_range_raises():
    bad = FunctionStrategy(lambda pos: list(pos.dice), lambda pos: 99, label="x")
    with pytest.raises(IllegalMoveError, match="index 99"):
        simulate(bad, 3, seed=0)


def _yahtzee_chaser(pos):
    best = max(set(pos.dice), key=lambda d: (pos.dice.count(d), d))
    return [d for d in pos.dice if d == best]


def _joker_breaker(pos):
    if pos.turn == 0:
        return "yahtzee"
    if len(set(pos.dice)) == 1 and "chance" in pos.open_boxes:
        return "chance"  # ignores the forced-joker order
    return _first_legal(pos)


def test_forced_joker_violation_raises_but_free_joker_allows_it():
    s = FunctionStrategy(_yahtzee_chaser, _joker_breaker, label="breaker")
    with pytest.raises(IllegalMoveError, match="chance \\(not allowed by the joker rule\\)"):
        simulate(s, 400, seed=1, rules="yahtzee")
    res = simulate(s, 400, seed=1, rules="yahtzee-free-joker")
    assert res.n_games == 400


def test_wrong_return_shape_raises():
    from yahtzee_sim.strategies import Strategy

    class Broken(Strategy):
        def keep(self, view):
            return np.zeros(3, dtype=np.int8)

        def box(self, view):
            return np.zeros(len(view), dtype=np.int64)

    with pytest.raises(IllegalMoveError, match="shape"):
        simulate(Broken(), 5)


# ---------------------------------------------------------------- dice / CRN
def test_reroll_frequencies_match_keep_roll_table():
    """Chance is data: the engine's dice follow the keep->roll probabilities."""
    rules = get_rules("yahtzee")
    t, kr = rules.tables, kernel_rules(rules)
    k0, k1, _, _ = keys_from_seed(11)
    n = 200_000
    for keep_faces in [(), (2, 5), (6, 6, 6)]:
        keep_counts = np.zeros(6, dtype=np.int8)
        for f in keep_faces:
            keep_counts[f - 1] += 1
        counts = np.tile(keep_counts, (n, 1))
        counts[:, 0] += 5 - keep_counts.sum()  # pad with ones so keep is a sub-multiset
        roll_idx = np.zeros(n, dtype=np.int32)
        rolling = np.ones(n, dtype=np.bool_)
        keep = np.tile(keep_counts, (n, 1))
        games = np.arange(n, dtype=np.int64)
        turns, rolls = np.full(n, 3), np.full(n, 1)
        assert roll_dice(kr, counts, roll_idx, keep, rolling, games, turns, rolls, k0, k1) == -1
        k = int(t.keep_index(keep_counts))
        lo, hi = t.keep_roll_ptr[k], t.keep_roll_ptr[k + 1]
        rolls, probs = t.keep_roll_roll[lo:hi], t.keep_roll_prob[lo:hi]
        observed = np.bincount(roll_idx, minlength=t.n_rolls)
        assert observed[np.setdiff1d(np.arange(t.n_rolls), rolls)].sum() == 0
        stat = chisquare(observed[rolls], probs * n)
        assert stat.pvalue > 1e-4, (keep_faces, stat)


def test_same_reroll_count_sees_same_new_faces():
    rules = get_rules("yahtzee")
    t, kr = rules.tables, kernel_rules(rules)
    k0, k1, _, _ = keys_from_seed(5)
    games = np.arange(1000, dtype=np.int64)
    start = np.tile(t.counts_from_faces((1, 1, 6, 6, 3)), (1000, 1))
    new = []
    for keep_faces in [(1, 1), (6, 6), (1, 6)]:
        keep = np.zeros((1000, 6), dtype=np.int8)
        for f in keep_faces:
            keep[:, f - 1] += 1
        counts = start.copy()
        roll_idx = np.zeros(1000, dtype=np.int32)
        rolling = np.ones(1000, dtype=np.bool_)
        turns, rolls = np.full(1000, 2), np.full(1000, 1)
        roll_dice(kr, counts, roll_idx, keep, rolling, games, turns, rolls, k0, k1)
        new.append(counts - keep)
    np.testing.assert_array_equal(new[0], new[1])
    np.testing.assert_array_equal(new[0], new[2])


def test_results_independent_of_chunking_and_offset():
    a = simulate("greedy", 300, seed=9, chunk_size=300)
    b = simulate("greedy", 300, seed=9, chunk_size=7)
    c = simulate("greedy", 100, seed=9, first_game=200)
    for name in ("total", "box_scores", "filled_turn", "yahtzees", "yahtzee_bonuses"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(getattr(a, name)[200:], getattr(c, name))


def test_random_strategy_reproducible_and_seed_dependent():
    a = simulate("random", 500, seed=1, chunk_size=64)
    b = simulate("random", 500, seed=1, chunk_size=500)
    c = simulate("random", 500, seed=2)
    np.testing.assert_array_equal(a.total, b.total)
    assert not np.array_equal(a.total, c.total)


# ------------------------------------------------------------ result arrays
def test_result_memory_per_million_games_under_200mb():
    res = simulate("random", 1000, seed=0)
    assert res.nbytes / 1000 * 1_000_000 <= 200e6
    assert res.total.dtype == np.int16 and res.filled_turn.dtype == np.int8


def test_play_block_returns_compact_arrays():
    rules = get_rules("yatzy")
    from yahtzee_sim.strategies import get_strategy

    keys = keys_from_seed(0)
    g = get_strategy("greedy")
    out = play_block(g, rules, 0, 10, keys[:2], keys[2:])
    assert out["box_scores"].shape == (10, 15)
    assert out["box_scores"].dtype == np.int16


def test_the_engine_kernels_refuse_masks_that_are_not_bool_and_keeps_out_of_range():
    from yahtzee_sim.engine.batch import GameBatch

    rules = get_rules("yahtzee")
    kr = kernel_rules(rules)
    k0, k1, _, _ = keys_from_seed(5)
    counts = np.tile(rules.tables.counts_from_faces((1, 1, 6, 6, 3)), (4, 1))
    keep = np.zeros((4, 6), dtype=np.int8)
    args = (np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64), np.ones(4, dtype=np.int64))
    with pytest.raises(ValueError, match="rolling must be a bool array"):
        roll_dice(kr, counts, np.zeros(4, dtype=np.int32), keep, np.ones(4), *args, k0, k1)
    batch = GameBatch(rules, 4, dice_key=keys_from_seed(1)[:2])
    batch.roll(np.ones(4, dtype=bool))
    wrapped = batch.dice.astype(np.int64) + 256  # as int8 every count would look legal
    assert batch.roll(np.ones(4, dtype=bool), wrapped) == 0
