"""The commands of visible play: `winprob` (its play-outs under `--playouts` and the older
`--simulate`), visible tournaments and round robins."""

from __future__ import annotations

import json

import pytest

from yahtzee_sim.cli import main
from yahtzee_sim.cli.main import build_parser

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


def test_winprob_simulate_is_the_older_spelling_of_playouts():
    parser = build_parser()
    base = ["winprob", "--me", "", "--opponent", ""]
    new = parser.parse_args([*base, "--playouts", "40"])
    old = parser.parse_args([*base, "--simulate", "40"])
    assert vars(new) == vars(old) and new.playouts == 40


@pytest.mark.slow
def test_cli_winprob_play_outs_under_either_spelling(capsys):
    """``--simulate`` is the older spelling of ``--playouts``: the same play-outs, by
    ``win-aware`` at every seat."""
    outs = []
    for option in ("--playouts", "--simulate"):
        args = ["winprob", "--me", LATE_A, "--opponent", LATE_B, option, "40", "--json"]
        assert main(args) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1]
    assert outs[0]["games"] == 40 and outs[0]["strategy"] == "win-aware"
    assert main(["winprob", "--me", "", "--opponent", "", "--playouts", "2000000"]) == 2
    assert "--playouts must be in 0..1,000,000" in capsys.readouterr().err


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
