"""The README's table of every built-in strategy against its source's figure.

Usage: ``python benchmarks/strategy_table.py [--games 200000] [--json]`` prints a Markdown
table (or JSON). The published figures come from each strategy's ``references`` (declared
in its module; ``tests/test_literature.py`` checks them all). Each strategy is played on
the rules its source used: deterministic
strategies are evaluated exactly (:func:`yahtzee_sim.exact.evaluate`, moments only),
random ones simulated (``--games`` games, seed 1).
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from yahtzee_sim import simulate
    from yahtzee_sim.exact import evaluate
    from yahtzee_sim.strategies import default_strategy_ids, strategy_class

    rows = []
    for sid in default_strategy_ids():  # "all": not target play (minutes per table)
        refs = strategy_class(sid).references  # each strategy's module declares them
        if refs:  # the first reference: the figure the strategy's source is known for
            rules, source, mean, sd = refs[0].rules, refs[0].source, refs[0].mean, refs[0].sd
        else:
            rules, source, mean, sd = "yahtzee", "", None, None
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
