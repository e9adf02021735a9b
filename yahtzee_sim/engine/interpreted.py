"""One call run as plain Python, numba's compiler off, in a process of its own.

A numba kernel compiles on its first call in an environment whose kernel cache does not
hold it (tens of seconds for the widget), while the same source run as Python answers
one small question — the widget of one state — in a tenth of a second. With the
environment variable ``NUMBA_DISABLE_JIT=1`` numba's decorators return the functions
undecorated, so a fresh interpreter started with it runs every kernel as the Python it
is written in: the same code, never compiled. :func:`run_interpreted` calls a function
there and returns its result. An error of bad input the call raises (a
:class:`~yahtzee_sim.errors.YahtzeeSimError`) is raised again in the caller; any other
failure is an :class:`InterpretedRunError`, after which the caller computes compiled.

Only small calls pay: a kernel run as Python is about a thousand times slower than
compiled, so a solve or a batch of games stays compiled.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import traceback
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO

__all__ = ["InterpretedRunError", "interpreting", "run_interpreted", "serve_call"]

#: The interpreted process: the caller's module search path first (not the folder it
#: runs in), then :func:`serve_call` on its standard input and output.
_CHILD = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from yahtzee_sim.engine.interpreted import serve_call; "
    "serve_call(sys.stdin.buffer)"
)


class InterpretedRunError(RuntimeError):
    """The interpreted call did not give an answer: the process could not start, failed
    or timed out, the call raised something other than an error of bad input, or its
    result could not be sent back. The message says which."""


def interpreting() -> bool:
    """Whether this process runs numba's kernels as Python (``NUMBA_DISABLE_JIT``)."""
    from numba.core import config

    return bool(config.DISABLE_JIT)


def run_interpreted(fn: Callable[..., Any], *args: Any, timeout: float = 120.0) -> Any:
    """``fn(*args)`` in a new Python process with numba's compiler off.

    ``fn`` (a module-level function), ``args`` and the result travel by pickle. The
    process inherits the environment, the module search path and standard error
    (progress bars show as usual); warnings it raises are raised again here.

    Raises
    ------
    YahtzeeSimError
        The error of bad input ``fn`` raised, raised again here.
    InterpretedRunError
        Any other failure (see the class).
    """
    try:
        payload = pickle.dumps((fn, args))
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(sys.path)],
            input=payload,
            stdout=subprocess.PIPE,
            env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise InterpretedRunError(f"no answer in {timeout:g} s") from exc
    except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
        raise InterpretedRunError(f"the interpreted process did not start: {exc}") from exc
    if proc.returncode != 0:
        raise InterpretedRunError(f"the interpreted process exited with {proc.returncode}")
    try:
        kind, value, caught = pickle.loads(proc.stdout)
    except Exception as exc:  # e.g. an error type that does not rebuild from its pickle
        raise InterpretedRunError(f"the interpreted answer could not be read: {exc}") from exc
    for category, message in caught:
        warnings.warn(message, category, stacklevel=2)
    if kind == "error":
        raise value
    if kind == "failed":
        raise InterpretedRunError(value)
    return value


def serve_call(stdin: BinaryIO) -> None:
    """The interpreted process's side of :func:`run_interpreted`: read ``(fn, args)`` from
    ``stdin``, call it and write ``(kind, value, warnings)`` to the standard output, whose
    file descriptor is kept for the reply alone (what the call prints goes to standard
    error)."""
    from yahtzee_sim.errors import YahtzeeSimError

    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fn, args = pickle.load(stdin)
                reply = ("result", fn(*args))
            except YahtzeeSimError as exc:  # raised again by the caller
                reply = ("error", exc)
            except Exception:
                reply = ("failed", traceback.format_exc(limit=-3).strip())
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    seen = [(w.category, str(w.message)) for w in caught]
    try:
        data = pickle.dumps((*reply, seen))
    except Exception as exc:  # an unpicklable result, error or warning
        data = pickle.dumps(("failed", f"{reply[0]} not sent back: {exc}", []))
    with os.fdopen(reply_fd, "wb") as out:
        out.write(data)
