"""Writing a :class:`~yahtzee_sim.analysis.report.reproduction.rows.Reproduction` to a folder.

:func:`write_reproduction` writes ``report.md`` and ``report.html`` (the documented gaps
first, then one table per published table), ``reproduction.csv`` and
``reproduction.json`` (every row), ``kim_nelson.csv`` (every Kim–Nelson run) and
``tables_8_10.png`` ("Simulating Yahtzee" Tables 8–10: the paper's bars, our dots), each
file atomically. What goes with a published table is placed by the table's identifier
(:attr:`~yahtzee_sim.analysis.report.reproduction.rows.Row.table_id`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from yahtzee_sim.analysis.report.document import DocumentFolder
from yahtzee_sim.analysis.report.reproduction.papers import (
    SY_BOX_TABLES,
    SY_KN_TABLES,
    sy_table_id,
)
from yahtzee_sim.analysis.report.reproduction.rows import Reproduction, Row
from yahtzee_sim.analysis.style import figure_style
from yahtzee_sim.engine.atomic import write_atomic

#: The table after which the per-box figure comes ("Simulating Yahtzee" Table 8) and the
#: one after which the Kim–Nelson runs come (the last Kim–Nelson table, Table 7).
FIGURE_AFTER = SY_BOX_TABLES[0].table_id
RUNS_AFTER = sy_table_id(list(SY_KN_TABLES)[-1])
#: The opening paragraph, with the games and seed of the run.
INTRODUCTION = (
    "Every figure the sources publish that the project can compute: paper, ours, the "
    "difference, and how ours was obtained (exact, or {games:,} simulated games, "
    "seed {seed}, with the 95% confidence interval of the mean). Sources: the "
    "handbook's Bibliography. A strategy's published figure either agrees with the paper "
    "(status `agrees`: within the paper's precision or 1 point, 1 percentage point for a "
    "rate, beyond sampling error) or is a documented gap (status `gap`, listed first "
    "with its reason)."
)


def write_reproduction(rep: Reproduction, out: Path, kn_frame: pd.DataFrame | None) -> list[str]:
    """Write ``rep`` (and the Kim–Nelson runs ``kn_frame``, if any) to the folder ``out``
    (it exists); the files written, ``report.md`` and ``report.html`` first."""
    import matplotlib

    matplotlib.use("Agg")
    folder = DocumentFolder(out, "Reproduction of the published tables")
    frame = rep.frame()
    folder.csv(frame, "reproduction.csv", index=False, float_format="%.10g")
    if kn_frame is not None:
        folder.csv(kn_frame, "kim_nelson.csv", index=False)
    folder.doc.paragraph(INTRODUCTION.format(games=rep.games, seed=rep.seed))
    for what, why in rep.skipped.items():
        folder.doc.paragraph(f"Skipped: {what} ({why}).")
    _write_gaps(folder, rep.gaps())
    with figure_style():
        for _, part in frame.groupby("table", sort=False):
            _write_table(folder, part, rep.rows[part.index[0]].table_id, rep.rows, kn_frame)
    files = folder.finish()
    data = rep.to_dict() | {"files": files}
    data.pop("out")  # the file is the same wherever the folder is
    write_atomic(out / "reproduction.json", json.dumps(data, indent=1))
    return [*files, "reproduction.json"]


def _fmt(value) -> str:
    """A figure as shown: thousands separated, 4 decimals, tiny values in scientific form."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if float(value) == int(value) and abs(value) >= 1:
        return f"{int(value):,}"
    if abs(value) < 1e-4 and value != 0:
        return f"{value:.4e}"
    return f"{value:.4f}"


def _write_gaps(folder: DocumentFolder, gaps: pd.DataFrame) -> None:
    """The documented gaps, first (nothing when there is none)."""
    if not len(gaps):
        return
    folder.doc.heading("Documented gaps")
    shown = pd.DataFrame(
        {
            "table": gaps["table"],
            "figure": gaps["item"],
            "paper": [_fmt(v) for v in gaps["paper"]],
            "ours": [_fmt(v) for v in gaps["ours"]],
            "gap": [f"{v:+.4f}" for v in gaps["difference"]],
            "reason": gaps["note"],
        }
    )
    folder.doc.table(shown, index=False)


def _method(method: str, games: float, lo, hi) -> str:
    """``exact``, or ``simulated, n=…`` with the confidence interval when there is one."""
    if method == "exact":
        return method
    ci = f", CI {_fmt(lo)}–{_fmt(hi)}" if lo == lo and lo is not None else ""
    return f"simulated, n={int(games):,}" + ci


def _write_table(folder: DocumentFolder, part: pd.DataFrame, table_id: str, rows, kn_frame):
    """One published table (the rows of ``part``), then what is placed after it: the
    per-box figure, the Kim–Nelson runs."""
    folder.doc.heading(part["table"].iloc[0])
    shown = pd.DataFrame(
        {
            "figure": part["item"],
            "paper": [_fmt(v) for v in part["paper"]],
            "ours": [_fmt(v) for v in part["ours"]],
            "difference": [
                f"{v:+.4f}" if abs(v) >= 1e-4 or v == 0 else f"{v:+.2e}" for v in part["difference"]
            ],
            "method": [
                _method(*args)
                for args in zip(
                    part["method"],
                    part["games"].fillna(0),
                    part["ci_low"],
                    part["ci_high"],
                    strict=True,
                )
            ],
            "status": part["status"],
            "note": part["note"],
        }
    )
    folder.doc.table(shown, index=False)
    if table_id == FIGURE_AFTER:
        folder.figure(
            _plot_box_tables(rows),
            "tables_8_10.png",
            "Tables 8–10: the paper's per-box figures (bars) and ours (dots)",
        )
    if table_id == RUNS_AFTER and kn_frame is not None:
        folder.doc.paragraph(
            "Every Kim–Nelson run (single-game observations as the paper; Table 3 also "
            "with batch means of 10 games):"
        )
        folder.doc.table(kn_frame, index=False)


def _plot_box_tables(rows: list[Row]):
    """Tables 8–10 of greedy and Glenn 2007 rules: the paper's bars, our dots (a figure)."""
    import matplotlib.pyplot as plt

    from yahtzee_sim.analysis.plots import legend_outside
    from yahtzee_sim.analysis.style import FULL_WIDTH, strategy_styles

    fig, axes = plt.subplots(3, 1, figsize=(FULL_WIDTH, 6.5), sharex=True)
    boxes = None
    strategies = ("greedy", "glenn-2007-rules")
    colors = [style.color for style in strategy_styles(strategies).values()]
    for ax, table in zip(axes, SY_BOX_TABLES, strict=True):
        for i, sid in enumerate(strategies):
            sel = [r for r in rows if r.table_id == table.table_id and r.box and r.strategy == sid]
            labels = [r.box for r in sel]
            boxes = labels if boxes is None else boxes
            x = np.arange(len(labels)) + (i - 0.5) * 0.38
            paper, ours = [r.paper for r in sel], [r.ours for r in sel]
            ax.bar(x, paper, width=0.36, color=colors[i], alpha=0.45, label=f"{sid}: paper")
            ax.plot(x, ours, "o", color=colors[i], ms=4, label=f"{sid}: ours")
        ax.set_ylabel(table.what)
        ax.set_title(f'"Simulating Yahtzee" {table.number}', fontsize="medium")
    axes[-1].set_xticks(np.arange(len(boxes)))
    axes[-1].set_xticklabels(boxes, rotation=40, ha="right")
    legend_outside(axes[0])
    return fig
