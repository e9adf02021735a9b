# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The counter-based stream's batch draws for Python callers (:mod:`.rng`'s ``.pxd`` holds
the generator itself)."""

import numpy as np

from libc.stdint cimport int64_t, uint64_t

from yahtzee_sim._core.rng cimport game_key, mix64, to_unit, word


def uniforms(uint64_t key0, uint64_t key1, const int64_t[::1] games, base_counter, int64_t k):
    """``(len(games), k)`` uniforms in [0, 1): column ``j`` of game ``games[i]`` uses counter
    ``base_counter[i] + j`` (``base_counter``: one integer for every game, or one per game)."""
    cdef int64_t n = games.shape[0]
    cdef const int64_t[::1] base = np.broadcast_to(
        np.asarray(base_counter, dtype=np.int64), (n,)
    ).copy()
    out = np.empty((n, k))
    cdef double[:, ::1] o = out
    cdef int64_t i, j
    cdef uint64_t gk
    with nogil:
        for i in range(n):
            gk = game_key(key0, games[i])
            for j in range(k):
                o[i, j] = to_unit(word(gk, key1, base[i] + j))
    return out


def mix(uint64_t z):
    """SplitMix64's output function of one word (for tests and tools)."""
    return mix64(z)


def keys_from_seed(seed):
    """The dice key pair and the strategy key pair derived from ``seed`` by
    ``SeedSequence``: four ``numpy.uint64``.

    Parameters
    ----------
    seed : int or sequence of int
        The master seed (what ``numpy.random.SeedSequence`` takes).

    Returns
    -------
    tuple of numpy.uint64
        ``(dice_key0, dice_key1, strategy_key0, strategy_key1)``.
    """
    state = np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64)
    return tuple(np.uint64(s) for s in state)
