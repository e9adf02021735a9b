"""The streamed forward pass kept in a file: the same figures as in memory, and a pass
killed in the middle of a level (an exception, or SIGKILL in a child process) resumes
from its last recorded level and gives them bit for bit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.regret import RegretAccumulator
from yahtzee_sim.exact import forward
from yahtzee_sim.exact.forward_file import ForwardFile
from yahtzee_sim.exact.laws import prepared
from yahtzee_sim.game.rules import get_rules

RULES = "yahtzee-6box"


class Killed(Exception):
    """Stands for the process dying in the middle of a level."""


def streamed(path=None, on_decisions=None, rules=RULES):
    """The streamed whole pass of greedy (small blocks: several per level)."""
    strategy, rules = prepared("greedy", rules, moments_only=True)
    return forward.forward_levels(
        strategy, rules, False, on_decisions, keep_levels=False, path=path
    )[1]


def figures(stats) -> tuple:
    """Every figure of a pass's statistics, as exact floats."""
    return (
        stats.mean,
        stats.second,
        stats.total,
        stats.n_states,
        tuple(stats.cat_sum),
        tuple(stats.cat_zero),
        tuple(stats.cat_turn),
        tuple(stats.stats),
        tuple(stats.final_states),
    )


@pytest.fixture
def small_blocks(monkeypatch):
    # blocks of two states: the levels of the game end after 1, 4, 10, 19, 26 and 29 blocks
    monkeypatch.setattr(forward, "STREAM_STATES", 2)
    monkeypatch.setattr(forward, "_STATES_PER_TABLE", 2)


def kill_after(monkeypatch, calls: int) -> None:
    """Make the pass die right after its ``calls``-th block has written the next level."""
    real, seen = forward.forward_level, []

    def dying(*args):
        real(*args)
        seen.append(1)
        if len(seen) == calls:
            raise Killed

    monkeypatch.setattr(forward, "forward_level", dying)


def test_the_file_gives_the_figures_of_the_pass_in_memory(small_blocks, tmp_path):
    path = tmp_path / "forward.bin"
    assert figures(streamed(path)) == figures(streamed())
    left = [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")]  # not the lock
    assert left == []  # the files go when the pass is over


@pytest.mark.parametrize("calls", [2, 12, 21])
def test_a_pass_killed_mid_level_resumes_bit_for_bit(small_blocks, monkeypatch, tmp_path, calls):
    path = tmp_path / "forward.bin"
    whole = figures(streamed())
    with monkeypatch.context() as patch:
        kill_after(patch, calls)
        with pytest.raises(Killed):
            streamed(path)
    record = json.loads(path.with_name("forward.bin.progress").read_text())
    assert 0 < record["turn"] < get_rules(RULES).n_boxes  # killed after a recorded level
    assert figures(streamed(path)) == whole


def test_regret_killed_mid_level_resumes_bit_for_bit(small_blocks, monkeypatch, tmp_path):
    path = tmp_path / "forward.bin"
    rules = prepared("greedy", RULES, moments_only=True)[1]
    whole = RegretAccumulator(rules, 5)
    streamed(on_decisions=whole)
    with monkeypatch.context() as patch:
        kill_after(patch, 15)
        with pytest.raises(Killed):
            streamed(path, RegretAccumulator(rules, 5))
    resumed = RegretAccumulator(rules, 5)
    stats = streamed(path, resumed)
    assert resumed.checkpoint_state() == whole.checkpoint_state()
    assert (
        resumed.result("greedy", stats, 0).to_dict()
        == whole.result("greedy", streamed(), 0).to_dict()
    )


def test_another_analysis_or_strategy_does_not_resume_the_file(small_blocks, monkeypatch, tmp_path):
    path = tmp_path / "forward.bin"
    with monkeypatch.context() as patch:
        kill_after(patch, 7)
        with pytest.raises(Killed):
            streamed(path)
    rules = get_rules(RULES)
    assert ForwardFile(rules, "greedy", "regret-top5", path).record is None
    assert ForwardFile(rules, "greedy", "moments", path).record is None  # rewritten afresh


CHILD = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[3])
    from yahtzee_sim.exact import forward
    from yahtzee_sim.exact.laws import prepared
    from helpers import kill_after_calls
    forward.STREAM_STATES = 2
    forward._STATES_PER_TABLE = 2
    kill_after_calls(forward, "forward_level", int(sys.argv[2]))
    strategy, rules = prepared("greedy", "yahtzee-6box", moments_only=True)
    forward.forward_levels(strategy, rules, False, keep_levels=False, path=sys.argv[1])
    """
)


@pytest.mark.slow
def test_a_pass_killed_with_sigkill_resumes_bit_for_bit(small_blocks, tmp_path):
    path = tmp_path / "forward.bin"
    tests = str(Path(__file__).resolve().parents[1])
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), "24", tests], env=os.environ, capture_output=True
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    assert json.loads(path.with_name("forward.bin.progress").read_text())["turn"] > 0
    assert figures(streamed(path)) == figures(streamed())
    assert np.isfinite(streamed().mean)
