"""Analysis of simulation results: statistics with intervals, Kim–Nelson selection, MCB."""

from .kim_nelson import KNResult, SelectionError, kim_nelson, kn_constants
from .mcb import mcb
from .selection import DEFAULT_BATCH, METRICS, select_best
from .stats import paired_difference, summarize

__all__ = [
    "DEFAULT_BATCH",
    "METRICS",
    "KNResult",
    "SelectionError",
    "kim_nelson",
    "kn_constants",
    "mcb",
    "paired_difference",
    "select_best",
    "summarize",
]
