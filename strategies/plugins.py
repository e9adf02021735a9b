"""Load user strategies from ``path/to/file.py:ClassName`` or ``package.module:ClassName``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from yahtzee_sim.errors import StrategyError

from .base import Strategy


def is_plugin_spec(text: str) -> bool:
    """Whether ``text`` names a class to load rather than a registry id."""
    return ":" in text


def load_strategy_class(spec: str) -> type[Strategy]:
    """The Strategy subclass named by ``spec`` (``file.py:Class`` or ``module:Class``).

    Raises
    ------
    StrategyError
        One line saying what is missing: the file, the module, the class, or that the
        object is not a Strategy subclass (errors raised while importing are reported too).
    """
    where, _, name = spec.rpartition(":")
    if not where or not name.isidentifier():
        raise StrategyError(
            f"strategy {spec!r}: expected 'path/to/file.py:Class' or 'package.module:Class'"
        )
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where).expanduser()
        if not path.is_file():
            raise StrategyError(f"strategy {spec!r}: file {where!r} does not exist")
        module_name = f"yahtzee_sim_plugin_{abs(hash(str(path.resolve())))}"
        module = sys.modules.get(module_name)
        if module is None:
            file_spec = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(file_spec)
            sys.modules[module_name] = module  # lets pickle find the class
            try:
                file_spec.loader.exec_module(module)
                _pickle_by_value(module)
            except Exception as exc:
                del sys.modules[module_name]
                raise StrategyError(
                    f"strategy {spec!r}: importing {where!r} failed: {type(exc).__name__}: {exc}"
                ) from None
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise StrategyError(
                f"strategy {spec!r}: cannot import module {where!r}: {exc}"
            ) from None
    cls = getattr(module, name, None)
    if cls is None:
        raise StrategyError(f"strategy {spec!r}: {where!r} has no attribute {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise StrategyError(
            f"strategy {spec!r}: {name!r} is not a subclass of yahtzee_sim.strategies.Strategy"
        )
    return cls


def _pickle_by_value(module) -> None:
    """Worker processes cannot import a file-loaded module: ship its classes by value."""
    try:
        import cloudpickle  # what joblib's process workers use
    except ImportError:  # pragma: no cover - older joblib vendored it
        try:
            from joblib.externals import cloudpickle
        except ImportError:
            return
    cloudpickle.register_pickle_by_value(module)
