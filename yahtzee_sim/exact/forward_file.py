"""The streamed forward pass of a large game in one file, level by level, resumable.

Without the score law, the forward pass (:func:`~yahtzee_sim.exact.forward.forward_levels`
with ``keep_levels`` False: exact moments, regret) holds three numbers per state: the
reach probability ``A`` and the partial moments ``B``, ``S2``. Above
:data:`~yahtzee_sim.exact.level_file.IN_MEMORY_STATES` states, or whenever a path is
given, they live in a memory-mapped file in the cache folder, and after every level the
pass records in a progress file beside it what a resumed pass needs: the levels done,
the reached states of the next level (a ``.npy`` file, checked by its SHA-256), the
per-box statistics, the random generator's state and the state of the analysis that
watches the decisions (regret's charges). A pass killed in the middle of a level resumes
from its last recorded level: the entries the unfinished level had begun to write (the
states two levels on) are zeroed first, so the resumed pass adds the same numbers in the
same order and gives the same figures bit for bit. The files are deleted at the end.

Games with saved rolls (the compact layout, :class:`~yahtzee_sim.game.state.StateLayout`)
keep the reach only, one number per state (:mod:`yahtzee_sim.exact.saved_forward`): a
level's pass writes the next level's stretch only, so a resumed pass zeroes that stretch.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.atomic import write_atomic
from yahtzee_sim.exact.forward_moments import Moments
from yahtzee_sim.exact.level_file import LevelFile
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import compact_states, n_states, state_layout
from yahtzee_sim.solving import cache

#: States zeroed at a time when a resumed pass clears a level of a game with saved rolls.
ZERO_BLOCK = 1 << 24


def forward_path(rules: RuleSet, strategy: str, analysis: str) -> Path:
    """Where the cache folder keeps the forward pass of ``strategy`` (its label) on
    ``rules`` for ``analysis`` (``"moments"``, or the watching analysis's key) while it runs."""
    key = hashlib.sha256(f"{strategy}\n{analysis}".encode()).hexdigest()[:16]
    return cache.cache_dir() / f"forward-{key}-{rules.fingerprint()}.bin"


class ForwardFile(LevelFile):
    """The state arrays of one streamed forward pass and its last recorded level.

    Parameters
    ----------
    rules : RuleSet
        A game with fixed rolls (three arrays) or saved rolls (the reach only).
    strategy, analysis : str
        The strategy's label, and ``"moments"`` or the key of the analysis that watches
        the decisions: the file of another strategy's or analysis's pass is not resumed.
    path : Path
        The array file (:class:`~yahtzee_sim.exact.level_file.LevelFile`); the next
        level's states are kept in ``path`` + ``.states.npy``.

    Attributes
    ----------
    A, B, S2 : numpy.memmap
        Reach probability and partial moments of every state (``B`` and ``S2`` ``None``
        in a game with saved rolls).
    record : dict or None
        The last recorded level's progress record (``None``: a fresh pass).
    """

    def __init__(self, rules: RuleSet, strategy: str, analysis: str, path: Path) -> None:
        meta = {
            "n": n_states(rules),
            "fingerprint": rules.fingerprint(),
            "strategy": strategy,
            "analysis": analysis,
        }
        super().__init__(path, meta, 1 if compact_states(rules) else 3)
        self.rules = rules
        self.states_path = self.path.with_name(self.path.name + ".states.npy")
        self.record = self._resumed()
        if self.record is None:
            self.create()
        self.values = self.mapped()
        self.A, self.B, self.S2 = self.values[0], None, None
        if self.rows == 3:
            self.B, self.S2 = self.values[1], self.values[2]

    def _resumed(self) -> dict | None:
        """The progress record of a pass to resume, or ``None`` (start afresh)."""
        record = self.read_progress()
        try:
            raw = self.states_path.read_bytes()
        except OSError:
            return None
        if record is None or hashlib.sha256(raw).hexdigest() != record.get("states_sha256"):
            return None
        record["states"] = np.load(io.BytesIO(raw))
        return record

    def moments(self, n_boxes: int) -> tuple[Moments, int, np.ndarray, int]:
        """``(acc, turn, states, n_reached)`` to go on from: the accumulators over the
        file's arrays, the next level, its reached states and the states reached before it.

        A resumed pass gets its per-box statistics back and the entries of the levels
        after the next zeroed; a fresh one starts from the empty sheet."""
        record = self.record
        if record is None:
            small = (np.zeros(n_boxes) for _ in range(3))
            self.A[0] = 1.0
            acc = Moments(self.A, self.B, self.S2, *small, np.zeros(2))
            return acc, 0, np.zeros(1, np.int64), 0
        turn = int(record["turn"])
        self._zero_levels_from(turn + 1, n_boxes)
        small = (np.array(record[k], dtype=np.float64) for k in ("cat_sum", "cat_zero", "cat_turn"))
        acc = Moments(self.A, self.B, self.S2, *small, np.array(record["stats"]))
        return acc, turn, record["states"], int(record["n_reached"])

    def _zero_levels_from(self, filled: int, n_boxes: int) -> None:
        """Zero the entries of every state with at least ``filled`` boxes filled."""
        masks = np.arange(1 << n_boxes, dtype=np.int64)
        counts = np.zeros(len(masks), dtype=np.int64)
        for b in range(n_boxes):
            counts += (masks >> b) & 1
        rows = self.values.reshape(3, 1 << n_boxes, -1)
        rows[:, counts >= filled] = 0.0

    def save(
        self, turn: int, acc: Moments, states: np.ndarray, n_reached: int, extra: dict
    ) -> None:
        """Record that the levels before ``turn`` are done: the arrays flushed to the disk,
        then the next level's ``states``, then the progress record (``extra``: the random
        generator's state and the watching analysis's, JSON-ready)."""
        small = {k: getattr(acc, k).tolist() for k in ("cat_sum", "cat_zero", "cat_turn", "stats")}
        self._write({"turn": turn, "n_reached": n_reached, **small, **extra}, states)

    def _write(self, fields: dict, states: np.ndarray) -> None:
        """The arrays flushed, then ``states`` (checked by their SHA-256), then the
        progress record (the file's identity and ``fields``)."""
        self.values.flush()
        buffer = io.BytesIO()
        np.save(buffer, states)
        raw = buffer.getvalue()
        write_atomic(self.states_path, raw)
        self.record = self.write_progress(
            {**fields, "states_sha256": hashlib.sha256(raw).hexdigest()}
        )

    def reach_level(self) -> int:
        """A game with saved rolls: the level to go on from, its reach in :attr:`A`. A
        resumed pass gets the next level's stretch zeroed; a fresh one starts from the
        empty sheet."""
        if self.record is None:
            self.A[0] = 1.0
            return 0
        turn = int(self.record["turn"])
        start = state_layout(self.rules).level_start
        for lo in range(int(start[turn + 1]), int(start[turn + 2]), ZERO_BLOCK):
            block = self.A[lo : min(lo + ZERO_BLOCK, int(start[turn + 2]))]
            block[block != 0.0] = 0.0  # the written entries only: the rest stays sparse
        return turn

    def save_level(self, turn: int, extra: dict) -> None:
        """A game with saved rolls: record that the levels before ``turn`` are done (their
        reach pushed into level ``turn``; ``extra``: what else a resumed pass needs,
        JSON-ready)."""
        self._write({"turn": turn, **extra}, np.zeros(0, dtype=np.int64))

    def remove(self) -> None:
        """Delete the files (the pass is over; the arrays stay readable while mapped)."""
        self.states_path.unlink(missing_ok=True)
        super().remove()
