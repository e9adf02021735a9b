"""The box kinds: what each box of a score sheet scores for a roll.

Scoring is defined on *face counts*: ``counts[f]`` is the number of dice showing face
``f + 1``. Every box is a :class:`Box` whose ``kind`` selects its scoring function; the
dice tables (:attr:`DiceTables.score_table <yahtzee_sim.game.dice.DiceTables>`) evaluate
every box of a rule set once for every roll, and the scoring step, the engine, the solvers
and the exact evaluator all read that table.

A new kind is a scoring function and a bound here (:data:`BOX_KINDS` lists them) and its
abbreviations in :mod:`yahtzee_sim.game.boxnames`;
:func:`~yahtzee_sim.checks.rule_sets.check_rules` checks every score against the bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from yahtzee_sim.errors import RulesError

#: Box kinds and what ``param``/``points`` mean for each.
#:
#: ========== ===================================================================
#: kind       score
#: ========== ===================================================================
#: upper      ``param * counts[param-1]`` (sum of the dice showing ``param``)
#: n_kind     at least ``param`` equal dice: sum of all dice (Yahtzee style)
#: n_equal    at least ``param`` equal dice: ``param`` × the highest such face
#: two_pairs  two different faces with ≥ 2 dice: 2×(a + b) for the two highest;
#:            with ``allow_one_pair`` a single pair scores 2×face (KTH 2012 bug);
#:            with ``share_face`` four of a kind counts too (2×2×face)
#: full_house three of one face and two of another; ``points`` or, if
#:            ``points == 0``, the dice used (3×a + 2×b); with ``share_face`` five
#:            of a kind counts too
#: groups     one face per entry of ``groups`` (different faces, or not with
#:            ``share_face``) with at least that many dice each: ``points``, or if
#:            ``points == 0`` the dice used, the best choice of faces (three pairs
#:            ``(2, 2, 2)``, villa ``(3, 3)``, tower ``(4, 2)``, full house ``(3, 2)``)
#: straight   every face in ``faces`` present; ``points``
#: yahtzee    all dice equal; ``points``
#: chance     sum of all dice
#: ========== ===================================================================
BOX_KINDS: tuple[str, ...] = (
    "upper",
    "n_kind",
    "n_equal",
    "two_pairs",
    "full_house",
    "groups",
    "straight",
    "yahtzee",
    "chance",
)


def group_points(counts, groups: Sequence[int], share_face: bool = False):
    """Points of the dice used by the best choice of one face per group: group ``i``
    takes ``groups[i]`` dice of its face; faces differ unless ``share_face`` (then a face
    with enough dice serves several groups). 0 when no choice fits.

    ``counts``: one roll's face counts (returns an int) or an ``(n, F)`` array of them
    (returns an array of ``n`` points)."""
    c = np.asarray(counts, dtype=np.int64)
    rows = np.atleast_2d(c)
    n_faces = rows.shape[1]
    best = np.zeros(rows.shape[0], dtype=np.int64)
    for faces in itertools.product(range(n_faces), repeat=len(groups)):
        if not share_face and len(set(faces)) < len(faces):
            continue
        need = np.zeros(n_faces, dtype=np.int64)
        for f, size in zip(faces, groups, strict=True):
            need[f] += size
        points = sum((f + 1) * size for f, size in zip(faces, groups, strict=True))
        fits = (rows >= need).all(axis=1)
        best = np.where(fits, np.maximum(best, points), best)
    return int(best[0]) if c.ndim == 1 else best


def dice_sum(counts):
    """Sum of the dice of a roll given as face counts (or of each row of an ``(n, F)``
    array of them)."""
    c = np.asarray(counts, dtype=np.int64)
    total = c @ np.arange(1, c.shape[-1] + 1)
    return int(total) if c.ndim == 1 else total


def _longest_run(c: np.ndarray) -> np.ndarray:
    """Most consecutive faces present in each roll (rows of face counts)."""
    run = np.zeros(c.shape[0], dtype=np.int64)
    best = run.copy()
    for f in range(c.shape[1]):
        run = np.where(c[:, f] > 0, run + 1, 0)
        best = np.maximum(best, run)
    return best


@dataclass(frozen=True)
class Box:
    """One box on the score sheet.

    Parameters
    ----------
    name : str
        Identifier used on the command line and in results (``"ones"``,
        ``"full_house"``, ...).
    kind : str
        One of :data:`BOX_KINDS`.
    param : int
        Face (``upper``) or number of equal dice (``n_kind``, ``n_equal``).
    points : int
        Fixed score for ``full_house`` (0 = sum of dice), ``straight`` and ``yahtzee``.
    faces : tuple of int
        Faces a ``straight`` needs (1-based). For Yahtzee straights, the
        straight scores if *any* run of ``param`` consecutive faces is present;
        ``faces`` is then empty.
    joker_points : int or None
        Score of this box when a Yahtzee is played as a joker (``None`` = sum of dice).
    groups : tuple of int
        Dice per face of a ``groups`` box (``(3, 3)``: a villa).
    share_face : bool
        Whether one face may fill several groups (``full_house``: five of a kind counts,
        house rule ``+fh5``; ``two_pairs``: four of a kind counts, ``+tp4``).
    """

    name: str
    kind: str
    param: int = 0
    points: int = 0
    faces: tuple[int, ...] = ()
    joker_points: int | None = None
    groups: tuple[int, ...] = ()
    share_face: bool = False

    @property
    def label(self) -> str:
        """The box's name for people: ``"three_of_a_kind"`` → ``"Three of a kind"``
        (the terminal game, the web page and the coach show it)."""
        text = self.name.replace("_", " ")
        return text[:1].upper() + text[1:]

    @property
    def is_upper(self) -> bool:
        """Whether the box belongs to the upper section."""
        return self.kind == "upper"

    def score(self, counts: Sequence[int], allow_one_pair: bool = False) -> int:
        """Score of a roll given as face counts (index 0 = face 1)."""
        return int(self.scores(np.asarray(counts, dtype=np.int64)[None, :], allow_one_pair)[0])

    def scores(self, counts: np.ndarray, allow_one_pair: bool = False) -> np.ndarray:
        """Scores of many rolls at once: ``counts`` is an ``(n, F)`` array of face counts;
        returns ``n`` points (what the dice tables hold)."""
        scorer = _SCORES.get(self.kind)
        if scorer is None:
            raise RulesError(f"box {self.name!r}: unknown kind {self.kind!r}")
        points = scorer(self, np.asarray(counts, dtype=np.int64), allow_one_pair)
        return np.asarray(points, dtype=np.int64)

    def joker_score(self, counts: Sequence[int]) -> int:
        """Score of a Yahtzee roll placed here under a joker rule."""
        if self.kind == "upper":
            return self.score(counts)
        if self.joker_points is None:
            return dice_sum(counts)
        return self.joker_points

    def most(self, n_dice: int, n_faces: int) -> int:
        """The most points this box can score for a roll of ``n_dice`` dice with
        ``n_faces`` faces (a bound on :meth:`score`; ``check_rules`` holds every roll to
        it)."""
        bound = _BOUNDS.get(self.kind)
        if bound is None:
            raise RulesError(f"box {self.name!r}: unknown kind {self.kind!r}")
        return bound(self, n_dice, n_faces)

    def most_as_joker(self, n_dice: int, n_faces: int) -> int:
        """The most points this box can score as a joker (a bound on :meth:`joker_score`)."""
        if self.kind == "upper":
            return self.most(n_dice, n_faces)
        if self.joker_points is None:
            return n_dice * n_faces
        return self.joker_points


Scorer = Callable[[Box, np.ndarray, bool], np.ndarray]
Bound = Callable[[Box, int, int], int]


# each kind's scores of rows of face counts (an ``(n, F)`` array)
def _score_upper(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    return box.param * c[:, box.param - 1]


def _score_n_kind(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    return np.where(c.max(axis=1) >= box.param, dice_sum(c), 0)


def _score_n_equal(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    faces = np.arange(1, c.shape[1] + 1)
    return box.param * ((c >= box.param) * faces).max(axis=1)


def _score_two_pairs(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    points = group_points(c, (2, 2), box.share_face)
    if allow_one_pair:
        highest_pair = ((c >= 2) * np.arange(1, c.shape[1] + 1)).max(axis=1)
        return np.where(points > 0, points, 2 * highest_pair)
    return points


def _score_groups(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    points = group_points(c, box.groups or (3, 2), box.share_face)
    return np.where(points > 0, box.points, 0) if box.points else points


def _score_straight(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    if box.faces:
        present = (c[:, [f - 1 for f in box.faces]] >= 1).all(axis=1)
    else:
        present = _longest_run(c) >= box.param
    return np.where(present, box.points, 0)


def _score_yahtzee(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    return np.where(c.max(axis=1) == c.sum(axis=1), box.points, 0)


def _score_chance(box: Box, c: np.ndarray, allow_one_pair: bool) -> np.ndarray:
    return dice_sum(c)


def _most_of_groups(box: Box, n_dice: int, n_faces: int) -> int:
    return box.points or sum(box.groups or (3, 2)) * n_faces


#: Each kind's score of a roll (the box, its face counts, ``allow_one_pair``).
_SCORES: dict[str, Scorer] = {
    "upper": _score_upper,
    "n_kind": _score_n_kind,
    "n_equal": _score_n_equal,
    "two_pairs": _score_two_pairs,
    "full_house": _score_groups,
    "groups": _score_groups,
    "straight": _score_straight,
    "yahtzee": _score_yahtzee,
    "chance": _score_chance,
}

#: Each kind's most points (the box, the number of dice, the number of faces).
_BOUNDS: dict[str, Bound] = {
    "upper": lambda box, n_dice, n_faces: box.param * n_dice,
    "n_kind": lambda box, n_dice, n_faces: n_dice * n_faces,
    "n_equal": lambda box, n_dice, n_faces: box.param * n_faces,
    "two_pairs": lambda box, n_dice, n_faces: 4 * n_faces,
    "full_house": _most_of_groups,
    "groups": _most_of_groups,
    "straight": lambda box, n_dice, n_faces: box.points,
    "yahtzee": lambda box, n_dice, n_faces: box.points,
    "chance": lambda box, n_dice, n_faces: n_dice * n_faces,
}
