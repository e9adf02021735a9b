"""Load a user's strategy from a file or a module: ``WHERE:NAME`` or ``WHERE:NAME(k=v, ...)``.

``WHERE`` is a Python file (``path/to/file.py``; any path with a ``/`` or ending in
``.py``) or an importable module (``package.module``; the current directory is searched
too). ``NAME`` is a :class:`~yahtzee_sim.strategies.Strategy` subclass, which is
constructed, or a Strategy *instance* defined in that file (e.g. a
:class:`~yahtzee_sim.strategies.FunctionStrategy`), which is used as it is.
Constructor parameters follow the class name as Python keyword arguments whose values
are literals (numbers, strings, booleans, ``None``, tuples, lists, dicts), parsed
safely, never evaluated::

    my_strategy.py:KeepMostCommon
    my_strategy.py:KeepMostCommon(theta=0.1, greedy_boxes=False)
    mypackage.heuristics:TUNED

Every problem (missing file, module or name, an import that fails, a non-literal
parameter, parameters given to an instance) raises a one-line
:class:`~yahtzee_sim.errors.StrategyError`.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from yahtzee_sim.engine.decide import describe, user_frame
from yahtzee_sim.engine.strategy import Strategy
from yahtzee_sim.errors import StrategyError, YahtzeeSimError

#: The syntax, for help texts and errors.
PLUGIN_SYNTAX = "FILE.py:NAME, FILE.py:NAME(param=value, ...) or package.module:NAME"

# Threads may load plugins at once (blocks of one run, the web app's requests):
# a file's module is executed by one thread while the others wait for it (it is in
# sys.modules, half-executed, meanwhile), and the current directory is put on sys.path
# once for all the imports that need it.
_FILE_LOCK = threading.RLock()
_PATH_LOCK = threading.Lock()
_CWD_USERS: dict[str, int] = {}  # folder -> imports that put it on sys.path


def is_plugin_spec(text: str) -> bool:
    """Whether ``text`` names a strategy to load rather than a registry id.

    The registry reads ids with a numeric parameter (``target:300``) before asking.
    """
    return ":" in text


def split_strategy_list(text: str) -> list[str]:
    """Comma-separated strategies, blanks dropped; commas inside a plugin's parameters
    (``f.py:K(a=1, b=(2, 3))``) do not split.

    Examples
    --------
    >>> split_strategy_list("greedy, my.py:Keep(theta=0.5, boxes=(1, 2)),optimal")
    ['greedy', 'my.py:Keep(theta=0.5, boxes=(1, 2))', 'optimal']
    """
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return [p for p in parts if p]


def split_plugin_spec(spec: str) -> tuple[str, str, dict]:
    """``(where, name, params)`` of a plugin spec.

    Examples
    --------
    >>> split_plugin_spec("my.py:Keep(theta=0.5, boxes=('ones',))")
    ('my.py', 'Keep', {'theta': 0.5, 'boxes': ('ones',)})
    """
    head, paren, _ = spec.partition("(")
    where, _, name = head.rpartition(":")
    name = name.strip()
    if not where or not name.isidentifier():
        raise StrategyError(f"strategy {spec!r}: expected {PLUGIN_SYNTAX}")
    params = _parse_params(spec, name + spec[len(head) :]) if paren else {}
    return where, name, params


def _parse_params(spec: str, call: str) -> dict:
    """Keyword arguments of ``Name(k=v, ...)``, each value a literal."""
    try:
        tree = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        raise StrategyError(
            f"strategy {spec!r}: parameters must read like Name(param=value, ...)"
        ) from None
    if not isinstance(tree, ast.Call) or not isinstance(tree.func, ast.Name):
        raise StrategyError(f"strategy {spec!r}: parameters must read like Name(param=value, ...)")
    if tree.args or any(k.arg is None for k in tree.keywords):
        raise StrategyError(f"strategy {spec!r}: parameters must be named (param=value)")
    params = {}
    for keyword in tree.keywords:
        try:
            params[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            text = ast.get_source_segment(call.strip(), keyword.value)
            raise StrategyError(
                f"strategy {spec!r}: parameter {keyword.arg}={text} is not a literal "
                "(numbers, strings, True/False/None, tuples, lists, dicts)"
            ) from None
    return params


def _is_file(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def _load_file(spec: str, where: str) -> ModuleType:
    path = Path(where).expanduser()
    if not path.is_file():
        raise StrategyError(f"strategy {spec!r}: file {where!r} does not exist")
    module_name = f"yahtzee_sim_plugin_{abs(hash(str(path.resolve())))}"
    with _FILE_LOCK:  # another thread may be executing this very file
        module = sys.modules.get(module_name)
        if module is not None:
            return module
        file_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(file_spec)
        sys.modules[module_name] = module  # lets pickle find the class
        try:
            file_spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(module_name, None)
            raise StrategyError(
                f"strategy {spec!r}: importing {where!r} failed: {describe(exc)}"
            ) from None
        _stamp_source(module, path)
        _pickle_by_value(module)
        return module


def _stamp_source(module: ModuleType, path: Path) -> None:
    """Set ``source_file`` on the module's Strategy classes: worker processes receive
    them by value, their code named ``<dynamic-code>``, and errors name this file."""
    for obj in vars(module).copy().values():  # a copy: one C call, no other thread between
        if (
            isinstance(obj, type)
            and issubclass(obj, Strategy)
            and obj.__module__ == module.__name__
        ):
            obj.source_file = str(path.resolve())


@contextlib.contextmanager
def _on_path(folder: str) -> Iterator[None]:
    """``folder`` on ``sys.path`` while the block runs (unless it, or ``""``, is there
    already); safe when threads import at once: it is removed after the last of them."""
    with _PATH_LOCK:
        added = _CWD_USERS.get(folder, 0) > 0 or (folder not in sys.path and "" not in sys.path)
        if added:
            if not _CWD_USERS.get(folder):
                sys.path.insert(0, folder)
            _CWD_USERS[folder] = _CWD_USERS.get(folder, 0) + 1
    try:
        yield
    finally:
        if added:
            with _PATH_LOCK:
                _CWD_USERS[folder] -= 1
                if not _CWD_USERS[folder]:
                    del _CWD_USERS[folder]
                    with contextlib.suppress(ValueError):
                        sys.path.remove(folder)


def _load_module(spec: str, where: str) -> ModuleType:
    """Import ``where``, looking in the current directory too."""
    cwd = os.getcwd()
    try:
        with _on_path(cwd):
            module = importlib.import_module(where)
    except ImportError as exc:
        raise StrategyError(f"strategy {spec!r}: cannot import module {where!r}: {exc}") from None
    except Exception as exc:
        raise StrategyError(
            f"strategy {spec!r}: importing {where!r} failed: {describe(exc)}"
        ) from None
    origin = getattr(module, "__file__", None) or ""
    if origin and Path(origin).resolve().is_relative_to(Path(cwd).resolve()):
        _stamp_source(module, Path(origin))
        _pickle_by_value(module)  # worker processes may not have the directory on their path
    return module


def _named_object(spec: str, where: str, name: str):
    module = _load_file(spec, where) if _is_file(where) else _load_module(spec, where)
    obj = getattr(module, name, None)
    if obj is None:
        raise StrategyError(f"strategy {spec!r}: {where!r} has no attribute {name!r}")
    if isinstance(obj, Strategy) or (isinstance(obj, type) and issubclass(obj, Strategy)):
        return obj
    raise StrategyError(
        f"strategy {spec!r}: {name!r} is neither a subclass nor an instance of "
        "yahtzee_sim.strategies.Strategy"
    )


def load_plugin(spec: str, **params) -> Strategy:
    """The strategy named by a plugin spec (see the module docstring), ready to play.

    Parameters
    ----------
    spec : str
        ``WHERE:NAME`` or ``WHERE:NAME(param=value, ...)``.
    **params
        More constructor parameters (they override those in ``spec``).

    Returns
    -------
    Strategy
        A new instance of the named class, or the named instance itself.

    Raises
    ------
    StrategyError
        One line saying what is wrong.
    """
    where, name, spec_params = split_plugin_spec(spec)
    params = {**spec_params, **params}
    obj = _named_object(spec, where, name)
    if isinstance(obj, Strategy):
        if params:
            raise StrategyError(
                f"strategy {spec!r}: {name!r} is an instance; parameters need a class"
            )
        return obj
    try:
        return obj(**params)
    except YahtzeeSimError:
        raise
    except TypeError as exc:
        raise StrategyError(f"strategy {spec!r}: bad parameters: {exc}") from None
    except Exception as exc:
        where = user_frame(exc)
        raise StrategyError(
            f"strategy {spec!r}: {name}(...) raised {describe(exc)}"
            + (f" at {where}" if where else "")
        ) from exc


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
