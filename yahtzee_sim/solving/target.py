"""Target-score optimal play: the largest probability of reaching a final score β.

One backward pass (Tillius 2026 §4, "Rekord-Yatzy"; Glenn 2006 §8) gives, for every
turn-start state and every number of points still needed ``t``, the maximum
probability of scoring at least ``t`` more — hence the curve ``P*(final >= β)``
from the start **for every β at once**, and the decisions of the strategy
``target:β`` (see :class:`yahtzee_sim.strategies.TargetScore`).

Rows stop at each state's largest remaining score, and upper totals from which the
bonus is out of reach share one row (as in the max-EV solver), so the whole table for
official Yahtzee has about 2.4e8 entries (1.9 GB). ``max_beta`` caps the lanes: the
table is then exact for every β <= max_beta and smaller.

This module is the *solver* and its table; the strategy that plays from the table is
:mod:`yahtzee_sim.strategies.target` (``target:β``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._core.decisions import fill_states
from yahtzee_sim._core.solve import solve_need_level
from yahtzee_sim._kernels.lanes import points_needed_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.errors import TargetError
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import encode_state, flag_size, max_points_to_come, n_states
from yahtzee_sim.solving import cache
from yahtzee_sim.solving.levels import levels, upper_lanes
from yahtzee_sim.validation import Integer, Real, check

#: Target-score play takes games without saved rolls.
TARGET_PLAY = Feature("target-score play", FIXED_ROLLS)

#: Lanes of t per widget call. Measured on the 2-core machine (win:N utility solves, same
#: session): 32 / 64 / 128 / 256 lanes took 141 / 132 / 105 / 110 s on Yatzy, and 64 / 128
#: took 92 / 78 s on official Yahtzee — wider tiles amortize each widget step over more
#: lanes until the work array (keeps x lanes) outgrows the cache.
TILE = 128


@dataclass(eq=False)
class TargetTable:
    """Max probabilities of scoring at least ``t`` more points from every turn-start state.

    Attributes
    ----------
    rules : RuleSet
    probs : ndarray (float64)
        All rows, concatenated.
    offset, length : ndarray
        Row of state index ``s``: ``probs[offset[s] : offset[s] + length[s]]``;
        lanes past the row have probability 0 (or are beyond ``max_beta``).
    max_beta : int
        Largest β the table is exact for.
    seconds : float
    meta : dict
    """

    rules: RuleSet
    probs: np.ndarray
    offset: np.ndarray
    length: np.ndarray
    max_beta: int
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    def curve(self) -> np.ndarray:
        """``c[β] = P*(final score >= β)`` from the start, for β = 0 .. ``max_beta``.

        Each entry is the probability of the strategy ``target:β`` (which maximizes
        it); entries past the largest reachable score are 0."""
        row = self.row(0)
        out = np.zeros(self.max_beta + 1)
        out[: len(row)] = row[: self.max_beta + 1]
        return out

    def row(self, state: int) -> np.ndarray:
        """Lanes ``t = 0 .. length - 1`` of turn-start state index ``state`` (a view)."""
        o = int(self.offset[state])
        return self.probs[o : o + int(self.length[state])]

    def probability(
        self, beta: int, used: int = 0, upper: int = 0, flag: int = 0, score: int = 0
    ) -> float:
        """Max P(final score >= ``beta``) from turn-start state (used, upper, flag) with
        ``score`` points so far."""
        t = _check_beta(beta, self.max_beta) - int(score)
        if t <= 0:
            return 1.0
        row = self.row(encode_state(self.rules, used, upper, flag))
        return float(row[t]) if t < len(row) else 0.0

    @property
    def nbytes(self) -> int:
        """Memory held by the table."""
        return self.probs.nbytes + self.offset.nbytes + self.length.nbytes


def best_percentile(curve: np.ndarray, q: float) -> int:
    """The highest ``q``-th percentile of the final score any strategy can reach, from a
    target curve ``curve[β] = P*(final >= β)``.

    The ``q``-th percentile (the smallest ``x`` with P(final <= x) >= q/100, as
    :meth:`~yahtzee_sim.exact.laws.ExactResult.percentile`) is at least β exactly when
    P(final >= β) > 1 - q/100, so the answer is the largest such β, and ``target:β``
    attains it. ``q`` in (0, 100). A curve cut at ``max_beta`` answers at most
    ``max_beta``: an answer equal to its last β means "at least that".
    """
    q = check("percentile q", q, Real(0, 100, closed="neither"), TargetError)
    ok = np.flatnonzero(np.asarray(curve) > 1.0 - q / 100.0 + 1e-12)
    return int(ok[-1]) if len(ok) else 0


def _check_beta(beta, max_beta: int) -> int:
    beta = check("beta", beta, Integer(description="an integer score"), TargetError)
    if beta > max_beta:
        raise TargetError(
            f"beta {beta} is above {max_beta}, the largest target this table "
            f"covers (solve with a larger max_beta)"
        )
    return int(beta)


def row_layout(rules: RuleSet, extent, full_length: int):
    """Rows of a need-lane table: ``(offset, first, length, items_by_level, size)``.

    ``extent(used, upper, flag)`` (arrays) gives each state's row as ``(first lane,
    number of lanes)``; ``items_by_level`` lists, fullest level first, the states to
    compute as rows ``(used, upper, flag, state index)``; states whose upper total
    cannot reach the bonus point at the row of the lowest such total; every full score
    card points at one shared row of ``full_length`` lanes from lane 0 at offset 0."""
    ns = n_states(rules)
    cap1 = rules.upper_cap + 1
    fs = flag_size(rules)
    offset = np.full(ns, -1, dtype=np.int64)
    first = np.zeros(ns, dtype=np.int64)
    length = np.zeros(ns, dtype=np.int64)
    full = (1 << rules.n_boxes) - 1
    lo = encode_state(rules, full, 0, 0)
    offset[lo : lo + fs * cap1] = 0
    length[lo : lo + fs * cap1] = full_length
    size = full_length
    items_by_level = []
    for masks in levels(rules.n_boxes, rules.forced_order):
        start, count = upper_lanes(rules, masks)
        items = []
        for flag in range(fs):
            sel = np.ones(len(masks), dtype=bool)
            if flag >= 1:  # the flag is only set once the Yahtzee box is filled
                sel = ((masks >> rules.yahtzee_index) & 1) == 1
            m, st, n = masks[sel], start[sel], count[sel]
            if not len(m):
                continue
            rep_m = np.repeat(m, n)
            u = np.repeat(st, n) + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
            rep_first, rep_len = extent(rep_m, u, flag)
            s = (rep_m * fs + flag) * cap1 + u
            offset[s] = size + np.cumsum(rep_len) - rep_len
            first[s] = rep_first
            length[s] = rep_len
            size += int(rep_len.sum())
            # totals below the first hopeful one share its row
            for mi, sti in zip(m, st, strict=True):
                base = (int(mi) * fs + flag) * cap1
                offset[base : base + sti] = offset[base + sti]
                first[base : base + sti] = first[base + sti]
                length[base : base + sti] = length[base + sti]
            items.append(np.stack([rep_m, u, np.full(len(u), flag), s], axis=1))
        items_by_level.append(np.concatenate(items).astype(np.int64))
    return offset, first, length, items_by_level, size


def layout(rules: RuleSet, max_beta: int):
    """Rows of the target table: ``(offset, length, items_by_level, size)``
    (:func:`row_layout`; rows start at lane 0 and stop at the state's largest
    remaining score or ``max_beta``; full score sheets share the row ``[1.0]``)."""

    def extent(used, upper, flag):
        rows = np.minimum(max_points_to_come(rules, used, flag) + 1, max_beta + 1)
        return np.zeros_like(rows), rows

    offset, _, length, items_by_level, size = row_layout(rules, extent, 1)
    return offset, length, items_by_level, size


def max_score(rules: RuleSet) -> int:
    """The bound :func:`~yahtzee_sim.game.state.max_points_to_come` gives for a whole game."""
    return int(max_points_to_come(rules, np.zeros(1, dtype=np.int64), 0)[0])


def _cap(rules: RuleSet, max_beta) -> int:
    """``max_beta`` checked and capped at :func:`max_score` (``None``: every β)."""
    top = max_score(rules)
    if max_beta is None:
        return top
    return min(check("max_beta", max_beta, Integer(1), TargetError), top)


def solve_target(
    rules: str | RuleSet = "yahtzee", max_beta: int | None = None, progress: bool = False
) -> TargetTable:
    """Solve the target-score problem for every state and every β <= ``max_beta``
    (default: the largest possible score). No cache; see :func:`target_table`."""
    rules = get_rules(rules)
    TARGET_PLAY.check(rules)
    max_beta = _cap(rules, max_beta)
    t0 = time.perf_counter()
    offset, length, items_by_level, size = layout(rules, max_beta)
    probs = np.zeros(size)
    probs[0] = 1.0
    kr = kernel_rules(rules)
    lanes = points_needed_lanes(probs, offset, length)
    for items in tqdm(
        items_by_level, desc=f"target {rules.name}", unit="level", disable=not progress
    ):
        solve_need_level(kr, lanes, items, TILE, get_threads())
    return TargetTable(
        rules,
        probs,
        offset,
        length,
        max_beta,
        seconds=time.perf_counter() - t0,
        meta={"source": "solved"},
    )


#: Tables by rules fingerprint and β cap (``all`` for the largest score); each may be GBs.
TABLES = cache.table_cache("target", max_entries=2)


def target_table(
    rules: str | RuleSet = "yahtzee",
    max_beta: int | None = None,
    use_cache: bool = True,
    progress: bool = False,
) -> TargetTable:
    """The target-score table of ``rules``: from memory, the disk cache, or solved
    (then cached). ``meta["source"]`` says which."""
    rules = get_rules(rules)
    TARGET_PLAY.check(rules)
    cap = _cap(rules, max_beta)

    def restore(read):
        offset, length, _, size = layout(rules, cap)
        got = read(size)
        return None if got is None else TargetTable(rules, got[0], offset, length, cap)

    return TABLES.get(
        TABLES.key(rules, "all" if cap == max_score(rules) else str(cap)),
        solve=lambda: solve_target(rules, cap, progress=progress),
        arrays=lambda table: [table.probs],
        restore=restore,
        use_cache=use_cache,
    )


def lane_decisions(rules: RuleSet, lanes, used, upper, flag, lane, rolls_left, roll) -> np.ndarray:
    """Best decisions in need lanes ``lane`` (one per row, any need-lane table): keep
    indices where ``rolls_left > 0``, box indices where ``rolls_left == 0``."""
    used, upper, flag, lane, rolls_left, roll = (
        np.ascontiguousarray(x, dtype=np.int64) for x in (used, upper, flag, lane, rolls_left, roll)
    )
    n = len(used)
    keep = np.empty((n, max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls), dtype=np.int16)
    cat = np.empty((n, 1, rules.tables.n_rolls), dtype=np.int8)
    fill_states(
        kernel_rules(rules), lanes, used, upper, flag, lane, np.arange(n), keep, cat, get_threads()
    )
    cat = cat[:, 0]
    rows = np.arange(n)
    layer = np.maximum(rolls_left, 1) - 1
    return np.where(rolls_left == 0, cat[rows, roll], keep[rows, layer, roll])


def decisions(table: TargetTable, used, upper, flag, need, rolls_left, roll) -> np.ndarray:
    """Decisions maximizing P(at least ``need`` more points), one per row: keep indices
    where ``rolls_left > 0``, box indices where ``rolls_left == 0``."""
    lanes = points_needed_lanes(table.probs, table.offset, table.length)
    need = np.clip(np.asarray(need, dtype=np.int64), 0, None)
    return lane_decisions(table.rules, lanes, used, upper, flag, need, rolls_left, roll)
