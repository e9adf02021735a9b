"""Writing a :class:`~yahtzee_sim.analysis.report.build.Report` to a folder.

:func:`write_report` writes ``report.md`` and ``report.html`` (the same content), PNG
figures and the data behind every table and figure as CSV, each file atomically
(:class:`~yahtzee_sim.analysis.report.document.DocumentFolder`): one function per section
of the report, in the order of :func:`write_report`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from yahtzee_sim.analysis import plots
from yahtzee_sim.analysis.report.build import REFERENCE, Report, ReportError
from yahtzee_sim.analysis.report.document import DocumentFolder
from yahtzee_sim.analysis.report.figures import (
    box_means_figure,
    distributions_figure,
    report_styles,
    survival_figure,
)
from yahtzee_sim.analysis.report.paper import write_paper_files
from yahtzee_sim.analysis.report.ranking_files import (
    BEHIND,
    pairs_display,
    ranking_display,
    write_ranking_csv,
)
from yahtzee_sim.analysis.report.tables import ci_note, selection_table, summary_display
from yahtzee_sim.analysis.style import (
    COLUMN_WIDTH,
    FULL_WIDTH,
    figure_style,
    parse_figure_formats,
)
from yahtzee_sim.game.boxnames import kind_box_plural
from yahtzee_sim.game.rules import RuleSet, get_rules


def report_folder(out: str | Path | None, rules: str | RuleSet) -> Path:
    """The folder a report on ``rules`` is written to: ``out``, or ``reports/<rules>``.

    Nothing is created: a caller checks the folder before the long computation.

    Raises
    ------
    ReportError
        If ``out`` exists and is not a folder.
    """
    out = Path(out) if out is not None else Path("reports") / get_rules(rules).name
    if out.exists() and not out.is_dir():
        raise ReportError(f"out: {str(out)!r} exists and is not a folder")
    return out


def write_report(
    report: Report, out: str | Path | None = None, figure_formats: tuple[str, ...] = ("png",)
) -> list[str]:
    """Write ``report`` to the folder ``out`` (created; default ``reports/<rules>``).

    The sections come in this order: summary, score distributions, per-box
    statistics, full ranking, selection of the best (Kim–Nelson), head to head, regret,
    methods (with the LaTeX tables and BibTeX file for a paper), what was left out.

    Parameters
    ----------
    report : Report
        What :func:`~yahtzee_sim.analysis.report.build.build_report` computed.
    out : path, optional
        The report folder (:func:`report_folder`).
    figure_formats : tuple of str
        The formats of every figure (``png``, ``pdf``, ``svg``; checked by
        :func:`~yahtzee_sim.analysis.style.parse_figure_formats`).

    Returns
    -------
    list of str
        The files written, relative to ``out``: ``report.md`` and ``report.html`` first.

    Raises
    ------
    ReportError
        If ``out`` exists and is not a folder.
    FigureFormatError
        If a figure format is unknown.
    """
    import matplotlib

    matplotlib.use("Agg")
    formats = parse_figure_formats(figure_formats)
    out = report_folder(out, report.rules)
    out.mkdir(parents=True, exist_ok=True)
    folder = DocumentFolder(out, f"Strategy report — {report.rules.name}", formats)
    with figure_style():
        for section in (
            _write_summary,
            _write_distributions,
            _write_boxes,
            _write_full_ranking,
            _write_selection,
            _write_head_to_head,
            _write_regret,
            _write_methods,
            _write_skipped,
        ):
            section(folder, report)
    return folder.finish()


def _write_summary(folder: DocumentFolder, report: Report) -> None:
    """``summary.csv`` and the summary table, after the paragraph on how it was made."""
    folder.csv(report.summary, "summary.csv")
    doc = folder.doc
    doc.paragraph(
        f"Rules `{report.rules.name}`; {report.games:,} simulated games per strategy, seed "
        f"{report.seed} (common random numbers: every strategy sees the same dice). Exact figures "
        f"come from the exact evaluator (deterministic strategies only); `{REFERENCE}` is the "
        "reference."
    )
    doc.heading("Summary")
    kinds = kind_box_plural(report.rules)  # the n-of-a-kind box as the rules name it
    kinds = "n-of-a-kind turns" if kinds == "n-of-a-kinds" else f"{kinds} (n-of-a-kind turns)"
    doc.paragraph(
        "Exact mean and SD where the strategy is deterministic (– for the others); simulated "
        "mean, SD, 95% confidence interval of the mean, minimum, 10th percentile, median, "
        f"maximum, share of games with the upper bonus and {kinds} per game."
    )
    doc.table(summary_display(report.summary), formats={"p10": ".1f", "median": ".1f"})
    note = ci_note(report.summary, code=True)
    if note:
        doc.paragraph(note)


def _write_distributions(folder: DocumentFolder, report: Report) -> None:
    """Histogram panels and survival panels with the CSV files of what they draw, and the
    raw ``exact_pmf.csv`` and ``histograms.csv`` (one row per score)."""
    folder.doc.heading("Score distributions")
    fig, drawn, width = distributions_figure(report)
    folder.csv(drawn, "distributions.csv", index=False)
    folder.figure(
        fig,
        "distributions.png",
        f"Distribution of the final score: simulated games ({report.games:,} per strategy) in "
        f"{width}-point bins (Freedman–Diaconis width, the widest over the strategies), as "
        "probability per point; black line: the exact law summed over the same bins "
        "(deterministic strategies).",
        data="distributions.csv",
    )
    fig, curves = survival_figure(report)
    folder.csv(curves, "survival.csv")
    folder.figure(
        fig,
        "survival.png",
        f"Survival curves P(final score ≥ x), one panel per strategy (colour) with {REFERENCE} "
        "(black, dashed) and the other strategies (grey): exact for deterministic strategies, "
        "empirical otherwise.",
        data="survival.csv",
    )
    det = [s for s in report.ranked if s in report.laws]
    pmf = pd.DataFrame({sid: pd.Series(report.laws[sid].pmf) for sid in det})
    pmf.index.name = "score"
    folder.csv(pmf.fillna(0.0), "exact_pmf.csv")
    hist = pd.DataFrame(
        {sid: pd.Series(np.asarray(report.sims[sid].histogram)) for sid in report.ids}
    )
    hist.index.name = "score"
    folder.csv(hist.fillna(0).astype(np.int64), "histograms.csv")


def _write_boxes(folder: DocumentFolder, report: Report) -> None:
    """The three per-box tables (and their CSV files) and the per-box means figure."""
    tables = report.box_tables
    doc = folder.doc
    doc.heading("Per-box statistics")
    for key, title, fmt in (
        ("mean", "Mean points per box", ".2f"),
        ("zero", "% of games with 0 points in the box", ".1f"),
        ("turn", "Average turn in which the box is filled", ".2f"),
    ):
        doc.heading(title, 3)
        doc.table(tables[key], floatfmt=fmt)
        folder.csv(tables[key], f"boxes_{key}.csv")
    folder.figure(
        box_means_figure(report),
        "box_means.png",
        "Mean points per box, one marker per strategy (in the order of the legend, top to "
        "bottom within a box); bars: optimal play (exact).",
        data="boxes_mean.csv",
    )


def _write_full_ranking(folder: DocumentFolder, report: Report) -> None:
    """The full ranking: tiers, the differences to the best with their simultaneous
    intervals, every pair, the guarantee (:mod:`~yahtzee_sim.analysis.report.ranking_files`)."""
    ranking, doc = report.ranking, folder.doc
    table = ranking.table
    doc.heading("Full ranking")
    exact = [f"`{s}`" for s in table.index if table.loc[s, "exact"]]
    random = [f"`{s}`" for s in table.index if not table.loc[s, "exact"]]
    doc.paragraph(
        f"Every pair of strategies compared ({ranking.procedure}; α = {ranking.alpha:g}). "
        f"Ranked by their exact means (their order among themselves is certain): "
        f"{', '.join(exact) or 'none'}. Ranked from "
        + (f"{ranking.games:,} simulated games each" if random else "simulated games")
        + f" (their order needs statistics): {', '.join(random) or 'none'}. `{BEHIND}`: the "
        "best mean minus the strategy's, with its simultaneous interval (every pair's is "
        "below). Strategies that share a letter in `tier` cannot be told apart."
    )
    doc.paragraph(f"**Guarantee.** {ranking.guarantee}")
    doc.table(ranking_display(ranking))
    write_ranking_csv(folder, ranking)
    fig, ax = _plt().subplots(figsize=(FULL_WIDTH, 0.22 * len(table) + 1.0))
    plots.plot_ranking(table, ax=ax, styles=report_styles(report))
    if plots.shows_gaps(table):
        caption = (
            f"Points behind `{table.index[0]}` (exact mean {table['mean'].iloc[0]:.2f}) in "
            "rank order, on a log scale (linear below the smallest gap) so that small gaps "
            "show beside large ones, each gap printed at the right; diamonds: exact means, "
            "no uncertainty; a simulated mean with its simultaneous interval. Strategies "
            "sharing a tier letter cannot be told apart."
        )
    else:
        caption = (
            "Means in rank order with simultaneous intervals (diamonds: exact means, no "
            "uncertainty); strategies sharing a tier letter cannot be told apart."
        )
    folder.figure(fig, "ranking.png", caption, data="ranking.csv")
    pairs = ranking.pairs
    doc.heading("Pairs with uncertainty", 3)
    doc.paragraph(
        f"Pairs tested: {ranking.tested_pairs}, shown below; compared by exact means (no "
        f"uncertainty: an interval of width 0, in `ranking_pairs.csv` with the others): "
        f"{int(pairs['exact'].sum())}. Difference = first − second; a pair is different "
        "when its simultaneous interval excludes 0; `p (Bonferroni)` is the adjusted p-value "
        "(below α exactly then)."
    )
    tested = pairs[~pairs["exact"]].reset_index(drop=True)
    doc.table(pairs_display(tested), floatfmt=".3g", index=False)


def _write_selection(folder: DocumentFolder, report: Report) -> None:
    """The Kim–Nelson selection of the best with MCB beside it, its CSV files and trace
    figure (or why it did not run)."""
    doc, kn = folder.doc, report.kn
    doc.heading("Selection of the best (Kim–Nelson)")
    if kn is None:
        doc.paragraph(f"Not run: {report.skipped.get('Kim–Nelson', '')}")
        return
    p = kn.parameters
    batch = int(p.get("batch", 1))
    used = sum(int(v) for v in kn.observations.values()) * batch
    table = selection_table(kn, report.mcb)
    doc.paragraph(
        f"Procedure KN (Kim & Nelson 2001), indifference zone δ = {p.get('delta', 1.0):g}, "
        f"α = {p.get('alpha', 0.05):g}; one observation = the mean of {batch} games (CRN). "
        f"Winner: **{', '.join(kn.winners)}**. Games: {int(p.get('games', 0)):,} drawn "
        f"(ahead, in blocks), {used:,} used. KN selects the best: with probability at least "
        f"{1 - p.get('alpha', 0.05):g} the winner is within δ of the best mean; the order of "
        "the others carries no guarantee (the full ranking above gives one). `MCB interval`: "
        "Hsu's simultaneous interval of the strategy's mean minus the best of the others, on "
        "the observations every strategy took; an upper end above 0 means it may be the best."
    )
    doc.table(table)
    folder.csv(table, "kim_nelson.csv")
    folder.csv(kn.trace, "kim_nelson_trace.csv", index=False)
    stages = kn.trace["stage"].unique()
    if len(stages) == 1:  # a trace of one point per strategy: the table says it all
        doc.paragraph(
            f"Every strategy was decided at the first stage ({int(stages[0]):,} observations): "
            "no elimination trace is drawn (the running means are the table's)."
        )
        return
    fig, ax = _plt().subplots(figsize=(FULL_WIDTH, 3.2))
    plots.plot_kn_trace(kn, ax=ax, styles=report_styles(report))
    folder.figure(
        fig,
        "kn_trace.png",
        "Kim–Nelson elimination trace: each strategy's running mean against the stage (log "
        "scale), its line ending with its marker where it was eliminated; the winner's runs "
        "to the last stage.",
        data="kim_nelson_trace.csv",
    )


def _write_head_to_head(folder: DocumentFolder, report: Report) -> None:
    """``win_matrix.csv``, its table and its figure."""
    wm = report.win_matrix
    folder.csv(wm, "win_matrix.csv")
    doc = folder.doc
    doc.heading("Head to head")
    doc.paragraph(
        "Probability that the row strategy beats the column strategy in a blind two-player "
        "game (each on its own dice, ties count half), from the exact distributions where "
        "available, else the simulated ones."
    )
    doc.table(wm, floatfmt=".3f")
    n = len(report.ranked)
    width = COLUMN_WIDTH if n <= 5 else FULL_WIDTH
    fig, ax = _plt().subplots(figsize=(width, min(0.3 * n + 2.0, 0.8 * width)))
    plots.plot_win_matrix(wm, ax=ax)
    folder.figure(
        fig,
        "win_matrix.png",
        "P(row beats column) in a blind two-player game, ties counting half.",
        data="win_matrix.csv",
    )


def _write_regret(folder: DocumentFolder, report: Report) -> None:
    """Loss by decision type and by turn, and the costliest situations of the three
    strategies that lose the fewest points (nothing without regret results)."""
    if not report.regrets:
        return
    doc = folder.doc
    doc.heading("Regret: where the points are lost against optimal play")
    doc.paragraph(
        "Exact expected points lost at each kind of decision, from the strategy's reach "
        "probabilities and the optimal value of every option; the losses add up to the "
        "gap between optimal and the strategy's exact mean."
    )
    table = report.regret_table
    doc.table(table)
    folder.csv(table, "regret.csv")
    by_turn = pd.DataFrame({sid: report.regrets[sid].by_turn for sid in table.index})
    folder.csv(by_turn, "regret_by_turn.csv")
    fig, ax = _plt().subplots(figsize=(FULL_WIDTH, 3.2))
    plots.plot_regret_by_turn(by_turn, ax=ax, styles=report_styles(report))
    folder.figure(
        fig,
        "regret_by_turn.png",
        "Expected loss against optimal play by turn (the points each strategy loses, in "
        "expectation, at the decisions of that turn).",
        data="regret_by_turn.csv",
    )
    situations = []
    for sid in table.index[:3]:
        doc.heading(f"Costliest situations of `{sid}`", 3)
        s = report.regrets[sid].situations.copy()
        doc.table(s.drop(columns=["yahtzee_scored"]), floatfmt=".4g", index=False)
        situations.append(s.assign(strategy=sid))
    if situations:
        folder.csv(pd.concat(situations), "regret_situations.csv", index=False)


def _write_methods(folder: DocumentFolder, report: Report) -> None:
    """The methods paragraph, and the LaTeX tables, methods and BibTeX files for a paper."""
    from yahtzee_sim.analysis.report.methods import methods_paragraph

    doc = folder.doc
    doc.heading("Methods")
    doc.paragraph(methods_paragraph(report))
    files = write_paper_files(folder, report)
    doc.paragraph(
        "For a paper: " + ", ".join(f"`{name}`" for name in files) + " (booktabs tables, "
        "the paragraph above with `\\cite` keys, and the BibTeX entries it cites; "
        "`\\input` them after `\\usepackage{booktabs}`)."
    )


def _write_skipped(folder: DocumentFolder, report: Report) -> None:
    """One paragraph per strategy or step left out, with the reason."""
    if not report.skipped:
        return
    folder.doc.heading("Left out")
    for what, why in report.skipped.items():
        folder.doc.paragraph(f"`{what}`: {why}")


def _plt():
    """``matplotlib.pyplot`` (imported on first use: the Agg backend is chosen first)."""
    import matplotlib.pyplot as plt

    return plt
