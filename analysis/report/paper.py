"""The files of a report meant for a paper: the summary, ranking and regret tables in
LaTeX (booktabs), the methods paragraph in LaTeX and the BibTeX file it cites.

A paper ``\\input``\\ s them after ``\\usepackage{booktabs}``, and cites with
``\\bibliography{references}``.
"""

from __future__ import annotations

import pandas as pd

from yahtzee_sim.analysis.report.latex import Raw, interval, latex_table
from yahtzee_sim.analysis.report.methods import BIBTEX, methods_paragraph
from yahtzee_sim.analysis.report.ranking_files import ranking_latex

#: The files :func:`write_paper_files` writes, in order.
PAPER_FILES = ("summary.tex", "ranking.tex", "regret.tex", "methods.tex", "references.bib")


def summary_latex(report) -> str:
    """The summary table: exact and simulated mean, SD, 95% interval, p10, median and
    bonus rate (minimum and maximum stay in the CSV file: the table fits a column of
    text)."""
    s = report.summary
    frame = pd.DataFrame(
        {
            "exact mean": s["exact mean"],
            "mean": s["mean"],
            "SD": s["SD"],
            "95% CI": [Raw(interval(*_ends(text))) for text in s["95% CI"]],
            "p10": s["p10"],
            "median": s["median"],
            "bonus %": s["bonus %"],
        },
        index=s.index,
    )
    return latex_table(
        frame,
        f"Final score of each strategy on the {report.rules.name} rules: exact mean "
        f"(deterministic strategies) and statistics of {report.games:,} simulated games "
        f"(seed {report.seed}, common random numbers).",
        "tab:summary",
        decimals={"bonus %": 1, "p10": 1, "median": 1},
    )


def regret_latex(report) -> str:
    """The regret table: points lost against optimal play, by decision type."""
    return latex_table(
        report.regret_table,
        "Expected points lost against optimal play, by decision type (exact).",
        "tab:regret",
        decimals={c: 3 for c in report.regret_table.columns},
    )


def write_paper_files(folder, report) -> list[str]:
    """Write :data:`PAPER_FILES` into ``folder`` (a
    :class:`~yahtzee_sim.analysis.report.document.DocumentFolder`); return their names
    (``regret.tex`` only when the report has regrets)."""
    texts = {
        "summary.tex": summary_latex(report),
        "ranking.tex": ranking_latex(report.ranking),  # the table `rank --out` writes
        "regret.tex": regret_latex(report) if report.regrets else None,
        "methods.tex": "\\begin{sloppypar}\n"
        + methods_paragraph(report, latex=True)
        + "\n\\end{sloppypar}\n",
        "references.bib": BIBTEX,
    }
    written = []
    for name, text in texts.items():
        if text is not None:
            folder.text(text, name)
            written.append(name)
    return written


def _ends(text: str) -> tuple[float, float]:
    """The two ends of an interval written ``[a, b]``."""
    low, high = text.strip("[]").split(",")
    return float(low), float(high)
