"""Checks of a strategy's moves: the one place that says what a legal answer is.

A strategy answers a :class:`~yahtzee_sim.engine.view.TurnView` with face counts to keep
(``keep``) or box indices (``box``). The engine (:mod:`yahtzee_sim.engine.lockstep`) and the
exact evaluator (:mod:`yahtzee_sim.exact.decision_tables`) both pass every answer through
:func:`keep_array` / :func:`box_array`, and describe an illegal move with
:func:`illegal_move`, so a strategy gets the same error wherever it plays.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.engine.decide import answer_source
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import IllegalMoveError, quoted
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.validation import Integer

#: What each method returns, for the errors.
ANSWERS = {"keep": "integer face counts", "box": "integer box indices"}


def _as_array(out) -> np.ndarray | None:
    """``out`` as an array, or None when numpy cannot make one (a ragged list)."""
    if isinstance(out, np.ndarray):
        return out
    try:
        return np.asarray(out)
    except (ValueError, TypeError):
        return None


def _integral(arr: np.ndarray) -> bool:
    """An integer dtype (not bool, not object)."""
    return arr.dtype.kind in "iu"


def raw_text(value) -> str:
    """A value as the strategy gave it, before any conversion, cut to one short piece:
    ``2.7``, ``nan``, ``[-1, 0, 2, 1, 0, 1]``, ``1000000000000000000000000000000``."""
    if isinstance(value, (np.ndarray, np.generic)):
        value = value.tolist()
    return quoted(value, 80)


def _type_text(value, arr: np.ndarray) -> str:
    """The dtype of ``arr``; for an object array, the type of ``value`` (one of its
    elements) too: ``"float64"``, ``"object array of int"``."""
    if arr.dtype.kind != "O":
        return str(arr.dtype)
    if isinstance(value, np.ndarray):
        kinds = sorted({type(v).__name__ for v in value.tolist()})
        return f"object array of {', '.join(kinds)}"
    return f"object array of {type(value).__name__}"


def returned_text(out, arr: np.ndarray | None) -> str:
    """What a strategy returned, described without converting it: ``None``, ``the int
    3``, ``a list that is no rectangular array: [[1], [2, 3]]``, ``an array of shape
    (99, 6) (int8)``."""
    if out is None:
        return "None"
    kind = "array" if isinstance(out, np.ndarray) else type(out).__name__
    if arr is None:
        return f"a {kind} that is no rectangular array: {raw_text(out)}"
    if arr.ndim == 0:
        return f"the {kind} {raw_text(out)}"
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{article} {kind} of shape {arr.shape} ({arr.dtype})"


def _first_bad_row(arr: np.ndarray, rows: np.ndarray, high: int) -> int:
    """The first of ``rows`` holding a value that is no whole number in ``0..high`` (else
    the first row): what to quote when an array has the right shape but not an integer
    dtype (floats, bools, strings, Python objects)."""
    flat = arr.reshape(len(arr), -1)[rows]
    if arr.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(flat) | (flat != np.round(flat)) | (flat < 0) | (flat > high)
    else:
        whole = Integer(0, high)
        bad = np.array([[not whole.accepts(v) for v in row] for row in flat.tolist()], dtype=bool)
    hit = np.flatnonzero(bad.reshape(len(rows), -1).any(axis=1)) if flat.size else ()
    return int(rows[hit[0]]) if len(hit) else int(rows[0])


def _refuse(strategy, method: str, view: TurnView, out, arr, shape, in_game: bool):
    """The :class:`IllegalMoveError` for an answer that is no integer array of ``shape``:
    the raw value of the first active game whose answer is not an integer (right shape),
    or the whole answer's type and shape (wrong shape), with where it was returned."""
    what = f"{method}() must return {ANSWERS[method]} of shape {shape}"
    rows = np.flatnonzero(view.active)
    if arr is not None and arr.shape == shape and len(rows):
        rules = view.rules
        high = rules.n_dice if method == "keep" else rules.n_boxes - 1
        i = _first_bad_row(arr, rows, high)
        label = "keep counts" if method == "keep" else "box"
        action = f"{label} {raw_text(arr[i])} ({_type_text(arr[i], arr)})"
        return illegal_move(strategy, method, view, i, action, in_game, prefix=what)
    return batch_error(strategy, method, view, f"{what}, got {returned_text(out, arr)}", in_game)


