"""Head-to-head comparisons from score distributions: the win matrix of blind two-player
games (each pair's :func:`~yahtzee_sim.multiplayer.win_probability.win_probability`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from yahtzee_sim.multiplayer.win_probability import win_probability


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
