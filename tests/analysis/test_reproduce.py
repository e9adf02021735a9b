"""`yahtzee-sim reproduce`: published tables next to ours (a quick subset; the full run
with 100,000 games per figure and the Yatzy target table is `yahtzee-sim reproduce`)."""

import json
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim.analysis.report.reproduction import tables
from yahtzee_sim.analysis.report.reproduction.build import ReproduceError, reproduce
from yahtzee_sim.cli import main


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """A quick run: the rule-based strategies simulated (2,000 games) instead of evaluated
    exactly (the literature test checks their exact-quality figures); optimal exact."""
    out = tmp_path_factory.mktemp("repro")
    sections = ("reference-values", "simulating-yahtzee", "kim-nelson", "tillius")
    exact_only = tables.is_deterministic
    tables.is_deterministic = lambda sid: sid == "optimal" and exact_only(sid)
    try:
        rep = reproduce(sections, quick=True, n_games=2000, out=out, n_jobs=1, kn_deltas=[6.0])
    finally:
        tables.is_deterministic = exact_only
    return rep, out


def _row(rep, table, item):
    (row,) = [r for r in rep.rows if r.table == table and r.item == item]
    return row


@pytest.mark.slow
def test_rows_hold_paper_ours_and_method(quick):
    rep, _ = quick
    sy = '"Simulating Yahtzee"'
    for sid in ("random", "glenn-2007-rules", "prioritize-upper", "prioritize-yahtzee"):
        row = _row(rep, f"{sy}, Table 2", f"{sid}: mean")
        assert row.method == "simulated" and row.games == 2000
        assert row.ci_low < row.ours < row.ci_high
        half = (row.ci_high - row.ci_low) / 2  # the program's readings: within 2 half-widths
        assert abs(row.difference) < 2 * half + 1, row
    # Table 8's Yahtzee row includes the bonus, ours too
    row = _row(rep, f"{sy}, Table 8", "glenn-2007-rules: yahtzee (mean points)")
    assert abs(row.difference) < 6
    # Glenn's optimal per-box means, quoted in Table 11, to their two decimals
    t11 = [r for r in rep.rows if "Table 11" in r.table]
    assert len(t11) == 15 and max(abs(r.difference) for r in t11) < 0.005


@pytest.mark.slow
def test_reference_values_and_tillius(quick):
    rep, _ = quick
    pinned = [r for r in rep.rows if r.table == "Reference values" and "web page" not in r.item]
    assert len(pinned) >= 8
    for r in pinned:  # published to their precision
        assert abs(r.difference) <= 0.005 + 1e-9, r
    assert _row(rep, "Tillius 2026, Table 5", "target:5, 2-Yatzy: P(score >= 5)").ours == (
        pytest.approx(0.7734, abs=5e-5)
    )
    assert _row(rep, "Tillius 2026, §4.4", "four optimal players: median winning score").ours == 289
    assert "Tillius 2026, Table 13" in rep.skipped


@pytest.mark.slow
def test_kim_nelson_sweep_picks_the_papers_winners(quick):
    rep, _ = quick
    rows = [r for r in rep.rows if r.table == '"Simulating Yahtzee", Table 3']
    assert len(rows) == 2 and all(r.note == "same winners" for r in rows)


@pytest.mark.slow
def test_files_and_json(quick):
    rep, out = quick
    for name in (
        "report.md",
        "report.html",
        "reproduction.csv",
        "reproduction.json",
        "kim_nelson.csv",
        "tables_8_10.png",
    ):
        assert (out / name).is_file(), name
    data = json.loads((out / "reproduction.json").read_text())
    assert len(data["rows"]) == len(rep.rows) and "seconds" not in data
    assert "Table 8" in (out / "report.md").read_text()


def assert_same_files(a: Path, b: Path, names) -> None:
    """The files ``names`` (at least ``report.md``) hold the same bytes in ``a`` and ``b``."""
    names = list(names)
    assert "report.md" in names, names
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.slow
def test_same_command_same_bytes(tmp_path):
    a = reproduce(("reference-values",), out=tmp_path / "a")
    reproduce(("reference-values",), out=tmp_path / "b")
    assert_same_files(tmp_path / "a", tmp_path / "b", a.files)


