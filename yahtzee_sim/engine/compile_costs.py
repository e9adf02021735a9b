"""The seconds a run spends compiling or loading numba kernels before its first result, and
which kernels the cache holds.

A numba kernel compiles on its first call in an environment whose kernel cache does not
hold it yet (tens of seconds for the largest), and later processes load it from the
cache (a fraction of a second). :func:`kernel_missing` says which of the two a kernel
faces; :func:`setup_seconds` adds up the expected seconds of a set of kernels, each
compiled or loaded, on the reference machine (2-core AMD EPYC), so that a progress bar
can weigh the step that first calls them. :func:`calibration_seconds` times a small fixed
workload, to scale the reference's seconds to this machine.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping

import numpy as np

__all__ = [
    "COMPILE_SECONDS",
    "LOAD_SECONDS",
    "LOAD_SHARE",
    "calibration_seconds",
    "kernel_missing",
    "setup_seconds",
]

#: Compile seconds of the kernels of ``solve``, ``exact`` and ``regret`` with an empty
#: kernel cache, by ``(module, name)``: the CPU seconds of each top-level ``numba:compile``
#: event (the kernel with the functions it inlines) on a 2-core AMD EPYC (the 2-core
#: Intel Xeon of the other figures compiles faster: only the ratios matter), the mean of
#: two first runs (``yahtzee-sim exact`` of ``greedy`` and of a Python strategy; a
#: solve; a regret; the decision fill of table strategies from the report's compile-ahead
#: warm-up). The unit of every expected time of a progress bar
#: (:mod:`yahtzee_sim.engine.weighted_bar`): only their ratios matter. ``solve_level`` and
#: ``level_effects`` are scaled by the ratio ``benchmarks/bench_compile_split.py`` measured
#: when their helpers lost their Python and C entry points (0.87 and 0.84, both versions
#: compiled side by side); ``turn_outcomes`` and ``box_options`` by the ratio of their
#: compile seconds on the Intel Xeon once their helpers shared one compiled version
#: (``turn_outcomes`` 4.42 → 2.70 s, ``box_options`` 1.08 → 1.01 s).
COMPILE_SECONDS: dict[tuple[str, str], float] = {
    ("yahtzee_sim._core.solve", "solve_level"): 85.3,
    ("yahtzee_sim._kernels.regret", "level_regret"): 44.7,
    ("yahtzee_sim._kernels.exact", "turn_outcomes"): 15.4 * 2.70 / 4.42,
    ("yahtzee_sim._kernels.exact", "level_effects"): 7.2,
    ("yahtzee_sim._kernels.exact", "compact_outcomes"): 0.4,
    ("yahtzee_sim._kernels.exact", "forward_level"): 0.8,
    ("yahtzee_sim._kernels.exact", "support_top"): 1.0,
    ("yahtzee_sim._kernels.exact", "pmf_level"): 2.0,
    ("yahtzee_sim._kernels.decisions", "keep_codes"): 1.5,
    ("yahtzee_sim._kernels.scoring", "box_options"): 5.3 * 1.01 / 1.08,
    ("yahtzee_sim._core.upper_lane_fill", "upper_lane_decisions"): 93.2,
    # the serial chunks the parallel kernel runs: 22.6 s of its 28.2 s on the 2-core
    # Intel Xeon (benchmarks/bench_first_run.py), in the unit above
    ("yahtzee_sim._core.upper_lane_fill", "upper_lane_chunks"): 74.6,
}

#: Seconds to load a kernel from the cache (its index read, its machine code linked, a
#: parallel kernel's threads started) as a share of its compile seconds: the first level
#: of a solve loads ``solve_level`` in about 1 % of its compile seconds, the first level of
#: an exact law its kernels in 1.5 to 2.5 %.
LOAD_SHARE = 0.02
#: Seconds to load the kernels whose loading was timed on its own (CPU seconds of the
#: first call in a process, the kernel in the cache).
#: The compiled core (:mod:`yahtzee_sim._core`) is built with the package: its kernels load
#: with their module, at no cost a bar need weigh.
LOAD_SECONDS = {
    ("yahtzee_sim._core.solve", "solve_level"): 0.0,
    ("yahtzee_sim._core.upper_lane_fill", "upper_lane_decisions"): 0.0,
    ("yahtzee_sim._core.upper_lane_fill", "upper_lane_chunks"): 0.0,
}
#: The package of the compiled core: its kernels are compiled when the package is built.
COMPILED_CORE = "yahtzee_sim._core"


def kernel_missing(module: str, name: str) -> bool | None:
    """Whether kernel ``module.name`` is missing from the numba cache (``None``: unknown,
    when the module or the kernel cannot be found or numba's internals changed).

    Cached means an entry numba would load: an index whose source stamp is fresh (no
    edit of the kernel's sources since it was written) holding a compiled version of
    this bytecode for this processor. A stale index counts as missing, as numba then
    compiles again. A kernel of the compiled core (:data:`COMPILED_CORE`) is never
    missing: it was compiled when the package was built."""
    if module.startswith(COMPILED_CORE + "."):
        try:
            getattr(importlib.import_module(module), name)
        except (AttributeError, ImportError):
            return None
        return False
    try:
        kernel = getattr(importlib.import_module(module), name)
        cache = kernel._cache
        wanted = cache._index_key(None, kernel.targetctx.codegen())[1:]
        return not any(key[1:] == wanted for key in cache._cache_file._load_index())
    except (AttributeError, ImportError, TypeError, ValueError):
        return None


def setup_seconds(kernels: Mapping[tuple[str, str], float]) -> float:
    """Expected seconds of the first calls of ``kernels`` (``(module, name)`` → compile
    seconds) on the reference machine: each one's compile seconds when it is missing from
    the cache (an unknown one counts as missing), and when it is there its
    :data:`LOAD_SECONDS`, or the :data:`LOAD_SHARE` of its compile seconds."""
    return sum(
        seconds
        if kernel_missing(*kernel) is not False
        else LOAD_SECONDS.get(kernel, LOAD_SHARE * seconds)
        for kernel, seconds in kernels.items()
    )


def calibration_seconds(repeat: int = 7) -> float:
    """The time of a small fixed workload on this machine (the fastest of ``repeat``
    runs): Python dictionary and sorting work, as compiling is, and a NumPy sort, as the
    kernels' memory traffic is. About 0.063 s on the reference machine, a 2-core Intel
    Xeon VM (the median of ten processes, 0.056 to 0.070 s from one hour to the next; a
    single process varies by a fifth either way)."""
    data = np.random.default_rng(0).random(1 << 20)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        table = {}
        for i in range(100_000):
            table[(i * 7919) % 100_003] = str(i)
        sorted(table.items())
        np.sort(data)
        best = min(best, time.perf_counter() - t0)
    return best
