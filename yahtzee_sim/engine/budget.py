"""Memory budgets: a run that would hold more than the machine's free memory is refused
before it allocates anything, in one line that says what to do instead.

Runs that keep every game (:func:`~yahtzee_sim.engine.simulate.simulate`, tournaments,
decision datasets, game records) need memory in proportion to their games; runs that keep
running statistics (:func:`~yahtzee_sim.engine.simulate.simulate_aggregate`) stream in
bounded memory for any number of games and are never refused.
"""

from __future__ import annotations

import os
from pathlib import Path

from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import RuleSet

#: Environment variable: the memory (bytes) a run may use, instead of what the machine says
#: is available (tests; a shared machine).
BUDGET_ENV = "YAHTZEE_SIM_MEMORY"


class MemoryBudgetError(YahtzeeSimError):
    """A run would need more memory than is available (raised before allocating)."""


def _meminfo_available() -> int | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _cgroup_free() -> int | None:
    """What the process's cgroup (v2) still allows, if it sets a limit."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit == "max":
            return None
        used = int(Path("/sys/fs/cgroup/memory.current").read_text())
    except (OSError, ValueError):
        return None
    return max(int(limit) - used, 0)


def available_memory() -> int | None:
    """Bytes a run may allocate: ``$YAHTZEE_SIM_MEMORY`` if set, otherwise the machine's
    available memory (``MemAvailable`` of ``/proc/meminfo``, else ``os.sysconf``), less
    if a cgroup limit is tighter; ``None`` when the system does not say."""
    if os.environ.get(BUDGET_ENV):
        return int(float(os.environ[BUDGET_ENV]))
    free = _meminfo_available()
    if free is None:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            free = None
    group = _cgroup_free()
    if group is not None:
        free = group if free is None else min(free, group)
    return free


def size_text(n_bytes: float) -> str:
    """``"1.2 GB"``, ``"45 MB"``, ``"3.4 TB"``."""
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes / 1e3:,.1f} kB"


def check_memory(n_bytes: float, what: str, instead: str = "") -> None:
    """Raise :class:`MemoryBudgetError` (one line) if ``n_bytes`` exceed the available memory.

    Parameters
    ----------
    n_bytes : float
        The estimated peak memory of the run.
    what : str
        The run, as the message names it (``"1,000,000,000,000 games with every game kept"``).
    instead : str
        What to do instead (appended after a semicolon).
    """
    free = available_memory()
    if free is None or n_bytes <= free:
        return
    tail = f"; {instead}" if instead else ""
    raise MemoryBudgetError(
        f"{what} would need about {size_text(n_bytes)} of memory, more than the "
        f"{size_text(free)} available{tail}"
    )


def results_bytes(rules: RuleSet, n_games: int) -> int:
    """Peak bytes of the per-game results of ``n_games`` games: the blocks' arrays and
    their concatenation (:class:`~yahtzee_sim.engine.results.Results`: an int16 total, upper
    bonus and per-box score, an int8 fill turn per box, Yahtzee and bonus counts)."""
    return 2 * n_games * (6 + 3 * rules.n_boxes)


def decisions_bytes(rules: RuleSet, n_games: int) -> int:
    """Peak bytes of one row per decision of ``n_games`` games, every option valued: at most
    ``rolls_per_turn`` decisions per turn, about 100 bytes of columns each and 10 per
    option (an action and a value), about 16 options per decision (a roll's distinct keeps
    or the open boxes; measured: greedy on Yahtzee makes 38 decisions per game)."""
    per_decision = 100 + 10 * 16
    return 2 * n_games * rules.n_boxes * rules.rolls_per_turn * per_decision


def records_bytes(n_games: int) -> int:
    """Peak bytes of the game records of ``n_games`` games as Python objects (about 10 kB
    a game, measured on greedy Yahtzee, and room to write them)."""
    return 16_000 * n_games
