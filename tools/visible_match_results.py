"""The README's visible-match results: win-aware, chase and win:N against max-EV players.

Matches are played in both (all) seat orders under common random numbers; the
win share of a strategy is averaged over its seats. Prints one JSON object.

    python tools/visible_match_results.py [--games 1000000] [--players 2 3 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from yahtzee_sim.analysis.ranking.tournament import _mean_half, tournament


def seat_rotations(strategy: str, players: int) -> list[list[str]]:
    """``strategy`` in every seat in turn, max-EV players in the others."""
    return [["optimal"] * i + [strategy] + ["optimal"] * (players - 1 - i) for i in range(players)]


def run(strategy: str, players: int, games: int, rules: str, jobs: int, seed: int) -> dict:
    t0 = time.perf_counter()
    per_order = games // players
    shares, scores, by_seat, ci_by_seat = [], [], [], []
    for i, seats in enumerate(seat_rotations(strategy, players)):
        res = tournament(
            seats, n_games=per_order, seed=seed, rules=rules, visible=True, n_jobs=jobs
        )
        shares.append(res.wins[:, i])
        scores.append(res.scores[:, i])
        ms, hs = _mean_half(res.wins[:, i], 0.95)
        by_seat.append(ms)
        ci_by_seat.append([ms - hs, ms + hs])
        print(f"{rules} {players}p {strategy} seat {i}: {ms:.5f} ± {hs:.5f}", file=sys.stderr)
    w = np.concatenate(shares)
    m, h = _mean_half(w, 0.95)
    return {
        "strategy": strategy,
        "players": players,
        "rules": rules,
        "games": len(w),
        "win_share": m,
        "ci95": [m - h, m + h],
        "fair_share": 1 / players,
        "win_share_by_seat": by_seat,
        "ci95_by_seat": ci_by_seat,
        "matches_per_seat_order": per_order,
        "mean_score": float(np.concatenate(scores).mean()),
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 5])
    ap.add_argument("--strategies", nargs="+", default=["win-aware", "chase", "win:N"])
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    rows = []
    for n in args.players:
        for s in args.strategies:
            sid = s.replace(":N", f":{n}")
            rows.append(run(sid, n, args.games, args.rules, args.jobs, args.seed))
            print(json.dumps(rows[-1]), flush=True)
    print(json.dumps({"results": rows}))


if __name__ == "__main__":
    main()
