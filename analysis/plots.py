"""Plots. Every function draws on a Matplotlib ``ax`` it is given (or a new full-width
one) and returns it. Functions about strategies take one result or many (a list, or a
dict keyed by label), draw each strategy in its style of
:func:`~yahtzee_sim.analysis.style.strategy_styles` (a caller's ``styles`` or ``color``
wins) and draw the legend. Histograms bin the scores with :func:`score_bins`."""

from __future__ import annotations

import numpy as np

from yahtzee_sim.analysis.bins import binned, score_bins
from yahtzee_sim.analysis.style import (
    BACKGROUND_COLOR,
    FULL_WIDTH,
    HIGHLIGHT_COLORS,
    REFERENCE_COLOR,
    StrategyStyle,
    strategy_styles,
)

#: The Okabe–Ito colour-blind-safe palette (Okabe & Ito 2008); strategies take their
#: colours from :func:`~yahtzee_sim.analysis.style.strategy_styles`.
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


def legend_outside(ax, fontsize=None):
    """The legend to the right of the axes, clear of the data (one column; two past
    16 entries); constrained layout makes room for it."""
    n = len(ax.get_legend_handles_labels()[1])
    return ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
        fontsize=fontsize,
        ncol=1 if n <= 16 else 2,
    )


def _axes(ax, height: float = 3.2):
    """``ax``, or the axes of a new full-width figure with constrained layout."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(FULL_WIDTH, height), layout="constrained")
    return ax


def _labelled(results, label: str | None = None) -> dict:
    """``{label: result}`` from one result, a list (labels: each ``strategy``) or a dict."""
    if isinstance(results, dict):
        return dict(results)
    if isinstance(results, list | tuple):
        return {_name(r): r for r in results}
    return {label or _name(results): results}


def _right_end(score: float) -> float:
    """The right end of a score axis that reaches ``score``: 5% more (at least 2 points)."""
    return score + max(2.0, 0.05 * score)


def _name(result) -> str:
    """A result's strategy label."""
    return str(getattr(result, "strategy", None) or getattr(result, "label", "strategy"))


def _styles(labels, styles=None, color=None, highlight=()) -> dict[str, StrategyStyle]:
    """The style of each label: ``styles`` where given, else :func:`strategy_styles`;
    ``color`` replaces every colour; with ``highlight``, the others in grey."""
    from dataclasses import replace

    default = strategy_styles(labels, highlight=highlight)
    out = {s: (styles or {}).get(s, default[s]) for s in labels}
    if highlight:
        out = {
            s: st if s in highlight or st.role == "reference" else st.background()
            for s, st in out.items()
        }
    if color is not None:
        out = {s: replace(st, color=color) for s, st in out.items()}
    return out


def _histogram(result) -> np.ndarray:
    hist = getattr(result, "histogram", None)
    if hist is None:
        hist = np.bincount(np.asarray(result.total, dtype=np.int64))
    return np.asarray(hist, dtype=np.float64)


# ------------------------------------------------------------------ distributions
def plot_pmf(
    results,
    ax=None,
    label: str | None = None,
    color: str | None = None,
    survival: bool = False,
    styles: dict | None = None,
    highlight=(),
):
    """Exact distribution of the final score (or P(score ≥ x) with ``survival``), one
    line per strategy, each mean marked by a dotted line of its colour.

    Parameters
    ----------
    results : ExactResult, list or dict of them
        From :func:`yahtzee_sim.exact.laws.evaluate` (with the pmf).
    ax : matplotlib Axes, optional
    label : str, optional
        The label of a single result (default: its strategy).
    color : str, optional
        One colour for every line (default: the strategies' styles).
    survival : bool
        Plot the survival curve P(score ≥ x) instead of the pmf.
    styles : dict, optional
        ``{label: StrategyStyle}`` replacing the default styles.
    highlight : sequence of str
        Strategies asked about: the others drawn in grey behind them.
    """
    ax = _axes(ax)
    laws = _labelled(results, label)
    look = _styles(list(laws), styles, color, highlight)
    hi = 0
    for name, law in laws.items():
        x = np.arange(len(law.pmf))
        line = look[name].line()
        if survival:
            ax.step(x, law.survival(), where="post", label=name, **line)
        else:
            ax.plot(x, law.pmf, label=f"{name} (mean {law.mean:.2f})", **line)
            ax.axvline(law.mean, color=line["color"], ls=":", lw=0.8, zorder=line["zorder"])
        hi = max(hi, law.percentile(99.9))
    ax.set_xlim(0, _right_end(hi))
    ax.set_xlabel("final score")
    ax.set_ylabel("P(final score ≥ x)" if survival else "probability")
    rules = {law.rules.name for law in laws.values()}
    kind = "Survival" if survival else "Distribution"
    ax.set_title(f"{kind} of the final score" + (f" — {rules.pop()}" if len(rules) == 1 else ""))
    ax.legend()
    return ax


