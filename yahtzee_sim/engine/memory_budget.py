"""Memory budgets: a run that would hold more than the machine's free memory is refused
before it allocates anything, in one line that says what to do instead.

Runs that keep every game (:func:`~yahtzee_sim.engine.simulate.simulate`, tournaments,
decision datasets, game records) need memory in proportion to their games; runs that keep
running statistics (:func:`~yahtzee_sim.engine.simulate.simulate_aggregate`) stream in
bounded memory for any number of games and are never refused.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from yahtzee_sim.errors import EnvironmentVariableError, MemoryBudgetError
from yahtzee_sim.game.rules import RuleSet

#: Environment variable: the memory a run may use, instead of what the machine says is
#: available (tests; a shared machine). See :func:`parse_memory`.
BUDGET_ENV = "YAHTZEE_SIM_MEMORY"

#: Bytes per unit of :func:`parse_memory` (lowercase; decimal units as :func:`size_text`
#: prints them, binary ones with an ``i``).
MEMORY_UNITS = {
    "": 1,
    "b": 1,
    **{f"{p}{b}": 1000**n for n, p in enumerate("kmgtp", 1) for b in ("", "b")},
    **{f"{p}ib": 1024**n for n, p in enumerate("kmgtp", 1)},
}
_MEMORY = re.compile(r"^\s*(\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)\s*([a-z]*)\s*$", re.I)


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


def parse_memory(text: str, variable: str = BUDGET_ENV) -> int:
    """Bytes of a memory size: a positive number of bytes (``8000000000``, ``8e9``),
    optionally followed by a unit: ``B``, ``kB``, ``MB``, ``GB``, ``TB``, ``PB`` (powers
    of 1000, as :func:`size_text` prints them; ``k``, ``M``, ``G``... alone too) or
    ``KiB``, ``MiB``, ``GiB``, ``TiB``, ``PiB`` (powers of 1024); any case, spaces allowed.

    Raises
    ------
    EnvironmentVariableError
        One line naming ``variable`` and the value, and what is accepted.

    Examples
    --------
    >>> parse_memory("8GB"), parse_memory("1.5 GiB"), parse_memory("2e6")
    (8000000000, 1610612736, 2000000)
    """
    match = _MEMORY.match(text)
    unit = match and MEMORY_UNITS.get(match.group(2).lower())
    n_bytes = float(match.group(1)) * unit if unit else math.nan
    if not (math.isfinite(n_bytes) and n_bytes >= 1):
        raise EnvironmentVariableError(
            f"{variable}={text!r} is not a memory size: expected a positive number of "
            "bytes, optionally with a unit (8000000000, 8e9, 8GB, 7.5GiB), or leave it "
            "unset to use the memory the machine has available",
            variable=variable,
            value=text,
        )
    return int(n_bytes)


def memory_from_environment() -> int | None:
    """The bytes ``$YAHTZEE_SIM_MEMORY`` allows (:func:`parse_memory`), or ``None`` when it
    is unset or empty.

    Raises
    ------
    EnvironmentVariableError
        If it is set to something else than a memory size.
    """
    text = os.environ.get(BUDGET_ENV, "")
    return parse_memory(text) if text.strip() else None


def available_memory() -> int | None:
    """Bytes a run may allocate: ``$YAHTZEE_SIM_MEMORY`` if set (:func:`parse_memory`;
    empty counts as unset), otherwise the machine's available memory (``MemAvailable`` of
    ``/proc/meminfo``, else ``os.sysconf``), less if a cgroup limit is tighter; ``None``
    when the system does not say.

    Raises
    ------
    EnvironmentVariableError
        If ``$YAHTZEE_SIM_MEMORY`` is set to something else than a memory size.
    """
    budget = memory_from_environment()
    if budget is not None:
        return budget
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
