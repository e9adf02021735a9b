"""Target-score solver benchmark and literature check. Prints one JSON object.

Usage::

    python benchmarks/bench_target.py [--rules yahtzee yatzy]

Each rule set is solved in a fresh process (no table cache; kernels compiled by a
warm-up on 2-Yatzy): wall seconds of the full curve (every β up to the largest
score; target <= 600 s for ``yahtzee``), peak RSS (target <= 8 GB), table size, and
the checks:

* ``yatzy``: Tillius (2026) Table 13 — P*(final >= β) at β = 200, 249, 287, 289, 300,
  330, 374 — to 4 decimals (374: relative 1e-3);
* every rule set: P*(final >= β) >= P(final >= β) of max-EV play for every β;
* ``yatzy``: Tillius §4.4 — ``target:289`` against four max-EV players (100,000 blind
  five-player games) wins more than 1/5 of the games.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from page_format import Row, num, prob, yes_no

CASE = r"""
import json, resource, sys, time
import numpy as np
import yahtzee_sim.solving.target as target
from yahtzee_sim.analysis import tournament
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.target import solve_target
rules = sys.argv[1]
solve_target("2-yatzy")  # compile
t0 = time.perf_counter()
table = solve_target(rules)
seconds = time.perf_counter() - t0
curve = table.curve()
opt = evaluate("optimal", rules).survival()
n = min(len(curve), len(opt))
extra = {}
if rules == "yatzy":  # Tillius §4.4: target:289 against four max-EV players
    target.TABLES.put(target.TABLES.key(get_rules(rules), "all"), table)
    t1 = time.perf_counter()
    res = tournament(["target:289", "optimal"], players=5, n_games=100_000, seed=0, rules=rules)
    r = res.win_rates()
    extra["five_player_target_289"] = {
        "win_rate": float(r["win_rate"].iloc[0]), "ci95": [float(r["win_lo"].iloc[0]),
        float(r["win_hi"].iloc[0])], "p_reach_289": float((res.scores[:, 0] >= 289).mean()),
        "seconds": round(time.perf_counter() - t1, 1)}
print(json.dumps({**extra,
    "seconds": round(seconds, 1),
    "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    "table_gb": round(table.nbytes / 2**30, 2),
    "entries": int(table.probs.size),
    "max_beta": table.max_beta,
    "dominates_max_ev": bool(np.all(curve[:n] >= opt[:n] - 1e-12)),
    "curve": {b: float(curve[b]) for b in (100, 150, 200, 249, 250, 287, 289, 300, 330, 374, 400,
                                           500) if b < len(curve)},
}))
"""

TARGET_SECONDS = {"yahtzee": 600.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=["yahtzee", "yatzy"])
    args = ap.parse_args()
    from yahtzee_sim.analysis.report.reproduction.papers import TILLIUS_TABLE_13

    out = {}
    for rules in args.rules:
        proc = subprocess.run(
            [sys.executable, "-c", CASE, rules], check=True, capture_output=True, text=True
        )
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["curve"] = {int(k): v for k, v in res["curve"].items()}
        if rules in TARGET_SECONDS:
            res["meets_time_target"] = res["seconds"] <= TARGET_SECONDS[rules]
        res["meets_memory_target"] = res["peak_rss_gb"] <= 8.0
        if rules == "yatzy":
            res["tillius_table_13"] = {
                b: {
                    "ours": res["curve"][b],
                    "paper": p,
                    "match": abs(res["curve"][b] - p) <= (5e-5 if p > 1e-6 else p * 1e-3),
                }
                for b, p in TILLIUS_TABLE_13.items()
            }
        out[rules] = res
    print(json.dumps(out, indent=2))


def rows(r: dict) -> list[Row]:
    rows: list[Row] = []
    for rules, x in r.items():
        rows.append(
            (
                f"solve the target-score table of `{rules}`: every target up to "
                f"{num(x['max_beta'])} points, {num(x['entries'])} entries, in a fresh process",
                f"{x['seconds']:.0f} s; peak memory {x['peak_rss_gb']:.2f} GB; the table "
                f"{x['table_gb']:.2f} GB",
            )
        )
        rows.append(
            (
                f"`{rules}`: the highest probability of scoring at least β points, playing for "
                "β (β: probability)",
                "; ".join(f"{b}: {prob(p)}" for b, p in x["curve"].items()),
            )
        )
        rows.append(
            (
                f"`{rules}`: at every β at least the probability of max-EV play",
                yes_no(x["dominates_max_ev"]),
            )
        )
        for b, t in x.get("tillius_table_13", {}).items():
            rows.append(
                (
                    f"`{rules}`: the probability of scoring at least {b} points, ours / "
                    "Tillius (2026), Table 13",
                    f"{prob(t['ours'])} / {prob(t['paper'])} ("
                    + ("agree" if t["match"] else "**differ**")
                    + ")",
                )
            )
        if "five_player_target_289" in x:
            f = x["five_player_target_289"]
            lo, hi = f["ci95"]
            rows.append(
                (
                    f"`{rules}`: `target:289` against four `optimal` players, five-player "
                    "games (Tillius §4.4)",
                    f"wins {f['win_rate']:.2%} of the games (95% interval {lo:.2%} to "
                    f"{hi:.2%}), reaches 289 points in {f['p_reach_289']:.2%}; "
                    f"{f['seconds']:.0f} s",
                )
            )
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "Target, utility and risk"
TITLE = "Playing for a target score"
COMMAND = "python benchmarks/bench_target.py"
SMOKE = "--rules yahtzee"


if __name__ == "__main__":
    sys.exit(main())
