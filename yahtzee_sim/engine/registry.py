"""The one registry of strategies: versioned ids (``greedy-v1``; ``greedy`` = the latest
version) mapped to ``"module:Class"`` entry points, loaded when first asked for.

As Gymnasium registers environments, the registry holds strings, not classes: the engine
never imports a strategy module. The built-in families are registered in code: importing
:mod:`yahtzee_sim.strategies` (which ``import yahtzee_sim`` does) hands their table
(:mod:`yahtzee_sim.strategies.builtin`) to :func:`register_built_ins`, so a family added
to a source checkout is seen without reinstalling. Installed third-party packages declare
theirs in their metadata (entry-point group ``yahtzee_sim_strategies``)::

    [project.entry-points."yahtzee_sim_strategies"]
    my-heuristic-v1 = "my_package.heuristics:MyHeuristic"

At run time, :func:`register` adds an id for a class or an entry point string.
"""

from __future__ import annotations

import importlib
import re
import threading
from difflib import get_close_matches
from importlib.metadata import entry_points

from yahtzee_sim.engine.plugins import is_plugin_spec, load_plugin
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.errors import StrategyError

#: The entry-point group that declares strategies (``id-vN = "module:Class"``).
ENTRY_POINT_GROUP = "yahtzee_sim_strategies"

_ENTRIES: dict[str, str | type[Strategy]] = {}  # versioned id -> entry point or class
_BUILT_IN: dict[str, str] = {}  # versioned id -> entry point: the built-ins, read at discovery
_LATEST: dict[str, int] = {}
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_VERSIONED_ID = re.compile(r"^([a-z0-9][a-z0-9-]*)-v(\d+)$")
_PARAM_ID = re.compile(r"^([a-z0-9][a-z0-9-]*):(-?\d+(?:\.\d*)?(?:e-?\d+)?)$")  # "target:300"
_DISCOVERED = False
# Guards _ENTRIES, _LATEST and _DISCOVERED: threads resolve ids at once (blocks of a run,
# the web app's requests). Never held while a strategy module is imported (an import
# holds the module's own lock; a module that registers while another thread loads it
# would wait for both).
_LOCK = threading.RLock()


def register(base_id: str, entry_point: str | type[Strategy] | None = None, version: int = 1):
    """Register a strategy as ``f"{base_id}-v{version}"``; the bare ``base_id`` then
    resolves to the highest registered version.

    Parameters
    ----------
    base_id : str
        Lowercase letters, digits and ``-``.
    entry_point : str or Strategy subclass, optional
        ``"module:Class"`` (imported when first asked for) or the class itself. Without
        it, ``register`` is a class decorator.
    version : int
        The version of the id.

    Returns
    -------
    The class (as a decorator), else ``None``.
    """
    if not _ID.match(base_id):
        raise StrategyError(f"strategy id {base_id!r} must be lowercase letters, digits and '-'")
    if entry_point is None:

        def deco(cls: type[Strategy]) -> type[Strategy]:
            register(base_id, cls, version)
            return cls

        return deco
    if not isinstance(entry_point, str):
        _check_class(entry_point)
    discover()
    key = f"{base_id}-v{version}"
    with _LOCK:
        if key in _ENTRIES and _ENTRIES[key] is not entry_point:
            if not (isinstance(entry_point, type) and _loaded(key) is entry_point):
                raise StrategyError(f"strategy id {key!r} is already registered")
        _ENTRIES[key] = entry_point
        _LATEST[base_id] = max(version, _LATEST.get(base_id, 0))
        for other in list(_ENTRIES):  # a newer version relabels the older classes
            loaded = _loaded(other)
            if loaded is not None and other.rpartition("-v")[0] == base_id:
                _label(loaded, base_id, int(other.rpartition("-v")[2]))
    return None


def register_built_ins(entries: dict[str, str]) -> None:
    """Register the built-in strategies: ``{"greedy-v1": "module:Class", ...}``, each
    module imported when first asked for. They are read at every discovery, before the
    entry points of installed packages (an entry point cannot replace a built-in id).

    :mod:`yahtzee_sim.strategies` calls it with its table when imported.
    """
    for key in entries:
        _versioned(key, f"built-in strategy {key!r}")
    with _LOCK:
        _BUILT_IN.update(entries)
        if _DISCOVERED:
            for key, entry in entries.items():
                _declare(key, entry)


def discover() -> None:
    """Read the built-in ids (:func:`register_built_ins`) and the ids that installed
    packages declare (entry-point group ``yahtzee_sim_strategies``), once."""
    global _DISCOVERED
    if _DISCOVERED:  # set last: a thread that sees it sees every declared id
        return
    with _LOCK:
        if _DISCOVERED:
            return
        try:
            for key, entry in _BUILT_IN.items():
                _declare(key, entry)
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                _versioned(ep.name, f"entry point {ep.name!r} of group {ENTRY_POINT_GROUP!r}")
                _declare(ep.name, ep.value)
        finally:
            _DISCOVERED = True  # a bad entry point is reported once, as before


def _versioned(key: str, what: str) -> tuple[str, int]:
    """``(base id, version)`` of a versioned id ``ID-vN``; else ``what`` (the id and where
    it comes from) is refused in one line."""
    match = _VERSIONED_ID.match(key)
    if not match:
        raise StrategyError(f"{what} must be named ID-vN (for example greedy-v1)")
    return match.group(1), int(match.group(2))


