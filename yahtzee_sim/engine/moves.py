"""Checks of a strategy's moves: the one place that says what a legal answer is.

A strategy answers a :class:`~yahtzee_sim.engine.view.TurnView` with face counts to keep
(``keep``) or box indices (``box``). The engine (:mod:`yahtzee_sim.engine.lockstep`) and the
exact evaluator (:mod:`yahtzee_sim.exact.laws`) both pass every answer through
:func:`keep_array` / :func:`box_array`, and describe an illegal move with
:func:`illegal_move`, so a strategy gets the same error wherever it plays.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet


def _bad_shape(strategy, method: str, what: str, shape: tuple, arr: np.ndarray):
    name = strategy_label(strategy)
    return IllegalMoveError(
        f"strategy {name!r}: {method}() must return integer {what} of shape {shape}, "
        f"got {arr.dtype} array of shape {arr.shape}",
        strategy=name,
    )


def keep_array(strategy, out, view: TurnView) -> np.ndarray:
    """``strategy.keep(view)``'s answer ``out`` as contiguous int8 face counts ``(m,
    n_faces)``.

    Raises :class:`~yahtzee_sim.errors.IllegalMoveError` when it is not an integer array
    of that shape, or when an active row (:attr:`TurnView.active`) keeps more dice than
    are rolled (or fewer than none). Whether the dice hold each keep is checked where the
    keep is applied.
    """
    shape = (len(view), view.rules.n_faces)
    arr = np.asarray(out)
    if arr.shape != shape or not np.issubdtype(arr.dtype, np.integer):
        raise _bad_shape(strategy, "keep", "face counts", shape, arr)
    if arr.dtype != np.int8:
        wild = ((arr < 0) | (arr > view.rules.n_dice)).any(axis=1)
        wild = np.flatnonzero(wild & view.active)
        if len(wild):
            i = int(wild[0])
            raise illegal_move(strategy, "keep", view, i, f"keep counts {arr[i].tolist()}")
    return np.ascontiguousarray(arr, dtype=np.int8)


def box_array(strategy, out, view: TurnView) -> np.ndarray:
    """``strategy.box(view)``'s answer ``out`` as contiguous int64 box indices
    ``(m,)``; raises :class:`~yahtzee_sim.errors.IllegalMoveError` when it is not an
    integer array of that shape. Whether each box is open and allowed is checked where
    the box is written."""
    shape = (len(view),)
    arr = np.asarray(out)
    if arr.shape != shape or not np.issubdtype(arr.dtype, np.integer):
        raise _bad_shape(strategy, "box", "box indices", shape, arr)
    return np.ascontiguousarray(arr, dtype=np.int64)


def box_label(rules: RuleSet, c: int, used: int) -> str:
    """Box ``c`` named for an error: its name, why it cannot take the roll when it is
    filled, or ``"index c"`` when there is no such box."""
    if not 0 <= c < rules.n_boxes:
        return f"index {c}"
    why = "already filled" if (used >> c) & 1 else "not allowed by the joker rule"
    return f"{rules.box_names[c]} ({why})"


def position_text(rules: RuleSet, used: int, upper_total: int) -> str:
    """The filled boxes and upper total of a position, for an error."""
    filled = [n for j, n in enumerate(rules.box_names) if (used >> j) & 1]
    return f"filled {filled or 'nothing'}, upper total {upper_total}"


def illegal_move(
    strategy, what: str, view: TurnView, i: int, action, in_game: bool = True
) -> IllegalMoveError:
    """The error for the illegal ``what`` (``"keep"``, ``"box choice"``) ``action`` of
    row ``i`` of ``view``: the strategy, the dice and where — the game, turn and rolls
    left (``in_game``), or the position (filled boxes, upper total) when the rows are
    positions rather than games (exact evaluation)."""
    rules = view.rules
    dice = DiceTables.faces_from_counts(view.dice[i])
    name = strategy_label(strategy)
    game = int(view.games[i]) if in_game else -1
    if in_game:
        where = f"in game {game}, turn {view.turn + 1}, rolls left {view.rolls_left}"
    else:
        used, upper = int(view.used[i]), int(view.upper_total[i])
        where = f"at rolls left {view.rolls_left}, {position_text(rules, used, upper)}"
    return IllegalMoveError(
        f"strategy {name!r} made an illegal {what} {where}: dice {list(dice)}, action {action}",
        strategy=name,
        game=game,
        turn=view.turn + 1,
        dice=dice,
        action=action,
    )
