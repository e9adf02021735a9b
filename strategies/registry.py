"""The one registry of strategies, with versioned ids (``greedy-v1``; ``greedy`` = latest)."""

from __future__ import annotations

import importlib
import re

from yahtzee_sim.errors import StrategyError

from .base import Strategy
from .plugins import is_plugin_spec, load_plugin

#: The modules of the built-in families, each registering its strategies on import.
BUILTIN_MODULES = (
    "card",
    "defensive",
    "glenn2006",
    "greedy",
    "optimal",
    "random",
    "risk",
    "rule_based",
    "rule_based_program",
    "target",
    "win",
    "winaware",
)

_REGISTRY: dict[str, type[Strategy]] = {}
_LATEST: dict[str, int] = {}
_BUILTINS_LOADED = False
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_PARAM_ID = re.compile(r"^([a-z0-9][a-z0-9-]*):(-?\d+(?:\.\d*)?(?:e-?\d+)?)$")  # "target:300"


def register(base_id: str, version: int = 1):
    """Class decorator registering a strategy as ``f"{base_id}-v{version}"``.

    The bare ``base_id`` resolves to the highest registered version.
    """
    if not _ID.match(base_id):
        raise StrategyError(f"strategy id {base_id!r} must be lowercase letters, digits and '-'")

    def deco(cls: type[Strategy]) -> type[Strategy]:
        if not (isinstance(cls, type) and issubclass(cls, Strategy)):
            raise StrategyError(f"{cls!r} is not a Strategy subclass")
        key = f"{base_id}-v{version}"
        if key in _REGISTRY and _REGISTRY[key] is not cls:
            raise StrategyError(f"strategy id {key!r} is already registered")
        _REGISTRY[key] = cls
        _LATEST[base_id] = max(version, _LATEST.get(base_id, 0))
        cls.name = base_id
        cls.version = version
        for other in _REGISTRY.values():  # older versions are labelled with their version
            if other.name == base_id:
                other.label_id = (
                    base_id
                    if other.version == _LATEST[base_id]
                    else (f"{base_id}-v{other.version}")
                )
        return cls

    return deco


def load_builtins() -> None:
    """Import every built-in family once (each registers its strategies).

    Imported by name, on the first lookup, so that importing the registry never
    imports a family (some families use ``simulate`` or ``exact``, which use the
    registry).
    """
    global _BUILTINS_LOADED
    if not _BUILTINS_LOADED:
        for module in BUILTIN_MODULES:
            importlib.import_module(f"{__package__}.{module}")
        _BUILTINS_LOADED = True


def strategy_ids(versioned: bool = False) -> list[str]:
    """Registered ids: bare ids (default) or every versioned id."""
    load_builtins()
    return sorted(_REGISTRY) if versioned else sorted(_LATEST)


def default_strategy_ids() -> list[str]:
    """The ids that ``"all"`` stands for (report, select): every registered strategy
    except those that opt out (``in_all = False``, e.g. ``target``)."""
    return [s for s in strategy_ids() if getattr(strategy_class(s), "in_all", True)]


def strategy_class(strategy_id: str) -> type[Strategy]:
    """The class registered under ``strategy_id`` (bare or versioned)."""
    load_builtins()
    if strategy_id in _LATEST:
        strategy_id = f"{strategy_id}-v{_LATEST[strategy_id]}"
    try:
        return _REGISTRY[strategy_id]
    except KeyError:
        raise StrategyError(
            f"unknown strategy {strategy_id!r}; expected one of: {', '.join(strategy_ids())}"
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
