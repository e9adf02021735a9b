"""Solver, optimal-strategy and advisor benchmark. Prints one JSON object.

Usage::

    python benchmarks/bench_solver.py [--repeat 3] [--games 1000000] [--skip-cold]

* ``cold_first_run_seconds``: a fresh process with an empty table cache (a temporary
  ``YAHTZEE_SIM_CACHE``) solving ``yahtzee``, imports included — target <= 30 s;
* ``solve_seconds``: median in-process solve time after a first solve — targets
  ``yahtzee`` <= 1.5 s, ``yatzy`` <= 3 s;
* ``optimal_games``: 1,000,000 games of ``optimal`` with 2 jobs after the table is
  cached, first run in a fresh worker pool and a repeat — target <= 5 s;
* ``advise_ms``: median time of one advisor answer, table in memory, and
  ``advise_with_table_load_ms``: the same including loading the table from the disk
  cache (what one CLI call pays after process start) — target <= 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from page_format import Row, jobs_text, num


def cold_run() -> float:
    """Seconds of a fresh process solving ``yahtzee`` with an empty table cache."""
    with tempfile.TemporaryDirectory() as tables:
        env = dict(os.environ, YAHTZEE_SIM_CACHE=tables)
        code = "from yahtzee_sim.solving.solver import value_table; value_table('yahtzee')"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        return time.perf_counter() - t0


def median_time(fn, repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), [round(t, 3) for t in times]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--skip-cold", action="store_true")
    args = parser.parse_args()

    out: dict = {"benchmark": "solver"}
    if not args.skip_cold:
        out["cold_first_run_seconds"] = round(cold_run(), 2)

    from yahtzee_sim import simulate
    from yahtzee_sim.solving.solver import solve, value_table

    solve("2-yatzy")  # load the compiled kernels
    out["solve_seconds"] = {}
    for rules in ("yahtzee", "yatzy", "yahtzee-free-joker"):
        med, all_ = median_time(lambda r=rules: solve(r), args.repeat)
        out["solve_seconds"][rules] = {"median": round(med, 3), "all": all_}
        print(f"solve {rules}: {med:.2f} s", file=sys.stderr)

    value_table("yahtzee")  # cached on disk and in memory from here on
    t0 = time.perf_counter()
    first = simulate("optimal", args.games, seed=1, n_jobs=2)
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    simulate("optimal", args.games, seed=2, n_jobs=2)
    t_repeat = time.perf_counter() - t0
    out["optimal_games"] = {
        "games": args.games,
        "n_jobs": 2,
        "seconds_first": round(t_first, 3),
        "seconds_repeat": round(t_repeat, 3),
        "mean": round(float(first.total.mean()), 3),
        "expected_value": round(value_table("yahtzee").expected_value(), 7),
    }
    print(f"optimal {args.games} games: {t_first:.2f} s, again {t_repeat:.2f} s", file=sys.stderr)

    out.update(_advisor_times())
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(out, indent=2))
    return 0


def _advisor_times() -> dict:
    """Milliseconds of one advisor answer: the value table in memory (200 random
    positions), and read from the disk cache first (five times)."""
    from yahtzee_sim import get_rules
    from yahtzee_sim.solving.advisor import advise

    rng = np.random.default_rng(0)
    rules = get_rules("yahtzee")
    times = []
    for _ in range(200):
        dice = rng.integers(1, 7, 5).tolist()
        t0 = time.perf_counter()
        advise(dice, int(rng.integers(0, 3)), rules=rules)
        times.append(time.perf_counter() - t0)
    out: dict = {}
    out["advise_ms"] = {
        "median": round(1e3 * float(np.median(times)), 3),
        "max": round(1e3 * max(times), 3),
    }
    # as a fresh CLI call sees it: the table loaded from the disk cache, then one answer
    from yahtzee_sim.solving.solver import _MEMORY

    cold = []
    for _ in range(5):
        _MEMORY.clear()
        t0 = time.perf_counter()
        advise([1, 3, 5, 5, 6], 2, used=["ones", "fours", "chance"], upper=12, rules=rules)
        cold.append(time.perf_counter() - t0)
    out["advise_with_table_load_ms"] = round(1e3 * float(np.median(cold)), 3)
    return out


def rows(r: dict) -> list[Row]:
    rows = [
        (
            f"solve `{k}` for optimal play, every state (after a first solve; median)",
            f"{v['median']:.2f} s",
        )
        for k, v in r["solve_seconds"].items()
    ]
    if "optimal_games" in r:
        g = r["optimal_games"]
        rows.append(
            (
                f"play {num(g['games'])} games of `optimal`, {jobs_text(g['n_jobs'])}: with its "
                "decision cache empty / again, the cache filled by that run",
                f"{g['seconds_first']:.2f} s / {g['seconds_repeat']:.2f} s",
            )
        )
    rows.append(
        ("one advisor answer, the value table in memory (median)", f"{r['advise_ms']['median']} ms")
    )
    rows.append(
        (
            "one advisor answer, reading the value table from disk first",
            f"{r['advise_with_table_load_ms']} ms",
        )
    )
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "Optimal play"
TITLE = "Solving for optimal play and asking the advisor"
COMMAND = "python benchmarks/bench_solver.py --skip-cold"
SMOKE = "--repeat 1 --games 2000"


if __name__ == "__main__":
    sys.exit(main())
