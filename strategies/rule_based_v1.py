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

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.strategy import Gap, Reference, Strategy
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.decision_tables import tables_from_positions
from yahtzee_sim.strategies._yahtzee_boxes import (
    YAHTZEE,
    YAHTZEE_BOXES,
    YahtzeeBoxes,
    counts_of,
    flag_of,
    points_of,
    upper_total_of,
    used_of,
)
from yahtzee_sim.strategies.rule_based_v1_kernels import (
    glenn_box,
    glenn_keep,
    rules_tables,
    upper_box,
    upper_keep,
    yahtzee_keep,
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

    parallel_backend = "threads"  # stateless compiled kernels that release the GIL
    upper_first = False  # Prioritize Upper Section's keeps and scoring over the rules'
    chase_yahtzees = False  # Prioritize Yahtzee's keeps over the rules'
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
        self._throw_away = np.array(
            [YAHTZEE_BOXES.index(n) for n in self.throw_away], dtype=np.int64
        )

    def keep(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty((len(view), 6), dtype=np.int8)
        glenn_keep(
            counts_of(view),
            used_of(view),
            flag_of(view),
            view.rules.joker != "none",
            out,
        )
        if self.upper_first:
            upper_keep(counts_of(view), used_of(view), upper_total_of(view), out)
        if self.chase_yahtzees:
            earned = view.box_scores[:, YAHTZEE] > 0  # the Yahtzee box holds 50
            yahtzee_keep(counts_of(view), used_of(view), earned, out)
        return out

    def box(self, view: TurnView) -> np.ndarray:
        self.prepare(view.rules)
        out = np.empty(len(view), dtype=np.int64)
        glenn_box(
            counts_of(view),
            points_of(view),
            upper_total_of(view),
            view.turn == 0,
            self.no_four_of_a_kind_first_round,
            self._throw_away,
            out,
        )
        if self.upper_first:
            upper_box(counts_of(view), points_of(view), upper_total_of(view), out)
        return out

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.decision_tables.decision_tables`), those of
        :meth:`keep` and :meth:`box` found in one compiled pass; the keeps do not read the
        rerolls left. ``None`` (ask :meth:`keep` and :meth:`box`) where Prioritize Yahtzee
        reads a Yahtzee box the state does not hold (rules without a Yahtzee flag)."""
        self.prepare(rules)
        if self.chase_yahtzees and not rules.has_yahtzee_flag:
            return None
        kr = kernel_rules(rules)

        def fill(positions, keep, cat):
            rules_tables(
                kr,
                self.no_four_of_a_kind_first_round,
                self._throw_away,
                self.upper_first,
                self.chase_yahtzees,
                positions,
                keep,
                cat,
                get_threads(),
            )

        return tables_from_positions(rules, states, fill)


class PrioritizeUpper(Glenn2007Rules):
    """ "Simulating Yahtzee"'s "Prioritize Upper Section" variant of the Glenn 2007 rules (§IV.d).

    While the upper bonus is not earned it keeps the dice of the open upper box with the
    largest expected upper points after the next roll ("Simulating Yahtzee"'s example:
    3 2 3 2 3 with Ones, Twos and Sixes open keeps 2 2), and scores a Yahtzee in its box
    first, then the open upper box with the most points if any scores; otherwise it plays the rules.
    "Simulating Yahtzee", Table 2: 192.92 ± 53.82.
    """

    upper_first = True
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


class PrioritizeYahtzee(Glenn2007Rules):
    """ "Simulating Yahtzee"'s "Prioritize Yahtzee" variant of the Glenn 2007 rules (§IV.d).

    Until a Yahtzee has been earned (the Yahtzee box holds 50) it keeps the most frequent
    face (ties: a face whose upper box is open, then the higher face), even after the
    box was scratched, as the paper's wording says; scoring follows the rules, which
    already prefer Yahtzees. "Simulating Yahtzee", Table 2: 163.26 ± 64.47.
    """

    chase_yahtzees = True
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
