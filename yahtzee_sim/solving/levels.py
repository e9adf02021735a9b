"""Solving games with saved rolls level by level: in memory, out of core, or on a cluster.

A game with saved rolls indexes only the states that can occur
(:class:`yahtzee_sim.game.state.StateLayout`), grouped by *level* — the number of filled
boxes. Backward induction computes one level at a time from the level above it, so a
solve needs only those two levels in memory:

* :func:`solve_in_memory` keeps the whole table in one array (small games, tests);
* :func:`solve_to_file` writes each finished level into the table's file and records it
  in a progress file beside it. Peak memory is about one level computed plus the one
  above read (memory-mapped); a run that is killed resumes from its last finished level
  when run again, and the file takes the table's name only once every level is in;
* with a ``dask.distributed`` :class:`~distributed.Client` (``client=``), each level's
  states are split in chunks across the cluster's workers. Workers read the level above
  from the partial file, so every worker must see the cache folder at the same path
  (one machine, or a shared file system). Values are bit-identical to the one-process
  solve: each state's value is computed by the same code from the same inputs, whoever
  computes it.

The table's file starts with a 4,096-byte header (magic line, then one JSON line padded
with spaces: ``n``, the rule set's fingerprint, the SHA-256 of every level's bytes), then
the float64 values in state-index order. :func:`open_table_file` maps it read-only, so a
table larger than memory is read where it is needed, never loaded whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np

from yahtzee_sim._core.solve import solve_level
from yahtzee_sim._kernels.lanes import compact_upper_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.atomic import write_array, write_atomic
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.errors import TableFileError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import state_layout

#: Bytes before the values in a table file (a page: the values map page-aligned).
HEADER_BYTES = 4096
_MAGIC = b"YSIMLV1\n"
#: Chunks per level (progress steps; units of work shipped to cluster workers).
CHUNKS_PER_LEVEL = 32


@dataclass(frozen=True, eq=False)
class Level:
    """The states of one level: used-masks ``masks`` (ascending), the upper totals
    solved per mask (``u_start``, ``n_upper``: see
    :func:`yahtzee_sim.solving.solver.upper_lanes`), the index range ``start .. stop``
    and ``chunks``, mask ranges ``(a, b)`` of about equal work, each a contiguous index
    range."""

    filled: int
    masks: np.ndarray
    u_start: np.ndarray
    n_upper: np.ndarray
    start: int
    stop: int
    chunks: tuple[tuple[int, int], ...]
    cost: np.ndarray  # per chunk: widget lanes x rolls (the progress bar's units)

    def chunk_range(self, rules: RuleSet, a: int, b: int) -> tuple[int, int]:
        """Index range ``[lo, hi)`` of the states of masks ``a .. b - 1``."""
        layout = state_layout(rules)
        F = rules.flag_size
        lo = int(layout.block_offset[self.masks[a] * F])
        hi = self.stop if b == len(self.masks) else int(layout.block_offset[self.masks[b] * F])
        return lo, hi


def levels(n_boxes: int, forced_order: bool = False) -> list[np.ndarray]:
    """Used-masks grouped by number of used boxes, fullest first (excluding full); under
    forced order the one mask of each level (the first boxes filled)."""
    if forced_order:
        return [np.array([(1 << k) - 1], dtype=np.int64) for k in range(n_boxes - 1, -1, -1)]
    masks = np.arange(1 << n_boxes, dtype=np.int64)
    pop = np.array([bin(m).count("1") for m in range(1 << n_boxes)])
    return [masks[pop == k] for k in range(n_boxes - 1, -1, -1)]


def upper_lanes(rules: RuleSet, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Upper totals worth solving per mask, as ``(start, count)``.

    Totals above the largest one the filled upper boxes can make are unreachable.
    Totals from which the open upper boxes cannot reach the bonus any more are
    *hopeless*: the future does not depend on them, so one hopeless lane (``start``)
    is solved and copied to the totals below it.
    """
    faces = rules.upper_face
    used_sum = np.zeros(len(masks), dtype=np.int64)
    open_sum = np.zeros(len(masks), dtype=np.int64)
    for c in range(rules.n_boxes):
        if faces[c]:
            bit = (masks >> c) & 1
            used_sum += bit * faces[c] * rules.n_dice
            open_sum += (1 - bit) * faces[c] * rules.n_dice
    cap = rules.upper_cap
    hi = np.minimum(used_sum, cap)
    first_hopeful = np.maximum(cap - open_sum, 0)
    start = np.minimum(np.maximum(first_hopeful - 1, 0), hi)
    return start, hi - start + 1


