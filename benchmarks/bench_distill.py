"""Distillation benchmark: wall time of a rule-card distill and its exact means. Prints JSON.

Usage::

    python benchmarks/bench_distill.py [--rules yahtzee] [--max-rules 30] [--seed 0]

Times ``distill(rules, max_rules, seed)`` (growth, pruning and the exact curve) after a
warm-up that compiles the kernels and loads the solved table. Target: a 30-rule card on
official Yahtzee in at most 600 s on a 2-core machine. The run is repeated with the same
seed to check that the card is the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from page_format import Row, yes_no


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--max-rules", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-repeat", action="store_true", help="skip the determinism rerun")
    args = ap.parse_args()

    from yahtzee_sim.analysis.decisions.distill import distill

    distill(args.rules, max_rules=1, seed=args.seed, n_games=200, curve_at=[])  # warm-up
    t0 = time.perf_counter()
    res = distill(args.rules, max_rules=args.max_rules, seed=args.seed)
    seconds = time.perf_counter() - t0
    out = {
        "rules": args.rules,
        "max_rules": args.max_rules,
        "seed": args.seed,
        "n_rules": res.card.n_rules,
        "seconds": round(seconds, 1),
        "target_seconds": 600,
        "optimal": round(res.optimal, 4),
        "curve": [
            {"n_rules": p["n_rules"], "mean": round(p["mean"], 4), "sd": round(p["sd"], 3)}
            for p in res.curve
        ],
    }
    if not args.no_repeat:
        again = distill(args.rules, max_rules=args.max_rules, seed=args.seed, curve_at=[])
        out["deterministic"] = again.card == res.card
    print(json.dumps(out, indent=2))


def rows(r: dict) -> list[Row]:
    last = r["curve"][-1]
    return [
        (
            f"`distill` a {r['max_rules']}-rule card on `yahtzee` (learning, pruning and the "
            "exact curve)",
            f"{r['seconds']:.0f} s (target: at most {r['target_seconds']} s)",
        ),
        ("rules left on the card after pruning", f"{r['n_rules']} rules"),
        (f"the exact mean of the card after {last['n_rules']} steps", f"{last['mean']:.2f} points"),
        (
            "the same card from a second run with the same seed",
            yes_no(r["deterministic"]),
        ),
    ]


# its entry on the Performance page (perf_page.py)
AREA = "Rule cards"
TITLE = "Distilling a rule card"
COMMAND = "python benchmarks/bench_distill.py"
SMOKE = "--max-rules 3 --no-repeat"


if __name__ == "__main__":
    sys.exit(main())
