"""On-disk cache of the exact law and regret of built-in strategies.

The exact law and the regret of a registered strategy version on a rule set
cannot change until the code changes, so :func:`build_report` keeps them in the
cache folder of the value tables (:mod:`yahtzee_sim.solving.cache`). The key is the
rules fingerprint, the strategy (class, version, parameters), the number of
situations listed and a hash of the package's source code: any code change
gives new keys. A cached result is the computed one bit for bit (floats travel
through JSON as their shortest round-trip text). :func:`exact_law` does the same for
the exact law alone (``reproduce`` reads its laws through it). :func:`lookup` also
reads the results that ship with the package (:mod:`.shipped_results`), keyed by
:func:`identity_key`: the same key without the code's hash.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from yahtzee_sim.analysis.decisions.regret import RegretResult
from yahtzee_sim.analysis.report import shipped_results
from yahtzee_sim.exact.laws import ExactResult
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.solving.cache import cache_path, load_array, save_array

_KIND = "exact"
_EXACT_ARRAYS = ("box_means", "box_zero_rate", "box_fill_turn")
_EXACT_SCALARS = ("strategy", "mean", "sd", "bonus_rate", "yahtzee_bonuses_mean", "n_states")
_REGRET_SCALARS = ("strategy", "optimal_value", "strategy_value", "total")
#: The ``meta`` keys that say where a result was read from.
_ORIGIN = ("cached", "shipped")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 (16 hex digits) of every ``.py`` file of the package, strategies and analysis."""
    import yahtzee_sim.errors
    import yahtzee_sim.strategies

    digest = hashlib.sha256()
    core = Path(yahtzee_sim.errors.__file__).parent
    analysis = Path(__file__).resolve().parents[1]  # the analysis package, sub-packages included
    for root in (core, Path(yahtzee_sim.strategies.__file__).parent, analysis):
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def result_key(strategy_id: str, rules: RuleSet, top: int) -> str | None:
    """Cache key of a built-in strategy's results, or ``None`` (plugins are not cached)."""
    parts = _identity(strategy_id, rules, top)
    return None if parts is None else _hashed([*parts, code_fingerprint()])


def identity_key(strategy_id: str, rules: RuleSet, top: int) -> str | None:
    """Key of a built-in strategy's shipped results (:mod:`.shipped_results`): the rules'
    fingerprint, the strategy's class, version and parameters and ``top``, without the
    code's hash; ``None`` for a plugin."""
    parts = _identity(strategy_id, rules, top)
    return None if parts is None else _hashed(parts)


def _identity(strategy_id: str, rules: RuleSet, top: int | None) -> list | None:
    from yahtzee_sim.strategies import get_strategy

    try:
        strategy = get_strategy(strategy_id)
    except Exception:
        return None
    cls = type(strategy)
    if not cls.__module__.startswith("yahtzee_sim.strategies") or cls.version is None:
        return None
    return [rules.fingerprint(), cls.__qualname__, cls.version, repr(strategy), top]


def _hashed(parts: list) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:24]


def lookup(
    strategy_id: str, rules: RuleSet, top: int
) -> tuple[ExactResult, RegretResult | None] | None:
    """The ``(exact, regret)`` of a built-in strategy (``top`` costliest situations) kept
    in the cache folder, else shipped with the package, else ``None``."""
    key = result_key(strategy_id, rules, top)
    got = None if key is None else load(key, rules)
    if got is not None:
        return got
    shipped = shipped_results.record(identity_key(strategy_id, rules, top) or "")
    if shipped is None:
        return None
    try:
        pmf = np.asarray(shipped["pmf"], dtype=np.float64)
        return from_record(shipped, rules, pmf, shipped=True)
    except (KeyError, TypeError, ValueError):  # a broken record: evaluated instead
        return None


def available(strategy_id: str, rules: RuleSet, top: int) -> bool:
    """Whether :func:`lookup` finds the results without evaluating (it may still refuse a
    damaged cache file)."""
    key = result_key(strategy_id, rules, top)
    if key is not None and stored(key):
        return True
    return shipped_results.record(identity_key(strategy_id, rules, top) or "") is not None


