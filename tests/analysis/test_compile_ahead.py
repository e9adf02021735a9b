"""Compiling the report's kernels ahead: a second process compiles the decision fill's and the exact
stage's kernels; the report announces the compiling ahead."""

from __future__ import annotations

import subprocess
import sys

from yahtzee_sim.analysis.report import compile_ahead
from yahtzee_sim.exact.laws import forward_pass, prepared


def test_warm_compiles_the_exact_stage_kernels_and_start_then_has_nothing_to_do():
    compile_ahead.warm("yahtzee")  # one turn of greedy: seconds once the kernels are cached
    assert not compile_ahead.needed()
    assert compile_ahead.start("yahtzee") is None


def test_the_compile_estimate_counts_the_kernels_not_cached(monkeypatch):
    monkeypatch.setattr(compile_ahead, "kernel_missing", lambda module, name: True)
    every = sum(compile_ahead.HEAVY_KERNELS.values()) + compile_ahead.OTHER_KERNELS_SECONDS
    assert compile_ahead.compile_estimate(cores=1) == every
    # the report's process and the second process share two cores
    assert compile_ahead.compile_estimate(cores=8) == every / 2
    monkeypatch.setattr(compile_ahead, "kernel_missing", lambda module, name: name == "fill_lanes")
    assert compile_ahead.compile_estimate(cores=1) == 15.0 + compile_ahead.OTHER_KERNELS_SECONDS
    assert compile_ahead.needed()
    monkeypatch.setattr(compile_ahead, "kernel_missing", lambda module, name: False)
    assert compile_ahead.compile_estimate() == 0.0 and not compile_ahead.needed()


def test_every_heavy_kernel_is_found():
    for module, name in compile_ahead.HEAVY_KERNELS:
        assert compile_ahead.kernel_missing(module, name) is not None, f"{module}.{name}"


def test_forward_pass_stops_after_the_turns_asked():
    strategy, rules = prepared("greedy", "yahtzee")
    levels, fw = forward_pass(strategy, rules, turns=2)
    assert len(levels) == 2
    assert abs(fw["total"] - 1.0) < 1e-12  # every game reaches a state after two turns
    assert 0 < fw["mean"] < 2 * 50


def test_finish_stops_a_warm_up_that_runs_too_long():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    compile_ahead.finish(proc, timeout=0.1)
    assert proc.returncode is not None
    compile_ahead.finish(None)  # nothing started: nothing to do
