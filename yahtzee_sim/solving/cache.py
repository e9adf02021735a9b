"""The cache of solved tables: memory, then disk, then solve.

:class:`TableCache` serves every solved table of the package, one cache per kind in one
registry (:func:`table_cache`, :class:`TableCaches`) (the optimal values of
:mod:`yahtzee_sim.solving.solver`, the target-score tables of :mod:`yahtzee_sim.solving.target`, the
utility tables of :mod:`yahtzee_sim.solving.utility`, the future moments of
:mod:`yahtzee_sim.exact.points_to_come`, the exponential-utility tables of
:mod:`yahtzee_sim.solving.risk`),
keyed by the rule set's fingerprint and what was solved.

Disk files live in ``$YAHTZEE_SIM_CACHE`` (default: ``$XDG_CACHE_HOME/yahtzee_sim`` or
``~/.cache/yahtzee_sim``). Each file is a small JSON header line followed by the
raw float64 values; the header holds the SHA-256 of the values. A truncated or
corrupted file is reported with a warning and rebuilt, never used. Per-state decision
caches of table-driven strategies (:mod:`yahtzee_sim.engine.decision_cache`) are a different
thing: they are filled state by state while games are played and never stored.

Processes that need the same table at once (worker processes of one run, several runs
on one machine) solve it once: the first takes a lock file beside the table's file
(``fcntl`` locks, where the platform has them), the others wait and load what it writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from yahtzee_sim.engine.atomic import atomic_path, write_array

FORMAT_VERSION = 1
_MAGIC = b"YSIMVT1\n"


class CacheWarning(UserWarning):
    """A cache file could not be used or written."""


def cache_dir() -> Path:
    """The cache folder (not created here): ``$YAHTZEE_SIM_CACHE``, else
    ``$XDG_CACHE_HOME/yahtzee_sim``, else ``~/.cache/yahtzee_sim``.

    An empty variable counts as unset; ``~`` in ``$YAHTZEE_SIM_CACHE`` is the home
    folder; a relative ``$XDG_CACHE_HOME`` is ignored (as the XDG specification says),
    with a warning. Without a home folder (``HOME`` unset and the user unknown to the
    system) the default is ``yahtzee_sim-UID`` in the temporary folder, with a warning.

    Raises
    ------
    EnvironmentVariableError
        If the folder, or the nearest of its parents that exists, is a file (the
        message names the variable the folder came from and the path).

    Warns
    -----
    CacheWarning
        If the folder cannot be written (nor made): tables already there are read, tables
        solved now are not kept.
    """
    found = _configured_folder()
    if found is None:  # no home folder: the temporary folder, warned
        return Path(tempfile.gettempdir()) / f"yahtzee_sim-{getattr(os, 'getuid', str)()}"
    _check_folder(*found)
    return found[2]


def _unusable(variable: str, value: str, why: str):
    """The :class:`~yahtzee_sim.errors.EnvironmentVariableError` of a cache folder that
    cannot be used."""
    from yahtzee_sim.errors import EnvironmentVariableError

    return EnvironmentVariableError(
        f"{variable}={value!r}: {why}; set YAHTZEE_SIM_CACHE to a folder (made if "
        "missing) for the cache of solved tables",
        variable=variable,
        value=value,
    )


def _configured_folder() -> tuple[str, str, Path] | None:
    """``(variable, value, folder)``: the cache folder and the variable it comes from
    (:func:`cache_dir`'s order); ``None``, warned, when there is no home folder."""
    env = os.environ.get("YAHTZEE_SIM_CACHE", "")
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if env:
        try:
            return "YAHTZEE_SIM_CACHE", env, Path(env).expanduser()
        except RuntimeError:  # "~..." without a home folder
            why = "there is no home folder to expand ~ to"
            raise _unusable("YAHTZEE_SIM_CACHE", env, why) from None
    if xdg and Path(xdg).is_absolute():
        return "XDG_CACHE_HOME", xdg, Path(xdg) / "yahtzee_sim"
    if xdg:
        warnings.warn(
            f"XDG_CACHE_HOME={xdg!r} is not an absolute path: ignored", CacheWarning, stacklevel=4
        )
    try:
        return "HOME", os.environ.get("HOME", ""), Path.home() / ".cache" / "yahtzee_sim"
    except (RuntimeError, KeyError, OSError):  # no HOME, and no entry in the user database
        folder = Path(tempfile.gettempdir()) / f"yahtzee_sim-{getattr(os, 'getuid', str)()}"
        warnings.warn(
            f"no home folder (HOME is unset and the user has none): solved tables are "
            f"cached in {folder}; set YAHTZEE_SIM_CACHE to keep them elsewhere",
            CacheWarning,
            stacklevel=4,
        )
        return None


def _check_folder(variable: str, value: str, folder: Path) -> None:
    """Raise if ``folder`` (or the nearest of its parents that exists) is a file; warn if
    it cannot be written (nor made) or searched."""
    nearest = folder
    try:
        while not nearest.exists() and nearest != nearest.parent:
            nearest = nearest.parent
        is_folder = nearest.is_dir()
    except OSError as exc:  # e.g. a parent folder that may not be searched
        warnings.warn(
            f"{variable}={value!r}: cannot use the cache folder {folder}: {exc.strerror or exc}; "
            "solved tables are not kept",
            CacheWarning,
            stacklevel=4,
        )
        return
    if not is_folder:
        why = f"the cache folder {folder} cannot be made: {nearest} is a file"
        raise _unusable(variable, value, f"{folder} is a file" if nearest == folder else why)
    if not os.access(nearest, os.W_OK | os.X_OK):
        what = "is not writable" if nearest == folder else f"cannot be made in {nearest}"
        warnings.warn(
            f"{variable}={value!r}: the cache folder {folder} {what}: tables already "
            "there are read, tables solved now are not kept",
            CacheWarning,
            stacklevel=4,
        )


def cache_path(kind: str, fingerprint: str) -> Path:
    """File of one cached table."""
    return cache_dir() / f"{kind}-{fingerprint}-v{FORMAT_VERSION}.bin"


@contextlib.contextmanager
def file_lock(path: Path):
    """Hold an exclusive lock on the hidden file ``.NAME.lock`` beside ``path`` (no lock
    where ``fcntl`` is missing or the folder is not writable: the table is then solved
    without waiting for others)."""
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_name(f".{path.name}.lock"), "w")  # hidden: not a table
    except (ImportError, OSError):
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def load_array(path: Path, expected_len: int) -> np.ndarray | None:
    """The cached array, or ``None`` (with a warning if the file exists but is unusable).

    The values are read into the array they are returned in, and checked there."""
    try:
        with path.open("rb") as fh:
            magic = fh.read(len(_MAGIC))
            line = fh.readline() if magic == _MAGIC else b""
            values = _read_values(fh, expected_len, bool(line.endswith(b"\n")))
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.warn(
            f"cannot read cache file {path}: {exc}; rebuilding", CacheWarning, stacklevel=3
        )
        return None
    try:
        if magic != _MAGIC or not line.endswith(b"\n"):
            raise ValueError("bad magic")
        header = json.loads(line)
        if header["n"] != expected_len or values is None:
            raise ValueError("truncated or wrong size")
        if hashlib.sha256(memoryview(values).cast("B")).hexdigest() != header["sha256"]:
            raise ValueError("checksum mismatch")
    except (ValueError, KeyError, json.JSONDecodeError) as exc:
        warnings.warn(
            f"cache file {path} is corrupted ({exc}); rebuilding it", CacheWarning, stacklevel=3
        )
        return None
    return values


