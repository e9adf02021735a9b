"""The benchmark report and the reproduction of the published tables.

The report: :mod:`~yahtzee_sim.analysis.report.build` computes it (``build_report``),
:mod:`~yahtzee_sim.analysis.report.write` writes it (``write_report``); a new section
goes in both. :mod:`~yahtzee_sim.analysis.report.document` is the Markdown/HTML document
and its folder, :mod:`~yahtzee_sim.analysis.report.exact_cache` keeps the exact laws and
regrets of built-in strategies. The reproduction is in
:mod:`~yahtzee_sim.analysis.report.reproduction`.
"""
