"""The exact two-player game: optimal play for P(win) in a visible match.

Two players take turns (seat 0 first in every round) and see each other's score
sheets; the winner has the higher final total and a tie splits the win, as the
tournament counts it (:func:`yahtzee_sim.multiplayer.matches.win_shares_of`). A turn start of this
game is a *joint position*: the mover's state, the waiter's state and the score
difference. Its value is the mover's probability of winning (ties counted 1/2) when
both players maximize their own — the game is constant-sum, so this is also the
minimax value.

:func:`solve_duel` computes it by backward induction over *stages* (who moves, at
which levels), on the one widget: a turn of the mover is a utility solve in need lanes
whose terminal values are the rows of the next stage
(:mod:`yahtzee_sim._core.duel`). A stage's positions are independent given the next
stage, so they run as blocks through joblib (any backend, e.g. a dask cluster), the
table optionally in a memory-mapped file.

Either seat can instead play a fixed position-only strategy (``policies``, e.g.
``"optimal"``): the solver then gives the other seat's *best response* to it, or, with
both fixed, the exact value of that pair.

* :func:`solve_duel` — the table from empty score sheets (reduced rule sets) or from a
  position (endgames of the full games);
* :func:`duel` — the optimal move and P(win) at an endgame position;
* :func:`evaluate_pair` (:mod:`yahtzee_sim.exact.pairs`) — the exact P(win) of any two
  deterministic strategies in a visible match.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from yahtzee_sim._core.duel import mover_turn, policy_stage, solve_stage, successors
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.errors import DuelError, EndgameTooLarge
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import decode_state, max_points_to_come
from yahtzee_sim.multiplayer.win_probability import ScoreSheet, to_move
from yahtzee_sim.solving.target import max_score
from yahtzee_sim.validation import renamed_arguments

#: The exact two-player game takes games without saved rolls.
TWO_PLAYER_DUEL = Feature("the two-player duel", FIXED_ROLLS)

#: Most open boxes per score sheet :func:`duel` takes by default: positions of real games with
#: three open boxes each solve in under a second on official Yahtzee and Yatzy; the
#: slowest ones (upper bonus open, Yahtzee bonuses possible on both sheets) in seconds
#: to tens of seconds (docs/guide/two-player.md gives the timings).
ENDGAME_BOXES = 3

#: Joint-position rows per joblib block.
_BLOCK_ROWS = 1 << 20


@dataclass
class Stage:
    """The joint positions of one stage: seat ``seat`` to move at level ``level`` (boxes
    filled), the other seat waiting at ``wait_level``.

    ``movers``/``waiters`` are the (sorted) reachable states; ``m_mr``/``w_mr`` the most
    points each can still score; position (mover ``i``, waiter ``j``) has row
    ``values[offset[j * len(movers) + i] :][:m_mr[i] + w_mr[j] + 1]``, first lane
    ``D - m_mr[i]``.
    """

    seat: int
    level: int
    wait_level: int
    movers: np.ndarray
    waiters: np.ndarray
    m_mr: np.ndarray
    w_mr: np.ndarray
    offset: np.ndarray
    policy: str | None = None

    def index(self, mover_state: int, waiter_state: int) -> int:
        """Position number of (mover state, waiter state); a :class:`DuelError` if the
        stage does not hold it."""
        i = int(np.searchsorted(self.movers, mover_state))
        j = int(np.searchsorted(self.waiters, waiter_state))
        if (
            i >= len(self.movers)
            or self.movers[i] != mover_state
            or j >= len(self.waiters)
            or self.waiters[j] != waiter_state
        ):
            raise DuelError("the position is not in this table")
        return j * len(self.movers) + i


@dataclass(eq=False)
class DuelTable:
    """Values of every joint position reachable from a start (:func:`solve_duel`).

    Attributes
    ----------
    rules : RuleSet
    d : int
        Lane shift: lane ``L`` of a row is ``d + (mover's points - waiter's points)``.
    stages : list of Stage
        In order of play; ``stages[0]`` holds the start.
    values : ndarray
        Every row: P(the waiter wins), ties split (a memory map when solved to a path).
    seconds : float
    """

    rules: RuleSet
    d: int
    stages: list
    values: np.ndarray
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    def waiter_wins(self, g: int, mover_state: int, waiter_state: int, lead: int) -> float:
        """P(the waiter wins) at stage ``g``, the mover ``lead`` points ahead."""
        st = self.stages[g]
        k = st.index(mover_state, waiter_state)
        i = k % len(st.movers)
        n = int(st.m_mr[i] + st.w_mr[k // len(st.movers)] + 1)
        t = self.d + int(lead) - (self.d - int(st.m_mr[i]))
        if t < 0:
            return 1.0
        if t >= n:
            return 0.0
        return float(self.values[st.offset[k] + t])

    def p_win(self, seat: int = 0) -> float:
        """P(``seat`` wins) from the start position (ties split)."""
        st = self.stages[0]
        lead = self.meta["scores"][st.seat] - self.meta["scores"][1 - st.seat]
        w = self.waiter_wins(0, int(st.movers[0]), int(st.waiters[0]), lead)
        return w if seat != st.seat else 1.0 - w

    @property
    def n_positions(self) -> int:
        """Joint positions (pairs of states) in the table."""
        return int(sum(len(s.offset) for s in self.stages))

    @property
    def nbytes(self) -> int:
        """Bytes of the value rows."""
        return int(self.values.nbytes)


# ------------------------------------------------------------------ layout
def reachable_levels(rules: RuleSet, state: int) -> list[np.ndarray]:
    """States reachable from turn-start state ``state``, one sorted array per level from
    its level to a full score sheet (every box at every score the rules allow)."""
    kr = kernel_rules(rules)
    cur = np.array([state], dtype=np.int64)
    used = decode_state(rules, state)[0]
    out = [cur]
    for _ in range(bin(used).count("1"), rules.n_boxes):
        cur = np.unique(successors(kr, cur))
        out.append(cur)
    return out


def most_to_come(rules: RuleSet, states: np.ndarray) -> np.ndarray:
    """:func:`~yahtzee_sim.game.state.max_points_to_come` of each state."""
    used, _, flag = decode_state(rules, np.atleast_1d(states))
    out = np.zeros(len(used), dtype=np.int64)
    for f in np.unique(flag):
        sel = flag == f
        out[sel] = max_points_to_come(rules, used[sel], int(f))
    return out


def _stages(rules, starts, seat, policies, d):
    """Stages from ``seat`` to move at the start states ``starts`` (one per seat)."""
    reach = [reachable_levels(rules, s) for s in starts]
    base = [bin(decode_state(rules, s)[0]).count("1") for s in starts]
    level = list(base)
    stages, size = [], 0
    while True:
        other = 1 - seat
        movers = reach[seat][level[seat] - base[seat]]
        waiters = reach[other][level[other] - base[other]]
        m_mr, w_mr = most_to_come(rules, movers), most_to_come(rules, waiters)
        lengths = (m_mr[None, :] + w_mr[:, None] + 1).reshape(-1)
        offset = size + np.cumsum(lengths) - lengths
        size += int(lengths.sum())
        stages.append(
            Stage(
                seat, level[seat], level[other], movers, waiters, m_mr, w_mr, offset, policies[seat]
            )
        )
        if level[seat] == rules.n_boxes:
            return stages, size
        level[seat] += 1
        seat = other


# ------------------------------------------------------------------ solving
def _block_ranges(stage: Stage, n_jobs: int) -> list[tuple[int, int]]:
    """Waiter ranges of one stage, one per joblib block."""
    n_w, n_m = len(stage.waiters), len(stage.movers)
    rows = int((stage.m_mr.mean() + stage.w_mr.mean() + 1) * n_m) or 1
    per = max(1, min(_BLOCK_ROWS // rows, -(-n_w // max(1, n_jobs))))
    return [(lo, min(n_w, lo + per)) for lo in range(0, n_w, per)]


def _outcomes(rules, stage: Stage, nxt: Stage):
    """A fixed policy's turn outcomes from the mover states: CSR ``(ptr, next state
    number in the next stage's waiters, points, probability)``."""
    from yahtzee_sim.exact.forward import level_outcomes

    strategy = get_strategy(stage.policy)
    strategy.prepare(rules)
    lv = level_outcomes(strategy, rules, stage.movers, stage.level)
    j = np.searchsorted(nxt.waiters, lv.nxt)
    return lv.ptr, j.astype(np.int64), lv.pts.astype(np.int64), lv.prob


