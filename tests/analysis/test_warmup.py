"""The report's kernel warm-up: a second process compiles the decision fill's and the exact
stage's kernels; the report announces the compiling ahead."""

from __future__ import annotations

import subprocess
import sys

from yahtzee_sim.analysis import warmup
from yahtzee_sim.exact.laws import forward_pass, prepared


def test_warm_compiles_the_exact_stage_kernels_and_start_then_has_nothing_to_do():
    warmup.warm("yahtzee")  # one turn of greedy: seconds once the kernels are cached
    assert not warmup.needed()
    assert warmup.start("yahtzee") is None


def test_the_compile_estimate_counts_the_kernels_not_cached(monkeypatch):
    monkeypatch.setattr(warmup, "kernel_missing", lambda module, name: True)
    every = sum(warmup.HEAVY_KERNELS.values()) + warmup.OTHER_KERNELS_SECONDS
    assert warmup.compile_estimate(cores=1) == every
    assert warmup.compile_estimate(cores=8) == every / 2  # the report's process and the warm-up
    monkeypatch.setattr(warmup, "kernel_missing", lambda module, name: name == "fill_lanes")
    assert warmup.compile_estimate(cores=1) == 15.0 + warmup.OTHER_KERNELS_SECONDS
    assert warmup.needed()
    monkeypatch.setattr(warmup, "kernel_missing", lambda module, name: False)
    assert warmup.compile_estimate() == 0.0 and not warmup.needed()


def test_every_heavy_kernel_is_found():
    for module, name in warmup.HEAVY_KERNELS:
        assert warmup.kernel_missing(module, name) is not None, f"{module}.{name}"


def test_forward_pass_stops_after_the_turns_asked():
    strategy, rules = prepared("greedy", "yahtzee")
    levels, fw = forward_pass(strategy, rules, turns=2)
    assert len(levels) == 2
    assert abs(fw["total"] - 1.0) < 1e-12  # every game reaches a state after two turns
    assert 0 < fw["mean"] < 2 * 50


def test_finish_stops_a_warm_up_that_runs_too_long():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    warmup.finish(proc, timeout=0.1)
    assert proc.returncode is not None
    warmup.finish(None)  # nothing started: nothing to do
