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

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.strategy import AGREEMENT_POINTS, Reference, Strategy
from yahtzee_sim.engine.summary import box_statistics
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.decision_tables import tables_from_positions
from yahtzee_sim.strategies._yahtzee_boxes import (
    N_BOXES,
    N_FACES,
    UPPER_BOXES,
    YAHTZEE_BOXES,
    YahtzeeBoxes,
    counts_of,
    points_of,
    upper_total_of,
    used_of,
)
from yahtzee_sim.strategies.rule_based_v2_kernels import (
    chase_keep,
    program_box,
    program_keep,
    program_tables,
    upper_first_keep,
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

    parallel_backend = "threads"  # stateless compiled kernels that release the GIL
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
        counts, used = counts_of(view), used_of(view)
        bonus_open = np.ascontiguousarray(view.yahtzee_bonus_open)
        counts_five = (view.flag == 0) | bonus_open
        program_keep(counts, used, counts_five, bonus_open, out)
        if self.upper_first:
            upper_first_keep(counts, used, upper_total_of(view), counts_five, out)
        if self.chase_yahtzees:
            chase_keep(counts, used, counts_five, out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        program_box(
            counts_of(view),
            points_of(view),
            upper_total_of(view),
            np.ascontiguousarray(view.yahtzee_bonus_open),
            view.turn == 0 and self.no_four_of_a_kind_first_round,
            self._rank,
            self.upper_first,
            out,
        )
        return out

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.decision_tables.decision_tables`), those of
        :meth:`keep` and :meth:`box` found in one compiled pass; the keeps do not read the
        rerolls left."""
        self.prepare(rules)
        kr = kernel_rules(rules)

        def fill(positions, keep, cat):
            program_tables(
                kr,
                self._rank,
                self.no_four_of_a_kind_first_round,
                self.upper_first,
                self.chase_yahtzees,
                positions,
                keep,
                cat,
                get_threads(),
            )

        return tables_from_positions(rules, states, fill)


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
