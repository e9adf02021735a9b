"""The one vocabulary of a result: how strategies are named and what a summary's keys are.

Simulated results (:meth:`Results.summary`, :meth:`Aggregate.summary`), exact laws
(:meth:`ExactResult.to_dict`) and every ``--json`` output of the command line share
these keys:

``strategy``
    :func:`strategy_label` of the strategy that played.
``rules``
    Rule-set name.
``mean``, ``sd``, ``min``, ``max``
    Of the final score (bonuses included).
``percentiles``
    ``{"p1": ..., "p5": ..., ..., "p99": ...}`` (:data:`PERCENTILES`). Simulations
    interpolate linearly between order statistics (numpy's default); exact laws give
    the smallest score ``x`` with P(score ≤ x) ≥ q/100.
``bonus_rate``
    Share of games (exact: probability) with the upper-section bonus.
``yahtzee_bonuses_mean``
    Yahtzee bonuses per game.
``box_means``, ``box_zero_rate``, ``box_fill_turn``
    Per box (keyed by box name): points written, share of games with 0 in the
    box, and the (1-based) turn in which it is filled, on average.

Simulations add ``games``, ``seed``, ``ci95`` and ``yahtzees_mean`` (turns ending on
an n-of-a-kind); exact laws add ``n_states`` and ``pmf``.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Mapping, Sequence

import numpy as np

from yahtzee_sim.errors import StrategyError

#: Percentiles every summary reports.
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)

#: The keys every summary has, simulated or exact.
SUMMARY_KEYS = (
    "strategy",
    "rules",
    "mean",
    "sd",
    "min",
    "max",
    "percentiles",
    "bonus_rate",
    "yahtzee_bonuses_mean",
    "box_means",
    "box_zero_rate",
    "box_fill_turn",
)

#: Keys a simulated summary adds (``ci95``: normal-theory 95% interval of the mean;
#: ``yahtzees_mean``: turns ending on an n-of-a-kind, per game).
SIMULATION_KEYS = ("games", "seed", "ci95", "yahtzees_mean")


def percentile_key(q: float) -> str:
    """The summary key of the ``q``-th percentile (``10`` → ``"p10"``)."""
    return f"p{q:g}"


def per_box(names: Sequence[str], values) -> dict[str, float]:
    """Per-box values as ``{box name: float}``."""
    return dict(zip(names, np.asarray(values, dtype=float).tolist(), strict=True))


def box_statistics(names: Sequence[str], means, zero_rate, fill_turn) -> dict[str, dict]:
    """The three per-box entries of a summary."""
    return {
        "box_means": per_box(names, means),
        "box_zero_rate": per_box(names, zero_rate),
        "box_fill_turn": per_box(names, fill_turn),
    }


_SHOWN = (bool, int, float, str, tuple, type(None))


_INIT_LOCK = threading.Lock()
_INIT_PARAMETERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def init_parameters(cls: type) -> Mapping[str, inspect.Parameter]:
    """The parameters of ``cls.__init__`` (``self`` included), read once per class.

    Read under a lock and kept: for a class without a constructor of its own,
    :func:`inspect.signature` parses a text signature with :func:`ast.parse`, and
    CPython 3.11's parser is not safe when two threads parse at once (``SystemError:
    AST constructor recursion depth mismatch``), as threads naming their strategies
    in errors would.
    """
    with _INIT_LOCK:
        params = _INIT_PARAMETERS.get(cls)
        if params is None:
            params = _INIT_PARAMETERS[cls] = inspect.signature(cls.__init__).parameters
    return params


def _changed_params(strategy) -> dict:
    """Constructor parameters away from their defaults whose values print briefly."""
    get_params = getattr(strategy, "get_params", None)
    if get_params is None:
        return {}
    params = init_parameters(type(strategy))
    return {
        p: v
        for p, v in get_params().items()
        if isinstance(v, _SHOWN)
        and (params[p].default is inspect.Parameter.empty or v != params[p].default)
    }


#: The longest label a user may give (:func:`check_label`): labels head table columns.
MAX_LABEL = 40


def check_label(label) -> str:
    """A label a user gives a strategy, stripped; :class:`StrategyError` unless it is a
    non-empty single line of printable characters, at most :data:`MAX_LABEL` long."""
    if not isinstance(label, str) or not label.strip():
        raise StrategyError(f"a strategy label must be a non-empty string, got {label!r}")
    label = label.strip()
    if not label.isprintable() or len(label) > MAX_LABEL:
        raise StrategyError(
            f"a strategy label must be one line of at most {MAX_LABEL} printable characters, "
            f"got {label!r}"
        )
    return label


def strategy_label(strategy) -> str:
    """How results name a strategy: the label it was given, its id, or its class name.

    A strategy given a label (:meth:`Strategy.labelled
    <yahtzee_sim.strategies.Strategy.labelled>`, ``--label`` on the command line) is
    named by it.

    A registered strategy is named by its id (``"greedy"``; a parametric id such as
    ``"target:300"`` keeps its number; an older version keeps its version,
    ``"glenn-2007-rules-v1"``). A class that is not registered (a plugin, a
    subclass of a built-in) is named by the ``name`` it defines, else by its class
    name. Constructor parameters away from their defaults (numbers, strings, tuples)
    follow in parentheses, e.g. ``"greedy(yahtzee_bonus_in_value=True)"`` or
    ``"MyHeuristic(alpha=0.5)"``, so differently tuned players get different labels.
    """
    if isinstance(strategy, str):
        return strategy
    given = getattr(strategy, "given_label", None)
    if given is not None:
        return given
    cls = type(strategy)
    params = _changed_params(strategy)
    if "version" in vars(cls):  # set on the class by the registry
        label = getattr(cls, "label_id", cls.name)
        id_parameter = getattr(cls, "id_parameter", None)
        if id_parameter is not None:
            params.pop(id_parameter, None)
            label = f"{label}:{getattr(strategy, id_parameter)}"
    else:  # a name the class itself defines (e.g. FunctionStrategy's label), else its class
        own = "name" in vars(cls) or any(
            isinstance(vars(k).get("name"), property) for k in cls.__mro__
        )  # e.g. a label given to the instance (FunctionStrategy, PolicyStrategy)
        name = getattr(strategy, "name", None) if own else None
        if isinstance(name, str):
            return name
        label = cls.__name__
    if params:
        label += "(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"
    return label
