"""The forward pass of a game with saved rolls: reach of every state, losses against optimal.

Level by level (number of filled boxes, the empty sheet first) over the solver's compact
state layout (:class:`~yahtzee_sim.game.state.StateLayout`), the exact probability of
reaching every turn-start state ``(used, upper, flag, saved rolls)`` under a deterministic
position-only strategy is pushed through its turns, with every decision point it reaches
charged against optimal play (:mod:`yahtzee_sim._kernels.saved_regret`: keeps by rerolls
left, the choice to stop and save, the box). The strategy is asked for its decisions as
the moments pass asks (:func:`~yahtzee_sim.exact.saved_moments.position_decisions`), for
the positions the level reaches only.

The reach of every state is held in memory up to
:data:`~yahtzee_sim.exact.level_file.IN_MEMORY_STATES` states; larger games, or any
pass given ``path``, keep it in a memory-mapped file in the cache folder, one number per
state, recorded level by level with the watching analysis's state, and resumed after a
kill with the same figures bit for bit
(:class:`~yahtzee_sim.exact.forward_file.ForwardFile`). The progress bar counts the
states of the levels (positions times saved-roll counts), chunk by chunk, the levels a
resumed pass finds done counted at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._kernels.saved_regret import saved_level_regret, scatter_reach
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.exact.forward_file import ForwardFile, forward_path
from yahtzee_sim.exact.level_file import IN_MEMORY_STATES
from yahtzee_sim.exact.result import ExactEvaluationError
from yahtzee_sim.exact.saved_moments import (
    bank_count,
    chunk_positions,
    level_positions,
    level_size,
    mask_chunks,
    position_decisions,
    reroll_layers,
)
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import n_states, state_layout, state_runs
from yahtzee_sim.solving import cache
from yahtzee_sim.solving.levels import levels
from yahtzee_sim.solving.solver import value_table

#: Bytes of next-state records a chunk of positions may hold (its size is cut to fit).
OUTCOME_BYTES = 1 << 28


@dataclass
class LevelCharges:
    """The reached positions of one chunk of a level and what the kernel found there
    (rows aligned with ``positions``; see
    :func:`~yahtzee_sim._kernels.saved_regret.saved_level_regret`)."""

    turn: int  # boxes filled
    positions: np.ndarray  # (m, 3) used, upper, flag
    reach: np.ndarray  # (m, saved-roll counts) P(reach) of each position with s rolls saved
    loss: np.ndarray  # (m, levels + 1) expected loss by kind
    top_f: np.ndarray  # (m, levels + 1, 2) costliest decision: mass, loss
    top_i: np.ndarray  # (m, levels + 1, 4) roll, optimal action, chosen action, rerolls left
    by_cat: np.ndarray  # (m, n_boxes) box losses by the box chosen
    points: np.ndarray  # (m,) expected points scored this turn


@dataclass(frozen=True)
class SavedForward:
    """What a forward pass on a game with saved rolls gives besides the charges.

    Attributes
    ----------
    mean : float
        The strategy's expected final score (sum of the expected points of every turn).
    total : float
        Probability of the full score sheets (1 up to rounding).
    n_positions : int
        Turn-start positions ``(used, upper, flag)`` reached.
    """

    mean: float
    total: float
    n_positions: int


def saved_forward(
    strategy, rules: RuleSet, on_chunk, progress: bool = False, path=None, on_level=None
) -> SavedForward:
    """Push the reach of ``strategy`` (prepared, deterministic, position-only) through
    ``rules`` (a game with saved rolls), calling ``on_chunk(charges)`` with the
    :class:`LevelCharges` of every chunk of positions.

    ``on_chunk`` may offer ``checkpoint_key``, ``checkpoint_state()`` and
    ``restore_checkpoint(state)``: a pass in a file (above
    :data:`~yahtzee_sim.exact.level_file.IN_MEMORY_STATES` states, or given ``path``)
    then records its state after every level and restores it when resumed.
    ``on_level(k)`` is called once level ``k``'s reach is pushed on (tests).

    Raises
    ------
    ExactEvaluationError
        If the strategy chooses a box the rules do not allow in a position it reaches.
    """
    n = n_states(rules)
    if path is None and n <= IN_MEMORY_STATES:
        reach = np.zeros(n)
        reach[0] = 1.0
        return _levels(strategy, rules, on_chunk, reach, 0, (0.0, 0), progress, on_level, None)
    key = getattr(on_chunk, "checkpoint_key", "reach")
    label = strategy_label(strategy)
    path = forward_path(rules, label, key) if path is None else Path(path)
    with cache.file_lock(path):
        store = ForwardFile(rules, label, key, path)
        first, done = store.reach_level(), (0.0, 0)
        if store.record is not None:
            done = (store.record["mean"], store.record["n_positions"])
            if hasattr(on_chunk, "restore_checkpoint"):
                on_chunk.restore_checkpoint(store.record["analysis_state"])
        out = _levels(strategy, rules, on_chunk, store.A, first, done, progress, on_level, store)
        store.remove()
    return out


def _levels(strategy, rules, on_chunk, reach, first, done, progress, on_level, store):
    """Levels ``first`` on of :func:`saved_forward` (``done``: the mean and positions of
    the levels before), each recorded in ``store`` (a file, or ``None``)."""
    layout = state_layout(rules)
    by_level = levels(rules.n_boxes, rules.forced_order)[::-1]  # level k: k boxes filled
    cost = [level_size(rules, m) * int(layout.saved_count[k]) for k, m in enumerate(by_level)]
    mean, n_positions = done
    lanes = value_table(rules).lanes()
    with tqdm(total=sum(cost), disable=not progress, desc="regret", unit="state",
              unit_scale=True, leave=False) as bar:  # fmt: skip
        bar.update(sum(cost[:first]))
        for k in range(first, rules.n_boxes):
            got = _level(strategy, rules, on_chunk, reach, k, by_level[k], (lanes, bar.update))
            mean, n_positions = mean + got[0], n_positions + got[1]
            if store is not None:
                state = getattr(on_chunk, "checkpoint_state", dict)()
                extra = {"mean": mean, "n_positions": n_positions, "analysis_state": state}
                store.save_level(k + 1, extra)
            if on_level is not None:
                on_level(k)
    full = layout.level_start[rules.n_boxes]
    return SavedForward(mean, float(np.sum(reach[full:])), n_positions)


def _level(strategy, rules: RuleSet, on_chunk, reach, k: int, masks, run) -> tuple[float, int]:
    """Level ``k``'s reach pushed into level ``k + 1`` and its charges given to
    ``on_chunk``; ``run = (lanes, advance)``: the optimal table's widget lanes, and the
    progress bar's advance by the states of each chunk. Returns the expected points its
    turns score and the positions reached."""
    lanes, advance = run
    layout = state_layout(rules)
    n_saved = int(layout.saved_count[k])
    n_layers = reroll_layers(rules, k)
    width = outcome_width(rules, k)
    per_chunk = min(chunk_positions(strategy, rules), max(1, OUTCOME_BYTES // (16 * width)))
    points, reached, asked = 0.0, 0, False
    for a, b in mask_chunks(rules, masks, per_chunk):
        pos = level_positions(rules, masks[a:b])
        states = len(pos) * n_saved
        base = layout.block_offset[pos[:, 0] * rules.flag_size + pos[:, 2]] + pos[:, 1]
        step = layout.upper_count[pos[:, 0]]
        reach_in = np.asarray(reach[base[:, None] + np.arange(n_saved) * step[:, None]])
        live = reach_in.any(axis=1)
        if not live.any():
            advance(states)
            continue
        pos, reach_in = pos[live], np.ascontiguousarray(reach_in[live])
        rng = None if asked else np.random.default_rng(k)  # re-ask a sample per level
        keep, cat = position_decisions(strategy, rules, pos, k, n_layers, rng)
        asked = True
        charges, nxt = chunk_charges(rules, lanes, k, pos, reach_in, keep, cat)
        if not np.isfinite(charges.points).all():
            raise ExactEvaluationError(
                f"strategy {strategy_label(strategy)!r} chooses a box the rules do not allow "
                f"in a position it reaches under {rules.name!r}"
            )
        scatter_reach(*nxt, reach, 0)
        on_chunk(charges)
        points += float(charges.points.sum())
        reached += len(pos)
        advance(states)
    return points, reached


def outcome_width(rules: RuleSet, k: int) -> int:
    """Most next states a position with ``k`` boxes filled reaches: an open box, its
    upper total after (one per count of the box's face), the rolls saved and the flag."""
    banks = bank_count(rules, reroll_layers(rules, k))
    return (rules.n_boxes - k) * (rules.n_dice + 1) * banks * rules.flag_size


def chunk_charges(rules: RuleSet, lanes, k: int, pos, reach_in, keep, cat):
    """The kernel on one chunk of reached positions ``pos`` of level ``k`` (reach
    ``reach_in``, decisions ``keep``, ``cat``; ``lanes`` the optimal table's):
    ``(LevelCharges, next states)``."""
    kr = kernel_rules(rules)
    width = outcome_width(rules, k)
    layout = state_layout(rules)
    m, kinds = len(pos), kr.levels + 1
    charges = LevelCharges(
        k, pos, reach_in, np.zeros((m, kinds)), np.zeros((m, kinds, 2)),
        np.full((m, kinds, 4), -1, dtype=np.int64), np.zeros((m, rules.n_boxes)), np.zeros(m),
    )  # fmt: skip
    nxt = (np.empty((m, width), dtype=np.int64), np.empty((m, width)), np.empty(m, np.int64))
    out = (charges.loss, charges.top_f, charges.top_i, charges.by_cat, charges.points, *nxt)
    groups = state_runs(pos[:, 0], pos[:, 2])
    saved_level_regret(
        kr, lanes, (layout.block_offset, layout.upper_count), pos,
        groups, reach_in, keep, cat, out, 4 * numba.get_num_threads(),
    )  # fmt: skip
    if (nxt[2] < 0).any():  # the bound on next states is the rules' own: never passed
        raise AssertionError("more next states than a position can reach")
    return charges, nxt
