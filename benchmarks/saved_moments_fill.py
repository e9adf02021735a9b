"""Exact moments with saved rolls: CPU time with greedy's compiled decision fill or asked.

Two paths of the moments pass of ``greedy`` on a game with saved rolls: its compiled
decision fill (``saved_decision_table``, ``fill``) and greedy asked through its batched
``keep``/``box`` (a subclass without the fill, ``asked``: what every strategy without one
costs). CPU time is process time (every thread).

``--whole RULES ...`` times whole passes (small games). ``--sample RULES ...`` times a
sample of positions of every level (used-masks evenly spread over the level, at least
``--positions`` positions; the levels above read as zeros, whose hopeless lanes are equal
as a strategy's are when its decisions there are: the work does not depend on the values)
and gives each level's CPU per position; the whole pass is estimated as the sum over
levels of the level's positions times that cost (an estimate: it leaves out reading and
writing the moments file, and reading zeros never misses the processor's cache). One JSON
object per line.

    python benchmarks/saved_moments_fill.py --whole maxi-yatzy+forced+cap2 maxi-yatzy+forced
    python benchmarks/saved_moments_fill.py --sample maxi-yatzy+forced maxi-yatzy
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from yahtzee_sim.exact.laws import prepared
from yahtzee_sim.exact.saved_moments import (
    level_pass,
    level_positions,
    level_size,
    saved_moments,
)
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import filled_counts, state_layout
from yahtzee_sim.solving.levels import levels
from yahtzee_sim.strategies.greedy import Greedy


class Asked(Greedy):
    """Greedy without its compiled decision fills: the exact passes ask its batched keep
    and box, as they ask every strategy without one."""

    decision_table = None
    saved_decision_table = None


def _strategy(path: str, rules):
    strategy, _ = prepared("greedy" if path == "fill" else Asked(), rules, moments_only=True)
    return strategy


def whole(rules, path: str) -> dict:
    """CPU seconds and the mean of one whole pass."""
    strategy = _strategy(path, rules)
    t0 = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        got = saved_moments(strategy, rules, path=Path(folder) / "m.bin")
    cpu = time.process_time() - t0
    return {"rules": rules.name, "path": path, "whole_cpu_s": round(cpu, 2), "mean": got.mean}


def sampled(rules, path: str, min_positions: int) -> dict:
    """Each level's CPU per position on a sample of its positions, and the estimate."""
    layout = state_layout(rules)
    strategy = _strategy(path, rules)
    n = int(layout.level_start[-1])
    total, per_level = 0.0, {}
    for masks in levels(rules.n_boxes, rules.forced_order):
        k = int(filled_counts(rules.n_boxes)[masks[0]])
        n_pos = level_size(rules, masks)
        n_masks = int(np.ceil(min_positions / layout.upper_count[masks].mean()))
        sample = masks[np.unique(np.linspace(0, len(masks) - 1, n_masks).astype(np.int64))]
        pos = level_positions(rules, sample)
        stop = int(layout.level_start[k + 1])
        above = (np.zeros(n - stop), np.zeros(n - stop))  # untouched pages: no memory
        lo = int(layout.level_start[k])
        out = (np.zeros(stop - lo), np.zeros(stop - lo))
        t0 = time.process_time()
        level_pass(strategy, rules, sample, above, out, lo, shared=True)
        us = 1e6 * (time.process_time() - t0) / len(pos)
        per_level[k] = round(us, 1)
        total += us * n_pos / 1e6
    return {"rules": rules.name, "path": path, "us_per_position": per_level,
            "estimated_cpu_s": round(total, 1)}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--whole", nargs="*", default=[])
    p.add_argument("--sample", nargs="*", default=[])
    p.add_argument("--positions", type=int, default=600, help="positions sampled per level")
    p.add_argument("--paths", nargs="+", default=["fill", "asked"], choices=["fill", "asked"])
    args = p.parse_args()
    warm = get_rules("maxi-yatzy+forced+cap2")  # compile the six-dice kernels first
    for path in args.paths:
        whole(warm, path)
    for name in args.whole:
        for path in args.paths:
            print(json.dumps(whole(get_rules(name), path)), flush=True)
    for name in args.sample:
        for path in args.paths:
            print(json.dumps(sampled(get_rules(name), path, args.positions)), flush=True)


if __name__ == "__main__":
    main()
