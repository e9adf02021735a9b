"""The built-in strategy families, registered in code: versioned id → ``"module:Class"``.

Importing :mod:`yahtzee_sim.strategies` (which ``import yahtzee_sim`` does) hands this
table to the registry (:func:`yahtzee_sim.engine.registry.register_built_ins`); each module
is imported when one of its ids is first asked for. A new family in a source checkout is a
module in ``strategies/`` and its ids here: seen at once, without reinstalling. Installed
packages declare theirs as entry points (group ``yahtzee_sim_strategies``).
"""

from __future__ import annotations

#: Every built-in id (``ID-vN``; the bare ``ID`` is the highest version) and its class.
BUILT_IN: dict[str, str] = {
    "card-10-v1": "yahtzee_sim.strategies.cards.strategy:Card10",
    "card-100-v1": "yahtzee_sim.strategies.cards.strategy:Card100",
    "card-20-v1": "yahtzee_sim.strategies.cards.strategy:Card20",
    "card-30-v1": "yahtzee_sim.strategies.cards.strategy:Card30",
    "card-50-v1": "yahtzee_sim.strategies.cards.strategy:Card50",
    "card-v1": "yahtzee_sim.strategies.cards.strategy:CardStrategy",
    "chase-v1": "yahtzee_sim.strategies.win_seeking_visible:Chase",
    "defensive-v1": "yahtzee_sim.strategies.defensive:DefensiveYahtzee",
    "glenn-2007-rules-v1": "yahtzee_sim.strategies.rule_based_v1:Glenn2007Rules",
    "glenn-2007-rules-v2": "yahtzee_sim.strategies.rule_based_v2:Glenn2007Program",
    "glenn-better-heuristic-v1": "yahtzee_sim.strategies.glenn2006:GlennBetterHeuristic",
    "glenn-greedy-v1": "yahtzee_sim.strategies.glenn2006:GlennGreedy",
    "glenn-heuristic-v1": "yahtzee_sim.strategies.glenn2006:GlennHeuristic",
    "glenn-rational-yahtzees-v1": "yahtzee_sim.strategies.glenn2006:RationalYahtzees",
    "glenn-rational-yahtzees-v2": "yahtzee_sim.strategies.glenn2006:RationalYahtzeesV2",
    "glenn-yahtzees-and-straights-v1": "yahtzee_sim.strategies.glenn2006:YahtzeesAndStraights",
    "glenn-yahtzees-and-straights-v2": "yahtzee_sim.strategies.glenn2006:YahtzeesAndStraightsV2",
    "glenn-yahtzees-only-v1": "yahtzee_sim.strategies.glenn2006:YahtzeesOnly",
    "glenn-yahtzees-only-v2": "yahtzee_sim.strategies.glenn2006:YahtzeesOnlyV2",
    "greedy-v1": "yahtzee_sim.strategies.greedy:Greedy",
    "optimal-v1": "yahtzee_sim.strategies.optimal:Optimal",
    "prioritize-upper-v1": "yahtzee_sim.strategies.rule_based_v1:PrioritizeUpper",
    "prioritize-upper-v2": "yahtzee_sim.strategies.rule_based_v2:PrioritizeUpperProgram",
    "prioritize-yahtzee-v1": "yahtzee_sim.strategies.rule_based_v1:PrioritizeYahtzee",
    "prioritize-yahtzee-v2": "yahtzee_sim.strategies.rule_based_v2:PrioritizeYahtzeeProgram",
    "random-v1": "yahtzee_sim.strategies.random:PurelyRandom",
    "risk-v1": "yahtzee_sim.strategies.risk:RiskSensitive",
    "target-v1": "yahtzee_sim.strategies.target:TargetScore",
    "tiered-random-v1": "yahtzee_sim.strategies.random:TieredRandom",
    "win-aware-v1": "yahtzee_sim.strategies.win_seeking_visible:WinAware",
    "win-target-v1": "yahtzee_sim.strategies.win_seeking_visible:WinTarget",
    "win-v1": "yahtzee_sim.strategies.win_seeking_blind:BlindWinSeeking",
}
