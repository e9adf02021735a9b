"""One call run as plain Python, numba's compiler off, in a process of its own.

A numba kernel compiles on its first call in an environment whose kernel cache does not
hold it (tens of seconds for the widget), while the same source run as Python answers
one small question — the widget of one state — in a tenth of a second. With the
environment variable ``NUMBA_DISABLE_JIT=1`` numba's decorators return the functions
undecorated, so a fresh interpreter started with it runs every kernel as the Python it
is written in: the same code, never compiled. :func:`run_interpreted` calls a function
there and returns its result; an error of the call (a ``ValueError`` of bad input, for
one) is raised again in the caller.

Only small calls pay: a kernel run as Python is about a thousand times slower than
compiled, so a solve or a batch of games stays compiled.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["InterpretedRunError", "interpreting", "run_interpreted"]


class InterpretedRunError(RuntimeError):
    """The interpreted process failed (it crashed, or its result or error could not be
    sent back); the message holds the last lines it wrote to standard error."""


def interpreting() -> bool:
    """Whether this process runs numba's kernels as Python (``NUMBA_DISABLE_JIT``)."""
    from numba.core import config

    return bool(config.DISABLE_JIT)


def run_interpreted(fn: Callable[..., Any], *args: Any, timeout: float = 120.0) -> Any:
    """``fn(*args)`` in a new Python process with numba's compiler off.

    ``fn`` (a module-level function), ``args`` and the result travel by pickle. The
    process inherits the environment and standard error (warnings and progress bars show
    as usual); what the call prints to standard output goes to standard error.

    Raises
    ------
    Exception
        The error ``fn`` raised, raised again here.
    InterpretedRunError
        The process failed or timed out.
    """
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "yahtzee_sim.engine.interpreted"],
            input=pickle.dumps((fn, args)),
            stdout=subprocess.PIPE,
            env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise InterpretedRunError(f"no answer in {timeout:g} s") from exc
    if proc.returncode != 0:
        raise InterpretedRunError(f"the interpreted process exited with {proc.returncode}")
    try:
        kind, value = pickle.loads(proc.stdout)
    except Exception as exc:  # an error type that does not rebuild from its pickle
        raise InterpretedRunError(f"the interpreted answer could not be read: {exc}") from exc
    if kind == "error":
        raise value
    if kind == "failed":
        raise InterpretedRunError(value)
    return value


def _serve(stdin, stdout) -> None:
    """The process's side: read ``(fn, args)``, write ``(kind, value)``."""
    fn, args = pickle.load(stdin)
    real_stdout, sys.stdout = stdout, sys.stderr
    try:
        reply = ("result", fn(*args))
    except Exception as exc:  # sent back and raised again by the caller
        reply = ("error", exc)
    try:
        data = pickle.dumps(reply)
    except Exception as exc:  # an unpicklable result or error
        data = pickle.dumps(("failed", f"{reply[0]} not sent back: {exc}"))
    real_stdout.write(data)
    real_stdout.flush()


if __name__ == "__main__":
    _serve(sys.stdin.buffer, sys.stdout.buffer)
