"""Dice tables: rolls, keeps and the chance outcomes that connect them.

Chance is data here (as in OpenSpiel): the same keep→roll probabilities are used
by the exact evaluator and the solver, and the dice sampler's tests check the
engine's empirical frequencies against them.

Definitions, for ``n`` dice with ``F`` faces:

* a **roll** is a multiset of ``n`` faces, stored as face counts (252 for 5d6);
* a **keep** is a multiset of ``0..n`` faces (462 for 5d6), index 0 = keep nothing;
* ``keep → roll``: rerolling the ``n - |keep|`` other dice gives roll ``r`` with a
  multinomial probability; the sparse table has one edge per (keep ⊆ roll) pair
  (4368 for 5d6), as has the ``roll → keep`` adjacency (the sub-multisets of a roll).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial
from typing import Protocol

import numpy as np

from yahtzee_sim.errors import DiceError
from yahtzee_sim.validation import Integer


class _Scorer(Protocol):
    """What a box offers the dice tables: its score of a roll (face counts), normal
    and as a joker (:class:`~yahtzee_sim.game.scoring.Box`)."""

    def score(self, counts, allow_one_pair: bool = False) -> int: ...

    def joker_score(self, counts) -> int: ...


class DiceRules(Protocol):
    """What :meth:`DiceTables.build` reads of a rule set
    (:class:`~yahtzee_sim.game.rules.RuleSet` has it all)."""

    n_dice: int
    n_faces: int
    boxes: tuple[_Scorer, ...]
    two_pairs_allows_one_pair: bool


def _multisets(n_faces: int, size: int) -> list[tuple[int, ...]]:
    """Face-count vectors of all multisets of ``size`` faces, in sorted-face order."""
    out = []
    for combo in combinations_with_replacement(range(n_faces), size):
        counts = [0] * n_faces
        for f in combo:
            counts[f] += 1
        out.append(tuple(counts))
    return out


@dataclass(frozen=True, eq=False)
class DiceTables:
    """All dice-related lookup tables of one rule set (read-only arrays).

    Attributes
    ----------
    n_dice, n_faces : int
    roll_counts : ndarray (n_rolls, n_faces) int8
        Face counts of every roll.
    keep_counts : ndarray (n_keeps, n_faces) int8
        Face counts of every keep (index 0 is the empty keep).
    keep_size : ndarray (n_keeps,) int8
    roll_keep_index : ndarray (n_rolls,) int32
        Index of each roll as a keep (keeping all dice).
    keep_roll_ptr, keep_roll_roll, keep_roll_prob : ndarray
        CSR table keep → (roll, probability); rows sum to 1.
    roll_keep_ptr, roll_keep_keep : ndarray
        CSR adjacency roll → the keeps that are sub-multisets of it.
    roll_code, keep_code : ndarray int64
        Base-``n_dice+1`` code of each roll/keep; ``code_to_roll`` and
        ``code_to_keep`` invert them (-1 where no roll/keep has that code).
    score_table : ndarray (n_rolls, n_boxes) int16
        Points of each roll in each box under normal scoring.
    joker_table : ndarray (n_rolls, n_boxes) int16
        Points when the roll is played as a joker (only meaningful for Yahtzee rolls).
    yahtzee_face : ndarray (n_rolls,) int8
        Face index (0-based) of an n-of-a-kind roll, -1 otherwise.
    keep_add : ndarray (n_keeps, n_faces) int32
        Keep with one more die of face ``f`` (-1 for full keeps): the solver adds
        rerolled dice one at a time, ``P(roll | keep)`` being the law of iid dice.
    keep_remove : ndarray (n_keeps, n_faces) int32
        Keep with one die of face ``f`` fewer (-1 where ``f`` is absent): the
        sub-multisets of a roll are reached by removing dice one at a time.
    """

    n_dice: int
    n_faces: int
    roll_counts: np.ndarray
    keep_counts: np.ndarray
    keep_size: np.ndarray
    roll_keep_index: np.ndarray
    keep_roll_ptr: np.ndarray
    keep_roll_roll: np.ndarray
    keep_roll_prob: np.ndarray
    roll_keep_ptr: np.ndarray
    roll_keep_keep: np.ndarray
    roll_code: np.ndarray
    keep_code: np.ndarray
    code_to_roll: np.ndarray
    code_to_keep: np.ndarray
    score_table: np.ndarray
    joker_table: np.ndarray
    yahtzee_face: np.ndarray
    keep_add: np.ndarray
    keep_remove: np.ndarray

    @property
    def n_rolls(self) -> int:
        """Number of distinct rolls (252 for 5d6)."""
        return len(self.roll_counts)

    @property
    def n_keeps(self) -> int:
        """Number of distinct keeps, the empty keep included (462 for 5d6)."""
        return len(self.keep_counts)

    @property
    def n_edges(self) -> int:
        """Number of keep→roll edges (= roll→keep edges; 4368 for 5d6)."""
        return len(self.keep_roll_roll)

    def dense_keep_roll(self) -> np.ndarray:
        """Dense ``(n_keeps, n_rolls)`` matrix of P(roll | keep)."""
        out = np.zeros((self.n_keeps, self.n_rolls))
        for k in range(self.n_keeps):
            lo, hi = self.keep_roll_ptr[k], self.keep_roll_ptr[k + 1]
            out[k, self.keep_roll_roll[lo:hi]] = self.keep_roll_prob[lo:hi]
        return out

    def encode(self, counts: np.ndarray) -> np.ndarray:
        """Base-``n_dice+1`` code of face-count vectors (last axis = faces)."""
        weights = (self.n_dice + 1) ** np.arange(self.n_faces, dtype=np.int64)
        return np.asarray(counts, dtype=np.int64) @ weights

    def roll_index(self, counts: np.ndarray) -> np.ndarray:
        """Index of each roll given as face counts; raises :class:`DiceError` if not a roll."""
        counts = np.asarray(counts)
        if counts.shape[-1] != self.n_faces or np.any(counts < 0):
            raise DiceError(f"face counts must be non-negative with {self.n_faces} faces")
        if np.any(counts.sum(axis=-1) != self.n_dice):
            raise DiceError(f"a roll must have exactly {self.n_dice} dice")
        return self.code_to_roll[self.encode(counts)]

    def keep_index(self, counts: np.ndarray) -> np.ndarray:
        """Index of each keep given as face counts; raises :class:`DiceError` if not a keep."""
        counts = np.asarray(counts)
        if counts.shape[-1] != self.n_faces or np.any(counts < 0):
            raise DiceError(f"face counts must be non-negative with {self.n_faces} faces")
        if np.any(counts.sum(axis=-1) > self.n_dice):
            raise DiceError(f"a keep has at most {self.n_dice} dice")
        return self.code_to_keep[self.encode(counts)]

    def keep_from_faces(self, faces) -> int:
        """Keep index of the dice ``faces`` (face values, at most ``n_dice`` of them).

        Raises
        ------
        DiceError
            If a face value does not fit the rules or there are too many dice.
        """
        faces = [int(f) for f in faces]
        if len(faces) > self.n_dice or any(not 1 <= f <= self.n_faces for f in faces):
            raise DiceError(f"a keep is at most {self.n_dice} faces 1..{self.n_faces}, got {faces}")
        counts = np.bincount(np.asarray(faces, dtype=np.int64) - 1, minlength=self.n_faces)
        return int(self.keep_index(counts))

    def counts_from_faces(self, faces) -> np.ndarray:
        """Face counts of a roll given as face values, e.g. ``[1, 3, 5, 5, 6]``.

        Raises
        ------
        DiceError
            If the number of dice or a face value does not fit the rules.
        """
        faces = list(faces)
        if len(faces) != self.n_dice:
            raise DiceError(f"expected {self.n_dice} dice, got {len(faces)}: {faces}")
        counts = np.zeros(self.n_faces, dtype=np.int8)
        face = Integer(1, self.n_faces)
        for f in faces:
            if not face.accepts(f):
                raise DiceError(f"die value {f!r} out of range 1..{self.n_faces}")
            counts[f - 1] += 1
        return counts

    @staticmethod
    def faces_from_counts(counts) -> tuple[int, ...]:
        """Sorted face values of a face-count vector."""
        return tuple(f + 1 for f, n in enumerate(counts) for _ in range(int(n)))

    @classmethod
    def build(cls, rules: DiceRules) -> DiceTables:
        """Build every table for ``rules`` (a few milliseconds for 5d6)."""
        n, F = rules.n_dice, rules.n_faces
        rolls = _multisets(F, n)
        keeps = [k for size in range(n + 1) for k in _multisets(F, size)]
        roll_counts = np.array(rolls, dtype=np.int8).reshape(len(rolls), F)
        keep_counts = np.array(keeps, dtype=np.int8).reshape(len(keeps), F)
        weights = (n + 1) ** np.arange(F, dtype=np.int64)
        roll_code = roll_counts.astype(np.int64) @ weights
        keep_code = keep_counts.astype(np.int64) @ weights
        code_to_roll = np.full((n + 1) ** F, -1, dtype=np.int32)
        code_to_roll[roll_code] = np.arange(len(rolls), dtype=np.int32)
        code_to_keep = np.full((n + 1) ** F, -1, dtype=np.int32)
        code_to_keep[keep_code] = np.arange(len(keeps), dtype=np.int32)

        kr_ptr, kr_roll, kr_prob = _keep_to_roll(roll_counts, keep_counts, n, F)
        rk_ptr, rk_keep = _roll_to_keeps(roll_counts, keep_counts)
        score, joker, yface = _box_tables(rules, rolls, roll_counts)
        keep_add, keep_remove = _neighbour_keeps(keep_counts, keep_code, code_to_keep, weights, n)
        tables = cls(
            n_dice=n,
            n_faces=F,
            roll_counts=roll_counts,
            keep_counts=keep_counts,
            keep_size=keep_counts.sum(axis=1).astype(np.int8),
            roll_keep_index=code_to_keep[roll_code].astype(np.int32),
            keep_roll_ptr=np.array(kr_ptr, dtype=np.int32),
            keep_roll_roll=np.array(kr_roll, dtype=np.int32),
            keep_roll_prob=np.array(kr_prob, dtype=np.float64),
            roll_keep_ptr=np.array(rk_ptr, dtype=np.int32),
            roll_keep_keep=np.array(rk_keep, dtype=np.int32),
            roll_code=roll_code,
            keep_code=keep_code,
            code_to_roll=code_to_roll,
            code_to_keep=code_to_keep,
            score_table=score,
            joker_table=joker,
            yahtzee_face=yface,
            keep_add=keep_add,
            keep_remove=keep_remove,
        )
        for value in vars(tables).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        return tables


def _keep_to_roll(
    roll_counts: np.ndarray, keep_counts: np.ndarray, n: int, F: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keep -> roll links in CSR form (pointers, rolls, multinomial probabilities).

    Keep by keep, rolls ascending; each probability is ``m!/F^m`` divided by the factorial
    of each face's count, in face order (arrays over every pair: Python loops took most of
    a small game's solve).
    """
    diff = roll_counts[None, :, :] - keep_counts[:, None, :]
    reach = (diff >= 0).all(axis=2)
    k_of, r_of = np.nonzero(reach)
    left = n - keep_counts.sum(axis=1, dtype=np.int64)
    base = np.array([factorial(m) / F**m for m in range(n + 1)], dtype=np.float64)
    fact = np.array([float(factorial(i)) for i in range(n + 1)], dtype=np.float64)
    kr_prob = base[left[k_of]]
    for f in range(F):
        kr_prob = kr_prob / fact[diff[k_of, r_of, f]]
    kr_ptr = np.concatenate(([0], np.cumsum(reach.sum(axis=1))))
    return kr_ptr, r_of, kr_prob


