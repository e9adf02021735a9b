"""Test session setup: a private cache of solved tables, shared by the xdist workers.

The suite runs on every core (pytest-xdist, ``-n`` in ``pyproject.toml``). The
workers of one run share one cache folder, so a table one worker solved (or an
exact result it cached) is read by the others instead of solved again: the table cache
writes files atomically, and a worker that needs a table another is solving waits for
it (:mod:`yahtzee_sim.solving.cache`'s lock files). Each worker runs numba's parallel kernels on
one thread: the workers already use every core, and more threads than cores only make
them wait for each other.
"""

from __future__ import annotations

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
    yield
    mp.undo()


#: Tests that take several seconds or more (with their parameters): run first, so that
#: the last tests of the run are short and both workers finish together (pytest-xdist's
#: worksteal hands out the collection in order and steals from the end of a queue).
HEAVY_FIRST = (
    "test_target_curves_are_unchanged",
    "test_page_blocks_run",
    "test_every_builtin_passes_check_strategy",
    # whole laws before the moments-only checks, which then read the laws of the same
    # strategies (tests/helpers.py) instead of a forward pass of their own
    "test_regret_is_unchanged",
    "test_exact_laws_are_unchanged",
    "test_exact_moments_agree_with_simulation",
    "test_the_page_in_a_headless_browser",
    "test_report_folder",
    "test_generic_path_gives_the_same_law_as_the_fast_path",
    "test_regret_text_json_and_plot",
)


def pytest_collection_modifyitems(session, config, items):
    """Heavy tests first (in the order of :data:`HEAVY_FIRST`), the rest as collected."""
    rank = {name: k for k, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.originalname, len(rank)))
