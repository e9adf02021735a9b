"""The rule-based strategies of "Simulating Yahtzee" as its author's program plays them (v2).

"Simulating Yahtzee" (§IV.d, Tables V and VI) lists Glenn's (2007) keep and scoring
rules and two variants, "Prioritize Upper Section" and "Prioritize Yahtzee". Its
published program (public on GitHub) settles what the text leaves open; these are the
readings it uses (facts read from it, the code here is our own):

* keep rules: a Yahtzee is kept while it still counts (the box open, or holding 0, or
  holding 50 with the bonus not yet paid); the small straight kept is the four-run;
  [2 3 4] is tried before [3 4 5]; "any doubleton" is the highest face with two or
  more dice; rule 9 ("any tripleton if Yahtzee is unused or non-zero") keeps exactly
  three dice and needs the Yahtzee box open or a bonus still to earn;
* scoring rules: "tripleton"/"three 5s or 6s"/"four 5s or 6s" mean *exactly* that
  many dice (the program tests ``points == 3 × (box index + 1)``, so Three of a kind
  with 21 points counts as a "tripleton box" too); "doubletons in an upper box"
  means two or more; then the box with the most points, ties by the tie order, and
  zeros go to the *last* open box of the tie order;
* a bonus Yahtzee (the box holds 50, one bonus at most in the program's engine) goes
  to its upper box if open; else, if no box but upper ones scores, a zero in an upper
  box; else Chance, Three of a kind, Four of a kind; else the box a "stolen" joker
  score would favour (Small straight 30, Full house or Large straight 25, or Chance),
  scored at its normal points (0) — the engine has no joker;
* Prioritize Upper Section applies while the bonus is reachable (upper total + 4 ×
  face over the open upper boxes ≥ 63); for scoring also while some open upper box
  scores and the last open one can still reach 63; only faces showing are candidates;
* Prioritize Yahtzee chases the most frequent face while fewer than two Yahtzees
  have counted (a Yahtzee in the box and the one bonus); ties go to a face whose upper
  box is open, then the lower face; it never keeps straights.

On the engine's rules (``yahtzee-single-bonus``) these give "Simulating Yahtzee"'s
Table 2: 212.18 ± 59.38, 192.92 ± 53.82 and 163.26 ± 64.47.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim.engine.strategy import AGREEMENT_POINTS, Reference, Strategy
from yahtzee_sim.engine.summary import box_statistics
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.strategies._yahtzee_boxes import (
    CHANCE,
    FIVES,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    N_BOXES,
    N_FACES,
    SIXES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    UPPER_BOXES,
    YAHTZEE,
    YAHTZEE_BOXES,
    YahtzeeBoxes,
    face_scan,
    keep_every_die,
    read_open_boxes,
    run_start,
)

#: The program's tie order: on equal points the first open box wins; zeros go to the
#: last open one.
PROGRAM_TIE_ORDER = (
    "yahtzee",
    "small_straight",
    "large_straight",
    "four_of_a_kind",
    "three_of_a_kind",
    "full_house",
    *UPPER_BOXES,
    "chance",
)
_SOURCE = '"Simulating Yahtzee", Table 2'
_RULES = "yahtzee-single-bonus"
_NOTE = "the program's own readings on its engine's rules (one Yahtzee bonus, no joker)"

#: "Simulating Yahtzee" Tables 8-10, Glenn 2007 column (its Yahtzee row includes the bonus,
#: 30.23 = 50 × P(50 in the box) + 9.82; its Large straight zero row repeats the Small
#: straight one, a copying slip: 1 − 24.50 / 40 = 38.75% zeros).
SIMULATING_YAHTZEE_TABLES = {
    **box_statistics(  # means, zero rates, fill turns
        YAHTZEE_BOXES,
        (2.38, 4.78, 7.25, 9.70, 14.39, 17.58, 17.40, 14.51, 13.80, 27.57, 24.50, 30.23, 19.85),
        (0.067, 0.062, 0.060, 0.061, 0.028, 0.023, 0.011, 0.095, 0.448, 0.081, 0.081, 0.592, 0.0),
        (6.99, 6.95, 7.00, 7.12, 5.52, 5.06, 6.21, 6.24, 8.73, 5.68, 7.92, 10.18, 7.40),
    ),
    "upper_bonus_points": 8.25,
    "yahtzee_bonus_points": 9.82,
}


def program_table_2(mean: float, sd: float, stats: dict, note: str, **more) -> Reference:
    """A row of "Simulating Yahtzee" Table 2 that its program's readings give (100,000 games
    on its engine's rules, :data:`_RULES`), within the paper's precision; ``more``: other
    fields of the :class:`~yahtzee_sim.engine.strategy.Reference` (its ``tables``)."""
    return Reference(
        _SOURCE,
        _RULES,
        mean=mean,
        sd=sd,
        n_games=100_000,
        stats=stats,
        tolerance=AGREEMENT_POINTS,
        note=note,
        **more,
    )


class Glenn2007Program(YahtzeeBoxes, Strategy):
    """Glenn's 2007 rules as "Simulating Yahtzee"'s program plays them (Tables V-VI, with
    Kelly and Liese's no-Four-of-a-kind-in-round-1 rule). v1 is the reading of the
    paper's text alone.

    Parameters
    ----------
    tie_order : tuple of str
        Box order for ties on points (first wins) and for zeros (last wins).
    no_four_of_a_kind_first_round : bool
        Kelly and Liese's modification.
    """

    parallel_backend = "threads"  # stateless numba kernels that release the GIL
    upper_first = False
    chase_yahtzees = False
    references = (
        program_table_2(
            212.18,
            59.38,
            {"bonus_rate": 0.236, "yahtzee_bonuses_mean": 0.0982},
            _NOTE,
            tables=SIMULATING_YAHTZEE_TABLES,
        ),
    )

    def __init__(
        self,
        tie_order: tuple[str, ...] = PROGRAM_TIE_ORDER,
        no_four_of_a_kind_first_round: bool = True,
    ) -> None:
        self.tie_order = tuple(tie_order)
        self.no_four_of_a_kind_first_round = no_four_of_a_kind_first_round

    def prepare(self, rules) -> None:
        self.check_rules(rules)
        if sorted(self.tie_order) != sorted(YAHTZEE_BOXES):
            raise StrategyError(
                f"{self.name}: tie_order must list each of the 13 boxes once, got {self.tie_order}"
            )
        rank = np.empty(N_BOXES, dtype=np.int64)
        for position, box in enumerate(self.tie_order):
            rank[YAHTZEE_BOXES.index(box)] = position
        self._rank = rank

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty((len(view), N_FACES), dtype=np.int8)
        counts_five = (view.flag == 0) | view.yahtzee_bonus_open
        program_keep(view.dice, view.used, counts_five, view.yahtzee_bonus_open, out)
        if self.upper_first:
            upper_first_keep(view.dice, view.used, view.upper_total, counts_five, out)
        if self.chase_yahtzees:
            chase_keep(view.dice, view.used, counts_five, out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        program_box(
            view.dice,
            view.box_points,
            view.upper_total,
            view.yahtzee_bonus_open,
            view.turn == 0 and self.no_four_of_a_kind_first_round,
            self._rank,
            self.upper_first,
            out,
        )
        return out


class PrioritizeUpperProgram(Glenn2007Program):
    """ "Simulating Yahtzee"'s "Prioritize Upper Section" as its program plays it: while
    the upper bonus is reachable, keep the face (showing, upper box open) with the most
    expected upper points after the next roll and score the open upper box with the
    most points; Yahtzees first. v1 is the reading of the paper's text alone."""

    upper_first = True
    references = (
        program_table_2(
            192.92,
            53.82,
            {"bonus_rate": 0.144},
            _NOTE + "; the upper-bonus rate (15.7% against 14.4%) agrees only within "
            "a point and the paper's sampling error",
        ),
    )


class PrioritizeYahtzeeProgram(Glenn2007Program):
    """ "Simulating Yahtzee"'s "Prioritize Yahtzee" as its program plays it: keep the most
    frequent face while fewer than two Yahtzees have counted (ties: an open upper box,
    then the lower face); score by the rules. v1 is the reading of the paper's text."""

    chase_yahtzees = True
    references = (program_table_2(163.26, 64.47, {"bonus_rate": 0.162}, _NOTE),)


# ------------------------------------------------------------------ kernels
@njit(cache=True, nogil=True)
def program_keep(counts, used, counts_five, bonus_open, out):
    """Table V as the program reads it, for every game: kept face counts into ``out``.
    ``counts_five[i]``: a Yahtzee still counts (rule 1); ``bonus_open[i]``: the box holds
    50 and the bonus is still to earn (rule 9)."""
    op = np.empty(N_BOXES, dtype=np.bool_)  # open boxes of row i (one buffer for all rows)
    for i in range(counts.shape[0]):
        c = counts[i]
        u = used[i]
        read_open_boxes(u, op)
        for f in range(N_FACES):
            out[i, f] = 0
        # f3: the face with three or more dice; pair_hi: the highest face with two or
        # more; pair_open_hi: ... whose upper box is open
        big, f3, pair_hi, pair_open_hi, n_open_upper = face_scan(c, op, False)
        three_k, four_k, chance = op[THREE_OF_A_KIND], op[FOUR_OF_A_KIND], op[CHANCE]
        straights = op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and chance)
        if big == 5 and counts_five[i]:  # 1
            keep_every_die(out, i, c)
        elif run_start(c, 5) >= 0 and (op[LARGE_STRAIGHT] or op[SMALL_STRAIGHT]):  # 2
            keep_every_die(out, i, c)
        elif run_start(c, 4) >= 0 and straights:  # 3
            r4 = run_start(c, 4)
            for f in range(r4, r4 + 4):
                out[i, f] = 1
        elif f3 >= 0 and op[f3]:  # 4
            out[i, f3] = c[f3]
        elif f3 >= 0 and (three_k or four_k or op[FULL_HOUSE] or chance):  # 5
            out[i, f3] = c[f3]
        elif pair_open_hi >= 0:  # 6
            out[i, pair_open_hi] = 2
        elif straights and c[1] > 0 and c[2] > 0 and c[3] > 0:  # 7: [2 3 4] first
            out[i, 1] = out[i, 2] = out[i, 3] = 1
        elif straights and c[2] > 0 and c[3] > 0 and c[4] > 0:  # 7: then [3 4 5]
            out[i, 2] = out[i, 3] = out[i, 4] = 1
        elif pair_hi >= 0 and (three_k or chance):  # 8
            out[i, pair_hi] = 2
        elif f3 >= 0 and (op[YAHTZEE] or bonus_open[i]):  # 9: exactly three dice
            out[i, f3] = 3
        else:
            low = -1
            if n_open_upper <= 4:  # 10
                for f in range(N_FACES):
                    if c[f] >= 1 and op[f]:
                        low = f
                        break
            if low >= 0:
                out[i, low] = 1
            elif pair_hi >= 0:  # 11
                out[i, pair_hi] = 2
            elif three_k or four_k or chance:  # 12: a singleton 4, 5 or 6, high preferred
                for f in range(5, 2, -1):
                    if c[f] >= 1:
                        out[i, f] = 1
                        break


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _first_by_rank(p, rank, points, last):
    """The box with ``p[b] == points`` (legal) first (``last``: last) in the tie order."""
    best = -1
    for b in range(N_BOXES):
        if p[b] == points and p[b] >= 0:
            if best < 0 or (rank[b] > rank[best] if last else rank[b] < rank[best]):
                best = b
    return best


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _last_legal(p, rank, n):
    """The legal box (``p[b] >= 0``) among the first ``n`` that comes last in the tie order."""
    pick = -1
    for b in range(n):
        if p[b] >= 0 and (pick < 0 or rank[b] > rank[pick]):
            pick = b
    return pick


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def bonus_box(p, face, rank):
    """Where the program writes a bonus Yahtzee of ``face`` (0-based); ``p`` = legal points."""
    if p[face] >= 0:
        return face
    best = -1
    best_lower = -1
    upper_legal = False
    for b in range(N_BOXES):
        best = max(best, p[b])
        if b < N_FACES:
            upper_legal = upper_legal or p[b] >= 0
        else:
            best_lower = max(best_lower, p[b])
    if best == 0 and upper_legal:  # only zeros: an upper box, the last in the tie order
        return _last_legal(p, rank, N_FACES)
    if p[THREE_OF_A_KIND] >= 0 or p[FOUR_OF_A_KIND] >= 0:  # Chance, 3K, 4K (last first)
        return _first_by_rank(p, rank, best_lower, True)
    steal = np.full(N_BOXES, -1, dtype=np.int64)  # the scores a joker would "steal"
    steal[FULL_HOUSE] = 25 if p[FULL_HOUSE] >= 0 else -1
    steal[SMALL_STRAIGHT] = 30 if p[SMALL_STRAIGHT] >= 0 else -1
    steal[LARGE_STRAIGHT] = 25 if p[LARGE_STRAIGHT] >= 0 else -1
    steal[CHANCE] = p[CHANCE]
    top = steal.max()
    if top >= 0:
        return _first_by_rank(steal, rank, top, True)
    return _last_legal(p, rank, N_BOXES)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def upper_scoring_applies(p, upper_total):
    """Prioritize Upper Section scoring: the bonus is still to earn and reachable, some
    open upper box scores, and the last open one (if only one) can reach 63."""
    n_open = 0
    top = 0
    reach = 0
    for f in range(N_FACES):
        if p[f] >= 0:
            n_open += 1
            top = max(top, p[f])
            reach += 4 * (f + 1)
    if top == 0 or (n_open == 1 and upper_total + top < 63):
        return False
    return upper_total < 63 and upper_total + reach >= 63


