"""Analysis of results, by what is asked: ranking strategies (``ranking/``: statistics
with intervals, the full ranking, Kim–Nelson selection, MCB, tournaments), how a strategy decides
(``decisions/``: regret, the coach, decision datasets, distilled cards, saved rolls), the
report and the reproduction of the published tables (``report/``), head to head and plots.
The names below are the ones to import from ``yahtzee_sim.analysis``."""

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
from yahtzee_sim.analysis.ranking.selection import DEFAULT_BATCH, METRICS, WinMetric, select_best
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
