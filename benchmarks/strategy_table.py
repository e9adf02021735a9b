"""The README's table of every built-in strategy against its source's figure.

Usage: ``python benchmarks/strategy_table.py [--games 200000] [--json]`` prints a Markdown
table (or JSON). Each strategy is played on the rules its source used: deterministic
strategies are evaluated exactly (:func:`yahtzee_sim.exact.evaluate`, moments only),
random ones simulated (``--games`` games, seed 1).
"""

from __future__ import annotations

import argparse
import json
import sys

#: id -> (rules, source, published mean, published SD or None)
PAPER = {
    "random": ("yahtzee", '"Simulating Yahtzee" Table 2', 87.23, 25.27),
    "tiered-random": ("yahtzee", '"Simulating Yahtzee" Table 2', 87.27, 25.35),
    "greedy": ("yahtzee", '"Simulating Yahtzee" Table 2', 214.37, 39.64),
    "glenn-2007-rules": ("yahtzee", '"Simulating Yahtzee" Table 2', 212.18, 59.38),
    "prioritize-upper": ("yahtzee", '"Simulating Yahtzee" Table 2', 192.92, 53.82),
    "prioritize-yahtzee": ("yahtzee", '"Simulating Yahtzee" Table 2', 163.26, 64.47),
    "defensive": ("yahtzee-no-bonus", "Hellström & Jaccopucci 2015 §4.2", 201.468, None),
    "glenn-yahtzees-only": ("yahtzee-free-joker", "Glenn 2006, Table 3", 171.52, 68.17),
    "glenn-yahtzees-and-straights": ("yahtzee-free-joker", "Glenn 2006, Table 3", 202.51, 65.90),
    "glenn-rational-yahtzees": ("yahtzee-free-joker", "Glenn 2006, Table 3", 219.86, 65.99),
    "glenn-greedy": ("yahtzee-free-joker", "Glenn 2006, Table 3", 218.05, 46.87),
    "glenn-heuristic": ("yahtzee-free-joker", "Glenn 2006, Table 3", 240.67, 60.90),
    "glenn-better-heuristic": ("yahtzee-free-joker", "Glenn 2006, Table 3", 244.87, 57.39),
    "optimal": ("yahtzee-free-joker", "Glenn 2006, Table 3", 254.59, 59.61),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from yahtzee_sim import simulate
    from yahtzee_sim.exact import evaluate
    from yahtzee_sim.strategies import strategy_class, strategy_ids

    rows = []
    for sid in strategy_ids():
        rules, source, mean, sd = PAPER.get(sid, ("yahtzee", "", None, None))
        row = {
            "strategy": sid,
            "rules": rules,
            "paper_mean": mean,
            "paper_sd": sd,
            "source": source,
        }
        if strategy_class(sid).deterministic:
            r = evaluate(sid, rules, distribution=False)
            row.update(method="exact", games=None, mean=r.mean, sd=r.sd, half_ci95=None)
        else:
            s = simulate(sid, args.games, seed=1, rules=rules, n_jobs=2, keep_games=False)
            s = s.summary()
            row.update(
                method="simulated",
                games=args.games,
                mean=s["mean"],
                sd=s["sd"],
                half_ci95=s["ci95"][1] - s["mean"],
            )
        row["difference"] = None if mean is None else row["mean"] - mean
        rows.append(row)
        print(f"{sid}: {row['mean']:.2f} ({row['method']})", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("| strategy | rules | ours: mean ± SD | how | paper | difference |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        paper = (
            ""
            if r["paper_mean"] is None
            else (
                f"{r['paper_mean']:.2f}"
                + ("" if r["paper_sd"] is None else f" ± {r['paper_sd']:.2f}")
                + f" ({r['source']})"
            )
        )
        diff = "" if r["difference"] is None else f"{r['difference']:+.2f}"
        how = (
            "exact"
            if r["method"] == "exact"
            else (f"{r['games']:,} games, 95% CI ±{r['half_ci95']:.2f}")
        )
        print(
            f"| `{r['strategy']}` | {r['rules']} | {r['mean']:.2f} ± {r['sd']:.2f} | {how} "
            f"| {paper} | {diff} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
