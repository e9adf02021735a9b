"""The forward pass of the exact evaluator: turn outcomes level by level, reach and moments.

Level by level (number of filled boxes), for every state the strategy can reach, its
decisions at every roll (:mod:`yahtzee_sim.exact.decision_tables`) become the law of the
turn's outcome (box, points, Yahtzee bonus) through the shared keep→roll table
(:class:`LevelOutcomes`); reach probabilities and the partial moments ``E[score so far;
at s]``, ``E[score so far²; at s]`` are pushed along the outcomes, giving the exact mean
and SD, the per-box means, zero rates and average fill turn, P(upper bonus) and the
expected number of Yahtzee bonuses (:class:`ForwardStats`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yahtzee_sim._core.exact import compact_outcomes, forward_level, level_effects, turn_outcomes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.moves import box_label, position_text
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.exact.decision_tables import ROWS_PER_CHUNK, decision_tables, table_method
from yahtzee_sim.exact.exact_costs import exact_bar
from yahtzee_sim.exact.forward_file import ForwardFile, forward_path
from yahtzee_sim.exact.forward_moments import kernel_array, new_moments
from yahtzee_sim.exact.level_file import IN_MEMORY_STATES
from yahtzee_sim.exact.result import ExactEvaluationError
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import decode_state, n_states
from yahtzee_sim.solving import cache

_STATES_PER_TABLE = 1 << 15  # states per call of a strategy's decision_table()
#: States of one level whose outcomes the moments pass holds at a time.
STREAM_STATES = 1 << 17
#: Fewest states a thread of :func:`outcomes_in_threads` takes (fewer: one thread).
MIN_STATES_PER_THREAD = 64


@dataclass
class LevelOutcomes:
    """Turn outcomes of the reached states of one level, CSR by state."""

    states: np.ndarray  # (n,) state indices
    ptr: np.ndarray  # (n + 1,)
    cat: np.ndarray  # box filled
    raw: np.ndarray  # points written in it
    yb: np.ndarray  # 1 if a Yahtzee bonus is earned
    prob: np.ndarray  # P(outcome | state)
    nxt: np.ndarray  # next state
    pts: np.ndarray  # points scored, bonuses included
    ub: np.ndarray  # 1 if the upper bonus is paid


@dataclass
class ForwardStats:
    """The statistics of a forward pass (or of a score-augmented law): what an
    :class:`~yahtzee_sim.exact.result.ExactResult` is made of besides the pmf."""

    mean: float  # E[final score]
    second: float  # E[final score²]
    total: float  # probability of the full score sheets (1 up to rounding)
    cat_sum: np.ndarray  # expected points per box
    cat_zero: np.ndarray  # P(box ends with 0 points)
    cat_turn: np.ndarray  # expected turn (1-based) each box is filled
    stats: np.ndarray  # (P(upper bonus), expected Yahtzee bonuses)
    n_states: int  # turn-start states reached
    final_states: np.ndarray | None = None  # the reached full score sheets
    reach: np.ndarray | None = None  # probability of reaching each encoded state


def _chunk_states(strategy, rules: RuleSet) -> int:
    """States per chunk of :func:`level_outcomes`: per call of the strategy's
    ``decision_table``, or as many as fill one batched call."""
    if table_method(strategy) is not None:
        return _STATES_PER_TABLE
    return max(1, ROWS_PER_CHUNK // rules.tables.n_rolls)


class OutcomeBuffers:
    """The per-roll buffers of :func:`level_outcomes`, kept for every level of one pass.

    A level's chunks (32,768 states: about 100 MB) write their outcomes here before they
    are compacted; fresh buffers per level would be faulted in and zeroed by the system
    each time. The buffers grow to the largest chunk asked for.
    """

    def __init__(self) -> None:
        self._arrays: tuple[np.ndarray, ...] = ()

    def take(self, size: int, n_rolls: int) -> tuple[np.ndarray, ...]:
        """``(cat, raw, yb, prob, counts, bad)`` buffers of at least ``size`` rows (the
        first four ``n_rolls`` wide)."""
        if not self._arrays or len(self._arrays[0]) < size or self._arrays[0].shape[1] != n_rolls:
            per_roll = (
                np.empty((size, n_rolls), dtype=d) for d in (np.int8, np.int16, np.int8, float)
            )
            self._arrays = (
                *per_roll,
                np.empty(size, dtype=np.int64),
                np.empty(size, dtype=np.int64),
            )
        return self._arrays


def level_outcomes(
    strategy,
    rules: RuleSet,
    states: np.ndarray,
    turn: int,
    rng=None,
    on_decisions=None,
    buffers: OutcomeBuffers | None = None,
):
    """The :class:`LevelOutcomes` of ``states`` (all with ``turn`` boxes filled).

    ``on_decisions(turn, states_chunk, keep, cat)``, when given, sees every chunk's
    decision tables (analyses that need them, such as regret, avoid a second pass).
    ``buffers``: the pass's :class:`OutcomeBuffers` (default: new ones for this level).
    """
    t = rules.tables
    kr = kernel_rules(rules)
    n_rolls = t.n_rolls
    parts = []
    per_chunk = _chunk_states(strategy, rules)
    size = min(per_chunk, len(states))
    scratch = (OutcomeBuffers() if buffers is None else buffers).take(size, n_rolls)
    for lo in range(0, len(states), per_chunk):
        chunk = states[lo : lo + per_chunk]
        keep, cat = decision_tables(strategy, rules, chunk, turn, rng if lo == 0 else None)
        keep, cat = kernel_array(keep, np.int16), kernel_array(cat, np.int8)
        if on_decisions is not None:
            on_decisions(turn, chunk, keep, cat)
        used, upper, flag = decode_state(rules, chunk)
        m = len(chunk)
        out_cat, out_raw, out_yb, out_prob, out_n, bad = (b[:m] for b in scratch)
        outcomes_in_threads(
            kr, used, upper, flag, keep, cat, out_cat, out_raw, out_yb, out_prob, out_n, bad
        )
        if (bad >= 0).any():
            i = int(np.flatnonzero(bad >= 0)[0])
            c = int(cat[i, bad[i]])
            raise _illegal_box(strategy, rules, int(chunk[i]), int(bad[i]), c)
        k = int(out_n.sum())
        part = (np.empty(k, np.int8), np.empty(k, np.int16), np.empty(k, np.int8), np.empty(k))
        compact_outcomes(out_n, out_cat, out_raw, out_yb, out_prob, *part, 0)
        parts.append((out_n.copy(), *part))
    counts = np.concatenate([p[0] for p in parts])
    ptr = np.zeros(len(states) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    if len(parts) == 1:
        cat, raw, yb, prob = parts[0][1:]
    else:
        cat, raw, yb, prob = (np.concatenate([p[k] for p in parts]) for k in range(1, 5))
    used, upper, flag = decode_state(rules, states)
    nxt = np.empty(len(cat), dtype=np.int64)
    pts = np.empty(len(cat), dtype=np.int64)
    ub = np.empty(len(cat), dtype=np.int8)
    level_effects(kr, used, upper, flag, ptr, cat, raw, yb, nxt, pts, ub)
    return LevelOutcomes(states, ptr, cat, raw, yb, prob, nxt, pts, ub)


def outcomes_in_threads(kr, *arrays) -> None:
    """:func:`~yahtzee_sim._core.exact.turn_outcomes` of every state, the states in one
    contiguous slice per kernel thread (:func:`~yahtzee_sim.engine.threads.get_threads`),
    each slice in a thread of its own. Every array of ``arrays`` has one row per state; each state's
    outcomes do not depend on the slices, so the result is the same bit for bit."""
    n = len(arrays[0])
    threads = max(1, min(get_threads(), n // MIN_STATES_PER_THREAD))
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)

    def run(lo: int, hi: int) -> None:
        turn_outcomes(kr, *(a[lo:hi] for a in arrays))

    if threads == 1:
        run(0, n)
        return
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, bounds[:-1], bounds[1:]))


def _illegal_box(strategy, rules, state, roll, c) -> IllegalMoveError:
    name = strategy_label(strategy)
    used, upper, _ = decode_state(rules, state)
    dice = DiceTables.faces_from_counts(rules.tables.roll_counts[roll])
    turn = bin(int(used)).count("1") + 1
    label = box_label(rules, c, int(used))
    return IllegalMoveError(
        f"strategy {name!r} made an illegal box choice with "
        f"{position_text(rules, int(used), int(upper))}: dice {list(dice)}, action {label}",
        strategy=name,
        turn=turn,
        dice=dice,
        action=label,
    )


def forward_pass(
    strategy,
    rules: RuleSet,
    progress: bool = False,
    on_decisions=None,
    turns: int | None = None,
    keep_levels: bool = True,
    bar=None,
):
    """The forward pass alone, for analyses built on it (regret).

    Returns ``(levels, stats)``: the :class:`LevelOutcomes` of every level (turn
    ``t`` = ``levels[t]``; none with ``keep_levels`` False, which streams each level as
    :func:`forward_levels` does, for games whose outcomes do not fit in memory) and
    their :class:`ForwardStats` (with ``reach``, the probability of reaching each
    encoded state).
    ``strategy`` must come from :func:`~yahtzee_sim.exact.laws.prepared`.
    ``on_decisions(turn, states, keep, cat, reach)`` is called with every chunk's
    decision tables; the reach probabilities of those states are final by then.
    ``turns`` stops after that many levels (the statistics then describe the partial
    game). ``bar``, a :func:`~yahtzee_sim.exact.exact_costs.exact_bar` the caller made
    (and closes), takes the place of the pass's own.
    """
    if hasattr(strategy, "lane_play"):
        raise ExactEvaluationError(
            f"strategy {strategy_label(strategy)!r} uses the running score: its exact law comes "
            "from evaluate() (score-augmented states); analyses built on the position-only "
            "forward pass (regret) do not cover it"
        )
    return forward_levels(strategy, rules, progress, on_decisions, turns, keep_levels, bar)


def forward_levels(
    strategy,
    rules: RuleSet,
    progress: bool,
    on_decisions=None,
    turns=None,
    keep_levels=True,
    bar=None,
    path=None,
) -> tuple[list[LevelOutcomes], ForwardStats]:
    """``(levels, stats)``: the level outcomes (fullest level last; none with
    ``keep_levels`` False) and the forward statistics. The progress bar (``bar``, or one
    of its own with ``progress``) advances by each level's states
    (:func:`~yahtzee_sim.exact.exact_costs.exact_bar`).

    ``keep_levels`` False streams each level's outcomes, :data:`STREAM_STATES` states at a
    time, and keeps none (the moments only): the same additions in the same order, so
    the same statistics bit for bit, in the memory of the moments arrays. A streamed
    whole pass of a game above :data:`~yahtzee_sim.exact.level_file.IN_MEMORY_STATES`
    states, or any streamed whole pass given ``path``, keeps those arrays in a file and
    resumes from its last recorded level after a kill
    (:class:`~yahtzee_sim.exact.forward_file.ForwardFile`; ``on_decisions`` is then
    resumed too if it offers ``checkpoint_key``, ``checkpoint_state()`` and
    ``restore_checkpoint(state)``, and the pass stays in memory if it does not)."""
    where = _forward_file_place(strategy, rules, on_decisions, turns, keep_levels, path)
    if where is None:
        return _run_levels(strategy, rules, progress, on_decisions, turns, keep_levels, bar, None)
    with cache.file_lock(where[2]):
        store = ForwardFile(rules, *where)
        out = _run_levels(strategy, rules, progress, on_decisions, turns, keep_levels, bar, store)
        store.remove()
    return out


def _forward_file_place(strategy, rules, on_decisions, turns, keep_levels, path):
    """``(strategy label, analysis, path)`` of the file of a streamed whole pass that
    needs one (see :func:`forward_levels`), else ``None``."""
    if keep_levels or turns is not None:
        return None
    if path is None and n_states(rules) <= IN_MEMORY_STATES:
        return None
    analysis = "moments" if on_decisions is None else getattr(on_decisions, "checkpoint_key", None)
    if analysis is None:
        return None
    label = strategy_label(strategy)
    return label, analysis, forward_path(rules, label, analysis) if path is None else Path(path)


def _run_levels(strategy, rules, progress, on_decisions, turns, keep_levels, bar, store):
    """The pass of :func:`forward_levels`, from ``store``'s last recorded level if any."""
    C = rules.n_boxes
    size = n_states(rules)
    rng = np.random.default_rng(20061)  # fixed: the position-only check is reproducible
    if store is None:
        acc, first, states, n_reached = new_moments(size, C), 0, np.zeros(1, np.int64), 0
    else:
        acc, first, states, n_reached = store.moments(C)
        if store.record is not None:
            rng.bit_generator.state = store.record["rng"]
            if on_decisions is not None:
                on_decisions.restore_checkpoint(store.record["analysis_state"])
    levels = []
    own_bar = bar is None
    if own_bar:
        bar = exact_bar(rules, progress, leave=False)
    for turn in range(first):  # resumed: the recorded levels are not ahead
        bar.drop(f"forward {turn}")
    hook = None
    if on_decisions is not None:

        def hook(turn, chunk, keep, cat):
            on_decisions(turn, chunk, keep, cat, acc.A)

    buffers = OutcomeBuffers()
    for turn in range(first, C if turns is None else min(turns, C)):
        n_reached += len(states)
        if not keep_levels:
            states = _stream_level(strategy, rules, states, turn, rng, hook, acc, buffers)
            if store is not None:
                store.save(turn + 1, acc, states, n_reached, _resume_state(rng, on_decisions))
            _level_done(bar, turn)
            continue
        lv = level_outcomes(strategy, rules, states, turn, rng, hook, buffers)
        forward_level(
            states, lv.ptr, lv.cat, lv.raw, lv.yb, lv.nxt, lv.pts, lv.ub, lv.prob, turn, acc
        )
        levels.append(lv)
        states = unique_states(lv.nxt, size)
        _level_done(bar, turn)
    if own_bar:
        bar.close()
    return levels, _stats(acc, states, n_reached)


