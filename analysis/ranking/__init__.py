"""Ranking strategies: statistics with intervals (:mod:`~yahtzee_sim.analysis.ranking.stats`),
the full ranking with simultaneous intervals and tiers
(:mod:`~yahtzee_sim.analysis.ranking.pairwise`, :mod:`~yahtzee_sim.analysis.ranking.rank`,
:mod:`~yahtzee_sim.analysis.ranking.letters`; per-game scores on common random numbers
from :mod:`~yahtzee_sim.analysis.ranking.paired_games`), Kim–Nelson selection
(:mod:`~yahtzee_sim.analysis.ranking.kim_nelson`,
:mod:`~yahtzee_sim.analysis.ranking.selection`), multiple comparisons with the best
(:mod:`~yahtzee_sim.analysis.ranking.mcb`) and tournaments
(:mod:`~yahtzee_sim.analysis.ranking.tournament`)."""