def _stage_block(rules, values, d, stage, nxt, outcomes, lo, hi, into=None):
    """Rows of waiters ``lo .. hi - 1`` of ``stage`` (written into ``into`` if given,
    else returned as an array)."""
    kr = kernel_rules(rules)
    n_m = len(stage.movers)
    base = int(stage.offset[lo * n_m])
    end = int(stage.offset[hi * n_m - 1] + stage.m_mr[-1] + stage.w_mr[hi - 1] + 1)
    out, b = (into, 0) if into is not None else (np.empty(end - base), base)
    if outcomes is None:
        solve_stage(
            kr,
            values,
            d,
            stage.movers,
            stage.m_mr,
            stage.w_mr,
            stage.offset,
            nxt.offset,
            nxt.waiters,
            nxt.w_mr,
            lo,
            hi,
            out,
            b,
            get_threads(),
        )
    else:
        ptr, j, pts, prob = outcomes
        policy_stage(
            values,
            d,
            stage.m_mr,
            stage.w_mr,
            stage.offset,
            ptr,
            j,
            pts,
            prob,
            nxt.offset,
            nxt.w_mr,
            lo,
            hi,
            out,
            b,
            get_threads(),
        )
    return None if into is not None else (base, out)


@renamed_arguments(cards="sheets")
def solve_duel(
    rules: str | RuleSet,
    sheets=None,
    policies: tuple = (None, None),
    n_jobs: int = 1,
    path=None,
    progress: bool = False,
) -> DuelTable:
    """Solve the visible two-player game from ``sheets`` (default: both empty).

    Parameters
    ----------
    rules : str or RuleSet
    sheets : pair of ScoreSheet or str, optional
        Seat 0's and seat 1's score sheets; the seat to move follows from them
        (:func:`~yahtzee_sim.multiplayer.win_probability.to_move`). ``cards=`` is a
        deprecated spelling.
    policies : pair
        Per seat: ``None`` (plays to maximize its P(win)) or the id of a strategy whose
        decisions depend on its own position only (e.g. ``"optimal"``), played fixed.
    n_jobs : int
        Joblib jobs over the blocks of each stage (1: the compiled core's threads in this
        process; any configured joblib backend, such as dask, is used when ``n_jobs != 1``).
    path : str or Path, optional
        Keep the rows in this memory-mapped ``.npy`` file instead of in memory.

    Returns
    -------
    DuelTable
        ``table.p_win(seat)`` is P(seat wins) from the start.
    """
    rules = get_rules(rules)
    TWO_PLAYER_DUEL.check(rules)
    t0 = time.perf_counter()
    sheets = _sheets(rules, sheets)
    seat = to_move(sheets)
    if seat < 0:
        raise DuelError("every box of both score sheets is filled: the game is over")
    d = max_score(rules)
    stages, size = _stages(rules, [s.state for s in sheets], seat, list(policies), d)
    if path is None:
        values = np.empty(size)
    else:
        values = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(size,))
    last = stages[-1]
    values[last.offset[0] :] = 0.5  # both sheets full: a tie unless the lanes say otherwise
    for g in range(len(stages) - 2, -1, -1):
        stage, nxt = stages[g], stages[g + 1]
        outcomes = None if stage.policy is None else _outcomes(rules, stage, nxt)
        if n_jobs == 1:
            _stage_block(rules, values, d, stage, nxt, outcomes, 0, len(stage.waiters), values)
            continue
        if isinstance(values, np.memmap):
            values.flush()
        blocks = _block_ranges(stage, effective_n_jobs(n_jobs))
        done = Parallel(n_jobs=n_jobs)(
            delayed(_stage_block)(rules, values, d, stage, nxt, outcomes, lo, hi)
            for lo, hi in blocks
        )
        for base, block in done:
            values[base : base + len(block)] = block
    if isinstance(values, np.memmap):
        values.flush()
    return DuelTable(
        rules,
        d,
        stages,
        values,
        seconds=time.perf_counter() - t0,
        meta={"scores": [s.score for s in sheets], "policies": list(policies)},
    )


