"""Score bins for histograms: whole-point bins whose width follows the number of games
(Freedman & Diaconis 1981), and any score law summed over the same bins."""

from __future__ import annotations

import numpy as np


def score_bins(histogram, width: int | None = None) -> np.ndarray:
    """Bin edges for final scores: whole-point bins of ``width`` points, by default the
    Freedman–Diaconis width ``2 IQR / n^(1/3)`` (Freedman & Diaconis 1981) rounded to
    whole points (at least 1): wide for few games, narrow for many.

    Parameters
    ----------
    histogram : array of float
        Count (or probability) of each score ``0, 1, ...``; with probabilities, ``n`` is
        taken as the sum, so pass counts to let the width follow the number of games.
    width : int, optional
        Bin width in points.

    Returns
    -------
    ndarray
        Edges at ``k·width − 0.5`` covering every score with positive count.
    """
    h = np.asarray(histogram, dtype=float)
    if width is None:
        width = freedman_diaconis_width(h)
    nz = np.flatnonzero(h > 0)
    lo, hi = (int(nz[0]), int(nz[-1])) if len(nz) else (0, 0)
    first, last = lo // width, hi // width + 1
    return np.arange(first, last + 1) * width - 0.5


def freedman_diaconis_width(histogram) -> int:
    """The Freedman–Diaconis bin width of a score histogram, rounded to whole points."""
    h = np.asarray(histogram, dtype=float)
    n = h.sum()
    cdf = np.cumsum(h) / n
    q25, q75 = np.searchsorted(cdf, 0.25), np.searchsorted(cdf, 0.75)
    return max(1, int(np.rint(2 * (q75 - q25) / n ** (1 / 3))))


def binned(values, edges) -> np.ndarray:
    """The sum of ``values[score]`` over each bin of ``edges`` (scores outside: dropped)."""
    v = np.asarray(values, dtype=float)
    which = np.searchsorted(edges, np.arange(len(v)), side="right") - 1
    inside = (which >= 0) & (which < len(edges) - 1)
    return np.bincount(which[inside], weights=v[inside], minlength=len(edges) - 1)