def _read_values(fh, expected_len: int, whole_header: bool) -> np.ndarray | None:
    """The ``expected_len`` float64 values that end the open file ``fh``, or ``None`` if
    the file holds another number of bytes (or no header line)."""
    if not whole_header or expected_len < 0:
        return None
    values = np.empty(expected_len, dtype=np.float64)
    got = fh.readinto(memoryview(values).cast("B")) if expected_len else 0
    if got != 8 * expected_len or fh.read(1):
        return None
    return values


def save_array(path: Path, values: np.ndarray, meta: dict) -> bool:
    """Write atomically (:func:`~yahtzee_sim.engine.atomic.atomic_path`: a process killed
    while writing leaves no file, never a truncated one); warn and return False on failure.

    The values are written from the array itself (:func:`~yahtzee_sim.engine.atomic.write_array`:
    blocks of zero bits are left holes of the file)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    digest = hashlib.sha256(memoryview(values).cast("B")).hexdigest()
    header = {"n": len(values), "sha256": digest, **meta}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp, tmp.open("wb") as fh:
            fh.write(_MAGIC + json.dumps(header).encode() + b"\n")
            write_array(fh, values)
    except OSError as exc:
        warnings.warn(f"cannot write cache file {path}: {exc}", CacheWarning, stacklevel=3)
        return False
    return True


def _stamp(table, **meta) -> None:
    """Record where a table came from in its ``meta`` dict (tables without one: nothing)."""
    info = getattr(table, "meta", None)
    if isinstance(info, dict):
        info.update(meta)


class TableCache:
    """Solved tables of one kind: from memory, else the disk cache, else solved.

    One instance per kind of table (``values``, ``target``, ``utility``, ``future``,
    ``risk``, ``box-moments``). A table is keyed by the rule set's fingerprint and a
    text naming what was solved (a β cap, a utility digest, a θ; empty for one table
    per rule set). It
    is stored on disk as one checksummed file per array (``parts``; see
    :func:`save_array`), and in memory in a least-recently-used dict of at most
    ``max_entries`` tables.

    Parameters
    ----------
    kind : str
        File-name prefix of the tables.
    parts : tuple of str
        One name per stored array; ``("",)`` for a single array ``{kind}-{key}``, else
        ``{kind}-{part}-{key}`` per part.
    max_entries : int
        Tables kept in memory; the least recently used is dropped first.
    disk : bool
        Whether tables are also kept in the disk cache folder (:func:`cache_dir`).

    Examples
    --------
    >>> import numpy as np
    >>> squares = TableCache("squares-doc", max_entries=2, disk=False)
    >>> squares.get("k", solve=lambda: np.arange(4) ** 2)
    array([0, 1, 4, 9])
    >>> "k" in squares.memory
    True
    """

    def __init__(
        self, kind: str, parts: tuple[str, ...] = ("",), max_entries: int = 8, disk: bool = True
    ):
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries!r}")
        self.kind = kind
        self.parts = parts
        self.max_entries = max_entries
        self.disk = disk
        #: Tables by key, least recently used first.
        self.memory: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.RLock()  # threads asking for one table solve it once

    @staticmethod
    def key(rules, what: str = "") -> str:
        """Key of the table of ``rules`` (a :class:`~yahtzee_sim.game.rules.RuleSet`) and
        ``what`` was solved: ``fingerprint`` or ``fingerprint-what``."""
        fp = rules.fingerprint()
        return f"{fp}-{what}" if what else fp

    def paths(self, key: str) -> list[Path]:
        """Disk files of the table ``key``, one per part."""
        return [cache_path(f"{self.kind}-{p}" if p else self.kind, key) for p in self.parts]

    def get(
        self,
        key: str,
        solve: Callable[[], Any],
        arrays: Callable[[Any], Sequence[np.ndarray]] | None = None,
        restore: Callable[[Callable[..., list[np.ndarray] | None]], Any] | None = None,
        use_cache: bool = True,
    ):
        """The table ``key``: from memory, the disk cache, or ``solve()`` (then cached).

        Parameters
        ----------
        key : str
            From :meth:`key`.
        solve : callable
            ``solve()`` returns the table.
        arrays : callable, optional
            ``arrays(table)``: the float64 arrays to store, one per part (disk caches).
        restore : callable, optional
            ``restore(read)`` rebuilds a table from disk, where ``read(*sizes)`` returns
            the stored arrays (one per part, of these lengths) or ``None`` when a file
            is missing or fails its checksum; ``restore`` returns ``None`` then.
        use_cache : bool
            ``False``: solve without reading or writing any cache.

        Returns
        -------
        The table. Tables with a ``meta`` dict get ``meta["source"]`` (``"cache"``, or
        ``"solved"`` unless ``solve`` set it, e.g. ``"shipped"``) and ``meta["path"]``
        (the first file, if on disk); a table read from disk gets its load time as
        ``seconds``.
        """
        if not use_cache:
            table = solve()
            _stamp(table, source="solved")
            return table
        with self.lock:
            if key in self.memory:
                self.memory.move_to_end(key)
                return self.memory[key]
            if not self.disk:
                table = self._solve(key, solve, None)
            else:
                table = self._load(key, restore)
                if table is None:
                    with file_lock(self.paths(key)[0]):  # another process may be solving
                        table = self._load(key, restore)
                        if table is None:
                            table = self._solve(key, solve, arrays)
            self.put(key, table)
            return table

    def _solve(self, key: str, solve, arrays):
        """``solve()``, stamped, and written to disk when ``arrays`` is given."""
        table = solve()
        if "source" not in (getattr(table, "meta", None) or {}):  # a shipped one says so
            _stamp(table, source="solved")
        if arrays is not None and self._save(key, arrays(table)):
            _stamp(table, path=str(self.paths(key)[0]))
        return table

    def put(self, key: str, table) -> None:
        """Keep ``table`` in memory as ``key``, dropping the least recently used beyond
        ``max_entries`` first (so that ``memory`` never holds more, even as a thread that
        does not take the lock sees it)."""
        with self.lock:
            if key not in self.memory:
                while len(self.memory) >= self.max_entries:
                    self.memory.popitem(last=False)
            self.memory[key] = table
            self.memory.move_to_end(key)

    def forget(self, key: str | None = None) -> None:
        """Drop the table ``key`` (every table if ``None``) from memory; disk files stay."""
        with self.lock:
            if key is None:
                self.memory.clear()
            else:
                self.memory.pop(key, None)

    def _load(self, key: str, restore):
        paths = self.paths(key)
        if not all(p.exists() for p in paths):
            return None

        def read(*sizes: int) -> list[np.ndarray] | None:
            got = [load_array(p, n) for p, n in zip(paths, sizes, strict=True)]
            return None if any(a is None for a in got) else got

        t0 = time.perf_counter()
        table = restore(read)
        if table is not None:
            _stamp(table, source="cache", path=str(paths[0]))
            if hasattr(table, "seconds"):
                table.seconds = time.perf_counter() - t0
        return table

    def _save(self, key: str, arrays: Sequence[np.ndarray]) -> bool:
        meta = {"kind": self.kind, "key": key}
        return all([save_array(p, a, meta) for p, a in zip(self.paths(key), arrays, strict=True)])


class TableCaches:
    """The registry of the package's table caches: one :class:`TableCache` per kind of
    table, made on first use, behind one lock (threads asking for a kind get the same
    cache).

    Examples
    --------
    >>> caches = TableCaches()
    >>> caches.get("squares-doc", disk=False) is caches.get("squares-doc", disk=False)
    True
    """

    def __init__(self) -> None:
        self._caches: dict[str, TableCache] = {}
        self._lock = threading.Lock()

    def get(
        self, kind: str, parts: tuple[str, ...] = ("",), max_entries: int = 8, disk: bool = True
    ) -> TableCache:
        """The cache of ``kind`` (made with these options the first time; asking again
        with other options is a ``ValueError``: one kind, one cache)."""
        with self._lock:
            found = self._caches.get(kind)
            if found is None:
                found = self._caches[kind] = TableCache(kind, parts, max_entries, disk)
            elif (found.parts, found.max_entries, found.disk) != (parts, max_entries, disk):
                raise ValueError(f"the table cache {kind!r} exists with other options")
            return found

    def kinds(self) -> list[str]:
        """The kinds registered so far."""
        with self._lock:
            return sorted(self._caches)

    def forget_all(self) -> None:
        """Drop every table of every kind from memory (disk files stay)."""
        with self._lock:
            caches = list(self._caches.values())
        for found in caches:
            found.forget()


#: The package's table caches (:func:`table_cache`).
REGISTRY = TableCaches()


def table_cache(
    kind: str, parts: tuple[str, ...] = ("",), max_entries: int = 8, disk: bool = True
) -> TableCache:
    """The one :class:`TableCache` of ``kind`` in :data:`REGISTRY` (options as there)."""
    return REGISTRY.get(kind, parts, max_entries, disk)
