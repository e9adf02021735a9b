"""Test session setup: a private cache of solved tables, shared by the xdist workers.

The suite runs on every core (pytest-xdist, ``-n`` in ``pyproject.toml``). The
workers of one run share one cache folder, so a table one worker solved (or an
exact result it cached) is read by the others instead of solved again; files are
written atomically (temporary file + rename), and the first worker to need the
Yahtzee table solves it while the others wait for it (a file lock). Each worker
runs numba's parallel kernels on one thread: the workers already use every core, and
more threads than cores only make them wait for each other.
"""

from __future__ import annotations

import fcntl
import os

import pytest

if os.environ.get("PYTEST_XDIST_WORKER") is not None:  # before numba is imported
    os.environ["NUMBA_NUM_THREADS"] = "1"


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    """Solved tables go to a folder of this test run, never the user's cache."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:  # not distributed: a folder of this session
        folder = tmp_path_factory.mktemp("cache")
    else:  # one folder for all the workers of this run
        folder = tmp_path_factory.getbasetemp().parent / "shared-cache"
        folder.mkdir(exist_ok=True)
    mp = pytest.MonkeyPatch()
    mp.setenv("YAHTZEE_SIM_CACHE", str(folder))
    if worker is not None:
        _solve_once(folder)
    yield
    mp.undo()


def _solve_once(folder) -> None:
    """Solve (or load) the Yahtzee value table under a lock shared by the workers, so
    that one worker solves it and the others load the file it writes."""
    from yahtzee_sim.solver import value_table

    with open(os.path.join(folder, ".solve.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            value_table("yahtzee")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
