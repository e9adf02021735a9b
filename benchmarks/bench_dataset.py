"""Decision-dataset benchmark: decisions graded per second. Prints JSON.

Usage::

    python benchmarks/bench_dataset.py [--strategy greedy] [--games 50000] [--out FILE]

Times ``decision_dataset`` (play, record, value every option of every decision against
the optimal table) after a warm-up that compiles the kernels and solves the table, and,
with ``--out``, writing the file. Target: >= 50,000 decisions/s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from page_format import Row, num, timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="greedy")
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    from yahtzee_sim.analysis.decisions.dataset import decision_dataset

    decision_dataset(args.strategy, 200, rules=args.rules, progress=False)  # warm-up
    t0 = time.perf_counter()
    ds = decision_dataset(args.strategy, args.games, rules=args.rules, progress=False)
    seconds = time.perf_counter() - t0
    out = {
        "strategy": args.strategy,
        "rules": args.rules,
        "games": args.games,
        "decisions": len(ds),
        "seconds": round(seconds, 2),
        "decisions_per_second": round(len(ds) / seconds),
        "regret_per_game": round(ds.summary()["regret_per_game"], 3),
        "target_decisions_per_second": 50_000,
    }
    if args.out is not None:
        t1 = time.perf_counter()
        ds.write(args.out)
        out["write_seconds"] = round(time.perf_counter() - t1, 2)
        out["file_mb"] = round(args.out.stat().st_size / 2**20, 1)
        out["decisions_per_second_with_write"] = round(len(ds) / (seconds + out["write_seconds"]))
    print(json.dumps(out, indent=2))


def rows(r: dict) -> list[Row]:
    what = (
        f"build the decision dataset of {num(r['games'])} games of `{r['strategy']}` "
        f"({num(r['decisions'])} decisions, every option valued)"
    )
    return [(what, timed(r["seconds"], r["decisions_per_second"], "decisions"))]


# its entry on the Performance page (perf_page.py)
AREA = "Machine learning"
TITLE = "Decision datasets"
COMMAND = "python benchmarks/bench_dataset.py"
SMOKE = "--games 500"


if __name__ == "__main__":
    sys.exit(main())
