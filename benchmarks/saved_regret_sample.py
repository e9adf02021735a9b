"""Regret with saved rolls: an estimate of a whole pass from a sample of every level.

For every level of a game with saved rolls, a sample of its positions (used-masks evenly
spread over the level, at least ``--positions`` positions) is charged as the forward pass
of :mod:`yahtzee_sim.exact.saved_forward` charges it — the strategy's decisions, then the
kernel — with every saved-roll count reached and the optimal values read as zeros (the
work does not depend on them; untouched pages take no memory, so the 10 GiB table of
``maxi-yatzy`` is not needed). The CPU seconds per position of each level times the
level's positions, summed, estimate the pass when the strategy reaches every position (an
upper bound: a strategy reaches fewer, and the pass skips the rest); ``--saved all`` reaches
every saved-roll count of a position, ``--saved none`` only turns with no roll saved (a
strategy that never stops early: the layers above a turn's first roll are skipped). The
pass pools the hopeless upper totals of a strategy that decides alike at them
(:mod:`yahtzee_sim.exact.hopeless_pool`), so the sample and the count leave out those it
pools (``--unpooled``: every position). It leaves out reading the reach file and the table
from the disk. CPU time is process time (every thread the kernels use: ``--threads``,
default :func:`~yahtzee_sim.engine.threads.get_threads`; ``--threads 1`` for one). One JSON
object per line.

    python benchmarks/saved_regret_sample.py maxi-yatzy+forced+cap2 maxi-yatzy --threads 1
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from yahtzee_sim._kernels.lanes import compact_upper_lanes
from yahtzee_sim.engine.threads import get_threads, threads_limited
from yahtzee_sim.exact.laws import prepared
from yahtzee_sim.exact.saved_forward import chunk_charges
from yahtzee_sim.exact.saved_moments import (
    level_positions,
    level_size,
    position_decisions,
    reroll_layers,
)
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import state_layout
from yahtzee_sim.solving.levels import levels, upper_lanes


def pooled_out(rules, masks) -> int:
    """Positions of the used-masks ``masks`` the pass pools away: upper totals ``1 ..
    bound`` of each mask and flag with a hopeless bound of 1 or more."""
    out = 0
    for flag in range(rules.flag_size):
        m = masks if flag == 0 else masks[((masks >> rules.yahtzee_index) & 1).astype(bool)]
        out += int(upper_lanes(rules, m)[0].sum())
    return out


def level_cost(strategy, rules, lanes, k: int, masks, min_positions: int, run: tuple) -> float:
    """CPU seconds per position of level ``k`` (used-masks ``masks``) on a sample; ``run
    = (saved, pooled)``."""
    saved, pooled = run
    layout = state_layout(rules)
    n_saved = int(layout.saved_count[k])
    n_masks = int(np.ceil(min_positions / layout.upper_count[masks].mean()))
    sample = masks[np.unique(np.linspace(0, len(masks) - 1, n_masks).astype(np.int64))]
    pos = level_positions(rules, sample)
    if pooled:
        bound = upper_lanes(rules, pos[:, 0])[0]
        pos = pos[(pos[:, 1] == 0) | (pos[:, 1] > bound)]
    reach = np.full((len(pos), n_saved), 1.0 / (len(pos) * n_saved))
    if saved == "none":
        reach[:, 1:] = 0.0
    t0 = time.process_time()
    keep, cat = position_decisions(strategy, rules, pos, k, reroll_layers(rules, k))
    chunk_charges(rules, lanes, k, pos, reach, keep, cat)
    return (time.process_time() - t0) / len(pos)


def estimate(name: str, strategy_id: str, min_positions: int, run: tuple) -> dict:
    """The per-level costs (microseconds per position) and the estimated CPU seconds."""
    strategy, rules = prepared(strategy_id, get_rules(name), moments_only=True)
    layout = state_layout(rules)
    lanes = compact_upper_lanes(np.zeros(int(layout.level_start[-1])), layout)
    by_level = levels(rules.n_boxes, rules.forced_order)[::-1]
    level_cost(strategy, rules, lanes, 1, by_level[1], 1, run)  # compile or load the kernels
    per_level, total, positions = {}, 0.0, 0
    for k, masks in enumerate(by_level):
        seconds = level_cost(strategy, rules, lanes, k, masks, min_positions, run)
        per_level[k] = round(1e6 * seconds, 1)
        size = level_size(rules, masks) - (pooled_out(rules, masks) if run[1] else 0)
        total += seconds * size
        positions += size
    return {
        "rules": name,
        "strategy": strategy_id,
        "saved": run[0],
        "pooled": run[1],
        "threads": get_threads(),
        "positions": positions,
        "us_per_position": per_level,
        "estimated_cpu_s": round(total, 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rules", nargs="+")
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--positions", type=int, default=300, help="positions sampled per level")
    p.add_argument("--saved", choices=["all", "none"], default="all", help="saved counts reached")
    p.add_argument("--unpooled", action="store_true", help="every position (no pooling)")
    p.add_argument("--threads", type=int, default=get_threads(), help="the kernels' threads")
    args = p.parse_args()
    with threads_limited(args.threads):
        for name in args.rules:
            run = (args.saved, not args.unpooled)
            print(json.dumps(estimate(name, args.strategy, args.positions, run)), flush=True)


if __name__ == "__main__":
    main()