@pytest.mark.parametrize("broken", ["no files", "other bytes"])
def test_the_same_bytes_check_fails_on_broken_folders(tmp_path, broken):
    for folder, text in (("a", "x"), ("b", "y")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "report.md").write_text(text)
    with pytest.raises(AssertionError):
        names = [] if broken == "no files" else ["report.md"]
        assert_same_files(tmp_path / "a", tmp_path / "b", names)


def test_errors(tmp_path, capsys):
    with pytest.raises(ReproduceError, match="unknown sections"):
        reproduce(("tables",))
    with pytest.raises(ReproduceError, match="games"):
        reproduce(("defensive",), n_games=10)
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ReproduceError, match="is a file"):
        reproduce(("reference-values",), out=f)
    assert main(["reproduce", "--sections", "nope", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown sections" in err


@pytest.mark.slow
def test_cli_json(tmp_path, capsys):
    code = main(["reproduce", "--sections", "reference-values", "--out", str(tmp_path), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sections"] == ["reference-values"] and data["rows"]


def test_exact_laws_are_kept_for_the_next_run(tmp_path, monkeypatch):
    """``reproduce`` reads its exact laws through the cache: a second read is the first
    law bit for bit, without evaluating again."""
    from yahtzee_sim.analysis.report import exact_cache
    from yahtzee_sim.game.rules import get_rules

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    rules = get_rules("2-yatzy")
    first = exact_cache.exact_law("greedy", rules)
    again = exact_cache.exact_law("greedy", rules)
    assert "cached" not in first.meta and again.meta["cached"]
    np.testing.assert_array_equal(again.pmf, first.pmf)
    np.testing.assert_array_equal(again.box_means, first.box_means)
    assert (again.mean, again.sd, again.strategy) == (first.mean, first.sd, first.strategy)
    assert len(list(tmp_path.glob("exact-*"))) == 1


def test_exact_moments_are_the_laws_bit_for_bit_and_kept(tmp_path, monkeypatch):
    """The moments alone (no backward pass) equal the whole law's; they are kept, and read
    from a kept law when there is one."""
    from yahtzee_sim.analysis.report import exact_cache
    from yahtzee_sim.exact.laws import evaluate
    from yahtzee_sim.game.rules import get_rules

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    rules = get_rules("2-yatzy")
    law = evaluate("greedy", rules)
    first = exact_cache.exact_moments("greedy", rules)
    again = exact_cache.exact_moments("greedy", rules)
    assert first.pmf is None and again.pmf is None
    assert "cached" not in first.meta and again.meta["cached"]
    for got in (first, again):
        assert got.to_dict() == {
            **law.to_dict(),
            "min": None,
            "max": None,
            "percentiles": None,
            "pmf": None,
        }
    exact_cache.exact_law("greedy", rules)  # the whole law kept: its moments are read
    key = exact_cache.result_key("greedy", rules, "moments")
    next(tmp_path.glob(f"exact-{key}*")).unlink()
    assert exact_cache.exact_moments("greedy", rules).meta["cached"]
    assert not list(tmp_path.glob(f"exact-{key}*"))


@pytest.mark.slow
def test_strategy_figures_agree_or_are_documented_gaps(quick, tmp_path, capsys):
    rep, _ = quick
    sy = '"Simulating Yahtzee"'
    assert _row(rep, f"{sy}, Table 2", "greedy: mean").status == "agrees"
    assert _row(rep, f"{sy}, Table 5", "prioritize-upper: upper bonus rate").status == "agrees"
    assert _row(rep, "Reference values", "optimal EV, yatzy").status == ""
    assert len(rep.gaps()) == 0
    assert main(["reproduce", "--sections", "defensive", "--out", str(tmp_path), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "documented gaps (paper | ours | gap: reason):" in printed
    assert "defensive: mean: 201.4680 | 208.0402 | +6.5722: unexplained" in printed
    text = (tmp_path / "report.md").read_text()
    assert "## Documented gaps" in text and "the thesis publishes no program" in text
    assert "README" not in text
