"""Per-game simulation results and their summary statistics."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from yahtzee_sim.engine.aggregate import (
    PERCENTILES,  # noqa: F401  (re-exported)
    Aggregate,
)
from yahtzee_sim.game.rules import RuleSet


@dataclass(eq=False)
class Results:
    """Per-game arrays (compact integer dtypes) plus what produced them.

    Attributes
    ----------
    strategy : str
        The strategy that played (:func:`~yahtzee_sim.engine.summary.strategy_label`).
    rules : RuleSet
    seed : int
    first_game : int
        Global index of the first game (games are ``first_game, first_game + 1, ...``).
    total : ndarray (n,) int16
        Final score, bonuses included.
    box_scores : ndarray (n, n_boxes) int16
    filled_turn : ndarray (n, n_boxes) int8
        Turn (1-based) in which each box was filled.
    upper_bonus : ndarray (n,) int16
        Upper bonus points earned.
    yahtzees : ndarray (n,) int8
        Turns that ended on an n-of-a-kind roll.
    yahtzee_bonuses : ndarray (n,) int8
        Yahtzee bonuses earned.
    """

    strategy: str
    rules: RuleSet
    seed: int
    first_game: int
    total: np.ndarray
    box_scores: np.ndarray
    filled_turn: np.ndarray
    upper_bonus: np.ndarray
    yahtzees: np.ndarray
    yahtzee_bonuses: np.ndarray
    meta: dict = field(default_factory=dict)

    @property
    def n_games(self) -> int:
        """Number of games."""
        return len(self.total)

    @property
    def nbytes(self) -> int:
        """Memory held by the per-game arrays."""
        return sum(
            a.nbytes
            for a in (
                self.total,
                self.box_scores,
                self.filled_turn,
                self.upper_bonus,
                self.yahtzees,
                self.yahtzee_bonuses,
            )
        )

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-game arrays by name (as the engine returns them)."""
        return {
            "total": self.total,
            "box_scores": self.box_scores,
            "filled_turn": self.filled_turn,
            "upper_bonus": self.upper_bonus,
            "yahtzees": self.yahtzees,
            "yahtzee_bonuses": self.yahtzee_bonuses,
        }

    def digest(self) -> str:
        """SHA-256 (hex) of the games: totals, box scores, fill turns and Yahtzee bonuses,
        dtypes and shapes included. Two runs played the same games exactly when their
        digests agree (a compact reproducibility check)."""
        h = hashlib.sha256()
        for a in (self.total, self.box_scores, self.filled_turn, self.yahtzee_bonuses):
            a = np.ascontiguousarray(a)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        return h.hexdigest()

    def aggregate(self) -> Aggregate:
        """Exact running statistics of these games (what
        :func:`~yahtzee_sim.engine.simulate.simulate_aggregate` keeps)."""
        agg = Aggregate.from_arrays(self.rules, self.arrays())
        agg.meta.update(strategy=self.strategy, seed=self.seed, first_game=self.first_game)
        return agg

    def summary(self) -> dict:
        """Summary statistics as a JSON-ready dict, in the shared vocabulary.

        Keys (:mod:`yahtzee_sim.engine.summary`): ``strategy, rules, games, seed, mean,
        sd, ci95`` (normal-theory 95% interval of the mean), ``min, max,
        percentiles`` (keys ``"p1"`` .. ``"p99"``, linear interpolation),
        ``bonus_rate`` (share of games with the upper bonus), ``yahtzees_mean``,
        ``yahtzee_bonuses_mean``, ``box_means``, ``box_zero_rate``,
        ``box_fill_turn``. Computed from exact integer aggregates, so a
        streamed run (:func:`~yahtzee_sim.engine.simulate.simulate_aggregate`) gives the
        same summary.
        """
        if self.n_games == 0:
            raise ValueError("no games to summarize")
        return self.aggregate().summary()

    def to_frame(self) -> pd.DataFrame:  # pandas is imported on first use (start-up time)
        """One row per game: ``game, total, upper_bonus, yahtzees, yahtzee_bonuses``, then
        ``score_<box>`` and ``turn_<box>`` columns."""
        import pandas as pd

        names = self.rules.box_names
        cols = {
            "game": np.arange(self.first_game, self.first_game + self.n_games, dtype=np.int64),
            "total": self.total,
            "upper_bonus": self.upper_bonus,
            "yahtzees": self.yahtzees,
            "yahtzee_bonuses": self.yahtzee_bonuses,
        }
        for j, name in enumerate(names):
            cols[f"score_{name}"] = self.box_scores[:, j]
        for j, name in enumerate(names):
            cols[f"turn_{name}"] = self.filled_turn[:, j]
        return pd.DataFrame(cols)

    @classmethod
    def concatenate(cls, parts: list[dict], **info) -> Results:
        """Join per-block result dicts (in game order) into one object."""
        arrays = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return cls(**info, **arrays)
