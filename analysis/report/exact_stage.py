"""The report's exact stage: each deterministic strategy's exact law and regret against
optimal play, read from the cache or the package (:mod:`.exact_cache`) or evaluated,
several strategies at a time in threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.analysis.report.plan import ReportPlan
from yahtzee_sim.analysis.report.tables import REFERENCE
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.threads import get_threads, set_threads
from yahtzee_sim.game.state import n_states

__all__ = ["evaluate_strategy", "exact_stage"]


def exact_stage(plan: ReportPlan, todo: list[str], skipped: dict, bar):
    """Exact results and regrets of ``todo`` (labels of the deterministic strategies of
    ``plan``, a :class:`~yahtzee_sim.analysis.report.plan.ReportPlan`): those the plan
    read from the cache or the package, the others evaluated, several strategies at a
    time in threads of this process (the kernels release the GIL), and kept."""
    rules, top, quick, n_jobs = plan.rules, plan.top, plan.quick, plan.n_jobs
    exact, regrets, results = {}, {}, {}
    for sid in todo:
        if sid in plan.cached:
            ex, reg = plan.cached[sid]
            if quick and sid != REFERENCE:  # what a quick evaluation gives, whatever the cache
                ex = replace(ex, pmf=None)
            results[sid] = (ex, reg, None)
            bar.step("exact_cached")
    left = [s for s in todo if s not in results]
    workers = max(1, min(n_jobs if n_jobs > 0 else len(left), len(left)))
    threads = max(1, get_threads() // workers)

    def one(sid):
        set_threads(threads)
        return evaluate_strategy(plan.strategies[sid], rules, top, quick)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for sid, result in zip(left, pool.map(one, left), strict=True):
            results[sid] = result
            key = plan.keys[sid]
            if result[2] is None and key is not None and (not quick or sid == REFERENCE):
                exact_cache.save(key, result[0], result[1])
            bar.step("exact")
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


def evaluate_strategy(strategy, rules, top: int, quick: bool = False):
    """``(exact result, regret, error text)`` of one strategy as the report evaluates it
    (what :mod:`.exact_cache` keeps and :mod:`.shipped_results` ships): the regret (except for
    the reference) and the exact law from one forward pass; with ``quick`` no law
    except the reference's, and moments from the regret pass."""
    from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret
    from yahtzee_sim.exact.laws import EXACT_STATE_LIMIT, ExactEvaluationError, evaluate

    try:
        if n_states(rules) > EXACT_STATE_LIMIT:  # the law does not fit: the moments do
            return evaluate(strategy, rules, distribution=False), None, None
        if strategy_label(strategy) == REFERENCE:
            return evaluate(strategy, rules), None, None
        return (*evaluate_with_regret(strategy, rules, top=top, distribution=not quick), None)
    except ExactEvaluationError as exc:
        return None, None, str(exc)
