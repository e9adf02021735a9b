"""Regret analysis, head-to-head probabilities and the report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim.analysis import regret, win_matrix, win_probability
from yahtzee_sim.analysis.report.build import ReportError, build_report
from yahtzee_sim.analysis.report.write import report_folder, write_report
from yahtzee_sim.cli import main
from yahtzee_sim.exact.laws import ExactEvaluationError
from yahtzee_sim.solving.solver import value_table

from helpers import exact_law, regret_law


@pytest.fixture(scope="module")
def greedy_regret():
    return regret_law("greedy", "yahtzee", top=15)[1]


@pytest.mark.slow
def test_losses_add_up_to_the_gap_to_optimal(greedy_regret):
    r = greedy_regret
    assert r.optimal_value == pytest.approx(254.5877287, abs=5e-7)
    assert r.strategy_value == pytest.approx(exact_law("greedy").mean)
    assert r.total == pytest.approx(r.optimal_value - r.strategy_value, abs=1e-7)
    assert r.by_decision.sum() == pytest.approx(r.total, abs=1e-9)
    assert r.by_turn.sum() == pytest.approx(r.total, abs=1e-9)
    assert r.by_box.sum() == pytest.approx(r.by_decision["box"], abs=1e-9)
    assert list(r.by_decision.index) == ["keep, 2 rerolls left", "keep, 1 reroll left", "box"]
    assert (r.by_decision > 0).all() and (r.by_turn >= 0).all()


@pytest.mark.slow
def test_losses_add_up_under_a_yahtzee_bonus_limit():
    """A bonus Yahtzee moves the flag under a bonus limit: its boxes are charged at the
    next flag's values, as optimal play values them, and the losses add up to the gap."""
    r = regret_law("greedy", "yahtzee-single-bonus", top=5)[1]
    assert r.total == pytest.approx(r.optimal_value - r.strategy_value, abs=1e-9)
    assert r.by_decision.sum() == pytest.approx(r.total, abs=1e-9)
    assert r.by_box.sum() == pytest.approx(r.by_decision["box"], abs=1e-9)


@pytest.mark.slow
def test_costliest_situations_are_sorted_and_consistent(greedy_regret):
    s = greedy_regret.situations
    assert len(s) == 15
    assert s["expected_loss"].is_monotonic_decreasing
    np.testing.assert_allclose(s["expected_loss"], s["probability"] * s["loss"], rtol=1e-9)
    assert (s["strategy_move"] != s["optimal_move"]).all()
    assert set(s["rolls_left"]) <= {0, 1, 2}
    assert s["dice"].str.split().map(len).eq(5).all()


# official Yahtzee: test_losses_add_up_to_the_gap_to_optimal
@pytest.mark.parametrize("rules", ["2-yatzy", "2-yatzy@3"])
def test_optimal_has_no_regret_and_the_identity_holds_on_other_rules(rules):
    assert regret("optimal", rules).total == pytest.approx(0.0, abs=1e-9)
    r = regret("greedy", rules, top=3)
    assert r.total == pytest.approx(
        value_table(rules).expected_value() - r.strategy_value, abs=1e-9
    )


def test_regret_refuses_random_strategies_and_bad_top():
    with pytest.raises(ExactEvaluationError):
        regret("random", "2-yatzy")
    with pytest.raises(ValueError, match="top"):
        regret("greedy", "2-yatzy", top=-1)


# ------------------------------------------------------------------ head to head
def test_win_probability_by_hand():
    a = [0, 0.5, 0.5]  # 1 or 2
    b = [0, 0, 1.0]  # always 2
    assert win_probability(a, b) == pytest.approx(0.25)  # tie half the time → ½·½
    assert win_probability(b, a) == pytest.approx(0.75)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=1, max_size=12), min_size=2, max_size=4))
def test_win_matrix_is_complementary(laws):
    laws = [np.asarray(x) + 1e-3 for x in laws]
    m = win_matrix({f"s{i}": x for i, x in enumerate(laws)}).to_numpy()
    np.testing.assert_allclose(m + m.T, 1.0, atol=1e-12)
    assert ((m >= 0) & (m <= 1)).all()


def test_win_probability_matches_sampling():
    rng = np.random.default_rng(0)
    a, b = rng.random(30), rng.random(25)
    xa = rng.choice(30, size=400_000, p=a / a.sum())
    xb = rng.choice(25, size=400_000, p=b / b.sum())
    sampled = (xa > xb).mean() + 0.5 * (xa == xb).mean()
    assert win_probability(a, b) == pytest.approx(sampled, abs=4 * 0.5 / np.sqrt(400_000))


