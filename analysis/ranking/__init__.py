"""Ranking strategies: statistics with intervals (:mod:`~yahtzee_sim.analysis.ranking.stats`),
Kim–Nelson selection (:mod:`~yahtzee_sim.analysis.ranking.kim_nelson`,
:mod:`~yahtzee_sim.analysis.ranking.selection`), multiple comparisons with the best
(:mod:`~yahtzee_sim.analysis.ranking.mcb`) and tournaments
(:mod:`~yahtzee_sim.analysis.ranking.tournament`)."""
