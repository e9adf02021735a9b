"""Tournament-size sweep (Perkins): the best response against N - 1 max-EV players.

Usage::

    python benchmarks/win_sweep.py [--rules yatzy] [--players 2 3 5 10 100 1000]
                                   [--plot reports/win_sweep.png]

Prints one JSON object: per N the exact P(win) of ``win:N`` against 1/N, the mean and
SD of its score against max-EV play's (``--games`` simulated games, 95% CI; with
``--exact-law`` the exact score-augmented law instead, minutes per N), and the solve
seconds; ``--plot`` draws P(win) and the mean given up against N.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yatzy")
    ap.add_argument(
        "--players", type=int, nargs="+", default=[2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 1000]
    )
    ap.add_argument("--plot", type=Path, default=None)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--exact-law", action="store_true")
    args = ap.parse_args()

    import numpy as np

    from yahtzee_sim import simulate
    from yahtzee_sim.exact.laws import evaluate
    from yahtzee_sim.strategies.win_seeking_blind import BlindWinSeeking

    opt = evaluate("optimal", args.rules)
    rows = []
    for n in args.players:
        t0 = time.perf_counter()
        s = BlindWinSeeking(n)
        p = s.win_probability(args.rules)
        solve = time.perf_counter() - t0
        if args.exact_law:
            law = evaluate(s, args.rules)
            mean, sd, half = law.mean, law.sd, 0.0
        else:
            x = simulate(s, args.games, seed=0, rules=args.rules, n_jobs=2).total
            mean, sd = float(x.mean()), float(x.std(ddof=1))
            half = 1.96 * sd / np.sqrt(len(x))
        rows.append(
            {
                "players": n,
                "win_probability": p,
                "baseline": 1 / n,
                "ratio": p * n,
                "mean": mean,
                "mean_ci95_half_width": half,
                "sd": sd,
                "mean_given_up": opt.mean - mean,
                "solve_seconds": round(solve, 1),
                "law_seconds": round(time.perf_counter() - t0 - solve, 1),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    rows.sort(key=lambda r: r["players"])
    if args.plot is not None:
        plot(rows, args.rules, args.plot)
    print(json.dumps({"rules": args.rules, "optimal_mean": opt.mean, "rows": rows}))


def plot(rows: list[dict], rules: str, path: Path) -> None:
    """P(win) against 1/N and the mean given up against N, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from yahtzee_sim.analysis import plot_win_sweep

    rows = sorted(rows, key=lambda r: r["players"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    plot_win_sweep(rows, ax=axes[0], title=f"Best response on {rules}")
    axes[1].semilogx([r["players"] for r in rows], [r["mean_given_up"] for r in rows], marker="o")
    axes[1].set_xlabel("players N")
    axes[1].set_ylabel("mean score given up vs max-EV")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
