"""How a strategy decides: regret against optimal play
(:mod:`~yahtzee_sim.analysis.decisions.regret`), a game's decisions graded
(:mod:`~yahtzee_sim.analysis.decisions.coach`), decision datasets
(:mod:`~yahtzee_sim.analysis.decisions.dataset`), a card distilled from optimal decisions
(:mod:`~yahtzee_sim.analysis.decisions.distill`) and the rolls a strategy banks
(:mod:`~yahtzee_sim.analysis.decisions.saved_rolls`)."""
