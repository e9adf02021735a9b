"""Glenn (2006) §7 strategies that play each turn optimally against an estimate E'(S)
of the value of the next state (Glenn 2006, Table 3).

* ``glenn-greedy``: E'(S) = 0 — the most points this turn (bonuses reached included);
  ties go to the harder box (Four of a kind before Three of a kind).
* ``glenn-heuristic``: E'(S) = the sum of each open box's expected score under optimal
  play + the expected upper bonus, with the remaining upper total taken as normal with
  the summed variances of the open upper boxes + 0 for Yahtzee bonuses.
* ``glenn-better-heuristic``: E'(S) = the optimal value of an upper-only game (no bonus)
  over the open upper boxes + that of a lower-only game over the open lower boxes + the
  same upper-bonus estimate + 0.

The per-box means and variances under optimal play are measured on 200,000 simulated
optimal games (seed 0) — the paper took them from Verhoeff's exact tables. Those of
``yahtzee`` and ``yahtzee-free-joker`` ship with the package (``glenn2006_moments.json``;
``python tools/shipped_moments.py`` writes them again, ``--check`` compares them).
Table 3: Greedy 218.05 ± 46.87, Heuristic 240.67 ± 60.90, Better Heuristic 244.87 ± 57.39.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import numpy as np
from scipy.stats import norm

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.engine.strategy import AGREEMENT_POINTS, Gap, Reference, Strategy
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.exact.decision_tables import tables_from_positions
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import decode_state, n_states
from yahtzee_sim.solving.cache import TableCache
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies._yahtzee_boxes import (
    UPPER_BOXES,
    YahtzeeBoxes,
    counts_of,
    points_of,
    used_of,
)
from yahtzee_sim.strategies.glenn2006_kernels import best_gain_box, chaser_keep, chaser_tables
from yahtzee_sim.strategies.optimal import Optimal, TableStrategy

#: Boxes from easiest to hardest: on equal points the harder box is filled first.
DIFFICULTY = (
    "chance",
    *UPPER_BOXES,
    "three_of_a_kind",
    "small_straight",
    "full_house",
    "four_of_a_kind",
    "large_straight",
    "yahtzee",
)
_EPS = 1e-7  # tie-breaking weight, far below any real difference of expected points
#: Box moments under optimal play, by rule set: in memory and in the table cache folder
#: (the simulation behind them takes seconds; key ``v1``: these games and seed).
_MOMENTS = TableCache("box-moments", parts=("mean", "var"))
_MOMENT_GAMES = 200_000


def _states(rules):
    used, upper, _ = decode_state(rules, np.arange(n_states(rules)))
    return used, upper


def _tie_break(rules, used) -> np.ndarray:
    """``_EPS`` times the summed difficulty rank of the filled boxes of each ``used`` mask
    (a sum of small integers, exact in any order: computed once per mask)."""
    rank = np.array([DIFFICULTY.index(n) for n in rules.box_names], dtype=np.float64)
    masks = np.arange(1 << rules.n_boxes)
    bits = (masks[:, None] >> np.arange(rules.n_boxes)[None, :]) & 1
    return _EPS * (bits @ rank)[used]


#: The rule sets whose box moments ship with the package (:data:`SHIPPED_MOMENTS`).
SHIPPED_MOMENT_RULES = ("yahtzee", "yahtzee-free-joker")
#: The file of the shipped box moments, beside this module: by table key, each box's mean
#: and variance as exact hexadecimal floats (``python tools/shipped_moments.py`` writes it).
SHIPPED_MOMENTS = "glenn2006_moments.json"


def simulated_box_moments(rules) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance (``ddof=1``) of each box's score in 200,000 games of optimal play
    (seed 0)."""
    res = simulate(Optimal(), _MOMENT_GAMES, seed=0, rules=rules, progress=False)
    s = res.box_scores.astype(np.float64)
    return s.mean(axis=0), s.var(axis=0, ddof=1)


