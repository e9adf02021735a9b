"""Rule-based strategy of "Simulating Yahtzee" ("Simulating Yahtzee" §IV.d, Tables V and VI).

The rules for keeping dice and scoring rolls are Glenn's (2007), as listed in
"Simulating Yahtzee"'s Tables V and VI, with Kelly and Liese's modification (no Four of a kind
in the first round) and a throw-away priority for rolls no rule places. The first
rule that applies is played; rules are evaluated for all games at once with masks.

Keep rules (Table V), in order: a Yahtzee (if the box is open or a joker applies);
a large straight if LS or SS is open; a small straight (the four-run) if SS is open
or both LS and Chance are; a tripleton whose upper box is open; any tripleton if 3K,
4K, FH or Chance is open; a doubleton whose upper box is open (high preferred);
[3 4 5] or [2 3 4] if SS is open or both LS and Chance are; any doubleton if 3K or
Chance is open; any tripleton if the Yahtzee box is open or holds 50; a singleton
whose upper box is open (low preferred) unless more than four upper boxes are open;
any doubleton (high preferred); a singleton 4, 5 or 6 (high preferred) if 3K, 4K or
Chance is open; nothing.

Scoring rules (Table VI): Yahtzee; Large straight; Small straight; a tripleton in its
upper box if it earns the bonus; four 5s or four 6s in the upper box; Four of a kind
(not in round 1); three 5s or three 6s in the upper box; Full house; Three of a kind
if the total is at least 22; a tripleton in its upper box; Three of a kind; Chance if
the total is at least 22; a doubleton in its upper box (lower preferred); else the
first open box of ``throw_away``.

"Simulating Yahtzee", Table 2: 212.18 ± 59.38 (Glenn 2007 reports 218.18). The paper does not
list its throw-away order beyond "Yahtzee last"; the default is :data:`DEFAULT_THROW_AWAY`
(its mean, and why it differs from the paper's, are in the class's ``references``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim.engine.strategy import Gap, Reference, Strategy
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
    YAHTZEE,
    YAHTZEE_BOXES,
    YahtzeeBoxes,
    face_scan,
    keep_every_die,
    read_open_boxes,
    run_start,
)

#: Boxes for rolls no scoring rule places, first open one first (Yahtzee last, as in
#: "Simulating Yahtzee").
DEFAULT_THROW_AWAY = (
    "chance",
    "full_house",
    "ones",
    "twos",
    "threes",
    "four_of_a_kind",
    "small_straight",
    "large_straight",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "yahtzee",
)


class Glenn2007Rules(YahtzeeBoxes, Strategy):
    """Rule-based strategy of "Simulating Yahtzee" (Glenn 2007 rules, Tables V-VI;
    Kelly-Liese rule).

    Parameters
    ----------
    throw_away : tuple of str
        Order of the boxes that take rolls no scoring rule places.
    no_four_of_a_kind_first_round : bool
        Kelly and Liese's modification.
    """

    parallel_backend = "threads"  # stateless numba kernels that release the GIL
    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee",
            mean=212.18,
            sd=59.38,
            n_games=100_000,
            note="the reading of the paper's text alone, on the official rules; v2 plays as "
            "the paper's program",
            gaps=(
                Gap(
                    "mean",
                    224.3452,
                    "the paper's text leaves rules open that its program settles (v2 agrees); "
                    "Glenn 2007 reports 218.18",
                ),
                Gap("sd", 68.2169, "as the mean"),
            ),
        ),
    )

    def __init__(
        self,
        throw_away: tuple[str, ...] = DEFAULT_THROW_AWAY,
        no_four_of_a_kind_first_round: bool = True,
    ) -> None:
        self.throw_away = tuple(throw_away)
        self.no_four_of_a_kind_first_round = no_four_of_a_kind_first_round

    def prepare(self, rules) -> None:
        self.check_rules(rules)
        if sorted(self.throw_away) != sorted(YAHTZEE_BOXES):
            raise StrategyError("glenn-2007-rules: throw_away must list each of the 13 boxes once")
        self._throw_away = np.array([YAHTZEE_BOXES.index(n) for n in self.throw_away])

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty((len(view), 6), dtype=np.int8)
        glenn_keep(view.dice, view.used, view.flag, view.rules.joker != "none", out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        glenn_box(
            view.dice,
            view.box_points,
            view.upper_total,
            view.turn == 0,
            self.no_four_of_a_kind_first_round,
            self._throw_away,
            out,
        )
        return out


class PrioritizeUpper(Glenn2007Rules):
    """ "Simulating Yahtzee"'s "Prioritize Upper Section" variant of the Glenn 2007 rules (§IV.d).

    While the upper bonus is not earned it keeps the dice of the open upper box with the
    largest expected upper points after the next roll ("Simulating Yahtzee"'s example:
    3 2 3 2 3 with Ones, Twos and Sixes open keeps 2 2), and scores a Yahtzee in its box
    first, then the open upper box with the most points if any scores; otherwise it plays the rules.
    "Simulating Yahtzee", Table 2: 192.92 ± 53.82.
    """

    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee",
            mean=192.92,
            sd=53.82,
            n_games=100_000,
            note="the reading of the paper's text alone; v2 plays as the paper's program",
            gaps=(
                Gap(
                    "mean",
                    183.6697,
                    "the paper's wording leaves the upper targets open (v2 agrees)",
                ),
                Gap("sd", 62.0846, "as the mean"),
            ),
        ),
    )

    def keep(self, view: TurnView) -> np.ndarray:
        out = super().keep(view)
        upper_keep(view.dice, view.used, view.upper_total, out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        out = super().box(view)
        upper_box(view.dice, view.box_points, view.upper_total, out)
        return out


class PrioritizeYahtzee(Glenn2007Rules):
    """ "Simulating Yahtzee"'s "Prioritize Yahtzee" variant of the Glenn 2007 rules (§IV.d).

    Until a Yahtzee has been earned (the Yahtzee box holds 50) it keeps the most frequent
    face (ties: a face whose upper box is open, then the higher face), even after the
    box was scratched, as the paper's wording says; scoring follows the rules, which
    already prefer Yahtzees. "Simulating Yahtzee", Table 2: 163.26 ± 64.47.
    """

    references = (
        Reference(
            '"Simulating Yahtzee", Table 2',
            "yahtzee",
            mean=163.26,
            sd=64.47,
            n_games=100_000,
            note="the reading of the paper's text alone; v2 plays as the paper's program",
            gaps=(
                Gap(
                    "mean",
                    193.9922,
                    "the paper's text alone does not say when to stop chasing Yahtzees; its "
                    "program does (v2 agrees)",
                ),
                Gap("sd", 81.1223, "as the mean"),
            ),
        ),
    )

    def keep(self, view: TurnView) -> np.ndarray:
        out = super().keep(view)
        earned = view.box_scores[:, YAHTZEE] > 0  # the Yahtzee box holds 50
        yahtzee_keep(view.dice, view.used, earned, out)
        return out


# ------------------------------------------------------------------ kernels
@njit(cache=True, nogil=True)
def glenn_keep(counts, used, flag, joker, out):
    """Table V for every game: kept face counts into ``out``."""
    for i in range(counts.shape[0]):
        c = counts[i]
        u = used[i]
        op = np.empty(N_BOXES, dtype=np.bool_)
        read_open_boxes(u, op)
        for f in range(N_FACES):
            out[i, f] = 0
        big, f3, pair_hi, pair_open_hi, n_open_upper = face_scan(c, op, True)
        if big == 5 and (op[YAHTZEE] or joker):
            keep_every_die(out, i, c)
            continue
        if run_start(c, 5) >= 0 and (op[LARGE_STRAIGHT] or op[SMALL_STRAIGHT]):
            keep_every_die(out, i, c)
            continue
        r4 = run_start(c, 4)
        if r4 >= 0 and (op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and op[CHANCE])):
            for f in range(r4, r4 + 4):
                out[i, f] = 1
            continue
        if f3 >= 0 and op[f3]:
            out[i, f3] = c[f3]
            continue
        if f3 >= 0 and (op[THREE_OF_A_KIND] or op[FOUR_OF_A_KIND] or op[FULL_HOUSE] or op[CHANCE]):
            out[i, f3] = c[f3]
            continue
        if pair_open_hi >= 0:
            out[i, pair_open_hi] = 2
            continue
        s345 = c[2] > 0 and c[3] > 0 and c[4] > 0
        s234 = c[1] > 0 and c[2] > 0 and c[3] > 0
        if (s345 or s234) and (op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and op[CHANCE])):
            lo = 2 if s345 else 1
            for f in range(lo, lo + 3):
                out[i, f] = 1
            continue
        if pair_hi >= 0 and (op[THREE_OF_A_KIND] or op[CHANCE]):
            out[i, pair_hi] = 2
            continue
        if f3 >= 0 and (op[YAHTZEE] or flag[i] >= 1):
            out[i, f3] = c[f3]
            continue
        if n_open_upper <= 4:
            low = -1
            for f in range(N_FACES):
                if c[f] >= 1 and op[f]:
                    low = f
                    break
            if low >= 0:
                out[i, low] = 1
                continue
        if pair_hi >= 0:
            out[i, pair_hi] = 2
            continue
        if op[THREE_OF_A_KIND] or op[FOUR_OF_A_KIND] or op[CHANCE]:
            for f in range(5, 2, -1):
                if c[f] >= 1:
                    out[i, f] = 1
                    break


@njit(cache=True, nogil=True)
def glenn_box(counts, pts, upper_total, first_round, no_4k_first, throw_away, out):
    """Table VI for every game, ``pts`` = legal points (-1 illegal): box index into ``out``."""
    for i in range(counts.shape[0]):
        c = counts[i]
        p = pts[i]
        total = 0
        f3 = -1
        big = 0
        for f in range(N_FACES):
            total += (f + 1) * c[f]
            big = max(big, c[f])
            if c[f] >= 3:
                f3 = f
        skip4k = first_round and no_4k_first
        choice = -1
        if big == 5 and p[YAHTZEE] > 0:
            choice = YAHTZEE
        elif p[LARGE_STRAIGHT] > 0:
            choice = LARGE_STRAIGHT
        elif p[SMALL_STRAIGHT] > 0:
            choice = SMALL_STRAIGHT
        elif (
            f3 >= 0
            and p[f3] >= 0
            and upper_total[i] < 63
            and upper_total[i] + c[f3] * (f3 + 1) >= 63
        ):
            choice = f3
        elif c[5] >= 4 and p[SIXES] >= 0:
            choice = SIXES
        elif c[4] >= 4 and p[FIVES] >= 0:
            choice = FIVES
        elif p[FOUR_OF_A_KIND] > 0 and not skip4k:
            choice = FOUR_OF_A_KIND
        elif c[5] >= 3 and p[SIXES] >= 0:
            choice = SIXES
        elif c[4] >= 3 and p[FIVES] >= 0:
            choice = FIVES
        elif p[FULL_HOUSE] > 0:
            choice = FULL_HOUSE
        elif p[THREE_OF_A_KIND] >= 22:
            choice = THREE_OF_A_KIND
        elif f3 >= 0 and p[f3] >= 0:
            choice = f3
        elif p[THREE_OF_A_KIND] > 0:
            choice = THREE_OF_A_KIND
        elif total >= 22 and p[CHANCE] >= 0:
            choice = CHANCE
        else:
            for f in range(N_FACES):
                if c[f] == 2 and p[f] >= 0:
                    choice = f
                    break
        if choice < 0:
            choice = _throw_away_box(p, throw_away, skip4k)
        out[i] = choice


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _throw_away_box(p, throw_away, skip4k):
    """The first legal box of ``throw_away`` (Four of a kind skipped when ``skip4k``)."""
    for j in range(throw_away.shape[0]):
        b = throw_away[j]
        if b == FOUR_OF_A_KIND and skip4k:
            continue
        if p[b] >= 0:
            return b
    return FOUR_OF_A_KIND  # only Four of a kind left in round 1: no choice


@njit(cache=True, nogil=True)
def upper_keep(counts, used, upper_total, out):
    """Prioritize Upper Section: while the bonus is not earned, keep the dice of the open
    upper box with the largest expected upper points after the next roll,
    ``f * (c_f + (n - c_f) / 6)``; ties: more dice kept, then the lower face.
    Other games keep ``out`` (the rules' keep) unchanged."""
    n_dice = 5
    for i in range(counts.shape[0]):
        if upper_total[i] >= 63:
            continue
        best = -1.0
        best_f = -1
        for f in range(N_FACES):
            if (used[i] >> f) & 1:
                continue
            c = counts[i, f]
            v = (f + 1) * (c + (n_dice - c) / 6.0)
            if v > best + 1e-12 or (abs(v - best) <= 1e-12 and c > counts[i, best_f]):
                best = v
                best_f = f
        if best_f >= 0:
            for f in range(N_FACES):
                out[i, f] = counts[i, f] if f == best_f else 0


@njit(cache=True, nogil=True)
def upper_box(counts, pts, upper_total, out):
    """Prioritize Upper Section scoring: a Yahtzee in the Yahtzee box first; while the
    bonus is not earned, the open upper box with the most points if any scores; other
    games keep ``out`` (the rules' choice)."""
    for i in range(counts.shape[0]):
        p = pts[i]
        five = False
        for f in range(N_FACES):
            if counts[i, f] == 5:
                five = True
        if five and p[YAHTZEE] > 0:
            out[i] = 11
            continue
        if upper_total[i] >= 63:
            continue
        best = 0
        best_f = -1
        for f in range(N_FACES):
            if p[f] > best:
                best = p[f]
                best_f = f
        if best_f >= 0:
            out[i] = best_f


@njit(cache=True, nogil=True)
def yahtzee_keep(counts, used, earned, out):
    """Prioritize Yahtzee: until a Yahtzee has been earned (``earned``), keep the most
    frequent face;
    ties prefer a face whose upper box is open, then the higher face. Other games keep
    ``out`` (the rules' keep)."""
    for i in range(counts.shape[0]):
        if earned[i]:
            continue
        best_f = -1
        for f in range(5, -1, -1):
            if best_f < 0:
                best_f = f
                continue
            c, cb = counts[i, f], counts[i, best_f]
            open_f = (used[i] >> f) & 1 == 0
            open_b = (used[i] >> best_f) & 1 == 0
            if c > cb or (c == cb and open_f and not open_b):
                best_f = f
        for f in range(N_FACES):
            out[i, f] = counts[i, f] if f == best_f else 0