def plan(rules: RuleSet, chunks_per_level: int = CHUNKS_PER_LEVEL) -> list[Level]:
    """The levels of ``rules`` to solve, fullest first (the full score sheet, whose
    values are 0, is not among them)."""
    layout = state_layout(rules)
    n = rules.n_boxes
    out = []
    for masks in levels(n, rules.forced_order):
        k = bin(int(masks[0])).count("1")
        u_start, n_upper = upper_lanes(rules, masks)
        saved = int(layout.saved_count[k])
        flags = np.ones(len(masks), dtype=np.int64)
        if rules.yahtzee_index is not None and rules.flag_size > 1:
            flags = np.where((masks >> rules.yahtzee_index) & 1, rules.flag_size, 1)
        work = n_upper * flags * (rules.rolls_per_turn + saved - 1)
        cum = np.concatenate(([0], np.cumsum(work)))
        bounds = np.searchsorted(cum, np.linspace(0, cum[-1], chunks_per_level + 1)[1:-1])
        cuts = np.unique(np.concatenate(([0], bounds, [len(masks)])))
        chunks = tuple((int(a), int(b)) for a, b in pairwise(cuts) if b > a)
        cost = np.array([cum[b] - cum[a] for a, b in chunks], dtype=np.int64)
        start, stop = int(layout.level_start[k]), int(layout.level_start[k + 1])
        out.append(Level(k, masks, u_start, n_upper, start, stop, chunks, cost))
    return out


def solve_chunk(rules: RuleSet, above: np.ndarray, level: Level, a: int, b: int) -> np.ndarray:
    """The values of the states of masks ``a .. b - 1`` of ``level``, from the values
    ``above`` of the level above (states ``level.stop ..``)."""
    lo, hi = level.chunk_range(rules, a, b)
    out = np.zeros(hi - lo)
    lanes = compact_upper_lanes(above, state_layout(rules), shift=level.stop)
    sl = slice(a, b)
    solve_level(
        kernel_rules(rules), lanes, out, lo - level.stop, level.masks[sl],
        level.u_start[sl], level.n_upper[sl], get_threads(),
    )  # fmt: skip
    return out


def solve_in_memory(rules: RuleSet, progress: bool = False) -> np.ndarray:
    """Every state's optimal value, in one array (the whole table in memory)."""
    values = np.zeros(int(state_layout(rules).level_start[-1]))
    levels = plan(rules)
    with _bar(levels, progress) as bar:
        for level in levels:
            above = values[level.stop :]
            for (a, b), cost in zip(level.chunks, level.cost, strict=True):
                lo, hi = level.chunk_range(rules, a, b)
                values[lo:hi] = solve_chunk(rules, above, level, a, b)
                _advance(bar, cost)
    return values


# ------------------------------------------------------------------ files
def _header(rules: RuleSet, n: int, level_sha: list[str]) -> bytes:
    meta = {"n": n, "fingerprint": rules.fingerprint(), "rules": rules.name}
    text = json.dumps({**meta, "level_sha256": level_sha}).encode()
    pad = HEADER_BYTES - len(_MAGIC) - len(text) - 1
    if pad < 0:  # pragma: no cover - a header of more than 4 kB
        raise TableFileError("table header too long")
    return _MAGIC + text + b" " * pad + b"\n"


def read_header(path: Path) -> dict:
    """The JSON header of a table file; raises :class:`TableFileError`."""
    with open(path, "rb") as fh:
        head = fh.read(HEADER_BYTES)
    if len(head) < HEADER_BYTES or not head.startswith(_MAGIC):
        raise TableFileError(f"{path} is not a yahtzee_sim table file (bad header)")
    try:
        return json.loads(head[len(_MAGIC) :])
    except json.JSONDecodeError as exc:
        raise TableFileError(f"{path}: unreadable header ({exc})") from None


