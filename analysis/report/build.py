"""The benchmark report: every strategy simulated, evaluated exactly where possible,
ranked, compared head to head and against optimal play.

``build_report()`` computes it, a :class:`Report`;
:func:`~yahtzee_sim.analysis.report.write.write_report` writes it to a folder. Both are
what ``yahtzee-sim report`` runs.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from yahtzee_sim.analysis.ranking.kim_nelson import KNResult, SelectionError
from yahtzee_sim.analysis.ranking.paired_games import simulate_scores
from yahtzee_sim.analysis.ranking.pairwise import RankingResult, rank_scores
from yahtzee_sim.analysis.report import tables
from yahtzee_sim.analysis.report.exact_stage import exact_stage
from yahtzee_sim.analysis.report.plan import DEFAULT_GAMES, QUICK_GAMES, ReportPlan, plan_report
from yahtzee_sim.analysis.report.tables import REFERENCE
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.errors import ReportError, StrategyError
from yahtzee_sim.game.rules import RuleSet

#: Family-wise error of the full ranking and error of the Kim–Nelson selection.
ALPHA = 0.05
#: Indifference zone of the Kim–Nelson selection (points).
DELTA = 1.0

__all__ = ["ALPHA", "DEFAULT_GAMES", "DELTA", "QUICK_GAMES", "REFERENCE", "Report", "build_report"]


# ------------------------------------------------------------------ the report
@dataclass(eq=False)
class Report:
    """Everything :func:`build_report` computed: the simulations, exact results, regrets,
    the full ranking and the Kim–Nelson selection, and every table and figure's data.

    :func:`~yahtzee_sim.analysis.report.write.write_report` writes it to a folder and
    computes nothing.

    Attributes
    ----------
    rules : RuleSet
    ids : list of str
        Strategies simulated, in the order asked (``optimal`` included).
    strategies : dict
        The strategy of each id (resolved once).
    games, seed : int
        Simulated games per strategy and master seed.
    sims : dict
        Simulation result (``Aggregate``) per strategy id.
    exact : dict
        :class:`~yahtzee_sim.exact.laws.ExactResult` per deterministic strategy id.
    regrets : dict
        :class:`~yahtzee_sim.analysis.decisions.regret.RegretResult` per strategy id (not the
        reference).
    ranking : RankingResult
        The full ranking (:func:`~yahtzee_sim.analysis.ranking.pairwise.rank_scores`):
        exact means for the deterministic strategies, the simulated games for the others
        (for every strategy with ``simulate_all``).
    kn : KNResult or None
        The Kim–Nelson selection of the best (``None`` if it did not run).
    mcb : pandas.DataFrame or None
        Hsu's MCB intervals on the Kim–Nelson observations all strategies share.
    summary, regret_table, win_matrix : pandas.DataFrame
        The summary (best simulated mean first), the regret table and P(row beats column).
    box_tables : dict
        The per-box tables ``mean``, ``zero`` and ``turn``.
    curves : dict
        P(final score ≥ x) per strategy (exact where known).
    skipped : dict
        What was left out, with the reason (e.g. rules a strategy does not support).
    seconds : float
        Wall time of :func:`build_report`.
    timings : dict
        Wall seconds of each step: ``tables`` (value table solved or loaded),
        ``simulations``, ``exact`` (exact laws and regret, cached results
        included), ``kim_nelson``; and ``exact_cpu``/``regret_cpu``, the evaluation
        time summed over strategies, split between the exact law and the charging of
        the regret.
    """

    rules: RuleSet
    ids: list[str]
    strategies: dict
    games: int
    seed: int
    sims: dict
    exact: dict
    regrets: dict
    ranking: RankingResult
    kn: KNResult | None
    mcb: pd.DataFrame | None
    summary: pd.DataFrame
    box_tables: dict
    curves: dict
    win_matrix: pd.DataFrame
    regret_table: pd.DataFrame
    skipped: dict
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

    @property
    def laws(self) -> dict:
        """The exact results that hold a score law (a quick report has moments only)."""
        return {sid: e for sid, e in self.exact.items() if e.pmf is not None}

    @property
    def ranked(self) -> list[str]:
        """Strategy ids, best simulated mean first."""
        return list(self.summary.index)

    @property
    def deterministic(self) -> list[str]:
        """The ids whose order is certain: deterministic strategies with an exact mean."""
        return [s for s in self.ranking.table.index if self.ranking.table.loc[s, "exact"]]

    def survival(self, sid: str) -> np.ndarray:
        """P(final score ≥ x) of strategy ``sid``: exact where known, else from the
        simulated histogram."""
        return self.curves[sid]

    def to_dict(self) -> dict:
        """JSON-ready ``summary``, ``ranking`` and ``skipped`` (no wall time: the same run
        gives the same dict)."""
        return {
            "summary": json.loads(self.summary.reset_index().to_json(orient="records")),
            "ranking": self.ranking.to_dict(),
            "skipped": self.skipped,
        }


# ------------------------------------------------------------------ building
def build_report(
    rules: str | RuleSet = "yahtzee",
    strategies="all",
    n_games: int | None = None,
    seed: int = 0,
    n_jobs: int = 2,
    regret_top: int = 10,
    progress: bool = True,
    quick: bool = False,
    simulate_all: bool = False,
) -> Report:
    """Simulate, evaluate, rank and compare strategies.

    Every argument is checked before any work.

    Parameters
    ----------
    rules : str or RuleSet
    strategies : "all", str (comma-separated ids) or list
        ``optimal`` is always added: it is the reference of the per-box tables
        and of the regret analysis.
    n_games : int, optional
        Simulated games per strategy (>= 100), seed ``seed`` (common random numbers:
        every strategy sees the same dice stream). Default :data:`DEFAULT_GAMES`,
        or :data:`QUICK_GAMES` with ``quick``.
    n_jobs : int
        Parallel jobs: blocks of games in the simulations, strategies (threads of this
        process, sharing the value table) in the exact evaluations.
    regret_top : int
        Costliest situations listed per strategy in the regret section (>= 0).
    progress : bool
        Show a progress bar over the steps (and a line when strategies are evaluated).
    quick : bool
        A first look in seconds: :data:`QUICK_GAMES` games unless ``n_games`` is given,
        the exact evaluation of the strategies limited to their regret against optimal
        (max-EV) play and the exact mean, SD and per-box figures it brings (no exact
        score laws except optimal play's), no Kim–Nelson selection.
    simulate_all : bool
        Rank every strategy by its simulated games, the deterministic ones too (as
        ``rank --simulate-all``); by default the ranking takes their exact means. The
        exact results are computed either way (summary, figures, regret).

    Returns
    -------
    Report
        Everything computed; :func:`~yahtzee_sim.analysis.report.write.write_report`
        writes it to a folder.

    Raises
    ------
    ReportError
        For a bad argument, before any simulation.

    Notes
    -----
    The exact law and the regret of a deterministic strategy are kept in the table cache
    (:mod:`yahtzee_sim.analysis.report.exact_cache`): a second report on the same rules reads
    them back, bit for bit, instead of evaluating again; a built-in is keyed by its id and
    parameters, one's own strategy (a plugin) by the content of its source file and its
    parameters, so an edited file is evaluated again. Those of the default report ship
    with the package (:mod:`yahtzee_sim.analysis.report.shipped_results`).
    """
    t0 = time.perf_counter()
    plan = plan_report(
        rules, strategies, n_games, seed, n_jobs, regret_top, progress, quick, simulate_all
    )
    return _build(plan, t0)


def _build(plan: ReportPlan, t0: float) -> Report:
    """The stages of :func:`build_report`, each reading ``plan``."""
    from yahtzee_sim.solving.solver import value_table

    if plan.progress and plan.evaluations:
        _evaluation_notice(plan.evaluations)
    bar = report_bar(len(plan.strategies), plan.evaluations, len(plan.cached), plan.quick,
                     desc="report", disable=not plan.progress)  # fmt: skip
    timings: dict[str, float] = {}
    clock = _Clock(timings, bar)

    with clock("tables", "value table"):
        value_table(plan.rules)  # solved or loaded once, shared by every stage below
    skipped: dict[str, str] = {}
    with clock("simulations"):
        runs = _simulations(plan, skipped, bar)
    if REFERENCE in skipped:
        raise ReportError(
            f"the reference strategy failed on rules {plan.rules.name!r}: {skipped[REFERENCE]}"
        )
    ids = [s for s in plan.strategies if s in runs]
    todo = [s for s in plan.deterministic if s in runs]
    with clock("exact", f"exact ({len(todo)} strategies)", "exact_stage"):
        exact, regrets = exact_stage(plan, todo, skipped, bar)
    for sid in plan.deterministic:  # the strategies whose simulation failed
        if sid not in runs:
            bar.step("exact_cached" if sid in plan.cached else "exact")
    with clock("ranking", "full ranking"):
        by_mean = {} if plan.simulate_all else {s: exact[s].mean for s in ids if s in exact}
        ranking = rank_scores(
            {s: runs[s].scores for s in ids if s not in by_mean}, by_mean, alpha=ALPHA
        )
    with clock("kim_nelson", "Kim–Nelson"):
        kn = _kim_nelson(plan, {s: runs[s].scores for s in ids}, skipped)
    bar.close()
    timings["exact_cpu"] = sum(e.seconds for e in exact.values() if not e.meta.get("cached"))
    timings["regret_cpu"] = sum(r.meta.get("charge_seconds", 0.0) for r in regrets.values())
    timings["exact_cpu"] -= timings["regret_cpu"]
    sims = {s: runs[s].aggregate for s in ids}
    results = (sims, exact, regrets, ranking, kn, skipped)
    return _report(plan, ids, results, time.perf_counter() - t0, timings)


def _report(plan: ReportPlan, ids: list, results: tuple, seconds: float, timings: dict) -> Report:
    """The :class:`Report` with every table and figure's data computed from the
    ``results`` (simulations, exact results, regrets, ranking, Kim–Nelson, skipped) of
    the strategies ``ids``."""
    sims, exact, regrets, ranking, kn, skipped = results
    rules = plan.rules
    summary = tables.summary_table(ids, sims, exact, rules)
    ranked = list(summary.index)
    laws = {sid: e for sid, e in exact.items() if e.pmf is not None}
    return Report(
        rules=rules,
        ids=ids,
        strategies={s: plan.strategies[s] for s in ids},
        games=plan.games,
        seed=plan.seed,
        sims=sims,
        exact=exact,
        regrets=regrets,
        ranking=ranking,
        kn=kn,
        mcb=_mcb(kn),
        summary=summary,
        box_tables=tables.box_tables(rules, ranked, sims, exact),
        curves=tables.survival_curves(ranked, sims, laws),
        win_matrix=tables.head_to_head(ranked, sims, laws),
        regret_table=tables.regret_table(regrets),
        skipped=skipped,
        seconds=seconds,
        timings={k: round(v, 3) for k, v in timings.items()},
    )


def _mcb(kn: KNResult | None) -> pd.DataFrame | None:
    """Hsu's MCB intervals on the Kim–Nelson observations every strategy took."""
    from yahtzee_sim.analysis.ranking.mcb import mcb

    if kn is None:
        return None
    common = min(kn.observations.values())
    return mcb(kn.data[:, :common], list(kn.observations), alpha=kn.parameters.get("alpha", ALPHA))


def _simulations(plan: ReportPlan, skipped: dict, bar) -> dict:
    """The :class:`~yahtzee_sim.analysis.ranking.paired_games.ScoredRun` (per-game scores
    and aggregate) of each strategy of ``plan``, simulated in its order; a strategy that
    refuses the rules goes to ``skipped`` with the reason."""
    runs, refused = {}, {}
    for sid, strategy in plan.strategies.items():
        bar.set_postfix_str(f"simulate {sid}")
        try:
            runs[sid] = simulate_scores(strategy, plan.games, plan.seed, plan.rules, plan.n_jobs)
        except StrategyError as exc:
            refused[sid] = str(exc)
        bar.step("simulation")
    skipped.update(refused)  # in the order of the plan
    return runs


def _kim_nelson(plan: ReportPlan, played: dict, skipped: dict) -> KNResult | None:
    """The Kim–Nelson selection (δ = 1, α = 0.05) among the strategies ``played`` (label →
    the per-game scores of the simulation stage: its observations draw on those games,
    and play only those past them), or ``None`` with the reason in ``skipped`` (a quick
    report, a single strategy)."""
    from yahtzee_sim.analysis.ranking.selection import select_best

    if plan.quick:
        skipped["Kim–Nelson"] = "quick report (run without --quick for the selection)"
        return None
    try:
        return select_best(
            [plan.strategies[s] for s in played], delta=DELTA, alpha=ALPHA, seed=plan.seed,
            rules=plan.rules, n_jobs=plan.n_jobs, played=played,
        )  # fmt: skip
    except SelectionError as exc:  # e.g. a single strategy
        skipped["Kim–Nelson"] = str(exc)
        return None


class _Clock:
    """``with clock(step, label):`` times a step into ``timings`` and advances the bar."""

    def __init__(self, timings: dict, bar):
        self.timings, self.bar = timings, bar

    def __call__(self, step: str, label: str | None = None, kind: str | None = None):
        from contextlib import contextmanager

        @contextmanager
        def timed():
            if label is not None:
                self.bar.set_postfix_str(label)
            t = time.perf_counter()
            yield
            self.timings[step] = time.perf_counter() - t
            if label is not None:
                self.bar.step(kind or step)

        return timed()


def report_bar(simulated: int, evaluated: int, cached: int, quick: bool, **options) -> WeightedBar:
    """The bar of a report, counting its steps: the value table, each of the ``simulated``
    strategies' games, each of the ``evaluated`` strategies' exact law and regret, the
    full ranking and the Kim–Nelson selection (none in a ``quick`` report). The ``cached``
    strategies' results, read from the table cache or the package, count nothing, nor does
    the exact stage's own bookkeeping; ``options`` go to tqdm."""
    weights = {"tables": 1, "simulation": 1, "exact": 1, "exact_cached": 0, "exact_stage": 0}
    weights |= {"ranking": 1, "kim_nelson": 0 if quick else 1}
    counts = dict.fromkeys(weights, 1) | {
        "simulation": simulated,
        "exact": evaluated,
        "exact_cached": cached,
    }
    return WeightedBar(weights, counts, **options)


def _evaluation_notice(evaluated: int) -> None:
    """One line on stderr when the report evaluates strategies (their results neither in
    the table cache nor shipped): the step that takes seconds per strategy."""
    noun = "strategy" if evaluated == 1 else "strategies"
    print(f"evaluating {evaluated} {noun} exactly", file=sys.stderr)
