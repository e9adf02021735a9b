"""The advisor's answer with numba's compiler off: the same options, odds and moves as
compiled, bad input refused alike, and ``advise`` choosing that way only when it pays."""

import math
import os
import threading
import time
import warnings

import pytest

from yahtzee_sim.cli import main
from yahtzee_sim.engine.interpreted import InterpretedRunError, interpreting, run_interpreted
from yahtzee_sim.errors import PositionError, RulesError, StrategyError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import advice
from yahtzee_sim.solving.advice import answer, interpretable, interpreting_pays, quick_answer
from yahtzee_sim.solving.advisor import AdvisorPosition
from yahtzee_sim.solving.solver import table_stored, value_table

from helpers import small_saved_game


def test_a_call_runs_in_a_process_with_the_compiler_off():
    assert not interpreting()
    assert run_interpreted(interpreting) is True
    assert run_interpreted(math.comb, 5, 2) == 10
    assert run_interpreted(print, "printed to standard error") is None  # not in the reply
    assert run_interpreted(os.system, "echo written to its descriptor") == 0


def test_an_error_of_bad_input_is_raised_again_here_and_warnings_too():
    with pytest.raises(RulesError, match="nosuch"):
        run_interpreted(get_rules, "nosuch")
    with pytest.warns(UserWarning, match="from the interpreted process"):
        run_interpreted(warnings.warn, "from the interpreted process")


def test_any_other_failure_is_an_interpreted_run_error():
    with pytest.raises(InterpretedRunError, match="invalid literal"):
        run_interpreted(int, "x")  # a ValueError, but not one of bad input to the package
    with pytest.raises(InterpretedRunError, match="exited with 3"):
        run_interpreted(os._exit, 3)
    with pytest.raises(InterpretedRunError, match="not sent back"):
        run_interpreted(threading.Lock)
    with pytest.raises(InterpretedRunError, match="did not start"):
        run_interpreted(lambda: 1)
    with pytest.raises(InterpretedRunError, match="no answer in 0.5 s"):
        run_interpreted(time.sleep, 30, timeout=0.5)


POSITIONS = [
    ("yahtzee", dict(dice=[1, 2, 3, 4, 6], rolls_left=2)),
    ("yahtzee", dict(dice=[5, 5, 5, 2, 2], rolls_left=0, used=["fives"], upper=10)),
    ("yahtzee", dict(dice=[4, 4, 4, 4, 4], rolls_left=0, used=["yahtzee"], flag=True)),
    ("yatzy", dict(dice=[6, 6, 3, 1, 2], rolls_left=1, used=["ones", "one_pair"], upper=3)),
    ("small-saved", dict(dice=[1, 2, 2], rolls_left=3, used=["ones", "twos"], upper=3)),
    ("small-saved", dict(dice=[3, 3, 3], rolls_left=0, saved_rolls=1)),
]


def _rules(name):
    return small_saved_game(cap=3) if name == "small-saved" else get_rules(name)


@pytest.mark.parametrize(("name", "where"), POSITIONS)
def test_the_interpreted_answer_is_the_compiled_one(name, where):
    rules = _rules(name)
    value_table(rules)  # stored: the interpreted process reads it
    position = AdvisorPosition(rules=rules, **where)
    boxes = list(rules.box_names[:3]) if where["rolls_left"] else None
    compiled = answer(position, boxes, "greedy")
    interpreted = run_interpreted(answer, position, boxes, "greedy")
    assert interpreted.interpreted and not compiled.interpreted
    assert interpreted.options == compiled.options  # bit for bit
    assert interpreted.move == compiled.move


@pytest.mark.parametrize("strategy", ["card-30", "defensive"])
def test_built_in_moves_are_the_compiled_ones(strategy):
    position = AdvisorPosition([2, 3, 3, 5, 6], 1, used=["threes", "chance"], upper=9)
    value_table("yahtzee")
    assert interpretable(strategy)
    compiled = answer(position, None, strategy)
    interpreted = run_interpreted(answer, position, None, strategy)
    assert interpreted.move == compiled.move and interpreted.options == compiled.options


def test_strategies_that_read_tables_of_their_own_move_compiled():
    assert interpretable(None) and interpretable("greedy")
    for strategy in ("optimal", "target:250", "glenn-heuristic", "risk", "my_file.py:Mine", 3):
        assert not interpretable(strategy), strategy


