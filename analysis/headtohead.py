"""Head-to-head comparisons from score distributions: blind two-player games."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def win_probability(pmf_a, pmf_b) -> float:
    """P(A beats B) + ½ P(tie) for independent final scores with laws ``pmf_a``, ``pmf_b``
    (arrays indexed by score): the players never see each other's card."""
    a = np.asarray(pmf_a, dtype=np.float64)
    b = np.asarray(pmf_b, dtype=np.float64)
    n = max(len(a), len(b))
    a = np.pad(a, (0, n - len(a))) / a.sum()
    b = np.pad(b, (0, n - len(b))) / b.sum()
    below = np.concatenate(([0.0], np.cumsum(b)[:-1]))  # P(B < x)
    # exactly rounded sum: the same bytes on every run (BLAS dot products are not)
    return math.fsum(a * (below + 0.5 * b))


def win_matrix(distributions: dict) -> pd.DataFrame:
    """``P(row beats column)`` (ties count half) for every ordered pair of strategies.

    ``distributions`` maps a name to its score law (exact pmf, or a simulated
    histogram: it is normalized). The diagonal is ½; ``M + M.T = 1``.
    """
    names = list(distributions)
    m = np.full((len(names), len(names)), 0.5)
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            m[i, j] = win_probability(distributions[a], distributions[names[j]])
            m[j, i] = 1.0 - m[i, j]
    return pd.DataFrame(m, index=pd.Index(names, name="row"), columns=names)
