"""On-disk cache of the exact law and regret of deterministic strategies.

The exact law and the regret of a strategy on a rule set cannot change until the code
changes, so :func:`build_report` keeps them in the cache folder of the value tables
(:mod:`yahtzee_sim.solving.cache`). The key (:func:`result_key`) is the rules'
fingerprint, the strategy, the number of situations listed and a hash of the package's
source code: any code change gives new keys. A built-in strategy is named by its class,
version and parameters; another one (a plugin ``FILE.py:CLASS``, a subclass of a
built-in, a :class:`~yahtzee_sim.strategies.FunctionStrategy`) by the content of its
source (:func:`source_digest`: the files that define its classes and the functions it
was given), its parameters and its label, so that editing the file gives a new key. A
cached result is the computed one bit for bit (floats travel through JSON as their
shortest round-trip text). :func:`exact_law` does the same for the exact law alone
(``reproduce`` reads its laws through it), :func:`exact_moments` for its moments alone.
:func:`lookup` also reads the results that ship with the package
(:mod:`.shipped_results`), keyed by :func:`identity_key`: a built-in's key without the
code's hash.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import json
import threading
import types
import weakref
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
#: The digest of each class's and function's source file, as first read (:func:`_file_digest`).
_DIGESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_DIGESTS_LOCK = threading.Lock()


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


def result_key(strategy_id, rules: RuleSet, top: int | None) -> str | None:
    """Cache key of a strategy's results (``top`` costliest situations; ``None``: the
    exact law alone), or ``None`` when the strategy cannot be keyed (:func:`content_key`).

    ``strategy_id`` is an id, a plugin spec or a strategy instance. A built-in is keyed
    by its identity (:func:`identity_key`), any other strategy by its content; both keys
    hold the package's code hash (:func:`code_fingerprint`).
    """
    strategy = _strategy(strategy_id)
    if strategy is None:
        return None
    parts = _identity(strategy, rules, top)
    if parts is None:
        parts = _content(strategy, rules, top)
    return None if parts is None else _hashed([*parts, code_fingerprint()])


def identity_key(strategy_id, rules: RuleSet, top: int | None) -> str | None:
    """Key of a built-in strategy's shipped results (:mod:`.shipped_results`): the rules'
    fingerprint, the strategy's class, version and parameters and ``top``, without the
    code's hash; ``None`` for another strategy (a plugin)."""
    strategy = _strategy(strategy_id)
    parts = None if strategy is None else _identity(strategy, rules, top)
    return None if parts is None else _hashed(parts)


def content_key(strategy_id, rules: RuleSet, top: int | None) -> str | None:
    """Key of a strategy by its content: the rules' fingerprint, the strategy's class, its
    :func:`source_digest`, its parameters (numbers, strings, arrays by their bytes,
    functions by their source, strategies by their content) and label, ``top`` and the
    code hash; ``None`` when a source file cannot be read (a class typed at a prompt) or
    a parameter has no stable text (an object printed with its address).

    Only the files that define the strategy's classes and functions are read: a change in
    another module they import, or in a data file they load, is not seen (delete the
    cache folder's ``exact`` files to evaluate again)."""
    strategy = _strategy(strategy_id)
    parts = None if strategy is None else _content(strategy, rules, top)
    return None if parts is None else _hashed([*parts, code_fingerprint()])


def _strategy(strategy_id):
    """The strategy of an id, a plugin spec or an instance, or ``None`` if unknown."""
    from yahtzee_sim.strategies import get_strategy

    try:
        return get_strategy(strategy_id)
    except Exception:
        return None


def _identity(strategy, rules: RuleSet, top: int | None) -> list | None:
    cls = type(strategy)
    if not cls.__module__.startswith("yahtzee_sim.strategies") or cls.version is None:
        return None
    return [rules.fingerprint(), cls.__qualname__, cls.version, repr(strategy), top]


def _content(strategy, rules: RuleSet, top: int | None) -> list | None:
    from yahtzee_sim.engine.summary import strategy_label

    try:
        described = _described(strategy)
    except (_Unstable, RecursionError, ValueError):  # (an empty closure cell: ValueError)
        return None
    return [rules.fingerprint(), "content", described, strategy_label(strategy), top]


