"""Compilation benchmark: how long the first calls of the widget's callers compile.

Prints one JSON object. Usage::

    python benchmarks/bench_compile.py

Runs one fresh process with an empty numba cache folder (``NUMBA_CACHE_DIR``, a
temporary folder; solved tables come from the usual disk cache) and times the first call
of each entry point below, in this order, so a kernel an earlier step compiled is
reused: the max-EV solver, the target solver, a table strategy's decision fill, one
advisor answer, an exact law with its regret, and a two-player endgame move. Each
figure is wall time, almost all of it numba compiling; ``numba_compile_seconds`` is the
time numba itself reports for each step's top-level compilations.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile

from page_format import Row

STEPS = r"""
import json, time
from numba.core import event

compiling = []


class Timer(event.Listener):
    def on_start(self, ev):
        compiling.append(time.perf_counter())

    def on_end(self, ev):
        t0 = compiling.pop()
        if not compiling:
            Timer.total += time.perf_counter() - t0


Timer.total = 0.0
event.register("numba:compile", Timer())

from yahtzee_sim import simulate
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret
from yahtzee_sim.multiplayer.duel import duel
from yahtzee_sim.solving.solver import solve
from yahtzee_sim.solving.target import solve_target

ME = ("ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18, three_of_a_kind=20, "
      "four_of_a_kind=0, full_house=25, small_straight=30")
THEM = ("ones=2, twos=6, threes=12, fours=12, fives=15, sixes=24, three_of_a_kind=22, "
        "four_of_a_kind=0, full_house=25, small_straight=30")
steps = {
    "solver": lambda: solve("2-yatzy"),
    "target_solver": lambda: solve_target("2-yatzy"),
    "table_fill": lambda: simulate("optimal", 10, rules="2-yatzy", n_jobs=1),
    "advisor": lambda: advise([1, 1, 1, 2, 3], 2, rules="yahtzee"),
    "regret": lambda: evaluate_with_regret("greedy", "2-yatzy"),
    "duel": lambda: duel([ME, THEM], "yahtzee", dice=[6, 6, 6, 6, 2], rolls_left=0),
}
out = {"seconds": {}, "numba_compile_seconds": {}}
for name, step in steps.items():
    Timer.total = 0.0
    t0 = time.perf_counter()
    step()
    out["seconds"][name] = round(time.perf_counter() - t0, 2)
    out["numba_compile_seconds"][name] = round(Timer.total, 2)
out["total_seconds"] = round(sum(out["seconds"].values()), 2)
print(json.dumps(out))
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as numba_cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": numba_cache}
        run = subprocess.run(
            [sys.executable, "-c", STEPS], env=env, capture_output=True, text=True, check=True
        )
    result = json.loads(run.stdout.strip().splitlines()[-1])
    out = {
        "benchmark": "compile",
        "python": platform.python_version(),
        "machine": platform.machine(),
        **result,
    }
    print(json.dumps(out, indent=2))
    return 0


COMPILE_STEPS = {
    "solver": "max-EV solver",
    "target_solver": "target solver",
    "table_fill": "decision fill of a table strategy",
    "advisor": "advisor answer",
    "regret": "exact law with its regret",
    "duel": "two-player endgame move",
}


def rows(r: dict) -> list[Row]:
    rows: list[Row] = [
        (
            f"the first {label}, the numba cache empty",
            f"{r['seconds'][step]:.1f} s ({r['numba_compile_seconds'][step]:.1f} s compiling)",
        )
        for step, label in COMPILE_STEPS.items()
    ]
    rows.append(
        (
            "all six, in that order (later steps reuse earlier kernels)",
            f"{r['total_seconds']:.1f} s",
        )
    )
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "The report"
TITLE = "The first use after installation (compiling the kernels)"
COMMAND = "python benchmarks/bench_compile.py"
SMOKE = None


if __name__ == "__main__":
    sys.exit(main())
