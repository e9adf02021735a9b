"""Exact two-player results and timings (JSON on stdout).

``--part reduced`` (default): for each reduced rule set, the two-player optimum (both
maximizing P(win)), the best response to max-EV play in each seat, and the exact P(win)
of ``optimal``, ``win-target``, ``win-aware``, ``chase`` and ``win:2`` against max-EV
play in each seat (:func:`yahtzee_sim.exact.pairs.evaluate_pair`), with the seconds each
took.

``--part endgame``: seconds of :func:`yahtzee_sim.multiplayer.duel.duel` at positions of real games
(max-EV play, seed 0) where both cards have ``k`` open boxes, for official Yahtzee and
Yatzy.

    python benchmarks/bench_duel.py --part reduced --rules upper-3d4f yahtzee-6box
    python benchmarks/bench_duel.py --part endgame --k 1 2 3 --positions 5
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

from yahtzee_sim import simulate
from yahtzee_sim.exact.pairs import evaluate_pair
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.duel import duel, solve_duel
from yahtzee_sim.multiplayer.win_probability import ScoreSheet

STRATEGIES = ("optimal", "win-target", "win-aware", "chase", "win:2")


def reduced(rules_name: str, strategies=STRATEGIES) -> dict:
    """The results table of one reduced game."""
    rules = get_rules(rules_name)
    out = {"rules": rules.name, "boxes": rules.n_boxes}
    t0 = time.perf_counter()
    table = solve_duel(rules)
    out["optimum"] = {
        "p_win_seat0": table.p_win(0),
        "positions": table.n_positions,
        "rows": int(table.values.size),
        "seconds": round(time.perf_counter() - t0, 2),
    }
    best = {}
    for seat in (0, 1):
        policies = [None, None]
        policies[1 - seat] = "optimal"
        t0 = time.perf_counter()
        best[f"seat{seat}"] = solve_duel(rules, policies=tuple(policies)).p_win(seat)
        best[f"seat{seat}_seconds"] = round(time.perf_counter() - t0, 2)
    out["best_response_vs_optimal"] = best
    rows = {}
    for name in strategies:
        row = {}
        for seat in (0, 1):
            pair = ["optimal", "optimal"]
            pair[seat] = name
            t0 = time.perf_counter()
            v = evaluate_pair(rules, tuple(pair))
            row[f"seat{seat}"] = v.p_win[seat]
            row[f"seat{seat}_seconds"] = round(time.perf_counter() - t0, 2)
        rows[name] = row
    out["vs_optimal"] = rows
    return out


def endgame_positions(rules_name: str, k: int, n: int, seed: int = 0) -> list[list[str]]:
    """Card pairs (seat 0, seat 1) of max-EV games at the turn start where both have ``k``
    open boxes (seat 0 to move)."""
    rules = get_rules(rules_name)
    res = simulate("optimal", 2 * n, rules=rules, seed=seed)
    cut = rules.n_boxes - k
    cards = []
    for g in range(2 * n):
        boxes = [
            f"{name}={int(res.box_scores[g, c])}"
            for c, name in enumerate(rules.box_names)
            if res.filled_turn[g, c] <= cut  # 1-based turns
        ]
        cards.append(", ".join(boxes))
    return [[cards[2 * i], cards[2 * i + 1]] for i in range(n)]


def endgame(rules_name: str, ks, n: int) -> dict:
    """Seconds of :func:`duel` per position, by open boxes ``k``."""
    out = {}
    for k in ks:
        secs, p = [], []
        for pair in endgame_positions(rules_name, k, n):
            cards = [ScoreSheet.parse(c, rules_name) for c in pair]
            t0 = time.perf_counter()
            p.append(duel(cards, rules_name, max_open=k).p_win)
            secs.append(time.perf_counter() - t0)
        out[str(k)] = {
            "positions": n,
            "seconds_max": round(max(secs), 3),
            "seconds_median": round(float(np.median(secs)), 3),
            "p_win_seat0": [round(x, 6) for x in p],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("reduced", "endgame"), default="reduced")
    ap.add_argument("--rules", nargs="+", default=["upper-3d4f", "yahtzee-6box"])
    ap.add_argument("--k", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--positions", type=int, default=5)
    args = ap.parse_args()
    result = {"machine": platform.processor() or platform.machine(), "part": args.part}
    if args.part == "reduced":
        result["games"] = [reduced(r) for r in args.rules]
    else:
        result["endgame"] = {r: endgame(r, args.k, args.positions) for r in ("yahtzee", "yatzy")}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    sys.exit(main())
