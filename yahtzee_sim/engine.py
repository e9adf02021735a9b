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

from ._kernels.play import apply_categories, kernel_rules, roll_dice
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
    kr = kernel_rules(rules)
    n, F, C = n_games, rules.n_faces, rules.n_categories
    k0, k1 = dice_key
    games = np.arange(first_game, first_game + n, dtype=np.int64)
    counts = np.zeros((n, F), dtype=np.int8)
    roll_idx = np.zeros(n, dtype=np.int32)
    used = np.zeros(n, dtype=np.int64)
    upper_sum = np.zeros(n, dtype=np.int64)
    flag = np.zeros(n, dtype=np.int64)
    score = np.zeros(n, dtype=np.int64)
    cat_scores = np.zeros((n, C), dtype=np.int16)
    filled_turn = np.zeros((n, C), dtype=np.int8)
    ycount = np.zeros(n, dtype=np.int8)
    ybonus = np.zeros(n, dtype=np.int8)
    nothing_kept = np.zeros((n, F), dtype=np.int8)
    rolling = np.ones(n, dtype=np.bool_)

    def view_of(rolls_left, turn, active):
        return TurnView(
            rules,
            games,
            counts,
            roll_idx,
            rolls_left,
            turn,
            used,
            upper_sum,
            flag,
            score,
            cat_scores,
            strategy_key,
            active,
        )

    everyone = np.ones(n, dtype=np.bool_)
    for turn in range(C):
        turns = np.full(n, turn, dtype=np.int64)
        rolling[:] = True
        roll_dice(kr, counts, roll_idx, nothing_kept, rolling, games, turns, turns * 0, k0, k1)
        for roll in range(1, rules.rolls_per_turn):
            view = view_of(rules.rolls_per_turn - roll, turn, rolling.copy())
            keep = _as_keep(strategy, strategy.keep(view), view)
            rolls = np.full(n, roll, dtype=np.int64)
            bad = roll_dice(kr, counts, roll_idx, keep, rolling, games, turns, rolls, k0, k1)
            if bad >= 0:
                action = f"keep {list(DiceTables.faces_from_counts(keep[bad]))}"
                raise _illegal(strategy, "keep", view, bad, action)
            if not rolling.any():
                break
        view = view_of(0, turn, None)
        cats = _as_categories(strategy, strategy.category(view), view)
        bad = apply_categories(
            kr,
            cats,
            everyone,
            roll_idx,
            used,
            upper_sum,
            flag,
            score,
            cat_scores,
            filled_turn,
            ycount,
            ybonus,
            turns,
        )
        if bad >= 0:
            c = int(cats[bad])
            label = rules.category_names[c] if 0 <= c < C else f"index {c}"
            if 0 <= c < C and (int(used[bad]) >> c) & 1:
                label += " (already filled)"
            elif 0 <= c < C:
                label += " (not allowed by the joker rule)"
            raise _illegal(strategy, "category choice", view, bad, label)

    upper_bonus = np.where(upper_sum >= rules.upper_bonus_threshold, rules.upper_bonus, 0)
    if not rules.upper_bonus:
        upper_bonus = np.zeros(n, dtype=np.int64)
    total = (
        cat_scores.sum(axis=1, dtype=np.int64)
        + upper_bonus
        + ybonus.astype(np.int64) * rules.yahtzee_bonus
    )
    return {
        "total": total.astype(RESULT_DTYPES["total"]),
        "category_scores": cat_scores,
        "filled_turn": filled_turn,
        "upper_bonus": upper_bonus.astype(RESULT_DTYPES["upper_bonus"]),
        "yahtzees": ycount,
        "yahtzee_bonuses": ybonus,
    }
