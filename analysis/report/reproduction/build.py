"""Every published table the project can compute, next to the paper's figures.

:func:`reproduce` is what ``yahtzee-sim reproduce`` runs. Each row is one published
figure: ``table, item, paper, ours, difference, method`` (exact, or simulated with the
number of games and the 95% confidence interval of ours) and a note. Sections:

* ``reference-values`` — optimal expected scores of every rule set (Glenn 2006, Verhoeff
  1999, Tillius 2026, public solvers, the exact-value web page);
* ``glenn-2006`` — Glenn 2006, Table 3 (seven strategies, exact mean ± SD);
* ``simulating-yahtzee`` — "Simulating Yahtzee" Tables 2, 4, 5 and 8–11, on its engine's
  rules (``yahtzee-single-bonus``);
* ``kim-nelson`` — its Table 3, the Kim–Nelson sweep over δ × m, with single-game
  observations (as the paper) and with our batch means;
* ``defensive`` — Hellström & Jaccopucci 2015: min, 10th percentile, mean, max;
* ``tillius`` — Tillius 2026 Tables 3, 4–5 and 13 and the four-player winning score
  (Table 13 needs the Yatzy target table, several minutes: skipped by ``quick``).

Strategy figures are read from the strategies' own ``references``; figures about no one
strategy (Tillius's tables, the Kim–Nelson sweep, the web page) are in
:mod:`~yahtzee_sim.analysis.report.reproduction.papers`. Each section's rows are computed in
:mod:`~yahtzee_sim.analysis.report.reproduction.tables`;
:mod:`~yahtzee_sim.analysis.report.reproduction.write` writes them.
"""

from __future__ import annotations

from pathlib import Path

from tqdm.auto import tqdm

from yahtzee_sim.analysis.report.reproduction import tables
from yahtzee_sim.analysis.report.reproduction.papers import DEFAULT_GAMES, TILLIUS_SLOW_TABLE
from yahtzee_sim.analysis.report.reproduction.rows import Reproduction, Row
from yahtzee_sim.analysis.report.reproduction.write import write_reproduction
from yahtzee_sim.errors import ReproduceError
from yahtzee_sim.validation import Integer, check

SECTIONS = (
    "reference-values",
    "glenn-2006",
    "simulating-yahtzee",
    "kim-nelson",
    "defensive",
    "tillius",
)


def reproduce(
    sections=SECTIONS,
    quick: bool = False,
    n_games: int = DEFAULT_GAMES,
    seed: int = 2026,
    out: str | Path | None = None,
    n_jobs: int = 2,
    progress: bool = False,
    kn_deltas=None,
) -> Reproduction:
    """Compute every published table of ``sections`` (and write them to ``out``).

    Parameters
    ----------
    sections : sequence of str
        Any of :data:`SECTIONS` (default: all).
    quick : bool
        Skip what needs the Yatzy target table (Tillius Table 13) and run the final-score
        Kim–Nelson sweep (Table 3) for δ ≥ 1 only.
    n_games : int
        Games per simulated figure (the sources simulated 100,000).
    seed : int
    out : path, optional
        Folder for ``report.md``, ``report.html``, ``reproduction.csv``,
        ``kim_nelson.csv`` and the figures.
    n_jobs : int
    kn_deltas : sequence of float, optional
        Only these δ values in the Kim–Nelson sweeps (default: the paper's; with ``quick``
        Table 3 for δ ≥ 1 only).
    """
    n_games, out = _checked(sections, n_games, out)
    laws = tables.Laws(n_games, int(seed), int(n_jobs))
    skipped = {}
    if quick:
        skipped[f"Tillius 2026, {TILLIUS_SLOW_TABLE}"] = "quick: needs the Yatzy target table"
    rows, kn_frame = _sections(laws, sections, quick, progress, kn_deltas)
    rep = Reproduction(rows, tuple(sections), n_games, int(seed), out, skipped=skipped)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        rep.files = write_reproduction(rep, out, kn_frame)
    return rep


def _checked(sections, n_games, out) -> tuple[int, Path | None]:
    """``(games, out folder)`` once the arguments are checked."""
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown or not sections:
        raise ReproduceError(
            f"unknown sections {unknown or sections!r}; expected any of: {', '.join(SECTIONS)}"
        )
    n_games = check("games", n_games, Integer(100), ReproduceError)
    out = None if out is None else Path(out)
    if out is not None and out.exists() and not out.is_dir():
        raise ReproduceError(f"--out {str(out)!r} is a file, not a folder")
    return int(n_games), out


def _sections(laws: tables.Laws, sections, quick: bool, progress: bool, kn_deltas):
    """``(rows, Kim–Nelson runs or None)`` of the ``sections`` asked, in :data:`SECTIONS`
    order."""
    steps = {
        "reference-values": lambda: tables.reference_values(laws),
        "glenn-2006": lambda: tables.glenn_2006(laws),
        "simulating-yahtzee": lambda: tables.simulating_yahtzee(laws),
        "defensive": lambda: tables.defensive(laws),
        "tillius": lambda: tables.tillius(laws, quick, progress),
    }
    rows: list[Row] = []
    kn_frame = None
    for name in tqdm(
        [s for s in SECTIONS if s in sections], desc="reproduce", disable=not progress
    ):
        if name == "kim-nelson":
            kn_rows, kn_frame = tables.kim_nelson_sweep(laws, kn_deltas, progress, quick)
            rows += kn_rows
        else:
            rows += steps[name]()
    return rows, kn_frame
