"""``yahtzee-sim warmup``: the plan covers every command, bad names are one line and exit 2,
and after the warm-up the real commands compile nothing (the slow test)."""

import json
import os
import subprocess
import sys

import pytest

from yahtzee_sim.analysis.beside import AHEAD_KERNELS
from yahtzee_sim.analysis.warmup import (
    PLAN,
    STEPS,
    WarmupError,
    kernel_cache,
    run_step,
    steps_for,
)
from yahtzee_sim.cli import COMMANDS, main


def test_the_plan_names_every_command_and_only_known_steps():
    assert set(PLAN) == {c.name for c in COMMANDS} - {"warmup"}
    assert {step for steps in PLAN.values() for step in steps} <= set(STEPS)
    for step in STEPS.values():
        assert set(step.after) <= set(STEPS) and step.seconds > 0


def test_steps_for_commands_in_plan_order_once_each():
    assert steps_for(["advise", "simulate"]) == ["solver", "simulation", "optimal_play", "advisor"]
    assert steps_for(["rules"]) == []
    # no name: every command (the steps run beside a solve are the commands' own)
    assert steps_for([]) == [step for step in STEPS if step not in AHEAD_KERNELS]
    with pytest.raises(WarmupError, match="unknown command 'nope'"):
        steps_for(["simulate", "nope"])


def test_steps_come_after_the_steps_they_reuse():
    order = list(STEPS)
    for name, step in STEPS.items():
        assert all(order.index(before) < order.index(name) for before in step.after)


