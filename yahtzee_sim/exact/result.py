"""The result of an exact evaluation: the law of a strategy's final score and its statistics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from yahtzee_sim.engine.summary import PERCENTILES, box_statistics, percentile_key
from yahtzee_sim.errors import ExactEvaluationError
from yahtzee_sim.game.rules import RuleSet


@dataclass(eq=False)
class ExactResult:
    """Exact law of the final score of one strategy under one rule set.

    Attributes
    ----------
    strategy : str
        The strategy (:func:`~yahtzee_sim.engine.summary.strategy_label`).
    rules : RuleSet
    mean, sd : float
        Expected final score and its standard deviation.
    pmf : ndarray or None
        ``pmf[x]`` = P(final score = x), ``x = 0 .. max``; ``None`` when only the
        moments were asked for (``distribution=False``).
    box_means : ndarray (n_boxes,)
        Expected points written in each box.
    box_zero_rate : ndarray (n_boxes,)
        Probability that each box ends with 0 points.
    box_fill_turn : ndarray (n_boxes,)
        Expected turn (1-based) in which each box is filled.
    bonus_rate : float
        Probability of earning the upper-section bonus. On games with saved rolls the
        per-box and bonus statistics are NaN (not computed; ``None`` in :meth:`to_dict`).
    yahtzee_bonuses_mean : float
        Expected number of Yahtzee bonuses.
    n_states : int
        Turn-start states the strategy reaches with positive probability.
    seconds : float
        Wall time of the evaluation.
    """

    strategy: str
    rules: RuleSet
    mean: float
    sd: float
    pmf: np.ndarray | None
    box_means: np.ndarray
    box_zero_rate: np.ndarray
    box_fill_turn: np.ndarray
    bonus_rate: float
    yahtzee_bonuses_mean: float
    n_states: int
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    # ------------------------------------------------------------- the law
    def _need_pmf(self) -> np.ndarray:
        if self.pmf is None:
            raise ExactEvaluationError(
                "this result holds the moments only; evaluate with distribution=True for the pmf"
            )
        return self.pmf

    @property
    def min(self) -> int:
        """Smallest final score with positive probability."""
        return int(np.flatnonzero(self._need_pmf() > 0)[0])

    @property
    def max(self) -> int:
        """Largest final score with positive probability."""
        return int(np.flatnonzero(self._need_pmf() > 0)[-1])

    def cdf(self) -> np.ndarray:
        """``cdf[x]`` = P(final score ≤ x)."""
        return np.cumsum(self._need_pmf())

    def survival(self) -> np.ndarray:
        """``survival[x]`` = P(final score ≥ x)."""
        pmf = self._need_pmf()
        return np.cumsum(pmf[::-1])[::-1]

    def percentile(self, q: float) -> int:
        """The ``q``-th percentile: the smallest score ``x`` with P(score ≤ x) ≥ q/100.

        The comparison allows 1e-12 of rounding, except that ``q = 100`` is the
        largest possible score however small its probability.
        """
        if not 0 <= q <= 100:
            raise ValueError(f"percentile q must be in [0, 100], got {q}")
        if q == 0:
            return self.min
        if q == 100:
            return self.max
        cdf = self.cdf()
        return max(self.min, int(np.searchsorted(cdf, q / 100.0 - 1e-12, side="left")))

    def percentiles(self, qs=PERCENTILES) -> dict[str, int]:
        """Percentiles as ``{"p10": ..., ...}``."""
        return {percentile_key(q): self.percentile(q) for q in qs}

    def pmf_series(self):
        """The pmf as a :class:`pandas.Series` indexed by score (positive entries only)."""
        import pandas as pd

        pmf = self._need_pmf()
        idx = np.flatnonzero(pmf > 0)
        return pd.Series(pmf[idx], index=pd.Index(idx, name="score"), name="probability")

    def box_frame(self):
        """Per-box expectations as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame(
            {
                "mean": self.box_means,
                "zero_rate": self.box_zero_rate,
                "fill_turn": self.box_fill_turn,
            },
            index=pd.Index(self.rules.box_names, name="box"),
        )

    def to_dict(self) -> dict:
        """JSON-ready summary in the shared vocabulary (:mod:`yahtzee_sim.engine.summary`);
        ``pmf`` is a list indexed by score (``min``, ``max``, ``percentiles`` and
        ``pmf`` are ``None`` for a moments-only result). The wall time is left out, so
        the same evaluation always gives the same dict."""
        out = {
            "strategy": self.strategy,
            "rules": self.rules.name,
            "mean": self.mean,
            "sd": self.sd,
            "min": None,
            "max": None,
            "percentiles": None,
            "bonus_rate": self.bonus_rate,
            "yahtzee_bonuses_mean": self.yahtzee_bonuses_mean,
            **box_statistics(
                self.rules.box_names,
                self.box_means,
                self.box_zero_rate,
                self.box_fill_turn,
            ),
            "n_states": self.n_states,
            "pmf": None,
        }
        if self.pmf is not None:
            out.update(
                min=self.min, max=self.max, percentiles=self.percentiles(), pmf=self.pmf.tolist()
            )
        return _nan_to_none(out)


def _nan_to_none(data):
    """``data`` with every NaN float (statistics not computed) replaced by ``None``: JSON
    has no NaN."""
    if isinstance(data, dict):
        return {k: _nan_to_none(v) for k, v in data.items()}
    if isinstance(data, float) and data != data:
        return None
    return data
