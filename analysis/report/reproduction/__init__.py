"""The reproduction of the published tables (``yahtzee-sim reproduce``).

:mod:`~yahtzee_sim.analysis.report.reproduction.papers` holds the papers' figures as data,
:mod:`~yahtzee_sim.analysis.report.reproduction.literature` the built-ins' own published
figures and ours, :mod:`~yahtzee_sim.analysis.report.reproduction.tables` computes ours
section by section into :mod:`~yahtzee_sim.analysis.report.reproduction.rows`,
:mod:`~yahtzee_sim.analysis.report.reproduction.build` runs it (``reproduce``) and
:mod:`~yahtzee_sim.analysis.report.reproduction.write` writes it.
"""
