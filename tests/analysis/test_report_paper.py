"""The report computes, then writes: arguments checked first, strategies looked up once,
the full ranking and selection sections, LaTeX tables that compile, the BibTeX file."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from yahtzee_sim.analysis.report import build as build_module
from yahtzee_sim.analysis.report import plan as plan_module
from yahtzee_sim.analysis.report.build import Report, ReportError, build_report
from yahtzee_sim.analysis.report.document import Document
from yahtzee_sim.analysis.report.latex import (
    LABEL_CHARACTERS,
    Raw,
    escape,
    header,
    interval,
    latex_table,
    marked,
    number,
    row_label,
    whole_columns,
)
from yahtzee_sim.analysis.report.methods import methods_paragraph
from yahtzee_sim.analysis.report.paper import PAPER_FILES, summary_latex
from yahtzee_sim.analysis.report.tables import ci_misses, ci_note, summary_display
from yahtzee_sim.analysis.report.write import write_report

ARGS = dict(rules="2-yatzy", strategies="greedy,random", n_games=500, seed=1, progress=False)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A report on the toy game, its folder, and the string lookups of strategies it made."""
    import yahtzee_sim.engine.simulate as simulate_module
    import yahtzee_sim.strategies as strategies_module

    lookups: list[str] = []

    def counting(original):
        def get_strategy(strategy, *args, **kwargs):
            if isinstance(strategy, str):
                lookups.append(strategy)
            return original(strategy, *args, **kwargs)

        return get_strategy

    with pytest.MonkeyPatch.context() as mp:
        for module in (strategies_module, simulate_module):
            mp.setattr(module, "get_strategy", counting(module.get_strategy))
        report = build_report(**ARGS)
    out = tmp_path_factory.mktemp("report")
    files = write_report(report, out)
    return report, out, files, lookups


def test_each_strategy_is_looked_up_once(written):
    report, _, _, lookups = written
    assert sorted(lookups) == ["greedy", "optimal", "random"]
    assert list(report.strategies) == report.ids == ["greedy", "random", "optimal"]


