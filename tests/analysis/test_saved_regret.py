"""Regret on games with saved rolls: the losses add up to the optimum minus the exact mean
of the moments pass, stops are charged, simulated games graded by the coach agree, and
the command line prints it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from yahtzee_sim.analysis.decisions.dataset import decision_dataset
from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret, regret
from yahtzee_sim.cli import main
from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.regret import decision_lines
from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate

from helpers import BatchedOnly, small_saved_game


class EagerStopper(BatchedOnly):
    """Greedy, but stops (keeps every die) with two rerolls or more left whenever the roll
    shows a pair: it stops early where rolling on is better."""

    def keep(self, view):
        out = np.asarray(self.inner.keep(view)).copy()
        if view.rolls_left >= 2:
            pair = view.dice.max(axis=1) >= 2
            out[pair] = view.dice[pair]
        return out


GAMES = [(1, False, 3), (5, False, 3), (3, True, 4), (2, False, 4)]


@pytest.mark.parametrize("make", [lambda: "greedy", EagerStopper], ids=["greedy", "stopper"])
@pytest.mark.parametrize(("cap", "forced", "n_dice"), GAMES)
def test_regret_is_the_optimum_minus_the_exact_mean(make, cap, forced, n_dice):
    rules = small_saved_game(cap, forced, n_dice)
    ex, res = evaluate_with_regret(make(), rules, top=5, distribution=False)
    moments = evaluate(make(), rules, distribution=False)  # the backward moments pass
    assert ex.mean == moments.mean
    assert abs(res.total - (res.optimal_value - moments.mean)) < 1e-9
    assert abs(res.strategy_value - moments.mean) < 1e-9  # the forward pass's own mean
    assert res.total > 0.5 and (res.by_decision >= 0).all()
    assert res.by_turn.sum() == pytest.approx(res.total, abs=1e-12)
    assert res.meta["reach_total"] == pytest.approx(1.0, abs=1e-12)
    names = list(res.by_decision.index)
    assert names[-2:] == ["stop", "box"] and names[0].startswith("keep, ")
    assert len(names) == cap + rules.rolls_per_turn + 1  # keeps with 1 .. rolls - 1 + cap left


def test_stops_are_charged_and_described():
    rules = small_saved_game(2, n_dice=4)
    greedy = regret("greedy", rules, top=50)
    eager = regret(EagerStopper(), rules, top=50)
    assert eager.total > greedy.total
    assert eager.by_decision["stop"] > greedy.by_decision["stop"] > 0
    stops = eager.situations[eager.situations.strategy_move.str.startswith("stop: ")]
    assert len(stops) and (stops.rolls_left >= 2).all()
    assert stops.strategy_move.str.contains(r"save 2 rolls").all()  # min(rerolls left, cap)
    rolled_on = stops.optimal_move.str.startswith("keep")  # stopped where rolling on is best
    assert rolled_on.any()
    other_box = stops[~rolled_on]  # or stopped with the right timing, in the wrong box
    assert other_box.optimal_move.str.startswith("stop: ").all()
    assert (other_box.optimal_move != other_box.strategy_move).all()
    s = eager.situations
    assert np.allclose(s.expected_loss, s.probability * s.loss)
    assert (np.diff(s.expected_loss) <= 0).all()
    assert eager.by_box.sum() == pytest.approx(eager.by_decision["box"], abs=1e-12)


def test_optimal_play_loses_nothing():
    res = regret("optimal", small_saved_game(3, n_dice=4))
    assert res.total == pytest.approx(0.0, abs=1e-12)
    assert res.strategy_value == pytest.approx(res.optimal_value, abs=1e-9)


@pytest.mark.slow
def test_regret_agrees_with_simulated_games_graded_by_the_coach():
    rules = small_saved_game(2, n_dice=4)
    res = regret("greedy", rules)
    n = 4000
    ds = decision_dataset("greedy", n, seed=5, rules=rules, progress=False)
    per_game = np.bincount(ds.columns["game"], weights=ds.columns["regret"], minlength=n)
    se = per_game.std(ddof=1) / np.sqrt(n)
    assert abs(per_game.mean() - res.total) < 3 * se


def test_the_score_law_stays_refused_in_one_line():
    with pytest.raises(ExactEvaluationError, match=r"^the exact score law is not available"):
        evaluate_with_regret("greedy", small_saved_game(2), distribution=True)


def test_cli_regret_on_saved_rolls(monkeypatch, capsys):
    rules = small_saved_game(2, n_dice=4)
    monkeypatch.setattr(opt, "rules_from", lambda args: rules)
    assert main(["regret", "--strategy", "greedy", "--top", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["by_decision"]) >= {"stop", "box", "keep, 3 rerolls left"}
    assert abs(out["total"] - (out["optimal_value"] - out["strategy_value"])) < 1e-9
    assert main(["regret", "--strategy", "greedy"]) == 0
    text = capsys.readouterr().out
    assert "  stop " in text and "regret " in text
    for name, loss in out["by_decision"].items():  # keeps past 2 rerolls: where they cost
        rerolls = int(name.split()[1]) if name.startswith("keep, ") else 0
        assert (f"  {name} " in text) == (loss > 0 or rerolls <= 2)


def test_the_text_report_counts_the_keep_types_that_lose_nothing():
    series = pd.Series({"keep, 4 rerolls left": 0.0, "keep, 3 rerolls left": 0.5,
                        "keep, 2 rerolls left": 0.0, "stop": 1.0, "box": 0.0})  # fmt: skip
    lines = decision_lines(series)
    assert [line.split("  ")[1].strip() for line in lines[:-1]] == [
        "keep, 3 rerolls left", "keep, 2 rerolls left", "stop", "box"]  # fmt: skip
    assert lines[-1] == "  (1 keep type with 3 or more rerolls left loses nothing)"


@pytest.mark.slow
def test_cli_regret_on_six_dice(capsys):
    rules = "maxi-yatzy+forced+cap2"
    assert main(["regret", "--strategy", "greedy", "--rules", rules, "--top", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    mean = evaluate("greedy", rules, distribution=False).mean
    assert abs(out["total"] - (out["optimal_value"] - mean)) < 1e-9
    assert out["by_decision"]["stop"] > 0 and len(out["situations"]) == 3
