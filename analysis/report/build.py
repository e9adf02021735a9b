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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property

import numba
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from yahtzee_sim.analysis import headtohead
from yahtzee_sim.analysis.ranking.kim_nelson import KNResult, SelectionError
from yahtzee_sim.analysis.report import compile_ahead, exact_cache
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import n_states
from yahtzee_sim.validation import Integer, check

DEFAULT_GAMES = 100_000
QUICK_GAMES = 10_000
REFERENCE = "optimal"


class ReportError(StrategyError):
    """Bad arguments for a report (strategies, games, output folder)."""


# ------------------------------------------------------------------ the report
@dataclass(eq=False)
class Report:
    """Everything :func:`build_report` computed: the simulations, exact results, regrets
    and Kim–Nelson selection, and the tables derived from them.

    :func:`~yahtzee_sim.analysis.report.write.write_report` writes it to a folder.

    Attributes
    ----------
    rules : RuleSet
    ids : list of str
        Strategies simulated, in the order asked (``optimal`` included).
    games, seed : int
        Simulated games per strategy and master seed.
    sims : dict
        Simulation result (``Aggregate``) per strategy id.
    exact : dict
        :class:`~yahtzee_sim.exact.laws.ExactResult` per deterministic strategy id.
    regrets : dict
        :class:`~yahtzee_sim.analysis.decisions.regret.RegretResult` per strategy id (not the
        reference).
    kn : KNResult or None
        The Kim–Nelson selection (``None`` if it did not run).
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
    games: int
    seed: int
    sims: dict
    exact: dict
    regrets: dict
    kn: KNResult | None
    skipped: dict
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

    @cached_property
    def summary(self) -> pd.DataFrame:
        """The main table, one row per strategy, best simulated mean first: exact mean and
        SD, simulated mean, SD, 95% CI, min, p10, median, max, bonus %, Yahtzees/game."""
        rows = []
        for sid in self.ids:
            s = self.sims[sid].summary()
            e = self.exact.get(sid)
            rows.append(
                {
                    "strategy": sid,
                    "exact mean": e.mean if e else np.nan,
                    "exact SD": e.sd if e else np.nan,
                    "mean": s["mean"],
                    "SD": s["sd"],
                    "95% CI": f"[{s['ci95'][0]:.2f}, {s['ci95'][1]:.2f}]",
                    "min": s["min"],
                    "p10": s["percentiles"]["p10"],
                    "median": s["percentiles"]["p50"],
                    "max": s["max"],
                    "bonus %": 100 * s["bonus_rate"],
                    "Yahtzees/game": s["yahtzees_mean"],
                }
            )
        df = pd.DataFrame(rows).set_index("strategy")
        return df.sort_values("mean", ascending=False)

    @cached_property
    def laws(self) -> dict:
        """The exact results that hold a score law (a quick report has moments only)."""
        return {sid: e for sid, e in self.exact.items() if e.pmf is not None}

    @property
    def ranked(self) -> list[str]:
        """Strategy ids, best simulated mean first."""
        return list(self.summary.index)

    @cached_property
    def box_tables(self) -> dict[str, pd.DataFrame]:
        """The per-box tables, one column per strategy in :attr:`ranked` order, after
        ``optimal (exact)`` when known: ``mean`` (points), ``zero`` (% of games with 0
        points) and ``turn`` (average turn in which the box is filled)."""
        names = list(self.rules.box_names)
        tables = {}
        ref = self.exact.get(REFERENCE)
        summaries = {sid: self.sims[sid].summary() for sid in self.ranked}
        if ref is not None:
            summaries = {f"{REFERENCE} (exact)": ref.to_dict(), **summaries}
        for key, entry, scale in (
            ("mean", "box_means", 1.0),
            ("zero", "box_zero_rate", 100.0),
            ("turn", "box_fill_turn", 1.0),
        ):
            cols = {
                label: np.array([s[entry][n] for n in names], dtype=float) * scale
                for label, s in summaries.items()
            }
            tables[key] = pd.DataFrame(cols, index=pd.Index(names, name="box"))
        return tables

    def survival(self, sid: str) -> np.ndarray:
        """P(final score ≥ x) of strategy ``sid``: exact where known, else from the
        simulated histogram."""
        if sid in self.laws:
            return self.laws[sid].survival()
        h = np.asarray(self.sims[sid].histogram, dtype=float)
        return np.cumsum(h[::-1])[::-1] / h.sum()

    @cached_property
    def win_matrix(self) -> pd.DataFrame:
        """P(row strategy beats column strategy) in a blind two-player game (ties count
        half), from the exact laws where known, else the simulated histograms."""
        dists = {
            sid: (self.laws[sid].pmf if sid in self.laws else np.asarray(self.sims[sid].histogram))
            for sid in self.ranked
        }
        return headtohead.win_matrix(dists)

    @cached_property
    def regret_table(self) -> pd.DataFrame:
        """One row per strategy with a regret: the gap to optimal, the loss by decision type
        and their sum, fewest points lost first."""
        if not self.regrets:
            return pd.DataFrame(index=pd.Index([], name="strategy"))
        rows = {
            sid: {
                "optimal − strategy": r.optimal_value - r.strategy_value,
                **r.by_decision.to_dict(),
                "sum of losses": r.total,
            }
            for sid, r in self.regrets.items()
        }
        table = pd.DataFrame(rows).T
        table.index.name = "strategy"
        return table.sort_values("sum of losses")

    def to_dict(self) -> dict:
        """JSON-ready ``summary`` and ``skipped`` (no wall time: the same run gives the same
        dict)."""
        return {
            "summary": json.loads(self.summary.reset_index().to_json(orient="records")),
            "skipped": self.skipped,
        }


# ------------------------------------------------------------------ building
def _resolve(strategies) -> dict:
    """``{label: strategy}`` in the order given (ids, plugin specs or instances), the
    reference last; results are keyed by :func:`strategy_label`, never by a spec."""
    from yahtzee_sim.engine.plugins import split_strategy_list
    from yahtzee_sim.strategies import default_strategy_ids, get_strategy

    if strategies in (None, "all"):
        ids = default_strategy_ids()
    else:
        ids = split_strategy_list(strategies) if isinstance(strategies, str) else list(strategies)
        ids = [s for s in ids if not isinstance(s, str) or s.strip()]
        if not ids:
            raise ReportError("strategies: give 'all' or at least one strategy id")
    # unknown ids fail here, with the list of known ones
    labels = [strategy_label(get_strategy(s)) for s in ids]
    if len(set(labels)) != len(labels):
        raise ReportError(f"strategies must have distinct labels, got {labels}")
    specs = dict(zip(labels, ids, strict=True))
    if REFERENCE not in specs:
        specs[REFERENCE] = REFERENCE  # the reference column of the per-box tables
    return specs


def _check_games(games, quick: bool) -> int:
    if games is None:
        return QUICK_GAMES if quick else DEFAULT_GAMES
    return check("games", games, Integer(100), ReportError)


def build_report(
    rules: str | RuleSet = "yahtzee",
    strategies="all",
    n_games: int | None = None,
    seed: int = 0,
    n_jobs: int = 2,
    regret_top: int = 10,
    progress: bool = True,
    quick: bool = False,
) -> Report:
    """Simulate, evaluate, rank and compare strategies.

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
        Costliest situations listed per strategy in the regret section.
    progress : bool
        Show a progress bar over the steps (and a line when the kernels must be compiled).
    quick : bool
        A first look in seconds: :data:`QUICK_GAMES` games unless ``n_games`` is given,
        the exact evaluation of the strategies limited to their regret against optimal
        (max-EV) play and the exact mean, SD and per-box figures it brings (no exact
        score laws except optimal play's), no Kim–Nelson ranking.

    Returns
    -------
    Report
        Everything computed; :func:`~yahtzee_sim.analysis.report.write.write_report`
        writes it to a folder.

    Notes
    -----
    The exact law and the regret of a built-in strategy are kept in the table cache
    (:mod:`yahtzee_sim.analysis.report.exact_cache`): a second report on the same rules reads
    them back, bit for bit, instead of evaluating again.
    """
    t0 = time.perf_counter()
    rules = get_rules(rules)
    n_games = _check_games(n_games, quick)
    specs = _resolve(strategies)
    if progress:
        _first_run_notice(rules, specs, regret_top)
    # a first run on this machine: the decision fill's and the exact stage's kernels
    # compile in a second process while the solver compiles (on one core) and runs
    warming = compile_ahead.start(rules)
    try:
        return _build(rules, n_games, seed, specs, n_jobs, regret_top, progress, quick, warming, t0)
    finally:
        compile_ahead.finish(warming, timeout=0.0)  # only still running if a step failed


def _build(rules, games, seed, specs, n_jobs, regret_top, progress, quick, warming, t0):
    """The steps of :func:`build_report` (arguments checked; ``warming``: the
    :mod:`~yahtzee_sim.analysis.report.compile_ahead` process, or ``None``)."""
    from yahtzee_sim.solving.solver import value_table

    ids = list(specs)
    deterministic = [s for s in ids if is_deterministic(specs[s])]
    bar = tqdm(
        total=len(ids) + len(deterministic) + 3, desc="report", unit="step", disable=not progress
    )
    timings: dict[str, float] = {}
    clock = _Clock(timings, bar)

    with clock("tables", "value table"):
        value_table(rules)  # solved or loaded once, shared by every step below
    skipped: dict[str, str] = {}
    with clock("simulations"):
        sims = _simulations(ids, specs, games, seed, rules, n_jobs, skipped, bar)
    if REFERENCE in skipped:
        raise ReportError(
            f"the reference strategy failed on rules {rules.name!r}: {skipped[REFERENCE]}"
        )
    ids = [s for s in ids if s in sims]
    todo = [s for s in deterministic if s in sims]
    with clock("exact", f"exact ({len(todo)} strategies)"):
        compile_ahead.finish(warming)
        exact, regrets = _exact_stage(todo, specs, rules, regret_top, n_jobs, quick, skipped, bar)
    bar.update(len(deterministic) - len(todo))
    with clock("kim_nelson", "Kim–Nelson"):
        kn = _kim_nelson([specs[s] for s in ids], seed, rules, n_jobs, quick, skipped)
    bar.close()
    timings["exact_cpu"] = sum(e.seconds for e in exact.values() if not e.meta.get("cached"))
    timings["regret_cpu"] = sum(r.meta.get("charge_seconds", 0.0) for r in regrets.values())
    timings["exact_cpu"] -= timings["regret_cpu"]
    return Report(
        rules=rules,
        ids=ids,
        games=games,
        seed=seed,
        sims=sims,
        exact=exact,
        regrets=regrets,
        kn=kn,
        skipped=skipped,
        seconds=time.perf_counter() - t0,
        timings={k: round(v, 3) for k, v in timings.items()},
    )


def _simulations(ids, specs, games, seed, rules, n_jobs, skipped, bar) -> dict:
    """The simulation result of each strategy label in ``ids``; a strategy that refuses
    the rules goes to ``skipped`` with the reason."""
    from yahtzee_sim.engine.simulate import simulate_aggregate

    sims = {}
    for sid in ids:
        bar.set_postfix_str(f"simulate {sid}")
        try:
            sims[sid] = simulate_aggregate(
                specs[sid], games, seed=seed, rules=rules, n_jobs=n_jobs, progress=False
            )
        except StrategyError as exc:
            skipped[sid] = str(exc)
        bar.update(1)
    return sims


def _kim_nelson(strategies, seed, rules, n_jobs, quick, skipped) -> KNResult | None:
    """The Kim–Nelson selection among ``strategies`` (δ = 1, α = 0.05), or ``None`` with
    the reason in ``skipped`` (a quick report, a single strategy)."""
    from yahtzee_sim.analysis.ranking.selection import select_best

    if quick:
        skipped["Kim–Nelson"] = "quick report (run without --quick for the ranking)"
        return None
    try:
        return select_best(strategies, delta=1.0, alpha=0.05, seed=seed, rules=rules, n_jobs=n_jobs)
    except SelectionError as exc:  # e.g. a single strategy
        skipped["Kim–Nelson"] = str(exc)
        return None


class _Clock:
    """``with clock(step, label):`` times a step into ``timings`` and advances the bar."""

    def __init__(self, timings: dict, bar):
        self.timings, self.bar = timings, bar

    def __call__(self, step: str, label: str | None = None):
        from contextlib import contextmanager

        @contextmanager
        def timed():
            if label is not None:
                self.bar.set_postfix_str(label)
            t = time.perf_counter()
            yield
            self.timings[step] = time.perf_counter() - t
            if label is not None:
                self.bar.update(1)

        return timed()


def _first_run_notice(rules: RuleSet, specs: dict, top: int) -> None:
    """One line on stderr when this report has kernels to compile or strategies to
    evaluate that later runs read from the cache, with an estimate of the extra time
    (:func:`compile_ahead.first_run_estimate`)."""
    keys = [exact_cache.result_key(s, rules, top) for s in specs.values() if is_deterministic(s)]
    evaluations = sum(1 for key in keys if key is not None and not exact_cache.stored(key))
    share = compile_ahead.compile_share()
    seconds = compile_ahead.first_run_estimate(share, evaluations)
    if seconds >= 5:
        what = " and ".join(
            part
            for part, todo in (("compiling kernels", share), ("evaluating strategies", evaluations))
            if todo
        )
        print(
            f"first run on this machine ({what}): about {seconds:.0f} s more than later "
            "runs, which read them from the cache",
            file=sys.stderr,
        )


def _exact_stage(todo, specs, rules: RuleSet, top: int, n_jobs: int, quick: bool, skipped, bar):
    """Exact results and regrets of ``todo`` (labels; ``specs`` maps them to what to play):
    read from the cache or evaluated, several strategies at a time in threads of this
    process (the kernels release the GIL)."""
    exact, regrets, results = {}, {}, {}
    keys = {sid: exact_cache.result_key(specs[sid], rules, top) for sid in todo}
    for sid, key in keys.items():
        got = exact_cache.load(key, rules) if key is not None else None
        if got is not None:
            ex, reg = got
            if quick and sid != REFERENCE:  # what a quick evaluation gives, whatever the cache
                ex = replace(ex, pmf=None)
            results[sid] = (ex, reg, None)
            bar.update(1)
    left = [s for s in todo if s not in results]
    workers = max(1, min(n_jobs if n_jobs > 0 else len(left), len(left)))
    threads = max(1, numba.get_num_threads() // workers)

    def one(sid):
        numba.set_num_threads(threads)
        return _exact_one(specs[sid], rules, top, quick)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for sid, result in zip(left, pool.map(one, left), strict=True):
            results[sid] = result
            if result[2] is None and keys[sid] is not None and (not quick or sid == REFERENCE):
                exact_cache.save(keys[sid], result[0], result[1])
            bar.update(1)
    from yahtzee_sim.exact.laws import EXACT_STATE_LIMIT

    if todo and n_states(rules) > EXACT_STATE_LIMIT:
        skipped["exact score laws and regret"] = (
            f"{rules.name!r} has {n_states(rules):,} states: the exact columns are the mean, "
            "SD and per-box figures of a streamed moments pass; laws and regret need "
            f"{EXACT_STATE_LIMIT:,} states or fewer"
        )
    for sid in todo:  # in the order asked, whichever finished first
        result, regret_result, error = results[sid]
        if error is not None:
            skipped[f"{sid} (exact)"] = error
            continue
        if result is not None:
            exact[sid] = result
        if regret_result is not None:
            regrets[sid] = regret_result
    return exact, regrets


def _exact_one(sid: str, rules, top: int, quick: bool = False):
    """``(exact result, regret, error text)`` of one strategy: the regret (except for
    the reference) and the exact law from one forward pass; with ``quick`` no law
    except the reference's, and moments from the regret pass."""
    from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret
    from yahtzee_sim.exact.laws import EXACT_STATE_LIMIT, ExactEvaluationError, evaluate

    try:
        if n_states(rules) > EXACT_STATE_LIMIT:  # the law does not fit: the moments do
            return evaluate(sid, rules, distribution=False), None, None
        if sid == REFERENCE:
            return evaluate(sid, rules), None, None
        return (*evaluate_with_regret(sid, rules, top=top, distribution=not quick), None)
    except ExactEvaluationError as exc:
        return None, None, str(exc)


def is_deterministic(sid: str) -> bool:
    """Whether the strategy id names a deterministic strategy (one the exact evaluator
    can evaluate)."""
    from yahtzee_sim.engine.strategy import capabilities_of
    from yahtzee_sim.strategies import get_strategy, strategy_class

    try:
        cls = strategy_class(sid)
    except Exception:
        cls = get_strategy(sid)  # a plugin: its instance's capabilities
    return capabilities_of(cls).exact
