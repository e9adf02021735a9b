"""Every published table the project can compute, next to the paper's figures.

``reproduce()`` is what ``yahtzee-sim reproduce`` runs. Each row is one published
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
strategy (Tillius's tables, the Kim–Nelson sweep, the web page) are listed here.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from yahtzee_sim.analysis.document import Document
from yahtzee_sim.analysis.report import is_deterministic
from yahtzee_sim.analysis.stats import mean_ci
from yahtzee_sim.engine.atomic import atomic_path, write_atomic
from yahtzee_sim.engine.strategy import Gap, Reference
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.validation import Integer, check

SECTIONS = (
    "reference-values",
    "glenn-2006",
    "simulating-yahtzee",
    "kim-nelson",
    "defensive",
    "tillius",
)
DEFAULT_GAMES = 100_000  # as every simulating source here
SY = '"Simulating Yahtzee"'
SY_RULES = "yahtzee-single-bonus"
SY_STRATEGIES = (
    "random",
    "tiered-random",
    "greedy",
    "glenn-2007-rules",
    "prioritize-upper",
    "prioritize-yahtzee",
)
#: "Simulating Yahtzee" Table 4 (Yahtzees per game, as its program counts them: 50 in the
#: box and the one bonus) and Table 5 (share of games with the upper bonus).
SY_TABLE_4 = dict(zip(SY_STRATEGIES, (0.00, 0.00, 0.30, 0.51, 0.45, 0.57), strict=True))
SY_TABLE_5 = dict(zip(SY_STRATEGIES, (0.0, 0.0, 0.033, 0.236, 0.144, 0.162), strict=True))
_G, _PU, _PY = "glenn-2007-rules", "prioritize-upper", "prioritize-yahtzee"
#: "Simulating Yahtzee" Tables 3, 6 and 7 (Kim–Nelson, single-game observations): metric
#: and, per δ, (winners for m = 1, observations needed, winners for m = 2, observations).
SY_KN_TABLES = {
    "Table 3": (
        "total",
        {
            0.1: (("greedy",), 84_859, ("greedy", _G), 10_364),
            0.2: (("greedy",), 30_803, ("greedy", _G), 5_359),
            0.5: (("greedy",), 14_958, ("greedy", _G), 2_021),
            1.0: (("greedy",), 3_429, ("greedy", _G), 931),
            2.0: (("greedy",), 1_337, ("greedy", _G), 461),
            3.0: (("greedy",), 1_114, ("greedy", _G), 324),
            4.0: (("greedy",), 850, ("greedy", _G), 217),
            5.0: (("greedy",), 593, ("greedy", _G), 181),
            6.0: (("greedy",), 450, ("greedy", _G), 137),
        },
    ),
    "Table 6": (
        "yahtzees",
        {
            0.01: ((_PY,), 14_067, (_G, _PY), 5_912),
            0.05: ((_PY,), 1_563, (_G, _PY), 921),
            0.1: ((_PY,), 730, (_G, _PY), 366),
            0.2: ((_PY,), 228, (_G, _PY), 162),
        },
    ),
    "Table 7": (
        "bonus",
        {
            0.01: ((_G,), 726, (_G, _PY), 550),
            0.05: ((_G,), 73, (_G, _PY), 68),
            0.1: ((_G,), 43, (_G, _PY), 35),
            0.2: ((_PY,), 50, (_PU, _PY), 12),
        },
    ),
}
KN_N0 = 10  # the first stage of the paper's constants (η 0.8591, h² 15.464)


@dataclass(frozen=True)
class Source:
    """Where one of our figures comes from.

    Attributes
    ----------
    how : {"exact", "simulated", "target", "best of 4"}
        The exact law of ``strategy`` on ``rules``; its simulated games; the target
        table of ``rules`` (quantity ``">= k"``: P(score ≥ k) of ``target:k`` play, the
        largest possible); the exact law of the best of four ``strategy`` players' scores.
    strategy : str
        A strategy id (``"target"`` for the target table).
    rules : str
        A rule set preset.
    """

    how: str
    strategy: str
    rules: str


@dataclass(frozen=True)
class Figure:
    """One published figure and how ours is computed: a row of :data:`TILLIUS`.

    Attributes
    ----------
    table : str
        The paper's table or section (``"Table 3"``, ``"§4.4"``...).
    item : str
        The row's label.
    paper : float
        The paper's figure.
    source : Source
        What ours is computed from.
    quantity : str
        ``"mean"``, ``"median"``, ``"sd"``, ``"min"``, ``"max"`` or ``">= k"``
        (P(score ≥ k)).
    note : str
        The row's note.
    """

    table: str
    item: str
    paper: float
    source: Source
    quantity: str
    note: str = ""


_EXACT_Y, _SIM_Y = Source("exact", "optimal", "yatzy"), Source("simulated", "optimal", "yatzy")
_EXACT_2, _SIM_2 = Source("exact", "optimal", "2-yatzy"), Source("simulated", "optimal", "2-yatzy")
_SIM_T5 = Source("simulated", "target:5", "2-yatzy")
_TARGET_2, _TARGET_Y = Source("target", "target", "2-yatzy"), Source("target", "target", "yatzy")
_BEST_4 = Source("best of 4", "optimal", "yatzy")
_SAMPLED = "the paper simulated 100,000 games"  # where ours is exact
_TIES = "ties among equally likely keeps broken differently (handbook: target play)"


def _summary_row(table: str, who: str, source: Source, paper: tuple) -> tuple[Figure, ...]:
    """The six figures of one row of Tillius's Table 4: mean, median, sd, min, max and
    P(score >= 5) of 2-Yatzy."""
    items = ("mean", "median", "sd", "min", "max", "P(score >= 5)")
    quantities = ("mean", "median", "sd", "min", "max", ">= 5")
    return tuple(
        Figure(table, f"{who}: {item}", value, source, quantity)
        for item, value, quantity in zip(items, paper, quantities, strict=True)
    )


#: Tillius 2026, in the order of the rows: Table 3 (max-EV Yatzy, 100,000 simulated
#: games), Tables 4 and 5 (2-Yatzy, 100,000 games; Table 5 exact), the four-player winning
#: score of §4.4 (100,000 games) and Table 13 (β → max P(final score >= β) in Yatzy).
TILLIUS = (
    Figure("Table 3", "optimal, Yatzy: mean", 248.4810, _EXACT_Y, "mean", _SAMPLED),
    Figure("Table 3", "optimal, Yatzy: median", 249, _EXACT_Y, "median", _SAMPLED),
    Figure("Table 3", "optimal, Yatzy: sd", 38.5504, _EXACT_Y, "sd", _SAMPLED),
    Figure("Table 3", "optimal, Yatzy: min", 100, _SIM_Y, "min"),
    Figure("Table 3", "optimal, Yatzy: max", 348, _SIM_Y, "max"),
    Figure("Table 3", "optimal, Yatzy: P(score >= 300)", 0.09973, _EXACT_Y, ">= 300", _SAMPLED),
    *_summary_row("Table 4", "optimal, 2-Yatzy", _SIM_2, (5.0009, 5, 1.1453, 1, 6, 0.7503)),
    *_summary_row("Table 4", "target:5, 2-Yatzy", _SIM_T5, (4.7298, 5, 1.3031, 2, 6, 0.7742)),
    Figure("Table 5", "optimal, 2-Yatzy: expected score", 5.0, _EXACT_2, "mean"),
    Figure("Table 5", "optimal, 2-Yatzy: P(score >= 5)", 0.75, _EXACT_2, ">= 5"),
    Figure("Table 5", "target:5, 2-Yatzy: expected score", 4.7266, _SIM_T5, "mean", _TIES),
    Figure("Table 5", "target:5, 2-Yatzy: P(score >= 5)", 0.7734, _TARGET_2, ">= 5"),
    Figure("§4.4", "four optimal players: median winning score", 289, _BEST_4, "median", _SAMPLED),
    Figure("§4.4", "four optimal players: mean winning score", 286.9367, _BEST_4, "mean"),
    Figure("Table 13", "max P(score >= 200), Yatzy", 0.9457, _TARGET_Y, ">= 200"),
    Figure("Table 13", "max P(score >= 249), Yatzy", 0.5710, _TARGET_Y, ">= 249"),
    Figure("Table 13", "max P(score >= 287), Yatzy", 0.2228, _TARGET_Y, ">= 287"),
    Figure("Table 13", "max P(score >= 289), Yatzy", 0.2080, _TARGET_Y, ">= 289"),
    Figure("Table 13", "max P(score >= 300), Yatzy", 0.1373, _TARGET_Y, ">= 300"),
    Figure("Table 13", "max P(score >= 330), Yatzy", 0.0114, _TARGET_Y, ">= 330"),
    Figure("Table 13", "max P(score >= 374), Yatzy", 1.3146626799340199e-12, _TARGET_Y, ">= 374"),
)
#: The table of :data:`TILLIUS` that needs the Yatzy target table (minutes): not in a
#: quick run.
TILLIUS_SLOW_TABLE = "Table 13"
#: Tillius 2026, Table 13: β → max P(final score >= β) in Yatzy.
TILLIUS_TABLE_13 = {int(f.quantity[2:]): f.paper for f in TILLIUS if f.table == TILLIUS_SLOW_TABLE}
#: The exact-value web page's optimal expected score ("Calculating the exact theoretical
#: outcome of the Yahtzee game").
WEB_PAGE_EV = 254.4067


class ReproduceError(YahtzeeSimError):
    """Bad arguments for ``reproduce`` (sections, games, output folder)."""


@dataclass(frozen=True)
class Row:
    """One published figure and ours."""

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

    @property
    def difference(self) -> float:
        return self.ours - self.paper


@dataclass(eq=False)
class Reproduction:
    """What :func:`reproduce` computed (and wrote, with ``out``)."""

    rows: list[Row]
    sections: tuple[str, ...]
    games: int
    seed: int
    out: Path | None = None
    files: list[str] = field(default_factory=list)
    skipped: dict = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """One row per figure: ``table, item, paper, ours, difference, method, games, CI, note``."""
        data = [{**asdict(r), "difference": r.difference} for r in self.rows]
        cols = [
            "table",
            "item",
            "paper",
            "ours",
            "difference",
            "method",
            "games",
            "ci_low",
            "ci_high",
            "note",
            "status",
        ]
        return pd.DataFrame(data, columns=cols)

    def gaps(self) -> pd.DataFrame:
        """The rows that are documented gaps: ``table, item, paper, ours, difference, note``."""
        frame = self.frame()
        cols = ["table", "item", "paper", "ours", "difference", "note"]
        return frame.loc[frame["status"] == "gap", cols].reset_index(drop=True)

    def to_dict(self) -> dict:
        """JSON-ready (no wall time: the same run gives the same dict)."""
        rows = [{**asdict(r), "difference": r.difference} for r in self.rows]
        return {
            "out": None if self.out is None else str(self.out),
            "sections": list(self.sections),
            "games": self.games,
            "seed": self.seed,
            "files": self.files,
            "skipped": self.skipped,
            "rows": rows,
        }


# ------------------------------------------------------------------ helpers
def _exact(sid: str, rules: str):
    """The exact law, read from the cache of exact laws when computed before."""
    from yahtzee_sim.analysis import exact_cache
    from yahtzee_sim.game.rules import get_rules

    return exact_cache.exact_law(sid, get_rules(rules))


def _simulate(sid: str, rules: str, games: int, seed: int, n_jobs: int):
    from yahtzee_sim.engine.simulate import simulate

    return simulate(sid, games, seed=seed, rules=rules, n_jobs=n_jobs, progress=False)


def _ci(x: np.ndarray) -> tuple[float, float]:
    """95% confidence interval of the mean (:func:`.stats.mean_ci`, as ``summarize``)."""
    return mean_ci(np.asarray(x, dtype=np.float64), 0.95)[2:]


def _deterministic(sid: str) -> bool:
    """Exact evaluation applies (the report's test)."""
    return is_deterministic(sid)


def _references(source_prefix: str):
    """``(sid, reference)`` of every latest strategy citing ``source_prefix``."""
    from yahtzee_sim.strategies import strategy_class, strategy_ids

    for sid in strategy_ids():
        for ref in strategy_class(sid).references:
            if ref.source.startswith(source_prefix):
                yield sid, ref


@dataclass(frozen=True)
class Published:
    """One quantity a source published for a strategy (a row of the literature test).

    Attributes
    ----------
    strategy : str
        The strategy id (versioned for an older version: ``"glenn-2007-rules-v1"``).
    ref : Reference
        The strategy's reference holding the quantity.
    quantity : str
        ``"mean"``, ``"sd"`` or a key of ``ref.stats``.
    """

    strategy: str
    ref: Reference
    quantity: str

    @property
    def paper(self) -> float:
        """The published value."""
        return self.ref.quantities()[self.quantity]

    @property
    def gap(self) -> Gap | None:
        """The documented gap, or ``None`` when ours agrees."""
        return self.ref.gap(self.quantity)

    @property
    def sd(self) -> float:
        """Our SD, for the sampling error of a mean (the paper's when it gives one)."""
        if self.ref.sd is not None:
            return self.ref.sd
        return our_quantity(replace(self, quantity="sd"))[0]


def _builtin_references():
    """``(id, reference)`` of every built-in version: the latest by its bare id, older
    versions by their versioned id."""
    from yahtzee_sim.strategies import strategy_class, strategy_ids

    latest = {strategy_class(sid) for sid in strategy_ids()}
    ids = strategy_ids() + [
        vid for vid in strategy_ids(versioned=True) if strategy_class(vid) not in latest
    ]
    return [(sid, ref) for sid in ids for ref in strategy_class(sid).references]


def published_quantities(references=None) -> list[Published]:
    """Every quantity of every reference of the built-ins (or of ``references``, pairs of
    ``(strategy id, Reference)``), in order."""
    refs = _builtin_references() if references is None else references
    return [Published(sid, ref, quantity) for sid, ref in refs for quantity in ref.quantities()]


def documented_gaps() -> list[dict]:
    """The built-ins' documented gaps: ``strategy, source, rules, quantity, paper, ours, gap,
    reason`` (ours as recorded; ``yahtzee-sim reproduce`` recomputes it)."""
    return [
        {
            "strategy": q.strategy,
            "source": q.ref.source,
            "rules": q.ref.rules,
            "quantity": q.quantity,
            "paper": q.paper,
            "ours": q.gap.ours,
            "gap": q.gap.ours - q.paper,
            "reason": q.gap.reason,
        }
        for q in published_quantities()
        if q.gap is not None
    ]


#: Seed of our simulated figures (the sources' sample extremes, random strategies).
LITERATURE_SEED = 2026


@functools.cache
def _literature_exact(sid: str, rules: str) -> dict:
    return _exact(sid, rules).to_dict()


@functools.lru_cache(maxsize=8)
def _literature_sample(sid: str, rules: str, games: int) -> tuple[np.ndarray, dict]:
    res = _simulate(sid, rules, games, LITERATURE_SEED, 1)
    return res.total, res.summary()


def our_quantity(q: Published) -> tuple[float, int | None]:
    """Our value of a published quantity and the games it took (``None``: exact).

    Exact for a deterministic strategy (the optimal expected score from the value table);
    the sample minimum and maximum from as many simulated games as the source played;
    the figures of a random strategy from at least :data:`DEFAULT_GAMES` simulated games.
    Simulations use seed :data:`LITERATURE_SEED`.
    """
    from yahtzee_sim.engine.registry import strategy_class
    from yahtzee_sim.solving.solver import value_table

    ref, key = q.ref, q.quantity
    if q.strategy == "optimal" and ref.sd is None and key == "mean":
        return value_table(get_rules(ref.rules)).expected_value(), None
    if key in ("min", "max") and ref.n_games:
        total, _ = _literature_sample(q.strategy, ref.rules, ref.n_games)
        return float(total.min() if key == "min" else total.max()), ref.n_games
    if strategy_class(q.strategy).capabilities.deterministic:
        summary, games = _literature_exact(q.strategy, ref.rules), None
    else:
        games = max(DEFAULT_GAMES, ref.n_games or 0)
        summary = _literature_sample(q.strategy, ref.rules, games)[1]
    value = summary[key] if key in summary else summary["percentiles"][key]
    return float(value), games


def _status(ref, quantity: str) -> tuple[str, str]:
    """``(status, note)`` of a row showing ``quantity`` of ``ref``: a documented gap and
    its reason, or agreement."""
    gap = ref.gap(quantity)
    if gap is not None:
        return "gap", gap.reason
    return "agrees", ref.note if quantity == "mean" else ""


def _yahtzees_counted(summary: dict) -> float:
    """Yahtzees per game as "Simulating Yahtzee"'s program counts them: 50 in the box plus
    bonuses paid."""
    return 1.0 - summary["box_zero_rate"]["yahtzee"] + summary["yahtzee_bonuses_mean"]


class _Laws:
    """Exact laws and simulations, each computed once per (strategy, rules)."""

    def __init__(self, games: int, seed: int, n_jobs: int) -> None:
        self.games, self.seed, self.n_jobs = games, seed, n_jobs
        self._exact: dict = {}
        self._sims: dict = {}
        self._curves: dict = {}

    def exact(self, sid: str, rules: str):
        key = (sid, rules)
        if key not in self._exact:
            self._exact[key] = _exact(sid, rules)
        return self._exact[key]

    def simulated(self, sid: str, rules: str):
        key = (sid, rules)
        if key not in self._sims:
            self._sims[key] = _simulate(sid, rules, self.games, self.seed, self.n_jobs)
        return self._sims[key]

    def target_curve(self, rules: str, progress: bool = False) -> np.ndarray:
        """``curve[k]``: the largest P(final score ≥ k) on ``rules`` (its target table)."""
        from yahtzee_sim.solving.target import target_table

        if rules not in self._curves:
            self._curves[rules] = target_table(rules, progress=progress).curve()
        return self._curves[rules]

    def best_of(self, sid: str, rules: str, players: int) -> np.ndarray:
        """The exact law of the best final score of ``players`` independent ``sid`` players."""
        from yahtzee_sim.analysis.tournament import exact_winning_law

        return exact_winning_law([self.exact(sid, rules).pmf] * players)

    def summary(self, sid: str, rules: str) -> tuple[dict, str, object]:
        """``(summary, method, results or None)``: exact when the strategy allows."""
        if _deterministic(sid):
            return self.exact(sid, rules).to_dict(), "exact", None
        res = self.simulated(sid, rules)
        return res.summary(), "simulated", res

    def row(self, table, item, paper, sid, rules, key, note="", scale=1.0) -> Row:
        """A row of ``key`` of ``sid``'s summary (exact or simulated with its CI)."""
        summary, method, res = self.summary(sid, rules)
        ours = scale * summary[key]
        if method == "exact":
            return Row(table, item, paper, ours, "exact", note=note)
        lo = hi = None
        if res is not None and key == "mean":
            lo, hi = _ci(res.total)
        elif res is not None and key == "bonus_rate":
            lo, hi = _ci(res.upper_bonus.astype(float))
        return Row(table, item, paper, ours, "simulated", self.games, lo, hi, note)


# ------------------------------------------------------------------ sections
def reference_values(laws: _Laws) -> list[Row]:
    """Optimal expected scores of every rule set, and the web page's figure."""
    from yahtzee_sim.solving.solver import value_table
    from yahtzee_sim.strategies import strategy_class

    rows = []
    for ref in strategy_class("optimal").references:
        if ref.sd is not None:
            continue  # Glenn's Table 3 row: in its own section
        ev = value_table(get_rules(ref.rules)).expected_value()
        rows.append(
            Row(
                "Reference values",
                f"optimal EV, {ref.rules}",
                ref.mean,
                ev,
                "exact",
                note=ref.source,
            )
        )
    for name in ("yahtzee", "yahtzee-free-joker", "yahtzee-no-joker", SY_RULES):
        ev = value_table(get_rules(name)).expected_value()
        rows.append(
            Row(
                "Reference values",
                f"optimal EV, {name} vs the web page",
                WEB_PAGE_EV,
                ev,
                "exact",
                note="exact-value web page: no rule set of ours gives 254.4067 (handbook)",
            )
        )
    return rows


def glenn_2006(laws: _Laws) -> list[Row]:
    """Glenn 2006, Table 3: exact mean ± SD of seven strategies."""
    rows = []
    for sid, ref in _references("Glenn 2006, Table 3"):
        d = laws.exact(sid, ref.rules).to_dict()
        for what, key in (("mean", "mean"), ("SD", "sd")):
            status, note = _status(ref, key)
            paper = ref.quantities()[key]
            rows.append(
                Row(
                    "Glenn 2006, Table 3",
                    f"{sid}: {what}",
                    paper,
                    d[key],
                    "exact",
                    note=note,
                    status=status,
                )
            )
    return rows


def simulating_yahtzee(laws: _Laws) -> list[Row]:
    """ "Simulating Yahtzee" Tables 2, 4, 5 and 8–11 on its engine's rules."""
    rows = []
    refs = dict(_references(f"{SY}, Table 2"))
    for sid in SY_STRATEGIES:
        ref = refs[sid]
        for what, key in (("mean", "mean"), ("SD", "sd")):
            status, note = _status(ref, key)
            row = laws.row(
                f"{SY}, Table 2",
                f"{sid}: {what}",
                ref.quantities()[key],
                sid,
                ref.rules,
                key,
                note=note,
            )
            rows.append(replace(row, status=status))
    glenn = next(ref for sid, ref in _references("Glenn 2006, Table 3") if sid == "optimal")
    rows.append(
        laws.row(
            f"{SY}, Table 2",
            "optimal (Glenn's figure): mean",
            glenn.mean,
            "optimal",
            glenn.rules,
            "mean",
            note="quoted from Glenn 2006",
        )
    )
    for sid in SY_STRATEGIES:
        summary, method, res = laws.summary(sid, SY_RULES)
        rows.append(
            Row(
                f"{SY}, Table 4",
                f"{sid}: Yahtzees per game (50 in the box + bonus)",
                SY_TABLE_4[sid],
                _yahtzees_counted(summary),
                method,
                None if res is None else laws.games,
            )
        )
        row = laws.row(
            f"{SY}, Table 5",
            f"{sid}: upper bonus rate",
            SY_TABLE_5[sid],
            sid,
            SY_RULES,
            "bonus_rate",
        )
        if "bonus_rate" in refs[sid].stats:
            status, note = _status(refs[sid], "bonus_rate")
            row = replace(row, status=status, note=note)
        rows.append(row)
    for sid in ("greedy", "glenn-2007-rules"):
        rows += _box_tables(laws, sid, refs[sid])
    opt = next(ref for sid, ref in _references("Glenn 2006, Table 3") if sid == "optimal")
    rows += _box_tables(laws, "optimal", opt, table=f"{SY}, Table 11 (optimal, Glenn)")
    return rows


def _box_tables(laws: _Laws, sid: str, ref, table: str | None = None) -> list[Row]:
    """Tables 8–10 (or 11) of one strategy: per-box mean, zero rate and fill turn."""
    summary, method, _ = laws.summary(sid, ref.rules)
    bonus_points = 100 * summary["yahtzee_bonuses_mean"]
    rows = []
    titles = {
        "box_means": ("Table 8", "mean points"),
        "box_zero_rate": ("Table 9", "share of zeros"),
        "box_fill_turn": ("Table 10", "turn filled"),
    }
    for key, (number, what) in titles.items():
        for box, paper in ref.tables.get(key, {}).items():
            ours = summary[key][box]
            note = ""
            if key == "box_means" and box == "yahtzee" and table is None:
                ours += bonus_points  # the program adds the bonus to the box
                note = "the paper's row includes the Yahtzee bonus; so does ours here"
            if key == "box_zero_rate" and box == "large_straight":
                note = "the paper's row repeats Small straight's (a copying slip)"
            rows.append(
                Row(
                    table or f"{SY}, {number}",
                    f"{sid}: {box} ({what})",
                    paper,
                    ours,
                    method,
                    note=note,
                )
            )
    if "upper_bonus_points" in ref.tables:
        ub = get_rules(ref.rules).upper_bonus * summary["bonus_rate"]
        rows.append(
            Row(
                table or f"{SY}, Table 8",
                f"{sid}: upper bonus (points)",
                ref.tables["upper_bonus_points"],
                ub,
                method,
            )
        )
        rows.append(
            Row(
                table or f"{SY}, Table 8",
                f"{sid}: Yahtzee bonus (points)",
                ref.tables["yahtzee_bonus_points"],
                bonus_points,
                method,
            )
        )
    return rows


def kim_nelson_sweep(
    laws: _Laws, deltas=None, progress: bool = False, quick: bool = False
) -> tuple[list[Row], pd.DataFrame]:
    """ "Simulating Yahtzee" Tables 3, 6 and 7: Kim–Nelson over δ × m on the six strategies
    (final score, Yahtzees per game, upper-bonus indicator), with single-game observations
    as the paper; Table 3 also with batch means of ours. ``deltas`` keeps only those δ;
    ``quick`` runs Table 3 for δ ≥ 1 only."""
    from yahtzee_sim.analysis.selection import DEFAULT_BATCH, select_best

    runs = []
    for table, (metric, by_delta) in SY_KN_TABLES.items():
        for delta in sorted(by_delta):
            if deltas is not None and delta not in deltas:
                continue
            if quick and table == "Table 3" and delta < 1:
                continue
            batches = (1, DEFAULT_BATCH) if table == "Table 3" else (1,)
            runs += [(table, metric, delta, m, b) for m in (1, 2) for b in batches]
    rows, records = [], []
    for table, metric, delta, m, batch in tqdm(runs, desc="Kim–Nelson", disable=not progress):
        kn = select_best(
            SY_STRATEGIES,
            delta=delta,
            m=m,
            n0=KN_N0,
            batch=batch,
            metric=metric,
            seed=laws.seed,
            rules=SY_RULES,
            n_jobs=laws.n_jobs,
        )
        paper = SY_KN_TABLES[table][1][delta]
        winners, observations = paper[2 * (m - 1)], paper[2 * (m - 1) + 1]
        needed = max(kn.observations[w] for w in kn.winners)
        same = sorted(kn.winners) == sorted(winners)
        records.append(
            {
                "table": table,
                "metric": metric,
                "delta": delta,
                "m": m,
                "batch": batch,
                "winners": ", ".join(kn.winners),
                "paper winners": ", ".join(winners),
                "same winners": same,
                "observations": needed,
                "paper observations": observations,
                "games": needed * batch,
            }
        )
        if batch == 1:
            note = "same winners" if same else f"winners: {', '.join(kn.winners)}"
            if metric == "yahtzees":
                note += " (ours counts every Yahtzee scored)"
            rows.append(
                Row(
                    f"{SY}, {table}",
                    f"δ = {delta:g}, m = {m}: observations needed",
                    observations,
                    needed,
                    "simulated",
                    note=note,
                )
            )
    return rows, pd.DataFrame(records)


def defensive(laws: _Laws) -> list[Row]:
    """Hellström & Jaccopucci 2015: min, p10, mean (exact) and max (simulated)."""
    rows = []
    for sid, ref in _references("Hellström & Jaccopucci"):
        ex = laws.exact(sid, ref.rules)
        sim = laws.simulated(sid, ref.rules)
        table = "Hellström & Jaccopucci 2015"
        status, note = _status(ref, "mean")
        rows.append(
            Row(table, f"{sid}: mean", ref.mean, ex.mean, "exact", note=note, status=status)
        )
        status, note = _status(ref, "p10")
        rows.append(
            Row(
                table,
                f"{sid}: 10th percentile",
                ref.stats["p10"],
                ex.percentile(10),
                "exact",
                note=note,
                status=status,
            )
        )
        support = np.flatnonzero(ex.pmf > 0)
        rows.append(
            Row(
                table,
                f"{sid}: minimum (exact law)",
                ref.stats["min"],
                float(support[0]),
                "exact",
                note="the least score of positive probability, beside the sample minimum",
            )
        )
        for what, value in (("minimum", sim.total.min()), ("maximum", sim.total.max())):
            status, note = _status(ref, what[:3])
            if laws.games != ref.n_games or laws.seed != LITERATURE_SEED:
                status, note = "", f"the recorded gap is for {ref.n_games:,} games, seed 2026"
            rows.append(
                Row(
                    table,
                    f"{sid}: {what} of {laws.games:,} games",
                    ref.stats[what[:3]],
                    float(value),
                    "simulated",
                    laws.games,
                    note=note,
                    status=status,
                )
            )
    return rows


def tillius(laws: _Laws, quick: bool, progress: bool = False) -> list[Row]:
    """Tillius 2026 Tables 3, 4–5, 13 and the four-player winning score: a row per figure
    of :data:`TILLIUS`, Table 13 (the Yatzy target table) not with ``quick``."""
    rows = []
    for fig in TILLIUS:
        if quick and fig.table == TILLIUS_SLOW_TABLE:
            continue
        table, ours = f"Tillius 2026, {fig.table}", _tillius_value(laws, fig, progress)
        if fig.source.how != "simulated":
            rows.append(Row(table, fig.item, fig.paper, ours, "exact", note=fig.note))
            continue
        total = laws.simulated(fig.source.strategy, fig.source.rules).total
        lo, hi = _ci(total) if fig.quantity == "mean" else (None, None)
        rows.append(
            Row(table, fig.item, fig.paper, ours, "simulated", laws.games, lo, hi, fig.note)
        )
    return rows


#: Statistics of simulated final scores (:func:`tillius`).
_SAMPLE_STATS = {
    "mean": np.mean,
    "median": np.median,
    "sd": lambda total: total.std(ddof=1),
    "min": np.min,
    "max": np.max,
}


def _tillius_value(laws: _Laws, fig: Figure, progress: bool) -> float:
    """Our value of ``fig`` (an exact median stays the law's integer percentile)."""
    src, quantity = fig.source, fig.quantity
    k = int(quantity[2:]) if quantity.startswith(">=") else None
    if src.how == "simulated":
        total = laws.simulated(src.strategy, src.rules).total
        return float((total >= k).mean() if k is not None else _SAMPLE_STATS[quantity](total))
    if src.how == "exact":
        law = laws.exact(src.strategy, src.rules)
        if k is not None:
            return float(law.survival()[k])
        return {"mean": law.mean, "median": law.percentile(50), "sd": law.sd}[quantity]
    if src.how == "target":
        return float(laws.target_curve(src.rules, progress)[k])
    win = laws.best_of(src.strategy, src.rules, 4)
    if quantity == "median":
        return float(np.searchsorted(np.cumsum(win), 0.5))
    return float(np.arange(len(win)) @ win)


# ------------------------------------------------------------------ driver
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
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown or not sections:
        raise ReproduceError(
            f"unknown sections {unknown or sections!r}; expected any of: {', '.join(SECTIONS)}"
        )
    n_games = check("games", n_games, Integer(100), ReproduceError)
    out = None if out is None else Path(out)
    if out is not None and out.exists() and not out.is_dir():
        raise ReproduceError(f"--out {str(out)!r} is a file, not a folder")
    laws = _Laws(int(n_games), int(seed), int(n_jobs))
    rows: list[Row] = []
    kn_frame = None
    skipped = {}
    if quick:
        skipped[f"Tillius 2026, {TILLIUS_SLOW_TABLE}"] = "quick: needs the Yatzy target table"
    steps = {
        "reference-values": lambda: reference_values(laws),
        "glenn-2006": lambda: glenn_2006(laws),
        "simulating-yahtzee": lambda: simulating_yahtzee(laws),
        "defensive": lambda: defensive(laws),
        "tillius": lambda: tillius(laws, quick, progress),
    }
    for name in tqdm(
        [s for s in SECTIONS if s in sections], desc="reproduce", disable=not progress
    ):
        if name == "kim-nelson":
            kn_rows, kn_frame = kim_nelson_sweep(laws, kn_deltas, progress, quick)
            rows += kn_rows
        else:
            rows += steps[name]()
    rep = Reproduction(rows, tuple(sections), int(n_games), int(seed), out, skipped=skipped)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        rep.files = _write(rep, out, kn_frame)
    return rep


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if float(value) == int(value) and abs(value) >= 1:
        return f"{int(value):,}"
    if abs(value) < 1e-4 and value != 0:
        return f"{value:.4e}"
    return f"{value:.4f}"


def _write(rep: Reproduction, out: Path, kn_frame) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    frame = rep.frame()
    with atomic_path(out / "reproduction.csv") as tmp:
        frame.to_csv(tmp, index=False, float_format="%.10g")
    files.append("reproduction.csv")
    if kn_frame is not None:
        with atomic_path(out / "kim_nelson.csv") as tmp:
            kn_frame.to_csv(tmp, index=False)
        files.append("kim_nelson.csv")
    doc = Document("Reproduction of the published tables")
    doc.paragraph(
        f"Every figure the sources publish that the project can compute: paper, ours, the "
        f"difference, and how ours was obtained (exact, or {rep.games:,} simulated games, "
        f"seed {rep.seed}, with the 95% confidence interval of the mean). Sources: the "
        f"handbook's Bibliography. A strategy's published figure either agrees with the paper "
        f"(status `agrees`: within the paper's precision or 1 point, 1 percentage point for a "
        f"rate, beyond sampling error) or is a documented gap (status `gap`, listed first "
        f"with its reason)."
    )
    for what, why in rep.skipped.items():
        doc.paragraph(f"Skipped: {what} ({why}).")
    gaps = rep.gaps()
    if len(gaps):
        doc.heading("Documented gaps")
        doc.table(
            pd.DataFrame(
                {
                    "table": gaps["table"],
                    "figure": gaps["item"],
                    "paper": [_fmt(v) for v in gaps["paper"]],
                    "ours": [_fmt(v) for v in gaps["ours"]],
                    "gap": [f"{v:+.4f}" for v in gaps["difference"]],
                    "reason": gaps["note"],
                }
            ),
            index=False,
        )
    for table, part in frame.groupby("table", sort=False):
        doc.heading(table)
        shown = pd.DataFrame(
            {
                "figure": part["item"],
                "paper": [_fmt(v) for v in part["paper"]],
                "ours": [_fmt(v) for v in part["ours"]],
                "difference": [
                    f"{v:+.4f}" if abs(v) >= 1e-4 or v == 0 else f"{v:+.2e}"
                    for v in part["difference"]
                ],
                "method": [
                    m
                    if m == "exact"
                    else (
                        f"simulated, n={int(g):,}"
                        + (f", CI {_fmt(lo)}–{_fmt(hi)}" if lo == lo and lo is not None else "")
                    )
                    for m, g, lo, hi in zip(
                        part["method"],
                        part["games"].fillna(0),
                        part["ci_low"],
                        part["ci_high"],
                        strict=True,
                    )
                ],
                "status": part["status"],
                "note": part["note"],
            }
        )
        doc.table(shown, index=False)
        if table == f"{SY}, Table 8":
            name = "tables_8_10.png"
            _plot_box_tables(frame, out / name, plt)
            files.append(name)
            doc.figure(name, "Tables 8–10: the paper's per-box figures (bars) and ours (dots)")
        if table == f"{SY}, Table 7" and kn_frame is not None:
            doc.paragraph(
                "Every Kim–Nelson run (single-game observations as the paper; Table 3 also "
                "with batch means of 10 games):"
            )
            doc.table(kn_frame, index=False)
    write_atomic(out / "report.md", doc.to_markdown())
    write_atomic(out / "report.html", doc.to_html())
    files = ["report.md", "report.html", *files]
    data = rep.to_dict() | {"files": files}
    data.pop("out")  # the file is the same wherever the folder is
    write_atomic(out / "reproduction.json", json.dumps(data, indent=1))
    return [*files, "reproduction.json"]


def _plot_box_tables(frame: pd.DataFrame, path: Path, plt) -> None:
    from yahtzee_sim.analysis.plots import PALETTE, legend_outside

    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    boxes = None
    for ax, (number, what) in zip(
        axes,
        (("Table 8", "mean points"), ("Table 9", "share of zeros"), ("Table 10", "turn filled")),
        strict=True,
    ):
        part = frame[frame["table"] == f"{SY}, {number}"]
        for i, sid in enumerate(("greedy", "glenn-2007-rules")):
            sel = part[
                part["item"].str.startswith(f"{sid}: ") & part["item"].str.endswith(f"({what})")
            ]
            labels = [s.split(": ", 1)[1].rsplit(" (", 1)[0] for s in sel["item"]]
            boxes = labels if boxes is None else boxes
            x = np.arange(len(labels)) + (i - 0.5) * 0.38
            ax.bar(x, sel["paper"], width=0.36, color=PALETTE[i], alpha=0.45, label=f"{sid}: paper")
            ax.plot(x, sel["ours"], "o", color=PALETTE[i], ms=4, label=f"{sid}: ours")
        ax.set_ylabel(what)
        ax.set_title(f'"Simulating Yahtzee" {number}', fontsize="medium")
    axes[-1].set_xticks(np.arange(len(boxes)))
    axes[-1].set_xticklabels(boxes, rotation=40, ha="right")
    legend_outside(axes[0])
    fig.tight_layout()
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=110)
    finally:
        plt.close(fig)
