"""The report's progress bar counts its steps: the value table, each strategy simulated,
each strategy evaluated (one read from the cache counts nothing), the ranking and the
Kim–Nelson selection; a report takes every one of them and ends at 100 %."""

from __future__ import annotations

import io

import pytest

from yahtzee_sim.analysis.report import build

from helpers import bars_made


def test_the_bar_counts_strategies_not_seconds():
    bar = build.report_bar(3, 2, 1, quick=False, disable=True)
    assert bar.total == 1 + 3 + 2 + 1 + 1  # table, simulations, evaluations, ranking, KN
    assert build.report_bar(3, 2, 1, quick=True, disable=True).total == bar.total - 1


def test_the_bar_ends_at_its_total():
    out = io.StringIO()
    bar = build.report_bar(3, 1, 1, quick=True, file=out)
    bar.step("simulation", 3)
    for kind in ("tables", "exact", "exact_cached", "exact_stage", "ranking", "kim_nelson"):
        bar.step(kind)
    assert bar.bar.n == pytest.approx(bar.bar.total)
    bar.close()
    assert "100%" in out.getvalue()


@pytest.mark.slow
def test_a_report_takes_every_step_of_its_bar(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    made = bars_made(monkeypatch, build, "report_bar")
    build.build_report(
        rules="2-yatzy", strategies="greedy,random", n_games=200, quick=True, progress=True
    )
    (bar,) = made
    assert bar.done == pytest.approx(bar.total)
    assert bar.taken["simulation"] == 3  # optimal play, the reference, is added
    assert bar.taken["exact"] == 2  # greedy's and optimal's, neither cached
    assert "evaluating 2 strategies exactly" in capsys.readouterr().err
