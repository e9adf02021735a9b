"""Compiling the report's kernels ahead: a second process compiles the decision fill's and the exact
stage's kernels; the report announces the compiling ahead."""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import pytest

from yahtzee_sim.analysis.report import compile_ahead
from yahtzee_sim.engine import compile_costs
from yahtzee_sim.exact.laws import forward_pass, prepared


def test_warm_compiles_the_exact_stage_kernels_and_start_then_has_nothing_to_do():
    compile_ahead.warm("yahtzee")  # one turn of greedy: seconds once the kernels are cached
    assert not compile_ahead.needed()
    assert compile_ahead.start("yahtzee") is None


def test_the_compile_share_weighs_the_kernels_not_cached(monkeypatch):
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    assert compile_ahead.compile_share() == 1.0
    assert compile_ahead.compile_share(evaluating=False) == 1.0
    fill = ("yahtzee_sim._core.upper_lane_fill", "upper_lane_chunks")
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda *kernel: kernel != fill)
    sims = compile_ahead.SIMULATION_KERNELS
    assert compile_ahead.compile_share(False) == pytest.approx(1 - sims[fill] / sum(sims.values()))
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: None)
    assert compile_ahead.compile_share() == 1.0  # unknown counts as missing
    only = ("yahtzee_sim._kernels.exact", "turn_outcomes")
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda *kernel: kernel == only)
    weights = compile_ahead.REPORT_KERNELS
    assert compile_ahead.compile_share() == weights[only] / sum(weights.values())
    assert compile_ahead.needed() is False
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    assert compile_ahead.compile_share() == 0.0 and not compile_ahead.needed()


def test_the_first_run_estimate_scales_the_reference_by_this_machine_s_speed():
    ref = compile_ahead.REFERENCE_SECONDS
    at_reference = compile_ahead.first_run_estimate(
        1.0, 12, cores=2, calibration=ref["calibration"]
    )
    assert at_reference == ref["compile"] + ref["evaluate"]
    # a machine twice as slow, or with one core, takes twice as long
    slow = compile_ahead.first_run_estimate(1.0, 12, cores=2, calibration=2 * ref["calibration"])
    assert slow == 2 * at_reference
    assert compile_ahead.first_run_estimate(1.0, 12, cores=1, calibration=ref["calibration"]) == (
        2 * at_reference
    )
    assert compile_ahead.first_run_estimate(1.0, 12, cores=8, calibration=ref["calibration"]) == (
        at_reference
    )
    # only what is missing: half the evaluations, no compiling
    half = compile_ahead.first_run_estimate(0.0, 6, cores=2, calibration=ref["calibration"])
    assert half == ref["evaluate"] / 2
    assert compile_ahead.first_run_estimate(0.0, 0) == 0.0  # nothing to do: no calibration


def test_a_first_report_announces_its_extra_time(monkeypatch, capsys):
    from yahtzee_sim.analysis.report import build

    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    monkeypatch.setattr(compile_costs, "calibration_seconds", lambda: 0.070)
    build._first_run_notice(build.get_rules("yahtzee"), ["greedy"], 10, False)
    err = capsys.readouterr().err
    assert "first run on this machine (compiling kernels" in err
    assert "s more than later runs" in err
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    monkeypatch.setattr(build.exact_cache, "stored", lambda key: True)
    build._first_run_notice(build.get_rules("yahtzee"), ["greedy"], 10, False)
    assert capsys.readouterr().err == ""  # everything cached: no notice


def test_every_report_kernel_is_found():
    for module, name in [*compile_ahead.REPORT_KERNELS, *compile_ahead.SIMULATION_KERNELS]:
        assert compile_costs.kernel_missing(module, name) is not None, f"{module}.{name}"


def test_forward_pass_stops_after_the_turns_asked():
    strategy, rules = prepared("greedy", "yahtzee")
    levels, fw = forward_pass(strategy, rules, turns=2)
    assert len(levels) == 2
    assert abs(fw.total - 1.0) < 1e-12  # every game reaches a state after two turns
    assert 0 < fw.mean < 2 * 50


def test_finish_stops_waiting_but_leaves_a_compiling_process_to_end_on_its_own():
    """A process still compiling at the timeout is not killed (that could cut a cache
    entry's writing in two): ``finish`` returns, and the process ends by itself."""
    proc = compile_ahead.start_compiling([sys.executable, "-c", "import time; time.sleep(60)"])
    t0 = time.perf_counter()
    compile_ahead.finish(proc, timeout=0.1)
    assert time.perf_counter() - t0 < 30
    assert proc.poll() is None and proc in compile_ahead.LEFT_RUNNING
    assert os.getsid(proc.pid) != os.getsid(0)  # its own session: Ctrl-C does not reach it
    proc.kill()
    proc.wait()
    compile_ahead.finish(None)  # nothing started: nothing to do
    quick = compile_ahead.start_compiling([sys.executable, "-c", "pass"])
    compile_ahead.finish(quick, timeout=60)
    assert quick.returncode == 0


def test_a_report_with_nothing_to_evaluate_solves_glenn_s_sub_games_beside(tmp_path, monkeypatch):
    """start_tables: a second process solves the sub-games of Glenn's better heuristic
    into the table cache, only when the report has that strategy, the solver is not
    compiled and the tables are not stored."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.solver import table_stored
    from yahtzee_sim.strategies import get_strategy
    from yahtzee_sim.strategies.glenn2006 import sub_games

    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "cache"))
    rules = get_rules("yahtzee")
    better = [get_strategy("greedy"), get_strategy("glenn-better-heuristic")]
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    assert compile_ahead.start_tables(rules, better) is None  # the solver is compiled
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    assert compile_ahead.start_tables(rules, better[:1]) is None  # no sub-games to solve
    assert not any(table_stored(game) for game in sub_games(rules))
    custom = dataclasses.replace(rules, upper_bonus=50)  # not the preset of its name
    assert compile_ahead.start_tables(custom, better) is None
    proc = compile_ahead.start_tables(rules, better)
    assert proc is not None and proc.wait(timeout=300) == 0
    assert all(table_stored(game) for game in sub_games(rules))
    assert compile_ahead.start_tables(rules, better) is None  # stored: nothing to do


def test_a_report_that_evaluates_nothing_announces_its_simulations_compiling():
    ref = compile_ahead.REFERENCE_SECONDS
    at_reference = compile_ahead.first_run_estimate(
        1.0, 0, cores=2, calibration=ref["calibration"], evaluating=False
    )
    assert at_reference == ref["compile_simulations"] < ref["compile"]
    plugin = compile_ahead.first_run_estimate(  # a plugin evaluated: every kernel
        1.0, 0, cores=2, calibration=ref["calibration"], evaluating=True
    )
    assert plugin == ref["compile"]
