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
10,000 games per second and core for functions like these, of which about 40% is the
functions' own time; more with ``memoize=True``, which asks each distinct position once),
so it is slower than a batched strategy; with ``n_jobs > 1`` its blocks run in
``n_jobs - 1`` worker processes and in the calling process, which starts at once.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress

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
    """Per-rule-set tables that make a :class:`Position` and its answer cheap: the sorted
    faces of every roll, the open boxes of every used-mask met so far, each box's index by
    name, and the keep code of every keep a function has returned (as a tuple of faces)."""

    def __init__(self, rules: RuleSet) -> None:
        self.names = rules.box_names
        faces = rules.tables.faces_from_counts
        self.faces = [faces(c) for c in rules.tables.roll_counts]
        self.face_code = {f + 1: (rules.n_dice + 1) ** f for f in range(rules.n_faces)}
        self.open: dict[int, tuple[str, ...]] = {}
        self.index = {n: j for j, n in enumerate(self.names)}
        #: tuple of the faces a keep function returned -> keep code (valid answers only)
        self.keep_codes: dict[tuple, int] = {}

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
    """``ask(position)`` for each row of ``rows``, in order.

    Positions are built from per-column lists, mapped in C where possible, and a frozen
    :class:`Position` is given its ``__dict__`` directly (its ``__init__`` costs more than a
    simple function's whole decision). The cyclic garbage collector pauses meanwhile: every
    position is freed as soon as it is answered (reference counting), but each allocates
    containers, which would otherwise start a collection every few hundred positions.
    """
    rules, look = view.rules, _lookup(view.rules)
    names, turn, rl = look.names, view.turn, view.rolls_left
    used = view.used[rows]
    open_of = {u: look.open_boxes(u) for u in np.unique(used).tolist()}
    columns = (
        view.games[rows].tolist(),
        map(look.faces.__getitem__, view.roll_index[rows].tolist()),
        map(open_of.__getitem__, used.tolist()),
        view.upper_total[rows].tolist(),
        (view.flag[rows] > 0).tolist(),
        view.score[rows].tolist(),
    )
    new, set_dict, position = object.__new__, object.__setattr__, Position
    out = []
    answer = out.append
    enabled = gc.isenabled()
    gc.disable()
    try:
        if rl == 0:  # each legal box with its points (-1: illegal), C loops over the row
            legal = (0).__le__
            points = (
                dict(compress(zip(names, row, strict=True), map(legal, row)))
                for row in view.box_points[rows].tolist()
            )
        else:
            points = (dict() for _ in range(len(rows)))
        for g, d, o, up, f, sc, pts in zip(*columns, points, strict=False):
            pos = new(position)
            set_dict(
                pos,
                "__dict__",
                {
                    "rules": rules,
                    "game": g,
                    "turn": turn,
                    "rolls_left": rl,
                    "dice": d,
                    "open_boxes": o,
                    "points": pts,
                    "upper_total": up,
                    "flag": f,
                    "score": sc,
                },
            )
            answer(ask(pos))
    finally:
        if enabled:
            gc.enable()
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

    def _keep_code(self, pos: Position, faces) -> int:
        """The code (:attr:`DiceTables.code_to_keep`) of ``faces``, what ``keep_fn`` kept."""
        rules = pos.rules
        weights = _lookup(rules).face_code
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

    def _box_index(self, pos: Position, choice) -> int:
        """The index of ``choice``, what ``box_fn`` chose."""
        names = _lookup(pos.rules).names
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

    def _keep_asker(self, rules: RuleSet):
        """``position -> keep code``: ``keep_fn``'s answer looked up by its tuple of faces
        (every valid answer is checked and coded once per process)."""
        fn, checked, codes = self.keep_fn, self._keep_code, _lookup(rules).keep_codes

        def ask(pos: Position) -> int:
            faces = fn(pos)
            try:
                key = tuple(faces)
            except TypeError:  # not a sequence: the check says what is wrong
                return checked(pos, faces)
            try:
                return codes[key]
            except KeyError:  # a first time: checked, then remembered
                code = codes[key] = checked(pos, key)
                return code
            except TypeError:  # unhashable faces
                return checked(pos, key)

        return ask

    def _box_asker(self, rules: RuleSet):
        """``position -> box index``: ``box_fn``'s answer, a name looked up at once."""
        fn, checked, index = self.box_fn, self._box_index, _lookup(rules).index

        def ask(pos: Position) -> int:
            choice = fn(pos)
            if choice.__class__ is str:
                j = index.get(choice)
                if j is not None:
                    return j
            return checked(pos, choice)

        return ask

    def keep(self, view: TurnView) -> np.ndarray:
        out = np.array(view.dice, dtype=np.int8)
        rows, codes = self._answers(view, self._keep_asker(view.rules))
        t = view.tables
        out[rows] = t.keep_counts[t.code_to_keep[codes]]
        return out

    def box(self, view: TurnView) -> np.ndarray:
        out = np.full(len(view), -1, dtype=np.int64)
        rows, answers = self._answers(view, self._box_asker(view.rules))
        out[rows] = answers
        return out
