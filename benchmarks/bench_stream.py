"""Long streaming run: N greedy games (default 10^8) with 2 jobs, summary only. Prints JSON.

Usage: ``python benchmarks/bench_stream.py [--games 100000000] [--jobs 2] [--strategy greedy]``.
Target (issue 9): 10^8 greedy games with 2 jobs in bounded memory (peak RSS <= 1 GB).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from page_format import Row, jobs_text, num, timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--checkpoint", default=None)
    args = parser.parse_args()

    from yahtzee_sim import simulate_aggregate

    t0 = time.perf_counter()
    agg = simulate_aggregate(
        args.strategy,
        args.games,
        seed=1,
        n_jobs=args.jobs,
        checkpoint=args.checkpoint,
        progress=False,
    )
    seconds = time.perf_counter() - t0
    s = agg.summary(args.strategy, 1)
    out = {
        "benchmark": "stream",
        "strategy": args.strategy,
        "games": args.games,
        "n_jobs": args.jobs,
        "seconds": round(seconds, 2),
        "games_per_second": round(args.games / seconds),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "mean": s["mean"],
        "sd": s["sd"],
        "ci95": s["ci95"],
    }
    print(json.dumps(out, indent=2))
    return 0


def rows(r: dict) -> list[Row]:
    what = f"stream {num(r['games'])} games of `{r['strategy']}`, {jobs_text(r['n_jobs'])}"
    rate = timed(r["seconds"], r["games_per_second"], "games")
    return [(what, f"{rate}; peak memory {r['peak_rss_mb']:.0f} MB")]


# its entry on the Performance page (perf_page.py)
AREA = "Long runs"
TITLE = "Streaming millions of games"
COMMAND = "python benchmarks/bench_stream.py --games 5000000"
SMOKE = "--games 20000"


if __name__ == "__main__":
    sys.exit(main())
