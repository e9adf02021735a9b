"""The files of a full ranking, written alike by ``report`` and ``rank --out``:
``ranking.csv`` (one row per strategy), ``ranking_pairs.csv`` (one row per pair) and
``ranking.tex`` (the ranking table for a paper, its guarantee under it, as a ``table*``).

The tables show the intervals the guarantee speaks of: the difference of each strategy to
the best, with its simultaneous interval (every pair's is in ``ranking_pairs.csv``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from yahtzee_sim.analysis.ranking.pairwise import RankingResult
from yahtzee_sim.analysis.report.document import DocumentFolder
from yahtzee_sim.analysis.report.latex import Raw, interval, latex_table, number

#: The files :func:`write_ranking_files` writes, in order.
RANKING_FILES = ("ranking.csv", "ranking_pairs.csv", "ranking.tex")

#: The header of the column of the difference to the best.
BEHIND = "behind the best"


def _pair_of_the_best(ranking: RankingResult) -> pd.Series:
    """Whether the pair (best, strategy) of each row is exact (both means exact)."""
    t = ranking.table
    return pd.Series(t["exact"].to_numpy() & bool(t["exact"].iloc[0]), index=t.index)


def ranking_display(ranking: RankingResult) -> pd.DataFrame:
    """The ranking table as ``report.md`` shows it: mean, the difference to the best with
    its simultaneous interval (``exact`` when both means are exact; ``–`` in the best's
    row: nothing behind it), tier, and the games behind the mean (``exact`` for an exact mean)."""
    t = ranking.table
    exact_pair = _pair_of_the_best(ranking)
    return pd.DataFrame(
        {
            "mean": t["mean"],
            BEHIND: t["behind"],
            "simultaneous interval": [
                "–" if i == 0 else ("exact" if exact_pair.iloc[i] else f"[{lo:.2f}, {hi:.2f}]")
                for i, (lo, hi) in enumerate(zip(t["behind_low"], t["behind_high"], strict=True))
            ],
            "tier": t["tier"],
            "games": [
                "exact" if e else f"{g:,}" for e, g in zip(t["exact"], t["games"], strict=True)
            ],
        },
        index=t.index,
    )


def pairs_display(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs as ``report.md`` shows them: difference, simultaneous interval,
    Bonferroni-adjusted p-value and the decision."""
    return pd.DataFrame(
        {
            "first": pairs["first"],
            "second": pairs["second"],
            "difference": pairs["difference"].map(lambda v: f"{v:.2f}"),
            "simultaneous interval": [
                "exact" if row.exact else f"[{row.low:.2f}, {row.high:.2f}]"
                for row in pairs.itertuples()
            ],
            "p (Bonferroni)": [
                "" if e else (f"{p:.2g}" if p >= 1e-16 else "< 1e-16")
                for p, e in zip(pairs["p_adjusted"], pairs["exact"], strict=True)
            ],
            "different": ["yes" if v else "no" for v in pairs["significant"]],
        }
    )


def ranking_latex(ranking: RankingResult) -> str:
    """``ranking.tex``: mean, the difference to the best with its simultaneous interval,
    tier and games (``exact`` for an exact mean), the guarantee under the table; a
    ``table*`` (the width of the page in a two-column article)."""
    t = ranking.table
    exact_pair = _pair_of_the_best(ranking)
    cells = []
    for i, row in enumerate(t.itertuples()):
        if i == 0:  # the best: nothing behind it
            cells.append(Raw("--"))
        else:
            cells.append(
                Raw("exact") if exact_pair.iloc[i] else interval(row.behind_low, row.behind_high)
            )
    frame = pd.DataFrame(
        {
            "mean": t["mean"],
            BEHIND: t["behind"],
            "simultaneous interval": _raw(cells, t.index),
            "tier": t["tier"],
            "games": _raw(
                [
                    Raw("exact") if e else Raw(number(g))
                    for e, g in zip(t["exact"], t["games"], strict=True)
                ],
                t.index,
            ),
        },
        index=t.index,
    )
    # by choice the width of the page (table*): the strategy names, five columns and the
    # guarantee under them do not fit one column of a two-column article
    return latex_table(
        frame,
        "Ranking of the strategies by mean final score. Behind the best: the best mean minus "
        "the strategy's, with its simultaneous interval; strategies sharing a letter in the "
        f"tier column cannot be told apart ({ranking.procedure}, α = {ranking.alpha:g}).",
        "tab:ranking",
        note=ranking.guarantee,
        wide=True,
    )


def _raw(cells: list, index: pd.Index) -> pd.Series:
    """A column of :class:`~yahtzee_sim.analysis.report.latex.Raw` cells kept as they are
    (``object`` dtype: a column of strings would lose the type and be escaped)."""
    return pd.Series(cells, index=index, dtype=object)


def write_ranking_csv(folder: DocumentFolder, ranking: RankingResult) -> None:
    """Write ``ranking.csv`` and ``ranking_pairs.csv`` into ``folder``."""
    folder.csv(ranking.table, "ranking.csv")
    folder.csv(ranking.pairs, "ranking_pairs.csv", index=False)


def write_ranking_files(out: str | Path, ranking: RankingResult) -> list[str]:
    """Write :data:`RANKING_FILES` into the folder ``out`` (created), each file atomically,
    the same bytes as the report's for the same ranking; return their names."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    folder = DocumentFolder(out, "ranking")
    write_ranking_csv(folder, ranking)
    folder.text(ranking_latex(ranking), "ranking.tex")
    return list(folder.files)
