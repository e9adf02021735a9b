"""Play for any goal on the final score: the largest expected utility ``E[u(final)]``.

For a terminal utility ``u`` (an array over final scores), one backward pass over
(turn-start state, points so far) gives the largest expected utility from every
position and the decisions that reach it. It runs the one widget
(:mod:`yahtzee_sim._kernels.lanes`) in need lanes, lane ``t`` = ``M - points so far``,
where ``M`` is the largest score at which ``u`` still changes: from ``M`` points on,
``u`` is constant and every lane collapses to the value ``u[M]`` (*top*); below the
smallest score where ``u`` changes, a state that cannot get there any more has the
value ``u[0]`` (*bottom*). A state's row runs from the most points it can hold
(:func:`~yahtzee_sim.game.state.max_points_so_far`) down to the least that can still
matter (:func:`~yahtzee_sim.game.state.max_points_to_come`), so rows are short where the
score-sheet is nearly empty and where it is nearly full.

* ``u = 1[final >= β]`` is target play (Tillius 2026 §4); the target table
  (:mod:`yahtzee_sim.solving.target`) holds every β at once and is the special case kept;
* :func:`win_utility` gives P(win) in a blind N-player game against opponents whose
  final-score law is known (Glenn 2006 §8: the best response to a max-EV player);
* exponential utility needs no score lanes (:mod:`yahtzee_sim.solving.risk`).

This module is the *solver* and its table; the strategy that plays from the table is
:mod:`yahtzee_sim.strategies.utility`.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._core.solve import solve_need_level
from yahtzee_sim._kernels.lanes import points_needed_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.errors import UtilityError
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import encode_state, max_points_so_far, max_points_to_come
from yahtzee_sim.solving import cache
from yahtzee_sim.solving.target import TILE, lane_decisions, max_score, row_layout
from yahtzee_sim.validation import Integer, validate_params

#: Utility play takes games without saved rolls.
UTILITY_PLAY = Feature("utility play", FIXED_ROLLS)


def _check_utility(utility, rules: RuleSet) -> np.ndarray:
    u = np.asarray(utility, dtype=np.float64) if not isinstance(utility, str) else None
    if u is None or u.ndim != 1 or len(u) == 0:
        raise UtilityError(
            "utility must be a 1-d array of numbers indexed by final score, got "
            f"{type(utility).__name__}"
        )
    if not np.all(np.isfinite(u)):
        raise UtilityError("utility must be finite at every score")
    top = max_score(rules)
    if len(u) <= top:  # constant past its end
        u = np.concatenate([u, np.full(top + 1 - len(u), u[-1])])
    return np.ascontiguousarray(u[: top + 1])


def utility_span(u: np.ndarray) -> tuple[int, int]:
    """``(low, M)``: ``u`` equals ``u[0]`` below ``low`` and ``u[M]`` from ``M`` on."""
    changes = np.flatnonzero(u[1:] != u[:-1]) + 1
    if not len(changes):
        return 0, 0
    return int(changes[0]), int(changes[-1])


@dataclass(eq=False)
class UtilityTable:
    """Largest expected utility of the final score from every (state, points so far).

    Attributes
    ----------
    rules : RuleSet
    utility : ndarray
        ``u[x]``, x = 0 .. the largest possible score.
    top_score : int
        ``M``: ``u`` is constant from ``M`` points on.
    values, offset, first, length : ndarray
        Rows in need lanes (:mod:`yahtzee_sim._kernels.lanes`): lane ``t`` of state
        ``s`` (``M - t`` points so far) is ``values[offset[s] + t - first[s]]`` for
        ``first[s] <= t < first[s] + length[s]``; ``u[M]`` before the row, ``u[0]``
        past it.
    seconds : float
    meta : dict
    """

    rules: RuleSet
    utility: np.ndarray
    top_score: int
    values: np.ndarray
    offset: np.ndarray
    first: np.ndarray
    length: np.ndarray
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    @property
    def top(self) -> float:
        """The utility from ``M`` points on."""
        return float(self.utility[self.top_score])

    @property
    def bottom(self) -> float:
        """The utility of the lowest scores."""
        return float(self.utility[0])

    def lanes(self):
        """The table as widget lanes."""
        return points_needed_lanes(
            self.values, self.offset, self.length, self.first, self.top, self.bottom
        )

    def lane(self, score):
        """Need lane of ``score`` points so far: ``M - score``."""
        return self.top_score - np.asarray(score, dtype=np.int64)

    def value(self, used: int = 0, upper: int = 0, flag: int = 0, score: int = 0) -> float:
        """Largest ``E[u(final)]`` from turn-start state (used, upper, flag) with
        ``score`` points so far."""
        s = encode_state(self.rules, used, upper, flag)
        t = int(self.lane(score))
        f, n = int(self.first[s]), int(self.length[s])
        if t < f:
            return self.top
        if t >= f + n:
            return self.bottom
        return float(self.values[self.offset[s] + t - f])

    def expected_utility(self) -> float:
        """Largest ``E[u(final)]`` from the start of a game."""
        return self.value()

    def decisions(self, used, upper, flag, score, rolls_left, roll) -> np.ndarray:
        """Decisions maximizing ``E[u(final)]`` (one per row; keeps where
        ``rolls_left > 0``, boxes where ``rolls_left == 0``)."""
        return lane_decisions(
            self.rules, self.lanes(), used, upper, flag, self.lane(score), rolls_left, roll
        )

    @property
    def nbytes(self) -> int:
        """Memory held by the table."""
        return sum(a.nbytes for a in (self.values, self.offset, self.first, self.length))


def utility_layout(rules: RuleSet, u: np.ndarray):
    """Rows of the utility table of ``u``: ``(offset, first, length, items_by_level,
    size, M)`` (:func:`~yahtzee_sim.solving.target.row_layout`)."""
    low, top_score = utility_span(u)

    def extent(used, upper, flag):
        hi = np.minimum(max_points_so_far(rules, used, upper, flag), top_score)
        lo = np.maximum(low - max_points_to_come(rules, used, flag), 0)
        return top_score - hi, np.maximum(hi - lo + 1, 0)

    return (*row_layout(rules, extent, top_score - low + 1), top_score)


def solve_utility(rules: str | RuleSet, utility, progress: bool = False) -> UtilityTable:
    """Solve ``max E[utility[final score]]`` for every state and score (no cache;
    see :func:`utility_table`)."""
    rules = get_rules(rules)
    UTILITY_PLAY.check(rules)
    u = _check_utility(utility, rules)
    t0 = time.perf_counter()
    offset, first, length, items_by_level, size, top_score = utility_layout(rules, u)
    values = np.empty(size)
    low = utility_span(u)[0]  # full score sheets: lanes 0 .. M - low, worth u[M - t]
    values[: top_score - low + 1] = u[top_score - np.arange(top_score - low + 1)]
    table = UtilityTable(rules, u, top_score, values, offset, first, length)
    lanes = table.lanes()
    kr = kernel_rules(rules)
    for items in tqdm(
        items_by_level, desc=f"utility {rules.name}", unit="level", disable=not progress
    ):
        solve_need_level(kr, lanes, items, TILE, get_threads())
    table.seconds = time.perf_counter() - t0
    table.meta["source"] = "solved"
    return table


#: Tables by rules fingerprint and utility digest (a few at most: each may be GBs).
TABLES = cache.table_cache("utility", max_entries=2)


def utility_table(
    rules: str | RuleSet, utility, use_cache: bool = True, progress: bool = False
) -> UtilityTable:
    """The utility table of ``utility`` under ``rules``: from memory, the disk cache
    (keyed by the rules and the utility's bytes) or solved (then cached).
    ``meta["source"]`` says which."""
    rules = get_rules(rules)
    UTILITY_PLAY.check(rules)
    u = _check_utility(utility, rules)

    def restore(read):
        offset, first, length, _, size, top_score = utility_layout(rules, u)
        got = read(size)
        if got is None:
            return None
        return UtilityTable(rules, u, top_score, got[0], offset, first, length)

    return TABLES.get(
        TABLES.key(rules, hashlib.sha256(u.tobytes()).hexdigest()[:16]),
        solve=lambda: solve_utility(rules, u, progress=progress),
        arrays=lambda table: [table.values],
        restore=restore,
        use_cache=use_cache,
    )


def threshold_utility(rules: str | RuleSet, beta: int) -> np.ndarray:
    """``u = 1[final >= beta]`` (target play as a utility)."""
    rules = get_rules(rules)
    UTILITY_PLAY.check(rules)
    u = np.zeros(max_score(rules) + 1)
    u[min(int(beta), len(u)) :] = 1.0
    return u


@validate_params({"players": Integer(2)}, error=UtilityError)
def win_utility(opponent_pmf, players: int) -> np.ndarray:
    """P(win | my final score x) in a blind game against ``players - 1`` independent
    opponents with final-score law ``opponent_pmf``, ties split equally (as
    :func:`yahtzee_sim.analysis.tournament` counts them).

    With ``F`` the opponents' cdf and ``p`` their pmf, tying ``k`` of them at ``x`` and
    beating the rest gives ``1 / (k + 1)``; summed over ``k`` this is
    ``(F(x)^n - F(x-1)^n) / (n p(x))`` with ``n = players`` (``F(x-1)^(n-1)`` where
    ``p(x) = 0``).
    """
    p = np.asarray(opponent_pmf, dtype=np.float64)
    if p.ndim != 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise UtilityError("opponent_pmf must be a 1-d probability vector over final scores")
    n = int(players)
    p = p / p.sum()
    # G(x) = P(opponent < x): summed from below in the lower half, as 1 - P(opponent >= x)
    # summed from the top in the upper half (each side keeps its small tail exact)
    from_below = np.r_[0.0, np.cumsum(p)[:-1]]
    from_top = np.cumsum(p[::-1])[::-1]
    below = np.where(from_below < 0.5, from_below, 1.0 - from_top)
    # (F^n - G^n) / (n p) with F = G + p, in logs as G^(n-1) ((1 + p/G)^n - 1) / (n p/G):
    # exact where p is lost against G in F = G + p (far tails), no overflow for large n
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = p / below
        y = n * np.log1p(ratio)
        log_growth = np.where(
            ratio > 0, y + np.log(-np.expm1(-y)) - np.log(n * ratio), 0.0
        )  # log(expm1(y)) = y + log(1 - exp(-y)), stable for every y > 0
        log_below = np.where(from_below < 0.5, np.log(below), np.log1p(-from_top))
        u = np.exp((n - 1) * log_below + log_growth)
    u = np.where(below > 0, u, p ** (n - 1) / n)
    return np.concatenate([u, [1.0]])  # above the opponents' largest score: a sure win
