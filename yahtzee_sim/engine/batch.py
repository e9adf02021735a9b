"""The per-game arrays of a batch of games, and the moves that advance them.

:class:`GameBatch` is the one container of games in play: the engine's lockstep blocks
(:func:`yahtzee_sim.engine.lockstep.play_block`, every seat of a visible match), the Gymnasium
environments (:mod:`yahtzee_sim.learning.env`), the check of game records
(:mod:`yahtzee_sim.engine.records`) and the terminal and web game (:mod:`yahtzee_sim.apps.game`)
all hold their games in one. The leading axis of every array is the game; a single game
is a batch of one. Rolling and scoring run the engine's kernels, so every user of the
batch plays the same dice and writes the same points.

The arrays share the names of :class:`~yahtzee_sim.engine.view.TurnView` and of
:class:`~yahtzee_sim.engine.results.Results`:

==================  =============  ======================================================
name                shape, dtype   meaning
==================  =============  ======================================================
``games``           (n,) int64     global game index (picks the dice: common random
                                   numbers)
``dice``            (n, F) int8    face counts of the current roll (index 0 = face 1)
``roll_index``      (n,) int32     index of the current roll in ``rules.tables``
``turn``            (n,) int64     0-based turn
``rolls_left``      (n,) int64     rerolls left this turn (0: choose a box)
``saved``           (n,) int64     rolls saved from earlier turns (games with saved
                                   rolls; part of the turn's rolls)
``saved_rolls``     (n,) int64     rolls this turn leaves unused, saved when its box is
                                   written (at most the cap)
``used``            (n,) int64     bitmask of filled boxes
``upper_total``     (n,) int64     upper-section total (uncapped)
``flag``            (n,) int64     Yahtzee-bonus flag of the state
``score``           (n,) int64     points so far, bonuses earned included
``box_scores`` (n, C) int16   points written in each box (0 while open)
``filled_turn``     (n, C) int8    0-based turn each box was filled in (-1: before the
                                   batch started)
``yahtzees``        (n,) int8      turns that ended on an n-of-a-kind
``yahtzee_bonuses`` (n,) int8      Yahtzee bonuses earned
==================  =============  ======================================================

The package needs no optional extra for this module.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim._core.batch_play import apply_boxes, roll_dice
from yahtzee_sim._core.bundle import RulesView
from yahtzee_sim._core.rng import keys_from_seed
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.observation import action_masks, observe_view
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.game.rules import RuleSet

#: Per-game result arrays and their compact dtypes.
RESULT_DTYPES = {
    "total": np.int16,
    "box_scores": np.int16,
    "filled_turn": np.int8,
    "upper_bonus": np.int16,
    "yahtzees": np.int8,
    "yahtzee_bonuses": np.int8,
}

_UNSEEDED = (np.uint64(0), np.uint64(0))
_STRATEGY_KEY = (np.uint64(1), np.uint64(2))


class GameBatch:
    """``n`` games of ``rules``, each at its own point of play (see the module docstring).

    Parameters
    ----------
    rules : RuleSet
    n : int
        Games in the batch.
    first_game : int
        Global index of the first game (games ``first_game .. first_game + n - 1``);
        :meth:`start` may start other games in any row.
    dice_key, strategy_key : tuple of two uint64
        Keys of the dice stream and of the strategies' own random stream
        (:func:`~yahtzee_sim._core.rng.keys_from_seed`); :meth:`seed` sets both
        from a seed.

    Examples
    --------
    >>> import numpy as np
    >>> from yahtzee_sim.game.rules import get_rules
    >>> batch = GameBatch(get_rules("yahtzee"), 1)
    >>> batch.seed(0)
    >>> batch.start(np.array([0]), np.array([17]))  # game 17 of seed 0: the first roll
    >>> int(batch.dice.sum()), int(batch.rolls_left[0])
    (5, 2)
    """

    def __init__(
        self,
        rules: RuleSet,
        n: int,
        first_game: int = 0,
        dice_key: tuple = _UNSEEDED,
        strategy_key: tuple = _STRATEGY_KEY,
    ) -> None:
        F, C = rules.n_faces, rules.n_boxes
        self.rules = rules
        self.kr = kernel_rules(rules)
        self.core_rules = RulesView(self.kr)  # read once: the engine calls it every step
        self.dice_key = tuple(dice_key)
        self.strategy_key = tuple(strategy_key)
        self.games = np.arange(first_game, first_game + n, dtype=np.int64)
        self.dice = np.zeros((n, F), dtype=np.int8)
        self.roll_index = np.zeros(n, dtype=np.int32)
        self.turn = np.zeros(n, dtype=np.int64)
        self.rolls_left = np.zeros(n, dtype=np.int64)
        self.saved = np.zeros(n, dtype=np.int64)
        self.saved_rolls = np.zeros(n, dtype=np.int64)
        self.used = np.zeros(n, dtype=np.int64)
        self.upper_total = np.zeros(n, dtype=np.int64)
        self.flag = np.zeros(n, dtype=np.int64)
        self.score = np.zeros(n, dtype=np.int64)
        self.box_scores = np.zeros((n, C), dtype=np.int16)
        self.filled_turn = np.zeros((n, C), dtype=np.int8)
        self.yahtzees = np.zeros(n, dtype=np.int8)
        self.yahtzee_bonuses = np.zeros(n, dtype=np.int8)
        self._nothing_kept = np.zeros((n, F), dtype=np.int8)

    def __len__(self) -> int:
        return len(self.games)

    # ------------------------------------------------------------- setting up
    def seed(self, seed: int) -> None:
        """Deal the dice (and strategy stream) of ``simulate(..., seed=seed)``."""
        keys = keys_from_seed(seed)
        self.dice_key, self.strategy_key = keys[:2], keys[2:]

    @property
    def seeded(self) -> bool:
        """A dice key is set (:meth:`seed` or the constructor)."""
        return self.dice_key != _UNSEEDED

    def start(self, rows: np.ndarray, game_ids: np.ndarray) -> None:
        """Start game ``game_ids[j]`` in row ``rows[j]``: an empty score sheet, turn 0 and the first
        roll."""
        for a in (self.used, self.upper_total, self.flag, self.score, self.turn, self.saved):
            a[rows] = 0
        for a in (self.box_scores, self.filled_turn, self.yahtzees, self.yahtzee_bonuses):
            a[rows] = 0
        self.games[rows] = game_ids
        rolling = np.zeros(len(self), dtype=np.bool_)
        rolling[rows] = True
        self.roll(rolling)

    def set_position(self, sheet) -> None:
        """Put every game of the batch at the score sheet ``sheet``
        (:class:`~yahtzee_sim.multiplayer.win_probability.ScoreSheet`): its boxes, upper
        total, flag, bonuses."""
        names = self.rules.box_names
        for name, pts in sheet.boxes.items():
            c = names.index(name)
            self.box_scores[:, c] = pts
            self.filled_turn[:, c] = -1  # filled before the batch started
        self.used[:] = sheet.used
        self.upper_total[:] = sheet.upper_total
        self.flag[:] = sheet.flag
        self.score[:] = sheet.score
        self.yahtzee_bonuses[:] = sheet.yahtzee_bonuses

    def set_dice(self, row: int, counts: np.ndarray) -> None:
        """Put the dice ``counts`` (face counts of a roll) in row ``row`` (dice rolled
        outside the program)."""
        self.dice[row] = counts
        self.roll_index[row] = int(self.rules.tables.roll_index(np.asarray(counts)))

    # ------------------------------------------------------------------ moves
    def roll(self, rows: np.ndarray, keep: np.ndarray | None = None) -> int:
        """Roll the dice of the rows set in ``rows`` (bool): the first roll of their turn
        (``keep`` None), or a reroll of the dice not in ``keep`` (face counts per row).

        Keeping every die ends the rolling (0 rolls left; in games with saved rolls the
        rolls left are saved, up to the cap); each reroll uses one roll. A turn has
        ``rolls_per_turn`` rolls plus the rolls saved before it. Returns the first row
        whose ``keep`` the dice do not hold (then nothing changes), or -1.
        """
        rules = self.rules
        first = keep is None
        if first:
            keep = self._nothing_kept
            counter = np.zeros(len(self), dtype=np.int64)
        else:
            counter = rules.rolls_per_turn + self.saved - self.rolls_left
        if keep.dtype != np.int8:  # a count out of int8's range would wrap: never legal
            keep = np.where((keep < 0) | (keep > rules.n_dice), -1, keep)
        rolled = rows.copy()
        k0, k1 = self.dice_key
        bad = roll_dice(
            self.core_rules,
            self.dice,
            self.roll_index,
            np.ascontiguousarray(keep, dtype=np.int8),
            rolled,
            self.games,
            self.turn,
            counter,
            k0,
            k1,
        )
        if bad >= 0:
            return bad
        if first:
            self.rolls_left[rows] = rules.rolls_per_turn - 1 + self.saved[rows]
            self.saved_rolls[rows] = 0
        else:
            self.rolls_left[rolled] -= 1
            stopped = rows & ~rolled
            self.saved_rolls[stopped] = np.minimum(self.rolls_left[stopped], rules.saved_roll_cap)
            self.rolls_left[stopped] = 0
        return -1

    def write_boxes(self, boxes: np.ndarray, rows: np.ndarray) -> int:
        """Write the roll of each row set in ``rows`` in box ``boxes[i]`` (int64),
        in the row's turn: points, bonuses, flag and score sheet.

        Returns the first row whose box the rules do not allow (filled, out of range,
        or barred by the joker rule; then nothing changes), or -1. The rolls the turn
        left unused are saved for the next (games with saved rolls).
        """
        bad = apply_boxes(
            self.core_rules,
            boxes,
            rows,
            self.roll_index,
            self.used,
            self.upper_total,
            self.flag,
            self.score,
            self.box_scores,
            self.filled_turn,
            self.yahtzees,
            self.yahtzee_bonuses,
            self.turn,
        )
        if bad < 0:
            self.saved[rows] = self.saved_rolls[rows]
            self.saved_rolls[rows] = 0
        return bad

    def step(self, actions: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play the legal ``actions`` (:mod:`yahtzee_sim.engine.observation` encoding) of the rows
        set in ``rows``: a keep rerolls; a box is written and the next turn's first roll
        follows. Returns ``(points scored, game over)`` per row."""
        rules = self.rules
        n_keeps = rules.tables.n_keeps
        keeping = rows & (self.rolls_left > 0)
        scoring = rows & (self.rolls_left == 0)
        before = self.score.copy()
        if keeping.any():
            self.roll(keeping, rules.tables.keep_counts[np.where(keeping, actions, 0)])
        over = np.zeros(len(self), dtype=np.bool_)
        if scoring.any():
            self.write_boxes(np.where(scoring, actions - n_keeps, 0).astype(np.int64), scoring)
            over = scoring & (self.turn == rules.n_boxes - 1)
            nxt = scoring & ~over
            self.turn[nxt] += 1
            self.roll(nxt)
        return (self.score - before).astype(np.float64), over

    # ------------------------------------------------------------------ views
    def view(self, rolls_left: int, turn: int, active=None, match=None) -> TurnView:
        """A strategy's view of every game of the batch at one decision (all games at
        turn ``turn`` with ``rolls_left`` rerolls left; ``active`` marks the games that
        have the decision to make)."""
        return TurnView(
            self.rules,
            self.games,
            self.dice,
            self.roll_index,
            rolls_left,
            turn,
            self.used,
            self.upper_total,
            self.flag,
            self.score,
            self.box_scores,
            self.strategy_key,
            active,
            match,
            self.saved_rolls,
        )

    def observation(self) -> np.ndarray:
        """``(n, size)`` int16 observations (:func:`yahtzee_sim.engine.observation.observe`)."""
        return observe_view(self)

    def action_mask(self) -> np.ndarray:
        """``(n, n_actions)`` int8: 1 for the legal actions of each row now."""
        return action_masks(self.rules, self.roll_index, self.rolls_left, self.used, self.flag)

    def results(self) -> dict[str, np.ndarray]:
        """The per-game arrays of :data:`RESULT_DTYPES` (after the last turn)."""
        rules = self.rules
        n = len(self)
        upper_bonus = np.where(
            self.upper_total >= rules.upper_bonus_threshold, rules.upper_bonus, 0
        )
        if not rules.upper_bonus:
            upper_bonus = np.zeros(n, dtype=np.int64)
        total = (
            self.box_scores.sum(axis=1, dtype=np.int64)
            + upper_bonus
            + self.yahtzee_bonuses.astype(np.int64) * rules.yahtzee_bonus
        )
        return {
            "total": total.astype(RESULT_DTYPES["total"]),
            "box_scores": self.box_scores,
            "filled_turn": self.filled_turn,
            "upper_bonus": upper_bonus.astype(RESULT_DTYPES["upper_bonus"]),
            "yahtzees": self.yahtzees,
            "yahtzee_bonuses": self.yahtzee_bonuses,
        }
