"""Growable per-state decision caches shared by table-driven strategies.

These hold the decisions a strategy has worked out for the turn-start states its games
reached, filled while games are played and never stored; the solved tables the
decisions are read from are kept by :class:`yahtzee_sim.solving.cache.TableCache`.
"""

from __future__ import annotations

import threading

import numpy as np

from yahtzee_sim._core.decisions import gather_decisions
from yahtzee_sim.engine.threads import get_threads, threads_limited
from yahtzee_sim.game.state import decode_state, n_states

#: Above this many states a cache keeps its states in a sorted array, not a slot per state
#: (Maxi Yatzy has 1.4 billion: a slot each would be 5.5 GB).
DENSE_LIMIT = 1 << 25


class StateCache:
    """Maps turn-start states to slots of per-state decision arrays, grown on demand.

    ``arrays`` are created with shape ``(capacity, *shape)`` and doubled when full. Up to
    :data:`DENSE_LIMIT` states a slot array indexed by state says where each state's
    decisions are; above it, the cached states are kept sorted and found by binary search.

    A fill runs its parallel kernels on the threads in force where the cache was
    created (``fill_threads``), even when called from a block's thread limited to its
    share of the cores: blocks needing a fill wait for it (one fill at a time), so it
    gets every core rather than one.
    """

    def __init__(self, rules, shapes: dict[str, tuple[tuple[int, ...], type]], capacity=1024):
        self.rules = rules
        size = n_states(rules)
        self.slot = np.full(size, -1, dtype=np.int32) if size <= DENSE_LIMIT else None
        # sparse: (cached states sorted, their slots), replaced as one object
        self._index = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self.arrays = {
            name: np.zeros((capacity, *shape), dtype=dtype)
            for name, (shape, dtype) in shapes.items()
        }
        self.n = 0
        self._lock = threading.Lock()
        self.fill_threads = get_threads()

    def slots(self, states: np.ndarray) -> np.ndarray:
        """The slot of each state (-1: not cached), int64."""
        if self.slot is not None:
            return self.slot[states].astype(np.int64)
        keys, key_slots = self._index  # one consistent pair (see _insert)
        at = np.minimum(np.searchsorted(keys, states), max(len(keys) - 1, 0))
        found = keys[at] == states if len(keys) else np.zeros(len(states), dtype=bool)
        return np.where(found, key_slots[at] if len(keys) else -1, -1)

    def gather(self, states: np.ndarray, roll_index: np.ndarray, name: str, layer: int):
        """``arrays[name][slot of states[i], layer, roll_index[i]]`` as int64 (every state
        cached: :meth:`fill_missing` first)."""
        table = self.arrays[name]
        if self.slot is not None:
            return gather_decisions(self.slot, states, roll_index, table, layer)
        rows = self.slots(states).astype(np.int32)
        return gather_decisions(rows, np.arange(len(rows)), roll_index, table, layer)

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
        if not (self.slots(states) < 0).any():
            return
        with self._lock:  # blocks of one process may play in threads
            self._fill_locked(states, fill)

    def _fill_locked(self, states: np.ndarray, fill) -> None:
        missing = np.unique(states[self.slots(states) < 0])
        if len(missing) == 0:
            return
        while self.n + len(missing) > len(next(iter(self.arrays.values()))):
            self.grow()
        slots = np.arange(self.n, self.n + len(missing), dtype=np.int64)
        used, upper, flag = decode_state(self.rules, missing)
        with threads_limited(self.fill_threads):
            fill(self, used, upper, flag, slots)
        self._insert(missing, slots)
        self.n += len(missing)

    def _insert(self, states: np.ndarray, slots: np.ndarray) -> None:
        """Record the slots of new states (sorted, not cached yet)."""
        if self.slot is not None:
            self.slot[states] = slots
            return
        keys = np.concatenate((self._index[0], states))
        order = np.argsort(keys, kind="stable")
        key_slots = np.concatenate((self._index[1], slots))[order]
        self._index = (keys[order], key_slots)  # readers see the old pair or the new one
