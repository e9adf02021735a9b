"""The report computes, then writes: arguments checked first, strategies looked up once,
the full ranking and selection sections, LaTeX tables that compile, the BibTeX file."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from yahtzee_sim.analysis.report import build as build_module
from yahtzee_sim.analysis.report.build import Report, ReportError, build_report
from yahtzee_sim.analysis.report.latex import Raw, escape, interval, latex_table, number
from yahtzee_sim.analysis.report.methods import methods_paragraph
from yahtzee_sim.analysis.report.paper import PAPER_FILES
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
    monkeypatch.setattr(build_module, "_resolve", no_work)
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
    assert rows["optimal"][2:4] == ["", ""]  # the best: nothing behind it
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
    assert escape("optimal − strategy ≥ α") == r"optimal $-$ strategy $\geq$ $\alpha$"
    assert number(np.int64(100000)) == "100{,}000" and number(-1.5) == "$-$1.50"
    assert number(float("nan")) == "" and number(np.bool_(True)) == "yes"
    assert interval(-1.234, 2.0) == "[$-$1.23, 2.00]" and isinstance(interval(0, 1), Raw)
    frame = pd.DataFrame({"games": np.array([100000, 5]), "mean": [1.0, 2.5]}, index=["a_1", "b"])
    tex = latex_table(frame, "50% of α", "tab:x")
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"a\_1 & 100{,}000 & 1.00 \\" in tex and r"\caption{50\% of $\alpha$}" in tex


DOCUMENT = r"""\documentclass{article}
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


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_latex_files_compile_with_pdflatex_and_bibtex(written, tmp_path):
    _, out, _, _ = written
    for name in PAPER_FILES:
        shutil.copy(out / name, tmp_path / name)
    (tmp_path / "paper.tex").write_text(DOCUMENT)

    def run(*command):
        done = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stdout[-3000:]
        return done.stdout

    run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
    if shutil.which("bibtex") is not None:
        run("bibtex", "paper")
        run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
        log = run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
        assert "undefined" not in log.lower(), log[-2000:]
        assert "Overfull \\hbox" not in log, log[-2000:]
        bbl = (tmp_path / "paper.bbl").read_text()
        for author in ("Kim", "Hsu", "Piepho", "Glenn"):
            assert author in bbl, author
    assert (tmp_path / "paper.pdf").stat().st_size > 1000


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("columns", ["onecolumn", "twocolumn"])
def test_the_ranking_table_typesets_without_an_overfull_box(tmp_path, columns):
    from yahtzee_sim.analysis import rank_scores
    from yahtzee_sim.analysis.report.ranking_files import ranking_latex

    rng = np.random.default_rng(0)
    luck = rng.normal(90.0, 25.0, 1000)
    scores = {f"tiered-random-{i}": luck + rng.normal(-i, 5.0, 1000) for i in range(3)}
    exact = {f"glenn-yahtzees-and-straights-{i}": 250.0 - 20 * i for i in range(11)}
    (tmp_path / "ranking.tex").write_text(ranking_latex(rank_scores(scores, exact)))
    (tmp_path / "paper.tex").write_text(
        rf"\documentclass[{columns}]{{article}}" + "\n" + r"\usepackage[T1]{fontenc}"
        "\n" + r"\usepackage{booktabs}" + "\n" + r"\begin{document}\input{ranking}\end{document}"
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "Overfull" not in done.stdout, done.stdout[-3000:]
