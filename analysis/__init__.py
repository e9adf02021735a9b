"""Analysis of results: statistics with intervals, Kim–Nelson selection, MCB, plots."""

from .kim_nelson import KNResult, SelectionError, kim_nelson, kn_constants
from .mcb import mcb
from .plots import PALETTE, plot_pmf
from .selection import DEFAULT_BATCH, METRICS, select_best
from .stats import paired_difference, summarize

__all__ = [
    "DEFAULT_BATCH",
    "METRICS",
    "PALETTE",
    "KNResult",
    "SelectionError",
    "kim_nelson",
    "kn_constants",
    "mcb",
    "paired_difference",
    "plot_pmf",
    "select_best",
    "summarize",
]
