"""The report's multi-panel figures and the data each one draws.

Each function returns the figure (full width, constrained layout; draw it inside
:func:`~yahtzee_sim.analysis.style.figure_style`) with a table of exactly what it draws,
written beside it as CSV. Every strategy keeps its style of :func:`report_styles` in
every figure of a report.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from yahtzee_sim.analysis import plots
from yahtzee_sim.analysis.bins import binned, freedman_diaconis_width, score_bins
from yahtzee_sim.analysis.report.build import REFERENCE, Report
from yahtzee_sim.analysis.style import (
    BACKGROUND_COLOR,
    FULL_WIDTH,
    REFERENCE_COLOR,
    StrategyStyle,
    strategy_styles,
)

#: Panels per row of the small multiples.
PANEL_COLUMNS = 4


def report_styles(report: Report) -> dict[str, StrategyStyle]:
    """The style of every strategy of ``report`` (``optimal`` the black reference,
    strategies that are not built in highlighted), also under ``optimal (exact)``."""
    styles = strategy_styles(report.ids, reference=REFERENCE)
    styles[f"{REFERENCE} (exact)"] = styles.get(REFERENCE)
    return styles


def _panels(n: int, row_height: float):
    """A full-width grid of ``n`` panels sharing both axes; the spare ones hidden."""
    import matplotlib.pyplot as plt

    ncol = min(PANEL_COLUMNS, n)
    nrow = -(-n // ncol)
    fig, axes = plt.subplots(
        nrow,
        ncol,
        figsize=(FULL_WIDTH, row_height * nrow + 0.6),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    for i, ax in enumerate(axes.ravel()[:n]):
        # tick labels on the left column and on the lowest panel of each column only
        ax.tick_params(labelleft=i % ncol == 0, labelbottom=i + ncol >= n)
    return fig, axes.ravel()[:n]


def bin_width(report: Report) -> int:
    """The report's histogram bin width: the widest Freedman–Diaconis width over the
    strategies' simulated games, so that every panel has the same bins."""
    return max(freedman_diaconis_width(report.sims[s].histogram) for s in report.ranked)


def distributions_figure(report: Report):
    """One panel per strategy (best first): its simulated histogram in its colour and,
    for a deterministic strategy, its exact law summed over the same bins (black).

    Returns
    -------
    fig : matplotlib Figure
    drawn : pandas.DataFrame
        One row per strategy and bin: ``strategy``, ``low``, ``high`` (the scores the bin
        holds), ``simulated`` and ``exact`` (probability per point, as drawn).
    width : int
        The bin width in points.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    styles, width = report_styles(report), bin_width(report)
    fig, axes = _panels(len(report.ranked), 1.25)
    rows, right = [], 0.0
    for ax, sid in zip(axes, report.ranked, strict=True):
        hist = np.asarray(report.sims[sid].histogram, dtype=float)
        edges = score_bins(hist, width)
        law = report.laws.get(sid)
        plots.plot_score_histogram(
            {sid: report.sims[sid]},
            {sid: law} if law is not None else None,
            ax=ax,
            bins=edges,
            styles=styles,
            legend=False,
        )
        right = max(right, ax.get_xlim()[1])  # the axes are shared: the widest wins
        ax.set_title(sid, fontsize="medium", pad=2)
        exact = binned(law.pmf, edges) / width if law is not None else np.nan
        rows.append(
            pd.DataFrame(
                {
                    "strategy": sid,
                    "low": (edges[:-1] + 0.5).astype(np.int64),
                    "high": (edges[1:] - 0.5).astype(np.int64),
                    "simulated": binned(hist, edges) / hist.sum() / width,
                    "exact": exact,
                }
            )
        )
    axes[0].set_xlim(0, right)
    for ax in axes:
        ax.set_xlabel("")
        ax.set_ylabel("")
    fig.supxlabel(f"final score ({width}-point bins)", fontsize="medium")
    fig.supylabel("probability per point", fontsize="medium")
    fig.legend(
        handles=[
            Patch(color="0.6", alpha=0.6, label=f"simulated, {width}-point bins"),
            Line2D([], [], color=REFERENCE_COLOR, lw=0.9, label="exact law, same bins"),
        ],
        loc="outside upper center",
        ncol=2,
    )
    return fig, pd.concat(rows, ignore_index=True), width


def survival_figure(report: Report):
    """One panel per strategy (best first): its survival curve in its colour over the
    reference's (black) and the other strategies' (grey).

    Returns
    -------
    fig : matplotlib Figure
    curves : pandas.DataFrame
        P(final score ≥ x), one column per strategy, one row per score.
    """
    styles = report_styles(report)
    curves = pd.DataFrame({sid: pd.Series(report.survival(sid)) for sid in report.ranked})
    curves = curves.fillna(0.0)
    curves.index.name = "score"
    above = np.flatnonzero((curves.to_numpy() > 1e-3).any(axis=1))
    last = int(above[-1]) if len(above) else 1
    xmax = last + max(2.0, 0.05 * last)
    fig, axes = _panels(len(report.ranked), 1.1)
    x = curves.index.to_numpy()
    for ax, sid in zip(axes, report.ranked, strict=True):
        for other in report.ranked:
            if other not in (sid, REFERENCE):
                ax.step(x, curves[other], where="post", color=BACKGROUND_COLOR, lw=0.5)
        if REFERENCE in curves and sid != REFERENCE:
            ax.step(x, curves[REFERENCE], where="post", **styles[REFERENCE].line())
        ax.step(x, curves[sid], where="post", **_outlined(styles[sid]))
        ax.set_title(sid, fontsize="medium", pad=2)
    axes[0].set_xlim(0, xmax)
    axes[0].set_ylim(0, 1.02)
    fig.supxlabel("final score x", fontsize="medium")
    fig.supylabel("P(final score ≥ x)", fontsize="medium")
    return fig, curves


def _outlined(style: StrategyStyle) -> dict:
    """Line keywords of a panel's own strategy: solid, thick, with a dark outline that
    keeps a light colour apart from the grey lines when printed in grey."""
    from matplotlib import patheffects

    width = 1.4
    return {
        **style.line(),
        "linestyle": "-",
        "linewidth": width,
        "path_effects": [
            patheffects.Stroke(linewidth=width + 1.0, foreground="#333333"),
            patheffects.Normal(),
        ],
    }


def box_means_figure(report: Report):
    """Mean points per box of every strategy against optimal play's exact means (bars);
    draws ``boxes_mean.csv``."""
    import matplotlib.pyplot as plt

    table = report.box_tables["mean"]
    exact_ref = f"{REFERENCE} (exact)"
    fig, ax = plt.subplots(
        figsize=(FULL_WIDTH, 0.2 * report.rules.n_boxes + 1.2), layout="constrained"
    )
    plots.plot_box_means(
        table,
        reference=exact_ref if exact_ref in table else REFERENCE,
        ax=ax,
        styles=report_styles(report),
    )
    return fig