def open_table_file(rules: RuleSet, path: Path, verify: bool = False) -> np.ndarray:
    """The values of a finished table file, memory-mapped read-only (never loaded whole).

    Checks the header (rule set, size) and the file's length; ``verify`` also checks
    every level's SHA-256 (reads the whole file). Raises :class:`TableFileError`.
    """
    n = int(state_layout(rules).level_start[-1])
    header = read_header(path)
    if header.get("n") != n or header.get("fingerprint") != rules.fingerprint():
        raise TableFileError(f"{path} holds another table (rules or size differ)")
    if path.stat().st_size != HEADER_BYTES + 8 * n:
        raise TableFileError(f"{path} is truncated or too long")
    if verify:
        starts = state_layout(rules).level_start
        for k, expected in enumerate(header["level_sha256"]):
            got = _file_sha(path, int(starts[k]), int(starts[k + 1]))
            if got != expected:
                raise TableFileError(f"{path}: level {k} fails its checksum")
    return np.asarray(np.memmap(path, dtype=np.float64, mode="c", offset=HEADER_BYTES, shape=(n,)))


def _file_sha(path: Path, lo: int, hi: int) -> str:
    """SHA-256 of the values ``lo .. hi - 1`` of a table file, read in pieces."""
    digest = hashlib.sha256()
    remaining = 8 * (hi - lo)
    with open(path, "rb") as fh:
        fh.seek(HEADER_BYTES + 8 * lo)
        while remaining:
            piece = fh.read(min(remaining, 1 << 26))
            if not piece:
                break
            digest.update(piece)
            remaining -= len(piece)
    return digest.hexdigest()


def _write_json(path: Path, data: dict) -> None:
    """Write ``data`` as JSON atomically and durably (temporary file, fsync, rename)."""
    write_atomic(path, json.dumps(data))


def partial_paths(path: Path) -> tuple[Path, Path]:
    """``(partial file, progress file)`` of a solve writing the table ``path``."""
    return path.with_name(path.name + ".partial"), path.with_name(path.name + ".progress")


def _start_partial(rules: RuleSet, path: Path) -> dict:
    """The progress of a solve into ``path``: resumed when its files agree with the rule
    set and every recorded level passes its checksum, else started afresh."""
    partial, progress_file = partial_paths(path)
    layout = state_layout(rules)
    n = int(layout.level_start[-1])
    full = rules.n_boxes
    try:
        progress = json.loads(progress_file.read_text())
        ok = progress.get("fingerprint") == rules.fingerprint() and progress.get("n") == n
        ok = ok and partial.stat().st_size == HEADER_BYTES + 8 * n
    except (OSError, ValueError):
        ok = False
    if ok:
        done = {}
        for k, sha in progress["levels"].items():
            lo, hi = int(layout.level_start[int(k)]), int(layout.level_start[int(k) + 1])
            if _file_sha(partial, lo, hi) == sha:
                done[k] = sha
        progress["levels"] = done
        return progress
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(partial, "wb") as fh:  # zeros (sparse): the full score sheet's values
        fh.write(_header(rules, n, []))
        fh.truncate(HEADER_BYTES + 8 * n)
        fh.flush()
        os.fsync(fh.fileno())
    lo, hi = int(layout.level_start[full]), int(layout.level_start[full + 1])
    zeros = hashlib.sha256(bytes(8 * (hi - lo))).hexdigest()
    progress = {"fingerprint": rules.fingerprint(), "n": n, "levels": {str(full): zeros}}
    _write_json(progress_file, progress)
    return progress


def _write_level(partial: Path, level: Level, values: np.ndarray) -> str:
    """Write a finished level into the partial file, durably; returns its SHA-256."""
    with open(partial, "r+b") as fh:
        fh.seek(HEADER_BYTES + 8 * level.start)
        write_array(fh, values)  # the file holds zeros there: zero blocks stay holes
        fh.flush()
        os.fsync(fh.fileno())
    return hashlib.sha256(memoryview(values).cast("B")).hexdigest()


def _map_level(partial: Path, start: int, stop: int) -> np.ndarray:
    """Values ``start .. stop - 1`` of a partial file, memory-mapped read-only."""
    return np.asarray(
        np.memmap(
            partial, dtype=np.float64, mode="c", offset=HEADER_BYTES + 8 * start,
            shape=(stop - start,),
        )
    )  # fmt: skip


