"""Analysis of results: statistics with intervals, Kim–Nelson selection, MCB, plots."""

from .headtohead import win_matrix, win_probability
from .kim_nelson import KNResult, SelectionError, kim_nelson, kn_constants
from .mcb import mcb
from .plots import (
    PALETTE,
    plot_category_means,
    plot_kn_trace,
    plot_pmf,
    plot_regret,
    plot_score_histogram,
    plot_survival,
    plot_win_matrix,
)
from .regret import RegretResult, regret
from .selection import DEFAULT_BATCH, METRICS, select_best
from .stats import paired_difference, summarize

__all__ = [
    "DEFAULT_BATCH",
    "METRICS",
    "PALETTE",
    "KNResult",
    "RegretResult",
    "SelectionError",
    "kim_nelson",
    "kn_constants",
    "mcb",
    "paired_difference",
    "plot_category_means",
    "plot_kn_trace",
    "plot_pmf",
    "plot_regret",
    "plot_score_histogram",
    "plot_survival",
    "plot_win_matrix",
    "regret",
    "select_best",
    "summarize",
    "win_matrix",
    "win_probability",
]