def plot_score_histogram(
    results,
    exact=None,
    ax=None,
    label: str | None = None,
    color: str | None = None,
    legend: bool = True,
    bins=None,
    styles: dict | None = None,
):
    """Histogram of simulated final scores (probability per point), with the exact law
    overlaid, binned with exactly the same bins, when given.

    Parameters
    ----------
    results : Results, Aggregate, list or dict of them
        Simulated games (anything with a score ``histogram`` or ``total`` array).
    exact : ExactResult or dict of them, optional
        The exact laws (with the pmf), keyed like ``results``; drawn as step lines (black
        for one strategy, else in the strategy's colour).
    ax : matplotlib Axes, optional
    label, color : str, optional
        The label of a single result; one colour for every strategy.
    legend : bool
        Draw a legend in the axes (off in small multiples, which share one legend).
    bins : int or array, optional
        The bin width in points, or the edges; default :func:`score_bins` of each
        strategy's games (Freedman–Diaconis).
    styles : dict, optional
        ``{label: StrategyStyle}`` replacing the default styles.
    """
    ax = _axes(ax)
    sims = _labelled(results, label)
    laws = exact if isinstance(exact, dict) else {next(iter(sims)): exact} if exact else {}
    look = _styles(list(sims), styles, color)
    hi, widths = 0, set()
    for name, sim in sims.items():
        hist = _histogram(sim)
        edges = np.asarray(bins, float) if np.ndim(bins) == 1 else score_bins(hist, bins)
        width = edges[1] - edges[0]
        widths.add(f"{width:g}")
        c, n = look[name].color, hist.sum()
        who = f"{name}, " if len(sims) > 1 else ""
        ax.stairs(
            binned(hist, edges) / n / width,
            edges,
            fill=True,
            color=c,
            alpha=0.45,
            lw=0,
            label=f"{who}simulated ({int(n):,} games)",
        )
        hi = max(hi, edges[np.searchsorted(edges, np.searchsorted(np.cumsum(hist), 0.999 * n))])
        law = laws.get(name)
        if law is not None and law.pmf is not None:
            ink = REFERENCE_COLOR if len(sims) == 1 else c
            p = binned(law.pmf, edges) / width
            ax.stairs(p, edges, color=ink, lw=1.0, label=f"{who}exact law, same bins")
            hi = max(hi, law.percentile(99.9))
    ax.set_xlim(0, _right_end(hi))
    ax.set_xlabel(f"final score ({' and '.join(sorted(widths))}-point bins)")
    ax.set_ylabel("probability per point")
    if label and len(sims) == 1:
        ax.set_title(label)
    if legend:
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.01), ncol=1, borderaxespad=0)
    return ax


def plot_survival(
    curves, ax=None, xmax: int | None = None, styles: dict | None = None, highlight=()
):
    """Survival curves P(final score ≥ x), one per strategy.

    ``curves`` maps a label to an array ``s`` with ``s[x]`` = P(score ≥ x) (or to a result
    with a ``survival()`` method). With ``highlight``, the strategies not asked about are
    drawn in grey behind them and share one legend entry. ``styles``: as
    :func:`plot_pmf`.
    """
    from matplotlib.lines import Line2D

    ax = _axes(ax)
    look = _styles(list(curves), styles, None, highlight)
    hi = 0
    for name, s in curves.items():
        s = np.asarray(s.survival() if hasattr(s, "survival") else s)
        shown = look[name].role != "other" or not highlight
        ax.step(
            np.arange(len(s)), s, where="post", label=name if shown else None, **look[name].line()
        )
        above = np.flatnonzero(s > 1e-3)
        hi = max(hi, int(above[-1]) if len(above) else 0)
    handles, labels = ax.get_legend_handles_labels()
    if highlight and len(handles) < len(curves):
        handles.append(Line2D([], [], color=BACKGROUND_COLOR, lw=0.7))
        labels.append("other strategies")
    ax.set_xlim(0, xmax or _right_end(hi))
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("score x")
    ax.set_ylabel("P(final score ≥ x)")
    ax.set_title("Survival curves of the final score")
    if len(labels) > 8:
        legend_outside(ax)
    else:
        ax.legend(handles, labels, loc="upper right")
    return ax


