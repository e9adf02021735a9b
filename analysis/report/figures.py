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
from yahtzee_sim.analysis.plot_axes import integer_ticks
from yahtzee_sim.analysis.report.build import REFERENCE, Report
from yahtzee_sim.analysis.style import (
    BACKGROUND_COLOR,
    FONT_SIZE,
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
    """A full-width grid of ``n`` panels sharing both axes, each with its score tick
    labels; the spare ones hidden."""
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
        # score tick labels under every panel (none left without), probabilities on the left
        ax.tick_params(labelleft=i % ncol == 0, labelbottom=True)
    return fig, axes.ravel()[:n]


def panel_label(ax, strategy: str, inside: bool = True) -> None:
    """Name the panel ``ax`` after ``strategy``: inside its upper right corner (where a
    score's histogram and survival curve are low), broken at hyphens into lines that fit
    half the panel, or, with ``inside`` false (the data reach that corner), above the
    panel at its left; also the axes' label (``ax.get_label()``)."""
    ax.set_label(strategy)
    width_pt = ax.get_position().width * ax.figure.get_figwidth() * 72
    per_line = max(8, int((0.55 if inside else 0.95) * width_pt / (0.6 * FONT_SIZE)))
    lines, line = [], ""
    for part in strategy.replace("-", "-\x00").split("\x00"):
        if line and len(line) + len(part) > per_line:
            lines.append(line)
            line = ""
        line += part
    where = {"xy": (0.98, 0.95), "ha": "right", "va": "top", "xytext": (0, 0)}
    if not inside:
        where = {"xy": (0.0, 1.0), "ha": "left", "va": "bottom", "xytext": (0, 3)}
    ax.annotate(
        "\n".join([*lines, line]),
        xycoords="axes fraction",
        textcoords="offset points",
        linespacing=1.1,
        annotation_clip=False,
        **where,
    )


def _corner_free(curves, x: np.ndarray, top: float) -> bool:
    """Whether every curve (values at the scores ``x``) stays below half of ``top`` past
    55% of the score axis (where :func:`panel_label` writes inside a panel)."""
    right = x >= 0.55 * x.max()
    return all(float(np.nanmax(np.asarray(c)[right], initial=0.0)) < 0.5 * top for c in curves)


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
    drawn = pd.concat(rows, ignore_index=True)
    scores = np.arange(int(np.ceil(right)) + 1)
    heights = [
        np.interp(scores, g["high"], g[["simulated", "exact"]].max(axis=1), left=0, right=0)
        for _, g in drawn.groupby("strategy", sort=False)
    ]
    inside = _corner_free(heights, scores, axes[0].get_ylim()[1])
    for ax, sid in zip(axes, report.ranked, strict=True):
        panel_label(ax, sid, inside)
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
    return fig, drawn, width


def survival_figure(report: Report):
    """One panel per strategy (best first): its survival curve in its colour (solid,
    thick, outlined) over the reference's (black, dashed) and the other strategies'
    (grey).

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
            reference = {**styles[REFERENCE].line(), "linestyle": "--", "linewidth": 1.0}
            ax.step(x, curves[REFERENCE], where="post", label=REFERENCE, **reference)
        ax.step(x, curves[sid], where="post", label=sid, **_outlined(styles[sid]))
    shown = x <= xmax
    inside = _corner_free([curves[c].to_numpy()[shown] for c in curves], x[shown], 1.02)
    for ax, sid in zip(axes, report.ranked, strict=True):
        panel_label(ax, sid, inside)
    axes[0].set_xlim(0, xmax)
    integer_ticks(axes[0].xaxis)  # scores
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
    """Mean points per box of every strategy against optimal play's exact means (bars),
    the boxes by their labels (``Three of a kind``); draws ``boxes_mean.csv``."""
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
        labels=dict(zip(report.rules.box_names, report.rules.box_labels, strict=True)),
    )
    return fig
