"""A memory-mapped file of per-state arrays with a progress record beside it: what a long
exact pass writes level by level, and a pass killed in the middle resumes from.

The file starts with a :data:`HEADER_BYTES` header (one JSON line: what identifies the
pass), then ``rows`` float64 arrays of one entry per state. The progress record (``path``
+ ``.progress``, written atomically after the arrays are flushed) repeats that identity
and says how far the pass got; a file whose record names another pass, or whose size is
not the one expected, is started afresh. The two kinds:
:class:`~yahtzee_sim.exact.moments_file.MomentsFile` (the backward moments pass of a game
with saved rolls) and :class:`~yahtzee_sim.exact.forward_file.ForwardFile` (the streamed
forward pass).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.atomic import write_atomic

#: Bytes before the arrays (a page: the values map page-aligned).
HEADER_BYTES = 4096
#: Most states whose arrays a pass holds in memory (two float64 each: 512 MiB); larger
#: games keep them in a level file.
IN_MEMORY_STATES = 1 << 25


def create_mapped_file(path: Path, meta: dict, n_bytes: int) -> None:
    """A fresh file at ``path``: a :data:`HEADER_BYTES` header (``meta`` as one JSON line),
    then ``n_bytes`` of zeros (sparse), flushed to the disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(meta).encode()
    with open(path, "wb") as fh:
        fh.write(head + b" " * (HEADER_BYTES - len(head) - 1) + b"\n")
        fh.truncate(HEADER_BYTES + n_bytes)
        fh.flush()
        os.fsync(fh.fileno())


class LevelFile:
    """The arrays of one pass in a file, and its progress record.

    Parameters
    ----------
    path : Path
        The array file; its progress record is ``path`` + ``.progress``.
    meta : dict
        What identifies the pass, JSON-ready (the rule set's fingerprint, the strategy,
        ...); ``meta["n"]`` is the number of states.
    rows : int
        Arrays in the file (float64, ``meta["n"]`` entries each).
    """

    def __init__(self, path: Path, meta: dict, rows: int) -> None:
        self.path, self.meta, self.rows = Path(path), meta, rows
        self.progress_path = self.path.with_name(self.path.name + ".progress")
        self.n = int(meta["n"])

    def read_progress(self) -> dict | None:
        """The progress record, if it names this pass and the file has the size of
        :attr:`rows` arrays; else ``None`` (start afresh)."""
        try:
            record = json.loads(self.progress_path.read_text())
            size = self.path.stat().st_size
        except (OSError, ValueError):
            return None
        same = all(record.get(k) == v for k, v in self.meta.items())
        return record if same and size == HEADER_BYTES + 8 * self.rows * self.n else None

    def create(self) -> None:
        """A fresh file of zeros (sparse), without a progress record."""
        self.progress_path.unlink(missing_ok=True)
        create_mapped_file(self.path, self.meta, 8 * self.rows * self.n)

    def mapped(self, mode: str = "r+") -> np.memmap:
        """The ``(rows, n)`` arrays, memory-mapped."""
        return np.memmap(
            self.path, np.float64, mode, offset=HEADER_BYTES, shape=(self.rows, self.n)
        )

    def write_progress(self, fields: dict) -> dict:
        """Write the progress record (the pass's identity and ``fields``) atomically;
        returns it. Flush the arrays first."""
        record = {**self.meta, **fields}
        write_atomic(self.progress_path, json.dumps(record))
        return record

    def remove(self) -> None:
        """Delete the file and its progress record (the pass is over)."""
        self.progress_path.unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)
