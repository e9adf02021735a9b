"""The advisor's answer with numba's compiler off: the same options, odds and moves as
compiled, bad input refused alike, and ``advise`` choosing that way only when it pays."""

import math
import threading

import pytest

from yahtzee_sim.cli import main
from yahtzee_sim.engine.interpreted import InterpretedRunError, interpreting, run_interpreted
from yahtzee_sim.errors import PositionError, StrategyError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import advice
from yahtzee_sim.solving.advice import answer, interpreting_pays, quick_answer
from yahtzee_sim.solving.advisor import AdvisorPosition
from yahtzee_sim.solving.solver import table_stored, value_table

from helpers import small_saved_game


def test_a_call_runs_in_a_process_with_the_compiler_off():
    assert not interpreting()
    assert run_interpreted(interpreting) is True
    assert run_interpreted(math.comb, 5, 2) == 10
    assert run_interpreted(print, "printed to standard error") is None  # not in the reply


def test_the_call_s_error_is_raised_again_here():
    with pytest.raises(ValueError, match="invalid literal"):
        run_interpreted(int, "x")


def test_a_failed_process_or_an_unsendable_result_is_an_interpreted_run_error():
    import os

    with pytest.raises(InterpretedRunError, match="exited with 3"):
        run_interpreted(os._exit, 3)
    with pytest.raises(InterpretedRunError, match="not sent back"):
        run_interpreted(threading.Lock)


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
    with pytest.raises(StrategyError, match="unknown strategy 'nosuch'"):
        quick_answer(AdvisorPosition([1, 2, 3, 4, 5], 2), strategy="nosuch")


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