def _resume_state(rng, on_decisions) -> dict:
    """What a resumed pass needs besides the arrays (JSON-ready)."""
    analysis = None if on_decisions is None else on_decisions.checkpoint_state()
    return {"rng": rng.bit_generator.state, "analysis_state": analysis}


def _stats(acc, states: np.ndarray, n_reached: int) -> ForwardStats:
    """The :class:`ForwardStats` of a pass that ended on ``states``."""
    return ForwardStats(
        mean=float(acc.B[states].sum()),
        second=float(acc.S2[states].sum()),
        total=float(acc.A[states].sum()),
        cat_sum=acc.cat_sum,
        cat_zero=acc.cat_zero,
        cat_turn=acc.cat_turn,
        stats=acc.stats,
        n_states=n_reached,
        final_states=states,
        reach=acc.A,
    )


def _level_done(bar, turn: int) -> None:
    """Level ``turn`` of the forward pass done."""
    bar.step(f"forward {turn}")


def _stream_level(
    strategy, rules: RuleSet, states, turn: int, rng, hook, acc, buffers: OutcomeBuffers
) -> np.ndarray:
    """Push one level forward a block of states at a time; returns the next level's
    reached states (increasing)."""
    seen = np.zeros(len(acc.A), dtype=np.bool_)
    # whole chunks of level_outcomes per block: a hook sees the chunks it sees unstreamed
    chunk = _chunk_states(strategy, rules)
    step = max(1, STREAM_STATES // chunk) * chunk
    for lo in range(0, len(states), step):
        block = states[lo : lo + step]
        lv = level_outcomes(strategy, rules, block, turn, rng if lo == 0 else None, hook, buffers)
        forward_level(
            block, lv.ptr, lv.cat, lv.raw, lv.yb, lv.nxt, lv.pts, lv.ub, lv.prob, turn, acc
        )
        seen[lv.nxt] = True
    return np.flatnonzero(seen)


def unique_states(nxt: np.ndarray, size: int) -> np.ndarray:
    """The distinct state indices of ``nxt`` (all below ``size``), in increasing order."""
    seen = np.zeros(size, dtype=np.bool_)
    seen[nxt] = True
    return np.flatnonzero(seen)