def keep_array(strategy, out, view: TurnView, in_game: bool = True) -> np.ndarray:
    """``strategy.keep(view)``'s answer ``out`` as contiguous int8 face counts ``(m,
    n_faces)``.

    Raises :class:`~yahtzee_sim.errors.IllegalMoveError` when it is not an integer array
    of that shape (floats, bools, objects, None: never converted), or when an active row
    (:attr:`TurnView.active`) keeps more dice than are rolled or fewer than none (checked
    before the conversion to int8, so a huge or negative count is named as returned).
    Whether the dice hold each keep is checked where the keep is applied
    (:func:`keep_text` names it). ``in_game``: as :func:`illegal_move`.
    """
    shape = (len(view), view.rules.n_faces)
    arr = _as_array(out)
    if arr is None or arr.shape != shape or not _integral(arr):
        raise _refuse(strategy, "keep", view, out, arr, shape, in_game)
    n = view.rules.n_dice
    if arr.size and (arr.min() < 0 or arr.max() > n):
        wild = np.flatnonzero(((arr < 0) | (arr > n)).any(axis=1) & view.active)
        if len(wild):
            i = int(wild[0])
            action = f"keep counts {raw_text(arr[i])} ({arr.dtype})"
            raise illegal_move(strategy, "keep", view, i, action, in_game)
    return np.ascontiguousarray(arr, dtype=np.int8)


def keep_text(out, i: int) -> str:
    """Row ``i`` of a checked keep answer ``out`` as returned, and the dice it keeps:
    ``"keep counts [0, 0, 0, 0, 0, 5] (int64): keep [6, 6, 6, 6, 6]"``."""
    arr = np.asarray(out)
    faces = DiceTables.faces_from_counts(arr[i].astype(np.int8))
    return f"keep counts {raw_text(arr[i])} ({arr.dtype}): keep {list(faces)}"


def box_array(strategy, out, view: TurnView, in_game: bool = True) -> np.ndarray:
    """``strategy.box(view)``'s answer ``out`` as contiguous int64 box indices ``(m,)``.

    Raises :class:`~yahtzee_sim.errors.IllegalMoveError` when it is not an integer array
    of that shape (floats, bools, objects, None: never converted), or when an active row
    names no box (checked before the conversion to int64, so an unsigned or huge index
    is named as returned, never wrapped). Whether each box is open and allowed is
    checked where the box is written. ``in_game``: as :func:`illegal_move`.
    """
    shape = (len(view),)
    arr = _as_array(out)
    if arr is None or arr.shape != shape or not _integral(arr):
        raise _refuse(strategy, "box", view, out, arr, shape, in_game)
    n = view.rules.n_boxes
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        wild = np.flatnonzero(((arr < 0) | (arr >= n)) & view.active)
        if len(wild):
            i = int(wild[0])
            action = f"index {raw_text(arr[i])} ({arr.dtype}); the boxes are 0..{n - 1}"
            raise illegal_move(strategy, "box choice", view, i, action, in_game)
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


def _method(what: str) -> str:
    """The strategy method that made a ``what`` (``"keep"``, ``"box choice"``, ``"box"``)."""
    return "keep" if what == "keep" else "box"


def _returned_at(strategy, what: str) -> tuple[str, str]:
    """``(where, " (keep() at file:line)")``: the code that returned the answer."""
    method = _method(what)
    where = answer_source(strategy, method)
    return where, f" ({method}() at {where})" if where else ""


def illegal_move(
    strategy,
    what: str,
    view: TurnView,
    i: int,
    action,
    in_game: bool = True,
    prefix: str = "",
) -> IllegalMoveError:
    """The error for the illegal ``what`` (``"keep"``, ``"box choice"``) ``action`` of
    row ``i`` of ``view``: the strategy, the code that returned it (file:line), the dice
    and where — the game, turn and rolls left (``in_game``), or the position (filled
    boxes, upper total) when the rows are positions rather than games (exact evaluation).
    ``prefix`` (e.g. ``"box() must return integer box indices of shape (5,)"``) replaces
    ``made an illegal <what>``."""
    rules = view.rules
    dice = DiceTables.faces_from_counts(view.dice[i])
    name = strategy_label(strategy)
    game = int(view.games[i]) if in_game else -1
    if in_game:
        place = f"in game {game}, turn {view.turn + 1}, rolls left {view.rolls_left}"
    else:
        used, upper = int(view.used[i]), int(view.upper_total[i])
        place = f"at rolls left {view.rolls_left}, {position_text(rules, used, upper)}"
    where, at = _returned_at(strategy, what)
    head = f"strategy {name!r}{at}" + (f": {prefix}" if prefix else f" made an illegal {what}")
    return IllegalMoveError(
        f"{head} {place}: dice {list(dice)}, action {action}",
        strategy=name,
        game=game,
        turn=view.turn + 1,
        dice=dice,
        action=action,
        where=where,
    )


def batch_error(strategy, method: str, view: TurnView, text: str, in_game: bool = True):
    """The error for an answer of the whole batch of ``view`` (a wrong shape): ``text``,
    the code that returned it, the games (``in_game``) and the turn."""
    name = strategy_label(strategy)
    where, at = _returned_at(strategy, method)
    place = f"rolls left {view.rolls_left}"
    if in_game and len(view):
        first, last = int(view.games[0]), int(view.games[-1])
        place = f"in the batch of games {first}..{last}, turn {view.turn + 1}, {place}"
    return IllegalMoveError(
        f"strategy {name!r}{at}: {text}, {place}",
        strategy=name,
        turn=view.turn + 1 if in_game else -1,
        action=text,
        where=where,
    )
