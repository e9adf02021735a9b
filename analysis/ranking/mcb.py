"""Multiple comparisons with the best (Hsu 1984/1996), for paired (CRN) observations."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from yahtzee_sim.analysis.ranking.kim_nelson import SelectionError


def mcb(
    observations: np.ndarray, names: Sequence[str], alpha: float = 0.05, maximize: bool = True
) -> pd.DataFrame:
    """Simultaneous ``1 − alpha`` intervals for ``μ_i − max_{l≠i} μ_l`` (constrained MCB).

    ``observations[i, j]`` is observation j of system i; column j of all systems
    shares random numbers (paired), so each pair uses the standard error of its
    differences. The critical value is the one-sided Student t quantile at
    ``1 − alpha/(k−1)`` with ``n − 1`` degrees of freedom (Bonferroni; conservative).
    With ``maximize=False`` the intervals are for ``μ_i − min_{l≠i} μ_l`` with the
    sign flipped, so that "possibly best" keeps its meaning.

    Returns one row per system: ``mean, lower, upper, possibly_best`` (``upper > 0``:
    the data cannot rule out that it is the best), sorted best first.
    """
    x = np.asarray(observations, dtype=np.float64)
    k, n = x.shape
    if k < 2 or n < 2:
        raise SelectionError(f"MCB needs at least 2 systems and 2 observations, got {x.shape}")
    if not 0 < alpha < 1:
        raise SelectionError(f"alpha must be in (0, 1), got {alpha}")
    if not np.isfinite(x).all():
        raise SelectionError("observations must be finite")
    sign = 1.0 if maximize else -1.0
    x = sign * x
    means = x.mean(axis=1)
    d = stats.t.ppf(1 - alpha / (k - 1), n - 1)
    diff = x[:, None, :] - x[None, :, :]
    se = diff.std(axis=2, ddof=1) / np.sqrt(n)
    rows = []
    for i in range(k):
        others = [j for j in range(k) if j != i]
        gaps = means[i] - means[others]
        upper = max(0.0, float(np.min(gaps + d * se[i, others])))
        lower = min(0.0, float(np.min(gaps - d * se[i, others])))
        rows.append(
            {
                "system": names[i],
                "mean": sign * means[i],
                "lower": lower,
                "upper": upper,
                "possibly_best": upper > 0,
            }
        )
    out = pd.DataFrame(rows)
    return out.sort_values("mean", ascending=not maximize, ignore_index=True)
