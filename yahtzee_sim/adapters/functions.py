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
11,000 games per second and core for functions like these, of which about 60% is the
functions' own time; more with ``memoize=True``, which asks each distinct position once),
so it is slower than a batched strategy; with ``n_jobs > 1`` its blocks run in
``n_jobs - 1`` worker processes and in the calling process, which starts at once.
Positions are named tuples, made and asked by ``map`` (no Python loop per game).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import chain, compress, repeat, starmap
from typing import NamedTuple

import numpy as np

from yahtzee_sim.engine.decide import answer_source
from yahtzee_sim.engine.strategy import Capabilities, Strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import IllegalMoveError, quoted
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.validation import Integer


class Position(NamedTuple):
    """One game at one decision, in plain Python values (an immutable named tuple).

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
        (joker rules applied, bonuses excluded); a dict of its own, which the function may
        change. Empty at keep decisions.
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


#: ``make_position(values)``: a :class:`Position` from its ten values in field order,
#: built in C (``tuple.__new__``), so that positions can be made by ``map``.
make_position = partial(tuple.__new__, Position)


class _Lookup:
    """Per-rule-set tables that make a :class:`Position` and its answer cheap: the sorted
    faces of every roll, the open boxes of every used-mask met so far, each box's index by
    name (and by its own index), and the keep code of every keep a function has returned
    (as a tuple of faces)."""

    def __init__(self, rules: RuleSet) -> None:
        self.names = rules.box_names
        faces = rules.tables.faces_from_counts
        self.faces = [faces(c) for c in rules.tables.roll_counts]
        self.face_code = {f + 1: (rules.n_dice + 1) ** f for f in range(rules.n_faces)}
        self.open: dict[int, tuple[str, ...]] = {}
        self.index = {n: j for j, n in enumerate(self.names)}
        self.index.update({j: j for j in range(len(self.names))})
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


def _points_dicts(view: TurnView, rows: np.ndarray) -> Iterator[dict]:
    """Each row's :attr:`Position.points`: the legal boxes and their points, built once
    per distinct (used boxes, flag, roll) and copied for each row (a copy is cheaper than
    a build, and each position owns its dict)."""
    if view.rolls_left > 0:
        return starmap(dict, repeat((), len(rows)))
    names = _lookup(view.rules).names
    key = (view.used[rows] << 20) | (np.minimum(view.flag[rows], 1023) << 10)
    _, first, inverse = np.unique(
        key | view.roll_index[rows], return_index=True, return_inverse=True
    )
    legal = (0).__le__  # -1 marks an illegal box
    built = [
        dict(compress(zip(names, row, strict=True), map(legal, row)))
        for row in view.box_points[rows[first]].tolist()
    ]
    return map(dict.copy, map(built.__getitem__, inverse.tolist()))


def _positions(view: TurnView, rows: np.ndarray) -> Iterator[Position]:
    """The :class:`Position` of each row of ``rows``, in order, made lazily by ``map``
    over per-column lists (no Python loop per row)."""
    look = _lookup(view.rules)
    used = view.used[rows]
    open_of = {u: look.open_boxes(u) for u in np.unique(used).tolist()}
    n = len(rows)
    return map(
        make_position,
        zip(
            repeat(view.rules, n),
            view.games[rows].tolist(),
            repeat(view.turn, n),
            repeat(view.rolls_left, n),
            map(look.faces.__getitem__, view.roll_index[rows].tolist()),
            map(open_of.__getitem__, used.tolist()),
            _points_dicts(view, rows),
            view.upper_total[rows].tolist(),
            (view.flag[rows] > 0).tolist(),
            view.score[rows].tolist(),
            strict=True,
        ),
    )


def _ask(view: TurnView, rows: np.ndarray, fn: Callable[[Position], object]) -> list:
    """``fn(position)`` for each row of ``rows``, in order, called by ``map``.

    The cyclic garbage collector pauses meanwhile: every position is freed as soon as it
    is answered (reference counting), but each allocates containers, which would
    otherwise start a collection every few hundred positions.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return list(map(fn, _positions(view, rows)))
    finally:
        if enabled:
            gc.enable()


