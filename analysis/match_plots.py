"""Plots of matches and objectives: the head-to-head win matrix, target-score play,
risk-sensitive play and the win sweep (also importable from
:mod:`yahtzee_sim.analysis.plots`)."""

from __future__ import annotations

import numpy as np

from yahtzee_sim.analysis.plot_axes import integer_ticks, legend_above, new_axes
from yahtzee_sim.analysis.style import FONT_SIZE, FULL_WIDTH, HIGHLIGHT_COLORS, REFERENCE_COLOR


def plot_win_matrix(matrix, ax=None, title: str | None = None, fmt: str = ".2f"):
    """Heatmap of P(row beats column) (ties count half); entries printed with ``fmt``
    (without the leading 0 past three strategies), in the largest font up to
    :data:`~yahtzee_sim.analysis.style.FONT_SIZE` that fits the cells at the figure's
    size (none below 5 points). Values within 0.1 of 1/2 get a scale centred on 1/2, so
    that small edges show. No title unless ``title``: the colour bar names the value."""
    ax = new_axes(ax, 5.5)
    m = np.asarray(matrix, dtype=float)
    spread = np.nanmax(np.abs(m - 0.5)) if np.isfinite(m).any() else 0.5
    lo, hi = (0.0, 1.0) if spread > 0.1 else (0.5 - spread, 0.5 + spread)
    im = ax.imshow(m, cmap="cividis", vmin=lo, vmax=hi)
    labels = list(matrix.index)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(labels)), labels)
    ax.spines[:].set_visible(False)
    texts = []
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if i != j:
                text = format(m[i, j], fmt)
                texts.append(
                    ax.text(
                        j,
                        i,
                        text.replace("0.", ".", 1) if len(m) > 3 and text[:2] == "0." else text,
                        ha="center",
                        va="center",
                        fontsize=FONT_SIZE,
                        color="white" if m[i, j] < (lo + hi) / 2 else "black",
                    )
                )
    if title:
        ax.set_title(title)
    bar = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("P(row beats column)")
    _fit_cells(ax, texts)
    return ax


def _fit_cells(ax, texts) -> None:
    """Shrink the cell labels ``texts`` of a heatmap to fit its cells at the figure's size
    (drawn once to measure), or drop them below 5 points."""
    if not texts:
        return
    fig = ax.figure
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    (x0, _), (x1, _) = ax.transData.transform([(0, 0), (1, 0)])
    widest = max(t.get_window_extent(renderer).width for t in texts)
    tallest = max(t.get_window_extent(renderer).height for t in texts)
    size = FONT_SIZE * min(1.0, 0.85 * abs(x1 - x0) / widest, 0.8 * abs(x1 - x0) / tallest)
    for t in texts:
        if size < 5:
            t.remove()
        else:
            t.set_fontsize(np.floor(size * 2) / 2)


# ------------------------------------------------------------------ objectives
def plot_target_curve(curve, optimal=None, ax=None, title: str | None = None):
    """P*(final score >= β) of target-score play against β, with max-EV play's
    P(final score >= β) for comparison (Tillius 2026 §4); no title unless ``title``."""
    ax = new_axes(ax)
    curve = np.asarray(curve, dtype=float)
    beta = np.arange(len(curve))
    ax.plot(beta, curve, color=HIGHLIGHT_COLORS[0], label="target play: max P(score ≥ β)")
    if optimal is not None:
        opt = np.asarray(optimal, dtype=float)
        ax.plot(
            np.arange(len(opt)),
            opt,
            color=REFERENCE_COLOR,
            linestyle="--",
            label="max-EV play: P(score ≥ β)",
        )
    nz = np.flatnonzero(curve > 1e-6)
    if len(nz):
        ax.set_xlim(0, nz[-1] + 10)
    ax.set_xlabel("target final score β")
    integer_ticks(ax.xaxis)
    ax.set_ylabel("probability of reaching β")
    if title:
        ax.set_title(title)
    legend_above(ax)
    return ax


def plot_risk_frontier(rows, axes=None, title: str | None = None):
    """The frontier of risk-sensitive play: mean against SD and mean against the 10th
    percentile, one point per θ (``rows``: dicts with theta, mean, sd, p10), max-EV
    play (θ = 0) marked; no title unless ``title`` (above the left panel)."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(FULL_WIDTH, 3.0), layout="constrained")
    rows = sorted(rows, key=lambda r: r["theta"])
    for ax, key, label in zip(
        axes, ("sd", "p10"), ("standard deviation", "10th percentile"), strict=True
    ):
        x = [r[key] for r in rows]
        y = [r["mean"] for r in rows]
        ax.plot(
            x, y, color=HIGHLIGHT_COLORS[0], marker="o", markersize=4, label="risk:θ (θ beside)"
        )
        for r in rows:
            if r["theta"] == 0:
                ax.plot(r[key], r["mean"], "s", color=REFERENCE_COLOR, label="max-EV (θ = 0)")
        _label_points(ax, x, y, [f"{r['theta']:g}" for r in rows])
        ax.set_xlabel(label)
        ax.set_ylabel("mean score")
        legend_above(ax)
    if title:
        axes[0].set_title(title)
    return axes


def _label_points(ax, x, y, texts) -> None:
    """Write ``texts`` beside the points of the line through ``x, y``: a little off the
    line, at right angles to it (to its lower right), so that no label sits on it."""
    ax.autoscale_view()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    p = np.column_stack([(np.asarray(x) - x0) / (x1 - x0), (np.asarray(y) - y0) / (y1 - y0)])
    for k, text in enumerate(texts):
        d = p[min(k + 1, len(p) - 1)] - p[max(k - 1, 0)]
        d = d / (np.hypot(*d) or 1.0)
        n = np.array([d[1], -d[0]]) if len(p) > 1 else np.array([0.7, -0.7])
        ax.annotate(
            text,
            (x[k], y[k]),
            xytext=tuple(7 * n),
            textcoords="offset points",
            ha="left" if n[0] >= 0 else "right",
            va="top" if n[1] <= 0 else "bottom",
        )


def plot_win_sweep(rows, ax=None, title: str | None = None):
    """P(win) of the best response against ``N - 1`` max-EV players, against 1/N, for
    each match size N (``rows``: dicts with players, win_probability), log-log."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax = new_axes(ax)
    n = np.array([r["players"] for r in rows], dtype=float)
    p = np.array([r["win_probability"] for r in rows])
    ax.loglog(n, p, marker="o", color=HIGHLIGHT_COLORS[0], label="best response win:N")
    ax.loglog(n, 1 / n, linestyle="--", color=REFERENCE_COLOR, label="1/N (max-EV play)")
    ax.set_xlabel("players N")
    ax.set_ylabel("P(win)")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # players: 2, 5, 10
    ax.xaxis.set_minor_formatter(NullFormatter())
    if title:
        ax.set_title(title)
    legend_above(ax)
    return ax
