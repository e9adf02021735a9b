"""The README's table of every built-in strategy against its source's figure.

Usage: ``python tools/published_figures_table.py [--games 100000] [--json]`` prints a Markdown
table (or JSON). It is a digest of ``yahtzee-sim reproduce`` (sections ``glenn-2006``,
``simulating-yahtzee``, ``defensive``): the mean ± SD rows, each strategy on the rules its
source used, exact for deterministic strategies, simulated (``--games`` games, seed 2026)
for random ones.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from yahtzee_sim.analysis.report.reproduction.build import reproduce
    from yahtzee_sim.strategies import strategy_class

    rep = reproduce(("glenn-2006", "simulating-yahtzee", "defensive"), n_games=args.games)
    rows: dict[str, dict] = {}
    for r in rep.rows:
        sid, _, what = r.item.partition(": ")
        if what not in ("mean", "SD") or sid.startswith("optimal ("):
            continue
        row = rows.setdefault(
            sid, {"strategy": sid, "source": r.table, "method": r.method, "games": r.games}
        )
        key = "mean" if what == "mean" else "sd"
        row[key], row[f"paper_{key}"] = r.ours, r.paper
        if what == "mean":
            row["ci95"] = None if r.ci_low is None else (r.ci_low, r.ci_high)
    for sid, row in rows.items():
        src = row["source"]
        ref = next(
            x
            for x in strategy_class(sid).references
            if src.startswith(x.source) or x.source.startswith(src)
        )
        row["rules"] = ref.rules
        row["difference"] = row["mean"] - row["paper_mean"]
    rows = dict(sorted(rows.items()))
    if args.json:
        print(json.dumps(list(rows.values()), indent=2))
        return 0
    print("| strategy | rules | ours: mean ± SD | how | paper | difference |")
    print("|---|---|---|---|---|---|")
    for r in rows.values():
        sd = "" if r.get("sd") is None else f" ± {r['sd']:.2f}"
        psd = "" if r.get("paper_sd") is None else f" ± {r['paper_sd']:.2f}"
        how = "exact"
        if r["method"] != "exact":
            how = f"{r['games']:,} games, 95% CI ±{(r['ci95'][1] - r['ci95'][0]) / 2:.2f}"
        print(
            f"| `{r['strategy']}` | {r['rules']} | {r['mean']:.2f}{sd} | {how} "
            f"| {r['paper_mean']:.2f}{psd} ({r['source']}) | {r['difference']:+.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