def source_digest(strategy) -> str | None:
    """SHA-256 (16 hex digits) of the source files that define the strategy's class and
    its base classes outside the package (each with the class's name); ``None`` when one
    cannot be read. The package's own classes are in :func:`code_fingerprint`."""
    digest = hashlib.sha256()
    for klass in type(strategy).__mro__:
        if klass is object or _in_package(klass.__module__):
            continue
        try:
            path = vars(klass).get("source_file") or inspect.getsourcefile(klass)
            source = _file_digest(klass, path)
        except (_Unstable, OSError, TypeError):  # no file: a class typed at a prompt
            return None
        digest.update(f"{klass.__qualname__}\0{source}\0".encode())
    return digest.hexdigest()[:16]


class _Unstable(Exception):
    """A strategy, or one of its parameters, that has no content key."""


def _in_package(module: str) -> bool:
    return module.split(".")[0] == "yahtzee_sim"


def _file_digest(owner, path) -> str:
    """SHA-256 of the bytes of the source file of ``owner`` (a class, a function): its
    content, not its path, read the first time this process asks about ``owner``. A file
    edited after its module was imported keeps the digest of the code this process runs
    (a plugin file is imported once per process); the next process reads the new one."""
    with _DIGESTS_LOCK:
        known = _DIGESTS.get(owner)
    if known is not None:
        return known
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (OSError, TypeError, ValueError):  # no file (a prompt, a notebook cell)
        raise _Unstable from None
    with _DIGESTS_LOCK:
        return _DIGESTS.setdefault(owner, digest)


def _described(strategy) -> list:
    """The class name, :func:`source_digest` and :func:`_stable` parameters of ``strategy``."""
    digest = source_digest(strategy)
    if digest is None:
        raise _Unstable
    try:
        params = strategy.get_params()
    except Exception:  # parameters not stored under their names
        raise _Unstable from None
    return [type(strategy).__qualname__, digest, _stable(params)]


def _stable(value):
    """``value`` as JSON-ready data that two runs with the same value give alike."""
    from yahtzee_sim.engine.strategy import Strategy

    if value is None or type(value) in (bool, int, float, str):  # the type names the kind
        return [type(value).__name__, repr(value)]
    if isinstance(value, np.generic):
        return [str(value.dtype), repr(value.item())]
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise _Unstable
        data = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        return ["ndarray", value.dtype.str, list(value.shape), data]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_stable(v) for v in value]]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted((_stable(v) for v in value), key=json.dumps)]
    if isinstance(value, dict):
        return [
            "dict",
            sorted(([_stable(k), _stable(v)] for k, v in value.items()), key=json.dumps),
        ]
    if isinstance(value, Strategy):
        return ["strategy", _described(value)]
    if isinstance(value, functools.partial):
        return ["partial", _stable(value.func), _stable(value.args), _stable(value.keywords)]
    if isinstance(value, types.FunctionType):
        cells = [c.cell_contents for c in value.__closure__ or ()]
        source = _file_digest(value, value.__code__.co_filename)
        return ["function", value.__qualname__, source, _stable(cells), _stable(value.__defaults__)]
    text = repr(value)
    if " at 0x" in text or "..." in text:  # an address, or a summary of a large value
        raise _Unstable
    return [type(value).__qualname__, text]


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


def exact_moments(strategy_id: str, rules: RuleSet) -> ExactResult:
    """The moments of :func:`exact_law` without its ``pmf`` (mean, SD, per-box figures,
    bonus rates): read from the cache when a built-in strategy's law or moments on these
    rules were computed before, else :func:`~yahtzee_sim.exact.laws.evaluate` with
    ``distribution=False`` (no backward pass; kept for next time). Bit for bit the moments
    of the whole law."""
    from yahtzee_sim.exact.laws import evaluate

    law_key = result_key(strategy_id, rules, None)
    moments_key = result_key(strategy_id, rules, "moments")
    for key in (law_key, moments_key):  # the whole law first: it holds the moments
        got = None if key is None else load(key, rules)
        if got is not None:
            return dataclasses.replace(got[0], pmf=None)
    moments = evaluate(strategy_id, rules, distribution=False)
    if moments_key is not None:
        save(moments_key, dataclasses.replace(moments, pmf=np.zeros(0)), None)
    return moments


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
