"""Win-seeking play in a blind N-player game: the best response to known opponents.

Source: Glenn 2006 §8 (against a max-EV opponent whose score law is known, the
player who maximizes P(beating it) wins more than half the games); Perkins,
"Optimal Risk in Multiagent Blind Tournaments" (the best risk grows with the
number of players). In a *blind* game every player plays a solitaire game and the
highest final score wins (ties split equally, as
:func:`~yahtzee_sim.analysis.tournament` counts them); against ``N - 1`` opponents
with the exact final-score law of a deterministic strategy (``optimal`` by
default), P(win | my final score) is a known utility
(:func:`yahtzee_sim.solving.utility.win_utility`), and the utility solver gives the play
that maximizes its expectation — exactly P(win).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.solving.utility import utility_table, win_utility
from yahtzee_sim.strategies.utility import UtilityPlay
from yahtzee_sim.validation import Integer, check


def opponent_law(vs, rules) -> np.ndarray:
    """The exact final-score pmf of the opponents' strategy ``vs`` (a one-line
    :class:`StrategyError` for strategies without one, such as random play)."""
    from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate

    try:
        return evaluate(vs, rules).pmf
    except ExactEvaluationError as exc:
        raise StrategyError(
            f"win: the opponents' strategy {strategy_label(vs)!r} has no exact score law ({exc})"
        ) from None


class BlindWinSeeking(UtilityPlay):
    """Maximizes P(win) of a blind ``players``-player game against ``players - 1``
    opponents playing ``vs``; id ``win:N``.

    Parameters
    ----------
    players : int
        Players in the match (>= 2), this one included.
    vs : str or Strategy
        The opponents' strategy (deterministic: its exact law is used).
    """

    references = ()  # no published figures; results: docs/guide/target-utility-risk.md
    id_parameter = "players"  # the number of the id "win:5"
    in_all = False  # its table takes minutes per rule set
    # decisions depend on its own state and points (exact pair evaluation's key)
    capabilities = replace(UtilityPlay.capabilities, decision_key="own")

    def __init__(self, players: int = 2, vs="optimal") -> None:
        self.players = players
        self.vs = vs

    def table(self, rules):
        n = check("win: players", self.players, Integer(2), StrategyError)
        return win_table(rules, n, self.vs)

    def win_probability(self, rules) -> float:
        """Exact P(win) of this strategy against its opponents under ``rules``."""
        return self.expected_utility(rules)


def win_table(rules, players: int, vs="optimal", progress: bool = False):
    """The utility table of P(win) against ``players - 1`` opponents playing ``vs``."""
    u = win_utility(opponent_law(vs, rules), players)
    return utility_table(rules, u, progress=progress)