# ------------------------------------------------------------------ boxes, regret
def plot_box_means(frame, reference: str | None = "optimal", ax=None, styles: dict | None = None):
    """Mean points per box: one marker per strategy (columns of ``frame``, boxes as
    rows), the ``reference`` column drawn as grey bars."""
    ax = _axes(ax, 4.5)
    y = np.arange(len(frame.index))
    if reference in frame.columns:
        ax.barh(y, frame[reference], color="0.85", label=f"{reference}, reference")
    others = [c for c in frame.columns if c != reference]
    look = _styles(others, styles)
    for col in others:
        ax.plot(frame[col], y, label=col, **look[col].points())
    ax.set_yticks(y, frame.index)
    ax.invert_yaxis()
    ax.set_xlabel("mean points in the box")
    ax.set_title("Points per box against the reference")
    legend_outside(ax)
    return ax


def plot_regret_by_turn(frame, ax=None, styles: dict | None = None):
    """Expected points lost against optimal play in each turn, one line per strategy
    (columns of ``frame``, turns as the index)."""
    ax = _axes(ax)
    look = _styles(list(frame.columns), styles)
    for label, col in frame.items():
        st = look[label]
        ax.plot(col.index, col.values, marker=st.marker, ms=3, label=label, **st.line())
    ax.set_xlabel("turn")
    ax.set_ylabel("expected points lost")
    ax.set_title("Expected loss against optimal play by turn")
    legend_outside(ax)
    return ax


def plot_regret(results, ax=None, color: str | None = None):
    """Expected loss against optimal play by turn: bars for one
    :class:`~yahtzee_sim.analysis.decisions.regret.RegretResult`, one line per strategy
    (:func:`plot_regret_by_turn`) for a list or dict of them."""
    import pandas as pd

    regrets = _labelled(results)
    if len(regrets) > 1 or not hasattr(results, "by_turn"):
        frame = pd.DataFrame({k: r.by_turn for k, r in regrets.items()})
        return plot_regret_by_turn(frame, ax=ax)
    ax = _axes(ax)
    name, r = next(iter(regrets.items()))
    ax.bar(r.by_turn.index, r.by_turn.values, color=color or _styles([name])[name].color)
    ax.set_xlabel("turn")
    ax.set_ylabel("expected points lost")
    ax.set_title(f"{name}: expected loss against optimal by turn (total {r.total:.2f})")
    return ax


