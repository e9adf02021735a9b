"""LaTeX tables for a paper: booktabs rules, escaped text, integers as integers.

:func:`latex_table` turns a DataFrame into a ``table`` float (``table*``, across both
columns of a two-column paper, when asked) with ``\\toprule``, ``\\midrule`` and
``\\bottomrule`` (the ``booktabs`` package); text is escaped for pdflatex (the LaTeX
specials, and the few Unicode signs the report's tables use: minus, dashes, ≥, α, δ, ×,
±, †), numbers are right-aligned, an integer column and a float column of whole numbers
print without decimals, a negative number with a true minus sign, and a cell that does
not apply (NaN) as an en dash. A long row label is set on several lines, cut after a
hyphen, an underscore, a comma or a space (:func:`row_label`), so that the table keeps
to one column of a two-column paper.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np
import pandas as pd

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "−": r"$-$",
    "–": "--",
    "—": "---",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "α": r"$\alpha$",
    "δ": r"$\delta$",
    "×": r"$\times$",
    "±": r"$\pm$",
    "†": r"\textsuperscript{\textdagger}",
}

#: What a cell that does not apply holds (an en dash; ``--`` in LaTeX).
NOT_APPLICABLE = "–"
#: The mark of a cell a table note speaks of (a dagger).
MARK = "†"
#: Row labels longer than this (characters) are set on several lines (:func:`row_label`).
LABEL_CHARACTERS = 20


class Raw(str):
    """A cell already in LaTeX (not escaped), e.g. an :func:`interval`."""


def escape(text: str) -> str:
    """``text`` with every LaTeX special character (and the Unicode signs above) escaped."""
    return "".join(_SPECIALS.get(ch, ch) for ch in str(text))


def header(text: str) -> str:
    r"""A column header: escaped, its words on lines of at most 8 characters, or two more
    than its longest word (``\shortstack``), so that the header is no wider than the
    column needs.

    Examples
    --------
    >>> print(header("keep, 2 rerolls left"))
    \shortstack{keep, 2\\rerolls\\left}
    """
    words = str(text).split()
    width = max(8, max((len(w) for w in words), default=0) + 2)
    lines = [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".strip()
    if len(lines) < 2:
        return escape(text)
    return r"\shortstack{" + r"\\".join(escape(line) for line in lines) + "}"


def row_label(text: str, width: int = LABEL_CHARACTERS) -> str:
    r"""A row label, escaped; one longer than ``width`` characters on several lines of at
    most ``width`` characters where it can be cut (after ``-``, ``_``, ``,`` or a space,
    before ``(``), in a top-aligned ``tabular`` so that the row's numbers stand beside
    its first line.

    Examples
    --------
    >>> print(row_label("greedy"))
    greedy
    >>> print(row_label("glenn-yahtzees-and-straights"))
    \begin{tabular}[t]{@{}l@{}}glenn-yahtzees-\\and-straights\end{tabular}
    """
    text = str(text)
    if len(text) <= width:
        return escape(text)
    pieces, start = [], 0
    for i in range(1, len(text)):
        if text[i - 1] in "-_, " or text[i] == "(":
            pieces.append(text[start:i])
            start = i
    pieces.append(text[start:])
    count = len(_pack(pieces, width))
    if count == 1:  # nowhere to cut
        return escape(text)
    narrowest = next(  # as many lines, of lengths as even as the cuts allow
        w for w in range(-(-len(text) // count), width + 1) if len(_pack(pieces, w)) <= count
    )
    lines = _pack(pieces, narrowest)
    body = r"\\".join(escape(line.rstrip(" ")) for line in lines)
    return r"\begin{tabular}[t]{@{}l@{}}" + body + r"\end{tabular}"


def _pack(pieces: list[str], width: int) -> list[str]:
    """``pieces`` joined into lines of at most ``width`` characters (a longer piece alone)."""
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1] + piece) > width:
            lines.append("")
        lines[-1] += piece
    return lines


def number(value, decimals: int = 2) -> str:
    """A number for a table cell: an integer without decimals (thousands separated), a
    float with ``decimals`` (``0``: as an integer), a true minus sign, an en dash for NaN
    (a cell that does not apply)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if np.issubdtype(type(value), np.integer):
        text = f"{int(value):,}".replace(",", "{,}")
    elif np.issubdtype(type(value), np.floating):
        if not np.isfinite(value):
            return escape(NOT_APPLICABLE)
        if decimals == 0:
            text = f"{float(value):,.0f}".replace(",", "{,}")
        else:
            text = f"{float(value):.{decimals}f}"
    else:
        return escape(value)
    return "$-$" + text[1:] if text.startswith("-") else text


def marked(cell: str) -> Raw:
    """``cell`` (LaTeX) followed by the note's :data:`MARK`, which takes no width: the
    column's numbers stay aligned."""
    return Raw(str(cell) + r"\rlap{" + escape(MARK) + "}")


def whole_columns(frame: pd.DataFrame) -> list[str]:
    """The float columns of ``frame`` whose values (NaN aside) are all whole numbers:
    they print as integers (a percentile of integer scores, a count with gaps)."""
    out = []
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_float_dtype(values):
            finite = values[np.isfinite(values)].to_numpy()
            if finite.size and np.array_equal(finite, np.round(finite)):
                out.append(column)
    return out


def latex_table(
    frame: pd.DataFrame,
    caption: str,
    label: str,
    decimals: Mapping[str, int] | None = None,
    index: bool = True,
    note: str | None = None,
    wide: bool = False,
    align: Mapping[str, str] | None = None,
    raw: Collection[str] = (),
) -> str:
    """A booktabs ``table`` float of ``frame`` (one row per row, the index first).

    Parameters
    ----------
    frame : pandas.DataFrame
    caption : str
        Plain text (escaped).
    label : str
        The ``\\label`` (e.g. ``tab:ranking``).
    decimals : mapping of str to int, optional
        Decimals of a float column (default 2); a float column of whole numbers
        (:func:`whole_columns`) prints as integers whatever its decimals.
    index : bool
        Print the index as the first column (long labels on several lines:
        :func:`row_label`).
    note : str, optional
        A footnote line under the table (plain text, escaped; ``†`` becomes the
        :data:`MARK` of :func:`marked` cells).
    wide : bool
        A ``table*`` float, across both columns of a two-column paper (the same as
        ``table`` in a one-column paper), for a table too wide for one column.
    align : mapping of str to str, optional
        The alignment (``l``, ``r``, ``c``) of a column; default ``r`` for a numeric
        column, ``l`` for another.
    raw : collection of str
        Columns whose cells are LaTeX already (:class:`Raw`, :func:`interval`,
        :func:`marked`), printed as they are: a DataFrame may store a :class:`Raw` cell
        as a plain ``str`` (pandas' string columns), which would be escaped.

    Returns
    -------
    str
        LaTeX source ending in a newline; it needs ``\\usepackage{booktabs}``.
    """
    decimals = dict(decimals or {}) | dict.fromkeys(whole_columns(frame), 0)
    align = dict(align or {})
    heads = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    spec = ("l" if index else "") + "".join(
        align.get(c, "r" if pd.api.types.is_numeric_dtype(frame[c]) else "l") for c in frame.columns
    )
    float_env = "table*" if wide else "table"
    lines = [
        r"\begin{" + float_env + "}[htbp]",
        r"\centering",
        r"\caption{" + escape(caption) + "}",
        r"\label{" + label + "}",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        r"\begin{tabular}{" + spec + "}",
        r"\toprule",
        " & ".join(header(h) for h in heads) + r" \\",
        r"\midrule",
    ]
    columns = list(frame.columns)
    for key, *values in frame.itertuples(name=None):
        cells = [row_label(key)] if index else []
        cells += [
            str(v) if c in raw else number(v, decimals.get(c, 2))
            for c, v in zip(columns, values, strict=True)
        ]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if note:
        lines += [r"\par\smallskip", r"{\footnotesize\raggedright " + escape(note) + r"\par}"]
    lines.append(r"\end{" + float_env + "}")
    return "\n".join(lines) + "\n"


def interval(low: float, high: float, decimals: int = 2) -> Raw:
    """``[a, b]`` with a true minus sign, as a :class:`Raw` cell."""
    return Raw(f"[{number(float(low), decimals)}, {number(float(high), decimals)}]")
