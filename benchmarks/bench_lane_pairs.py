"""Batched decisions of score-dependent play, per (state, lane) pair. Prints one JSON object.

Usage::

    python benchmarks/bench_lane_pairs.py [--strategy win:5] [--rules yatzy]
                                          [--games 20000] [--repeat 3]

Plays one block of ``--games`` games of a lane strategy (``win:N``, ``target:β``; its
table solved or loaded from the cache first), records the inputs of every turn's batched
decision call (:func:`yahtzee_sim._core.batched.need_lane_decisions`) and its outputs,
then replays the calls ``--repeat`` times on one thread (``threads_limited(1)``):
``us_per_pair`` is the median of the replays' total time over the number of pairs (one
core's time per pair), and ``decisions_equal`` says whether every replay wrote the
recorded decisions again. This isolates the kernel that dominates ``bench_engine.py
--strategies win:N`` from the engine and from the machine's noise between whole
simulations.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np
from perf_page import cython_version

import yahtzee_sim
from yahtzee_sim import get_rules, simulate
from yahtzee_sim._core import batched
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import get_threads, threads_limited
from yahtzee_sim.strategies import get_strategy, score_dependent

FIELDS = ("order", "used", "upper", "flag", "lane", "first_ptr", "first_roll")


def record_calls(strategy, rules, games: int) -> list[dict]:
    """Every batched decision call of one block of ``games`` games, inputs and outputs."""
    calls = []
    kernel = score_dependent.need_lane_decisions

    def recording(*args):
        kernel(*args)
        # the arguments: kr, need, then FIELDS, then the outputs keep, cat, first_keep
        record = {k: np.array(v) for k, v in zip(FIELDS, args[2:9], strict=True)}
        keep, cat, first_keep = args[9:12]
        outputs = {"keep": keep.copy(), "cat": cat.copy(), "first_keep": first_keep.copy()}
        calls.append(record | outputs)

    score_dependent.need_lane_decisions = recording
    try:
        simulate(strategy, games, seed=3, rules=rules, n_jobs=1, chunk_size=games)
    finally:
        score_dependent.need_lane_decisions = kernel
    return calls


def replay(kr, lanes, calls) -> tuple[float, bool]:
    """Seconds to run every call again, and whether each wrote the recorded decisions."""
    total, equal = 0.0, True
    for c in calls:
        keep, cat = np.empty_like(c["keep"]), np.empty_like(c["cat"])
        first_keep = np.empty_like(c["first_keep"])
        t = time.perf_counter()
        inputs = (c[f] for f in FIELDS)
        batched.need_lane_decisions(kr, lanes, *inputs, keep, cat, first_keep, get_threads())
        total += time.perf_counter() - t
        n = len(c["order"])
        tiles, lane = np.divmod(np.arange(n), batched.TILE)
        # the layers written: every one, or all but the first roll's (taken at its rolls)
        written = keep.shape[1] if len(c["first_ptr"]) == 0 else keep.shape[1] - 1
        got, want = keep[tiles, :written, :, lane], c["keep"][tiles, :written, :, lane]
        equal &= bool(np.array_equal(got, want))
        equal &= bool(np.array_equal(cat[tiles, :, lane], c["cat"][tiles, :, lane]))
        equal &= bool(np.array_equal(first_keep, c["first_keep"]))
    return total, equal


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="win:5")
    parser.add_argument("--rules", default="yatzy")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rules = get_rules(args.rules)
    strategy = get_strategy(args.strategy)
    strategy.prepare(rules)
    calls = record_calls(strategy, rules, args.games)  # the prepared table, not a second
    kr = kernel_rules(rules)
    pairs = sum(len(c["order"]) for c in calls)
    with threads_limited(1):
        runs = [replay(kr, strategy._lanes, calls) for _ in range(args.repeat)]
    seconds = sorted(r[0] for r in runs)
    out = {
        "benchmark": "lane_pairs",
        "version": yahtzee_sim.__version__,
        "python": platform.python_version(),
        "cython": cython_version(),
        "threads": 1,
        "machine": platform.machine(),
        "processor": platform.processor(),
        "strategy": args.strategy,
        "rules": args.rules,
        "games": args.games,
        "turn_calls": len(calls),
        "pairs": pairs,
        "pairs_per_game": round(pairs / args.games, 2),
        "seconds_all": [round(s, 3) for s in seconds],
        "us_per_pair": round(seconds[len(seconds) // 2] / pairs * 1e6, 2),
        "decisions_equal": all(r[1] for r in runs),
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
