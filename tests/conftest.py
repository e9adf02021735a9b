import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    """Solved tables go to a per-session folder, never the user's cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("YAHTZEE_SIM_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()
