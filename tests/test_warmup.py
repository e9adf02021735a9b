"""The report's kernel warm-up: a second process compiles the exact stage's kernels."""

from __future__ import annotations

import subprocess
import sys

from yahtzee_sim.analysis import warmup
from yahtzee_sim.exact.laws import forward_pass, prepared


def test_warm_compiles_the_exact_stage_kernels_and_start_then_has_nothing_to_do():
    warmup.warm("yahtzee")  # one turn of greedy: seconds once the kernels are cached
    assert not warmup.needed()
    assert warmup.start("yahtzee") is None


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