def exact_law(strategy_id: str, rules: RuleSet) -> ExactResult:
    """:func:`~yahtzee_sim.exact.laws.evaluate` of a strategy id, read from the cache when a
    built-in strategy's law on these rules was computed before (and kept for next time).
    """
    from yahtzee_sim.exact.laws import evaluate

    key = result_key(strategy_id, rules, None)
    got = None if key is None else load(key, rules)
    if got is not None:
        return got[0]
    law = evaluate(strategy_id, rules)
    if key is not None:
        save(key, law, None)
    return law


def stored(key: str) -> bool:
    """Whether a result is kept under ``key`` (:func:`load` may still refuse a damaged one)."""
    return cache_path(_KIND, key).exists()


def load(key: str, rules: RuleSet) -> tuple[ExactResult, RegretResult | None] | None:
    """The cached ``(exact, regret)`` under ``key``, or ``None``."""
    path = cache_path(_KIND, key)
    try:
        with path.open("rb") as fh:
            fh.readline()
            header = json.loads(fh.readline())
    except (OSError, ValueError):
        return None
    pmf = load_array(path, int(header.get("n", -1)))
    if pmf is None:
        return None
    return from_record(header, rules, pmf)


def save(key: str, exact: ExactResult, regret: RegretResult | None) -> None:
    """Keep ``exact`` (with its pmf) and ``regret`` under ``key``; a failure only warns."""
    save_array(cache_path(_KIND, key), exact.pmf, to_record(exact, regret))


def to_record(exact: ExactResult, regret: RegretResult | None) -> dict:
    """``{"exact": …, "regret": …}``: the results but the score law's probabilities, as
    JSON (floats as their shortest round-trip text)."""
    return {"exact": _exact_to(exact), "regret": None if regret is None else _regret_to(regret)}


def from_record(
    found: dict, rules: RuleSet, pmf: np.ndarray, shipped: bool = False
) -> tuple[ExactResult, RegretResult | None]:
    """The ``(exact, regret)`` of a :func:`to_record` record and its ``pmf``; their
    ``meta`` says ``cached`` (and ``shipped`` when it came with the package)."""
    origin = {"cached": True, **({"shipped": True} if shipped else {})}
    return _exact_from(found["exact"], rules, pmf, origin), _regret_from(
        found.get("regret"), rules, origin
    )


def _exact_to(ex: ExactResult) -> dict:
    out = {k: getattr(ex, k) for k in _EXACT_SCALARS}
    out.update({k: getattr(ex, k).tolist() for k in _EXACT_ARRAYS})
    out["meta"] = {k: v for k, v in ex.meta.items() if k not in _ORIGIN}  # not the result's
    return out


def _exact_from(d: dict, rules: RuleSet, pmf: np.ndarray, origin: dict) -> ExactResult:
    arrays = {k: np.asarray(d[k], dtype=np.float64) for k in _EXACT_ARRAYS}
    scalars = {k: d[k] for k in _EXACT_SCALARS}
    meta = {**d["meta"], **origin}
    return ExactResult(rules=rules, pmf=pmf, meta=meta, **scalars, **arrays)


def _regret_to(r: RegretResult) -> dict:
    out = {k: getattr(r, k) for k in _REGRET_SCALARS}
    out["by_decision"] = r.by_decision.to_dict()
    out["by_turn"] = r.by_turn.tolist()
    out["by_box"] = r.by_box.tolist()
    out["situations"] = r.situations.to_dict(orient="split")
    return out


def _regret_from(d: dict | None, rules: RuleSet, origin: dict) -> RegretResult | None:
    if d is None:
        return None
    series = {"name": "expected_loss", "dtype": np.float64}
    sit = d["situations"]
    situations = pd.DataFrame(sit["data"], columns=sit["columns"])
    return RegretResult(
        rules=rules,
        **{k: d[k] for k in _REGRET_SCALARS},
        by_decision=pd.Series(d["by_decision"], **series),
        by_turn=pd.Series(
            d["by_turn"], index=pd.Index(np.arange(1, len(d["by_turn"]) + 1), name="turn"), **series
        ),
        by_box=pd.Series(d["by_box"], index=pd.Index(rules.box_names, name="box"), **series),
        situations=situations,
        meta=dict(origin),
    )