def _declare(key: str, entry: str) -> None:
    """Add a versioned id's entry point unless the id is taken (under the lock)."""
    base_id, version = _versioned(key, f"strategy id {key!r}")
    _ENTRIES.setdefault(key, entry)
    _LATEST[base_id] = max(version, _LATEST.get(base_id, 0))


def _check_class(cls) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise StrategyError(f"{cls!r} is not a Strategy subclass")


def _loaded(key: str) -> type[Strategy] | None:
    entry = _ENTRIES.get(key)
    return entry if isinstance(entry, type) else None


def _label(cls: type[Strategy], base_id: str, version: int) -> None:
    """Name a class after its id; older versions are labelled with their version."""
    cls.name = base_id
    cls.version = version
    cls.label_id = base_id if version == _LATEST[base_id] else f"{base_id}-v{version}"


def _load(key: str) -> type[Strategy]:
    """The class of a versioned id, importing its entry point on first use (outside the
    lock: threads that load one id at once import its module once, Python sees to that)."""
    with _LOCK:
        entry = _ENTRIES[key]
    if isinstance(entry, str):
        module, _, qualname = entry.partition(":")
        try:
            obj = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            raise StrategyError(f"strategy {key!r}: cannot load {entry!r}: {exc}") from None
        _check_class(obj)
        with _LOCK:
            if _ENTRIES[key] == entry:  # not re-registered meanwhile
                _ENTRIES[key] = obj
                base_id, version = _VERSIONED_ID.match(key).groups()
                _label(obj, base_id, int(version))
            entry = _ENTRIES[key]
    return entry


def strategy_ids(versioned: bool = False) -> list[str]:
    """Registered ids: bare ids (default) or every versioned id."""
    discover()
    with _LOCK:
        return sorted(_ENTRIES) if versioned else sorted(_LATEST)


def default_strategy_ids() -> list[str]:
    """The ids that ``"all"`` stands for (report, select): every registered strategy
    except those that opt out (``in_all = False``, e.g. ``target``)."""
    return [s for s in strategy_ids() if getattr(strategy_class(s), "in_all", True)]


def strategy_class(strategy_id: str) -> type[Strategy]:
    """The class registered under ``strategy_id`` (bare or versioned)."""
    discover()
    with _LOCK:
        if strategy_id in _LATEST:
            strategy_id = f"{strategy_id}-v{_LATEST[strategy_id]}"
        empty = not _ENTRIES
    try:
        return _load(strategy_id)
    except KeyError:
        if empty:
            raise StrategyError(
                f"unknown strategy {strategy_id!r}: no strategy is registered (the built-ins "
                "are registered when the strategies package is imported: import yahtzee_sim)"
            ) from None
        known = strategy_ids()
        close = get_close_matches(strategy_id, known, n=3)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        raise StrategyError(
            f"unknown strategy {strategy_id!r}{hint}; expected one of: {', '.join(known)}"
        ) from None


def get_strategy(strategy: str | Strategy, **params) -> Strategy:
    """A strategy instance from an id (``"greedy"``, ``"greedy-v1"``), a plugin spec
    (``"path/to/file.py:MyStrategy"``, ``"file.py:MyStrategy(theta=0.1)"``,
    ``"package.module:MyStrategy"``, or an instance defined in the file), a parametric
    id (``"target:300"``: ``TargetScore(beta=300)``; ``"risk:-0.02"``: a float), a path
    id (``"card:my_card.md"``: ``CardStrategy(path="my_card.md")``) or an instance."""
    if isinstance(strategy, Strategy):
        if params:
            raise StrategyError("parameters can only be given with a strategy id")
        return strategy
    if not isinstance(strategy, str):
        raise StrategyError(f"strategy must be an id or a Strategy instance, got {strategy!r}")
    param = _PARAM_ID.match(strategy)
    path_family = _path_family(strategy)
    if path_family is not None:
        # a file after the colon sets the class's path parameter (card:my.md → path="my.md")
        cls = path_family
        params = {cls.id_path_parameter: strategy.partition(":")[2], **params}
    elif param and getattr(strategy_class(param.group(1)), "id_parameter", None):
        # the number after the colon sets the class's id parameter (target:300 → beta=300)
        cls = strategy_class(param.group(1))
        number = param.group(2)
        value = int(number) if re.fullmatch(r"-?\d+", number) else float(number)
        params = {cls.id_parameter: value, **params}
    elif is_plugin_spec(strategy):
        return load_plugin(strategy, **params)
    else:
        cls = strategy_class(strategy)
    try:
        return cls(**params)
    except TypeError as exc:
        raise StrategyError(f"strategy {strategy!r}: bad parameters: {exc}") from None


def _path_family(strategy: str):
    """The class of a path id ``FAMILY:PATH`` (a family with ``id_path_parameter``), or
    ``None``."""
    family, _, rest = strategy.partition(":")
    if not rest or not _ID.match(family):
        return None
    try:
        cls = strategy_class(family)
    except StrategyError:
        return None
    return cls if getattr(cls, "id_path_parameter", None) else None
