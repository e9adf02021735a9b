"""Backward induction: the optimal (max-expectation) value of every turn-start state.

Levels of equal used-count are independent given the level above, so each
level's states are solved in parallel (OpenMP threads of the compiled core). See
:mod:`yahtzee_sim._core.widget` for the per-state computation.
"""

from __future__ import annotations

import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from yahtzee_sim._core.decisions import fill_lanes
from yahtzee_sim._core.solve import solve_level
from yahtzee_sim._core.upper_lane_fill import upper_lane_chunks, upper_lane_decisions
from yahtzee_sim._kernels.lanes import LANES_UPPER, Lanes, compact_upper_lanes, upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import (
    compact_states,
    decode_state,
    encode_state,
    n_states,
    state_layout,
    upper_total_lanes_of,
)
from yahtzee_sim.solving import cache, shipped
from yahtzee_sim.solving import levels as level_files
from yahtzee_sim.solving.levels import levels, upper_lanes


@dataclass(eq=False)
class ValueTable:
    """Expected score-to-go of every turn-start state under optimal play.

    ``values[state_index]`` (see :mod:`yahtzee_sim.game.state`) is the expected
    number of points still to be scored from the start of a turn in that state
    (bonuses included). Entries of unreachable states are 0. In games with saved rolls
    only the states that can occur are indexed (:class:`~yahtzee_sim.game.state.StateLayout`)
    and a cached table is memory-mapped from its file: read where needed, never loaded
    whole.
    """

    rules: RuleSet
    values: np.ndarray
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    def expected_value(self) -> float:
        """Optimal expected final score from the start of a game."""
        return float(self.values[0])

    def value(self, used: int = 0, upper: int = 0, flag: int = 0, saved: int = 0) -> float:
        """Expected points still to come from the turn-start state ``(used, upper, flag)``
        with ``saved`` saved rolls (games with saved rolls)."""
        return float(self.values[encode_state(self.rules, used, upper, flag, saved)])

    def lanes(self) -> Lanes:
        """The widget lanes reading this table (max-EV over upper totals)."""
        if compact_states(self.rules):
            return compact_upper_lanes(self.values, state_layout(self.rules))
        return upper_total_lanes(self.values)

    def decision_table(self, rules: RuleSet, states: np.ndarray):
        """Max-EV play's decisions at every roll of ``states`` (a game without saved
        rolls): :func:`max_ev_decisions` against this table, the protocol by which the
        exact evaluator asks for them
        (:func:`yahtzee_sim.exact.decision_tables.decision_tables`)."""
        values = np.ascontiguousarray(self.values, dtype=np.float64)
        return max_ev_decisions(rules, upper_total_lanes(values), states)

    @property
    def n_states(self) -> int:
        """Number of encoded states."""
        return len(self.values)

    def state(self, index: int) -> tuple[int, int, int]:
        """``(used, upper, flag)`` of a state index."""
        return decode_state(self.rules, index)


def solve(rules: str | RuleSet = "yahtzee", progress: bool = False) -> ValueTable:
    """Solve ``rules`` by backward induction (no cache; see :func:`value_table`);
    ``progress`` shows a bar over the widget lanes of the levels (:func:`level_lanes`)."""
    rules = get_rules(rules)
    t0 = time.perf_counter()
    if compact_states(rules):
        V = level_files.solve_in_memory(rules, progress)
    else:
        V = np.zeros(n_states(rules))
        backward(rules, upper_total_lanes(V), progress)
    return ValueTable(rules, V, seconds=time.perf_counter() - t0)


def fill_decisions(
    rules: RuleSet, lanes: Lanes, used, upper, flag, rows, keep, cat, parallel: bool = True
) -> None:
    """The decisions that play max-EV against ``lanes`` (a value table's, or a heuristic's
    estimates) at the turn-start states ``(used, upper, flag)`` (sorted by index), into
    ``keep[rows[i]]`` and ``cat[rows[i]]``. Max-EV lanes of a game without saved rolls or
    forced order: the states as the lanes of few widget runs, whatever their used-masks
    (:func:`~yahtzee_sim._core.upper_lane_fill.upper_lane_decisions`, or with ``parallel``
    False its serial chunks in threads of this process, the same decisions); otherwise
    (saved rolls, forced order, exponential lanes) one widget run per ``(used, flag)`` over
    the span of its upper totals."""
    if lanes.kind == LANES_UPPER and batched_fill(rules):
        args = (
            kernel_rules(rules),
            lanes,
            np.ascontiguousarray(used, dtype=np.int64),
            np.ascontiguousarray(upper, dtype=np.int64),
            np.ascontiguousarray(flag, dtype=np.int64),
            np.ascontiguousarray(rows, dtype=np.int64),
            keep,
            cat,
        )
        if parallel:
            upper_lane_decisions(*args, get_threads())
        else:
            _chunks_in_threads(upper_lane_chunks, args)
        return
    first, lo, nu, row0, lane = upper_total_lanes_of(used, upper, flag)
    lane_row = np.full(int(nu.sum()), -1, dtype=np.int64)
    lane_row[lane] = rows
    fill_lanes(
        kernel_rules(rules),
        lanes,
        np.asarray(used, dtype=np.int64)[first],
        lo,
        np.asarray(flag, dtype=np.int64)[first],
        lo,
        nu,
        row0,
        lane_row,
        keep,
        cat,
        get_threads(),
    )


