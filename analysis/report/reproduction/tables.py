"""Our figures of every published table, section by section, next to the paper's.

:class:`Laws` computes each exact law, simulation and target curve once; one function per
section of :data:`~yahtzee_sim.analysis.report.reproduction.build.SECTIONS` returns its
:class:`~yahtzee_sim.analysis.report.reproduction.rows.Row` list (the Kim–Nelson sweep its
runs, too). The published figures come from the strategies' ``references`` and from
:mod:`~yahtzee_sim.analysis.report.reproduction.papers`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from yahtzee_sim.analysis.ranking.stats import mean_ci
from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.analysis.report.plan import is_deterministic
from yahtzee_sim.analysis.report.reproduction.literature import (
    LITERATURE_SEED,
    references,
    status_of,
)
from yahtzee_sim.analysis.report.reproduction.papers import (
    KN_N0,
    SY,
    SY_BOX_TABLES,
    SY_KN_TABLES,
    SY_RULES,
    SY_STRATEGIES,
    SY_TABLE_4,
    SY_TABLE_5,
    SY_TABLE_11,
    TILLIUS,
    TILLIUS_SLOW_TABLE,
    WEB_PAGE_EV,
    Figure,
    sy_table_id,
)
from yahtzee_sim.analysis.report.reproduction.rows import Row
from yahtzee_sim.game.rules import get_rules


def _ci(x: np.ndarray) -> tuple[float, float]:
    """95% confidence interval of the mean (:func:`.stats.mean_ci`, as ``summarize``)."""
    return mean_ci(np.asarray(x, dtype=np.float64), 0.95)[2:]


def _yahtzees_counted(summary: dict) -> float:
    """Yahtzees per game as "Simulating Yahtzee"'s program counts them: 50 in the box plus
    bonuses paid."""
    return 1.0 - summary["box_zero_rate"]["yahtzee"] + summary["yahtzee_bonuses_mean"]


class Laws:
    """Exact laws, simulations and target curves, each computed once per (strategy, rules).

    Parameters
    ----------
    games, seed, n_jobs : int
        Games of each simulation, their seed and parallel jobs.
    """

    def __init__(self, games: int, seed: int, n_jobs: int) -> None:
        self.games, self.seed, self.n_jobs = games, seed, n_jobs
        self._exact: dict = {}
        self._sims: dict = {}
        self._curves: dict = {}

    def exact(self, sid: str, rules: str):
        """The exact law of ``sid`` on ``rules``, read from the cache of exact laws when
        computed before."""
        key = (sid, rules)
        if key not in self._exact:
            self._exact[key] = exact_cache.exact_law(sid, get_rules(rules))
        return self._exact[key]

    def simulated(self, sid: str, rules: str):
        """The simulated games of ``sid`` on ``rules`` (:attr:`games` games, :attr:`seed`)."""
        from yahtzee_sim.engine.simulate import simulate

        key = (sid, rules)
        if key not in self._sims:
            self._sims[key] = simulate(
                sid, self.games, seed=self.seed, rules=rules, n_jobs=self.n_jobs, progress=False
            )
        return self._sims[key]

    def target_curve(self, rules: str, progress: bool = False) -> np.ndarray:
        """``curve[k]``: the largest P(final score ≥ k) on ``rules`` (its target table)."""
        from yahtzee_sim.solving.target import target_table

        if rules not in self._curves:
            self._curves[rules] = target_table(rules, progress=progress).curve()
        return self._curves[rules]

    def best_of(self, sid: str, rules: str, players: int) -> np.ndarray:
        """The exact law of the best final score of ``players`` independent ``sid`` players."""
        from yahtzee_sim.analysis.ranking.tournament import exact_winning_law

        return exact_winning_law([self.exact(sid, rules).pmf] * players)

    def summary(self, sid: str, rules: str) -> tuple[dict, str, object]:
        """``(summary, method, results or None)``: exact when the strategy allows."""
        if is_deterministic(sid):
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


def reference_values(laws: Laws) -> list[Row]:
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


def glenn_2006(laws: Laws) -> list[Row]:
    """Glenn 2006, Table 3: exact mean ± SD of seven strategies."""
    rows = []
    for sid, ref in references("Glenn 2006, Table 3"):
        d = laws.exact(sid, ref.rules).to_dict()
        for what, key in (("mean", "mean"), ("SD", "sd")):
            status, note = status_of(ref, key)
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


def _sy_row(laws: Laws, number, item, paper, sid, key, rules=SY_RULES, note="") -> Row:
    """A row of "Simulating Yahtzee"'s table ``number``: :meth:`Laws.row` of ``key``."""
    row = laws.row(f"{SY}, {number}", item, paper, sid, rules, key, note=note)
    return replace(row, table_id=sy_table_id(number))


def simulating_yahtzee(laws: Laws) -> list[Row]:
    """ "Simulating Yahtzee" Tables 2, 4, 5 and 8–11 on its engine's rules."""
    refs = dict(references(f"{SY}, Table 2"))
    rows = _sy_table_2(laws, refs)
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
                table_id=sy_table_id("Table 4"),
            )
        )
        row = _sy_row(
            laws, "Table 5", f"{sid}: upper bonus rate", SY_TABLE_5[sid], sid, "bonus_rate"
        )
        if "bonus_rate" in refs[sid].stats:
            status, note = status_of(refs[sid], "bonus_rate")
            row = replace(row, status=status, note=note)
        rows.append(row)
    for sid in ("greedy", "glenn-2007-rules"):
        rows += _box_tables(laws, sid, refs[sid])
    opt = next(ref for sid, ref in references("Glenn 2006, Table 3") if sid == "optimal")
    rows += _box_tables(laws, "optimal", opt, table=f"{SY}, {SY_TABLE_11} (optimal, Glenn)")
    return rows


