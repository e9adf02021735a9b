"""How many threads the compiled core's parallel kernels use.

By default every core this process may run on; ``$YAHTZEE_SIM_THREADS`` sets another
count for the whole process, and :func:`set_threads` one for the calling thread (a
worker thread playing blocks beside others takes its share of the cores). The results
never depend on it: the kernels split their work the same way whatever the count.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from yahtzee_sim.errors import EnvironmentVariableError
from yahtzee_sim.validation import Integer, validate_params

#: The variable that sets the process's thread count.
THREADS_ENV = "YAHTZEE_SIM_THREADS"

_chosen = threading.local()  # each calling thread's own count, once it sets one


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS
        return max(1, os.cpu_count() or 1)


def threads_from_environment() -> int | None:
    """``$YAHTZEE_SIM_THREADS`` as a count, or ``None`` when it is unset or empty.

    Raises
    ------
    EnvironmentVariableError
        If it is set to something else than a whole number >= 1.
    """
    text = os.environ.get(THREADS_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise EnvironmentVariableError(
            f"${THREADS_ENV} must be a whole number of threads >= 1, got {text!r}",
            variable=THREADS_ENV,
            value=text,
        )
    return int(text)


def get_threads() -> int:
    """The number of threads the calling thread's kernels use: its own count if it set one
    (:func:`set_threads`), else ``$YAHTZEE_SIM_THREADS``, else every usable core."""
    chosen = getattr(_chosen, "n", None)
    if chosen is not None:
        return chosen
    return threads_from_environment() or usable_cores()


@validate_params({"n": Integer(1)})
def set_threads(n: int) -> None:
    """Make the calling thread's kernels use ``n`` threads (``n`` >= 1)."""
    _chosen.n = int(n)


@contextmanager
def threads_limited(n: int) -> Iterator[None]:
    """Within the block, the calling thread's kernels use ``n`` threads; then its previous
    count again."""
    before = getattr(_chosen, "n", None)
    set_threads(n)
    try:
        yield
    finally:
        _chosen.n = before