def shipped_box_moments(rules) -> tuple[np.ndarray, np.ndarray] | None:
    """The box moments of ``rules`` that ship with the package (those of
    :func:`simulated_box_moments`, bit for bit), or ``None``: none ship for its rules."""
    try:
        shipped = json.loads(resources.files(__package__).joinpath(SHIPPED_MOMENTS).read_text())
    except (OSError, ValueError):
        return None
    entry = shipped.get(TableCache.key(rules, "v1")) if isinstance(shipped, dict) else None
    if not isinstance(entry, dict) or len(entry.get("mean", ())) != rules.n_boxes:
        return None
    mean, var = ([float.fromhex(x) for x in entry[part]] for part in ("mean", "var"))
    return np.array(mean), np.array(var)


def optimal_box_moments(rules) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of each box's score under optimal play (200,000 games, seed 0):
    shipped with the package for :data:`SHIPPED_MOMENT_RULES`, simulated once for other
    rules (then read from the table cache)."""

    def solve():
        return shipped_box_moments(rules) or simulated_box_moments(rules)

    def restore(read):
        got = read(rules.n_boxes, rules.n_boxes)
        return None if got is None else tuple(got)

    return _MOMENTS.get(TableCache.key(rules, "v1"), solve=solve, arrays=list, restore=restore)


def upper_bonus_estimate(rules, used, upper, means, variances) -> np.ndarray:
    """35 x P(upper total + remaining upper points >= 63), remaining ~ Normal."""
    is_up = np.array([c.is_upper for c in rules.boxes])
    open_up = ((used[:, None] >> np.arange(rules.n_boxes)[None, :]) & 1 == 0) & is_up
    mu = open_up @ means
    var = open_up @ variances
    need = rules.upper_bonus_threshold - upper
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(
            var > 0,
            norm.sf((need - mu) / np.sqrt(np.maximum(var, 1e-300))),
            (mu >= need).astype(float),
        )
    p = np.where(upper >= rules.upper_bonus_threshold, 0.0, p)  # already paid when reached
    return rules.upper_bonus * p


#: The note of the v1 chasers' references.
V1_NOTE = "v1 scores ties to the first box"


def glenn_table_3(mean: float, sd: float, note: str, gaps: tuple[Gap, ...]) -> Reference:
    """A row of Glenn 2006, Table 3 (Yahtzee with the free-choice joker): its mean and SD,
    which ours meet within the paper's precision (:data:`AGREEMENT_POINTS`) or by the
    documented ``gaps``."""
    return Reference(
        "Glenn 2006, Table 3",
        "yahtzee-free-joker",
        mean=mean,
        sd=sd,
        tolerance=AGREEMENT_POINTS,
        note=note,
        gaps=gaps,
    )


class GlennGreedy(YahtzeeBoxes, TableStrategy):
    """Glenn 2006 greedy: E'(S) = 0, ties to the harder box (Table 3: 218.05 ± 46.87)."""

    references = (
        Reference(
            "Glenn 2006, Table 3",
            "yahtzee-free-joker",
            mean=218.05,
            sd=46.87,
            tolerance=AGREEMENT_POINTS,
            note="ties go to the harder box, as the paper states",
        ),
    )

    def __init__(self) -> None:
        pass

    def state_values(self, rules) -> np.ndarray:
        self.check_rules(rules)
        used, _ = _states(rules)
        return _tie_break(rules, used)


class GlennHeuristic(YahtzeeBoxes, TableStrategy):
    """Glenn 2006 heuristic: E' from per-box optimal means + normal-approximation upper
    bonus (Table 3: 240.67 ± 60.90)."""

    capabilities = replace(YahtzeeBoxes.capabilities, solved_table=True)  # optimal play's
    references = (
        glenn_table_3(
            240.67,
            60.9,
            "",
            (
                Gap(
                    "mean",
                    242.1730,
                    "the box moments are estimated from 200,000 games of optimal play, and the "
                    "paper does not give its normal approximation of the upper bonus in full",
                ),
            ),
        ),
    )

    def __init__(self) -> None:
        pass

    def state_values(self, rules) -> np.ndarray:
        self.check_rules(rules)
        used, upper = _states(rules)
        means, variances = optimal_box_moments(rules)
        bits = (used[:, None] >> np.arange(rules.n_boxes)[None, :]) & 1
        values = (1 - bits) @ means
        values += upper_bonus_estimate(rules, used, upper, means, variances)
        return values + _tie_break(rules, used)


