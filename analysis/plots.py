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


def legend_outside(ax, fontsize: str = "small"):
    """The legend to the right of the axes, clear of the data (one column; two past
    16 entries). Leave room for it: a wider figure and ``tight_layout``."""
    n = len(ax.get_legend_handles_labels()[1])
    return ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
        fontsize=fontsize,
        ncol=1 if n <= 16 else 2,
    )


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4.5))
    return ax


def plot_pmf(
    result, ax=None, label: str | None = None, color: str | None = None, survival: bool = False
):
    """Exact distribution of the final score (or P(score ≥ x) with ``survival``).

    Parameters
    ----------
    result : ExactResult
        From :func:`yahtzee_sim.exact.laws.evaluate` (with the pmf).
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


def plot_score_histogram(
    result,
    exact=None,
    ax=None,
    label: str | None = None,
    color: str | None = None,
    legend: bool = True,
):
    """Histogram of simulated final scores, with the exact pmf overlaid when given.

    Parameters
    ----------
    result : Results or Aggregate
        Simulated games (anything with a score ``histogram`` or ``total`` array).
    exact : ExactResult, optional
        The strategy's exact law (with the pmf), drawn as a line.
    ax : matplotlib Axes, optional
    label, color : str, optional
    legend : bool
        Draw a legend in the axes (off in small multiples, which share one legend).
    """
    ax = _axes(ax)
    color = color or PALETTE[0]
    hist = _histogram(result)
    n = hist.sum()
    edges = np.arange(len(hist) + 1) - 0.5
    ax.stairs(
        hist / n,
        edges,
        fill=True,
        color=color,
        alpha=0.45,
        label=f"{label or ''} simulated ({int(n):,} games)".strip(),
    )
    hi = int(np.searchsorted(np.cumsum(hist), 0.999 * n)) + 10
    if exact is not None and exact.pmf is not None:
        ax.plot(np.arange(len(exact.pmf)), exact.pmf, color="black", lw=0.9, label="exact")
        hi = max(hi, exact.percentile(99.9) + 10)
    ax.set_xlim(0, max(hi, 50))
    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    if label:
        ax.set_title(label)
    if legend:
        ax.legend(frameon=False, fontsize="small")
    return ax


def _histogram(result) -> np.ndarray:
    hist = getattr(result, "histogram", None)
    if hist is None:
        hist = np.bincount(np.asarray(result.total, dtype=np.int64))
    return np.asarray(hist, dtype=np.float64)


def plot_survival(curves: dict, ax=None, xmax: int | None = None):
    """Survival curves P(final score ≥ x), one per strategy.

    ``curves`` maps a label to an array ``s`` with ``s[x]`` = P(score ≥ x).
    """
    ax = _axes(ax)
    hi = 0
    for i, (label, s) in enumerate(curves.items()):
        s = np.asarray(s)
        x = np.arange(len(s))
        ax.step(
            x,
            s,
            where="post",
            color=PALETTE[i % len(PALETTE)],
            ls=("-", "--", ":", "-.")[(i // len(PALETTE)) % 4],
            label=label,
        )
        above = np.flatnonzero(s > 1e-3)
        hi = max(hi, int(above[-1]) if len(above) else 0)
    ax.set_xlim(0, xmax or hi + 10)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("score x")
    ax.set_ylabel("P(final score ≥ x)")
    ax.set_title("Survival curves of the final score")
    legend_outside(ax)
    return ax


def plot_box_means(frame, reference: str | None = "optimal", ax=None):
    """Mean points per box: one marker per strategy (columns of ``frame``, boxes as
    rows), the ``reference`` column drawn as bars."""
    ax = _axes(ax)
    y = np.arange(len(frame.index))
    if reference in frame.columns:
        ax.barh(y, frame[reference], color="0.85", label=f"{reference} (reference)")
    others = [c for c in frame.columns if c != reference]
    markers = "os^vD<>PX*"
    for i, col in enumerate(others):
        ax.plot(
            frame[col],
            y,
            ls="none",
            marker=markers[i % len(markers)],
            ms=4,
            color=PALETTE[i % len(PALETTE)],
            label=col,
        )
    ax.set_yticks(y, frame.index)
    ax.invert_yaxis()
    ax.set_xlabel("mean points in the box")
    ax.set_title("Points per box against the reference")
    legend_outside(ax)
    return ax


def plot_kn_trace(kn, ax=None):
    """Kim–Nelson elimination trace: each system's running mean by stage, ending where
    it was eliminated."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax = _axes(ax)
    trace = kn.trace
    for i, (name, g) in enumerate(trace.groupby("system", sort=False)):
        ax.plot(
            g["stage"],
            g["mean"],
            color=PALETTE[i % len(PALETTE)],
            ls=("-", "--", ":")[(i // len(PALETTE)) % 3],
            label=name,
        )
        last = g.iloc[-1]
        if name not in kn.winners:
            ax.plot(last["stage"], last["mean"], "x", color=PALETTE[i % len(PALETTE)])
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 20, not 2×10¹
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("stage (observations)")
    ax.set_ylabel("running mean")
    ax.set_title("Kim–Nelson selection: running means until elimination (×)")
    legend_outside(ax)
    return ax


def plot_regret_by_turn(frame, ax=None):
    """Expected points lost against optimal play in each turn, one line per strategy
    (columns of ``frame``, turns as the index)."""
    ax = _axes(ax)
    for i, (label, col) in enumerate(frame.items()):
        ax.plot(
            col.index,
            col.values,
            marker="o",
            ms=3,
            label=label,
            color=PALETTE[i % len(PALETTE)],
            ls=("-", "--", ":")[(i // len(PALETTE)) % 3],
        )
    ax.set_xlabel("turn")
    ax.set_ylabel("expected points lost")
    ax.set_title("Expected loss against optimal play by turn")
    legend_outside(ax)
    return ax


def plot_win_matrix(
    matrix, ax=None, title: str = "P(row beats column), blind two-player game", fmt: str = ".2f"
):
    """Heatmap of P(row beats column) (ties count half); entries printed with ``fmt``.
    Values within 0.1 of 1/2 get a scale centred on 1/2, so that small edges show."""
    ax = _axes(ax)
    m = np.asarray(matrix, dtype=float)
    spread = np.nanmax(np.abs(m - 0.5)) if np.isfinite(m).any() else 0.5
    lo, hi = (0.0, 1.0) if spread > 0.1 else (0.5 - spread, 0.5 + spread)
    im = ax.imshow(m, cmap="cividis", vmin=lo, vmax=hi)
    labels = list(matrix.index)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize="small")
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if i != j:
                ax.text(
                    j,
                    i,
                    format(m[i, j], fmt),
                    ha="center",
                    va="center",
                    fontsize=6 if len(m) > 6 else 9,
                    color="white" if m[i, j] < (lo + hi) / 2 else "black",
                )
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return ax


def plot_regret(result, ax=None):
    """Expected loss against optimal play by turn (one bar per turn)."""
    ax = _axes(ax)
    s = result.by_turn
    ax.bar(s.index, s.values, color=PALETTE[3])
    ax.set_xlabel("turn")
    ax.set_ylabel("expected points lost")
    ax.set_title(
        f"{result.strategy}: expected loss against optimal by turn (total {result.total:.2f})"
    )
    return ax


def plot_target_curve(curve, optimal=None, ax=None, title: str | None = None):
    """P*(final score >= β) of target-score play against β, with max-EV play's
    P(final score >= β) for comparison (Tillius 2026 §4)."""
    ax = _axes(ax)
    curve = np.asarray(curve, dtype=float)
    beta = np.arange(len(curve))
    ax.plot(beta, curve, color=PALETTE[0], label="target play: max P(score ≥ β)")
    if optimal is not None:
        opt = np.asarray(optimal, dtype=float)
        ax.plot(
            np.arange(len(opt)),
            opt,
            color=PALETTE[1],
            linestyle="--",
            label="max-EV play: P(score ≥ β)",
        )
    nz = np.flatnonzero(curve > 1e-6)
    if len(nz):
        ax.set_xlim(0, nz[-1] + 10)
    ax.set_xlabel("target final score β")
    ax.set_ylabel("probability of reaching β")
    ax.set_title(title or "Target-score play")
    ax.legend()
    return ax


def plot_risk_frontier(rows, axes=None, title: str | None = None):
    """The frontier of risk-sensitive play: mean against SD and mean against the 10th
    percentile, one point per θ (``rows``: dicts with theta, mean, sd, p10), max-EV
    play (θ = 0) marked."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    rows = sorted(rows, key=lambda r: r["theta"])
    for ax, key, label in zip(
        axes, ("sd", "p10"), ("standard deviation", "10th percentile"), strict=True
    ):
        x = [r[key] for r in rows]
        y = [r["mean"] for r in rows]
        ax.plot(x, y, color=PALETTE[0], marker="o", markersize=4)
        for r in rows:
            if r["theta"] == 0:
                ax.plot(r[key], r["mean"], "s", color=PALETTE[1], label="max-EV (θ = 0)")
            ax.annotate(
                f"{r['theta']:g}",
                (r[key], r["mean"]),
                fontsize="x-small",
                xytext=(3, 3),
                textcoords="offset points",
            )
        ax.set_xlabel(label)
        ax.set_ylabel("mean score")
        ax.legend(fontsize="small")
    axes[0].set_title(title or "Risk-sensitive play (labels: θ)")
    return axes


def plot_win_sweep(rows, ax=None, title: str | None = None):
    """P(win) of the best response against ``N - 1`` max-EV players, against 1/N, for
    each match size N (``rows``: dicts with players, win_probability), log-log."""
    ax = _axes(ax)
    n = np.array([r["players"] for r in rows], dtype=float)
    p = np.array([r["win_probability"] for r in rows])
    ax.loglog(n, p, marker="o", color=PALETTE[0], label="best response win:N")
    ax.loglog(n, 1 / n, linestyle="--", color=PALETTE[1], label="1/N (max-EV play)")
    ax.set_xlabel("players N")
    ax.set_ylabel("P(win)")
    ax.set_title(title or "Best response against N − 1 max-EV players")
    ax.legend()
    return ax
