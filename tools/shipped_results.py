"""Write the exact results that ship with the package, or check them against a fresh evaluation.

Usage: ``python tools/shipped_results.py`` (evaluate the default report's deterministic
strategies on each rule set of ``SHIPPED_REPORT_RULES``, as the report does, and write
``analysis/report/shipped_results.json.xz``) or ``python tools/shipped_results.py
--check`` (exit 1 and name the stale ones when a shipped record differs from a fresh
evaluation by a bit, or one is missing). Each prints one JSON object. About half a
minute on two cores.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ThreadPoolExecutor

from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.analysis.report.exact_stage import evaluate_strategy
from yahtzee_sim.analysis.report.plan import is_deterministic
from yahtzee_sim.analysis.report.shipped_results import (
    SHIPPED_REPORT_RULES,
    SHIPPED_TOP,
    pmf_digest,
    records,
    write_results_file,
)
from yahtzee_sim.analysis.report.tables import REFERENCE
from yahtzee_sim.engine.threads import set_threads
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.strategies import default_strategy_ids


def shipped_strategies() -> list[str]:
    """The deterministic strategies of the default report, the reference among them."""
    ids = {*default_strategy_ids(), REFERENCE}
    rules = get_rules(SHIPPED_REPORT_RULES[0])
    built_in = {s for s in ids if exact_cache.identity_key(s, rules, SHIPPED_TOP) is not None}
    return sorted(s for s in built_in if is_deterministic(s))


def fresh_records() -> dict[str, dict]:
    """Every record evaluated now, by its key (two strategies at a time, one thread each)."""
    cases = [(name, sid) for name in SHIPPED_REPORT_RULES for sid in shipped_strategies()]

    def one(case):
        set_threads(1)
        name, sid = case
        rules = get_rules(name)
        exact, regret, error = evaluate_strategy(sid, rules, SHIPPED_TOP)
        if error is not None:
            raise SystemExit(f"{sid} on {name}: {error}")
        found = exact_cache.to_record(exact, regret)
        found |= {"rules": name, "strategy": sid, "top": SHIPPED_TOP}
        found |= {"pmf": exact.pmf.tolist(), "pmf_sha256": pmf_digest(exact.pmf)}
        return exact_cache.identity_key(sid, rules, SHIPPED_TOP), found

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, cases))


def _text(found: dict) -> str:
    """A record as the file holds it (NaN compares equal to NaN, tuples to lists; the
    order of keys matters)."""
    return json.dumps(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with a fresh evaluation")
    args = parser.parse_args(argv)
    fresh = fresh_records()
    if args.check:
        shipped = records()
        stale = sorted(
            f"{r['strategy']}|{r['rules']}"
            for k, r in fresh.items()
            if k not in shipped or _text(shipped[k]) != _text(r)
        )
        print(json.dumps({"stale": stale, "extra": sorted(set(shipped) - set(fresh))}))
        return 1 if stale or set(shipped) - set(fresh) else 0
    path = write_results_file(fresh)
    print(json.dumps({"written": str(path), "records": len(fresh)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
