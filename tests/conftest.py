"""Test session setup: a private cache of solved tables, shared by the xdist workers.

The suite runs on every core (pytest-xdist, ``-n`` in ``pyproject.toml``). The
workers of one run share one cache folder, so a table one worker solved (or an
exact result it cached) is read by the others instead of solved again: the table cache
writes files atomically, and a worker that needs a table another is solving waits for
it (:mod:`yahtzee_sim.solving.cache`'s lock files). Each worker runs the compiled core's parallel
kernels on one thread: the workers already use every core, and more threads than cores only
make them wait for each other.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

if os.environ.get("PYTEST_XDIST_WORKER") is not None:
    os.environ["YAHTZEE_SIM_THREADS"] = "1"


def pytest_addoption(parser):
    """``--stress-seed N``: the schedule of the stress tests (CI repeats them with several)."""
    parser.addoption(
        "--stress-seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the stress tests (tests/contracts/test_races.py and "
        "tests/contracts/test_process_death.py): "
        "how often threads switch and garbage is collected, the seed of the games played, "
        "where a killed write is cut; 0 (the default) is the fixed schedule",
    )


@pytest.fixture
def stress_seed(request) -> int:
    """The ``--stress-seed`` of this run (0: the fixed schedule)."""
    return int(request.config.getoption("stress_seed"))


@pytest.fixture
def stress_rng(stress_seed) -> np.random.Generator | None:
    """A generator seeded by ``--stress-seed``, or ``None`` for the fixed schedule."""
    return np.random.default_rng(stress_seed) if stress_seed else None


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
    yield
    mp.undo()


def pytest_collection_modifyitems(session, config, items):
    """Tests marked ``slow`` first, the rest as collected (a stable sort).

    Heavy tests carry the ``slow`` marker (``-m "not slow"`` is the quick development
    loop). Running them first keeps the last tests of a run short, so that the workers
    finish together (pytest-xdist's worksteal hands out the collection in order and steals
    from the end of a queue).
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


#: A test that runs longer than this without the ``slow`` marker is listed at the end of
#: the run (the quick loop should stay quick).
SLOW_SECONDS = 5.0
_UNMARKED: list[tuple[str, float]] = []


def pytest_runtest_logreport(report):
    """Note the tests that ran longer than :data:`SLOW_SECONDS` without the marker."""
    if report.when == "call" and report.duration > SLOW_SECONDS and "slow" not in report.keywords:
        _UNMARKED.append((report.nodeid, report.duration))


def pytest_terminal_summary(terminalreporter):
    """List the heavy tests that lack the ``slow`` marker."""
    if _UNMARKED:
        terminalreporter.write_sep("-", f"over {SLOW_SECONDS:g} s without @pytest.mark.slow")
        for nodeid, seconds in sorted(_UNMARKED, key=lambda x: -x[1]):
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")
