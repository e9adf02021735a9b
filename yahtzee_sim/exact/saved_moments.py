"""Exact mean and SD of a deterministic strategy on a game with saved rolls.

A backward pass over the levels of the solver's compact state layout
(:class:`~yahtzee_sim.game.state.StateLayout`), fullest level first, as the solve runs
(:mod:`yahtzee_sim.solving.levels`): for every turn-start state it computes the first
and second moments of the points still to come, ``E[R]`` and ``E[R²]``, under the
strategy's decisions; the empty sheet's moments give the mean and SD of the final score.

The strategy is asked in batches — every roll of a chunk of positions ``(used, upper,
flag)`` in one :class:`~yahtzee_sim.engine.view.TurnView` per number of rerolls left, and
one per number of rolls the turn leaves saved at its box choice — or, when it has a
compiled decision fill (``saved_decision_table``: ``greedy``), fills the chunk's decisions
in one call. A view shows the rerolls
left, not the saved rolls a turn started with, so one keep decision per rerolls left
serves every saved-roll count; keeping every die stops the rolling and saves the rolls
left (at most the cap), as in the engine. The moments of a position with every saved-roll
count come out of one kernel run (:mod:`yahtzee_sim._core.saved_moments`).

A level's moments are computed from those of the levels above it only: small games keep
every state's moments in memory, larger ones in a memory-mapped file in the cache folder,
level by level, resumed after a kill (:mod:`yahtzee_sim.exact.moments_file`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._core.saved_moments import hopeless_lanes_equal, saved_moments_level
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.decide import decide
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.exact.decision_tables import (
    ROWS_PER_CHUNK,
    box_indices,
    keep_indices,
    table_method,
)
from yahtzee_sim.exact.forward_moments import kernel_array
from yahtzee_sim.exact.level_file import IN_MEMORY_STATES
from yahtzee_sim.exact.moments_file import MomentsFile, moments_path
from yahtzee_sim.exact.result import ExactEvaluationError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import filled_counts, known_box_scores, state_layout
from yahtzee_sim.solving import cache
from yahtzee_sim.solving.levels import levels, upper_lanes

#: Rows per decision point asked again, once per level, by the position-only check.
CHECK_ROWS = 256
#: Positions per chunk of a strategy with a compiled decision fill (its decisions take
#: about 1 kB a position; fewer, larger chunks spend less time between them).
FILL_CHUNK = 1 << 14


@dataclass(frozen=True)
class SavedMoments:
    """The moments of the final score of a strategy on a game with saved rolls.

    Attributes
    ----------
    mean : float
        ``E[score]``.
    second : float
        ``E[score²]``.
    n_states : int
        Turn-start states valued (every state of the compact layout whose flag is
        possible).
    """

    mean: float
    second: float
    n_states: int


def level_positions(rules: RuleSet, masks: np.ndarray) -> np.ndarray:
    """``(m, 3)`` int64 positions ``(used, upper, flag)`` of the used-masks ``masks``:
    every upper total the layout holds for a mask, Yahtzee flags above 0 only where the
    Yahtzee box is filled."""
    layout = state_layout(rules)
    parts = []
    for flag in range(rules.flag_size):
        m = masks
        if flag > 0:
            m = masks[((masks >> rules.yahtzee_index) & 1).astype(bool)]
        count = layout.upper_count[m]
        used = np.repeat(m, count)
        upper = np.arange(len(used)) - np.repeat(np.cumsum(count) - count, count)
        parts.append(np.stack([used, upper, np.full(len(used), flag)], axis=1))
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.int64)


def reroll_layers(rules: RuleSet, k: int) -> int:
    """Most rerolls a turn with ``k`` boxes filled can have: the turn's own rerolls and the
    most rolls it can start with saved (the decision layers of its keeps)."""
    return rules.rolls_per_turn - 1 + int(state_layout(rules).saved_count[k]) - 1


def bank_count(rules: RuleSet, n_layers: int) -> int:
    """Saved-roll counts a turn with ``n_layers`` rerolls can leave: a stop with ``j``
    rerolls left saves ``min(j, cap)``."""
    return min(n_layers, rules.saved_roll_cap) + 1


def position_decisions(
    strategy, rules: RuleSet, pos: np.ndarray, turn: int, n_layers: int, rng=None
):
    """The strategy's decisions at every roll of positions ``pos`` (one level).

    Returns ``(keep, cat)``: ``keep[i, j - 1, r]`` (int16) the keep index at roll ``r``
    with ``j = 1 .. n_layers`` rerolls left; ``cat[i, b, r]`` (int8, -1 out of range) the
    box of final roll ``r`` when the turn leaves ``b = 0 .. min(n_layers, cap)`` rolls
    saved. With ``rng`` a sample of rows is asked again with other scores, box contents,
    game numbers and strategy key; a changed decision is an error.

    A strategy with a compiled decision fill gives both arrays itself through
    ``saved_decision_table(rules, pos, n_layers, n_banks)`` (the same decisions as its
    batched ``keep``/``box`` would give, in one call; ``None`` to be asked instead). Its
    arrays may hold fewer layers or banks (``keep.shape[1] < n_layers``, ``cat.shape[1] <
    n_banks``): the last row then serves those past it, as in the moments kernel
    (:mod:`yahtzee_sim._core.saved_moments`).
    """
    n_banks = bank_count(rules, n_layers)
    fast = table_method(strategy, "saved_decision_table")
    if fast is not None:  # a compiled fill: the decisions of the whole chunk at once
        got = fast(rules, pos, n_layers, n_banks)
        if got is not None:
            return got
    t = rules.tables
    n_rolls = t.n_rolls
    rolls = np.tile(np.arange(n_rolls, dtype=np.int32), len(pos))
    used, upper, flag = (np.repeat(pos[:, c], n_rolls) for c in range(3))
    scores = np.repeat(known_box_scores(rules, pos[:, 2]), n_rolls, axis=0)
    m = len(rolls)
    games, zero = np.arange(m, dtype=np.int64), np.zeros(m, dtype=np.int64)

    def view(rolls_left: int, bank: int, rows=slice(None), noise=None) -> TurnView:
        score, box_scores, ids, key = zero[rows], scores[rows], games[rows], (1, 2)
        if noise is not None:
            score, box_scores, ids, key = noise
        return TurnView(
            rules, ids, t.roll_counts[rolls[rows]], rolls[rows], rolls_left, turn, used[rows],
            upper[rows], flag[rows], score, box_scores, tuple(np.uint64(k) for k in key),
            saved_rolls=np.full(len(ids), bank, dtype=np.int64),
        )  # fmt: skip

    def ask(rolls_left: int, bank: int = 0) -> np.ndarray:
        v = view(rolls_left, bank)
        pick = keep_indices if rolls_left else box_indices
        got = pick(strategy, rules, v, decide(strategy, v))
        if rng is not None:
            rows = np.sort(rng.choice(m, size=min(m, CHECK_ROWS), replace=False))
            noise = _noise(rules, used[rows], scores[rows], rng)
            again = view(rolls_left, bank, rows, noise)
            if not np.array_equal(pick(strategy, rules, again, decide(strategy, again)), got[rows]):
                raise ExactEvaluationError(
                    f"strategy {strategy_label(strategy)!r} made different decisions in the "
                    "same position when the score, the box contents or the game number "
                    "changed: exact evaluation needs decisions that depend on the position "
                    "only (state, dice, rolls left); use simulate() instead"
                )
        return got.reshape(len(pos), n_rolls)

    keep = np.empty((len(pos), n_layers, n_rolls), dtype=np.int16)
    for j in range(1, n_layers + 1):
        keep[:, j - 1] = ask(j)
    cat = np.empty((len(pos), n_banks, n_rolls), dtype=np.int8)
    for b in range(n_banks):
        cat[:, b] = ask(0, b)
    return keep, cat


def _noise(rules: RuleSet, used: np.ndarray, scores: np.ndarray, rng):
    """Other running scores, contents of the filled boxes (the Yahtzee box's, part of the
    state, kept), game numbers and strategy key for the rows of ``used``."""
    tops = np.maximum(rules.tables.score_table.max(axis=0), 1).astype(np.int64)
    filled = (used[:, None] >> np.arange(rules.n_boxes)) & 1
    noise = rng.integers(0, tops + 1, size=scores.shape).astype(np.int16)
    free = np.ones(rules.n_boxes, dtype=bool)
    if rules.yahtzee_index is not None and rules.has_yahtzee_flag:
        free[rules.yahtzee_index] = False
    out = scores.copy()
    out[:, free] = np.where(filled[:, free] == 1, noise[:, free], 0)
    ids = rng.integers(0, 2**40, size=len(used))
    key = tuple(int(k) for k in rng.integers(0, 2**62, size=2))
    return rng.integers(0, 400, size=len(used)), out, ids, key


def position_span(rules: RuleSet, pos: np.ndarray, n_saved: int) -> tuple[int, int]:
    """The state indices ``lo .. hi - 1`` spanned by the states of positions ``pos`` with
    ``0 .. n_saved - 1`` saved rolls (a whole level, or under forced order its one
    used-mask's block)."""
    layout = state_layout(rules)
    base = layout.block_offset[pos[:, 0] * rules.flag_size + pos[:, 2]] + pos[:, 1]
    top = base + (n_saved - 1) * layout.upper_count[pos[:, 0]]
    return int(base.min()), int(top.max()) + 1


def level_pass(
    strategy, rules: RuleSet, masks: np.ndarray, above, out, first: int, shared=False,
    on_chunk=None,
) -> int:  # fmt: skip
    """The moments ``out = (E[R], E[R²])`` of the states of one level (used-masks
    ``masks``; entry ``i`` is state ``first + i``) from those of the levels above it,
    ``above`` (entry ``i`` is the state just past the level plus ``i``), in chunks of
    whole used-masks.

    ``shared``: the level above holds equal moments in every mask's hopeless lanes
    (:func:`hopeless_lanes_equal`), so a hopeless lane with its mask's lane-0 decisions
    takes lane 0's moments (the same bits). ``on_chunk(n)`` is called once the ``n``
    positions of a chunk are valued. Returns the positions computed (the rest copied).
    """
    layout = state_layout(rules)
    kr = kernel_rules(rules)
    k = int(filled_counts(rules.n_boxes)[masks[0]])
    n_saved = int(layout.saved_count[k])
    n_layers = reroll_layers(rules, k)
    stop = int(layout.level_start[k + 1])
    above1, above2 = (np.asarray(a) for a in above)
    computed = 0
    for a, b in mask_chunks(rules, masks, chunk_positions(strategy, rules)):
        chunk = level_positions(rules, masks[a:b])
        rng = np.random.default_rng(k) if a == 0 else None  # re-ask a sample per level
        keep, cat = position_decisions(strategy, rules, chunk, k, n_layers, rng)
        share = upper_lanes(rules, chunk[:, 0])[0] if shared else np.full(len(chunk), -1)
        computed += saved_moments_level(
            kr, layout.block_offset, layout.upper_count, chunk, n_saved,
            kernel_array(keep, np.int16), kernel_array(cat, np.int8), share,
            above1, above2, stop, out[0], out[1], first, get_threads(),
        )  # fmt: skip
        if on_chunk is not None:
            on_chunk(len(chunk))
    return computed


def chunk_positions(strategy, rules: RuleSet) -> int:
    """Positions per chunk of a level pass: as many as fill one batched call of the
    strategy, or :data:`FILL_CHUNK` with a compiled decision fill."""
    if table_method(strategy, "saved_decision_table") is not None:
        return FILL_CHUNK
    return max(1, ROWS_PER_CHUNK // rules.tables.n_rolls)


def mask_chunks(rules: RuleSet, masks: np.ndarray, per_chunk: int) -> list[tuple[int, int]]:
    """``(a, b)`` pairs cutting ``masks`` (one level) into chunks of whole used-masks of
    about ``per_chunk`` positions each (flags aside)."""
    cum = np.cumsum(state_layout(rules).upper_count[masks])
    ends = np.searchsorted(cum, np.arange(per_chunk, cum[-1], per_chunk)) + 1
    edges = np.unique(np.concatenate(([0], np.minimum(ends, len(masks)), [len(masks)])))
    return list(pairwise(edges.tolist()))


def hopeless_shared(rules: RuleSet, masks: np.ndarray, values) -> bool:
    """Whether the states of used-masks ``masks`` (one level; ``values = (m1, m2)`` from
    the level's first state on) hold equal moments in every block's hopeless lanes
    (upper totals ``0 .. u_start``, :func:`yahtzee_sim.solving.levels.upper_lanes`)."""
    layout = state_layout(rules)
    k = int(filled_counts(rules.n_boxes)[masks[0]])
    flags = np.ones(len(masks), dtype=np.int64)
    if rules.flag_size > 1:
        flags = np.where((masks >> rules.yahtzee_index) & 1, rules.flag_size, 1)
    return hopeless_lanes_equal(
        *(np.asarray(v) for v in values), layout.block_offset, layout.upper_count,
        rules.flag_size, masks, upper_lanes(rules, masks)[0], flags,
        int(layout.saved_count[k]), int(layout.level_start[k]), get_threads(),
    )  # fmt: skip


class MemoryMoments:
    """The moments of every state in memory, with the interface of
    :class:`~yahtzee_sim.exact.moments_file.MomentsFile` (nothing is resumed or kept)."""

    def __init__(self, layout) -> None:
        n = int(layout.level_start[-1])
        self.m1, self.m2 = np.zeros(n), np.zeros(n)

    def done(self, k: int) -> bool:
        """Never: nothing is resumed from memory."""
        return False

    def record(self, k: int, lo: int, out1: np.ndarray, out2: np.ndarray) -> None:
        """Keep level ``k``'s moments (states ``lo`` on)."""
        self.m1[lo : lo + len(out1)], self.m2[lo : lo + len(out2)] = out1, out2

    def remove(self) -> None:
        """Nothing to delete."""


def saved_moments(
    strategy, rules: RuleSet, progress: bool = False, path=None, on_level=None
) -> SavedMoments:
    """The exact mean and second moment of the final score of ``strategy`` (prepared,
    deterministic, position-only) on ``rules`` (a game with saved rolls).

    The moments of every state are held in memory up to
    :data:`~yahtzee_sim.exact.level_file.IN_MEMORY_STATES` states;
    larger games, or any game given ``path``, keep them in a file, level by level
    (:class:`~yahtzee_sim.exact.moments_file.MomentsFile`: in the cache folder by
    default; a killed pass resumes from its last recorded level; the file is deleted at
    the end). ``on_level(k)`` is called once level ``k`` is recorded (tests).

    Raises
    ------
    ExactEvaluationError
        If the strategy chooses an illegal box in a position it reaches.
    IllegalMoveError
        If it keeps dice the roll does not hold.
    """
    layout = state_layout(rules)
    n = int(layout.level_start[-1])
    label = strategy_label(strategy)
    if path is None and n <= IN_MEMORY_STATES:
        return _pass(strategy, rules, MemoryMoments(layout), progress, on_level)
    path = moments_path(rules, label) if path is None else Path(path)
    with cache.file_lock(path):
        return _pass(strategy, rules, MomentsFile(rules, label, path), progress, on_level)


def _pass(strategy, rules: RuleSet, store, progress: bool, on_level) -> SavedMoments:
    """The levels not recorded in ``store``, fullest first; then the start state's moments.

    The progress bar counts positions (on ``maxi-yatzy`` a position costs about the same
    at every level: the levels with more rerolls have more hopeless lanes copied),
    resumed levels counted as done."""
    layout = state_layout(rules)
    todo = levels(rules.n_boxes, rules.forced_order)
    work = [level_size(rules, m) for m in todo]
    valued = 0
    above_masks = np.array([(1 << rules.n_boxes) - 1], dtype=np.int64)  # the full sheet
    with _bar(sum(work), progress) as bar:
        for masks, cost in zip(todo, work, strict=True):
            k = int(filled_counts(rules.n_boxes)[masks[0]])
            valued += level_size(rules, masks) * int(layout.saved_count[k])
            if store.done(k):
                bar.update(cost)
            else:
                _level(strategy, rules, store, masks, above_masks, bar)
                if on_level is not None:
                    on_level(k)
            above_masks = masks
    mean, second = float(store.m1[0]), float(store.m2[0])
    store.remove()
    if not (np.isfinite(mean) and np.isfinite(second)):
        raise ExactEvaluationError(
            f"strategy {strategy_label(strategy)!r} chooses a box the rules do not allow "
            f"in a position it reaches under {rules.name!r}"
        )
    return SavedMoments(mean, second, valued)


def _level(strategy, rules: RuleSet, store, masks, above_masks, bar) -> None:
    """One level's moments (used-masks ``masks``; the level above has ``above_masks``),
    recorded in ``store``; ``bar`` advanced chunk by chunk."""
    layout = state_layout(rules)
    k = int(filled_counts(rules.n_boxes)[masks[0]])
    pos = level_positions(rules, masks)
    lo, hi = position_span(rules, pos, int(layout.saved_count[k]))
    stop = int(layout.level_start[k + 1])
    above = (store.m1[stop:], store.m2[stop:])
    shared = hopeless_shared(rules, above_masks, above)
    out = (np.zeros(hi - lo), np.zeros(hi - lo))
    level_pass(strategy, rules, masks, above, out, lo, shared, bar.update)
    store.record(k, lo, *out)


def level_size(rules: RuleSet, masks: np.ndarray) -> int:
    """The number of positions of used-masks ``masks`` (:func:`level_positions`)."""
    count = state_layout(rules).upper_count[masks]
    flags = np.ones(len(masks), dtype=np.int64)
    if rules.flag_size > 1:
        flags = np.where((masks >> rules.yahtzee_index) & 1, rules.flag_size, 1)
    return int((count * flags).sum())


def _bar(total: int, progress: bool):
    """A progress bar over ``total`` positions."""
    return tqdm(
        total=total, disable=not progress, desc="moments", unit="pos", unit_scale=True,
        bar_format="{l_bar}{bar}| {percentage:3.0f}% [{elapsed}<{remaining}]",
    )  # fmt: skip
