"""Files written whole or not at all: a process killed while writing leaves the old file or
none, never a truncated one.

Every file the package writes (checkpoints, cached tables, results, records, datasets,
figures, reports, rule cards) goes through :func:`atomic_path` or :func:`write_atomic`:
the content is written to a hidden temporary file in the target's folder, flushed to the
disk (``fsync``), then renamed over the target with :func:`os.replace`, which readers see
happen in one step. A process killed (even with ``SIGKILL``) before the rename leaves the
target as it was; it may leave the hidden temporary file (``.NAME.XXXXXXXX.tmp.SUFFIX``),
which nothing reads and which may be deleted. ``tests/contracts/test_process_death.py`` kills every
writer half-way through its file. (The out-of-core solve's table file has its own resumable
scheme: :mod:`yahtzee_sim.solving.levels`.)
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

#: The umask assumed where the process's own cannot be read without changing it.
DEFAULT_UMASK = 0o022


def new_file_mode() -> int:
    """Permissions of a new file: ``0o666`` less the process's umask, as :func:`open` gives
    (the umask is read from ``/proc/self/status``; :data:`DEFAULT_UMASK` where there is none:
    setting it to read it back would race with other threads)."""
    umask = DEFAULT_UMASK
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
                    break
    except (OSError, ValueError, IndexError):
        pass
    return 0o666 & ~umask


def _temp_beside(path: Path) -> Path:
    """A new empty hidden file in ``path``'s folder, with ``path``'s suffix (writers such
    as matplotlib's ``savefig`` choose the format by the suffix)."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, name = tempfile.mkstemp(dir=folder, prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}")
    os.close(fd)
    return Path(name)


def _sync(path: Path) -> None:
    """Flush a written file's content to the disk (tests replace this to kill the
    process half-way through a file)."""
    fd = os.open(path, os.O_RDWR)  # write access: Windows flushes only then
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (the rename) to the disk, where the platform can."""
    if os.name == "nt":  # pragma: no cover - folders cannot be opened there
        return
    try:
        fd = os.open(folder if str(folder) else ".", os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. a folder that may not be read
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - file systems that refuse it
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path to write ``path``'s content to; it becomes ``path`` when the block
    ends without an exception.

    The temporary file is hidden, in ``path``'s folder (so the rename never crosses file
    systems) and has ``path``'s suffix. When the block ends, its content is flushed to the
    disk and it is renamed over ``path`` in one step (:func:`os.replace`); an existing
    target keeps its permissions, a new one gets :func:`new_file_mode`. When the block
    raises, the temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : path
        The file to write; its folder must exist.

    Yields
    ------
    Path
        The temporary file (exists, empty) to write to.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "a.txt") as tmp:
    ...     _ = tmp.write_text("whole")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('whole', ['a.txt'])
    """
    path = Path(path)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = new_file_mode()
    tmp = _temp_beside(path)
    try:
        yield tmp
        _sync(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _sync_folder(path.parent)


def write_atomic(path: str | os.PathLike, data: bytes | str, encoding: str = "utf-8") -> Path:
    """Write ``data`` (bytes, or text in ``encoding``) to ``path`` with :func:`atomic_path`.

    Parameters
    ----------
    path : path
        The file; its folder must exist.
    data : bytes or str
        The whole content.
    encoding : str
        Of text ``data``.

    Returns
    -------
    Path
        ``path``.
    """
    path = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    with atomic_path(path) as tmp:
        tmp.write_bytes(raw)
    return path


#: Values per block of :func:`write_array`.
ARRAY_BLOCK = 1 << 17


def write_array(fh, values: np.ndarray) -> None:
    """Write the bytes of the contiguous array ``values`` to the open binary file ``fh``
    at its position, block by block, seeking over every block whose bits are all zero.

    Over a new file or a region of zeros (a file extended by ``truncate``), the skipped
    blocks are holes: they read back as zeros and take no disk (tables of forced-order
    games are mostly unreachable states, whose values are 0). The file is extended to
    the end of the array if it ends in a hole.

    Parameters
    ----------
    fh : binary file
        Open for writing; its content under the skipped blocks must be zeros.
    values : ndarray
        C-contiguous, of 8-byte items (float64 or int64).
    """
    bits = np.ascontiguousarray(values).view(np.uint64).ravel()
    for start in range(0, len(bits), ARRAY_BLOCK):
        block = bits[start : start + ARRAY_BLOCK]
        if block.any():
            fh.write(memoryview(block).cast("B"))
        else:
            fh.seek(8 * len(block), os.SEEK_CUR)
    if fh.tell() > os.fstat(fh.fileno()).st_size:
        fh.truncate()
