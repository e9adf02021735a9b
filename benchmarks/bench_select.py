"""Kim–Nelson selection benchmark: all built-in strategies, total score. Prints JSON.

Usage: ``python benchmarks/bench_select.py [--delta 1] [--alpha 0.05] [--seeds 0 1 2]``.
Target (issue 6): <= 30 s on 2 cores, winner ``optimal``. Includes solving or loading
the optimal table and building decision caches (a fresh process per call is not used:
the first seed pays them, the others show the steady state).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from page_format import Row, num


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delta", type=float, default=1.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    from yahtzee_sim import get_rules
    from yahtzee_sim.analysis import select_best
    from yahtzee_sim.strategies import strategy_class, strategy_ids

    # every built-in that plays Yahtzee (a 100-rule card exists for Yatzy only)
    ids = [s for s in strategy_ids() if strategy_class(s).supports(get_rules("yahtzee"))]
    runs = []
    for seed in args.seeds:
        t0 = time.perf_counter()
        res = select_best(ids, delta=args.delta, alpha=args.alpha, seed=seed, n_jobs=args.jobs)
        seconds = time.perf_counter() - t0
        runs.append(
            {
                "seed": seed,
                "seconds": round(seconds, 3),
                "winners": res.winners,
                "observations": res.observations,
                "games": res.parameters["games"],
            }
        )
        print(f"seed {seed}: {res.winners} in {seconds:.2f} s", file=sys.stderr)
    out = {
        "benchmark": "select",
        "strategies": ids,
        "delta": args.delta,
        "alpha": args.alpha,
        "runs": runs,
        "max_seconds": max(r["seconds"] for r in runs),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(out, indent=2))
    return 0


def rows(r: dict) -> list[Row]:
    what = (
        f"pick the best of {len(r['strategies'])} built-in strategies by mean score "
        f"(Kim–Nelson, indifference zone {r['delta']:g} point, α = {r['alpha']:g})"
    )
    rows: list[Row] = []
    for i, x in enumerate(r["runs"]):
        when = (
            "the first selection of the process (solving or loading tables, filling decision "
            "caches)"
            if i == 0
            else "again in the same process"
        )
        rows.append(
            (
                f"{what}, seed {x['seed']}, {when}",
                f"{x['seconds']:.1f} s, {num(x['games'])} games; best: "
                + ", ".join(f"`{w}`" for w in x["winners"]),
            )
        )
    rows.append(("peak memory of the process over these selections", f"{num(r['peak_rss_mb'])} MB"))
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "Ranking"
TITLE = "Picking the best strategy"
COMMAND = "python benchmarks/bench_select.py"
SMOKE = "--seeds 0"


if __name__ == "__main__":
    sys.exit(main())