def _sy_table_2(laws: Laws, refs: dict) -> list[Row]:
    """ "Simulating Yahtzee" Table 2: mean and SD of its six strategies, and Glenn's
    optimal mean it quotes."""
    rows = []
    for sid in SY_STRATEGIES:
        ref = refs[sid]
        for what, key in (("mean", "mean"), ("SD", "sd")):
            status, note = status_of(ref, key)
            paper = ref.quantities()[key]
            row = _sy_row(
                laws, "Table 2", f"{sid}: {what}", paper, sid, key, rules=ref.rules, note=note
            )
            rows.append(replace(row, status=status))
    glenn = next(ref for sid, ref in references("Glenn 2006, Table 3") if sid == "optimal")
    item = "optimal (Glenn's figure): mean"
    note = "quoted from Glenn 2006"
    rows.append(
        _sy_row(laws, "Table 2", item, glenn.mean, "optimal", "mean", rules=glenn.rules, note=note)
    )
    return rows


def _box_tables(laws: Laws, sid: str, ref, table: str | None = None) -> list[Row]:
    """Tables 8–10 (or all in ``table``, Table 11) of one strategy: per-box mean, zero rate
    and fill turn, and the bonuses in points."""
    summary, method, _ = laws.summary(sid, ref.rules)
    bonus_points = 100 * summary["yahtzee_bonuses_mean"]
    rows = []
    for box_table in SY_BOX_TABLES:
        key = box_table.entry
        table_id = sy_table_id(SY_TABLE_11) if table else box_table.table_id
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
                    table or f"{SY}, {box_table.number}",
                    f"{sid}: {box} ({box_table.what})",
                    paper,
                    ours,
                    method,
                    note=note,
                    table_id=table_id,
                    strategy=sid,
                    box=box,
                )
            )
    if "upper_bonus_points" in ref.tables:
        upper = get_rules(ref.rules).upper_bonus * summary["bonus_rate"]
        bonuses = (
            ("upper bonus", ref.tables["upper_bonus_points"], upper),
            ("Yahtzee bonus", ref.tables["yahtzee_bonus_points"], bonus_points),
        )
        first = SY_BOX_TABLES[0]
        for what, paper, ours in bonuses:
            rows.append(
                Row(
                    table or f"{SY}, {first.number}",
                    f"{sid}: {what} (points)",
                    paper,
                    ours,
                    method,
                    table_id=sy_table_id(SY_TABLE_11) if table else first.table_id,
                )
            )
    return rows


def _kim_nelson_runs(deltas, quick: bool) -> list[tuple]:
    """``(table, metric, delta, m, batch)`` of every Kim–Nelson run of the sweep."""
    from yahtzee_sim.analysis.ranking.selection import DEFAULT_BATCH

    runs = []
    for table, (metric, by_delta) in SY_KN_TABLES.items():
        for delta in sorted(by_delta):
            if deltas is not None and delta not in deltas:
                continue
            if quick and table == "Table 3" and delta < 1:
                continue
            batches = (1, DEFAULT_BATCH) if table == "Table 3" else (1,)
            runs += [(table, metric, delta, m, b) for m in (1, 2) for b in batches]
    return runs


def kim_nelson_sweep(
    laws: Laws, deltas=None, progress: bool = False, quick: bool = False
) -> tuple[list[Row], pd.DataFrame]:
    """ "Simulating Yahtzee" Tables 3, 6 and 7: Kim–Nelson over δ × m on the six strategies
    (final score, Yahtzees per game, upper-bonus indicator), with single-game observations
    as the paper; Table 3 also with batch means of ours. ``deltas`` keeps only those δ;
    ``quick`` runs Table 3 for δ ≥ 1 only."""
    from yahtzee_sim.analysis.ranking.selection import select_best

    rows, records = [], []
    runs = _kim_nelson_runs(deltas, quick)
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
            rows.append(_kim_nelson_row(table, metric, delta, m, observations, needed, kn, same))
    return rows, pd.DataFrame(records)


def _kim_nelson_row(table, metric, delta, m, observations, needed, kn, same) -> Row:
    """The row of one single-game Kim–Nelson run: observations needed, the paper's and ours."""
    note = "same winners" if same else f"winners: {', '.join(kn.winners)}"
    if metric == "yahtzees":
        note += " (ours counts every Yahtzee scored)"
    return Row(
        f"{SY}, {table}",
        f"δ = {delta:g}, m = {m}: observations needed",
        observations,
        needed,
        "simulated",
        note=note,
        table_id=sy_table_id(table),
    )


def defensive(laws: Laws) -> list[Row]:
    """Hellström & Jaccopucci 2015: min, p10, mean (exact) and max (simulated)."""
    rows = []
    for sid, ref in references("Hellström & Jaccopucci"):
        ex = laws.exact(sid, ref.rules)
        sim = laws.simulated(sid, ref.rules)
        table = "Hellström & Jaccopucci 2015"
        status, note = status_of(ref, "mean")
        rows.append(
            Row(table, f"{sid}: mean", ref.mean, ex.mean, "exact", note=note, status=status)
        )
        status, note = status_of(ref, "p10")
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
            status, note = status_of(ref, what[:3])
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


def tillius(laws: Laws, quick: bool, progress: bool = False) -> list[Row]:
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


def _tillius_value(laws: Laws, fig: Figure, progress: bool) -> float:
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