def sub_games(rules) -> tuple[RuleSet, RuleSet]:
    """The upper-only and lower-only games of ``rules`` (no bonuses, no joker) whose
    max-EV tables :class:`GlennBetterHeuristic` adds up."""
    n_up = rules.n_upper
    return (
        _sub_game(rules, rules.box_names[:n_up], "upper-only"),
        _sub_game(rules, rules.box_names[n_up:], "lower-only"),
    )


def _sub_game(rules, names, label) -> RuleSet:
    cats = tuple(c for c in rules.boxes if c.name in names)
    return RuleSet(
        name=f"{rules.name}-{label}",
        n_dice=rules.n_dice,
        n_faces=rules.n_faces,
        rolls_per_turn=rules.rolls_per_turn,
        boxes=cats,
        upper_bonus=0,
        yahtzee_bonus=0,
        joker="none",
    )


class GlennBetterHeuristic(YahtzeeBoxes, TableStrategy):
    """Glenn 2006 better heuristic: optimal upper-only and lower-only game values +
    normal-approximation upper bonus (Table 3: 244.87 ± 57.39)."""

    capabilities = replace(YahtzeeBoxes.capabilities, solved_table=True)  # optimal play's
    references = (
        glenn_table_3(
            244.87,
            57.39,
            "",
            (
                Gap(
                    "mean",
                    248.9184,
                    "ours plays better than the paper's: the upper and lower sub-games are "
                    "solved exactly, and the paper does not give its upper-bonus estimate",
                ),
                Gap("sd", 59.1649, "follows the mean"),
            ),
        ),
    )

    def __init__(self) -> None:
        pass

    def state_values(self, rules) -> np.ndarray:
        self.check_rules(rules)
        used, upper = _states(rules)
        n_up = rules.n_upper
        upper_game, lower_game = sub_games(rules)
        v_up = value_table(upper_game).values
        v_low = value_table(lower_game).values
        values = v_up[used & ((1 << n_up) - 1)] + v_low[used >> n_up]
        means, variances = optimal_box_moments(rules)
        values = values + upper_bonus_estimate(rules, used, upper, means, variances)
        return values + _tie_break(rules, used)


#: Keep rules of the Yahtzee chasers (see :func:`chaser_keep`).
KEEP_MOST_FREQUENT, KEEP_STRAIGHTS_TOO, KEEP_RATIONALLY = 0, 1, 2


class _YahtzeeChaser(YahtzeeBoxes, Strategy):
    """Glenn 2006 Yahtzee-minded rules: rule-based keeps, greedy scoring (most points now,
    bonuses reached included; v1: ties to the first box in card order, v2: to the harder
    box, Glenn's own greedy tie rule, :data:`DIFFICULTY`)."""

    abstract = True
    parallel_backend = "threads"
    keep_rule = KEEP_MOST_FREQUENT
    ties_to_harder = False

    def __init__(self) -> None:
        pass

    def keep(self, view):
        self.check_rules(view.rules)
        out = np.empty((len(view), view.rules.n_faces), dtype=np.int8)
        chaser_keep(counts_of(view), used_of(view), self.keep_rule, out)
        return out

    def _tie_order(self, rules) -> np.ndarray:
        """The boxes in the order scoring ties are settled (the first wins)."""
        names = rules.box_names
        order = np.arange(len(names))
        if self.ties_to_harder:  # the last of the best in difficulty order
            rank = np.array([DIFFICULTY.index(n) for n in names])
            order = np.argsort(-rank, kind="stable")  # hardest first
        return np.ascontiguousarray(order, np.int64)

    def box(self, view):
        out = np.empty(len(view), dtype=np.int64)
        bonus = np.ascontiguousarray(view.bonus_points(), np.int64)
        best_gain_box(points_of(view), bonus, self._tie_order(view.rules), out)
        return out

    def decision_table(self, rules, states: np.ndarray):
        """Decisions at every roll of ``states`` for exact evaluation (the batched
        protocol of :func:`yahtzee_sim.exact.decision_tables.decision_tables`), those of
        :meth:`keep` and :meth:`box` found in one compiled pass; the keeps do not read the
        rerolls left."""
        self.check_rules(rules)
        kr, order = kernel_rules(rules), self._tie_order(rules)

        def fill(positions, keep, cat):
            chaser_tables(kr, self.keep_rule, order, positions, keep, cat, get_threads())

        return tables_from_positions(rules, states, fill)


