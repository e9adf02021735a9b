"""The layout check of a drawn figure, from Matplotlib's text extents at the figure's size:
text against text, text inside the axes against the plotted data, text against the figure
edge, integer ticks on an axis of a count, no title, and the strategies of one legend or
panel told apart in grey (line style, marker, fill, hatch or grey level).

Each check returns a list of problems (empty: none), each a sentence naming the texts.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

#: Two strategies drawn alike but for colour must differ by this much in grey (0 black,
#: 1 white): a quarter of the scale, which print keeps apart.
GREY_MARGIN = 0.25
#: Overlaps smaller than this, in pixels at 100 dpi, are rounding (glyph boxes touch).
TOLERANCE = 1.0
#: Words of an axis label that make its quantity a count (a score is whole points; a
#: label with "mean" is not a count).
COUNTS = re.compile(r"\b(turns?|stage|observations|games|players)\b|^(target )?(final )?score")


# ------------------------------------------------------------------ texts
def _tick_labels_out_of_view(ax) -> set[int]:
    """The ids of the tick labels of ``ax`` whose tick falls outside the view (not drawn)."""
    out = set()
    for axis in (ax.xaxis, ax.yaxis):
        lo, hi = sorted(axis.get_view_interval())
        span = (hi - lo) * 1e-9
        for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
            if not lo - span <= tick.get_loc() <= hi + span:
                out.update({id(tick.label1), id(tick.label2)})
    return out


def drawn_texts(fig) -> list[Text]:
    """Every text the figure shows: of its visible axes (tick labels of ticks in view,
    axis labels, titles, texts, legends) and of the figure itself (labels, legends)."""
    found = [t for t in fig.texts]
    for legend in fig.legends:
        found += legend.findobj(Text)
    for ax in fig.axes:
        if ax.get_visible():
            hidden = _tick_labels_out_of_view(ax)
            found += [t for t in ax.findobj(Text) if id(t) not in hidden]
    unique = list({id(t): t for t in found}.values())
    return [t for t in unique if t.get_visible() and t.get_text().strip() and _shown(t)]


def _shown(artist) -> bool:
    """Whether ``artist`` and the legend holding it are visible."""
    parent = getattr(artist, "axes", None)
    for legend in (getattr(parent, "legend_", None),):
        if legend is not None and artist in legend.findobj(Text) and not legend.get_visible():
            return False
    return True


def corners(text: Text, renderer) -> np.ndarray:
    """The four corners (pixels) of ``text``'s box, turned with the text."""
    box = text.get_window_extent(renderer)
    angle = np.deg2rad(text.get_rotation())
    if abs(np.sin(angle)) < 1e-9 and abs(np.cos(angle)) > 0:
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    rotation = text.get_rotation()
    text.set_rotation(0)
    flat = text.get_window_extent(renderer)
    text.set_rotation(rotation)
    w, h = flat.width / 2, flat.height / 2
    c, s = np.cos(angle), np.sin(angle)
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    return np.array([box.x0 + box.x1, box.y0 + box.y1]) / 2 + local @ np.array([[c, s], [-s, c]])


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the convex quadrilaterals ``a`` and ``b`` overlap by more than
    :data:`TOLERANCE` on every separating axis (the separating axis theorem)."""
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            normal = np.array([-edge[1], edge[0]]) / (np.hypot(*edge) or 1.0)
            pa, pb = a @ normal, b @ normal
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= TOLERANCE:
                return False
    return True


def _name(text: Text) -> str:
    return repr(text.get_text())


# ------------------------------------------------------------------ the checks
def text_problems(fig) -> list[str]:
    """Texts overlapping one another, or reaching past the figure's edge."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    texts = drawn_texts(fig)
    boxes = [corners(t, renderer) for t in texts]
    low = np.array([b.min(axis=0) for b in boxes]).reshape(-1, 2)
    high = np.array([b.max(axis=0) for b in boxes]).reshape(-1, 2)
    near = (np.minimum(high[:, None], high[None]) - np.maximum(low[:, None], low[None])).min(
        axis=2
    ) > TOLERANCE  # the upright boxes around the turned ones overlap: test closer
    problems = []
    for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        if _overlap(boxes[i], boxes[j]):
            problems.append(f"{_name(texts[i])} overlaps {_name(texts[j])}")
    edge = fig.bbox
    for t, box in zip(texts, boxes, strict=True):
        (x0, y0), (x1, y1) = box.min(axis=0), box.max(axis=0)
        if x0 < -TOLERANCE or y0 < -TOLERANCE or x1 > edge.x1 + TOLERANCE or y1 > edge.y1 + 1:
            problems.append(f"{_name(t)} reaches past the figure's edge")
    return problems