def test_bad_arguments_fail_before_any_work(monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("work started before the arguments were checked")

    monkeypatch.setattr(build_module, "_build", no_work)
    monkeypatch.setattr(plan_module, "resolve_strategies", no_work)
    for bad, needle in (
        (dict(regret_top=-1), "regret_top must be an integer >= 0, got -1"),
        (dict(n_games=10), "n_games must be an integer >= 100"),
        (dict(n_jobs=0), "n_jobs"),
        (dict(seed=-1), "seed"),
        (dict(quick=1), "quick"),
    ):
        with pytest.raises(ReportError, match=re.escape(needle)):
            build_report(rules="2-yatzy", **bad)


@pytest.mark.slow
def test_the_writer_computes_nothing(written, tmp_path, monkeypatch):
    report, out, files, _ = written
    from yahtzee_sim.analysis import headtohead

    def refused(*args, **kwargs):
        raise AssertionError("computed while writing")

    monkeypatch.setattr(headtohead, "win_matrix", refused)
    monkeypatch.setattr(build_module, "rank_scores", refused)
    assert write_report(report, tmp_path) == files
    for name in files:
        if not name.endswith(".png"):  # the same files, byte for byte
            assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name
    assert isinstance(report.win_matrix, pd.DataFrame)  # a field, computed in build
    assert "win_matrix" in Report.__dataclass_fields__


def test_ranking_and_selection_sections(written):
    report, out, files, _ = written
    md = (out / "report.md").read_text()
    for needle in (
        "## Full ranking",
        "**Guarantee.** With probability at least 0.95",
        "Ranked by their exact means (their order among themselves is certain): "
        "`optimal`, `greedy`",
        "(their order needs statistics): `random`",
        "## Selection of the best (Kim–Nelson)",
        "the order of the others carries no guarantee",
        "## Methods",
    ):
        assert needle in md, needle
    assert "Kim–Nelson ranking" not in md
    assert "upper bonus and n-of-a-kind turns per game" in md  # 2-yatzy has no such box
    assert "Yahtzees" not in md.split("## Summary")[1].split("|")[0]
    games = report.kn.parameters["games"]
    used = sum(report.kn.observations.values()) * report.kn.parameters["batch"]
    assert f"Games: {games:,} drawn (ahead, in blocks), {used:,} used." in md
    kn = pd.read_csv(out / "kim_nelson.csv", index_col=0)
    assert kn["observations"].dtype == np.int64 and "MCB interval" in kn.columns
    section = md.split("## Selection of the best")[1].split("##")[0]
    assert not re.search(r"\| \d+\.00 \|", section)  # counts print as integers
    ranking = pd.read_csv(out / "ranking.csv", index_col=0)
    assert list(ranking.index) == ["optimal", "greedy", "random"]
    assert list(ranking.columns) == [
        *("mean", "low", "high", "tier", "exact", "games", "behind", "behind_low", "behind_high")
    ]
    assert ranking.loc["optimal", "mean"] == pytest.approx(5.0)
    assert ranking["exact"].tolist() == [True, True, False]
    pairs = pd.read_csv(out / "ranking_pairs.csv")
    assert len(pairs) == 3 and pairs["exact"].sum() == 1
    assert set(PAPER_FILES) <= set(files)


def test_one_guarantee_sentence_in_every_output(written):
    from yahtzee_sim.cli.rank import format_ranking
    from yahtzee_sim.cli.report import format_report

    report, out, files, _ = written
    sentence = report.ranking.guarantee
    assert sentence.startswith("With probability at least 0.95") and "Bonferroni" in sentence
    md = (out / "report.md").read_text()
    assert f"**Guarantee.** {sentence}" in md
    assert sentence in md.split("## Methods")[1]  # the methods paragraph
    assert sentence in (out / "methods.tex").read_text()
    assert sentence in (out / "ranking.tex").read_text()  # the note under the table
    assert sentence in format_report(report, out, files, 1.0).splitlines()[-2]
    assert sentence in format_ranking(report.ranking, "2-yatzy", 1).splitlines()
    ranked_by = "The ranking takes their exact means and the simulated games of the others"
    assert f"{ranked_by} (`random`)." in methods_paragraph(report)


def test_ranking_table_shows_the_differences_to_the_best(written):
    report, out, _, _ = written
    tex = (out / "ranking.tex").read_text()
    rows = {line.split(" & ")[0]: line.split(" & ") for line in tex.splitlines() if " & " in line}
    pairs = report.ranking.pairs.set_index(["first", "second"])
    best = report.ranking.table.index[0]
    assert rows["optimal"][2:4] == ["--", "--"]  # the best: nothing behind it (en dashes)
    for sid in ("greedy", "random"):
        pair = pairs.loc[(best, sid)]
        assert rows[sid][2] == f"{pair['difference']:.2f}"
        shown = "exact" if pair["exact"] else f"[{pair['low']:.2f}, {pair['high']:.2f}]"
        assert rows[sid][3] == shown.replace("-", "$-$")
    # the games of an exact mean: "exact", never 0
    assert [rows[s][5].split()[0] for s in ("optimal", "greedy", "random")] == [
        "exact",
        "exact",
        "500",
    ]
    md = (out / "report.md").read_text()
    assert "| random | " in md and "| behind the best |" in md


def test_rank_out_writes_the_files_of_the_reports_ranking(written, tmp_path):
    from yahtzee_sim.analysis.report.ranking_files import RANKING_FILES
    from yahtzee_sim.cli import main

    _, out, _, _ = written
    folder = tmp_path / "ranking"
    # the report's strategies (optimal added), games, seed and rules: the same files
    args = ["--strategies", "greedy,random,optimal", "--rules", "2-yatzy", "--games", "500"]
    assert main(["rank", *args, "--seed", "1", "--out", str(folder), "--quiet"]) == 0
    for name in RANKING_FILES:
        assert (folder / name).read_bytes() == (out / name).read_bytes(), name


def test_simulate_all_ranks_every_strategy_by_its_games():
    from yahtzee_sim.analysis import rank_strategies

    report = build_report(**ARGS, quick=True, simulate_all=True)
    table = report.ranking.table
    assert not table["exact"].any() and report.ranking.tested_pairs == 3
    assert set(report.exact) == {"greedy", "optimal"}  # still evaluated exactly
    ids = ["greedy", "random", "optimal"]
    same = rank_strategies(ids, n_games=500, seed=1, rules="2-yatzy", exact=False, progress=False)
    assert table.equals(same.table) and report.ranking.pairs.equals(same.pairs)
    assert "The ranking takes every strategy's simulated games." in methods_paragraph(report)


def test_latex_cells():
    assert escape("a_b & 50% #1 {x} ~ ^ \\ $") == (
        r"a\_b \& 50\% \#1 \{x\} \textasciitilde{} \textasciicircum{} \textbackslash{} \$"
    )
    assert escape("optimal − strategy ≥ α ± †") == (
        r"optimal $-$ strategy $\geq$ $\alpha$ $\pm$ \textsuperscript{\textdagger}"
    )
    assert number(np.int64(100000)) == "100{,}000" and number(-1.5) == "$-$1.50"
    assert number(float("nan")) == "--" and number(np.bool_(True)) == "yes"
    assert number(203.0, 0) == "203" and number(-12345.0, 0) == "$-$12{,}345"
    assert interval(-1.234, 2.0) == "[$-$1.23, 2.00]" and isinstance(interval(0, 1), Raw)
    frame = pd.DataFrame({"games": np.array([100000, 5]), "mean": [1.0, 2.5]}, index=["a_1", "b"])
    tex = latex_table(frame, "50% of α", "tab:x")
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"a\_1 & 100{,}000 & 1.00 \\" in tex and r"\caption{50\% of $\alpha$}" in tex
    assert tex.startswith(r"\begin{table}[htbp]") and tex.endswith("\\end{table}\n")


def test_integers_print_as_integers_and_missing_cells_as_a_dash():
    frame = pd.DataFrame(
        {"p10": [194.0, 190.0], "median": [248.0, 243.5], "exact SD": [59.61, np.nan]},
        index=["optimal", "random"],
    )
    assert whole_columns(frame) == ["p10"]
    tex = latex_table(frame, "c", "tab:c", decimals={"p10": 1, "median": 1})
    assert r"optimal & 194 & 248.0 & 59.61 \\" in tex  # not 194.0
    assert r"random & 190 & 243.5 & -- \\" in tex  # an en dash where nothing applies
    doc = Document("t")
    doc.table(frame, formats={"median": ".1f"})
    md = doc.to_markdown()
    assert "| optimal | 194 | 248.0 | 59.61 |" in md and "| random | 190 | 243.5 | – |" in md


def test_headers_and_long_labels_are_set_on_several_lines():
    assert header("mean") == "mean" and header("exact SD") == "exact SD"
    assert header("keep, 2 rerolls left") == r"\shortstack{keep, 2\\rerolls\\left}"
    assert row_label("glenn-heuristic") == "glenn-heuristic"
    two = row_label("glenn-yahtzees-and-straights")
    assert two == r"\begin{tabular}[t]{@{}l@{}}glenn-yahtzees-\\and-straights\end{tabular}"
    long = "a-label-of-the-longest-length-allowed-40"  # 40 characters: the longest label
    inner = row_label(long).removeprefix(r"\begin{tabular}[t]{@{}l@{}}")
    lines = inner.removesuffix(r"\end{tabular}").split(r"\\")
    assert "".join(lines) == long and all(len(line) <= LABEL_CHARACTERS for line in lines)
    assert lines == ["a-label-of-the-", "longest-length-", "allowed-40"]
    assert row_label("no_cut_" + "x" * 30).count(r"\\") == 1  # cut after the underscore
    assert row_label("x" * 30) == "x" * 30  # nowhere to cut: one line


def test_wide_tables_marks_and_cells_already_in_latex():
    frame = pd.DataFrame({"ci": ["1.00", "2.00"]}, index=["a", "b"])
    frame["ci"] = [marked("1.00"), interval(-1, 1)]  # pandas may store them as str
    tex = latex_table(frame, "c", "tab:c", wide=True, align={"ci": "r"}, raw=["ci"], note="† x")
    assert tex.startswith(r"\begin{table*}") and tex.endswith("\\end{table*}\n")
    assert r"\begin{tabular}{lr}" in tex
    assert r"a & 1.00\rlap{\textsuperscript{\textdagger}} \\" in tex
    assert r"b & [$-$1.00, 1.00] \\" in tex
    assert r"\textsuperscript{\textdagger} x\par}" in tex


@pytest.mark.slow
def test_a_ci_that_excludes_the_exact_mean_gets_a_note(written, tmp_path):
    report = written[0]
    summary = report.summary.copy()
    assert {"exact SD", "CI low", "CI high"} <= set(summary.columns)
    assert ci_misses(summary) == [] or ci_note(summary) is not None
    summary.loc["greedy", "exact mean"] = summary.loc["greedy", "CI high"] + 0.01
    assert ci_misses(summary) == ["greedy"]
    note = ci_note(summary, code=True)
    assert "`greedy` excludes its exact mean" in note and "common random numbers" in note
    shown = summary_display(summary)
    assert "CI low" not in shown and shown.loc["greedy", "95% CI"].endswith(" †")
    missed = dataclasses.replace(report, summary=summary)
    tex = summary_latex(missed)
    assert r"\rlap{\textsuperscript{\textdagger}}" in tex and "excludes its exact mean" in tex
    assert r"\begin{table*}" in tex and r"& exact SD &" in tex
    write_report(missed, tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "† The 95% CI of the simulated mean of `greedy` excludes its exact mean." in md


def test_the_summary_table_shows_the_exact_sd(written):
    report, out, _, _ = written
    tex = (out / "summary.tex").read_text()
    sd = report.summary.loc["greedy", "exact SD"]
    assert f"{sd:.2f}" in tex.split("greedy &")[1].split(r"\\")[0]
    assert "random & -- & --" in tex  # nothing printed where the exact columns do not apply
    regret = (out / "regret.tex").read_text()
    assert "sum of losses" not in regret and "optimal $-$" in regret
    summary = pd.read_csv(out / "summary.csv", index_col=0)
    assert {"exact SD", "CI low", "CI high"} <= set(summary.columns)


LONG_LABELS = ("greedy-with-a-long-label-of-forty-chars", "random-with-a-long-label-of-forty-chars")


@pytest.fixture(scope="module")
def long_labels(tmp_path_factory):
    """The LaTeX files of a report whose strategies have labels of the longest length."""
    from yahtzee_sim.strategies import get_strategy

    strategies = [
        get_strategy(s).labelled(label)
        for s, label in zip(("greedy", "random"), LONG_LABELS, strict=True)
    ]
    report = build_report(
        rules="2-yatzy", strategies=strategies, n_games=500, seed=1, progress=False
    )
    out = tmp_path_factory.mktemp("long")
    write_report(report, out)
    return out


DOCUMENT = r"""\documentclass[CLASS]{article}
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\begin{document}
\input{methods}
\input{summary}
\input{ranking}
\input{regret}
\bibliographystyle{plain}
\bibliography{references}
\end{document}
"""


#: An article with one of the report's LaTeX files.
ONE_TABLE = r"""\documentclass[CLASS]{article}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\begin{document}
\input{NAME}
\end{document}
"""


def _pdflatex(folder, source: str, bibtex: bool = False) -> str:
    """Compile ``paper.tex`` (``source``) in ``folder`` with pdflatex (and bibtex); the log."""
    (folder / "paper.tex").write_text(source)

    def run(*command):
        done = subprocess.run(
            command, cwd=folder, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stdout[-3000:]
        return done.stdout

    log = run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
    if bibtex:
        run("bibtex", "paper")
        run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
        log = run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
    assert (folder / "paper.pdf").stat().st_size > 1000
    return (folder / "paper.log").read_text(errors="replace") + log


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_latex_files_compile_with_pdflatex_and_bibtex(written, tmp_path):
    _, out, _, _ = written
    for name in PAPER_FILES:
        shutil.copy(out / name, tmp_path / name)
    bibtex = shutil.which("bibtex") is not None
    log = _pdflatex(tmp_path, DOCUMENT.replace("[CLASS]", ""), bibtex=bibtex)
    if bibtex:
        assert "undefined" not in log.lower(), log[-2000:]
        bbl = (tmp_path / "paper.bbl").read_text()
        for author in ("Kim", "Hsu", "Piepho", "Glenn"):
            assert author in bbl, author


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("columns", ["onecolumn", "twocolumn"])
@pytest.mark.parametrize("which", ["written", "long_labels", "ci_missed"])
def test_every_latex_table_fits_a_one_and_a_two_column_article(
    which, columns, written, long_labels, tmp_path
):
    """Each table of the report in its own article: no overfull line (a ``table`` within
    the column, a ``table*`` within the text width), with the longest labels too."""
    if which == "ci_missed":  # the summary with a marked interval and its note
        report = written[0]
        summary = report.summary.copy()
        summary.loc["greedy", "exact mean"] = summary.loc["greedy", "CI low"] - 1
        out = tmp_path / "report"
        write_report(dataclasses.replace(report, summary=summary), out)
    else:
        out = written[1] if which == "written" else long_labels
    tables = sorted(p.name for p in out.glob("*.tex"))
    assert {"summary.tex", "ranking.tex", "regret.tex", "methods.tex"} <= set(tables)
    for name in tables:
        shutil.copy(out / name, tmp_path / name)
        source = ONE_TABLE.replace("CLASS", columns).replace("NAME", name.removesuffix(".tex"))
        log = _pdflatex(tmp_path, source)
        assert "Overfull \\hbox" not in log, (name, columns, log[-3000:])


@pytest.mark.parametrize(
    ("rules", "column"), [("yatzy", "Yatzys/game"), ("yahtzee", "Yahtzees/game")]
)
def test_the_summary_names_the_n_of_a_kind_box_as_the_rules_do(rules, column):
    from yahtzee_sim import get_rules, simulate_aggregate
    from yahtzee_sim.analysis.report.tables import summary_table

    sims = {"greedy": simulate_aggregate("greedy", 100, rules=rules, seed=1, progress=False)}
    table = summary_table(["greedy"], sims, {}, get_rules(rules))
    assert table.columns[-1] == column
