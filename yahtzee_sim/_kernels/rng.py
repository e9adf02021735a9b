"""Counter-based random numbers (SplitMix64 output function keyed by a SeedSequence).

Every draw is a pure function of ``(key, game, counter)``: no generator state
is carried between calls, so a game's dice never depend on batch size,
chunking or the number of jobs. A draw is two rounds of the SplitMix64
output function (a bijection of 64-bit words with full avalanche)::

    game_key = mix64(key0 + game * GAMMA)
    word     = mix64(game_key ^ (key1 + counter * GAMMA))

Dice use the two 32-bit halves of a word for two consecutive slots; a face is
``(half * n_faces) >> 32`` (bias below ``n_faces / 2**32``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_LO32 = np.uint64(0xFFFFFFFF)
_INV53 = 1.0 / 9007199254740992.0


@njit(cache=True, nogil=True)
def mix64(z):
    """SplitMix64 output function."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def game_key(key0, game):
    """Per-game key: hoist out of loops over one game's draws."""
    return mix64(key0 + np.uint64(game) * GAMMA)


@njit(cache=True, nogil=True)
def word(gkey, key1, counter):
    """64 random bits for ``counter`` of the game whose key is ``gkey``."""
    return mix64(gkey ^ (key1 + np.uint64(counter) * GAMMA))


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def dice_counter(turn, roll, pair, rolls_stride):
    """Counter of the word holding dice slots ``2*pair`` and ``2*pair + 1`` of roll
    ``roll`` of turn ``turn`` (``rolls_stride``: 16, or more when a turn can have more
    rolls — games with many saved rolls)."""
    return (turn * rolls_stride + roll) * 64 + pair + 1


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def face_from_word(w, slot, n_faces):
    """Face index (0-based) of die ``slot`` from its word (high half = even slot)."""
    half = (w >> _S32) if slot % 2 == 0 else (w & _LO32)
    return np.int64((half * np.uint64(n_faces)) >> _S32)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def to_unit(w):
    """A float in [0, 1) from the top 53 bits of a word."""
    return np.float64(w >> _S11) * _INV53


def keys_from_seed(seed) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Dice key pair and strategy key pair derived from ``seed`` by ``SeedSequence``."""
    state = np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64)
    return tuple(np.uint64(s) for s in state)