def batched_fill(rules: RuleSet) -> bool:
    """Whether :func:`fill_decisions` of max-EV lanes runs the states as the lanes of few
    widget runs (games without saved rolls or forced order)."""
    return rules.saved_size == 1 and not compact_states(rules) and not rules.forced_order


def _chunks_in_threads(kernel, args: tuple) -> None:
    """``kernel(*args, first, step)`` for ``first = 0 .. step - 1`` in ``step`` threads,
    the calling thread's count (the kernel releases the GIL; each call writes its own
    chunks)."""
    step = get_threads()
    if step == 1:
        kernel(*args, 0, 1)
        return
    with ThreadPoolExecutor(step) as pool:
        list(pool.map(lambda first: kernel(*args, first, step), range(step)))


def max_ev_decisions(rules: RuleSet, lanes: Lanes, states: np.ndarray):
    """``(keep, cat)``: the decisions that play max-EV against ``lanes`` at every roll of
    the turn-start states ``states`` of a game without saved rolls, as the exact evaluator
    takes them (:func:`yahtzee_sim.exact.decision_tables.decision_tables`): ``keep[i, j - 1, r]``
    with ``j`` rerolls left, ``cat[i, r]`` the box of final roll ``r``."""
    states = np.asarray(states, dtype=np.int64)
    rows = np.arange(len(states), dtype=np.int64)
    if np.any(states[1:] < states[:-1]):
        rows = np.argsort(states, kind="stable")
        states = states[rows]
    keep = np.zeros((len(states), max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls), np.int16)
    cat = np.empty((len(states), 1, rules.tables.n_rolls), dtype=np.int8)
    fill_decisions(rules, lanes, *decode_state(rules, states), rows, keep, cat)
    return keep, cat[:, 0]


def backward(rules: RuleSet, lanes, progress: bool = False) -> None:
    """Fill ``lanes.values`` (lanes over upper totals: max-EV or exponential utility)
    level by level from the full score sheets, whose entries must be set; ``progress``
    shows a bar over the widget lanes of the levels (:func:`solve_bar`)."""
    kr = kernel_rules(rules)
    threads = get_threads()
    with solve_bar(rules, progress) as bar:
        for k, masks in enumerate(levels(rules.n_boxes, rules.forced_order)):
            u_start, n_upper = upper_lanes(rules, masks)
            solve_level(kr, lanes, lanes.values, 0, masks, u_start, n_upper, threads)
            bar.step(f"level {k}")


def level_lanes(rules: RuleSet) -> list[int]:
    """The widget lanes of each level of a solve of ``rules``, fullest first (the order
    the solve takes them): one per used-mask, upper total worth solving
    (:func:`~yahtzee_sim.solving.levels.upper_lanes`) and Yahtzee flag, times the rolls
    a turn can save on games with saved rolls. The unit of work of a solve's progress."""
    saved = max(int(rules.saved_size), 1)
    out = []
    for masks in levels(rules.n_boxes, rules.forced_order):
        _, n_upper = upper_lanes(rules, masks)
        flags = np.ones(len(masks), dtype=np.int64)
        if rules.yahtzee_index is not None and rules.flag_size > 1:
            flags = np.where((masks >> rules.yahtzee_index) & 1, rules.flag_size, 1)
        out.append(int((n_upper * flags).sum()) * saved)
    return out


def solve_bar(rules: RuleSet, progress: bool, **options) -> WeightedBar:
    """The bar of a solve of ``rules``: step ``"level k"`` for each level ``k`` (fullest
    first), each weighed by its widget lanes (:func:`level_lanes`); ``options`` go to
    tqdm."""
    weights = {f"level {k}": n for k, n in enumerate(level_lanes(rules))}
    options.setdefault("desc", "solve")
    return WeightedBar(weights, dict.fromkeys(weights, 1), disable=not progress, **options)


