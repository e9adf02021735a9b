"""The moments of every state of a game with saved rolls in one file, level by level, resumable.

The exact moments pass of :mod:`yahtzee_sim.exact.saved_moments` writes each finished
level here and records it, with the SHA-256 of its bytes, in a progress file beside it, as
the out-of-core solve does (:mod:`yahtzee_sim.solving.levels`). The file is memory-mapped:
a pass holds the level it computes and reads the level above where it needs it. A pass
that is killed resumes from its last recorded level when run again with the same
strategy and rules; a recorded level whose bytes no longer match is computed again.

The file (:class:`~yahtzee_sim.exact.level_file.LevelFile`: a header naming ``n``, the rule
set's fingerprint and the strategy) holds ``E[R]`` of every state, then ``E[R²]`` of every
state (float64, state-index order).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from yahtzee_sim.exact.level_file import LevelFile
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import state_layout
from yahtzee_sim.solving import cache


def moments_path(rules: RuleSet, strategy: str) -> Path:
    """Where the cache folder keeps the moments of ``strategy`` (its label) on ``rules``
    while a pass runs."""
    key = hashlib.sha256(strategy.encode()).hexdigest()[:16]
    return cache.cache_dir() / f"moments-{key}-{rules.fingerprint()}.bin"


class MomentsFile(LevelFile):
    """The moments file of one pass: ``m1``, ``m2`` (memory-mapped, one entry per state)
    and the levels already recorded (:meth:`done`).

    Parameters
    ----------
    rules : RuleSet
        A game with saved rolls.
    strategy : str
        The strategy's label: the file of another strategy's pass is not resumed.
    path : Path
        The file (:class:`~yahtzee_sim.exact.level_file.LevelFile`).
    """

    def __init__(self, rules: RuleSet, strategy: str, path: Path) -> None:
        n = int(state_layout(rules).level_start[-1])
        super().__init__(
            path, {"n": n, "fingerprint": rules.fingerprint(), "strategy": strategy}, 2
        )
        self.rules = rules
        self.levels = self._resumed()
        if self.levels is None:
            self._create()
        self.values = self.mapped()
        self.m1, self.m2 = self.values[0], self.values[1]

    def _resumed(self) -> dict[str, tuple] | None:
        """The recorded levels whose bytes still match, or ``None`` (start afresh)."""
        progress = self.read_progress()
        if progress is None or "levels" not in progress:
            return None
        values = self.mapped("r")
        return {
            k: (lo, hi, sha)
            for k, (lo, hi, sha) in progress["levels"].items()
            if self._sha(values, lo, hi) == sha
        }

    def _create(self) -> None:
        """A fresh file of zeros (sparse), the full score sheets' level recorded."""
        self.create()
        values = self.mapped("r")
        lo, hi = (int(x) for x in state_layout(self.rules).level_start[-2:])
        self.levels = {str(self.rules.n_boxes): (lo, hi, self._sha(values, lo, hi))}
        self.write_progress({"levels": self.levels})

    @staticmethod
    def _sha(values: np.ndarray, lo: int, hi: int) -> str:
        """SHA-256 of both moments of the states ``lo .. hi - 1``."""
        digest = hashlib.sha256(np.ascontiguousarray(values[0, lo:hi]).tobytes())
        digest.update(np.ascontiguousarray(values[1, lo:hi]).tobytes())
        return digest.hexdigest()

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
        self.write_progress({"levels": self.levels})

    def remove(self) -> None:
        """Delete the file and its progress record (the pass is over)."""
        del self.m1, self.m2, self.values
        super().remove()