def _coded(view: TurnView, rows: np.ndarray, answers: list, table: dict, check) -> np.ndarray:
    """Each of ``answers`` looked up in ``table`` (by ``map``); one that is not there (or
    is unhashable) is ``check(position, answer)``, its row's position built only then."""
    try:
        got = list(map(table.get, answers))
    except TypeError:  # an unhashable answer
        got = [None] * len(answers)
    if None in got:
        for j, answer in enumerate(answers):
            if got[j] is None:
                got[j] = check(next(_positions(view, rows[j : j + 1])), answer)
    return np.array(got, dtype=np.int64)


def _as_tuple(faces):
    """``tuple(faces)``, or ``faces`` itself if it is no sequence."""
    try:
        return tuple(faces)
    except TypeError:
        return faces


def _first_bad_face(faces, weights: dict) -> object:
    """The first of ``faces`` that is no face (no integer, or not a key of ``weights``), or
    ``faces`` itself if it is no sequence."""
    if not isinstance(faces, tuple):
        return faces
    for f in faces:
        try:
            if not _whole(f) or f not in weights:
                return f
        except TypeError:  # unhashable
            return f
    return faces


_INTEGER = Integer()


def _whole(value) -> bool:
    """An integer, as a function may return one: ``int`` or a numpy integer, not a bool."""
    return _INTEGER.accepts(value)


def _type_name(value) -> str:
    return type(value).__name__


def _position_keys(view: TurnView, rows: np.ndarray) -> np.ndarray:
    """One integer per row naming what a position-only function may read: the used
    boxes, the upper total, the flag, the roll and the rerolls left."""
    rules = view.rules
    upper_span = 1 + sum(c.param * rules.n_dice for c in rules.boxes if c.is_upper)
    key = view.used[rows].astype(np.int64) * upper_span + view.upper_total[rows]
    key = key * 64 + view.flag[rows]
    key = key * rules.tables.n_rolls + view.roll_index[rows]
    return key * rules.rolls_per_turn + view.rolls_left


class InstanceCapabilities:
    """The ``capabilities`` of a strategy built from a user's objects: on the class, the
    defaults; on an instance, with ``deterministic`` from its ``is_deterministic``."""

    def __get__(self, strategy, owner=None) -> Capabilities:
        if strategy is None:
            return Capabilities()
        return Capabilities(deterministic=bool(strategy.is_deterministic))


