"""Exact laws of score-dependent strategies, through score-augmented states.

Strategies played from a need-lane table — ``target:β``, ``win:N``, any utility
(:mod:`yahtzee_sim.solving.utility`) — decide by the state *and* the points so far. Their
final-score law comes from a forward pass over (turn-start state, points so far):
level by level, the mass of every position moves along its turn's outcomes, the
decisions of live lanes read off the widget (one recorded run per tile of lanes of a
state), the others played max-EV, as the strategies play them
(:func:`~yahtzee_sim._core.need_lanes.live_lanes`). The full score sheets then hold the
pmf of the final score. A state's positions span 0 ..
:func:`~yahtzee_sim.game.state.max_points_so_far` points; two levels are held at a time.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._core.decisions import fill_states
from yahtzee_sim._core.score_dependent_law import augmented_level
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.exact.forward import ForwardStats
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


def _push_states(rules: RuleSet, play, level, turn: int, states, out) -> None:
    """Push the mass of ``states``' positions (``level = (off, mass, next_off)``) along
    their turns into ``out = (next_mass, stats, cat_sum, cat_zero, cat_turn)``, ``_CHUNK``
    states at a time: the decisions of live lanes from the strategy's lanes, the others
    max-EV (``play = (kr, lanes, anchor, opt_lanes)``)."""
    kr, lanes, anchor, opt_lanes = play
    off, mass, next_off = level
    nm, st, cs, cz, ct = out
    layers, n_rolls = max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls
    for lo in range(0, len(states), _CHUNK):
        chunk = states[lo : lo + _CHUNK]
        used, upper, flag = decode_state(rules, chunk)
        keep = np.empty((len(chunk), layers, n_rolls), dtype=np.int16)
        cat3 = np.empty((len(chunk), 1, n_rolls), dtype=np.int8)
        fill_states(
            kr, opt_lanes, used, upper, flag, upper, np.arange(len(chunk)), keep, cat3,
            get_threads(),
        )  # fmt: skip
        items = np.stack([used, upper, flag, chunk], axis=1).astype(np.int64)
        augmented_level(
            kr, lanes, int(anchor), items, keep, cat3[:, 0], off, mass, next_off, nm, turn,
            TILE, st, cs, cz, ct,
        )  # fmt: skip


def _final_pmf(off: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """The law of the final score from the mass of the full score sheets' positions."""
    sizes = np.diff(off)
    pmf = np.zeros(int(sizes.max()))
    for s in np.flatnonzero(sizes > 0):
        pmf[: sizes[s]] += mass[off[s] : off[s + 1]]
    last = np.flatnonzero(pmf > 0)
    return pmf[: int(last[-1]) + 1] if len(last) else pmf[:1]


def lane_law(strategy, rules: RuleSet, progress: bool = False) -> tuple[np.ndarray, ForwardStats]:
    """``(pmf, stats)``: the law of the final score of a need-lane strategy
    (``strategy.lane_play(rules)``) and its :class:`~yahtzee_sim.exact.forward.ForwardStats`
    (moments from the pmf, per-box sums, P(upper bonus), expected Yahtzee bonuses, the
    turn-start states reached).
    Two threads share each level, always two, so that the sums (and the result, to
    the last bit) never depend on the machine."""
    lanes, anchor = strategy.lane_play(rules)
    C = rules.n_boxes
    play = (kernel_rules(rules), lanes, anchor, upper_total_lanes(value_table(rules).values))
    stats, cat_sum, cat_zero, cat_turn = np.zeros(2), np.zeros(C), np.zeros(C), np.zeros(C)
    by_level = levels(C, rules.forced_order)[::-1]  # emptiest first
    off = _level_offsets(rules, by_level[0])
    mass = np.zeros(int(off[-1]))
    mass[off[0]] = 1.0
    reached = 0
    full = np.array([(1 << C) - 1], dtype=np.int64)
    workers = _WORKERS
    for turn in tqdm(range(C), desc="exact (score-augmented)", disable=not progress):
        next_off = _level_offsets(rules, by_level[turn + 1] if turn + 1 < C else full)
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
        push = partial(_push_states, rules, play, (off, mass, next_off), turn)
        if workers == 1:
            push(parts[0], outs[0])
        else:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(push, parts, outs))
        next_mass = outs[0][0]
        for w in range(1, workers):
            next_mass += outs[w][0]
        for _, st, cs, cz, ct in outs:
            stats += st
            cat_sum += cs
            cat_zero += cz
            cat_turn += ct
        off, mass = next_off, next_mass
    pmf = _final_pmf(off, mass)  # full score sheets: the law of the final score
    x = np.arange(len(pmf), dtype=np.float64)
    return pmf, ForwardStats(
        mean=math.fsum(pmf * x),  # exactly rounded: the same bits on every processor
        second=math.fsum(pmf * x * x),
        total=float(pmf.sum()),
        cat_sum=cat_sum,
        cat_zero=cat_zero,
        cat_turn=cat_turn,
        stats=stats,
        n_states=reached,
    )
