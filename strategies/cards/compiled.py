"""A rule card compiled for play: :class:`CompiledCard` (the card's conditions as columns
of one :class:`~yahtzee_sim.strategies.cards.language.CardLanguage`, its rules as
positions into them) and the array helpers play reads (:func:`all_hold`,
:func:`filled_count`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.strategies.cards.format import Card
from yahtzee_sim.strategies.cards.keep_moves import KEEP_FALLBACK
from yahtzee_sim.strategies.cards.language import CardLanguage, vocabulary


@dataclass
class CompiledCard:
    """A card as column indices of one :class:`CardLanguage` (what play reads).

    ``columns`` are the conditions the card uses; each rule holds positions into them;
    ``card`` is the card compiled.
    """

    vocab: CardLanguage
    columns: np.ndarray
    keeps: list[tuple[np.ndarray, int]]
    boxes: list[tuple[np.ndarray, int]]
    card: Card | None = None

    @classmethod
    def build(cls, card: Card, rules: RuleSet) -> CompiledCard:
        card.check(rules)
        v = vocabulary(rules)
        used = sorted({v.condition_index[c] for r in card.keeps + card.boxes for c in r.conditions})
        where = {c: k for k, c in enumerate(used)}

        def comp(rule, moves):
            idx = [where[v.condition_index[c]] for c in rule.conditions]
            return np.array(idx, dtype=np.int64), moves[rule.move]

        return cls(
            v,
            np.array(used, dtype=np.int64),
            [comp(r, v.keep_index) for r in card.keeps],
            [comp(r, v.box_index) for r in card.boxes],
            card,
        )

    @property
    def needs_points(self) -> bool:
        """Whether a rule asks what a box would score (the conditions then need the
        box points at keep decisions too)."""
        return bool((~self.vocab.keep_groups[self.columns]).any())

    def keep_rules(self, X: np.ndarray) -> np.ndarray:
        """0-based keep rule that decides each row of conditions ``X`` (``columns``):
        the first that holds; -1 where none does (the ``otherwise`` line)."""
        rule = np.full(len(X), -1, dtype=np.int64)
        for i in range(len(self.keeps) - 1, -1, -1):
            rule[all_hold(X, self.keeps[i][0])] = i
        return rule

    def keep_moves(self, X: np.ndarray) -> np.ndarray:
        """Keep move of every row of conditions ``X`` (that of :meth:`keep_rules`)."""
        moves = [a for _, a in self.keeps] + [self.vocab.keep_index[KEEP_FALLBACK]]
        return np.array(moves, dtype=np.int64)[self.keep_rules(X)]

    def box_rules(self, X: np.ndarray, roll: np.ndarray, points: np.ndarray) -> np.ndarray:
        """0-based box rule that decides each row: the first that holds and whose box
        takes the roll (``points`` >= 0); -1 where none does (the ``otherwise`` line)."""
        rule = np.full(len(X), -1, dtype=np.int64)
        rows = np.arange(len(X))
        for i in range(len(self.boxes) - 1, -1, -1):
            idx, b = self.boxes[i]
            box = self.vocab.box_table[roll, b]
            rule[all_hold(X, idx) & (points[rows, box] >= 0)] = i
        return rule

    def box_moves(self, X: np.ndarray, roll: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Box of every row: that of :meth:`box_rules`'s rule, else the box with the most
        points (the first on the card if equal)."""
        rule = self.box_rules(X, roll, points)
        moves = np.array([b for _, b in self.boxes] + [0], dtype=np.int64)[rule]
        fallback = np.argmax(points, axis=1).astype(np.int64)
        return np.where(rule >= 0, self.vocab.box_table[roll, moves], fallback)


def all_hold(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows of the condition matrix ``X`` where every condition of ``idx`` holds."""
    out = np.ones(len(X), dtype=np.bool_)
    for k in idx:
        out &= X[:, k]
    return out


@functools.cache
def _popcount16() -> np.ndarray:
    """Number of set bits of every 16-bit value (built on first use)."""
    bits = np.unpackbits(np.arange(1 << 16, dtype=">u2").view(np.uint8))
    return bits.reshape(-1, 16).sum(axis=1, dtype=np.int64)


def filled_count(used: np.ndarray) -> np.ndarray:
    """Number of filled boxes of each bitmask (the 0-based turn in solitaire)."""
    used = np.asarray(used, dtype=np.int64)
    popcount = _popcount16()
    out = popcount[used & 0xFFFF]
    rest = used >> 16
    while rest.any():
        out = out + popcount[rest & 0xFFFF]
        rest = rest >> 16
    return out
