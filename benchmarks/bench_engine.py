"""Engine throughput benchmark: games per second of every built-in strategy.

Prints one JSON object. Usage::

    python benchmarks/bench_engine.py [--games 1000000] [--jobs 1 2] [--strategies ...]

Timings are wall-clock after a warm-up run (modules loaded, worker pool
started); ``warmup_seconds`` reports that first run. Targets (issue 2):
1,000,000 greedy games <= 4 s and 1,000,000 random games <= 2 s with 2 jobs;
per-game results of 1,000,000 games <= 200 MB.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time

from page_format import Row, jobs_text, num, timed

import yahtzee_sim
from yahtzee_sim import simulate
from yahtzee_sim.strategies import strategy_class, strategy_ids


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--strategies", nargs="+", default=None)
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the median is kept")
    args = parser.parse_args()
    ids = args.strategies or [
        s for s in strategy_ids() if getattr(strategy_class(s), "benchmark", True)
    ]
    t0 = time.perf_counter()
    for jobs in args.jobs:
        for sid in ids:
            simulate(sid, 20_000, seed=0, rules=args.rules, n_jobs=jobs, chunk_size=5_000)
    warmup = time.perf_counter() - t0
    rows = []
    for sid in ids:
        for jobs in args.jobs:
            times = []
            for rep in range(args.repeat):
                t = time.perf_counter()
                res = simulate(sid, args.games, seed=rep + 1, rules=args.rules, n_jobs=jobs)
                times.append(time.perf_counter() - t)
            times.sort()
            median = times[len(times) // 2]
            rows.append(
                {
                    "strategy": sid,
                    "n_jobs": jobs,
                    "games": args.games,
                    "seconds_median": round(median, 3),
                    "seconds_all": [round(x, 3) for x in times],
                    "games_per_second": round(args.games / median),
                    "mean_score": round(float(res.total.mean()), 3),
                    "results_mb": round(res.nbytes / 1e6, 1),
                }
            )
            print(f"{sid} n_jobs={jobs}: {median:.2f} s", file=sys.stderr)
    out = {
        "benchmark": "engine",
        "version": yahtzee_sim.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "rules": args.rules,
        "warmup_seconds": round(warmup, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "results": rows,
    }
    print(json.dumps(out, indent=2))
    return 0


def rows(r: dict) -> list[Row]:
    rows = [
        (
            f"play {num(x['games'])} games of `{x['strategy']}`, {jobs_text(x['n_jobs'])}",
            timed(x["seconds_median"], x["games_per_second"], "games"),
        )
        for x in r["results"]
    ]
    mb = max(x["results_mb"] for x in r["results"])
    rows.append(
        (f"memory of the per-game results of {num(r['results'][0]['games'])} games", f"{mb} MB")
    )
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "Simulation"
TITLE = "Playing games with the built-in strategies"
COMMAND = (
    "python benchmarks/bench_engine.py --strategies greedy random tiered-random "
    "glenn-2007-rules optimal --games 1000000 --jobs 1 2"
)
SMOKE = "--strategies greedy --games 2000 --jobs 1 --repeat 1"


if __name__ == "__main__":
    sys.exit(main())
