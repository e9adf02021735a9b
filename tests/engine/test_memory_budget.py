"""Bounded memory on any input: a run that keeps every game and would not fit in memory is
refused in one line before it allocates; a summary alone streams any number of games."""

from __future__ import annotations

import tracemalloc

import pytest

from yahtzee_sim import simulate, simulate_aggregate
from yahtzee_sim.analysis.decisions.dataset import decision_dataset
from yahtzee_sim.analysis.ranking.tournament import tournament
from yahtzee_sim.cli import main
from yahtzee_sim.engine.memory_budget import (
    BUDGET_ENV,
    MemoryBudgetError,
    available_memory,
    check_memory,
    size_text,
)
from yahtzee_sim.engine.records import record_games
from yahtzee_sim.errors import StrategyRuntimeError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.matches import play_matches
from yahtzee_sim.strategies import FunctionStrategy, get_strategy

HUGE = 10**12


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--out", "{tmp}/games.parquet"],
        ["simulate", "--record", "{tmp}/games.jsonl"],
        ["tournament", "--strategies", "greedy,random"],
        ["tournament", "--strategies", "greedy,random", "--visible"],
        ["dataset", "--out", "{tmp}/decisions.csv"],
    ],
    ids=["simulate-out", "simulate-record", "tournament", "tournament-visible", "dataset"],
)
def test_a_huge_run_is_refused_in_one_line(capsys, tmp_path, args):
    args = [a.format(tmp=tmp_path) for a in args]
    tracemalloc.start()
    try:
        code = main([*args, "--games", str(HUGE), "--quiet"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "of memory, more than the" in err, err
    assert peak < 50e6, f"{peak / 1e6:.0f} MB allocated before refusing"
    assert not list(tmp_path.iterdir()), "nothing written"


def test_the_api_refuses_with_a_value_error():
    rules = get_rules("yahtzee")
    calls = [
        lambda: simulate("greedy", HUGE),
        lambda: tournament(["greedy", "random"], n_games=HUGE),
        lambda: tournament(["greedy", "random"], n_games=HUGE, visible=True),
        lambda: play_matches([get_strategy("greedy")] * 2, rules, HUGE),
        lambda: decision_dataset("greedy", HUGE),
        lambda: record_games("greedy", HUGE),
    ]
    for call in calls:
        with pytest.raises(MemoryBudgetError, match="of memory") as info:
            call()
        assert isinstance(info.value, ValueError)


def test_the_budget_follows_the_environment(monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "100000")
    assert available_memory() == 100_000
    with pytest.raises(MemoryBudgetError, match=r"2,000 games .* 100.0 kB available"):
        simulate("greedy", 2000)
    agg = simulate_aggregate("greedy", 1000)  # statistics only: never refused
    assert agg.summary()["games"] == 1000
    check_memory(99_999, "a small run")
    monkeypatch.delenv(BUDGET_ENV)
    assert available_memory() is None or available_memory() > 1e6
    assert size_text(2.5e12) == "2.5 TB" and size_text(45e6) == "45.0 MB"


def _fails(pos):
    raise RuntimeError("stop here")


def test_a_summary_streams_any_number_of_games():
    """``simulate_aggregate`` of 10**12 games holds no list of its blocks: the first block
    starts at once (here its strategy stops the run) with little memory allocated."""
    tracemalloc.start()
    try:
        with pytest.raises(StrategyRuntimeError, match="stop here"):
            simulate_aggregate(FunctionStrategy(_fails, _fails), HUGE, chunk_size=64)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6, f"{peak / 1e6:.0f} MB"