class YahtzeesOnly(_YahtzeeChaser):
    """Glenn 2006 "Yahtzees Only": keep the most frequent face (Table 3: 171.52 ± 68.17)."""

    keep_rule = KEEP_MOST_FREQUENT
    references = (
        glenn_table_3(
            171.52,
            68.17,
            V1_NOTE,
            (
                Gap(
                    "mean",
                    165.8344,
                    "ties go to the first box; the paper's go to the harder box (v2)",
                ),
                Gap("sd", 70.6193, "ties go to the first box (v2 follows the paper)"),
            ),
        ),
    )


class YahtzeesAndStraights(_YahtzeeChaser):
    """Glenn 2006 "Yahtzees and Straights" (Table 3: 202.51 ± 65.90)."""

    keep_rule = KEEP_STRAIGHTS_TOO
    references = (
        glenn_table_3(
            202.51,
            65.9,
            V1_NOTE,
            (Gap("sd", 67.8963, "ties go to the first box (v2 follows the paper)"),),
        ),
    )


class RationalYahtzees(_YahtzeeChaser):
    """Glenn 2006 "Rational Yahtzees" (Table 3: 219.86 ± 65.99)."""

    keep_rule = KEEP_RATIONALLY
    references = (
        glenn_table_3(
            219.86,
            65.99,
            V1_NOTE,
            (
                Gap(
                    "mean",
                    201.9217,
                    'the paper gives one refinement of the keep rule only ("among other '
                    'things"); ties go to the first box',
                ),
                Gap("sd", 67.4914, "follows the mean"),
            ),
        ),
    )


class YahtzeesOnlyV2(YahtzeesOnly):
    """Glenn 2006 "Yahtzees Only", scoring ties to the harder box (Glenn's greedy tie rule);
    v1 ties to the first box. Table 3: 171.52 ± 68.17."""

    ties_to_harder = True
    references = (
        glenn_table_3(
            171.52,
            68.17,
            "",
            (
                Gap(
                    "mean",
                    168.4460,
                    "unexplained: the keep and tie rules are the paper's; other readings of "
                    "the keep ties move the mean by less than a point",
                ),
                Gap("sd", 67.0051, "follows the mean"),
            ),
        ),
    )


class YahtzeesAndStraightsV2(YahtzeesAndStraights):
    """Glenn 2006 "Yahtzees and Straights", scoring ties to the harder box; v1 ties to the
    first box. Table 3: 202.51 ± 65.90."""

    ties_to_harder = True
    references = (
        glenn_table_3(202.51, 65.9, "", (Gap("sd", 64.2690, "unexplained: the mean agrees"),)),
    )


class RationalYahtzeesV2(RationalYahtzees):
    """Glenn 2006 "Rational Yahtzees", scoring ties to the harder box; v1 ties to the first
    box. Table 3: 219.86 ± 65.99."""

    ties_to_harder = True
    references = (
        glenn_table_3(
            219.86,
            65.99,
            "",
            (
                Gap(
                    "mean",
                    203.2383,
                    'the paper gives one refinement of the keep rule only ("among other '
                    'things"), which is all this strategy has',
                ),
                Gap("sd", 63.9531, "follows the mean"),
            ),
        ),
    )