#: Optimal value tables by rule fingerprint (:class:`~yahtzee_sim.solving.cache.TableCache`).
TABLES = cache.table_cache("values", max_entries=16)
#: The tables in memory (tests and benchmarks drop entries to force a reload).
_MEMORY = TABLES.memory


def value_table(
    rules: str | RuleSet = "yahtzee",
    use_cache: bool = True,
    progress: bool = False,
    client=None,
) -> ValueTable:
    """The optimal value table of ``rules``: from memory, the disk cache, the package
    (the tables that ship, :mod:`yahtzee_sim.solving.shipped`), or solved.

    A solved or shipped table is written to the cache folder
    (:func:`yahtzee_sim.solving.cache.cache_dir`). ``meta["source"]`` says where it came
    from (``cache``, ``shipped`` or ``solved``). ``use_cache=False`` solves, whatever is
    stored or shipped.

    Games with saved rolls are solved level by level into the table's file
    (:func:`yahtzee_sim.solving.levels.solve_to_file`: out of core, resumed after a
    kill; ``progress`` shows a bar; ``client``, a ``dask.distributed`` client, spreads
    each level over its workers) and the file is memory-mapped; ``meta`` then also holds
    the solve's ``peak_rss_bytes``, ``solved_levels`` and ``resumed_levels``.
    """
    rules = get_rules(rules)
    if compact_states(rules):
        return _level_table(rules, use_cache, progress, client)

    def restore(read):
        got = read(n_states(rules))
        return None if got is None else ValueTable(rules, got[0])

    def shipped_or_solved() -> ValueTable:
        table = _shipped_table(rules) if use_cache else None
        return solve(rules, progress) if table is None else table

    return TABLES.get(
        TABLES.key(rules),
        solve=shipped_or_solved,
        arrays=lambda table: [table.values],
        restore=restore,
        use_cache=use_cache,
    )


def _shipped_table(rules: RuleSet) -> ValueTable | None:
    """The table shipped with the package (:mod:`yahtzee_sim.solving.shipped`), or
    ``None``; ``meta["source"]`` is ``shipped``."""
    t0 = time.perf_counter()
    values = shipped.shipped_values(rules)
    if values is None:
        return None
    return ValueTable(rules, values, time.perf_counter() - t0, {"source": "shipped"})


def table_lanes(rules: str | RuleSet = "yahtzee") -> int:
    """The work of :func:`value_table` of ``rules`` in widget lanes (:func:`level_lanes`):
    none when the table is in memory, on disk or shipped (it is read), else a solve's."""
    rules = get_rules(rules)
    return 0 if table_stored(rules) else sum(level_lanes(rules))


def table_stored(rules: str | RuleSet = "yahtzee", in_memory: bool = True) -> bool:
    """Whether :func:`value_table` of ``rules`` needs no solve: the table is in this
    process's memory (unless ``in_memory`` is false: then only what another process can
    read counts), its files are in the cache folder, or it ships with the package."""
    rules = get_rules(rules)
    key = TABLES.key(rules)
    if in_memory and key in TABLES.memory:
        return True
    if all(path.exists() for path in TABLES.paths(key)):
        return True
    return not compact_states(rules) and shipped.ships(rules)


def _level_table(rules: RuleSet, use_cache: bool, progress: bool, client) -> ValueTable:
    """:func:`value_table` of a game with saved rolls (one memory-mapped file)."""
    if not use_cache:
        table = solve(rules)
        table.meta["source"] = "solved"
        return table
    key = TABLES.key(rules)
    path = TABLES.paths(key)[0]
    with TABLES.lock:
        if key in TABLES.memory:
            TABLES.memory.move_to_end(key)
            return TABLES.memory[key]
        meta: dict = {}
        with cache.file_lock(path):  # another process may be solving
            t0 = time.perf_counter()
            if path.exists():
                try:
                    level_files.open_table_file(rules, path)
                except level_files.TableFileError as exc:  # damaged since: solve again
                    warnings.warn(f"{exc}; solving it again", cache.CacheWarning, stacklevel=3)
                    path.unlink()
            if not path.exists():
                report = level_files.solve_to_file(rules, path, progress=progress, client=client)
                meta = {
                    "source": "solved",
                    "peak_rss_bytes": report.peak_rss_bytes,
                    "solved_levels": report.solved_levels,
                    "resumed_levels": report.resumed_levels,
                }
            values = level_files.open_table_file(rules, path)
        seconds = time.perf_counter() - t0
        table = ValueTable(rules, values, seconds=seconds, meta={"source": "cache", **meta})
        table.meta["path"] = str(path)
        TABLES.put(key, table)
        return table
