"""The look of every figure: one style per strategy, paper sizes, fonts and figure files.

A strategy's colour, line style and marker are decided once, by :func:`strategy_styles`,
and every plot function of :mod:`yahtzee_sim.analysis.plots` and every figure of a
report uses them: the reference (``optimal``) is black, the strategies asked about (and
any strategy that is not built in, e.g. a plugin) take strong Okabe–Ito colours (Okabe &
Ito 2008), the other built-ins muted colours of Tol's colour-blind-safe scheme (Tol 2021).
Colour is never the only difference: every built-in has a marker of its own (a shape of
:data:`MARKERS`, filled or hollow) and a line style, the reference a filled circle, a
strategy that is not built in a marker no built-in of the figure has, so every strategy of
one figure stays apart in grey. A built-in's style is fixed (its place in
:data:`BUILT_IN_ORDER`), whatever else is drawn beside it.

Figures are sized for a paper: :data:`COLUMN_WIDTH` (one column) or :data:`FULL_WIDTH`,
drawn inside :func:`figure_style` (fonts of :data:`FONT_SIZE` points, constrained layout)
and saved by :func:`save_figure`, byte-identical run to run in every format of
:data:`FIGURE_FORMATS`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from yahtzee_sim.errors import FigureFormatError

#: One column of a two-column paper, inches.
COLUMN_WIDTH = 3.5
#: The full text width, inches.
FULL_WIDTH = 7.0
#: The smallest font in a figure, points (at the sizes above).
FONT_SIZE = 8
#: Resolution of PNG files, dots per inch.
PNG_DPI = 200
#: The formats a figure can be written in.
FIGURE_FORMATS = ("png", "pdf", "svg")

#: Colour of the reference strategy.
REFERENCE_COLOR = "#000000"
#: Okabe–Ito colours for highlighted strategies (strong, colour-blind safe).
HIGHLIGHT_COLORS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")
#: Tol's muted colours for the other built-in strategies, the darker first.
MUTED_COLORS = (
    "#332288",
    "#cc6677",
    "#117733",
    "#aa4499",
    "#44aa99",
    "#882255",
    "#999933",
    "#88ccee",
    "#ddcc77",
)
#: Colour of strategies drawn as background (behind the ones asked about).
BACKGROUND_COLOR = "#bbbbbb"
#: Line styles, in turn.
LINE_STYLES = ("-", "--", ":", "-.")
#: Marker shapes of the built-ins (the reference's circle is not among them): the
#: ``i``-th built-in of :data:`BUILT_IN_ORDER` takes shape ``i % 13``, filled for the
#: first 13 and hollow for the next, so no two built-ins share a marker.
MARKERS = ("s", "^", "v", "D", "<", ">", "P", "X", "*", "p", "h", "d", "8")
#: The reference's marker: a filled circle.
REFERENCE_MARKER = "o"
#: Markers tried first for strategies that are not built in (shape, filled): none of
#: them is a built-in's.
OWN_MARKERS = (("o", False), ("H", True), ("H", False))

#: Built-in strategies in the order of their fixed styles: the report's strategies first
#: (so that those of one report differ in colour as far as the muted colours go).
BUILT_IN_ORDER = (
    "glenn-better-heuristic",
    "glenn-heuristic",
    "greedy",
    "defensive",
    "glenn-2007-rules",
    "prioritize-upper",
    "glenn-yahtzees-only",
    "random",
    "glenn-rational-yahtzees",
    "glenn-greedy",
    "glenn-yahtzees-and-straights",
    "prioritize-yahtzee",
    "tiered-random",
    "card",
    "card-10",
    "card-20",
    "card-30",
    "card-50",
    "card-100",
    "chase",
    "risk",
    "target",
    "win",
    "win-aware",
    "win-target",
)


@dataclass(frozen=True)
class StrategyStyle:
    """How one strategy is drawn.

    Attributes
    ----------
    color : str
        Hex colour.
    linestyle : str
        Matplotlib line style (``"-"``, ``"--"``, ``":"``, ``"-."``).
    marker : str
        Matplotlib marker, for points and lines with few points.
    filled : bool
        Whether the marker is filled with the colour (else white inside, the colour
        around).
    linewidth : float
        Points.
    zorder : float
        Drawing order: the reference on top, highlighted strategies above the rest.
    role : str
        ``"reference"``, ``"highlight"`` or ``"other"``.
    """

    color: str
    linestyle: str = "-"
    marker: str = "o"
    linewidth: float = 1.0
    zorder: float = 2.0
    role: str = "other"
    filled: bool = True

    def line(self) -> dict:
        """Keywords of :meth:`matplotlib.axes.Axes.plot` for a line without markers."""
        return {
            "color": self.color,
            "linestyle": self.linestyle,
            "linewidth": self.linewidth,
            "zorder": self.zorder,
        }

    def markers(self, size: float = 4.0) -> dict:
        """Keywords of the marker alone (shape, size, face and edge colours)."""
        return {
            "marker": self.marker,
            "markersize": size,
            "markerfacecolor": self.color if self.filled else "white",
            "markeredgecolor": self.color,
            "markeredgewidth": 0.8,
        }

    def points(self) -> dict:
        """Keywords of :meth:`matplotlib.axes.Axes.plot` for markers without a line."""
        return {"color": self.color, "linestyle": "none", "zorder": self.zorder, **self.markers()}

    def marked_line(self, markevery=None) -> dict:
        """Keywords of :meth:`matplotlib.axes.Axes.plot` for a line with its markers
        (every point, or those of ``markevery``), told apart from the others in grey."""
        return {**self.line(), **self.markers(3.5), "markevery": markevery}

    def background(self) -> StrategyStyle:
        """This style in light grey, thin and behind: a strategy not asked about."""
        return replace(self, color=BACKGROUND_COLOR, linewidth=0.7, zorder=1.0, role="other")


def base_id(strategy: str) -> str:
    """The bare id of a versioned built-in id (``greedy-v1`` → ``greedy``)."""
    return re.sub(r"-v\d+$", "", str(strategy))


def strategy_styles(
    ids: Iterable[str], *, reference: str | None = "optimal", highlight: Iterable[str] = ()
) -> dict[str, StrategyStyle]:
    """One style per strategy id, the same in every figure.

    Parameters
    ----------
    ids : iterable of str
        Strategy ids or labels (``greedy``, ``greedy-v1``, a plugin's label).
    reference : str or None
        Drawn black, thick and on top (``None``: no reference).
    highlight : iterable of str
        Strategies asked about: strong colours, in this order. A strategy that is not
        built in (not in :data:`BUILT_IN_ORDER`) is highlighted too, after these.

    Returns
    -------
    dict of str to StrategyStyle
        Keyed by the ids as given, in their order. A built-in that is not highlighted
        always gets the same muted style (its place in :data:`BUILT_IN_ORDER`).

    Examples
    --------
    >>> styles = strategy_styles(["optimal", "greedy", "my-bot"])
    >>> styles["optimal"].color, styles["my-bot"].role
    ('#000000', 'highlight')
    """
    ids = list(dict.fromkeys(ids))
    asked = list(dict.fromkeys(highlight))
    unknown = [s for s in ids if s != reference and base_id(s) not in BUILT_IN_ORDER]
    strong = asked + [s for s in unknown if s not in asked]
    built_in = [s for s in ids if s != reference and s not in unknown]
    taken = {_built_in_marker(BUILT_IN_ORDER.index(base_id(s))) for s in built_in}
    styles = {}
    for sid in ids:
        if sid == reference:
            styles[sid] = StrategyStyle(
                REFERENCE_COLOR, "-", REFERENCE_MARKER, 1.5, 4.0, "reference"
            )
            continue
        if sid in unknown:
            marker = _free_marker(taken)
            taken.add(marker)
            line = LINE_STYLES[strong.index(sid) % len(LINE_STYLES)]
        else:
            i = BUILT_IN_ORDER.index(base_id(sid))
            marker, line = _built_in_marker(i), LINE_STYLES[(i + 1) % len(LINE_STYLES)]
        shape, filled = marker
        if sid in strong:  # Okabe-Ito colours
            color, width, z, role = HIGHLIGHT_COLORS[strong.index(sid) % 6], 1.5, 3.0, "highlight"
        else:  # Tol's muted colours
            color, width, z, role = MUTED_COLORS[i % len(MUTED_COLORS)], 1.0, 2.0, "other"
        styles[sid] = StrategyStyle(color, line, shape, width, z, role, filled)
    return styles


def _built_in_marker(i: int) -> tuple[str, bool]:
    """The marker (shape, filled) of the ``i``-th built-in of :data:`BUILT_IN_ORDER`."""
    return MARKERS[i % len(MARKERS)], (i // len(MARKERS)) % 2 == 0


def _free_marker(taken: set) -> tuple[str, bool]:
    """The first marker (shape, filled) not in ``taken``: :data:`OWN_MARKERS` first, then
    every shape hollow and filled (again from the start once all are taken)."""
    every = [*OWN_MARKERS, *((m, f) for f in (False, True) for m in MARKERS)]
    free = [m for m in every if m not in taken]
    return free[0] if free else every[len(taken) % len(every)]


def style_params() -> dict:
    """The Matplotlib ``rcParams`` of :func:`figure_style`."""
    return {
        "font.size": FONT_SIZE,
        "axes.titlesize": FONT_SIZE + 1,
        "axes.labelsize": FONT_SIZE,
        "xtick.labelsize": FONT_SIZE,
        "ytick.labelsize": FONT_SIZE,
        "legend.fontsize": FONT_SIZE,
        "legend.title_fontsize": FONT_SIZE,
        "figure.titlesize": FONT_SIZE + 1,
        "legend.frameon": False,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.linewidth": 0.6,
        "xtick.major.width": 0.6,
        "ytick.major.width": 0.6,
        "lines.linewidth": 1.0,
        "lines.markersize": 4,
        "figure.figsize": (FULL_WIDTH, FULL_WIDTH / 2),
        "figure.constrained_layout.use": True,
        "savefig.dpi": PNG_DPI,
        "pdf.fonttype": 42,
        "svg.fonttype": "none",
        "svg.hashsalt": "yahtzee-sim",
    }


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    """Draw (and save) figures inside this context: fonts of :data:`FONT_SIZE` points,
    constrained layout, no top and right spines, deterministic SVG ids.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> with figure_style():
    ...     fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 2.5))
    >>> plt.close(fig)
    """
    import matplotlib

    with matplotlib.rc_context(style_params()):
        yield


def parse_figure_formats(text: str | Iterable[str]) -> tuple[str, ...]:
    """Figure formats from ``"pdf,png"`` (or a list), checked, duplicates dropped.

    Raises
    ------
    FigureFormatError
        If a format is not one of :data:`FIGURE_FORMATS` or none is given.
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    formats = tuple(dict.fromkeys(str(f).strip().lower().lstrip(".") for f in items))
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad or not formats or "" in formats:
        raise FigureFormatError(
            f"figure format must be among {', '.join(FIGURE_FORMATS)} "
            f"(comma-separated), got {text if isinstance(text, str) else ','.join(items)!r}"
        )
    return formats


def save_figure(fig, path: str | Path) -> None:
    """Write ``fig`` to ``path`` (format from the suffix), byte-identical run to run: no
    date or software version in the file, fixed SVG ids.

    Write atomically through :func:`~yahtzee_sim.engine.atomic.atomic_path` where a
    killed process must not leave half a file; the caller closes the figure.
    """
    import matplotlib

    fmt = Path(path).suffix.lower().lstrip(".")
    metadata = {
        "png": {"Software": None},
        "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
        "svg": {"Date": None, "Creator": None},
    }.get(fmt)
    with matplotlib.rc_context({"svg.hashsalt": "yahtzee-sim"}):
        fig.savefig(path, format=fmt, dpi=PNG_DPI, metadata=metadata)
