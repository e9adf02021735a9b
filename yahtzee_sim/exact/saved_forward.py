"""The forward pass of a game with saved rolls: reach of every state, losses against optimal.

Level by level (number of filled boxes, the empty sheet first) over the solver's compact
state layout (:class:`~yahtzee_sim.game.state.StateLayout`), the exact probability of
reaching every turn-start state ``(used, upper, flag, saved rolls)`` under a deterministic
position-only strategy is pushed through its turns, with every decision point it reaches
charged against optimal play (:mod:`yahtzee_sim._core.saved_regret`: keeps by rerolls
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

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._core.saved_regret import saved_level_regret, scatter_reach
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.exact.forward_file import ForwardFile, forward_path
from yahtzee_sim.exact.hopeless_pool import PoolingBroken, hopeless_rows, pool_hopeless
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
from yahtzee_sim.solving.levels import levels, upper_lanes
from yahtzee_sim.solving.solver import value_table

#: Bytes of next-state records a chunk of positions may hold (its size is cut to fit).
OUTCOME_BYTES = 1 << 28
#: Whether a pass whose analysis can be restarted pools the hopeless upper totals
#: (:mod:`~yahtzee_sim.exact.hopeless_pool`).
POOL_HOPELESS = True


@dataclass
class LevelCharges:
    """The reached positions of one chunk of a level and what the kernel found there
    (rows aligned with ``positions``; see
    :func:`~yahtzee_sim._core.saved_regret.saved_level_regret`)."""

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
        Turn-start positions ``(used, upper, flag)`` run: those reached, the hopeless
        upper totals of a used-mask and flag counted once where they are pooled.
    pooled : bool
        Whether the pass pooled the hopeless upper totals
        (:mod:`~yahtzee_sim.exact.hopeless_pool`).
    """

    mean: float
    total: float
    n_positions: int
    pooled: bool = False


@dataclass
class Pooling:
    """Whether a pass pools the hopeless upper totals (``on``), whether it has moved
    reach at a level before the current one (``moved``) and at the current one
    (``moved_now``): reach pooled at a level stands at the hopeless totals of the next."""

    on: bool
    moved: bool = False
    moved_now: bool = False

    def next_level(self) -> None:
        """The current level is done: its moves count as earlier ones."""
        self.moved, self.moved_now = self.moved or self.moved_now, False


def saved_forward(
    strategy, rules: RuleSet, on_chunk, progress: bool = False, path=None, on_level=None
) -> SavedForward:
    """Push the reach of ``strategy`` (prepared, deterministic, position-only) through
    ``rules`` (a game with saved rolls), calling ``on_chunk(charges)`` with the
    :class:`LevelCharges` of every chunk of positions.

    ``on_chunk`` may offer ``checkpoint_key``, ``checkpoint_state()`` and
    ``restore_checkpoint(state)``: a pass in a file (above
    :data:`~yahtzee_sim.exact.level_file.IN_MEMORY_STATES` states, or given ``path``)
    then records its state after every level and restores it when resumed, and the pass
    pools the hopeless upper totals (:data:`POOL_HOPELESS`; a pass that finds pooling
    broken starts again unpooled with ``on_chunk`` restored to its first state).
    ``on_level(k)`` is called once level ``k``'s reach is pushed on (tests; from level 0
    again when the pass starts again).

    Raises
    ------
    ExactEvaluationError
        If the strategy chooses a box the rules do not allow in a position it reaches.
    """
    run = (strategy, rules, on_chunk, progress, on_level)
    restarts = hasattr(on_chunk, "restore_checkpoint") and hasattr(on_chunk, "checkpoint_state")
    fresh = on_chunk.checkpoint_state() if restarts else None
    pool = POOL_HOPELESS and restarts
    n = n_states(rules)
    if path is None and n <= IN_MEMORY_STATES:
        try:
            return _levels(run, _fresh_reach(n), 0, (0.0, 0), None, Pooling(pool))
        except PoolingBroken:
            on_chunk.restore_checkpoint(fresh)
            return _levels(run, _fresh_reach(n), 0, (0.0, 0), None, Pooling(False))
    key = getattr(on_chunk, "checkpoint_key", "reach")
    label = strategy_label(strategy)
    path = forward_path(rules, label, key) if path is None else Path(path)
    with cache.file_lock(path):
        store = ForwardFile(rules, label, key, path)
        try:
            out = _stored_levels(run, store, pool, restarts)
        except PoolingBroken:
            store.remove()
            if restarts:
                on_chunk.restore_checkpoint(fresh)
            store = ForwardFile(rules, label, key, path)
            out = _stored_levels(run, store, False, restarts)
        store.remove()
    return out


def _fresh_reach(n: int) -> np.ndarray:
    """The reach of a pass not yet started: the empty sheet, every other state 0."""
    reach = np.zeros(n)
    reach[0] = 1.0
    return reach


def _stored_levels(run, store: ForwardFile, pool: bool, restarts: bool) -> SavedForward:
    """:func:`_levels` in ``store``: afresh (``pool``: pool the hopeless totals), or from
    its last recorded level as the record says it ran, pooled or not (a pooled record
    that ``on_chunk`` cannot restart raises :class:`PoolingBroken`: start again)."""
    on_chunk, record = run[2], store.record
    first, done, pooling = store.reach_level(), (0.0, 0), Pooling(pool)
    if record is not None:
        done = (record["mean"], record["n_positions"])
        pooling = Pooling(record.get("pooled", False), record.get("pooled_moved", first > 0))
        if pooling.on and not restarts:
            raise PoolingBroken
        if hasattr(on_chunk, "restore_checkpoint"):
            on_chunk.restore_checkpoint(record["analysis_state"])
    return _levels(run, store.A, first, done, store, pooling)


