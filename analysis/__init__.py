"""Analysis of results, by what is asked: ranking strategies (``ranking/``: statistics
with intervals, the full ranking, Kim–Nelson selection, MCB, tournaments), how a strategy decides
(``decisions/``: regret, the coach, decision datasets, distilled cards, saved rolls), the
report and the reproduction of the published tables (``report/``), head to head and plots.
The names below are the ones to import from ``yahtzee_sim.analysis``.

The names are imported on first use (the submodules bring in SciPy, pandas and
matplotlib), so that a command importing one analysis module does not pay for all."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: Each name of ``__all__`` and the module it is defined in.
_EXPORTS = {
    "RegretResult": "yahtzee_sim.analysis.decisions.regret",
    "regret": "yahtzee_sim.analysis.decisions.regret",
    "win_matrix": "yahtzee_sim.analysis.headtohead",
    "win_probability": "yahtzee_sim.analysis.headtohead",
    "PALETTE": "yahtzee_sim.analysis.plots",
    "plot_box_means": "yahtzee_sim.analysis.plots",
    "plot_kn_trace": "yahtzee_sim.analysis.plots",
    "plot_pmf": "yahtzee_sim.analysis.plots",
    "plot_ranking": "yahtzee_sim.analysis.plots",
    "plot_regret": "yahtzee_sim.analysis.plots",
    "plot_regret_by_turn": "yahtzee_sim.analysis.plots",
    "plot_risk_frontier": "yahtzee_sim.analysis.plots",
    "plot_score_histogram": "yahtzee_sim.analysis.plots",
    "plot_survival": "yahtzee_sim.analysis.plots",
    "plot_target_curve": "yahtzee_sim.analysis.plots",
    "plot_win_matrix": "yahtzee_sim.analysis.plots",
    "plot_win_sweep": "yahtzee_sim.analysis.plots",
    "KNResult": "yahtzee_sim.analysis.ranking.kim_nelson",
    "SelectionError": "yahtzee_sim.analysis.ranking.kim_nelson",
    "kim_nelson": "yahtzee_sim.analysis.ranking.kim_nelson",
    "kn_constants": "yahtzee_sim.analysis.ranking.kim_nelson",
    "mcb": "yahtzee_sim.analysis.ranking.mcb",
    "RankingResult": "yahtzee_sim.analysis.ranking.pairwise",
    "rank_scores": "yahtzee_sim.analysis.ranking.pairwise",
    "rank_strategies": "yahtzee_sim.analysis.ranking.rank",
    "DEFAULT_BATCH": "yahtzee_sim.analysis.ranking.selection",
    "METRICS": "yahtzee_sim.analysis.ranking.selection",
    "WinMetric": "yahtzee_sim.analysis.ranking.selection",
    "select_best": "yahtzee_sim.analysis.ranking.selection",
    "paired_difference": "yahtzee_sim.analysis.ranking.stats",
    "summarize": "yahtzee_sim.analysis.ranking.stats",
    "RoundRobinResult": "yahtzee_sim.analysis.ranking.tournament",
    "TournamentError": "yahtzee_sim.analysis.ranking.tournament",
    "TournamentResult": "yahtzee_sim.analysis.ranking.tournament",
    "exact_winning_law": "yahtzee_sim.analysis.ranking.tournament",
    "round_robin": "yahtzee_sim.analysis.ranking.tournament",
    "tournament": "yahtzee_sim.analysis.ranking.tournament",
    "strategy_styles": "yahtzee_sim.analysis.style",
}

__all__ = [
    "DEFAULT_BATCH",
    "METRICS",
    "PALETTE",
    "KNResult",
    "RankingResult",
    "RegretResult",
    "RoundRobinResult",
    "SelectionError",
    "TournamentError",
    "TournamentResult",
    "WinMetric",
    "exact_winning_law",
    "kim_nelson",
    "kn_constants",
    "mcb",
    "paired_difference",
    "plot_box_means",
    "plot_kn_trace",
    "plot_pmf",
    "plot_ranking",
    "plot_regret",
    "plot_regret_by_turn",
    "plot_risk_frontier",
    "plot_score_histogram",
    "plot_survival",
    "plot_target_curve",
    "plot_win_matrix",
    "plot_win_sweep",
    "rank_scores",
    "rank_strategies",
    "regret",
    "round_robin",
    "select_best",
    "strategy_styles",
    "summarize",
    "tournament",
    "win_matrix",
    "win_probability",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:  # the same names, for type checkers and static readers
    from yahtzee_sim.analysis.decisions.regret import RegretResult, regret
    from yahtzee_sim.analysis.headtohead import win_matrix, win_probability
    from yahtzee_sim.analysis.plots import (
        PALETTE,
        plot_box_means,
        plot_kn_trace,
        plot_pmf,
        plot_ranking,
        plot_regret,
        plot_regret_by_turn,
        plot_risk_frontier,
        plot_score_histogram,
        plot_survival,
        plot_target_curve,
        plot_win_matrix,
        plot_win_sweep,
    )
    from yahtzee_sim.analysis.ranking.kim_nelson import (
        KNResult,
        SelectionError,
        kim_nelson,
        kn_constants,
    )
    from yahtzee_sim.analysis.ranking.mcb import mcb
    from yahtzee_sim.analysis.ranking.pairwise import RankingResult, rank_scores
    from yahtzee_sim.analysis.ranking.rank import rank_strategies
    from yahtzee_sim.analysis.ranking.selection import (
        DEFAULT_BATCH,
        METRICS,
        WinMetric,
        select_best,
    )
    from yahtzee_sim.analysis.ranking.stats import paired_difference, summarize
    from yahtzee_sim.analysis.ranking.tournament import (
        RoundRobinResult,
        TournamentError,
        TournamentResult,
        exact_winning_law,
        round_robin,
        tournament,
    )
    from yahtzee_sim.analysis.style import strategy_styles
