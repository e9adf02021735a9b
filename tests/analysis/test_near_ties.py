"""Near ties: a move within the threshold of the best is graded a tie, not a mistake."""

from __future__ import annotations

import json

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.coach import NEAR_TIE, AnalysisError, analyze_records
from yahtzee_sim.cli import main
from yahtzee_sim.engine.records import check_record, record_games, write_records


def test_near_ties_are_not_mistakes_and_the_regret_stays():
    games = [check_record(r) for r in record_games("greedy", 20, seed=3)]
    strict, loose = analyze_records(games, tie=0.0), analyze_records(games, tie=2.0)
    default = analyze_records(games)
    assert default.tie == NEAR_TIE == 0.1
    loss = strict.decisions["loss"].to_numpy()
    assert (strict.decisions["grade"] == "mistake").sum() == (loss > 1e-9).sum()
    expect = np.where(loss <= 1e-9, "best", np.where(loss <= 2.0, "near tie", "mistake"))
    np.testing.assert_array_equal(loose.decisions["grade"], expect)
    assert loose.games["mistakes"].sum() == (loss > 2.0).sum() < strict.games["mistakes"].sum()
    assert (loose.decisions["grade"] == "near tie").any()
    np.testing.assert_allclose(loose.games["regret"], strict.games["regret"])
    assert loose.mistakes(1000)["loss"].min() > 2.0
    near = sum(r["near_ties"] for r in loose.by_decision().to_dict(orient="index").values())
    assert near == (expect == "near tie").sum()
    with pytest.raises(AnalysisError, match="tie"):
        analyze_records(games, tie=-1)


def test_analyze_cli_tie(tmp_path, capsys):
    path = write_records(tmp_path / "g.jsonl", record_games("greedy", 5, seed=1))
    assert main(["analyze", str(path), "--tie", "1.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["near_tie"] == 1.5 and all(m["loss"] > 1.5 for m in out["mistakes"])
    assert main(["analyze", str(path), "--game", "0", "--tie", "1.5"]) == 0
    assert "near tie, within 1.5 points" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["analyze", str(path), "--tie", "-2"])
    assert stop.value.code == 2
    assert "--tie" in capsys.readouterr().err
