"""Running statistics of many games in bounded memory (exact and mergeable).

An :class:`Aggregate` holds an exact integer histogram of final totals, per-box
sums, sums of squares and zero counts, and bonus/Yahtzee counters. Blocks of games
are folded in as they finish and aggregates of different blocks merge exactly, so
:func:`~yahtzee_sim.engine.simulate.simulate_aggregate` gives the same summary as
:func:`~yahtzee_sim.engine.simulate.simulate`, which keeps every game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from yahtzee_sim.engine.summary import PERCENTILES, box_statistics, percentile_key
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import max_points_to_come

_Z95 = 1.959963984540054


def max_total(rules: RuleSet) -> int:
    """An upper bound on any final total under ``rules``."""
    return int(max_points_to_come(rules, 0, 0)[0])


@dataclass(eq=False)
class Aggregate:
    """Exact running statistics of a set of games (see module docstring); what
    :func:`~yahtzee_sim.engine.simulate.simulate_aggregate` returns."""

    rules: RuleSet
    histogram: np.ndarray  # counts of each final total, int64
    box_sums: np.ndarray  # int64 per box
    box_zeros: np.ndarray  # games with 0 in each box
    box_turn_sums: np.ndarray  # sum of the turn each box was filled
    bonus_games: int = 0
    yahtzees: int = 0
    yahtzee_bonuses: int = 0
    meta: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, rules: RuleSet) -> Aggregate:
        """No games yet."""
        c = rules.n_boxes
        return cls(
            rules,
            np.zeros(max_total(rules) + 1, dtype=np.int64),
            np.zeros(c, dtype=np.int64),
            np.zeros(c, dtype=np.int64),
            np.zeros(c, dtype=np.int64),
        )

    @classmethod
    def from_arrays(cls, rules: RuleSet, block: dict) -> Aggregate:
        """Statistics of one block of per-game arrays (as the engine returns them)."""
        agg = cls.empty(rules)
        agg.histogram += np.bincount(block["total"].astype(np.int64), minlength=len(agg.histogram))
        scores = block["box_scores"]
        agg.box_sums += scores.sum(axis=0, dtype=np.int64)
        agg.box_zeros += (scores == 0).sum(axis=0)
        agg.box_turn_sums += block["filled_turn"].sum(axis=0, dtype=np.int64)
        agg.bonus_games = int((block["upper_bonus"] > 0).sum())
        agg.yahtzees = int(block["yahtzees"].sum(dtype=np.int64))
        agg.yahtzee_bonuses = int(block["yahtzee_bonuses"].sum(dtype=np.int64))
        return agg

    def merge(self, other: Aggregate) -> Aggregate:
        """Add the games of ``other`` (in place); returns self."""
        self.histogram += other.histogram
        self.box_sums += other.box_sums
        self.box_zeros += other.box_zeros
        self.box_turn_sums += other.box_turn_sums
        self.bonus_games += other.bonus_games
        self.yahtzees += other.yahtzees
        self.yahtzee_bonuses += other.yahtzee_bonuses
        return self

    @property
    def n_games(self) -> int:
        """Number of games folded in."""
        return int(self.histogram.sum())

    def percentile(self, q: float) -> float:
        """Percentile of the totals with numpy's default (linear) interpolation, exactly."""
        n = self.n_games
        pos = (n - 1) * q / 100.0
        lo, frac = int(np.floor(pos)), pos - np.floor(pos)
        cum = np.cumsum(self.histogram)
        x_lo = int(np.searchsorted(cum, lo + 1))
        x_hi = int(np.searchsorted(cum, min(lo + 2, n)))
        return float(x_lo + frac * (x_hi - x_lo))

    def summary(self, strategy: str | None = None, seed: int | None = None) -> dict:
        """The summary in the shared vocabulary (:mod:`yahtzee_sim.engine.summary`).

        ``strategy`` and ``seed`` default to those recorded by
        :func:`~yahtzee_sim.engine.simulate.simulate`.
        """
        strategy = self.meta.get("strategy", "") if strategy is None else strategy
        seed = self.meta.get("seed") if seed is None else seed
        n = self.n_games
        if n == 0:
            raise ValueError("no games to summarize")
        total = int(self.histogram @ np.arange(len(self.histogram), dtype=np.int64))
        mean = total / n
        # exact centred sum of squares from integer moments, then one rounding
        sq = int(self.histogram @ (np.arange(len(self.histogram), dtype=np.int64) ** 2))
        ss = (sq * n - total * total) / n
        sd = float(np.sqrt(ss / (n - 1))) if n > 1 else 0.0
        half = _Z95 * sd / np.sqrt(n)
        nonzero = np.flatnonzero(self.histogram)
        return {
            "strategy": strategy,
            "rules": self.rules.name,
            "games": n,
            "seed": seed,
            "mean": float(mean),
            "sd": sd,
            "ci95": [float(mean - half), float(mean + half)],
            "min": int(nonzero[0]),
            "max": int(nonzero[-1]),
            "percentiles": {percentile_key(p): self.percentile(p) for p in PERCENTILES},
            "bonus_rate": self.bonus_games / n,
            "yahtzees_mean": self.yahtzees / n,
            "yahtzee_bonuses_mean": self.yahtzee_bonuses / n,
            **box_statistics(
                self.rules.box_names,
                self.box_sums / n,
                self.box_zeros / n,
                self.box_turn_sums / n,
            ),
        }
