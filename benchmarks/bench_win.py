"""Play-to-win benchmark and results. Prints one JSON object.

Usage::

    python benchmarks/bench_win.py [--rules yatzy] [--players 5] [--games 200000]
                                   [--iterate 0] [--risk 0.02]

For each case (fresh process, no table cache): the utility solve of ``win:N``
against ``N - 1`` max-EV players (seconds, peak RSS, table size; targets: Yatzy
<= 120 s, Yahtzee <= 180 s, <= 6 GB), the exact P(win) (the table's value at the
start) against the baseline 1/N, the exact law of ``win:N`` (mean and SD given up
against ``optimal``), a ``tournament`` of ``--games`` blind games with a 95% CI, and
``--iterate`` rounds of best responses (two players: the best response to the last
best response). ``--risk θ``: the risk-sensitive solve time (target <= 2 s).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from page_format import Row, num, timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yatzy")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--iterate", type=int, default=0)
    ap.add_argument("--risk", type=float, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    from yahtzee_sim.exact.laws import evaluate
    from yahtzee_sim.solving.risk import solve_risk
    from yahtzee_sim.solving.utility import solve_utility
    from yahtzee_sim.strategies.win_seeking_blind import BlindWinSeeking, win_table

    solve_utility("2-yatzy", [0.0, 0.5, 1.0])  # compile
    out: dict = {"rules": args.rules, "players": args.players}
    if args.risk is not None:
        solve_risk(args.rules, args.risk)  # compile
        t0 = time.perf_counter()
        solve_risk(args.rules, args.risk)
        out["risk_solve_seconds"] = round(time.perf_counter() - t0, 3)
    print(f"[{time.strftime('%H:%M:%S')}] solve", file=sys.stderr, flush=True)
    opt = evaluate("optimal", args.rules)
    t0 = time.perf_counter()
    table = win_table(args.rules, args.players)
    out["solve_seconds"] = round(time.perf_counter() - t0, 1)
    out["peak_rss_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    out["table_gb"] = round(table.nbytes / 2**30, 2)
    out["top_score"] = table.top_score
    out["win_probability"] = table.expected_utility()
    out["baseline"] = 1 / args.players
    strat = BlindWinSeeking(args.players)
    print(f"[{time.strftime('%H:%M:%S')}] exact law", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    law = evaluate(strat, args.rules)
    out["exact_law"] = {
        "mean": law.mean,
        "sd": law.sd,
        "optimal_mean": opt.mean,
        "optimal_sd": opt.sd,
        "mean_given_up": opt.mean - law.mean,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if args.games:
        out["tournament"] = _tournament(strat, args)
    chain = _best_responses(strat, args.rules, args.iterate)
    if chain:
        out["best_response_iteration"] = chain
    out["peak_rss_gb_total"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    print(json.dumps(out, indent=2))


def _tournament(strat, args) -> dict:
    """``strat`` against max-EV players in a blind tournament: its win rate and speed."""
    from yahtzee_sim.analysis import tournament

    t0 = time.perf_counter()
    res = tournament(
        [strat, "optimal"],
        players=args.players,
        n_games=args.games,
        seed=0,
        rules=args.rules,
        n_jobs=args.jobs,
    )
    secs = time.perf_counter() - t0
    r = res.win_rates()
    return {
        "games": args.games,
        "win_rate": float(r["win_rate"].iloc[0]),
        "ci95": [float(r["win_lo"].iloc[0]), float(r["win_hi"].iloc[0])],
        "seconds": round(secs, 1),
        "games_per_second": round(args.games / secs),
    }


def _best_responses(strat, rules: str, steps: int) -> list[dict]:
    """``steps`` rounds of two-player best response from ``strat``, each step's
    win probability against the previous one and its exact mean and SD."""
    from yahtzee_sim.exact.laws import evaluate
    from yahtzee_sim.strategies.win_seeking_blind import BlindWinSeeking

    chain = []
    prev = strat
    for _ in range(steps):
        print(f"[{time.strftime('%H:%M:%S')}] best response", file=sys.stderr, flush=True)
        nxt = BlindWinSeeking(2, vs=prev)
        p = nxt.win_probability(rules)
        law = evaluate(nxt, rules)
        # P(the previous strategy beats optimal) stays known: the chain's first step
        chain.append({"win_probability_vs_previous": p, "mean": law.mean, "sd": law.sd})
        print(json.dumps(chain[-1]), file=sys.stderr, flush=True)
        prev = nxt
    return chain


def rows(r: dict) -> list[Row]:
    k, rules = r["players"], r["rules"]
    law, t = r["exact_law"], r.get("tournament")
    rows: list[Row] = [
        (
            f"solve `win:{k}` on `{rules}` (playing to win against {k - 1} max-EV players), "
            "in a fresh process",
            f"{r['solve_seconds']:.0f} s; peak memory {r['peak_rss_gb']:.2f} GB; the table "
            f"{r['table_gb']:.2f} GB (scores up to {r['top_score']})",
        ),
        (
            f"the exact probability that `win:{k}` wins, against {r['baseline']:.0%} for "
            "every player alike",
            f"{r['win_probability']:.2%}",
        ),
        (
            f"the exact mean and standard deviation of `win:{k}`'s score, against `optimal`'s",
            f"{law['mean']:.2f} and {law['sd']:.2f} points, against {law['optimal_mean']:.2f} "
            f"and {law['optimal_sd']:.2f} ({law['mean_given_up']:.2f} points of mean given "
            f"up); {law['seconds']:.0f} s",
        ),
    ]
    if t:
        lo, hi = t["ci95"]
        rows.append(
            (
                f"play {num(t['games'])} {k}-player games, `win:{k}` against {k - 1} `optimal` "
                "players",
                f"wins {t['win_rate']:.2%} (95% interval {lo:.2%} to {hi:.2%}); "
                + timed(t["seconds"], t["games_per_second"], "games"),
            )
        )
    peak = ("peak memory of the whole benchmark", f"{r['peak_rss_gb_total']:.2f} GB")
    return [*rows, peak]


# its entry on the Performance page (perf_page.py)
AREA = "Target, utility and risk"
TITLE = "Playing to win"
COMMAND = "python benchmarks/bench_win.py"
SMOKE = "--rules yahtzee --players 2 --games 2000"


if __name__ == "__main__":
    sys.exit(main())
