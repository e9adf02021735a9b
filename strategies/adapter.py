"""Write a strategy as plain one-game functions instead of batched array code.

Example
-------
>>> from yahtzee_sim.strategies import FunctionStrategy
>>> def keep(pos):                      # keep the most common face
...     best = max(set(pos.dice), key=pos.dice.count)
...     return [d for d in pos.dice if d == best]
>>> def box(pos):                  # the legal box with the most points
...     return max(pos.points, key=pos.points.get)
>>> strategy = FunctionStrategy(keep, box)

The adapter calls the functions once per game and decision in Python (about
10,000 games per second and core for functions like these; more with
``memoize=True``, which asks each distinct position once), so it is slower than
a batched strategy; with ``n_jobs > 1`` its blocks run in worker processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.game.rules import RuleSet


@dataclass(frozen=True)
class Position:
    """One game at one decision, in plain Python values.

    Attributes
    ----------
    rules : RuleSet
    game : int
        Global game index.
    turn : int
        0-based turn.
    rolls_left : int
        Rerolls left this turn (0: choose a box).
    dice : tuple of int
        Sorted face values, e.g. ``(1, 3, 5, 5, 6)``.
    open_boxes : tuple of str
        Boxes not yet filled.
    points : dict of str to int
        At a box decision: each legal box and the points it would get now
        (joker rules applied, bonuses excluded). Empty at keep decisions.
    upper_total : int
        Upper-section total so far (uncapped).
    flag : bool
        The Yahtzee box holds its full points (extra Yahtzees earn the bonus).
    score : int
        Points so far, bonuses earned so far included.
    """

    rules: RuleSet
    game: int
    turn: int
    rolls_left: int
    dice: tuple[int, ...]
    open_boxes: tuple[str, ...]
    points: dict
    upper_total: int
    flag: bool
    score: int


class _Lookup:
    """Per-rule-set tables that make a :class:`Position` cheap: the sorted faces of every
    roll and the open boxes of every used-mask met so far."""

    def __init__(self, rules: RuleSet) -> None:
        self.names = rules.box_names
        faces = rules.tables.faces_from_counts
        self.faces = [faces(c) for c in rules.tables.roll_counts]
        self.face_code = {f + 1: (rules.n_dice + 1) ** f for f in range(rules.n_faces)}
        self.open: dict[int, tuple[str, ...]] = {}

    def open_boxes(self, used: int) -> tuple[str, ...]:
        got = self.open.get(used)
        if got is None:
            got = self.open[used] = tuple(
                n for j, n in enumerate(self.names) if not (used >> j) & 1
            )
        return got


def _lookup(rules: RuleSet) -> _Lookup:
    got = rules.__dict__.get("_adapter_lookup")
    if got is None:
        got = rules.__dict__["_adapter_lookup"] = _Lookup(rules)
    return got


def _ask(view: TurnView, rows: np.ndarray, ask) -> list:
    """``ask(position)`` for each row of ``rows``, positions built from per-column lists
    (a frozen :class:`Position` is filled directly: its ``__init__`` costs more than a
    simple function's whole decision)."""
    rules, look = view.rules, _lookup(view.rules)
    names, faces, turn, rl = look.names, look.faces, view.turn, view.rolls_left
    pts = view.box_points[rows].tolist() if rl == 0 else None
    cols = (view.games, view.roll_index, view.used, view.upper_total, view.flag, view.score)
    out = []
    new = object.__new__
    columns = [c[rows].tolist() for c in cols]
    for j, (g, r, u, up, f, sc) in enumerate(zip(*columns, strict=True)):
        pos = new(Position)
        pos.__dict__.update(
            rules=rules,
            game=g,
            turn=turn,
            rolls_left=rl,
            dice=faces[r],
            open_boxes=look.open_boxes(u),
            points={n: p for n, p in zip(names, pts[j], strict=True) if p >= 0}
            if pts is not None
            else {},
            upper_total=up,
            flag=f > 0,
            score=sc,
        )
        out.append(ask(pos))
    return out


def _position_keys(view: TurnView, rows: np.ndarray) -> np.ndarray:
    """One integer per row naming what a position-only function may read: the used
    boxes, the upper total, the flag, the roll and the rerolls left."""
    rules = view.rules
    upper_span = 1 + sum(c.param * rules.n_dice for c in rules.boxes if c.is_upper)
    key = view.used[rows].astype(np.int64) * upper_span + view.upper_total[rows]
    key = key * 64 + view.flag[rows]
    key = key * rules.tables.n_rolls + view.roll_index[rows]
    return key * rules.rolls_per_turn + view.rolls_left


class UserStrategy(Strategy):
    """Base of strategies built from a user's objects (functions, a policy) rather than
    registered: results and errors name them by their ``label``, and
    ``is_deterministic`` says whether their decisions depend on the position only."""

    abstract = True
    label: str
    is_deterministic: bool

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.label

    @property
    def deterministic(self) -> bool:  # type: ignore[override]
        return self.is_deterministic


class FunctionStrategy(UserStrategy):
    """A strategy from two one-game functions.

    Parameters
    ----------
    keep_fn : callable(Position) -> sequence of int
        Face values to keep (a sub-multiset of ``position.dice``); keeping all
        dice ends the turn.
    box_fn : callable(Position) -> str or int
        Box name (or index) to fill.
    label : str
        Name shown in results and error messages.
    is_deterministic : bool
        Whether the functions' decisions depend only on the position.
    memoize : bool
        Opt-in promise that the functions read only the position (dice, rolls left,
        open boxes, upper total, Yahtzee flag; not ``score`` or ``game``): each distinct
        position is then asked once per process and its answer reused, so repeated
        positions cost nothing.
    """

    def __init__(
        self,
        keep_fn: Callable[[Position], Sequence[int]],
        box_fn: Callable[[Position], str | int],
        label: str = "function",
        is_deterministic: bool = True,
        memoize: bool = False,
    ) -> None:
        self.keep_fn = keep_fn
        self.box_fn = box_fn
        self.label = label
        self.is_deterministic = is_deterministic
        self.memoize = memoize

    def _bad_output(self, pos: Position, what: str, allowed: str, action) -> IllegalMoveError:
        return IllegalMoveError(
            f"strategy {self.label!r}: {what} in game {pos.game}, turn {pos.turn + 1}; {allowed}",
            strategy=self.label,
            game=pos.game,
            turn=pos.turn + 1,
            dice=pos.dice,
            action=action,
        )

    def _answers(self, view: TurnView, ask) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, answers)``: ``ask(position)`` (an integer) for every active row, each
        distinct position asked once per process when memoizing."""
        rows = np.flatnonzero(view.active)
        if not self.memoize:
            return rows, np.array(_ask(view, rows, ask), dtype=np.int64)
        memo = self.__dict__.setdefault("_memo", {})
        keys, first, inverse = np.unique(
            _position_keys(view, rows), return_index=True, return_inverse=True
        )
        keys = keys.tolist()
        miss = [j for j, k in enumerate(keys) if k not in memo]
        if miss:
            got = _ask(view, rows[first[miss]], ask)
            memo.update(zip([keys[j] for j in miss], got, strict=True))
        return rows, np.array([memo[k] for k in keys], dtype=np.int64)[inverse]

    def _keep_code(self, pos: Position) -> int:
        """The code (:attr:`DiceTables.code_to_keep`) of what ``keep_fn`` keeps."""
        rules = pos.rules
        weights = _lookup(rules).face_code
        faces = self.keep_fn(pos)
        try:
            code = sum([weights[f] for f in faces])
        except (KeyError, TypeError):
            bad = next((f for f in faces if f not in weights), faces)
            raise self._bad_output(
                pos, f"keep_fn returned die value {bad!r}", f"faces are 1..{rules.n_faces}", bad
            ) from None
        if len(faces) > rules.n_dice:
            raise self._bad_output(
                pos,
                f"keep_fn kept {len(faces)} dice",
                f"at most the {rules.n_dice} dice rolled",
                list(faces),
            )
        return code

    def _box_index(self, pos: Position) -> int:
        names = _lookup(pos.rules).names
        choice = self.box_fn(pos)
        if isinstance(choice, str):
            if choice not in names:
                raise self._bad_output(
                    pos,
                    f"box_fn returned unknown box {choice!r}",
                    f"expected one of: {', '.join(names)}",
                    choice,
                )
            choice = names.index(choice)
        return int(choice)

    def keep(self, view: TurnView) -> np.ndarray:
        out = np.array(view.dice, dtype=np.int8)
        rows, codes = self._answers(view, self._keep_code)
        t = view.tables
        out[rows] = t.keep_counts[t.code_to_keep[codes]]
        return out

    def box(self, view: TurnView) -> np.ndarray:
        out = np.full(len(view), -1, dtype=np.int64)
        rows, answers = self._answers(view, self._box_index)
        out[rows] = answers
        return out