def _data_hits(artist, region: Bbox) -> bool:
    """Whether the plotted ``artist`` (line, markers, collection, patch) enters ``region``
    (pixels)."""
    if isinstance(artist, Line2D):
        xy = artist.get_transform().transform(artist.get_xydata())
        xy = xy[np.isfinite(xy).all(axis=1)]
        if artist.get_marker() not in ("None", "none", "", None, " "):
            every = artist.get_markevery()
            points = xy if every is None or not isinstance(every, list) else xy[every]
            if isinstance(every, tuple):
                points = xy[:0]  # spaced markers: the line below is checked
            pad = artist.get_markersize() / 2 * artist.figure.dpi / 72
            grown = Bbox.from_extents(
                region.x0 - pad, region.y0 - pad, region.x1 + pad, region.y1 + pad
            )
            if any(grown.contains(*p) for p in points):
                return True
        if artist.get_linestyle() in ("None", "none", "", " ") or len(xy) < 2:
            return False
        path = artist.get_transform().transform_path(artist.get_path())
        return path.intersects_bbox(region, filled=False)
    if isinstance(artist, LineCollection):
        transform = artist.get_transform()
        return any(
            transform.transform_path(p).intersects_bbox(region, filled=False)
            for p in artist.get_paths()
        )
    if isinstance(artist, PathCollection):
        offsets = artist.get_offset_transform().transform(artist.get_offsets())
        return any(region.contains(*p) for p in offsets)
    if isinstance(artist, Patch):
        path = artist.get_transform().transform_path(artist.get_path())
        filled = artist.get_fill() and to_rgba(artist.get_facecolor())[3] > 0
        return path.intersects_bbox(region, filled=bool(filled))
    return False


def data_problems(fig) -> list[str]:
    """Texts and legends inside an axes that lie on its plotted data (lines, markers,
    bars, histograms; not a heatmap's image, whose cells carry their labels)."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    problems = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        area = ax.get_window_extent(renderer)
        inside = [(t, t.get_window_extent(renderer)) for t in ax.texts if t.get_visible()]
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            inside.append((legend, legend.get_window_extent(renderer)))
        data = [
            a
            for a in [*ax.lines, *ax.collections, *ax.patches]
            if a.get_visible() and not isinstance(a, AxesImage)
        ]
        for what, box in inside:
            region = Bbox.intersection(box, area)
            if region is None or region.width < TOLERANCE or region.height < TOLERANCE:
                continue
            for artist in data:
                if _data_hits(artist, region):
                    name = "the legend" if isinstance(what, Legend) else _name(what)
                    problems.append(f"{name} lies on {artist.get_label() or artist}")
                    break
    return problems


def tick_problems(fig) -> list[str]:
    """Tick labels that are not whole numbers on an axis whose label names a count."""
    fig.draw_without_rendering()
    problems = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        hidden = _tick_labels_out_of_view(ax)
        for axis in (ax.xaxis, ax.yaxis):
            label = axis.get_label_text()
            if not COUNTS.search(label) or "mean" in label:
                continue
            for label in axis.get_ticklabels(which="both"):
                text = label.get_text().replace("\u2212", "-").replace(",", "")
                if id(label) in hidden or not label.get_visible() or not text:
                    continue
                if not re.fullmatch(r"-?\d+", text):
                    problems.append(f"tick {text!r} on {axis.get_label_text()!r}")
    return problems


def title_problems(fig) -> list[str]:
    """Titles inside the figure (a caption says what a figure shows)."""
    found = [f"figure title {fig.get_suptitle()!r}"] if fig.get_suptitle() else []
    for ax in fig.axes:
        for loc in ("left", "center", "right"):
            if ax.get_visible() and ax.get_title(loc):
                found.append(f"title {ax.get_title(loc)!r}")
    return found


def grey(color) -> float:
    """The grey level of ``color`` printed on white (0 black, 1 white)."""
    r, g, b, a = to_rgba(color)
    return 1 - a * (1 - (0.299 * r + 0.587 * g + 0.114 * b))


def _look(artist) -> tuple | None:
    """What tells ``artist`` apart in grey: (kind, pattern, shade)."""
    none = ("None", "none", "", " ", None)
    if isinstance(artist, Line2D):
        line = "none" if artist.get_linestyle() in none else artist.get_linestyle()
        marker = "none" if artist.get_marker() in none else str(artist.get_marker())
        hollow = marker != "none" and to_rgba(artist.get_markerfacecolor()) != to_rgba(
            artist.get_markeredgecolor()
        )
        return "line", (line, marker, hollow), grey(artist.get_color())
    if isinstance(artist, Patch):
        face = artist.get_facecolor() if artist.get_fill() else artist.get_edgecolor()
        pattern = (artist.get_fill(), artist.get_hatch(), str(artist.get_linestyle()))
        return "patch", pattern, grey(face)
    return None


def look_problems(fig) -> list[str]:
    """Pairs of strategies of one legend or one panel that differ only in hue: the same
    line style, marker and fill (or fill and hatch) and grey levels closer than
    :data:`GREY_MARGIN`."""
    groups = [([t.get_text() for t in lg.get_texts()], lg.legend_handles) for lg in fig.legends]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        legend = ax.get_legend()
        if legend is not None:
            groups.append(([t.get_text() for t in legend.get_texts()], legend.legend_handles))
        drawn = [
            a
            for a in [*ax.lines, *ax.patches]
            if a.get_label() and not a.get_label().startswith("_")
        ]
        groups.append(([a.get_label() for a in drawn], drawn))
    problems = []
    for labels, handles in groups:
        looks = [(str(lab), _look(h)) for lab, h in zip(labels, handles, strict=True)]
        for (la, a), (lb, b) in itertools.combinations(looks, 2):
            if a is None or b is None or a[0] != b[0] or a[1] != b[1]:
                continue
            if abs(a[2] - b[2]) < GREY_MARGIN:
                problems.append(f"{la!r} and {lb!r} differ only in hue")
    return problems


def figure_problems(fig) -> list[str]:
    """Every check above on ``fig``."""
    return [
        *text_problems(fig),
        *data_problems(fig),
        *tick_problems(fig),
        *title_problems(fig),
        *look_problems(fig),
    ]
