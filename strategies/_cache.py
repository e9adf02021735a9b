"""Growable per-state decision caches shared by table-driven strategies.

These hold the decisions a strategy has worked out for the turn-start states its games
reached, filled while games are played and never stored; the solved tables the
decisions are read from are kept by :class:`yahtzee_sim.solving.cache.TableCache`.
"""

from __future__ import annotations

import threading

import numpy as np

from yahtzee_sim.game.state import decode_state, n_states


class StateCache:
    """Maps turn-start states to slots of per-state decision arrays, grown on demand.

    ``arrays`` are created with shape ``(capacity, *shape)`` and doubled when full.
    """

    def __init__(self, rules, shapes: dict[str, tuple[tuple[int, ...], type]], capacity=1024):
        self.rules = rules
        self.slot = np.full(n_states(rules), -1, dtype=np.int32)
        self.arrays = {
            name: np.zeros((capacity, *shape), dtype=dtype)
            for name, (shape, dtype) in shapes.items()
        }
        self.n = 0
        self._lock = threading.Lock()

    def grow(self) -> None:
        """Double the capacity of every array (slots beyond ``n`` are not initialized)."""
        for name, arr in self.arrays.items():
            bigger = np.empty((2 * len(arr), *arr.shape[1:]), dtype=arr.dtype)
            bigger[: self.n] = arr[: self.n]
            self.arrays[name] = bigger

    def fill_missing(self, states: np.ndarray, fill) -> None:
        """Give every state in ``states`` a slot, calling ``fill(cache, used, upper, flag,
        slots)`` once for all the states not cached yet (decoded, in increasing state
        index: fills that group states by used-mask and flag rely on that order), with
        ``cache`` this cache: a fill writes into the arrays of the cache it was called for,
        even if its strategy was prepared again meanwhile (by another thread).

        Threads may call it at once: one fills while the others wait; a state's slot is
        set only after its rows are written, so a thread that sees the slot (no lock
        taken when every state has one) reads finished rows, from the current arrays or
        from those they replaced (which :meth:`grow` copies and never changes again)."""
        if not (self.slot[states] < 0).any():
            return
        with self._lock:  # blocks of one process may play in threads
            self._fill_locked(states, fill)

    def _fill_locked(self, states: np.ndarray, fill) -> None:
        missing = np.unique(states[self.slot[states] < 0])
        if len(missing) == 0:
            return
        while self.n + len(missing) > len(next(iter(self.arrays.values()))):
            self.grow()
        slots = np.arange(self.n, self.n + len(missing), dtype=np.int64)
        used, upper, flag = decode_state(self.rules, missing)
        fill(self, used, upper, flag, slots)
        self.slot[missing] = slots
        self.n += len(missing)