# ------------------------------------------------------------------------ report
@pytest.mark.slow
def test_report_folder(tmp_path):
    rep = build_report(
        rules="yahtzee", strategies="greedy,random", n_games=3000, seed=2, progress=False
    )
    out = tmp_path / "rep"
    files = write_report(rep, out)
    for name in (
        "report.md",
        "report.html",
        "summary.csv",
        "distributions.png",
        "survival.png",
        "box_means.png",
        "kn_trace.png",
        "win_matrix.png",
        "regret_by_turn.png",
        "boxes_mean.csv",
        "boxes_zero.csv",
        "boxes_turn.csv",
        "kim_nelson.csv",
        "win_matrix.csv",
        "exact_pmf.csv",
        "regret.csv",
    ):
        assert (out / name).is_file(), name
        assert name in files
    s = rep.summary
    assert list(s.index) == ["optimal", "greedy", "random"]  # optimal added, sorted by mean
    assert s.loc["greedy", "exact mean"] == pytest.approx(215.1464171, abs=1e-6)
    assert np.isnan(s.loc["random", "exact mean"])
    assert s.loc["optimal", "exact mean"] == pytest.approx(254.5877287, abs=1e-6)
    wm = pd.read_csv(out / "win_matrix.csv", index_col=0)
    assert wm.loc["optimal", "greedy"] > 0.6 and wm.loc["greedy", "random"] > 0.99
    md = (out / "report.md").read_text()
    for needle in (
        "## Summary",
        "## Full ranking",
        "## Selection of the best (Kim–Nelson)",
        "Winner: **optimal**",
        "## Head to head",
        "## Regret",
        "Costliest situations of `greedy`",
        "![",
        "Mean points per box",
    ):
        assert needle in md, needle
    html = (out / "report.html").read_text()
    assert html.count("<img") == md.count("![") and "<table>" in html
    means = pd.read_csv(out / "boxes_mean.csv", index_col=0)
    assert "optimal (exact)" in means.columns and len(means) == 13
    regret_tab = pd.read_csv(out / "regret.csv", index_col=0)
    assert regret_tab.loc["greedy", "sum of losses"] == pytest.approx(
        254.5877287 - 215.1464171, abs=1e-5
    )


def test_report_cli_json_and_errors(capsys, tmp_path):
    code = main(
        [
            "report",
            "--rules",
            "2-yatzy",
            "--strategies",
            "greedy",
            "--games",
            "500",
            "--out",
            str(tmp_path / "r"),
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["out"] == str(tmp_path / "r")
    assert {row["strategy"] for row in data["summary"]} == {"greedy", "optimal"}
    assert "report.md" in data["files"]
    (tmp_path / "file").write_text("x")
    for args, needle in (
        (["--games", "50"], "--games: expected a whole number >= 100"),  # the parser's
        (["--strategies", "nope"], "unknown strategy"),
        (["--out", str(tmp_path / "file")], "not a folder"),
        (["--top", "-1"], "--top"),
    ):
        try:
            code = main(["report", "--rules", "2-yatzy", "--quiet", *args])
        except SystemExit as exc:  # a value the parser refuses
            code = exc.code
        err = capsys.readouterr().err.strip()
        assert code == 2 and needle in err and "\n" not in err, (args, err)


def test_report_errors_in_the_api(tmp_path):
    with pytest.raises(ReportError, match="games"):
        build_report(rules="2-yatzy", n_games=10)
    with pytest.raises(ReportError, match="distinct"):
        build_report(rules="2-yatzy", strategies="greedy,greedy", n_games=200)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReportError, match="not a folder"):
        report_folder(tmp_path / "file", "2-yatzy")
    assert report_folder(None, "2-yatzy") == Path("reports/2-yatzy")
    assert not report_folder(tmp_path / "new", "2-yatzy").exists()  # written later


# ------------------------------------------------------------- cached exact results
def test_cached_exact_results_are_the_computed_ones(tmp_path, monkeypatch):
    from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret
    from yahtzee_sim.analysis.report import exact_cache
    from yahtzee_sim.game.rules import get_rules

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    rules = get_rules("2-yatzy")
    key = exact_cache.result_key("greedy", rules, 4)
    assert key is not None and exact_cache.load(key, rules) is None
    assert key != exact_cache.result_key("greedy", rules, 5)  # top is part of the key
    assert key != exact_cache.result_key("greedy", get_rules("yatzy"), 4)
    assert exact_cache.result_key("./plugin.py:Mine", rules, 4) is None  # no such plugin: no key
    ex, reg = evaluate_with_regret("greedy", rules, top=4)
    exact_cache.save(key, ex, reg)
    ex2, reg2 = exact_cache.load(key, rules)
    assert ex2.to_dict() == ex.to_dict() and ex2.meta["cached"]
    np.testing.assert_array_equal(ex2.pmf, ex.pmf)
    assert reg2.to_dict() == reg.to_dict()
    pd.testing.assert_frame_equal(reg2.situations, reg.situations)
    for name in ("by_decision", "by_turn", "by_box"):
        pd.testing.assert_series_equal(getattr(reg2, name), getattr(reg, name))


@pytest.mark.slow
def test_report_is_byte_identical_when_read_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "cache"))
    args = dict(rules="2-yatzy", strategies="greedy", n_games=500, seed=1, progress=False)
    first = build_report(**args)
    second = build_report(**args)  # exact results from the cache
    files = write_report(first, tmp_path / "a")
    assert write_report(second, tmp_path / "b") == files
    assert set(first.timings) >= {"tables", "simulations", "exact", "kim_nelson"}
    for name in files:
        if not name.endswith(".png"):  # (figures: same code, same data)
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.slow
def test_quick_report(tmp_path):
    rep = build_report(
        rules="2-yatzy", strategies="greedy,random", seed=1, quick=True, progress=False
    )
    files = write_report(rep, tmp_path)
    s = rep.summary
    assert s["mean"].notna().all() and not np.isnan(s.loc["greedy", "exact mean"])
    assert "Kim–Nelson" in rep.skipped and "kim_nelson.csv" not in files
    assert "regret.csv" in files
    pmf = pd.read_csv(tmp_path / "exact_pmf.csv", index_col=0)
    assert list(pmf.columns) == ["optimal"]  # quick: no exact law but optimal play's
    hist = pd.read_csv(tmp_path / "histograms.csv", index_col=0)
    assert hist["greedy"].sum() == 10_000  # QUICK_GAMES
