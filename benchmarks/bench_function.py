"""Plain-Python strategy benchmark: games per second of the README's FunctionStrategy
example. Prints JSON.

Usage::

    python benchmarks/bench_function.py [--games 100000] [--jobs 1 2]

For each number of jobs, with and without ``memoize=True``: two runs in one process, of
other games (seeds 1 and 2): the first starts the worker processes, the second reuses
them (and, with one job, the positions memoized in the first). Target: >= 20,000
games/s with 2 jobs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from page_format import Row, jobs_text, num


def keep(pos):  # the README example
    best = max(set(pos.dice), key=pos.dice.count)
    return [d for d in pos.dice if d == best]


def box(pos):
    return max(pos.points, key=pos.points.get)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()

    from yahtzee_sim import simulate
    from yahtzee_sim.strategies import FunctionStrategy

    simulate(FunctionStrategy(keep, box), 100)  # compile the engine
    rows = []
    for jobs in args.jobs:
        for memoize in (False, True):
            runs = []
            for seed in (1, 2):
                strategy = FunctionStrategy(keep, box, memoize=memoize)
                t0 = time.perf_counter()
                res = simulate(strategy, args.games, seed=seed, n_jobs=jobs)
                runs.append(time.perf_counter() - t0)
            rows.append(
                {
                    "n_jobs": jobs,
                    "memoize": memoize,
                    "games": args.games,
                    "seconds": [round(s, 2) for s in runs],
                    "games_per_second_first": round(args.games / runs[0]),
                    "games_per_second_warm": round(args.games / runs[1]),
                    "mean_score": round(float(res.total.mean()), 3),
                }
            )
    print(json.dumps({"target_games_per_second_2_jobs": 20_000, "runs": rows}, indent=2))


def rows(r: dict) -> list[Row]:
    rows = []
    for x in r["runs"]:
        memo = ", `memoize=True`" if x["memoize"] else ""
        rows.append(
            (
                f"play {num(x['games'])} games of a `FunctionStrategy` (plain Python), "
                f"{jobs_text(x['n_jobs'])}{memo}",
                f"{num(x['games_per_second_first'])} games/s in the first run, "
                f"{num(x['games_per_second_warm'])} games/s in the second",
            )
        )
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "Machine learning"
TITLE = "Strategies written in plain Python"
COMMAND = "python benchmarks/bench_function.py"
SMOKE = "--games 2000"


if __name__ == "__main__":
    sys.exit(main())
