"""The one container of games in play (yahtzee_sim.engine.batch) and the one check of moves
(yahtzee_sim.engine.moves)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim._core.rng import keys_from_seed
from yahtzee_sim.engine.batch import RESULT_DTYPES, GameBatch
from yahtzee_sim.engine.lockstep import play_block, play_turn
from yahtzee_sim.engine.moves import box_array, keep_array
from yahtzee_sim.engine.observation import random_legal_actions
from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import get_strategy

RULES = get_rules("yahtzee")


@settings(max_examples=8, deadline=None)
@given(first=st.integers(0, 10_000), n=st.integers(1, 6), at=st.integers(0, 5))
def test_a_game_is_the_same_in_any_batch(first, n, at):
    """Game ``g`` of a seed is the same game alone (a batch of one) or in a block."""
    keys = keys_from_seed(11)
    greedy = get_strategy("greedy")
    block = play_block(greedy, RULES, first, n, keys[:2], keys[2:])
    at = at % n
    alone = GameBatch(RULES, 1, first + at, keys[:2], keys[2:])
    for turn in range(RULES.n_boxes):
        play_turn(alone, greedy, turn)
    got = alone.results()
    assert set(got) == set(RESULT_DTYPES)
    for name, arr in got.items():
        np.testing.assert_array_equal(arr[0], block[name][at], err_msg=name)
    assert int(alone.score[0]) == int(got["total"][0])


def test_step_by_action_codes_plays_each_row_as_a_batch_of_one():
    """Rows at different points of play advance independently: five games stepped
    together end exactly as each stepped alone, with the same points."""
    rng = np.random.default_rng(3)
    many = GameBatch(RULES, 5)
    many.seed(7)
    many.start(np.arange(5), np.arange(100, 105))
    singles = []
    for g in range(5):
        one = GameBatch(RULES, 1)
        one.seed(7)
        one.start(np.array([0]), np.array([100 + g]))
        singles.append(one)
    live = np.ones(5, dtype=bool)
    totals = np.zeros(5)
    while live.any():
        actions = random_legal_actions(many.action_mask(), rng)
        live &= rng.random(5) < 0.9  # some rows wait a step
        got, over = many.step(actions, live.copy())
        totals += got
        for g in np.flatnonzero(live):
            one_got, _ = singles[g].step(actions[g : g + 1], np.ones(1, dtype=bool))
            assert one_got[0] == got[g]
        live &= ~over
        live |= (many.used != (1 << RULES.n_boxes) - 1) & (rng.random(5) < 0.5)
    for g, one in enumerate(singles):
        for name in ("dice", "used", "upper_total", "flag", "score", "box_scores"):
            np.testing.assert_array_equal(getattr(one, name)[0], getattr(many, name)[g])
    np.testing.assert_array_equal(totals, many.score)


def test_a_reroll_the_dice_do_not_hold_changes_nothing():
    batch = GameBatch(RULES, 2)
    batch.seed(0)
    batch.start(np.arange(2), np.arange(2))
    before = batch.dice.copy()
    keep = batch.dice.copy()
    keep[1] += 1  # row 1 keeps a die it does not have
    assert batch.roll(np.ones(2, dtype=bool), keep) == 1
    np.testing.assert_array_equal(batch.dice, before)
    assert list(batch.rolls_left) == [2, 2]


def test_keeping_every_die_ends_the_rolling():
    batch = GameBatch(RULES, 1)
    batch.seed(0)
    batch.start(np.array([0]), np.array([0]))
    assert batch.roll(np.ones(1, dtype=bool), batch.dice.copy()) == -1
    assert batch.rolls_left[0] == 0
    mask = batch.action_mask()[0]
    assert mask[: RULES.tables.n_keeps].sum() == 0 and mask[RULES.tables.n_keeps :].any()


class _Named:
    name = "tester"


def test_moves_are_checked_once_for_shape_type_and_range():
    batch = GameBatch(RULES, 3)
    batch.seed(0)
    batch.start(np.arange(3), np.arange(3))
    active = np.array([True, False, True])
    view = batch.view(2, 0, active)
    with pytest.raises(IllegalMoveError, match=r"keep\(\) must return integer face counts"):
        keep_array(_Named(), np.zeros((3, 6)), view)
    with pytest.raises(IllegalMoveError, match=r"shape \(3, 6\)"):
        keep_array(_Named(), np.zeros((2, 6), dtype=np.int64), view)
    wide = np.zeros((3, 6), dtype=np.int64)
    wide[1, 0] = 300  # an inactive row: ignored
    assert keep_array(_Named(), wide, view).dtype == np.int8
    wide[2, 0] = 261  # would wrap to 5 as int8: refused, naming the game
    with pytest.raises(IllegalMoveError, match="in game 2, turn 1"):
        keep_array(_Named(), wide, view)
    with pytest.raises(IllegalMoveError, match=r"box\(\) must return integer"):
        box_array(_Named(), np.zeros(3, dtype=float), view)
    assert box_array(_Named(), [0, 1, 2], view).dtype == np.int64


@pytest.mark.slow
def test_the_container_and_the_game_need_no_optional_extra():
    """With gymnasium and Flask unimportable, a game is played and scored."""
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = None\n"
        "sys.modules['flask'] = None\n"
        "from yahtzee_sim.apps.game import Game\n"
        "g = Game(seed=1)\n"
        "g.keep(g.dice())\n"
        "g.box(next(iter(g.points())))\n"
        "assert g.state()['turn'] == 2\n"
        "import yahtzee_sim.engine.records, yahtzee_sim.engine.lockstep\n"
        "assert 'gymnasium' not in {m.split('.')[0] for m in sys.modules if sys.modules[m]}\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)