def _chunk_from_file(rules: RuleSet, partial: str, level: Level, a: int, b: int) -> np.ndarray:
    """A cluster task: one chunk of ``level``, reading the level above from ``partial``."""
    n = int(state_layout(rules).level_start[-1])
    above = _map_level(Path(partial), level.stop, n)
    return solve_chunk(rules, above, level, a, b)


@dataclass
class SolveReport:
    """What a solve into a file did: levels solved now and resumed, time, peak memory."""

    path: Path
    solved_levels: int
    resumed_levels: int
    seconds: float
    peak_rss_bytes: int


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far (bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def solve_to_file(
    rules: RuleSet,
    path: Path,
    progress: bool = False,
    client=None,
    on_level: Callable[[int], None] | None = None,
) -> SolveReport:
    """Solve ``rules`` level by level into the table file ``path`` (resuming a solve
    that was stopped; see the module docstring). ``client``: a ``dask.distributed``
    client whose workers compute the chunks; ``on_level(k)`` is called after level ``k``
    is safely written (tests)."""
    t0 = time.perf_counter()
    partial, progress_file = partial_paths(path)
    state = _start_partial(rules, path)
    layout = state_layout(rules)
    n = int(layout.level_start[-1])
    levels = plan(rules)
    todo = [lv for lv in levels if str(lv.filled) not in state["levels"]]
    resumed = len(levels) - len(todo)
    with _bar(levels, progress) as bar:
        bar.step("work", int(sum(int(lv.cost.sum()) for lv in levels if lv not in todo)))
        bar.set_postfix_str(f"{resumed} levels resumed" if resumed else "")
        for level in todo:
            values = np.empty(level.stop - level.start)
            if client is None:
                above = _map_level(partial, level.stop, n)
                for (a, b), cost in zip(level.chunks, level.cost, strict=True):
                    lo, hi = level.chunk_range(rules, a, b)
                    values[lo - level.start : hi - level.start] = solve_chunk(
                        rules, above, level, a, b
                    )
                    _advance(bar, cost)
                del above
            else:
                _solve_level_on_cluster(client, rules, partial, level, values, bar)
            state["levels"][str(level.filled)] = _write_level(partial, level, values)
            _write_json(progress_file, state)
            del values
            if on_level is not None:
                on_level(level.filled)
    shas = [state["levels"][str(k)] for k in range(rules.n_boxes + 1)]
    with open(partial, "r+b") as fh:
        fh.write(_header(rules, n, shas))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(partial, path)
    progress_file.unlink(missing_ok=True)
    return SolveReport(path, len(todo), resumed, time.perf_counter() - t0, peak_rss_bytes())


def _solve_level_on_cluster(client, rules, partial: Path, level: Level, values, bar) -> None:
    """One level's chunks as tasks of the cluster behind ``client``, gathered into
    ``values`` as they finish."""
    from distributed import as_completed

    futures = {
        client.submit(_chunk_from_file, rules, str(partial), level, a, b, pure=False): (a, b, c)
        for (a, b), c in zip(level.chunks, level.cost, strict=True)
    }
    for future in as_completed(futures):
        a, b, cost = futures[future]
        lo, hi = level.chunk_range(rules, a, b)
        values[lo - level.start : hi - level.start] = future.result()
        _advance(bar, cost)


def _advance(bar: WeightedBar, cost) -> None:
    """A chunk of ``cost`` done."""
    bar.step("work", int(cost))


def _bar(levels: list[Level], progress: bool) -> WeightedBar:
    """A progress bar over the work of ``levels`` (widget lanes times rolls): step
    ``"work"`` by each chunk's cost."""
    total = int(sum(int(lv.cost.sum()) for lv in levels))
    return WeightedBar({"work": 1}, {"work": total}, desc="solve", disable=not progress)


__all__ = [
    "HEADER_BYTES",
    "Level",
    "SolveReport",
    "TableFileError",
    "levels",
    "open_table_file",
    "partial_paths",
    "peak_rss_bytes",
    "plan",
    "read_header",
    "solve_chunk",
    "solve_in_memory",
    "solve_to_file",
    "upper_lanes",
]
