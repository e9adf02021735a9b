"""The moments of every state of a game with saved rolls in one file, level by level, resumable.

The exact moments pass of :mod:`yahtzee_sim.exact.saved_moments` writes each finished
level here and records it, with the SHA-256 of its bytes, in a progress file beside it, as
the out-of-core solve does (:mod:`yahtzee_sim.solving.levels`). The file is memory-mapped:
a pass holds the level it computes and reads the level above where it needs it. A pass
that is killed resumes from its last recorded level when run again with the same
strategy and rules; a recorded level whose bytes no longer match is computed again.

The file starts with a 4,096-byte header (one JSON line: ``n``, the rule set's
fingerprint, the strategy), then ``E[R]`` of every state and ``E[R²]`` of every state
(float64, state-index order).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.atomic import write_atomic
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import state_layout
from yahtzee_sim.solving import cache

#: Bytes before the moments (a page: the values map page-aligned).
HEADER_BYTES = 4096


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


def moments_path(rules: RuleSet, strategy: str) -> Path:
    """Where the cache folder keeps the moments of ``strategy`` (its label) on ``rules``
    while a pass runs."""
    key = hashlib.sha256(strategy.encode()).hexdigest()[:16]
    return cache.cache_dir() / f"moments-{key}-{rules.fingerprint()}.bin"


class MomentsFile:
    """The moments file of one pass: ``m1``, ``m2`` (memory-mapped, one entry per state)
    and the levels already recorded (:meth:`done`).

    Parameters
    ----------
    rules : RuleSet
        A game with saved rolls.
    strategy : str
        The strategy's label (a file of another strategy is not resumed).
    path : Path
        The file; its progress record is ``path`` + ``.progress``.
    """

    def __init__(self, rules: RuleSet, strategy: str, path: Path) -> None:
        self.rules, self.path = rules, Path(path)
        self.progress_path = self.path.with_name(self.path.name + ".progress")
        self.n = int(state_layout(rules).level_start[-1])
        self.meta = {"n": self.n, "fingerprint": rules.fingerprint(), "strategy": strategy}
        self.levels = self._resumed()
        if self.levels is None:
            self._create()
        self.values = np.memmap(self.path, np.float64, "r+", offset=HEADER_BYTES, shape=(2, self.n))
        self.m1, self.m2 = self.values[0], self.values[1]

    def _resumed(self) -> dict[str, tuple] | None:
        """The recorded levels whose bytes still match, or ``None`` (start afresh)."""
        try:
            progress = json.loads(self.progress_path.read_text())
            same = all(progress.get(k) == v for k, v in self.meta.items())
            same = same and self.path.stat().st_size == HEADER_BYTES + 16 * self.n
        except (OSError, ValueError):
            return None
        if not same:
            return None
        values = np.memmap(self.path, np.float64, "r", offset=HEADER_BYTES, shape=(2, self.n))
        return {
            k: (lo, hi, sha)
            for k, (lo, hi, sha) in progress["levels"].items()
            if self._sha(values, lo, hi) == sha
        }

    def _create(self) -> None:
        """A fresh file of zeros (sparse), the full score sheets' level recorded."""
        create_mapped_file(self.path, self.meta, 16 * self.n)
        values = np.memmap(self.path, np.float64, "r", offset=HEADER_BYTES, shape=(2, self.n))
        lo, hi = (int(x) for x in state_layout(self.rules).level_start[-2:])
        self.levels = {str(self.rules.n_boxes): (lo, hi, self._sha(values, lo, hi))}
        self._save_progress()

    @staticmethod
    def _sha(values: np.ndarray, lo: int, hi: int) -> str:
        """SHA-256 of both moments of the states ``lo .. hi - 1``."""
        digest = hashlib.sha256(np.ascontiguousarray(values[0, lo:hi]).tobytes())
        digest.update(np.ascontiguousarray(values[1, lo:hi]).tobytes())
        return digest.hexdigest()

    def _save_progress(self) -> None:
        write_atomic(self.progress_path, json.dumps({**self.meta, "levels": self.levels}))

    def done(self, k: int) -> bool:
        """Whether level ``k`` (boxes filled) is recorded."""
        return str(k) in self.levels

    def record(self, k: int, lo: int, out1: np.ndarray, out2: np.ndarray) -> None:
        """Write level ``k``'s moments ``out1``, ``out2`` (states ``lo`` on) durably, then
        record them."""
        hi = lo + len(out1)
        self.values[0, lo:hi] = out1
        self.values[1, lo:hi] = out2
        self.values.flush()
        self.levels[str(k)] = (lo, hi, self._sha(self.values, lo, hi))
        self._save_progress()

    def remove(self) -> None:
        """Delete the file and its progress record (the pass is over)."""
        del self.m1, self.m2, self.values
        self.progress_path.unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)