@njit(cache=True, nogil=True)
def program_box(counts, pts, upper_total, bonus_open, first_round, rank, upper_first, out):
    """Table VI as the program reads it, for every game (``pts`` = legal points, -1
    illegal): box index into ``out``. ``upper_first``: Prioritize Upper Section."""
    for i in range(counts.shape[0]):
        c = counts[i]
        p = pts[i]
        five = -1
        for f in range(N_FACES):
            if c[f] == 5:
                five = f
        triple = -1  # the program's "tripleton box": points == 3 x (box index + 1)
        double = -1  # ... "doubleton": points >= 2 x (box index + 1)
        for b in range(N_BOXES - 1, -1, -1):
            if p[b] >= 0 and p[b] == 3 * (b + 1):
                triple = b
            if p[b] >= 0 and p[b] >= 2 * (b + 1):
                double = b
        u = upper_total[i]
        if five >= 0 and bonus_open[i]:
            choice = bonus_box(p, five, rank)
        elif five >= 0 and p[YAHTZEE] > 0:
            choice = YAHTZEE
        elif upper_first and upper_scoring_applies(p, u):
            choice = -1
            for f in range(N_FACES):  # the most upper points; ties by the tie order
                if p[f] >= 0 and (
                    choice < 0 or p[f] > p[choice] or (p[f] == p[choice] and rank[f] < rank[choice])
                ):
                    choice = f
        elif p[LARGE_STRAIGHT] > 0:
            choice = LARGE_STRAIGHT
        elif p[SMALL_STRAIGHT] > 0:
            choice = SMALL_STRAIGHT
        elif triple >= 0 and u < 63 and p[triple] >= 63 - u:
            choice = triple
        elif p[FIVES] == 20:
            choice = FIVES
        elif p[SIXES] == 24:
            choice = SIXES
        elif p[FOUR_OF_A_KIND] > 0 and not first_round:
            choice = FOUR_OF_A_KIND
        elif p[FIVES] == 15:
            choice = FIVES
        elif p[SIXES] == 18:
            choice = SIXES
        elif p[FULL_HOUSE] > 0:
            choice = FULL_HOUSE
        elif p[THREE_OF_A_KIND] >= 22:
            choice = THREE_OF_A_KIND
        elif triple >= 0:
            choice = triple
        elif p[THREE_OF_A_KIND] > 0:
            choice = THREE_OF_A_KIND
        elif p[CHANCE] >= 22:
            choice = CHANCE
        elif double >= 0:
            choice = double
        else:
            top = p.max()
            choice = _first_by_rank(p, rank, top, top == 0)
        out[i] = choice