@pytest.mark.parametrize(
    "argv",
    [["warmup", "nope"], ["warmup", "simulate", "--rules", "nope"], ["warmup", "--jobs", "0"]],
)
def test_bad_arguments_are_one_line_and_exit_2(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_command_without_kernels_needs_no_step(capsys):
    assert main(["warmup", "rules", "strategies", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["steps"] == {} and out["kernel_cache"] == kernel_cache()


#: Runs a CLI command and prints the kernels numba compiled at top level in this process.
COUNTER = r"""
import json, sys
from numba.core import event

compiled = []


class Compiles(event.Listener):
    depth = 0

    def on_start(self, ev):
        if not Compiles.depth:
            func = ev.data["dispatcher"].py_func
            compiled.append(f"{func.__module__}.{func.__qualname__}")
        Compiles.depth += 1

    def on_end(self, ev):
        Compiles.depth -= 1


event.register("numba:compile", Compiles())
from yahtzee_sim.cli import main

code = main(sys.argv[1:])
print(json.dumps(compiled))
sys.exit(code)
"""

#: The first answers a newcomer asks for, after ``warmup`` of the same commands.
FIRST_ANSWERS = [
    ["simulate", "--strategy", "optimal", "--games", "1000", "--quiet"],
    ["advise", "--dice", "1,2,3,4,6", "--rolls-left", "2"],
    ["exact", "--strategy", "greedy", "--quiet"],
]


@pytest.mark.slow
def test_after_warmup_the_commands_compile_nothing(tmp_path):
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "YAHTZEE_SIM_CACHE": str(tmp_path / "tables"),
    }
    names = [argv[0] for argv in FIRST_ANSWERS]
    warm = [sys.executable, "-m", "yahtzee_sim", "warmup", *names, "--quiet", "--json"]
    done = subprocess.run(warm, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out["steps"]) == set(steps_for(names))
    assert out["kernel_cache"]["where"] == "NUMBA_CACHE_DIR"
    assert out["kernel_cache"]["folder"].startswith(env["NUMBA_CACHE_DIR"])
    for argv in FIRST_ANSWERS:
        run = subprocess.run(
            [sys.executable, "-c", COUNTER, *argv], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout.strip().splitlines()[-1]) == [], argv


AHEAD = r"""
import json, sys
from numba.core import event
from yahtzee_sim.analysis.report import compile_ahead
from yahtzee_sim.analysis.beside import solve_while_compiling
from yahtzee_sim.analysis.warmup import run_step
from yahtzee_sim.engine.compile_costs import kernel_missing

compile_ahead.TIMEOUT_SECONDS = 3600.0  # the test waits for the second process, however slow
step, kernel = sys.argv[1], sys.argv[2]
compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        compiled.append(f"{func.__module__}.{func.__qualname__}")

    def on_end(self, ev):
        pass


with event.install_listener("numba:compile", Compiles()):
    solve_while_compiling(step, "2-yatzy")
    ahead = kernel_missing(*kernel.rsplit(".", 1))
    if step == "table_fill":
        from yahtzee_sim import simulate

        simulate("optimal", 100, rules="2-yatzy", n_jobs=1)
    else:
        from yahtzee_sim.solving.advisor import advise

        advise([1, 2], 1, rules="2-yatzy")
print(json.dumps({"compiled": compiled, "missing_after_solve": ahead}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("step", ["advisor_kernels", "table_fill"])
def test_a_first_solve_compiles_the_next_kernels_in_a_second_process(tmp_path, step):
    """From empty caches: while this process solves, the second
    process compiles the kernels the command uses next; this process then loads them."""
    kernel = ".".join(AHEAD_KERNELS[step])
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "YAHTZEE_SIM_CACHE": str(tmp_path / "tables"),
    }
    run = subprocess.run(
        [sys.executable, "-c", AHEAD, step, kernel],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["missing_after_solve"] is False
    assert kernel not in out["compiled"]  # ... and loaded the other's kernel


BESIDE = r"""
import importlib, json, sys
from yahtzee_sim import simulate
from yahtzee_sim.analysis.warmup import MostCommon
from yahtzee_sim.exact.laws import evaluate

if sys.argv[1] == "mixed_widget":
    simulate("optimal", 64, rules="yahtzee", n_jobs=1)
else:
    evaluate(MostCommon(), "yahtzee")
out = {}
for name in sys.argv[2:]:
    module, kernel = name.rsplit(".", 1)
    kernel = getattr(importlib.import_module(module), kernel)
    out[name] = [len(kernel._cache_hits), len(kernel._cache_misses)]
print(json.dumps(out))
"""

BESIDE_KERNELS = {"mixed_widget": ["yahtzee_sim._kernels.widget.widget_mixed"]}


@pytest.mark.slow
@pytest.mark.parametrize("step", sorted(BESIDE_KERNELS))
def test_a_step_run_beside_compiles_what_the_command_then_loads(tmp_path, step):
    """A step :func:`compile_beside` runs beside a first command (``simulate`` of optimal
    play, ``exact``) compiles its kernels with the argument types the command calls them
    with: a process running the command after it loads each of them from the cache (one
    hit, no miss) instead of compiling it."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "YAHTZEE_SIM_CACHE": str(tmp_path / "tables"),
    }
    run_step = [sys.executable, "-m", "yahtzee_sim.analysis.warmup", step, "yahtzee"]
    done = subprocess.run(run_step, env=env, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["kernels"]
    kernels = BESIDE_KERNELS[step]
    run = subprocess.run(
        [sys.executable, "-c", BESIDE, step, *kernels],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {k: [1, 0] for k in kernels}


def test_compile_beside_starts_nothing_when_the_kernel_is_cached(monkeypatch):
    from yahtzee_sim.analysis import beside

    monkeypatch.setattr("yahtzee_sim.engine.compile_costs.kernel_missing", lambda *k: False)
    assert beside.compile_beside("mixed_widget", "yahtzee") is None


def test_the_exact_step_compiles_a_turn_in_progress_in_the_types_winprob_uses():
    from yahtzee_sim.exact.points_to_come import future_law
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import encode_state

    run_step("exact", "2-yatzy")
    start = encode_state(get_rules("2-yatzy"), 0, 0, 0)
    pmf = future_law("2-yatzy", start, dice=[1, 1], rolls_left=1)
    assert abs(pmf.sum() - 1) < 1e-12