def _roll_to_keeps(
    roll_counts: np.ndarray, keep_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Roll -> keeps (its sub-multisets) in CSR form (pointers, keeps)."""
    subs = (keep_counts[None, :, :] <= roll_counts[:, None, :]).all(axis=2)
    rk_keep = np.nonzero(subs)[1]
    rk_ptr = np.concatenate(([0], np.cumsum(subs.sum(axis=1))))
    return rk_ptr, rk_keep


def _box_tables(
    rules: DiceRules, rolls: list, roll_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points of every roll in every box, joker points, and each roll's n-of-a-kind face."""
    n = rules.n_dice
    cats = rules.boxes
    allow = rules.two_pairs_allows_one_pair
    score = np.stack([c.scores(roll_counts, allow) for c in cats], axis=1).astype(np.int16)
    yface = np.array([r.index(n) if max(r) == n else -1 for r in rolls], dtype=np.int8)
    joker = np.array(
        [[c.joker_score(r) for c in cats] if max(r) == n else [0] * len(cats) for r in rolls],
        dtype=np.int16,
    )
    return score, joker, yface


def _neighbour_keeps(
    keep_counts: np.ndarray,
    keep_code: np.ndarray,
    code_to_keep: np.ndarray,
    weights: np.ndarray,
    n: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The keep with one die more of each face / one fewer (-1: none).

    Their codes differ by the face's weight.
    """
    size = keep_counts.sum(axis=1, dtype=np.int64)[:, None]
    more = np.where(size < n, keep_code[:, None] + weights[None, :], 0)
    keep_add = np.where(size < n, code_to_keep[more], -1).astype(np.int32)
    fewer = np.where(keep_counts > 0, keep_code[:, None] - weights[None, :], 0)
    keep_remove = np.where(keep_counts > 0, code_to_keep[fewer], -1).astype(np.int32)
    return keep_add, keep_remove
