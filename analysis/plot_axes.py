"""What every plot shares: the axes to draw on, the legend beside them, ticks for counts
and the labels a reader reads (:mod:`yahtzee_sim.analysis.plots` draws with them)."""

from __future__ import annotations

from yahtzee_sim.analysis.style import FULL_WIDTH


def legend_outside(ax, fontsize=None, handles=None, labels=None):
    """The legend to the right of the axes, clear of the data, in as many columns as the
    figure's height needs; constrained layout makes room for it."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    size = _points(fontsize)
    rows = max(1, int(0.9 * ax.figure.get_figheight() * 72 / (1.7 * size)))
    return ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
        fontsize=fontsize,
        ncol=-(-len(labels) // rows),
    )


def legend_above(ax, handles=None, labels=None):
    """The legend above the axes, clear of the data, in as many columns as fit the
    axes' width (more than 4 entries: :func:`legend_outside`)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if len(labels) > 4:
        return legend_outside(ax, handles=handles, labels=labels)
    size = _points(None)
    widest = max((len(str(lab)) for lab in labels), default=1) * 0.55 * size + 3.5 * size
    width = 0.75 * ax.get_position().width * ax.figure.get_figwidth() * 72
    return ax.legend(
        handles,
        labels,
        loc="lower left",
        bbox_to_anchor=(0.0, 1.01),
        borderaxespad=0.0,
        frameon=False,
        ncol=max(1, min(len(labels), int(width // widest))),
    )


def _points(fontsize) -> float:
    """A legend font size in points (``None``: the legend's default)."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=fontsize or matplotlib.rcParams["legend.fontsize"]).get_size()


def integer_ticks(axis, first: float | None = None, last: float | None = None) -> None:
    """Ticks at whole numbers only on ``axis`` (an ``ax.xaxis`` or ``ax.yaxis``): for a
    count (turns, players, games); with ``first`` and ``last``, the axis runs from half a
    unit before the first to half a unit after the last (no tick beyond them)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(nbins="auto", integer=True, steps=[1, 2, 5, 10]))
    if first is not None and last is not None:
        axis.set_view_interval(first - 0.6, last + 0.6, ignore=True)


def human_label(name: str) -> str:
    """A box or column name as a reader reads it: ``three_of_a_kind`` → ``Three of a
    kind`` (a name with a capital or a space is kept as given)."""
    name = str(name)
    if name != name.lower() or " " in name:
        return name
    text = name.replace("_", " ")
    return text[:1].upper() + text[1:]


def new_axes(ax, height: float = 3.2):
    """``ax``, or the axes of a new full-width figure of ``height`` inches with
    constrained layout."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(FULL_WIDTH, height), layout="constrained")
    return ax