@njit(cache=True, nogil=True)
def upper_first_keep(counts, used, upper_total, counts_five, out):
    """Prioritize Upper Section keeps: while the bonus is reachable (upper total + 4 ×
    face over the open upper boxes ≥ 63), keep the showing face with an open upper box
    and the most expected upper points after the next roll, ``f × (c + (5 − c) / 6)``
    (the lower face on ties); keep nothing if no such face shows. A Yahtzee that still
    counts is kept (rule 1). Other games keep ``out``."""
    for i in range(counts.shape[0]):
        c = counts[i]
        if upper_total[i] >= 63:
            continue
        reach = 0
        big = 0
        for f in range(N_FACES):
            big = max(big, c[f])
            if (used[i] >> f) & 1 == 0:
                reach += 4 * (f + 1)
        if upper_total[i] + reach < 63 or (big == 5 and counts_five[i]):
            continue
        best = -1.0
        best_f = -1
        for f in range(N_FACES):
            if c[f] == 0 or (used[i] >> f) & 1:
                continue
            v = (f + 1) * (c[f] + (5 - c[f]) / 6.0)
            if v > best:
                best = v
                best_f = f
        for f in range(N_FACES):
            out[i, f] = c[f] if f == best_f else 0


@njit(cache=True, nogil=True)
def chase_keep(counts, used, counts_five, out):
    """Prioritize Yahtzee keeps: while a Yahtzee still counts (``counts_five``), keep
    every die of the most frequent face; ties: a face whose upper box is open, then the
    lower face. Other games keep ``out``."""
    for i in range(counts.shape[0]):
        if not counts_five[i]:
            continue
        c = counts[i]
        best_f = -1
        for f in range(N_FACES):
            if best_f < 0 or c[f] > c[best_f]:
                best_f = f
            elif c[f] == c[best_f] and (used[i] >> f) & 1 == 0 and (used[i] >> best_f) & 1:
                best_f = f
        for f in range(N_FACES):
            out[i, f] = c[f] if f == best_f else 0