def _levels(run, reach, first, done, store, pooling: Pooling) -> SavedForward:
    """Levels ``first`` on of :func:`saved_forward` (``run``: its arguments; ``done``: the
    mean and positions of the levels before), each recorded in ``store`` (a file, or
    ``None``), the hopeless upper totals pooled as ``pooling`` says."""
    _, rules, on_chunk, progress, on_level = run
    layout = state_layout(rules)
    by_level = levels(rules.n_boxes, rules.forced_order)[::-1]  # level k: k boxes filled
    cost = [level_size(rules, m) * int(layout.saved_count[k]) for k, m in enumerate(by_level)]
    mean, n_positions = done
    lanes = value_table(rules).lanes()
    with tqdm(total=sum(cost), disable=not progress, desc="regret", unit="state",
              unit_scale=True, leave=False) as bar:  # fmt: skip
        bar.update(sum(cost[:first]))
        for k in range(first, rules.n_boxes):
            got = _level(run, reach, k, by_level[k], (lanes, bar.update), pooling)
            mean, n_positions = mean + got[0], n_positions + got[1]
            pooling.next_level()
            if store is not None:
                state = getattr(on_chunk, "checkpoint_state", dict)()
                extra = {"mean": mean, "n_positions": n_positions, "analysis_state": state}
                store.save_level(k + 1, {**extra, "pooled": pooling.on,
                                         "pooled_moved": pooling.moved})  # fmt: skip
            if on_level is not None:
                on_level(k)
    full = layout.level_start[rules.n_boxes]
    return SavedForward(mean, float(np.sum(reach[full:])), n_positions, pooling.on)


def _level(run, reach, k: int, masks, level_run, pooling: Pooling) -> tuple[float, int]:
    """Level ``k``'s reach pushed into level ``k + 1`` and its charges given to
    ``on_chunk``; ``level_run = (lanes, advance)``: the optimal table's widget lanes, and
    the progress bar's advance by the states of each chunk; ``pooling``: whether the
    hopeless totals are pooled and some reach has been. Returns the expected points its
    turns score and the positions run."""
    strategy, rules, on_chunk = run[:3]
    lanes, advance = level_run
    n_saved = int(state_layout(rules).saved_count[k])
    width = outcome_width(rules, k)
    per_chunk = min(chunk_positions(strategy, rules), max(1, OUTCOME_BYTES // (16 * width)))
    points, reached, asked = 0.0, 0, False
    for a, b in mask_chunks(rules, masks, per_chunk):
        pos, reach_in = chunk_reach(rules, reach, k, masks[a:b])
        live = reach_in.any(axis=1)
        if live.any():
            rng = None if asked else np.random.default_rng(k)  # re-ask a sample per level
            pos, reach_in, keep, cat = chunk_decisions(strategy, rules, k, (pos, reach_in, live),
                                                       rng, pooling)  # fmt: skip
            asked = True
            charges, nxt = chunk_charges(rules, lanes, k, pos, reach_in, keep, cat)
            if not np.isfinite(charges.points).all():
                raise ExactEvaluationError(
                    f"strategy {strategy_label(strategy)!r} chooses a box the rules do not "
                    f"allow in a position it reaches under {rules.name!r}"
                )
            scatter_reach(*nxt, reach, 0)
            on_chunk(charges)
            points += float(charges.points.sum())
            reached += len(pos)
        advance(len(live) * n_saved)
    return points, reached


def chunk_reach(rules: RuleSet, reach, k: int, masks) -> tuple[np.ndarray, np.ndarray]:
    """``(pos, reach_in)``: every position of the used-masks ``masks`` of level ``k`` and
    its reach with each saved-roll count, read from the pass's ``reach``."""
    layout = state_layout(rules)
    n_saved = int(layout.saved_count[k])
    pos = level_positions(rules, masks)
    base = layout.block_offset[pos[:, 0] * rules.flag_size + pos[:, 2]] + pos[:, 1]
    step = layout.upper_count[pos[:, 0]]
    return pos, np.asarray(reach[base[:, None] + np.arange(n_saved) * step[:, None]])


def chunk_decisions(strategy, rules: RuleSet, k: int, chunk, rng, pooling: Pooling):
    """The positions of a chunk the kernel runs, their reach and the strategy's decisions
    ``(pos, reach_in, keep, cat)``, from ``chunk = (pos, reach_in, live)``: the reached
    positions, their hopeless totals pooled when ``pooling.on``
    (:func:`~yahtzee_sim.exact.hopeless_pool.pool_hopeless`)."""
    pos, reach_in, live = chunk
    ask = live
    if pooling.on:
        hopeless, ask = hopeless_rows(rules, pos, live)
    pos, reach_in = pos[ask], np.array(reach_in[ask])
    keep, cat = position_decisions(strategy, rules, pos, k, reroll_layers(rules, k), rng)
    if pooling.on:
        moved = pool_hopeless(pos, reach_in, keep, cat, hopeless[ask], pooling.moved)
        pooling.moved_now = pooling.moved_now or moved
    keep_rows = reach_in.any(axis=1)
    pos, reach_in = pos[keep_rows], np.ascontiguousarray(reach_in[keep_rows])
    return pos, reach_in, keep[keep_rows], cat[keep_rows]


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
    hopeless = upper_lanes(rules, pos[:, 0])[0]
    threads = get_threads()
    args = (kr, lanes, (layout.block_offset, layout.upper_count), pos, hopeless, groups)
    saved_level_regret(*args, reach_in, keep, cat, out, 4 * threads, threads)
    if (nxt[2] < 0).any():  # the bound on next states is the rules' own: never passed
        raise AssertionError("more next states than a position can reach")
    return charges, nxt
