"""Write a strategy as plain one-game functions instead of batched array code.

Example
-------
>>> from yahtzee_sim.strategies import FunctionStrategy
>>> def keep(pos):                      # keep the most common face
...     best = max(set(pos.dice), key=pos.dice.count)
...     return [d for d in pos.dice if d == best]
>>> def category(pos):                  # the legal box with the most points
...     return max(pos.points, key=pos.points.get)
>>> strategy = FunctionStrategy(keep, category)

The adapter calls the functions once per game and decision in Python, so it
is far slower than a batched strategy (tens of thousands of games per
second); it is meant for prototyping and for checking batched code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.rules import RuleSet
from yahtzee_sim.view import TurnView

from .base import Strategy


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
        Rerolls left this turn (0: choose a category).
    dice : tuple of int
        Sorted face values, e.g. ``(1, 3, 5, 5, 6)``.
    open_categories : tuple of str
        Boxes not yet filled.
    points : dict of str to int
        At a category decision: each legal box and the points it would get now
        (joker rules applied, bonuses excluded). Empty at keep decisions.
    upper_total : int
        Upper-section total so far (uncapped).
    yahtzee_bonus_flag : bool
        The Yahtzee box holds its full points (extra Yahtzees earn the bonus).
    score : int
        Points so far, bonuses earned so far included.
    """

    rules: RuleSet
    game: int
    turn: int
    rolls_left: int
    dice: tuple[int, ...]
    open_categories: tuple[str, ...]
    points: dict
    upper_total: int
    yahtzee_bonus_flag: bool
    score: int


def _positions(view: TurnView, with_points: bool):
    names = view.rules.category_names
    pts = view.category_points if with_points else None
    faces = view.rules.tables.faces_from_counts
    for i in np.flatnonzero(view.active):
        used = int(view.used[i])
        yield (
            i,
            Position(
                rules=view.rules,
                game=int(view.games[i]),
                turn=view.turn,
                rolls_left=view.rolls_left,
                dice=faces(view.dice[i]),
                open_categories=tuple(n for j, n in enumerate(names) if not (used >> j) & 1),
                points={n: int(pts[i, j]) for j, n in enumerate(names) if pts[i, j] >= 0}
                if with_points
                else {},
                upper_total=int(view.upper_total[i]),
                yahtzee_bonus_flag=bool(view.flag[i]),
                score=int(view.score[i]),
            ),
        )


class FunctionStrategy(Strategy):
    """A strategy from two one-game functions.

    Parameters
    ----------
    keep_fn : callable(Position) -> sequence of int
        Face values to keep (a sub-multiset of ``position.dice``); keeping all
        dice ends the turn.
    category_fn : callable(Position) -> str or int
        Category name (or index) to fill.
    label : str
        Name shown in results and error messages.
    is_deterministic : bool
        Whether the functions' decisions depend only on the position.
    """

    def __init__(
        self,
        keep_fn: Callable[[Position], Sequence[int]],
        category_fn: Callable[[Position], str | int],
        label: str = "function",
        is_deterministic: bool = True,
    ) -> None:
        self.keep_fn = keep_fn
        self.category_fn = category_fn
        self.label = label
        self.is_deterministic = is_deterministic

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.label

    @property
    def deterministic(self) -> bool:  # type: ignore[override]
        return self.is_deterministic

    def _bad_output(self, pos: Position, what: str, allowed: str, action) -> IllegalMoveError:
        return IllegalMoveError(
            f"strategy {self.label!r}: {what} in game {pos.game}, turn {pos.turn + 1}; {allowed}",
            strategy=self.label,
            game=pos.game,
            turn=pos.turn + 1,
            dice=pos.dice,
            action=action,
        )

    def keep(self, view: TurnView) -> np.ndarray:
        out = np.array(view.dice, dtype=np.int8)
        F = view.rules.n_faces
        for i, pos in _positions(view, with_points=False):
            counts = np.zeros(F, dtype=np.int8)
            for face in self.keep_fn(pos):
                if not isinstance(face, (int, np.integer)) or not 1 <= face <= F:
                    raise self._bad_output(
                        pos, f"keep_fn returned die value {face!r}", f"faces are 1..{F}", face
                    )
                counts[face - 1] += 1
            out[i] = counts
        return out

    def category(self, view: TurnView) -> np.ndarray:
        out = np.full(len(view), -1, dtype=np.int64)
        names = view.rules.category_names
        for i, pos in _positions(view, with_points=True):
            choice = self.category_fn(pos)
            if isinstance(choice, str):
                if choice not in names:
                    raise self._bad_output(
                        pos,
                        f"category_fn returned unknown category {choice!r}",
                        f"expected one of: {', '.join(names)}",
                        choice,
                    )
                choice = names.index(choice)
            out[i] = int(choice)
        return out