def test_quick_answer_interprets_only_with_the_table_stored_and_the_kernel_missing(
    monkeypatch, tmp_path
):
    rules = get_rules("yahtzee")
    value_table(rules)
    position = AdvisorPosition([2, 2, 3, 5, 6], 1, rules=rules)
    monkeypatch.setattr(advice, "kernel_missing", lambda *kernel: True)
    assert interpreting_pays(rules)
    reply = quick_answer(position, strategy="greedy")
    assert reply.interpreted and reply.options == answer(position).options
    monkeypatch.setattr(advice, "kernel_missing", lambda *kernel: False)
    assert not interpreting_pays(rules) and quick_answer(position) is None
    monkeypatch.setattr(advice, "kernel_missing", lambda *kernel: None)  # unknown: missing
    assert interpreting_pays(rules)
    unsolved = get_rules("yahtzee+fh5")
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    assert not table_stored(unsolved) and not interpreting_pays(unsolved)
    assert quick_answer(AdvisorPosition([2, 2, 3, 5, 6], 1, rules=unsolved)) is None


def test_bad_input_is_refused_alike_interpreted(monkeypatch):
    value_table("yahtzee")
    monkeypatch.setattr(advice, "kernel_missing", lambda *kernel: True)
    with pytest.raises(PositionError, match="every box is filled"):
        quick_answer(AdvisorPosition([1, 1, 1, 1, 1], 0, used=get_rules("yahtzee").box_names))
    with pytest.raises(StrategyError, match="random"):  # raised interpreted, raised here
        quick_answer(AdvisorPosition([1, 2, 3, 4, 5], 2), strategy="random")
    assert quick_answer(AdvisorPosition([1, 2, 3, 4, 5], 2), strategy="nosuch") is None


def test_advise_prints_the_same_either_way(monkeypatch, capsys):
    value_table("yatzy")
    argv = ["advise", "--rules", "yatzy", "--dice", "1,1,4,5,6", "--rolls-left", "2",
            "--odds", "open", "--strategy", "greedy", "--top", "6"]  # fmt: skip
    printed = []
    for missing in (True, False):
        monkeypatch.setattr(advice, "kernel_missing", lambda *kernel, m=missing: m)
        assert main(argv) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] and "greedy says" in printed[0]


def test_a_damaged_stored_table_is_solved_again_compiled_never_interpreted(monkeypatch, tmp_path):
    from yahtzee_sim.solving.cache import CacheWarning
    from yahtzee_sim.solving.solver import TABLES

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    rules = get_rules("yatzy")
    key = TABLES.key(rules)
    TABLES.forget(key)
    expected = answer(AdvisorPosition([6, 6, 5, 1, 2], 1, rules=rules)).options
    (path,) = TABLES.paths(key)
    raw = bytearray(path.read_bytes())
    raw[-8] ^= 0xFF
    path.write_bytes(bytes(raw))
    TABLES.forget(key)
    monkeypatch.setattr(advice, "kernel_missing", lambda *kernel: True)
    with pytest.warns(CacheWarning, match="corrupted"):
        reply = quick_answer(AdvisorPosition([6, 6, 5, 1, 2], 1, rules=rules))
    assert reply.interpreted and reply.options == expected
    TABLES.forget(key)


#: Runs ``advise`` and prints the kernels numba compiled in this process (none, or the
#: answer compiled).
COUNTER = r"""
import json, sys
from numba.core import event

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
from yahtzee_sim.cli import main

code = main(["advise", "--dice", "1,2,3,4,6", "--rolls-left", "2", "--strategy", "greedy"])
print(json.dumps(compiled))
sys.exit(code)
"""


def test_a_first_advise_on_yahtzee_from_empty_caches_compiles_nothing(tmp_path):
    import json
    import subprocess
    import sys

    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "YAHTZEE_SIM_CACHE": str(tmp_path / "tables"),
    }
    run = subprocess.run(
        [sys.executable, "-c", COUNTER], env=env, capture_output=True, text=True, check=True
    )
    *printed, compiled = run.stdout.strip().splitlines()
    assert json.loads(compiled) == []
    assert "keep 1 2 3 4" in printed[0] and "greedy says" in printed[-1]
