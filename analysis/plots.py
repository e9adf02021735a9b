"""Plots. Every function draws on a Matplotlib ``ax`` it is given (or a new full-width
one) and returns it, with no title (a caption says what a figure shows). Functions about
strategies take one result or many (a list, or a dict keyed by label), draw each strategy
in its style of :func:`~yahtzee_sim.analysis.style.strategy_styles` (a caller's
``styles`` or ``color`` wins), with its marker so that strategies stay apart in grey, and
draw the legend. Histograms bin the scores with :func:`score_bins`. The plots of matches
and objectives (:mod:`yahtzee_sim.analysis.match_plots`) are importable from here too."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgba

from yahtzee_sim.analysis.bins import binned, score_bins
from yahtzee_sim.analysis.match_plots import plot_risk_frontier as plot_risk_frontier
from yahtzee_sim.analysis.match_plots import plot_target_curve as plot_target_curve
from yahtzee_sim.analysis.match_plots import plot_win_matrix as plot_win_matrix
from yahtzee_sim.analysis.match_plots import plot_win_sweep as plot_win_sweep
from yahtzee_sim.analysis.plot_axes import (
    human_label,
    integer_ticks,
    legend_above,
    legend_outside,
    new_axes,
)
from yahtzee_sim.analysis.style import (
    BACKGROUND_COLOR,
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
#: Hatching of the simulated bars of several strategies in one histogram, in turn.
HATCHES = ("////", "\\\\\\\\", "....", "xxxx", "----", "++++")


def _marks(k: int) -> tuple[float, float]:
    """``markevery`` of the ``k``-th line of a plot of long lines: a marker every 12% of
    the axes' diagonal, staggered by line so that markers of lines on top of each other
    do not hide one another."""
    return (0.02 + 0.037 * (k % 3), 0.12)


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
    line per strategy with its markers, each mean marked by a dotted line of its colour.

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
    ax = new_axes(ax)
    laws = _labelled(results, label)
    look = _styles(list(laws), styles, color, highlight)
    hi = 0
    for k, (name, law) in enumerate(laws.items()):
        x = np.arange(len(law.pmf))
        line = look[name].marked_line(_marks(k))
        if survival:
            ax.step(x, law.survival(), where="post", label=name, **line)
        else:
            ax.plot(x, law.pmf, label=f"{name} (mean {law.mean:.2f})", **line)
            ax.axvline(law.mean, color=line["color"], ls=":", lw=0.8, zorder=line["zorder"])
        hi = max(hi, law.percentile(99.9))
    ax.set_xlim(0, _right_end(hi))
    ax.set_xlabel("final score")
    integer_ticks(ax.xaxis)
    ax.set_ylabel("P(final score ≥ x)" if survival else "probability")
    if survival:
        ax.set_ylim(0, 1.0)
    legend_above(ax)
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
        for one strategy, else in the strategy's colour and line style).
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
    ax = new_axes(ax)
    sims = _labelled(results, label)
    laws = exact if isinstance(exact, dict) else {next(iter(sims)): exact} if exact else {}
    look = _styles(list(sims), styles, color)
    hi, widths = 0, set()
    for k, (name, sim) in enumerate(sims.items()):
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
            facecolor=to_rgba(c, 0.45),
            edgecolor=c,
            hatch=HATCHES[k % len(HATCHES)] if len(sims) > 1 else None,
            lw=0,
            label=f"{who}simulated ({int(n):,} games)",
        )
        hi = max(hi, edges[np.searchsorted(edges, np.searchsorted(np.cumsum(hist), 0.999 * n))])
        law = laws.get(name)
        if law is not None and law.pmf is not None:
            ink = REFERENCE_COLOR if len(sims) == 1 else c
            p = binned(law.pmf, edges) / width
            ls = "-" if len(sims) == 1 else look[name].linestyle
            ax.stairs(p, edges, color=ink, lw=1.0, ls=ls, label=f"{who}exact law, same bins")
            hi = max(hi, law.percentile(99.9))
    ax.set_xlim(0, _right_end(hi))
    ax.set_xlabel(f"final score ({' and '.join(sorted(widths))}-point bins)")
    integer_ticks(ax.xaxis)
    ax.set_ylabel("probability per point")
    if legend:
        legend_above(ax)
    return ax


def plot_survival(
    curves, ax=None, xmax: int | None = None, styles: dict | None = None, highlight=()
):
    """Survival curves P(final score ≥ x), one per strategy, with its markers.

    ``curves`` maps a label to an array ``s`` with ``s[x]`` = P(score ≥ x) (or to a result
    with a ``survival()`` method). With ``highlight``, the strategies not asked about are
    drawn in grey behind them and share one legend entry. ``styles``: as
    :func:`plot_pmf`.
    """
    from matplotlib.lines import Line2D

    ax = new_axes(ax)
    look = _styles(list(curves), styles, None, highlight)
    hi = 0
    for k, (name, s) in enumerate(curves.items()):
        s = np.asarray(s.survival() if hasattr(s, "survival") else s)
        shown = look[name].role != "other" or not highlight
        line = look[name].marked_line(_marks(k)) if shown else look[name].line()
        ax.step(np.arange(len(s)), s, where="post", label=name if shown else None, **line)
        above = np.flatnonzero(s > 1e-3)
        hi = max(hi, int(above[-1]) if len(above) else 0)
    handles, labels = ax.get_legend_handles_labels()
    if highlight and len(handles) < len(curves):
        handles.append(Line2D([], [], color=BACKGROUND_COLOR, lw=0.7))
        labels.append("other strategies")
    ax.set_xlim(0, xmax or _right_end(hi))
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("score x")
    integer_ticks(ax.xaxis)
    ax.set_ylabel("P(final score ≥ x)")
    legend_above(ax, handles, labels)
    return ax


# ------------------------------------------------------------------ boxes, regret
def plot_box_means(
    frame,
    reference: str | None = "optimal",
    ax=None,
    styles: dict | None = None,
    labels=None,
):
    """Mean points per box: one marker per strategy (columns of ``frame``, boxes as
    rows, each strategy a little lower than the one before so that equal means stay
    apart), the ``reference`` column drawn as grey bars.

    ``labels`` maps a box name (``frame``'s index) to the label shown (e.g.
    ``dict(zip(rules.box_names, rules.box_labels))``); by default :func:`human_label`.
    """
    ax = new_axes(ax, 4.5)
    y = np.arange(len(frame.index))
    if reference in frame.columns:
        ax.barh(y, frame[reference], height=0.8, color="0.85", label=f"{reference}, reference")
    others = [c for c in frame.columns if c != reference]
    look = _styles(others, styles)
    step = 0.6 / max(len(others) - 1, 1)
    for k, col in enumerate(others):
        offset = (k - (len(others) - 1) / 2) * step if len(others) > 1 else 0.0
        ax.plot(frame[col], y + offset, label=col, **look[col].points())
    names = dict(labels or {})
    ax.set_yticks(y, [names.get(b, human_label(b)) for b in frame.index])
    ax.set_ylim(len(y) - 0.5, -0.5)
    ax.set_xlabel("mean points in the box")
    legend_outside(ax)
    return ax


def plot_regret_by_turn(frame, ax=None, styles: dict | None = None):
    """Expected points lost against optimal play in each turn, one line per strategy
    with its markers (columns of ``frame``, turns as the index)."""
    ax = new_axes(ax)
    look = _styles(list(frame.columns), styles)
    for label, col in frame.items():
        ax.plot(col.index, col.values, label=label, **look[label].marked_line())
    ax.set_xlabel("turn")
    ax.set_ylabel("expected points lost")
    integer_ticks(ax.xaxis, min(frame.index), max(frame.index))
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
    ax = new_axes(ax)
    name, r = next(iter(regrets.items()))
    ax.bar(r.by_turn.index, r.by_turn.values, color=color or _styles([name])[name].color)
    ax.set_xlabel("turn")
    ax.set_ylabel("expected points lost")
    integer_ticks(ax.xaxis, min(r.by_turn.index), max(r.by_turn.index))
    return ax


# ------------------------------------------------------------------ selection, ranking
def plot_kn_trace(kn, ax=None, styles: dict | None = None):
    """Kim–Nelson elimination trace: each system's running mean by stage (observations,
    log scale), a line in its style ending with its marker where the system left (the
    winner's at the last stage); the legend in the order the systems left, winner first."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax = new_axes(ax)
    groups = list(kn.trace.groupby("system", sort=False))
    groups.sort(key=lambda g: (-g[1]["stage"].max(), -g[1]["mean"].iloc[-1]))
    look = _styles([name for name, _ in groups], styles)
    for name, g in groups:
        ax.plot(g["stage"], g["mean"], label=name, **look[name].marked_line([len(g) - 1]))
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 20, not 2×10¹
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("stage (observations)")
    ax.set_ylabel("running mean")
    legend_outside(ax)
    return ax


def shows_gaps(table) -> bool:
    """Whether :func:`plot_ranking` draws ``table`` as points behind the best (its best,
    the first row, is exact and there are others), not as means."""
    return len(table) > 1 and bool(table["exact"].iloc[0])


def plot_ranking(table, ax=None, styles: dict | None = None, title: str | None = None):
    """Strategies in rank order with their simultaneous intervals and tiers.

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
        legend above the axes. When the best is exact
        (:func:`shows_gaps`), the axis is the points behind the best, on a log scale
        (linear near 0), so that a gap of half a point shows beside one of 150, and each
        gap is printed at the right margin; an interval is then the interval of the
        mean, moved by the best's exact mean. Otherwise the axis is the mean.
    """
    from matplotlib.lines import Line2D

    ax = new_axes(ax, 0.22 * len(table) + 1.0)
    look = _styles(list(table.index), styles)
    gaps = shows_gaps(table)
    best = float(table["mean"].iloc[0])
    x = (best - table[["mean", "high", "low"]]).to_numpy() if gaps else None
    if not gaps:
        x = table[["mean", "low", "high"]].to_numpy()
    for i, (sid, row) in enumerate(table.iterrows()):
        c, (mid, lo, hi) = look[sid].color, x[i]
        if row["exact"]:
            ax.plot(mid, i, "D", color=c, ms=4, zorder=3)
        else:
            ax.errorbar(mid, i, xerr=[[mid - lo], [hi - mid]], fmt="o", color=c, ms=4, capsize=2)
        _margin(ax, i, str(row["tier"]), f"{mid:.2f}" if gaps else None)
    _margin(ax, -1, "tier", "behind" if gaps else None)
    ax.set_yticks(np.arange(len(table)), list(table.index))
    ax.set_ylim(len(table) - 0.5, -1.5)  # a free row on top holds the margin's heads
    if gaps:
        _gap_axis(ax, x, table.index[0])
    else:
        ax.set_xlabel("mean final score")
    if title:
        ax.set_title(title)
    handles = [
        Line2D([], [], color="0.3", marker="o", ms=4, label="simultaneous interval"),
        Line2D([], [], color="0.3", marker="D", ls="none", ms=4, label="exact mean"),
    ]
    legend_above(ax, handles, [h.get_label() for h in handles])
    ax.grid(axis="x", color="0.9", lw=0.5)
    return ax


def _margin(ax, y: float, tier: str, gap: str | None) -> None:
    """The tier (and the gap to the best) of row ``y``, at the right margin."""
    from matplotlib.transforms import blended_transform_factory

    right = blended_transform_factory(ax.transAxes, ax.transData)
    for text, dx in ((tier, 4), (gap, 32)):
        if text is not None:
            ax.annotate(
                text, (1.0, y), xycoords=right, xytext=(dx, 0), textcoords="offset points",
                va="center", family="monospace", annotation_clip=False,
            )  # fmt: skip


def _gap_axis(ax, x: np.ndarray, best: str) -> None:
    """The symmetric log axis of the points behind the best: linear below the smallest
    gap's power of ten, which is then still apart from 0."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    small = np.abs(x[np.abs(x) > 1e-9])
    thresh = 10.0 ** np.floor(np.log10(small.min())) if len(small) else 1.0
    ax.set_xscale("symlog", linthresh=thresh, linscale=0.4)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    low = min(-0.6 * thresh, float(x.min()) * 1.2)
    ax.set_xlim(low, max(float(x.max()) * 1.5, thresh))
    ax.set_xlabel(f"points behind {best} (log scale)")
