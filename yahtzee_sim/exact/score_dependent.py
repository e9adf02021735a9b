"""Exact laws of score-dependent strategies, through score-augmented states.

Strategies played from a need-lane table — ``target:β``, ``win:N``, any utility
(:mod:`yahtzee_sim.solving.utility`) — decide by the state *and* the points so far. Their
final-score law comes from a forward pass over (turn-start state, points so far):
level by level, the mass of every position moves along its turn's outcomes, the
decisions of live lanes read off the widget (one recorded run per tile of lanes of a
state), the others played max-EV, as the strategies play them
(:func:`~yahtzee_sim._kernels.widget.lane_live`). The full score sheets then hold the
pmf of the final score. A state's positions span 0 ..
:func:`~yahtzee_sim.game.state.max_points_so_far` points; two levels are held at a time.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._kernels.augmented import augmented_level
from yahtzee_sim._kernels.decisions import fill_states
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim._kernels.widget import upper_total_lanes
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import (
    decode_state,
    encode_state,
    flag_size,
    max_points_so_far,
    n_states,
)
from yahtzee_sim.solving.levels import levels, upper_lanes
from yahtzee_sim.solving.solver import value_table

#: States per batch of fallback (max-EV) decisions.
_CHUNK = 8192
TILE = 64
#: Threads per level (fixed: the order of the sums is part of the result).
_WORKERS = 2


def _level_offsets(rules: RuleSet, masks: np.ndarray) -> np.ndarray:
    """``off`` (length n_states + 1): positions of state ``s`` are ``off[s] .. off[s+1]``;
    only the reachable states of ``masks`` (upper totals the filled boxes can make,
    flags the Yahtzee box allows) get room, 0 .. their most points so far."""
    fs = flag_size(rules)
    start, count = upper_lanes(rules, masks)
    hi = start + count - 1
    size = np.zeros(n_states(rules), dtype=np.int64)
    for flag in range(fs):
        sel = np.ones(len(masks), dtype=bool)
        if flag >= 1:
            sel = ((masks >> rules.yahtzee_index) & 1) == 1
        m, h = masks[sel], hi[sel]
        rep_m = np.repeat(m, h + 1)
        u = np.arange(int((h + 1).sum())) - np.repeat(np.cumsum(h + 1) - (h + 1), h + 1)
        s = encode_state(rules, rep_m, u, flag)
        size[s] = max_points_so_far(rules, rep_m, u, flag) + 1
    off = np.zeros(len(size) + 1, dtype=np.int64)
    np.cumsum(size, out=off[1:])
    return off


def lane_law(strategy, rules: RuleSet, progress: bool = False) -> dict:
    """The forward statistics of a need-lane strategy (``strategy.lane_play(rules)``):
    a dict with ``pmf``, the per-box sums and ``stats`` (P(upper bonus), expected
    Yahtzee bonuses), ``n_states`` (turn-start states reached) and ``seconds``.
    Two threads share each level, always two, so that the sums (and the result, to
    the last bit) never depend on the machine."""
    t0 = time.perf_counter()
    lanes, anchor = strategy.lane_play(rules)
    kr = kernel_rules(rules)
    C = rules.n_boxes
    opt_lanes = upper_total_lanes(value_table(rules).values)
    layers = max(rules.rolls_per_turn - 1, 1)
    n_rolls = rules.tables.n_rolls
    stats, cat_sum, cat_zero, cat_turn = np.zeros(2), np.zeros(C), np.zeros(C), np.zeros(C)
    by_level = levels(C, rules.forced_order)[::-1]  # emptiest first
    off = _level_offsets(rules, by_level[0])
    mass = np.zeros(int(off[-1]))
    mass[off[0]] = 1.0
    reached = 0
    full = np.array([(1 << C) - 1], dtype=np.int64)
    workers = _WORKERS
    for turn in tqdm(range(C), desc="exact (score-augmented)", disable=not progress):
        nxt_masks = by_level[turn + 1] if turn + 1 < C else full
        next_off = _level_offsets(rules, nxt_masks)
        count = np.r_[0, np.cumsum(mass > 0)]  # positions with mass, per state
        states = np.flatnonzero(count[off[1:]] > count[off[:-1]])
        reached += len(states)
        # each worker pushes into its own copy of the next level (the kernel releases the
        # GIL); the copies are summed in a fixed order, so results do not depend on timing
        parts = [states[w::workers] for w in range(workers)]
        outs = [
            (np.zeros(int(next_off[-1])), np.zeros(2), np.zeros(C), np.zeros(C), np.zeros(C))
            for _ in parts
        ]

        def run(w, off=off, mass=mass, next_off=next_off, turn=turn, parts=parts, outs=outs):
            nm, st, cs, cz, ct = outs[w]
            for lo in range(0, len(parts[w]), _CHUNK):
                chunk = parts[w][lo : lo + _CHUNK]
                used, upper, flag = decode_state(rules, chunk)
                keep = np.empty((len(chunk), layers, n_rolls), dtype=np.int16)
                cat3 = np.empty((len(chunk), 1, n_rolls), dtype=np.int8)
                fill_states(
                    kr, opt_lanes, used, upper, flag, upper, np.arange(len(chunk)), keep, cat3
                )
                cat = cat3[:, 0]
                items = np.stack([used, upper, flag, chunk], axis=1).astype(np.int64)
                augmented_level(
                    kr, lanes, int(anchor), items, keep, cat, off, mass, next_off, nm, turn,
                    TILE, st, cs, cz, ct,
                )  # fmt: skip

        if workers == 1:
            run(0)
        else:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(run, range(workers)))
        next_mass = outs[0][0]
        for w in range(1, workers):
            next_mass += outs[w][0]
        for _, st, cs, cz, ct in outs:
            stats += st
            cat_sum += cs
            cat_zero += cz
            cat_turn += ct
        off, mass = next_off, next_mass
    # full score sheets: the law of the final score
    sizes = np.diff(off)
    top = int(sizes.max())
    pmf = np.zeros(top)
    for s in np.flatnonzero(sizes > 0):
        pmf[: sizes[s]] += mass[off[s] : off[s + 1]]
    last = np.flatnonzero(pmf > 0)
    pmf = pmf[: int(last[-1]) + 1] if len(last) else pmf[:1]
    return {
        "pmf": pmf,
        "cat_sum": cat_sum,
        "cat_zero": cat_zero,
        "cat_turn": cat_turn,
        "stats": stats,
        "n_states": reached,
        "seconds": time.perf_counter() - t0,
    }
