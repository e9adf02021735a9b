"""Summary statistics with confidence intervals, and paired (CRN) differences."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from yahtzee_sim.analysis.ranking.kim_nelson import SelectionError
from yahtzee_sim.analysis.ranking.selection import METRICS
from yahtzee_sim.engine.results import Results

PERCENTILES = (10, 50, 90)


def mean_ci(x: np.ndarray, level: float) -> tuple[float, float, float, float]:
    """Mean, SD, and the two ends of the t confidence interval of the mean at ``level``."""
    n = len(x)
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    half = float(stats.t.ppf(0.5 + level / 2, max(n - 1, 1))) * sd / np.sqrt(n)
    return mean, sd, float(mean - half), float(mean + half)


def _wilson(k: int, n: int, level: float) -> tuple[float, float]:
    z = stats.norm.ppf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def _percentile_ci(x: np.ndarray, q: float, level: float) -> tuple[float, float, float]:
    """Percentile with a distribution-free (order statistic, binomial) interval."""
    xs = np.sort(x)
    n = len(xs)
    lo_rank = int(stats.binom.ppf((1 - level) / 2, n, q / 100))
    hi_rank = int(stats.binom.ppf(0.5 + level / 2, n, q / 100))
    return (
        float(np.percentile(xs, q)),
        float(xs[max(lo_rank - 1, 0)]),
        float(xs[min(hi_rank, n - 1)]),
    )


def summarize(results: Results | Sequence[Results], level: float = 0.95) -> pd.DataFrame:
    """One row per result: mean, SD and percentiles of the final score with intervals,
    upper-bonus rate (Wilson interval) and Yahtzees per game (t interval).

    Columns: ``strategy, games, mean, mean_lo, mean_hi, sd``, ``pXX, pXX_lo, pXX_hi`` for
    XX in 10, 50, 90, ``bonus_rate, bonus_lo, bonus_hi, yahtzees, yahtzees_lo, yahtzees_hi``.
    """
    if isinstance(results, Results):
        results = [results]
    rows = []
    for res in results:
        total = res.total.astype(np.float64)
        mean, sd, lo, hi = mean_ci(total, level)
        row = {
            "strategy": res.strategy,
            "games": res.n_games,
            "mean": mean,
            "mean_lo": lo,
            "mean_hi": hi,
            "sd": sd,
        }
        for q in PERCENTILES:
            v, qlo, qhi = _percentile_ci(total, q, level)
            row.update({f"p{q}": v, f"p{q}_lo": qlo, f"p{q}_hi": qhi})
        k = int((res.upper_bonus > 0).sum())
        blo, bhi = _wilson(k, res.n_games, level)
        row.update({"bonus_rate": k / res.n_games, "bonus_lo": blo, "bonus_hi": bhi})
        ym, _, ylo, yhi = mean_ci(res.yahtzees.astype(np.float64), level)
        row.update({"yahtzees": ym, "yahtzees_lo": ylo, "yahtzees_hi": yhi})
        rows.append(row)
    return pd.DataFrame(rows)


def paired_difference(a: Results, b: Results, metric: str = "total", level: float = 0.95) -> dict:
    """Mean of ``metric(a) − metric(b)`` game by game, with a t interval.

    Both results must cover the same games of the same seed and rules (common
    random numbers); the pairing removes the dice luck both strategies shared.
    Returns ``mean, sd, se, lo, hi, games, correlation``.
    """
    if metric not in METRICS:
        raise SelectionError(f"unknown metric {metric!r}; expected one of: {', '.join(METRICS)}")
    if (a.seed, a.first_game, a.n_games, a.rules) != (b.seed, b.first_game, b.n_games, b.rules):
        raise SelectionError(
            "paired differences need the same seed, rules and games in both results "
            f"(got seed {a.seed}/{b.seed}, first game {a.first_game}/{b.first_game}, "
            f"games {a.n_games}/{b.n_games}, rules {a.rules.name}/{b.rules.name})"
        )
    x, y = METRICS[metric](a), METRICS[metric](b)
    mean, sd, lo, hi = mean_ci(x - y, level)
    corr = float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 and y.std() > 0 else float("nan")
    return {
        "mean": mean,
        "sd": sd,
        "se": float(sd / np.sqrt(len(x))),
        "lo": lo,
        "hi": hi,
        "games": len(x),
        "correlation": corr,
    }
