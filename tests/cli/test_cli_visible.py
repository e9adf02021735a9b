"""The commands of visible play: `winprob`, visible tournaments and round robins."""

from __future__ import annotations

import json

import pytest

from yahtzee_sim.cli import main

from helpers import LATE_A, LATE_B


def test_cli_winprob_json_and_errors(capsys):
    assert main(["winprob", "--me", LATE_A, "--opponent", LATE_B, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["to_move"] == 0 and len(out["exact"]) == 2
    assert main(["winprob", "--me", "ones=9", "--opponent", "", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ones=9 is impossible" in err
    assert main(["winprob", "--me", "", "--opponent", "", "--rolls-left", "1"]) == 2
    assert "--rolls-left needs --dice" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_visible_tournament_and_round_robin(capsys, tmp_path):
    args = ["tournament", "--strategies", "chase,optimal", "--games", "500", "--json"]
    assert main([*args, "--visible"]) == 0
    assert json.loads(capsys.readouterr().out)["parameters"]["visible"] is True
    plot = tmp_path / "rr.png"
    assert main([*args, "--visible", "--round-robin", "--plot", str(plot)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["win_matrix"][0][0] is None and plot.stat().st_size > 0
    assert main(["tournament", "--plot", str(plot)]) == 2
