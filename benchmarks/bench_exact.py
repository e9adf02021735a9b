"""Exact-evaluator benchmark. Prints one JSON object.

Usage::

    python benchmarks/bench_exact.py [--repeat 3]

Each case runs in a fresh process (so its peak RSS is its own), after one warm-up
process has solved the tables into the disk cache:

* ``optimal_moments``: ``evaluate("optimal", "yahtzee", distribution=False)`` —
  target <= 3 s;
* ``optimal_pmf``: the full pmf of optimal play — target <= 15 s;
* ``greedy_pmf``: the full pmf of greedy, from its decision tables — target <= 60 s;
* ``heuristic_pmf``: the full pmf of ``prioritize-upper``, from its compiled decision
  tables — target <= 30 s;
* ``batched_pmf``: the same, queried through its batched ``keep``/``box`` only (as a
  strategy without decision tables, such as a user's own class, is) — target <= 30 s;
* ``card_pmf``: the full pmf of the shipped 10-rule card ``card-10`` — target <= 30 s;
* ``peak_rss_gb`` of each case — target <= 6 GB.

Times are the median of ``--repeat`` in-process evaluations (after a first one, table
loaded); ``first_call_seconds`` includes loading the solved table from disk.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from page_format import Row, num

CASE = r"""
import json, resource, sys, time
import numpy as np
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.strategies import get_strategy
strategy, rules, dist, repeat = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])


class Batched:  # asked through keep/box only: a strategy without decision tables
    def __init__(self, inner):
        self.inner = inner

    def prepare(self, rules):
        self.inner.prepare(rules)

    def keep(self, view):
        return self.inner.keep(view)

    def box(self, view):
        return self.inner.box(view)


if strategy.startswith("batched:"):
    strategy = Batched(get_strategy(strategy.removeprefix("batched:")))
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    r = evaluate(strategy, rules, distribution=dist)
    times.append(time.perf_counter() - t0)
print(json.dumps({
    "seconds": round(float(np.median(times[1:] if repeat > 1 else times)), 3),
    "first_call_seconds": round(times[0], 3),
    "all_seconds": [round(t, 3) for t in times],
    "mean": r.mean, "sd": r.sd, "states": r.n_states,
    "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3),
}))
"""

CASES = {
    "optimal_moments": ("optimal", "yahtzee", False, 3.0),
    "optimal_pmf": ("optimal", "yahtzee", True, 15.0),
    "greedy_pmf": ("greedy", "yahtzee", True, 60.0),
    "heuristic_pmf": ("prioritize-upper", "yahtzee", True, 30.0),
    "batched_pmf": ("batched:prioritize-upper", "yahtzee", True, 30.0),
    "card_pmf": ("card-10", "yahtzee", True, 30.0),
}


def run_case(strategy: str, rules: str, dist: bool, repeat: int) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CASE, strategy, rules, "1" if dist else "0", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed evaluations per case")
    args = parser.parse_args()
    run_case("optimal", "2-yatzy", True, 1)  # warm-up: solve the table
    run_case("optimal", "yahtzee", False, 1)
    out: dict = {"benchmark": "exact", "repeat": args.repeat}
    ok = True
    for name, (strategy, rules, dist, target) in CASES.items():
        res = run_case(strategy, rules, dist, args.repeat + 1)
        res["target_seconds"] = target
        res["meets_target"] = res["seconds"] <= target and res["peak_rss_gb"] <= 6.0
        ok &= res["meets_target"]
        out[name] = res
    out["all_targets_met"] = ok
    print(json.dumps(out, indent=2))
    return 0


#: bench_exact.py's cases: what each one computes.
EXACT_CASES = {
    "optimal_moments": "the mean and standard deviation of `optimal`'s score on `yahtzee`",
    "optimal_pmf": "the probability of every score of `optimal` on `yahtzee`",
    "greedy_pmf": "the probability of every score of `greedy` on `yahtzee` (from its "
    "decision tables)",
    "heuristic_pmf": "the probability of every score of `prioritize-upper` on `yahtzee` "
    "(from its compiled decision tables)",
    "batched_pmf": "the same through the strategy's batched keep and box calls only (as a "
    "strategy without decision tables is asked)",
    "card_pmf": "the probability of every score of the rule card `card-10` on `yahtzee`",
}


def rows(r: dict) -> list[Row]:
    return [
        (
            f"compute {what}, exactly: {num(r[case]['states'])} turn-start states (median of "
            f"the {r['repeat']} runs after the first)",
            f"{r[case]['seconds']:.2f} s (the first run, reading the value table from disk: "
            f"{r[case]['first_call_seconds']:.2f} s; target at most "
            f"{r[case]['target_seconds']:g} s); peak memory {r[case]['peak_rss_gb']:.2f} GB; "
            f"mean {r[case]['mean']:.2f}, standard deviation {r[case]['sd']:.2f} points",
        )
        for case, what in EXACT_CASES.items()
    ]


# its entry on the Performance page (perf_page.py)
AREA = "Exact laws"
TITLE = "Exact score distributions"
COMMAND = "python benchmarks/bench_exact.py"
SMOKE = "--repeat 1"


if __name__ == "__main__":
    sys.exit(main())