class UserStrategy(Strategy):
    """Base of strategies built from a user's objects (functions, a policy) rather than
    registered: results and errors name them by their ``label``, and
    ``is_deterministic`` says whether their decisions depend on the position only."""

    abstract = True
    label: str
    is_deterministic: bool
    capabilities = InstanceCapabilities()  # type: ignore[assignment]

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
        fn = "keep" if what.startswith("keep_fn") else "box"
        where = answer_source(self, fn)
        at = f" at {where}" if where else ""
        return IllegalMoveError(
            f"strategy {self.label!r}: {what}{at} in game {pos.game}, turn {pos.turn + 1}, "
            f"rolls left {pos.rolls_left}: dice {list(pos.dice)}; {allowed}",
            strategy=self.label,
            game=pos.game,
            turn=pos.turn + 1,
            dice=pos.dice,
            action=action,
            where=where,
        )

    def _answers(
        self, view: TurnView, fn: Callable[[Position], object], convert
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, answers)``: ``convert(view, rows, fn answers)`` (integers) for every
        active row, each distinct position asked once per process when memoizing."""
        rows = np.flatnonzero(view.active)
        if not self.memoize:
            return rows, convert(view, rows, _ask(view, rows, fn))
        memo = self.__dict__.setdefault("_memo", {})
        keys, first, inverse = np.unique(
            _position_keys(view, rows), return_index=True, return_inverse=True
        )
        keys = keys.tolist()
        miss = [j for j, k in enumerate(keys) if k not in memo]
        if miss:
            asked = rows[first[miss]]
            got = convert(view, asked, _ask(view, asked, fn)).tolist()
            memo.update(zip([keys[j] for j in miss], got, strict=True))
        return rows, np.array([memo[k] for k in keys], dtype=np.int64)[inverse]

    def _keep_codes(self, view: TurnView, rows: np.ndarray, answers: list) -> np.ndarray:
        """The keep code (:attr:`DiceTables.code_to_keep`) of each of ``keep_fn``'s
        ``answers``: looked up by its tuple of faces; an answer met for the first time is
        checked (with its position, for the error) and remembered. Faces that are not
        ``int`` (numpy integers are taken as theirs; a bool, a float is an error) are
        checked before the lookup, where ``True`` would pass for 1 and ``2.0`` for 2."""
        codes = _lookup(view.rules).keep_codes
        try:
            keys = list(map(tuple, answers))
            plain = set(map(type, chain.from_iterable(keys))) <= {int}
        except TypeError:  # an answer that is no sequence: kept as it is, for the error
            keys = [_as_tuple(faces) for faces in answers]
            plain = False
        if not plain:
            keys = [self._plain_keep(view, rows, j, faces) for j, faces in enumerate(keys)]

        def first_time(pos: Position, faces) -> int:
            code = codes[faces] = self._keep_code(pos, faces)
            return code

        return _coded(view, rows, keys, codes, first_time)

    def _plain_keep(self, view: TurnView, rows: np.ndarray, j: int, faces) -> tuple:
        """``faces`` (answer ``j``) as a tuple of ``int``, or the error naming the first
        face that is no integer, as ``keep_fn`` returned it."""
        if isinstance(faces, tuple) and all(map(_whole, faces)):
            return tuple(map(int, faces))
        return self._keep_code(next(_positions(view, rows[j : j + 1])), faces)  # raises

    def _box_indices(self, view: TurnView, rows: np.ndarray, answers: list) -> np.ndarray:
        """The box index of each of ``box_fn``'s ``answers`` (a name or an index); an
        answer that is neither is an error naming its position. Answers that are not
        ``str`` or ``int`` are checked before the lookup (``True`` would pass for 1,
        ``2.0`` for 2)."""
        if not set(map(type, answers)) <= {str, int}:
            answers = [self._plain_box(view, rows, j, a) for j, a in enumerate(answers)]
        return _coded(view, rows, answers, _lookup(view.rules).index, self._box_index)

    def _plain_box(self, view: TurnView, rows: np.ndarray, j: int, choice):
        """``choice`` (answer ``j``) as a ``str`` or ``int``, or the error naming it."""
        if type(choice) in (str, int):
            return choice
        if _whole(choice):
            return int(choice)
        return self._box_index(next(_positions(view, rows[j : j + 1])), choice)  # raises

    def _keep_code(self, pos: Position, faces) -> int:
        """The code (:attr:`DiceTables.code_to_keep`) of ``faces``, what ``keep_fn`` kept."""
        rules = pos.rules
        weights = _lookup(rules).face_code
        try:
            if not all(map(_whole, faces)):
                raise TypeError
            code = sum([weights[f] for f in faces])
        except (KeyError, TypeError):
            bad = _first_bad_face(faces, weights)
            raise self._bad_output(
                pos,
                f"keep_fn returned die value {bad!r} ({_type_name(bad)})",
                f"faces are the integers 1..{rules.n_faces}",
                bad,
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
        expected = f"expected a box name or an index 0..{len(names) - 1}"
        if isinstance(choice, str):
            if choice not in names:
                raise self._bad_output(
                    pos,
                    f"box_fn returned unknown box {choice!r}",
                    f"expected one of: {', '.join(names)}",
                    choice,
                )
            return names.index(choice)
        if not _whole(choice):
            text = f"box_fn returned {quoted(choice)} ({_type_name(choice)})"
            raise self._bad_output(pos, text, expected, choice)
        if not 0 <= choice < len(names):
            text = f"box_fn returned index {int(choice)} ({_type_name(choice)})"
            raise self._bad_output(pos, text, expected, choice)
        return int(choice)

    def keep(self, view: TurnView) -> np.ndarray:
        out = np.array(view.dice, dtype=np.int8)
        rows, codes = self._answers(view, self.keep_fn, self._keep_codes)
        t = view.tables
        out[rows] = t.keep_counts[t.code_to_keep[codes]]
        return out

    def box(self, view: TurnView) -> np.ndarray:
        out = np.full(len(view), -1, dtype=np.int64)
        rows, answers = self._answers(view, self.box_fn, self._box_indices)
        out[rows] = answers
        return out
