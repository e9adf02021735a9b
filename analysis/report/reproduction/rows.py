"""What a reproduction holds: one :class:`Row` per published figure (the paper's, ours and
how ours was obtained) and the :class:`Reproduction` of a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

#: The fields of a :class:`Row` written to ``reproduction.csv`` and ``reproduction.json``,
#: in order (``difference`` follows them).
WRITTEN = (
    "table",
    "item",
    "paper",
    "ours",
    "method",
    "games",
    "ci_low",
    "ci_high",
    "note",
    "status",
)


@dataclass(frozen=True)
class Row:
    """One published figure and ours.

    ``table_id``, ``strategy`` and ``box`` are not written: they say where the writer
    places the row (the published table's identifier,
    :func:`~yahtzee_sim.analysis.report.reproduction.papers.sy_table_id`; the strategy
    and the box of a per-box figure).
    """

    table: str
    item: str
    paper: float
    ours: float
    method: str  # "exact" or "simulated"
    games: int | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""
    status: str = ""  # "agrees" or "gap" for a strategy's published figure; "" otherwise
    table_id: str = ""
    strategy: str = ""
    box: str = ""

    @property
    def difference(self) -> float:
        """Ours minus the paper's."""
        return self.ours - self.paper

    def record(self) -> dict:
        """The written fields (:data:`WRITTEN`) and the difference."""
        return {name: getattr(self, name) for name in WRITTEN} | {"difference": self.difference}


@dataclass(eq=False)
class Reproduction:
    """What :func:`~yahtzee_sim.analysis.report.reproduction.build.reproduce` computed (and
    wrote, with ``out``)."""

    rows: list[Row]
    sections: tuple[str, ...]
    games: int
    seed: int
    out: Path | None = None
    files: list[str] = field(default_factory=list)
    skipped: dict = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """One row per figure: ``table, item, paper, ours, difference, method, games, CI, note``."""
        cols = [*WRITTEN[:4], "difference", *WRITTEN[4:]]
        return pd.DataFrame([r.record() for r in self.rows], columns=cols)

    def gaps(self) -> pd.DataFrame:
        """The rows that are documented gaps: ``table, item, paper, ours, difference, note``."""
        frame = self.frame()
        cols = ["table", "item", "paper", "ours", "difference", "note"]
        return frame.loc[frame["status"] == "gap", cols].reset_index(drop=True)

    def to_dict(self) -> dict:
        """JSON-ready (no wall time: the same run gives the same dict)."""
        return {
            "out": None if self.out is None else str(self.out),
            "sections": list(self.sections),
            "games": self.games,
            "seed": self.seed,
            "files": self.files,
            "skipped": self.skipped,
            "rows": [r.record() for r in self.rows],
        }
