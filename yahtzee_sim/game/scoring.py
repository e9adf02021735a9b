"""The box kinds: what each box of a score sheet scores for a roll.

Scoring is defined on *face counts*: ``counts[f]`` is the number of dice showing face
``f + 1``. Every box is a :class:`Box` whose ``kind`` selects its scoring function; the
dice tables (:attr:`DiceTables.score_table <yahtzee_sim.game.dice.DiceTables>`) evaluate
every box of a rule set once for every roll, and the scoring step, the engine, the solvers
and the exact evaluator all read that table.

A new kind is a scoring function and a bound here (:data:`BOX_KINDS` lists them) and its
abbreviations in :mod:`yahtzee_sim.game.boxnames`;
:func:`~yahtzee_sim.strategies.rule_checks.check_rules` checks every score against the bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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


def group_points(counts: Sequence[int], groups: Sequence[int], share_face: bool = False) -> int:
    """Points of the dice used by the best choice of one face per group: group ``i``
    takes ``groups[i]`` dice of its face; faces differ unless ``share_face`` (then a face
    with enough dice serves several groups). 0 when no choice fits."""
    n_faces = len(counts)
    best = 0
    for faces in itertools.product(range(n_faces), repeat=len(groups)):
        if not share_face and len(set(faces)) < len(faces):
            continue
        need = [0] * n_faces
        for f, size in zip(faces, groups, strict=True):
            need[f] += size
        if all(need[f] <= counts[f] for f in range(n_faces)):
            best = max(best, sum((f + 1) * size for f, size in zip(faces, groups, strict=True)))
    return best


def dice_sum(counts: Sequence[int]) -> int:
    """Sum of the dice of a roll given as face counts."""
    return sum((f + 1) * n for f, n in enumerate(counts))


def _longest_run(counts: Sequence[int]) -> int:
    """Most consecutive faces present in a roll."""
    run = best = 0
    for n in counts:
        run = run + 1 if n > 0 else 0
        best = max(best, run)
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
        scorer = _SCORES.get(self.kind)
        if scorer is None:
            raise RulesError(f"box {self.name!r}: unknown kind {self.kind!r}")
        return scorer(self, list(counts), allow_one_pair)

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


Scorer = Callable[[Box, list[int], bool], int]
Bound = Callable[[Box, int, int], int]


def _score_upper(box: Box, c: list[int], allow_one_pair: bool) -> int:
    return box.param * c[box.param - 1]


def _score_n_kind(box: Box, c: list[int], allow_one_pair: bool) -> int:
    return dice_sum(c) if max(c) >= box.param else 0


def _score_n_equal(box: Box, c: list[int], allow_one_pair: bool) -> int:
    faces = [f + 1 for f, n in enumerate(c) if n >= box.param]
    return box.param * max(faces) if faces else 0


def _score_two_pairs(box: Box, c: list[int], allow_one_pair: bool) -> int:
    points = group_points(c, (2, 2), box.share_face)
    if not points and allow_one_pair:
        pairs = [f + 1 for f, n in enumerate(c) if n >= 2]
        return 2 * max(pairs) if pairs else 0
    return points


def _score_groups(box: Box, c: list[int], allow_one_pair: bool) -> int:
    points = group_points(c, box.groups or (3, 2), box.share_face)
    return box.points if points and box.points else points


def _score_straight(box: Box, c: list[int], allow_one_pair: bool) -> int:
    if box.faces:
        return box.points if all(c[f - 1] >= 1 for f in box.faces) else 0
    return box.points if _longest_run(c) >= box.param else 0


def _score_yahtzee(box: Box, c: list[int], allow_one_pair: bool) -> int:
    return box.points if max(c) == sum(c) else 0


def _score_chance(box: Box, c: list[int], allow_one_pair: bool) -> int:
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
