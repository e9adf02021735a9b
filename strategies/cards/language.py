"""What a rule card may say: the conditions a person checks while playing and the moves.

A :class:`CardLanguage` lists, for one rule set, every *condition* (a yes/no question
about the dice, the score sheet, the upper bonus, the rerolls left or the turn) and
every *move* (a keep such as "keep all 6s", or "score in Chance"), each with the one
line of text a card prints for it. It evaluates all conditions for a batch of positions
at once (:meth:`CardLanguage.conditions`) and turns moves into keeps and boxes
(:meth:`CardLanguage.keep_table`), so the card strategy and the learner read the same
features.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from yahtzee_sim._core.scoring import box_options
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.strategies.cards.keep_moves import (
    keep_moves,
    longest_run,
    most_common_face,
)

#: The box move naming the upper box of the most common face.
UPPER_OF_MOST_COMMON = "score in the upper box of the most common face"
#: The fallback line every card ends its box section with (the keep section's:
#: :data:`~yahtzee_sim.strategies.cards.keep_moves.KEEP_FALLBACK`).
BOX_FALLBACK = "score the box with the most points (the first on the card if equal)"

_VOCABULARIES: dict[RuleSet, CardLanguage] = {}


def vocabulary(rules: RuleSet) -> CardLanguage:
    """The (cached) :class:`CardLanguage` of ``rules``."""
    v = _VOCABULARIES.get(rules)
    if v is None:
        v = _VOCABULARIES[rules] = CardLanguage(rules)
    return v


def _sum_thresholds(rules: RuleSet) -> list[int]:
    n, f = rules.n_dice, rules.n_faces
    mid = n * (f + 1) / 2
    step = n * (f - 1) / 10
    out = sorted({round(mid + d * step) for d in (-1, 0, 1, 2, 3, 4)})
    return [s for s in out if n < s <= n * f]


def _point_thresholds(column: np.ndarray, sums: list[int], most: int = 6) -> list[int]:
    """Score thresholds of a box: all its positive scores when there are at most
    ``most``; otherwise (boxes scored by the dice sum) its smallest positive score
    and the dice-sum thresholds above it."""
    vals = np.unique(column[column > 0])
    if len(vals) <= most:
        return [int(v) for v in vals]
    return [int(vals[0])] + [s for s in sums if vals[0] < s <= vals[-1]]


def _upper_bonus_conditions(rules: RuleSet) -> list[tuple[str, Callable]]:
    """The conditions on the upper bonus, each with its function of the used boxes, the
    upper total and the turn."""
    T = rules.upper_bonus_threshold
    upper_face = rules.upper_face
    full = int(upper_face.sum())
    n_upper, N = rules.n_upper, rules.n_dice

    def need(up):
        return np.maximum(T - up, 0)

    def reachable(u, up):
        open_upper = ((u[:, None] >> np.arange(n_upper)) & 1) == 0
        return (open_upper * upper_face[:n_upper] * N).sum(axis=1) >= need(up)

    def par(u, up):
        filled = ((u[:, None] >> np.arange(n_upper)) & 1) == 1
        faces = (filled * upper_face[:n_upper]).sum(axis=1)
        return up * full >= T * faces

    out = [("upper bonus made", lambda u, up, t: need(up) == 0)]
    out += [
        (f"upper bonus needs <= {x}", lambda u, up, t, x=x: need(up) <= x)
        for x in (5, 10, 15, 20, 30)
        if x < T
    ]
    out.append(("upper bonus out of reach", lambda u, up, t: ~reachable(u, up)))
    out.append(("upper on par", lambda u, up, t: par(u, up)))
    return out


@dataclass(frozen=True)
class _Cond:
    text: str
    group: str  # "dice", "state", "rolls", "points"


class CardLanguage:
    """Conditions and moves of rule cards for one rule set.

    Attributes
    ----------
    rules : RuleSet
    condition_texts : list of str
        Every condition, in column order of :meth:`conditions`.
    keep_texts : list of str
        Every keep move, in column order of :meth:`keep_table`.
    box_texts : list of str
        ``"score in BOX"`` for every box, in card order, then
        :data:`UPPER_OF_MOST_COMMON` (when every face has its upper box).
    keep_groups : ndarray of bool
        Conditions a keep rule may use (all but the box-points ones).
    box_groups : ndarray of bool
        Conditions a box rule may use (all but the rerolls-left ones).
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._dice_fns: list = []
        self._state_fns: list = []
        self.point_conds: list[tuple[int, int]] = []
        # the upper box showing each face (-1: none), for the moves and conditions
        # that name "the upper box of the most common face"
        upper_of = np.full(rules.n_faces, -1, dtype=np.int64)
        for b, face in enumerate(rules.upper_face):
            if face:
                upper_of[face - 1] = b
        self._upper_of_face = upper_of if (upper_of >= 0).all() else None
        conds = self._dice_conditions()
        self._n_dice_conds = len(conds)
        conds += self._state_conditions()
        self._n_mixed_conds = 0
        if self._upper_of_face is not None:
            conds.append(_Cond("upper box of the most common face open", "state"))
            self._n_mixed_conds = 1
        self._n_state_conds = len(conds) - self._n_dice_conds
        for j in range(1, rules.rolls_per_turn):
            conds.append(_Cond(f"{j} reroll{'s' if j > 1 else ''} left", "rolls"))
        self._n_rolls_conds = rules.rolls_per_turn - 1
        conds += self._point_conditions()

        self.condition_texts = [c.text for c in conds]
        groups = np.array([c.group for c in conds])
        self.keep_groups = groups != "points"
        self.box_groups = groups != "rolls"
        self.condition_index = {t: i for i, t in enumerate(self.condition_texts)}
        self._keeps = keep_moves(rules.n_faces)
        self.keep_texts = [k[0] for k in self._keeps]
        self.keep_index = {t: i for i, t in enumerate(self.keep_texts)}
        self.box_texts = [f"score in {name}" for name in rules.box_names]
        if self._upper_of_face is not None:
            self.box_texts.append(UPPER_OF_MOST_COMMON)
        self.box_index = {t: i for i, t in enumerate(self.box_texts)}

    # ---------------------------------------------------------- the conditions
    def _dice_conditions(self) -> list[_Cond]:
        """The conditions on the dice alone (their functions into ``_dice_fns``)."""
        rules = self.rules
        F, N = rules.n_faces, rules.n_dice
        conds: list[_Cond] = []

        def dice(text, fn):
            conds.append(_Cond(text, "dice"))
            self._dice_fns.append(fn)

        for k in range(2, N + 1):
            dice(f"{k} of a kind", lambda c, k=k: c.max(axis=1) >= k)
        for f in range(2, F + 1):
            dice(f"most common face >= {f}", lambda c, f=f: most_common_face(c) >= f - 1)
        for f in range(1, F):
            dice(f"most common face <= {f}", lambda c, f=f: most_common_face(c) <= f - 1)
        for f in range(1, F + 1):
            for k in range(1, N):
                dice(f"{k}+ dice showing {f}", lambda c, f=f, k=k: c[:, f - 1] >= k)
        for k in range(3, min(N, F) + 1):
            dice(f"run of {k}+", lambda c, k=k: longest_run(c)[0] >= k)
        for k in range(max(2, N - 1), N + 1):
            dice(f"{k}+ different faces", lambda c, k=k: (c > 0).sum(axis=1) >= k)
        if N >= 4:
            dice("two pairs", lambda c: np.sort(c, axis=1)[:, -2] >= 2)
        if N >= 5:
            dice(
                "full house",
                lambda c: (np.sort(c, axis=1)[:, -1] >= 3) & (np.sort(c, axis=1)[:, -2] >= 2),
            )
        face_values = np.arange(1, F + 1)
        for s in _sum_thresholds(rules):
            dice(f"dice sum >= {s}", lambda c, s=s: c @ face_values >= s)
        return conds

    def _state_conditions(self) -> list[_Cond]:
        """The conditions on the score sheet and the turn (their functions of the used
        boxes, the upper total and the turn into ``_state_fns``)."""
        rules = self.rules
        conds: list[_Cond] = []

        def state(text, fn):
            conds.append(_Cond(text, "state"))
            self._state_fns.append(fn)

        for b, name in enumerate(rules.box_names):
            state(f"{name} open", lambda u, up, t, b=b: (u >> b) & 1 == 0)
        for b, name in enumerate(rules.box_names):
            state(f"{name} filled", lambda u, up, t, b=b: (u >> b) & 1 == 1)
        C = rules.n_boxes
        for t in sorted({C // 4 + 1, C // 2 + 1, (3 * C) // 4 + 1, C - 1}):
            if t > 1:
                state(f"turn >= {t}", lambda u, up, t, tt=t: t + 1 >= tt)
        if rules.upper_bonus > 0 and rules.n_upper:
            for text, fn in _upper_bonus_conditions(rules):
                state(text, fn)
        return conds

    def _point_conditions(self) -> list[_Cond]:
        """The conditions on the points a box would get now (their ``(box, points)`` into
        :attr:`point_conds`)."""
        conds: list[_Cond] = []
        score_table = self.rules.tables.score_table
        sums = _sum_thresholds(self.rules)
        for b, name in enumerate(self.rules.box_names):
            for x in _point_thresholds(score_table[:, b], sums):
                conds.append(_Cond(f"{name} scores >= {x}", "points"))
                self.point_conds.append((b, x))
        return conds

    @cached_property
    def keep_table(self) -> np.ndarray:
        """``(n_rolls, n_keep_moves)`` int: the keep index each keep move makes of each roll."""
        t = self.rules.tables
        c = t.roll_counts.astype(np.int64)
        cols = [t.keep_index(fn(c)) for _, fn in self._keeps]
        return np.stack(cols, axis=1).astype(np.int64)

    @cached_property
    def box_table(self) -> np.ndarray:
        """``(n_rolls, n_box_moves)`` int: the box each box move names for each roll."""
        n_rolls = self.rules.tables.n_rolls
        C = self.rules.n_boxes
        out = np.empty((n_rolls, len(self.box_texts)), dtype=np.int64)
        out[:, :C] = np.arange(C)
        if len(self.box_texts) > C:
            c = self.rules.tables.roll_counts.astype(np.int64)
            out[:, C] = self._upper_of_face[most_common_face(c)]
        return out

    @cached_property
    def dice_table(self) -> np.ndarray:
        """``(n_rolls, n_dice_conditions)`` bool: the dice conditions of each roll."""
        c = self.rules.tables.roll_counts.astype(np.int64)
        return np.asfortranarray(np.stack([fn(c) for fn in self._dice_fns], axis=1))

    # ---------------------------------------------------------- conditions
    @property
    def n_conditions(self) -> int:
        return len(self.condition_texts)

    def conditions(
        self,
        roll: np.ndarray,
        used: np.ndarray,
        upper_total: np.ndarray,
        rolls_left: np.ndarray,
        turn: np.ndarray,
        points: np.ndarray,
        columns=None,
    ) -> np.ndarray:
        """``(m, k)`` bool: conditions ``columns`` (default: all) at ``m`` positions.

        ``roll``: roll indices; ``used``: filled-box bitmasks; ``upper_total``: upper
        totals; ``rolls_left``, ``turn`` (0-based): per position; ``points``: ``(m, C)``
        points each box would get now, -1 where illegal (:meth:`points`).
        """
        columns = range(self.n_conditions) if columns is None else columns
        used = np.asarray(used, dtype=np.int64)
        up = np.asarray(upper_total, dtype=np.int64)
        turn = np.asarray(turn, dtype=np.int64)
        d, s, r = self._n_dice_conds, self._n_state_conds, self._n_rolls_conds
        out = np.empty((len(roll), len(columns)), dtype=np.bool_, order="F")
        for k, i in enumerate(columns):
            if i < d:
                out[:, k] = self.dice_table[roll, i]
            elif i < d + s - self._n_mixed_conds:
                out[:, k] = self._state_fns[i - d](used, up, turn)
            elif i < d + s:
                box = self.box_table[roll, -1]
                out[:, k] = (used >> box) & 1 == 0
            elif i < d + s + r:
                out[:, k] = rolls_left == i - d - s + 1
            else:
                b, x = self.point_conds[i - d - s - r]
                out[:, k] = points[:, b] >= x
        return out

    def condition_kind(self, i: int) -> tuple:
        """What condition ``i`` reads: ``("dice", j)`` (column ``j`` of :attr:`dice_table`),
        ``("state", k)`` (:meth:`state_condition` ``k``), ``("mixed",)`` (the upper box of
        the most common face is open), ``("rolls", j)`` (``j`` rerolls left) or
        ``("points", box, x)`` (the box would get at least ``x`` points)."""
        d, s, r = self._n_dice_conds, self._n_state_conds, self._n_rolls_conds
        if i < d:
            return ("dice", i)
        if i < d + s - self._n_mixed_conds:
            return ("state", i - d)
        if i < d + s:
            return ("mixed",)
        if i < d + s + r:
            return ("rolls", i - d - s + 1)
        return ("points", *self.point_conds[i - d - s - r])

    def state_condition(self, k: int, used, upper_total, turn) -> np.ndarray:
        """State condition ``k`` (:meth:`condition_kind`) at positions: the used boxes, the
        upper totals and the 0-based turns."""
        return np.asarray(self._state_fns[k](used, upper_total, turn), dtype=bool)

    def points(self, roll: np.ndarray, used: np.ndarray, flag: np.ndarray) -> np.ndarray:
        """``(m, C)`` points each box would get (joker rules applied), -1 where illegal."""
        kr = kernel_rules(self.rules)
        return box_options(
            kr,
            np.ascontiguousarray(roll, dtype=np.int32),
            np.ascontiguousarray(used, dtype=np.int64),
            np.ascontiguousarray(flag, dtype=np.int64),
        )