def _sheets(rules: RuleSet, sheets) -> list[ScoreSheet]:
    """The two score sheets (parsed from text; both empty for ``None``), checked."""
    if sheets is None:
        sheets = ["", ""]
    sheets = [s if isinstance(s, ScoreSheet) else ScoreSheet.parse(s, rules) for s in sheets]
    if len(sheets) != 2:
        raise DuelError(f"give two score sheets (seat 0, seat 1), got {len(sheets)}")
    if any(s.rules != rules for s in sheets):
        raise DuelError("both score sheets must be of the same rules")
    return sheets


# ------------------------------------------------------------------ one position
@dataclass
class DuelMove:
    """Result of :func:`duel`: the seat to move, its P(win) (ties split) and, inside a
    turn, its best decision."""

    rules: str
    seat: int
    p_win: float
    keep: list | None = None
    box: str | None = None
    rolls_left: int | None = None
    open_boxes: list = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


@renamed_arguments(cards="sheets")
def duel(
    sheets,
    rules: str | RuleSet = "yahtzee",
    dice=None,
    rolls_left: int | None = None,
    max_open: int = ENDGAME_BOXES,
) -> DuelMove:
    """The optimal two-player move and P(win) at an endgame position.

    Parameters
    ----------
    sheets : pair of ScoreSheet or str
        Seat 0's and seat 1's score sheets
        (:meth:`~yahtzee_sim.multiplayer.win_probability.ScoreSheet.parse`). ``cards=`` is a
        deprecated spelling.
    rules : str or RuleSet
    dice : iterable of int, optional
        Faces showing for the player to move, inside the turn (with ``rolls_left``).
    rolls_left : int, optional
        Rerolls left with ``dice`` (0: choose a box now).
    max_open : int
        Most open boxes allowed on each score sheet (:data:`ENDGAME_BOXES`).

    Returns
    -------
    DuelMove
        P(win) of the seat to move under optimal play by both; with ``dice``, the best
        keep (``rolls_left > 0``) or box, and P(win) after the best decision.

    Raises
    ------
    EndgameTooLarge
        If a score sheet has more than ``max_open`` open boxes.
    ScoreSheetError
        For score sheets or dice the rules cannot produce.
    """
    from yahtzee_sim.multiplayer.win_probability import dice_counts

    t0 = time.perf_counter()
    rules = get_rules(rules)
    TWO_PLAYER_DUEL.check(rules)
    sheets = _sheets(rules, sheets)
    seat = to_move(sheets)
    if seat < 0:
        raise DuelError("every box of both score sheets is filled: the game is over")
    n_open = [rules.n_boxes - s.turns for s in sheets]
    if max(n_open) > max_open:
        raise EndgameTooLarge(
            f"the endgame solver takes at most {max_open} open boxes per score sheet; these "
            f"score sheets have {n_open[0]} and {n_open[1]}"
        )
    counts = None if dice is None else dice_counts(rules, dice, rolls_left)
    table = solve_duel(rules, sheets)
    res = DuelMove(rules.name, seat, table.p_win(seat))
    res.open_boxes = [
        [n for j, n in enumerate(rules.box_names) if not (s.used >> j) & 1] for s in sheets
    ]
    if counts is not None:
        _best_decision(res, table, sheets, seat, counts, int(rolls_left))
    res.seconds = time.perf_counter() - t0
    return res


def _best_decision(res: DuelMove, table: DuelTable, sheets, seat, counts, rolls_left) -> None:
    rules = table.rules
    st, nxt = table.stages[0], table.stages[1]
    lane = table.d + sheets[1 - seat].score - sheets[seat].score
    _, cat, keep, _, roll_vals = mover_turn(
        kernel_rules(rules),
        table.values,
        table.d,
        int(st.movers[0]),
        int(st.m_mr[0]),
        int(st.w_mr[0]),
        nxt.offset,
        1,
        0,
        nxt.waiters,
        nxt.w_mr,
        lane,
    )
    t = rules.tables
    r = int(t.roll_index(np.asarray(counts)[None])[0])
    res.rolls_left = rolls_left
    res.p_win = float(roll_vals[rolls_left, r, 0])
    if rolls_left > 0:
        k = int(keep[rolls_left, r, 0])
        res.keep = list(t.faces_from_counts(t.keep_counts[k]))
    else:
        res.box = rules.box_names[int(cat[r, 0])]
