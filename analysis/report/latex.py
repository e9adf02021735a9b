"""LaTeX tables for a paper: booktabs rules, escaped text, integers as integers.

:func:`latex_table` turns a DataFrame into a ``table`` float with ``\\toprule``,
``\\midrule`` and ``\\bottomrule`` (the ``booktabs`` package); text is escaped for
pdflatex (the LaTeX specials, and the few Unicode signs the report's tables use: minus,
dashes, ≥, α, δ), numbers are right-aligned, an integer column prints without decimals
and a negative number with a true minus sign.
"""

from __future__ import annotations

from collections.abc import Mapping

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
}


class Raw(str):
    """A cell already in LaTeX (not escaped), e.g. an :func:`interval`."""


def escape(text: str) -> str:
    """``text`` with every LaTeX special character (and the Unicode signs above) escaped."""
    return "".join(_SPECIALS.get(ch, ch) for ch in str(text))


def header(text: str) -> str:
    """A column header: escaped, and a header of several words on two lines
    (``\\shortstack``) so that the table stays narrow."""
    words = str(text).split()
    if len(words) < 2:
        return escape(text)
    cut = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(text) / 2))
    first, second = " ".join(words[:cut]), " ".join(words[cut:])
    return r"\shortstack{" + escape(first) + r"\\" + escape(second) + "}"


def number(value, decimals: int = 2) -> str:
    """A number for a table cell: an integer without decimals, a float with ``decimals``,
    a true minus sign, an empty cell for NaN."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if np.issubdtype(type(value), np.integer):
        text = f"{int(value):,}".replace(",", "{,}")
    elif np.issubdtype(type(value), np.floating):
        if not np.isfinite(value):
            return ""
        text = f"{float(value):.{decimals}f}"
    else:
        return escape(value)
    return "$-$" + text[1:] if text.startswith("-") else text


def latex_table(
    frame: pd.DataFrame,
    caption: str,
    label: str,
    decimals: Mapping[str, int] | None = None,
    index: bool = True,
    note: str | None = None,
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
        Decimals of a float column (default 2).
    index : bool
        Print the index as the first column.
    note : str, optional
        A footnote line under the table (plain text, escaped).

    Returns
    -------
    str
        LaTeX source ending in a newline; it needs ``\\usepackage{booktabs}``.
    """
    decimals = dict(decimals or {})
    heads = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    align = ("l" if index else "") + "".join("r" if n else "l" for n in numeric)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        r"\caption{" + escape(caption) + "}",
        r"\label{" + label + "}",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        r"\begin{tabular}{" + align + "}",
        r"\toprule",
        " & ".join(header(h) for h in heads) + r" \\",
        r"\midrule",
    ]
    columns = list(frame.columns)
    for key, *values in frame.itertuples(name=None):
        cells = [escape(key)] if index else []
        cells += [number(v, decimals.get(c, 2)) for c, v in zip(columns, values, strict=True)]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if note:
        lines += [r"\par\smallskip", r"{\footnotesize " + escape(note) + "}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def interval(low: float, high: float, decimals: int = 2) -> Raw:
    """``[a, b]`` with a true minus sign, as a :class:`Raw` cell."""
    return Raw(f"[{number(float(low), decimals)}, {number(float(high), decimals)}]")
