"""The engine: plays a block of games in lockstep as arrays.

All games of a block advance together, turn by turn and roll by roll; the
strategy is asked once per decision point for the whole batch of games that
still have that decision to make (games that kept every die have ended their
turn). Every decision is validated; an illegal one raises
:class:`~yahtzee_sim.errors.IllegalMoveError`.

Common random numbers
---------------------
The face of die ``slot`` in roll ``roll`` of turn ``turn`` of game ``g`` is a
pure function of ``(seed, g, turn, roll, slot)`` (a keyed counter-based hash,
see :mod:`yahtzee_sim._kernels.rng`). Rerolled dice take the first slots of
their roll. So game ``g`` sees the same dice whatever the block size, chunking
or number of jobs, and two strategies that reroll the same number of dice at
the same point of the same game see the same new faces.

The engine never imports a concrete strategy.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ._kernels.scoring import apply_categories, kernel_rules, roll_dice
from .dice import DiceTables
from .errors import IllegalMoveError
from .rules import RuleSet
from .view import TurnView
from .vocabulary import strategy_label


class BatchStrategy(Protocol):
    """What the engine needs of a strategy (see :class:`yahtzee_sim.strategies.Strategy`)."""

    name: str

    def keep(self, view: TurnView) -> np.ndarray: ...

    def category(self, view: TurnView) -> np.ndarray: ...


#: Per-game result arrays and their compact dtypes.
RESULT_DTYPES = {
    "total": np.int16,
    "category_scores": np.int16,
    "filled_turn": np.int8,
    "upper_bonus": np.int16,
    "yahtzees": np.int8,
    "yahtzee_bonuses": np.int8,
}


def _illegal(strategy, what, view: TurnView, i: int, action) -> IllegalMoveError:
    dice = DiceTables.faces_from_counts(view.dice[i])
    game = int(view.games[i])
    name = strategy_label(strategy)
    msg = (
        f"strategy {name!r} made an illegal {what} in game {game}, turn {view.turn + 1}, "
        f"rolls left {view.rolls_left}: dice {list(dice)}, action {action}"
    )
    return IllegalMoveError(
        msg, strategy=name, game=game, turn=view.turn + 1, dice=dice, action=action
    )


def _as_keep(strategy, out, view: TurnView) -> np.ndarray:
    m, F = len(view), view.rules.n_faces
    arr = np.asarray(out)
    if arr.shape != (m, F) or not np.issubdtype(arr.dtype, np.integer):
        raise IllegalMoveError(
            f"strategy {strategy_label(strategy)!r}: keep() must return integer face counts of "
            f"shape ({m}, {F}), got {arr.dtype} array of shape {arr.shape}",
            strategy=strategy_label(strategy),
        )
    return np.ascontiguousarray(arr, dtype=np.int8)


def _as_categories(strategy, out, view: TurnView) -> np.ndarray:
    m = len(view)
    arr = np.asarray(out)
    if arr.shape != (m,) or not np.issubdtype(arr.dtype, np.integer):
        raise IllegalMoveError(
            f"strategy {strategy_label(strategy)!r}: category() must return integer category "
            f"indices of shape ({m},), got {arr.dtype} array of shape {arr.shape}",
            strategy=strategy_label(strategy),
        )
    return np.ascontiguousarray(arr, dtype=np.int64)


class GameBlock:
    """The per-game arrays of a block of games of one player, advanced turn by turn.

    Solitaire blocks (:func:`play_block`) and every seat of a visible table
    (:mod:`yahtzee_sim.tables`) are played by the same :meth:`play_turn`.
    """

    def __init__(self, rules: RuleSet, first_game: int, n_games: int, dice_key, strategy_key):
        n, F, C = n_games, rules.n_faces, rules.n_categories
        self.rules = rules
        self.kr = kernel_rules(rules)
        self.dice_key = dice_key
        self.strategy_key = strategy_key
        self.games = np.arange(first_game, first_game + n, dtype=np.int64)
        self.counts = np.zeros((n, F), dtype=np.int8)
        self.roll_idx = np.zeros(n, dtype=np.int32)
        self.used = np.zeros(n, dtype=np.int64)
        self.upper_sum = np.zeros(n, dtype=np.int64)
        self.flag = np.zeros(n, dtype=np.int64)
        self.score = np.zeros(n, dtype=np.int64)
        self.cat_scores = np.zeros((n, C), dtype=np.int16)
        self.filled_turn = np.zeros((n, C), dtype=np.int8)
        self.ycount = np.zeros(n, dtype=np.int8)
        self.ybonus = np.zeros(n, dtype=np.int8)
        self._nothing_kept = np.zeros((n, F), dtype=np.int8)
        self._rolling = np.ones(n, dtype=np.bool_)
        self._everyone = np.ones(n, dtype=np.bool_)

    def __len__(self) -> int:
        return len(self.games)

    def set_position(self, card) -> None:
        """Start every game of the block from the score card ``card``
        (:class:`~yahtzee_sim.winprob.ScoreCard`): its boxes, upper total, flag, bonuses."""
        names = self.rules.category_names
        for name, pts in card.boxes.items():
            c = names.index(name)
            self.cat_scores[:, c] = pts
            self.filled_turn[:, c] = -1  # filled before the block started
        self.used[:] = card.used
        self.upper_sum[:] = card.upper_total
        self.flag[:] = card.flag
        self.score[:] = card.score
        self.ybonus[:] = card.yahtzee_bonuses

    def view(self, rolls_left: int, turn: int, active=None, table=None) -> TurnView:
        """The strategy's view of every game of the block at one decision."""
        return TurnView(
            self.rules,
            self.games,
            self.counts,
            self.roll_idx,
            rolls_left,
            turn,
            self.used,
            self.upper_sum,
            self.flag,
            self.score,
            self.cat_scores,
            self.strategy_key,
            active,
            table,
        )

    def play_turn(self, strategy: BatchStrategy, turn: int, table=None) -> None:
        """Roll, reroll and score turn ``turn`` of every game, asking ``strategy``;
        ``table`` (:class:`~yahtzee_sim.view.TableInfo`, visible games) goes into its views."""
        rules, kr = self.rules, self.kr
        k0, k1 = self.dice_key
        n = len(self)
        turns = np.full(n, turn, dtype=np.int64)
        rolling = self._rolling
        rolling[:] = True
        roll_dice(
            kr, self.counts, self.roll_idx, self._nothing_kept, rolling, self.games, turns,
            turns * 0, k0, k1,
        )  # fmt: skip
        for roll in range(1, rules.rolls_per_turn):
            view = self.view(rules.rolls_per_turn - roll, turn, rolling.copy(), table)
            keep = _as_keep(strategy, strategy.keep(view), view)
            rolls = np.full(n, roll, dtype=np.int64)
            bad = roll_dice(
                kr, self.counts, self.roll_idx, keep, rolling, self.games, turns, rolls, k0, k1
            )
            if bad >= 0:
                action = f"keep {list(DiceTables.faces_from_counts(keep[bad]))}"
                raise _illegal(strategy, "keep", view, bad, action)
            if not rolling.any():
                break
        view = self.view(0, turn, None, table)
        cats = _as_categories(strategy, strategy.category(view), view)
        bad = apply_categories(
            kr, cats, self._everyone, self.roll_idx, self.used, self.upper_sum, self.flag,
            self.score, self.cat_scores, self.filled_turn, self.ycount, self.ybonus, turns,
        )  # fmt: skip
        if bad >= 0:
            C = rules.n_categories
            c = int(cats[bad])
            label = rules.category_names[c] if 0 <= c < C else f"index {c}"
            if 0 <= c < C and (int(self.used[bad]) >> c) & 1:
                label += " (already filled)"
            elif 0 <= c < C:
                label += " (not allowed by the joker rule)"
            raise _illegal(strategy, "category choice", view, bad, label)

    def results(self) -> dict[str, np.ndarray]:
        """The per-game arrays of :data:`RESULT_DTYPES` (after the last turn)."""
        rules = self.rules
        n = len(self)
        upper_bonus = np.where(self.upper_sum >= rules.upper_bonus_threshold, rules.upper_bonus, 0)
        if not rules.upper_bonus:
            upper_bonus = np.zeros(n, dtype=np.int64)
        total = (
            self.cat_scores.sum(axis=1, dtype=np.int64)
            + upper_bonus
            + self.ybonus.astype(np.int64) * rules.yahtzee_bonus
        )
        return {
            "total": total.astype(RESULT_DTYPES["total"]),
            "category_scores": self.cat_scores,
            "filled_turn": self.filled_turn,
            "upper_bonus": upper_bonus.astype(RESULT_DTYPES["upper_bonus"]),
            "yahtzees": self.ycount,
            "yahtzee_bonuses": self.ybonus,
        }


def play_block(
    strategy: BatchStrategy,
    rules: RuleSet,
    first_game: int,
    n_games: int,
    dice_key: tuple,
    strategy_key: tuple,
) -> dict[str, np.ndarray]:
    """Play games ``first_game .. first_game + n_games - 1`` in lockstep.

    Returns the per-game arrays of :data:`RESULT_DTYPES`.
    """
    block = GameBlock(rules, first_game, n_games, dice_key, strategy_key)
    for turn in range(rules.n_categories):
        block.play_turn(strategy, turn)
    return block.results()
