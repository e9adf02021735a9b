"""Where a kernel's compile seconds go: numba's front end against LLVM, in CPU seconds.

Prints one JSON object. Usage::

    python benchmarks/bench_compile_split.py [--steps solver,table_fill,exact,regret]
    NUMBA_OPT=0 python benchmarks/bench_compile_split.py --steps solver  # LLVM at -O0

Each warm-up step (:data:`yahtzee_sim.analysis.warmup.STEPS`) runs alone in a fresh
process with an empty numba cache of its own (the value table solved once beforehand, in
a table cache the steps share). For every top-level kernel the step compiles, the JSON
gives, in CPU seconds of the process (``time.process_time``: the machine may be shared):

* ``cpu``: the whole compilation (the kernel and every function it compiles);
* ``llvm``: the part spent holding numba's LLVM lock (LLVM IR built, optimised, turned
  into machine code; it nests inside the lowering passes);
* ``front_end``: the rest (type inference, the parfor passes, numba's own IR passes);
* ``passes``: the ten costliest numba passes by their own CPU seconds (a pass's nested
  compilations not counted in it, the LLVM time inside it counted), summed over every
  function the kernel compiles;
* ``functions``: how many function compilations (signatures) it made.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

from page_format import Row

#: The steps that compile the four costliest kernels (solve_level; upper_lane_decisions;
#: level_effects with turn_outcomes; level_regret).
DEFAULT = ("solver", "table_fill", "exact", "regret")
#: Its entry for the Performance page (``perf_page.py``: not yet on the page's list).
AREA, SMOKE = "The report", None
TITLE = "Where the compile seconds go: numba's front end and LLVM"
COMMAND = "python benchmarks/bench_compile_split.py"

RUNNER = r"""
import json, sys, time
from numba.core import event

kernels, stack, passes, llvm = {}, [], [], [0, 0.0]


def now():
    return time.process_time()


class Compile(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        stack.append((now(), f"{func.__module__}.{func.__qualname__}", llvm[1]))
        if len(stack) == 1:
            passes.clear()
            kernels.setdefault(stack[0][1], {"cpu": 0.0, "llvm": 0.0, "functions": 0, "p": {}})

    def on_end(self, ev):
        t0, name, llvm0 = stack.pop()
        top = kernels[stack[0][1] if stack else name]
        top["functions"] += 1
        if not stack:
            top["cpu"] += now() - t0
            top["llvm"] += llvm[1] - llvm0


class Llvm(event.Listener):  # the lock is re-entrant: only the outermost hold counts
    def on_start(self, ev):
        llvm[0] += 1
        if llvm[0] == 1:
            llvm.append(now())

    def on_end(self, ev):
        llvm[0] -= 1
        if llvm[0] == 0:
            llvm[1] += now() - llvm.pop()


class Pass(event.Listener):  # own seconds: nested passes (a callee's compile) subtracted
    def on_start(self, ev):
        passes.append([now(), ev.data["name"].split(" [")[0], 0.0])

    def on_end(self, ev):
        t0, name, nested = passes.pop()
        spent = now() - t0
        if passes:
            passes[-1][2] += spent
        if stack:
            own = kernels[stack[0][1]]["p"]
            own[name] = own.get(name, 0.0) + spent - nested


event.register("numba:compile", Compile())
event.register("numba:llvm_lock", Llvm())
event.register("numba:run_pass", Pass())
from yahtzee_sim.analysis.warmup import STEPS

t0 = now()
STEPS[sys.argv[1]].run(sys.argv[2])
out = {}
for name, k in kernels.items():
    top = sorted(k["p"].items(), key=lambda item: -item[1])[:10]
    out[name] = {
        "cpu": round(k["cpu"], 2),
        "llvm": round(k["llvm"], 2),
        "front_end": round(k["cpu"] - k["llvm"], 2),
        "functions": k["functions"],
        "passes": {p: round(s, 2) for p, s in top},
    }
print(json.dumps({"cpu": round(now() - t0, 2), "kernels": out}))
"""


def run_step(step: str, rules: str, env: dict[str, str]) -> dict:
    """Step ``step`` in a fresh process with an empty numba cache: its kernels' split."""
    with tempfile.TemporaryDirectory() as numba_cache:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, step, rules],
            env={**env, "NUMBA_CACHE_DIR": numba_cache},
            capture_output=True,
            text=True,
        )
    if done.returncode != 0:
        raise SystemExit(f"step {step} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=",".join(DEFAULT), help="warm-up steps, comma-separated")
    parser.add_argument("--rules", default="yahtzee")
    opts = parser.parse_args()
    result = {
        "benchmark": "compile_split",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "numba_opt": os.environ.get("NUMBA_OPT", "3"),
        "steps": {},
    }
    from yahtzee_sim.analysis.warmup import STEPS

    steps = opts.steps.split(",")
    unknown = sorted(set(steps) - set(STEPS))
    if unknown:
        parser.error(f"unknown step {unknown[0]!r}; choose from {', '.join(STEPS)}")
    steps.sort(key=lambda step: step != "solver")  # the solver's step writes the table
    with tempfile.TemporaryDirectory() as tables:
        env = {**os.environ, "YAHTZEE_SIM_CACHE": tables}
        if "solver" not in steps and any("solver" in STEPS[s].after for s in steps):
            run_step("solver", opts.rules, env)  # the table the steps reuse
        for step in steps:
            result["steps"][step] = run_step(step, opts.rules, env)
            print(f"{step}: {json.dumps(result['steps'][step])}", file=sys.stderr, flush=True)
    print(json.dumps(result, indent=2))
    return 0


def rows(r: dict) -> list[Row]:
    """The page's rows: each kernel's compile CPU seconds, LLVM's part in it."""
    out: list[Row] = []
    for step in r.get("steps", {}).values():
        for kernel, k in step["kernels"].items():
            if k["cpu"] >= 1.0:
                share = k["llvm"] / k["cpu"]
                out.append((
                    f"compiling `{kernel}` from an empty cache (CPU)",
                    f"{k['cpu']:.1f} s, {share:.0%} of it in LLVM",
                ))  # fmt: skip
    return out


if __name__ == "__main__":
    sys.exit(main())