# ------------------------------------------------------------------ selection, ranking
def plot_kn_trace(kn, ax=None, styles: dict | None = None):
    """Kim–Nelson elimination trace: each system's running mean by stage, ending where
    it was eliminated (×)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax = _axes(ax)
    groups = list(kn.trace.groupby("system", sort=False))
    look = _styles([name for name, _ in groups], styles)
    for name, g in groups:
        ax.plot(g["stage"], g["mean"], label=name, **look[name].line())
        last = g.iloc[-1]
        if name not in kn.winners:
            ax.plot(last["stage"], last["mean"], "x", color=look[name].color)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 20, not 2×10¹
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("stage (observations)")
    ax.set_ylabel("running mean")
    ax.set_title("Kim–Nelson selection: running means until elimination (×)")
    legend_outside(ax)
    return ax


def plot_ranking(table, ax=None, styles: dict | None = None, title: str | None = None):
    """Means in rank order with their simultaneous intervals and tiers.

    Parameters
    ----------
    table : pandas.DataFrame
        Indexed by strategy id, best first, with columns ``mean``, ``low``, ``high`` (the
        simultaneous interval; equal to ``mean`` for an exact strategy), ``tier`` (letter
        display: strategies sharing a letter cannot be told apart) and ``exact`` (bool).
    ax : matplotlib Axes, optional
    styles : dict, optional
        ``{strategy: StrategyStyle}`` replacing the default styles.
    title : str, optional
        A title above the axes (none by default: the caption says it).

    Returns
    -------
    matplotlib Axes
        One row per strategy, best on top: a point and its interval (simulated) or a
        diamond without interval (exact mean), the tier letters at the right margin, the
        legend in two free rows above the best.
    """
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    ax = _axes(ax, 0.22 * len(table) + 1.0)
    look = _styles(list(table.index), styles)
    y = np.arange(len(table))
    right = blended_transform_factory(ax.transAxes, ax.transData)
    for i, (sid, row) in enumerate(table.iterrows()):
        c = look[sid].color
        if row["exact"]:
            ax.plot(row["mean"], i, "D", color=c, ms=4, zorder=3)
        else:
            err = [[row["mean"] - row["low"]], [row["high"] - row["mean"]]]
            ax.errorbar(row["mean"], i, xerr=err, fmt="o", color=c, ms=4, capsize=2, lw=1)
        ax.text(1.01, i, str(row["tier"]), transform=right, va="center", family="monospace")
    ax.set_yticks(y, list(table.index))
    ax.set_ylim(len(table) - 0.5, -2.1)  # two free rows on top hold the legend
    ax.set_xlabel("mean final score")
    ax.text(1.01, -1, "tier", transform=right, va="center", family="monospace")
    if title:
        ax.set_title(title)
    handles = [
        Line2D([], [], color="0.3", marker="o", ms=4, label="simultaneous interval"),
        Line2D([], [], color="0.3", marker="D", ls="none", ms=4, label="exact mean"),
    ]
    ax.legend(handles=handles, loc="upper left", borderaxespad=0.2)
    ax.grid(axis="x", color="0.9", lw=0.5)
    return ax


def plot_win_matrix(
    matrix, ax=None, title: str = "P(row beats column), blind two-player game", fmt: str = ".2f"
):
    """Heatmap of P(row beats column) (ties count half); entries printed with ``fmt``.
    Values within 0.1 of 1/2 get a scale centred on 1/2, so that small edges show."""
    ax = _axes(ax, 5.5)
    m = np.asarray(matrix, dtype=float)
    spread = np.nanmax(np.abs(m - 0.5)) if np.isfinite(m).any() else 0.5
    lo, hi = (0.0, 1.0) if spread > 0.1 else (0.5 - spread, 0.5 + spread)
    im = ax.imshow(m, cmap="cividis", vmin=lo, vmax=hi)
    labels = list(matrix.index)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.spines[:].set_visible(False)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if i != j:
                ax.text(
                    j,
                    i,
                    format(m[i, j], fmt).lstrip("0") if len(m) > 8 else format(m[i, j], fmt),
                    ha="center",
                    va="center",
                    fontsize=8 if len(m) > 6 else 9,
                    color="white" if m[i, j] < (lo + hi) / 2 else "black",
                )
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return ax


# ------------------------------------------------------------------ objectives
def plot_target_curve(curve, optimal=None, ax=None, title: str | None = None):
    """P*(final score >= β) of target-score play against β, with max-EV play's
    P(final score >= β) for comparison (Tillius 2026 §4)."""
    ax = _axes(ax)
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
        _, axes = plt.subplots(1, 2, figsize=(FULL_WIDTH, 3.0), layout="constrained")
    rows = sorted(rows, key=lambda r: r["theta"])
    for ax, key, label in zip(
        axes, ("sd", "p10"), ("standard deviation", "10th percentile"), strict=True
    ):
        x = [r[key] for r in rows]
        y = [r["mean"] for r in rows]
        ax.plot(x, y, color=HIGHLIGHT_COLORS[0], marker="o", markersize=4)
        for r in rows:
            if r["theta"] == 0:
                ax.plot(r[key], r["mean"], "s", color=REFERENCE_COLOR, label="max-EV (θ = 0)")
            ax.annotate(
                f"{r['theta']:g}",
                (r[key], r["mean"]),
                xytext=(3, 3),
                textcoords="offset points",
            )
        ax.set_xlabel(label)
        ax.set_ylabel("mean score")
        ax.legend()
    axes[0].set_title(title or "Risk-sensitive play (labels: θ)")
    return axes


def plot_win_sweep(rows, ax=None, title: str | None = None):
    """P(win) of the best response against ``N - 1`` max-EV players, against 1/N, for
    each match size N (``rows``: dicts with players, win_probability), log-log."""
    ax = _axes(ax)
    n = np.array([r["players"] for r in rows], dtype=float)
    p = np.array([r["win_probability"] for r in rows])
    ax.loglog(n, p, marker="o", color=HIGHLIGHT_COLORS[0], label="best response win:N")
    ax.loglog(n, 1 / n, linestyle="--", color=REFERENCE_COLOR, label="1/N (max-EV play)")
    ax.set_xlabel("players N")
    ax.set_ylabel("P(win)")
    ax.set_title(title or "Best response against N − 1 max-EV players")
    ax.legend()
    return ax
