# cython: language_level=3
"""The next states one turn-start position reaches, with their mass, in the compiled core:
an open-addressing table per lane (:func:`add_outcome`) read back in the order the states
first came (:func:`merge_outcomes`), for the regret pass of games with saved rolls
(:mod:`yahtzee_sim._core.saved_regret`)."""

from libc.stdint cimport int64_t, uint64_t


# One lane's table: ``keys`` (``size`` slots, a power of two; -1 empty) and ``sums`` the
# states and their mass, ``order[:count[0]]`` the slots taken, in the order the states
# first came.
cdef struct OutcomeTable:
    int64_t* keys
    double* sums
    int64_t* order
    int64_t* count
    int64_t size


cdef inline void add_outcome(const OutcomeTable* lane, int64_t state, double mass) noexcept nogil:
    """Add ``mass`` to next state ``state`` (masses summed in the order they come). A full
    table (past any bound the rules give) counts the state, and keeps it not."""
    cdef int64_t mask = lane.size - 1
    cdef int64_t h = <int64_t>((<uint64_t>state * <uint64_t>0x9E3779B1) & <uint64_t>mask)
    while lane.keys[h] != state:
        if lane.keys[h] < 0:
            if lane.count[0] >= mask:
                lane.count[0] = mask + 1
                return
            lane.keys[h] = state
            lane.sums[h] = mass
            lane.order[lane.count[0]] = h
            lane.count[0] += 1
            return
        h = (h + 1) & mask
    lane.sums[h] += mass


cdef inline void merge_outcomes(
    const OutcomeTable* lane, int64_t* o_idx, double* o_mass, int64_t* o_n, int64_t width
) noexcept nogil:
    """One row of the outcomes: the lane's next states in the order they first came, each
    with its summed mass, into ``o_idx[:width]``, ``o_mass[:width]`` and their number
    into ``o_n[0]`` (-1 when they do not fit); the table is left empty."""
    cdef int64_t n = lane.count[0]
    cdef int64_t e, h
    if n > width:
        o_n[0] = -1
        n = 0
    else:
        o_n[0] = n
    for e in range(min(lane.count[0], lane.size - 1)):
        h = lane.order[e]
        if e < n:
            o_idx[e] = lane.keys[h]
            o_mass[e] = lane.sums[h]
        lane.keys[h] = -1
    lane.count[0] = 0
