"""Visible-match speed: two-player matches with optimal seats and with a win-aware or
win-target seat in either seat (2 jobs, warm caches: the best of 3 runs after a
warm-up), and the live win probability of a mid-game position. Prints one JSON object.

    python benchmarks/bench_visible.py [--games 200000] [--aware-games 131072]
        [--rules yahtzee]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from page_format import Row, jobs_text, num

from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.matches import play_matches
from yahtzee_sim.multiplayer.win_probability import win_probability_now
from yahtzee_sim.strategies import get_strategy


def matches_per_second(seats, games, jobs, rules="yahtzee") -> float:
    rules = get_rules(rules)
    players = [get_strategy(s) for s in seats]
    play_matches(players, rules, min(games, 20_000), n_jobs=jobs)  # warm-up
    best = float("inf")
    for seed in range(3):
        t0 = time.perf_counter()
        play_matches(players, rules, games, seed=seed, n_jobs=jobs)
        best = min(best, time.perf_counter() - t0)
    return games / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--aware-games", type=int, default=131_072)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rules", default="yahtzee")
    args = ap.parse_args()
    out = {
        "rules": args.rules,
        "optimal_vs_optimal_matches_per_s": matches_per_second(
            ["optimal", "optimal"], args.games, args.jobs, args.rules
        ),
    }
    for name in ("win-aware", "win-target"):
        key = name.replace("-", "_")
        for seat in (0, 1):
            seats = ["optimal", "optimal"]
            seats[seat] = name
            out[f"{key}_seat{seat}_vs_optimal_matches_per_s"] = matches_per_second(
                seats, args.aware_games, args.jobs, args.rules
            )
    out["jobs"] = args.jobs
    if args.rules == "yahtzee":
        sheets = ["ones=3,twos=6,threes=9,chance=20", "ones=4,twos=2,sixes=24,yahtzee=50"]
        t0 = time.perf_counter()
        win_probability_now(sheets)
        out["winprob_turn_5_seconds"] = time.perf_counter() - t0
    print(json.dumps(out))


def rows(r: dict) -> list[Row]:
    jobs = jobs_text(r["jobs"])
    rows: list[Row] = [
        (
            f"play two-player matches of `{r['rules']}`, `optimal` against `optimal`, {jobs} "
            "(the fastest of 3 runs)",
            f"{num(r['optimal_vs_optimal_matches_per_s'])} matches/s",
        )
    ]
    for name in ("win-aware", "win-target"):
        for seat, which in ((0, "first"), (1, "second")):
            key = f"{name.replace('-', '_')}_seat{seat}_vs_optimal_matches_per_s"
            rows.append(
                (
                    f"the same with `{name}` in the {which} seat "
                    "(it sees its opponent's score sheet)",
                    f"{num(r[key])} matches/s",
                )
            )
    if "winprob_turn_5_seconds" in r:
        rows.append(
            (
                "the live probability of winning a two-player game at turn 5 "
                "(`win_probability_now`)",
                f"{r['winprob_turn_5_seconds']:.2f} s",
            )
        )
    return rows


# its entry on the Performance page (perf_page.py)
AREA = "Visible matches"
TITLE = "Two-player matches with the score sheets in view"
COMMAND = "python benchmarks/bench_visible.py"
SMOKE = "--games 2000 --aware-games 2048"


if __name__ == "__main__":
    sys.exit(main())
