# cython: language_level=3
"""Counter-based random numbers in the compiled core (SplitMix64's output function keyed by
a ``SeedSequence``, :func:`~yahtzee_sim._core.rng.keys_from_seed`; every draw a pure
function of ``(key, game, counter)``: no generator state is carried between calls, so a
game's dice never depend on batch size, chunking or the number of jobs)::

    game_key = mix64(key0 + game * GAMMA)
    word     = mix64(game_key ^ (key1 + counter * GAMMA))

Dice use the two 32-bit halves of a word for two consecutive slots; a face is
``(half * n_faces) >> 32``. Unsigned arithmetic wraps modulo 2**64, as numba's does.
"""

from libc.stdint cimport int64_t, uint64_t

cdef enum:
    ROLL_STRIDE = 16  # rolls a turn can have, unless more are saved (kr.levels)


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """SplitMix64 output function."""
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t game_key(uint64_t key0, int64_t game) noexcept nogil:
    """Per-game key: hoist out of loops over one game's draws."""
    return mix64(key0 + <uint64_t>game * <uint64_t>0x9E3779B97F4A7C15ULL)


cdef inline uint64_t word(uint64_t gkey, uint64_t key1, int64_t counter) noexcept nogil:
    """64 random bits for ``counter`` of the game whose key is ``gkey``."""
    return mix64(gkey ^ (key1 + <uint64_t>counter * <uint64_t>0x9E3779B97F4A7C15ULL))


cdef inline int64_t dice_counter(
    int64_t turn, int64_t roll, int64_t pair, int64_t rolls_stride
) noexcept nogil:
    """Counter of the word holding dice slots ``2*pair`` and ``2*pair + 1`` of roll
    ``roll`` of turn ``turn``."""
    return (turn * rolls_stride + roll) * 64 + pair + 1


cdef inline int64_t face_from_word(uint64_t w, int64_t slot, int64_t n_faces) noexcept nogil:
    """Face index (0-based) of die ``slot`` from its word (high half = even slot)."""
    cdef uint64_t half = (w >> 32) if slot % 2 == 0 else (w & <uint64_t>0xFFFFFFFFULL)
    return <int64_t>((half * <uint64_t>n_faces) >> 32)


cdef inline double to_unit(uint64_t w) noexcept nogil:
    """A float in [0, 1) from the top 53 bits of a word."""
    return <double>(w >> 11) * (1.0 / 9007199254740992.0)
