"""The files of a report meant for a paper: the summary, ranking and regret tables in
LaTeX (booktabs), the methods paragraph in LaTeX and the BibTeX file it cites.

A paper ``\\input``\\ s them after ``\\usepackage{booktabs}``, and cites with
``\\bibliography{references}``.
"""

from __future__ import annotations

import pandas as pd

from yahtzee_sim.analysis.report.latex import latex_table, marked, number
from yahtzee_sim.analysis.report.methods import BIBTEX, methods_paragraph
from yahtzee_sim.analysis.report.ranking_files import ranking_latex
from yahtzee_sim.analysis.report.tables import ci_misses, ci_note

#: The files :func:`write_paper_files` writes, in order.
PAPER_FILES = ("summary.tex", "ranking.tex", "regret.tex", "methods.tex", "references.bib")


def summary_latex(report) -> str:
    """The summary table, a ``table*`` (its eight columns of figures fit the text width of
    a one-column or two-column paper, not one column of two): exact mean and SD, simulated
    mean, SD and half-width of the 95% interval (``±``; marked ``†`` with a note when it
    excludes the exact mean: :func:`~yahtzee_sim.analysis.report.tables.ci_note`), p10,
    median and bonus rate. The minimum, maximum, n-of-a-kind turns per game and the interval's
    ends stay in ``summary.csv``."""
    s = report.summary
    missed = set(ci_misses(s))
    halves = (s["CI high"] - s["CI low"]) / 2
    frame = pd.DataFrame(
        {
            "exact mean": s["exact mean"],
            "exact SD": s["exact SD"],
            "mean": s["mean"],
            "SD": s["SD"],
            "95% CI (±)": [
                marked(number(h)) if sid in missed else number(h) for sid, h in halves.items()
            ],
            "p10": s["p10"],
            "median": s["median"],
            "bonus %": s["bonus %"],
        },
        index=s.index,
    )
    return latex_table(
        frame,
        f"Final score of each strategy on the {report.rules.name} rules: exact mean and SD "
        f"(deterministic strategies; – for the others) and statistics of {report.games:,} "
        f"simulated games (seed {report.seed}, common random numbers): mean, SD, half-width "
        "of the 95% confidence interval of the mean, 10th percentile, median and share of "
        "games with the upper bonus.",
        "tab:summary",
        decimals={"bonus %": 1, "p10": 1, "median": 1},
        note=ci_note(s),
        wide=True,
        align={"95% CI (±)": "r"},
        raw=["95% CI (±)"],
    )


def regret_latex(report) -> str:
    """The regret table: points lost against optimal play by decision type, and their sum,
    the gap to optimal play (``sum of losses``, equal to it, stays in ``regret.csv``)."""
    losses = report.regret_table.drop(columns=["sum of losses"])
    gap = "optimal − strategy"
    table = losses[[c for c in losses.columns if c != gap] + [gap]]
    return latex_table(
        table,
        "Expected points lost against optimal play, by decision type (exact); the losses "
        "add up to optimal − strategy, the gap between the exact means.",
        "tab:regret",
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
