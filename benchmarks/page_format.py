"""How the Performance page writes figures: the row type every benchmark's ``rows`` returns
and the number formats the rows share (``perf_page.py`` assembles the page)."""

from __future__ import annotations

#: One row of a benchmark's table: (what is measured, the result with its unit).
Row = tuple[str, str]


def num(x: float, digits: int = 0) -> str:
    """``x`` with thousands separators and ``digits`` decimals."""
    return f"{x:,.{digits}f}"


def timed(seconds: float, per_second: float, unit: str) -> str:
    """``"12.3 s (45,678 unit/s)"``."""
    return f"{seconds:.1f} s ({num(per_second)} {unit}/s)"


def jobs_text(n: int) -> str:
    """``"one job"`` or ``"N jobs"``."""
    return "one job" if n == 1 else f"{n} jobs"


def prob(x: float) -> str:
    """A probability: 4 decimals, or 4 significant digits when tiny."""
    return f"{x:.4f}" if x >= 1e-4 else f"{x:.4g}"


def yes_no(flag: bool) -> str:
    """``"yes"`` or ``"no"``."""
    return "yes" if flag else "no"


def table(rows: list[Row]) -> list[str]:
    """The Markdown lines of a benchmark's table (each row's first letter capitalised)."""
    lines = ["| what is measured | result |", "|---|---|"]
    lines += [f"| {what[0].upper()}{what[1:]} | {result} |" for what, result in rows]
    return lines
