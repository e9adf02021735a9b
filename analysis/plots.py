"""Plots. Every function draws on a Matplotlib ``ax`` it is given (or a new one) and
returns it; colours come from a colour-blind-safe palette (Okabe & Ito 2008)."""

from __future__ import annotations

import numpy as np

#: Okabe–Ito colour-blind-safe palette.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4.5))
    return ax


def plot_pmf(result, ax=None, label: str | None = None, color: str | None = None,
             survival: bool = False):  # fmt: skip
    """Exact distribution of the final score (or P(score ≥ x) with ``survival``).

    Parameters
    ----------
    result : ExactResult
        From :func:`yahtzee_sim.exact.evaluate` (with the pmf).
    ax : matplotlib Axes, optional
    label, color : str, optional
    survival : bool
        Plot the survival curve P(score ≥ x) instead of the pmf.
    """
    ax = _axes(ax)
    label = label or result.strategy
    color = color or PALETTE[0]
    x = np.arange(len(result.pmf))
    if survival:
        ax.step(x, result.survival(), where="post", color=color, label=label)
        ax.set_ylabel("P(final score ≥ x)")
    else:
        ax.plot(x, result.pmf, color=color, lw=1.2, label=f"{label} (exact)")
        ax.axvline(result.mean, color=color, ls="--", lw=0.8, label=f"mean {result.mean:.2f}")
        ax.set_ylabel("probability")
    hi = result.percentile(99.9)
    ax.set_xlim(0, max(hi + 10, 50))
    ax.set_xlabel("final score")
    ax.set_title(
        f"{'Survival' if survival else 'Distribution'} of the final score — {result.rules.name}"
    )
    ax.legend(frameon=False)
    return ax
