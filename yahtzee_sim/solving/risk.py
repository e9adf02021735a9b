"""Risk-sensitive play: the largest expected exponential utility of the final score.

With ``u(x) = -exp(-θ x)`` (θ > 0, risk-averse) or ``u(x) = exp(-θ x)`` (θ < 0,
risk-seeking), ``E[u(score so far + points to come)]`` factorizes:
``exp(-θ · so far)`` times a function of the state alone, so no score lanes are
needed. One backward pass over the one widget in exponential lanes
(:mod:`yahtzee_sim._core.widget`) — as fast as the max-EV solver — gives the
value of every turn-start state and the decisions of ``risk:θ``. θ → 0 is max-EV
play. The *certainty equivalent* ``-ln E[exp(-θ X)] / θ`` is the sure score the
player values as much as the gamble.

This module is the *solver* and its table; the strategy that plays from the table is
:mod:`yahtzee_sim.strategies.risk` (``risk:θ``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from yahtzee_sim._kernels.lanes import exponential_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.errors import RiskError
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import encode_state, flag_size, n_states
from yahtzee_sim.solving import cache
from yahtzee_sim.solving.solver import backward
from yahtzee_sim.solving.target import max_score
from yahtzee_sim.validation import Real, check

#: Risk-sensitive play takes games without saved rolls.
RISK_PLAY = Feature("risk-sensitive play", FIXED_ROLLS)

#: The largest ``|θ| × max score``: beyond it ``exp`` leaves float64's range.
MAX_EXPONENT = 600.0


def check_theta(theta, rules: RuleSet) -> float:
    """θ as a float, or a :class:`RiskError` naming the allowed range."""
    theta = check("theta", theta, Real(finite=False), RiskError)
    limit = MAX_EXPONENT / max_score(rules)
    if not math.isfinite(theta) or theta == 0.0 or abs(theta) > limit:
        raise RiskError(
            f"theta must be nonzero with |theta| <= {limit:.4g} under {rules.name} "
            f"(exp(theta x max score) must stay finite), got {theta!r}; theta 0 is max-EV play "
            "(strategy 'optimal')"
        )
    return theta


@dataclass(eq=False)
class RiskTable:
    """``±E[exp(-θ · points to come)]`` of every turn-start state under the best play
    (sign ``-`` for θ > 0, so that larger is better for every θ).

    Attributes
    ----------
    rules : RuleSet
    theta : float
    values : ndarray
        Indexed by state (:mod:`yahtzee_sim.game.state`).
    seconds : float
    meta : dict
    """

    rules: RuleSet
    theta: float
    values: np.ndarray
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    def lanes(self):
        """The table as widget lanes."""
        return exponential_lanes(self.values, scale_table(self.rules, self.theta))

    def certainty_equivalent(self, used: int = 0, upper: int = 0, flag: int = 0) -> float:
        """The sure number of points still to come worth as much as the best play from
        turn-start state (used, upper, flag)."""
        v = abs(float(self.values[encode_state(self.rules, used, upper, flag)]))
        return -math.log(v) / self.theta


def scale_table(rules: RuleSet, theta: float) -> np.ndarray:
    """``exp(-θ q)`` for every number of points one move can score (bonuses included).

    Each entry is the C library's ``exp`` (:func:`math.exp`), not NumPy's: ``np.exp`` runs
    a SIMD routine on AVX-512 processors whose last bit differs, and the tables must not
    depend on the processor."""
    kr = kernel_rules(rules)
    top = int(kr.box_max.max()) + rules.upper_bonus + rules.yahtzee_bonus + 1
    return np.array([math.exp(-theta * q) for q in range(top)], dtype=np.float64)


def solve_risk(rules: str | RuleSet, theta: float) -> RiskTable:
    """Solve exponential-utility play with risk parameter ``theta`` (see the module)."""
    rules = get_rules(rules)
    RISK_PLAY.check(rules)
    theta = check_theta(theta, rules)
    t0 = time.perf_counter()
    values = np.zeros(n_states(rules))
    full = encode_state(rules, (1 << rules.n_boxes) - 1, 0, 0)
    values[full : full + flag_size(rules) * (rules.upper_cap + 1)] = -1.0 if theta > 0 else 1.0
    table = RiskTable(rules, theta, values)
    backward(rules, table.lanes())
    table.seconds = time.perf_counter() - t0
    table.meta["source"] = "solved"
    return table


#: Tables by rules fingerprint and θ, kept in memory only (each solves in about a second).
TABLES = cache.table_cache("risk", max_entries=16, disk=False)


def risk_table(rules: str | RuleSet, theta: float) -> RiskTable:
    """The risk table of ``(rules, theta)``, solved once per process (about a second)."""
    rules = get_rules(rules)
    RISK_PLAY.check(rules)
    theta = check_theta(theta, rules)
    return TABLES.get(TABLES.key(rules, repr(theta)), solve=lambda: solve_risk(rules, theta))
