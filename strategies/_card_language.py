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

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from yahtzee_sim._kernels.scoring import box_options, kernel_rules
from yahtzee_sim.game.rules import RuleSet

#: The fallback lines every card ends its two sections with.
KEEP_FALLBACK = "keep the most common face"
UPPER_OF_MOST_COMMON = "score in the upper box of the most common face"
BOX_FALLBACK = "score the box with the most points (the first on the card if equal)"

_VOCABULARIES: dict[RuleSet, CardLanguage] = {}


def vocabulary(rules: RuleSet) -> CardLanguage:
    """The (cached) :class:`CardLanguage` of ``rules``."""
    v = _VOCABULARIES.get(rules)
    if v is None:
        v = _VOCABULARIES[rules] = CardLanguage(rules)
    return v


def _most_common_face(c: np.ndarray) -> np.ndarray:
    """0-based face with the most dice, the highest face on ties, per row of counts."""
    F = c.shape[1]
    return F - 1 - np.argmax(c[:, ::-1], axis=1)


def _longest_run(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Length and 0-based start of the longest run of consecutive faces shown
    (the highest run on ties)."""
    m, F = c.shape
    best_len = np.zeros(m, dtype=np.int64)
    best_start = np.zeros(m, dtype=np.int64)
    cur = np.zeros(m, dtype=np.int64)
    for f in range(F):
        cur = np.where(c[:, f] > 0, cur + 1, 0)
        better = cur >= best_len
        best_len = np.where(better, cur, best_len)
        best_start = np.where(better, f - cur + 1, best_start)
    return best_len, best_start


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
        conds: list[_Cond] = []
        self._dice_fns = []
        F, N = rules.n_faces, rules.n_dice

        def dice(text, fn):
            conds.append(_Cond(text, "dice"))
            self._dice_fns.append(fn)

        for k in range(2, N + 1):
            dice(f"{k} of a kind", lambda c, k=k: c.max(axis=1) >= k)
        for f in range(2, F + 1):
            dice(f"most common face >= {f}", lambda c, f=f: _most_common_face(c) >= f - 1)
        for f in range(1, F):
            dice(f"most common face <= {f}", lambda c, f=f: _most_common_face(c) <= f - 1)
        for f in range(1, F + 1):
            for k in range(1, N):
                dice(f"{k}+ dice showing {f}", lambda c, f=f, k=k: c[:, f - 1] >= k)
        for k in range(3, min(N, F) + 1):
            dice(f"run of {k}+", lambda c, k=k: _longest_run(c)[0] >= k)
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
        self._n_dice_conds = len(conds)
        self._n_mixed_conds = 0

        self._state_fns = []

        def state(text, fn):
            conds.append(_Cond(text, "state"))
            self._state_fns.append(fn)

        names = rules.box_names
        # the upper box showing each face (-1: none), for the moves and conditions
        # that name "the upper box of the most common face"
        upper_of = np.full(F, -1, dtype=np.int64)
        for b, face in enumerate(rules.upper_face):
            if face:
                upper_of[face - 1] = b
        self._upper_of_face = upper_of if (upper_of >= 0).all() else None
        names = rules.box_names
        for b, name in enumerate(names):
            state(f"{name} open", lambda u, up, t, b=b: (u >> b) & 1 == 0)
        for b, name in enumerate(names):
            state(f"{name} filled", lambda u, up, t, b=b: (u >> b) & 1 == 1)
        C = rules.n_boxes
        for t in sorted({C // 4 + 1, C // 2 + 1, (3 * C) // 4 + 1, C - 1}):
            if t > 1:
                state(f"turn >= {t}", lambda u, up, t, tt=t: t + 1 >= tt)
        upper_face = rules.upper_face
        if rules.upper_bonus > 0 and rules.n_upper:
            T = rules.upper_bonus_threshold
            full = int(upper_face.sum())

            def need(up):
                return np.maximum(T - up, 0)

            state("upper bonus made", lambda u, up, t: need(up) == 0)
            for x in (5, 10, 15, 20, 30):
                if x < T:
                    state(f"upper bonus needs <= {x}", lambda u, up, t, x=x: need(up) <= x)

            def reachable(u, up):
                open_upper = ((u[:, None] >> np.arange(rules.n_upper)) & 1) == 0
                return (open_upper * upper_face[: rules.n_upper] * N).sum(axis=1) >= need(up)

            state("upper bonus out of reach", lambda u, up, t: ~reachable(u, up))

            def par(u, up):
                filled = ((u[:, None] >> np.arange(rules.n_upper)) & 1) == 1
                faces = (filled * upper_face[: rules.n_upper]).sum(axis=1)
                return up * full >= T * faces

            state("upper on par", lambda u, up, t: par(u, up))
        if self._upper_of_face is not None:
            conds.append(_Cond("upper box of the most common face open", "state"))
            self._n_mixed_conds = 1
        self._n_state_conds = len(conds) - self._n_dice_conds

        for j in range(1, rules.rolls_per_turn):
            conds.append(_Cond(f"{j} reroll{'s' if j > 1 else ''} left", "rolls"))
        self._n_rolls_conds = rules.rolls_per_turn - 1

        self.point_conds: list[tuple[int, int]] = []
        score_table = rules.tables.score_table
        sums = _sum_thresholds(rules)
        for b, name in enumerate(names):
            for x in _point_thresholds(score_table[:, b], sums):
                conds.append(_Cond(f"{name} scores >= {x}", "points"))
                self.point_conds.append((b, x))

        self.condition_texts = [c.text for c in conds]
        groups = np.array([c.group for c in conds])
        self.keep_groups = groups != "points"
        self.box_groups = groups != "rolls"
        self.condition_index = {t: i for i, t in enumerate(self.condition_texts)}
        self._keeps = self._keep_moves()
        self.keep_texts = [k[0] for k in self._keeps]
        self.keep_index = {t: i for i, t in enumerate(self.keep_texts)}
        self.box_texts = [f"score in {name}" for name in names]
        if self._upper_of_face is not None:
            self.box_texts.append(UPPER_OF_MOST_COMMON)
        self.box_index = {t: i for i, t in enumerate(self.box_texts)}

    # --------------------------------------------------------------- moves
    def _keep_moves(self) -> list:
        F = self.rules.n_faces

        def face(f):
            def fn(c):
                out = np.zeros_like(c)
                out[:, f] = c[:, f]
                return out

            return fn

        def most_common(c):
            out = np.zeros_like(c)
            top = _most_common_face(c)
            rows = np.arange(len(c))
            out[rows, top] = c[rows, top]
            return out

        def run(c):
            length, start = _longest_run(c)
            f = np.arange(F)
            inside = (f >= start[:, None]) & (f < (start + length)[:, None])
            return np.where(inside, 1, 0).astype(c.dtype)

        def span(lo, hi):
            def fn(c):
                out = np.minimum(c, 1)
                out[:, :lo] = 0
                out[:, hi:] = 0
                return out

            return fn

        def sets(c):
            # at most 3 of the most common face and 2 of the next, when at least pairs
            order = np.argsort(-c * (F + 1) - np.arange(F), axis=1, kind="stable")
            rows = np.arange(len(c))
            out = np.zeros_like(c)
            for rank, cap in ((0, 3), (1, 2)):
                f = order[:, rank]
                n = c[rows, f]
                out[rows, f] = np.where(n >= 2, np.minimum(n, cap), 0)
            return out

        def pairs(n_pairs):
            def fn(c):
                out = np.zeros_like(c)
                left = np.full(len(c), n_pairs)
                for f in range(F - 1, -1, -1):
                    take = (c[:, f] >= 2) & (left > 0)
                    out[:, f] = np.where(take, 2, 0)
                    left -= take
                return out

            return fn

        def high(lo):
            def fn(c):
                out = c.copy()
                out[:, :lo] = 0
                return out

            return fn

        moves = [(f"keep all {f + 1}s", face(f)) for f in range(F)]
        moves += [
            (KEEP_FALLBACK, most_common),
            ("keep the longest run, one die of each face", run),
            (f"keep one die of each face 1 to {F - 1}", span(0, F - 1)),
            (f"keep one die of each face 2 to {F}", span(1, F)),
            ("keep the most common face (up to 3) and a second pair", sets),
            ("keep the highest pair", pairs(1)),
            ("keep the two highest pairs", pairs(2)),
            (f"keep all {F - 1}s and {F}s", high(F - 2)),
            (f"keep all dice showing {F - 2} or more", high(F - 3)),
            ("keep everything", lambda c: c.copy()),
            ("reroll everything", lambda c: np.zeros_like(c)),
        ]
        seen, out = set(), []
        for text, fn in moves:  # small dice sets make some moves coincide in name
            if text not in seen:
                seen.add(text)
                out.append((text, fn))
        return out

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
            out[:, C] = self._upper_of_face[_most_common_face(c)]
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

    def points(self, roll: np.ndarray, used: np.ndarray, flag: np.ndarray) -> np.ndarray:
        """``(m, C)`` points each box would get (joker rules applied), -1 where illegal."""
        kr = kernel_rules(self.rules)
        return box_options(
            kr,
            np.ascontiguousarray(roll, dtype=np.int32),
            np.ascontiguousarray(used, dtype=np.int64),
            np.ascontiguousarray(flag, dtype=np.int64),
        )
