"""Game records and their analysis: luck and skill add up to the score exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from yahtzee_sim import simulate
from yahtzee_sim.analysis.decisions.coach import analyze, analyze_records
from yahtzee_sim.cli import main
from yahtzee_sim.engine.records import (
    RecordError,
    check_record,
    read_records,
    record_games,
    write_records,
)
from yahtzee_sim.solving.solver import value_table

from helpers import regret_law


@pytest.mark.parametrize(
    ("strategy", "rules"),
    [("greedy", "yahtzee"), ("random", "yahtzee"), ("optimal", "yatzy"), ("optimal", "yahtzee")],
)
def test_records_replay_the_simulated_games(strategy, rules, tmp_path):
    recs = record_games(strategy, 150, seed=4, rules=rules)
    path = write_records(tmp_path / "g.jsonl", recs)
    games = read_records(path)
    sim = simulate(strategy, 150, seed=4, rules=rules)
    np.testing.assert_array_equal([g.final for g in games], sim.total)
    assert all(g.complete for g in games)
    assert [g.data["game"] for g in games] == list(range(150))
    assert games[0].data["strategy"] == strategy


def test_luck_minus_regret_is_the_score_exactly():
    games = [check_record(r) for r in record_games("greedy", 300, seed=1)]
    res = analyze_records(games)
    assert res.identity_error() < 1e-9
    assert res.start_value == pytest.approx(value_table("yahtzee").values[0])
    g = res.games
    np.testing.assert_allclose(g["expected_final"], g["score"])
    # a game in progress: turns cut, the last one without its box
    data = dict(games[0].data)
    data["turns"] = [*data["turns"][:5], {k: v for k, v in data["turns"][5].items() if k != "box"}]
    part = analyze_records([check_record(data)])
    assert not part.games["complete"].iloc[0]
    assert part.identity_error() < 1e-9


def test_optimal_play_has_no_regret_and_luck_is_the_whole_story():
    res = analyze_records([check_record(r) for r in record_games("optimal", 100, seed=2)])
    assert res.games["regret"].max() < 1e-9
    np.testing.assert_allclose(res.games["luck"], res.games["score"] - res.start_value)


@pytest.mark.slow
def test_mean_luck_is_zero_and_mean_regret_the_exact_regret():
    res = analyze_records([check_record(r) for r in record_games("greedy", 3000, seed=3)])
    s = res.summary()
    luck, reg = s["luck"], s["regret"]
    assert luck["lo"] < 0 < luck["hi"] or abs(luck["mean"]) < 1e-9
    half = (reg["hi"] - reg["lo"]) / 2
    assert abs(reg["mean"] - regret_law("greedy")[1].total) < 2.1 * half
    assert set(s["by_decision"]) == {"keep, 2 rerolls left", "keep, 1 reroll left", "box"}
    assert s["mistakes"][0]["loss"] >= s["mistakes"][-1]["loss"] > 0


def _game(*turns):
    return {"rules": "yahtzee", "turns": list(turns)}


@pytest.mark.parametrize(
    ("turns", "match"),
    [
        ([{"rolls": [[1, 2, 3, 4]], "keeps": [], "box": "chance"}], "4 dice, the rules roll 5"),
        ([{"rolls": [[1, 2, 3, 4, 7]], "keeps": [], "box": "chance"}], "face 7"),
        ([{"rolls": [[1, 1, 2, 3, 4], [1, 1, 5, 5, 5]], "keeps": [[6]]}], "do not hold"),
        ([{"rolls": [[1, 1, 2, 3, 4], [2, 5, 5, 5, 5]], "keeps": [[1, 1]]}], "lost some"),
        ([{"rolls": [[1, 2, 3, 4, 5]] * 4, "keeps": [[1]] * 3, "box": "ones"}], "4 rolls"),
        ([{"rolls": [[1, 2, 3, 4, 5]], "keeps": [], "box": "kniffel"}], "unknown box"),
        (
            [
                {"rolls": [[1, 2, 3, 4, 5]], "keeps": [], "box": "chance"},
                {"rolls": [[1, 2, 3, 4, 5]], "keeps": [], "box": "chance"},
            ],
            "already filled",
        ),
        (
            [
                {"rolls": [[3, 3, 3, 3, 3]], "keeps": [], "box": "yahtzee"},
                {"rolls": [[3, 3, 3, 3, 3]], "keeps": [], "box": "chance"},
            ],
            "do not allow",
        ),
        ([{"rolls": [[1, 2, 3, 4, 5]], "keeps": []}, {"rolls": [[1, 2, 3, 4, 5]]}], "missing"),
        ([{"rolls": [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], "keeps": []}], "'keeps' must list"),
    ],
)
def test_impossible_records_are_refused(turns, match, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"rules": "yahtzee", "turns": []}) + "\n")  # valid, empty
    path.write_text(path.read_text() + json.dumps(_game(*turns)) + "\n")
    with pytest.raises(RecordError, match=match) as err:
        read_records(path)
    assert "line 2" in str(err.value)


def test_malformed_files(tmp_path):
    with pytest.raises(RecordError, match="does not exist"):
        read_records(tmp_path / "none.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(RecordError, match="line 1: not JSON"):
        read_records(bad)
    bad.write_text(json.dumps({"format": "other/v9", "turns": []}) + "\n")
    with pytest.raises(RecordError, match="unknown record format"):
        read_records(bad)
    bad.write_text("\n")
    with pytest.raises(RecordError, match="no game records"):
        read_records(bad)


def test_stopping_early_is_a_keep_of_every_die():
    rec = check_record(_game({"rolls": [[6, 6, 6, 6, 6]], "keeps": [], "box": "yahtzee"}))
    assert [d.rolls_left for d in rec.decisions] == [2, 0]
    res = analyze_records([rec])
    assert res.games["score"].iloc[0] == 50 and res.identity_error() < 1e-9
    assert res.decisions["loss"].max() < 1e-9  # stopping and scoring 50 is optimal


def test_cli_simulate_record_and_analyze(tmp_path, capsys):
    rec = tmp_path / "g.jsonl"
    assert main(["simulate", "--games", "40", "--record", str(rec), "--quiet"]) == 0
    assert "game records written" in capsys.readouterr().out
    assert main(["analyze", str(rec), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 40 and out["identity_max_error"] < 1e-9
    png = tmp_path / "path.png"
    assert main(["analyze", str(rec), "--game", "3", "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "game 3: every decision" in text and "luck" in text and png.stat().st_size > 5000
    assert main(["analyze", str(rec), "--game", "99"]) == 2
    assert "holds games 0..39" in capsys.readouterr().err
    assert main(["analyze", str(tmp_path / "none.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["simulate", "--games", "2", "--record", str(tmp_path / "no" / "g.jsonl")]) == 2


def test_analyze_api_reads_files(tmp_path):
    path = write_records(tmp_path / "g.jsonl", record_games("greedy", 5, seed=0))
    res = analyze(path)
    assert len(res.games) == 5 and res.mistakes(3).shape[0] == 3


def test_value_path_plot_in_the_paper_style(tmp_path):
    """The path is the first strong colour, a mistake a thick vermilion stroke, the start
    value a black reference line; the axes are returned and the figure is full width."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from yahtzee_sim.analysis.decisions.coach import plot_value_path
    from yahtzee_sim.analysis.style import FULL_WIDTH, HIGHLIGHT_COLORS, REFERENCE_COLOR

    rec = tmp_path / "g.jsonl"
    write_records(rec, record_games("greedy", 3, seed=1, rules="yahtzee"))
    res = analyze(rec)
    ax = plot_value_path(res)
    colors = {matplotlib.colors.to_hex(line.get_color()) for line in ax.get_lines()}
    assert {HIGHLIGHT_COLORS[0], HIGHLIGHT_COLORS[1], REFERENCE_COLOR} <= colors
    assert ax.figure.get_size_inches()[0] == FULL_WIDTH
    assert (res.decisions[res.decisions["game"] == 0]["loss"] > 0.05).any()  # greedy errs
    plt.close(ax.figure)
