"""One result vocabulary: simulated, streamed and exact results share names and keys."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim import IllegalMoveError, simulate, simulate_aggregate
from yahtzee_sim.adapters.functions import FunctionStrategy
from yahtzee_sim.cli import main
from yahtzee_sim.engine.summary import PERCENTILES, SUMMARY_KEYS, percentile_key, strategy_label
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.strategies import Strategy, get_strategy
from yahtzee_sim.strategies.greedy import Greedy

SHARED = set(SUMMARY_KEYS)


class MyHeuristic(Greedy):
    """A user's class built on a built-in: named by its class, not by 'greedy'."""


class Chancer(Strategy):
    """Always writes in chance: illegal from the second turn on."""

    def __init__(self, alpha: float = 0.5) -> None:
        self.alpha = alpha

    def keep(self, view):
        return np.array(view.dice, dtype=np.int8)

    def box(self, view):
        return np.full(len(view), view.rules.box_names.index("chance"), dtype=np.int64)


@pytest.mark.parametrize(
    ("strategy", "label"),
    [
        (get_strategy("greedy"), "greedy"),
        (get_strategy("greedy-v1"), "greedy"),
        (get_strategy("target:250"), "target:250"),
        (get_strategy("target"), "target:300"),
        (Greedy(yahtzee_bonus_in_value=True), "greedy(yahtzee_bonus_in_value=True)"),
        (MyHeuristic(), "MyHeuristic"),
        (Chancer(), "Chancer"),
        (Chancer(alpha=0.25), "Chancer(alpha=0.25)"),
        (FunctionStrategy(lambda p: [], lambda p: 0, label="mine"), "mine"),
    ],
)
def test_strategy_label(strategy, label):
    assert strategy_label(strategy) == label


def test_simulated_and_exact_results_share_the_vocabulary():
    sim = simulate("optimal", 20_000, seed=4, rules="2-yatzy", progress=False).summary()
    streamed = simulate_aggregate("optimal", 20_000, seed=4, rules="2-yatzy").summary()
    exact = evaluate("optimal", "2-yatzy").to_dict()
    assert sim == streamed
    assert SHARED <= set(sim) and SHARED <= set(exact)
    assert sim["strategy"] == exact["strategy"] == "optimal"
    keys = [percentile_key(q) for q in PERCENTILES]
    assert list(sim["percentiles"]) == list(exact["percentiles"]) == keys
    for entry in ("box_means", "box_zero_rate", "box_fill_turn"):
        assert list(sim[entry]) == list(exact[entry])
        for box, value in exact[entry].items():  # same meaning: the estimate is close
            assert sim[entry][box] == pytest.approx(value, abs=0.02 * max(1.0, value))
    assert sim["mean"] == pytest.approx(exact["mean"], abs=0.03)


def test_results_name_the_strategy_by_id_or_class():
    assert simulate("greedy", 10, seed=0).strategy == "greedy"
    assert simulate_aggregate(MyHeuristic(), 10, seed=0).summary()["strategy"] == "MyHeuristic"
    assert evaluate(MyHeuristic(), "2-yatzy").strategy == "MyHeuristic"


def test_illegal_move_names_the_users_class():
    with pytest.raises(IllegalMoveError, match="strategy 'Chancer'") as info:
        simulate(Chancer(), 5, seed=0)
    assert info.value.strategy == "Chancer"


def test_json_outputs_are_byte_identical(capsys):
    for args in (
        ["exact", "--strategy", "greedy", "--rules", "2-yatzy", "--json"],
        ["simulate", "--strategy", "greedy", "--games", "3000", "--json", "--jobs", "2"],
    ):
        assert main(args) == 0
        first = capsys.readouterr().out
        assert main(args) == 0
        assert capsys.readouterr().out == first
