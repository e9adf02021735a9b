# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Which need lanes still depend on the play, in the compiled core: score-dependent
strategies play max-EV elsewhere (:mod:`yahtzee_sim.strategies.score_dependent`)."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t

from yahtzee_sim._core.bundle cimport lanes_of
from yahtzee_sim._core.lanes cimport LANES_NEED, LaneTable, need_lane_live


def live_lanes(lanes, states, t):
    """Whether each need lane ``t[i]`` of state ``states[i]`` still depends on the play.

    Parameters
    ----------
    lanes : Lanes
        Need lanes (:func:`~yahtzee_sim._kernels.lanes.points_needed_lanes`).
    states, t : int arrays (n,)
        Each state and the lane (points still needed) asked about.

    Returns
    -------
    bool array (n,)
    """
    cdef LaneTable table = lanes_of(lanes)
    s_arr = np.ascontiguousarray(states, dtype=np.int64)
    t_arr = np.ascontiguousarray(t, dtype=np.int64)
    if table.kind != LANES_NEED:
        raise ValueError("live_lanes reads need lanes (points still needed)")
    if s_arr.shape[0] != t_arr.shape[0]:
        raise ValueError(f"states and t must have the same length, got {s_arr.shape[0]} and {t_arr.shape[0]}")
    if s_arr.shape[0] and (s_arr.min() < 0 or s_arr.max() >= table.n_offset):
        raise ValueError(f"states must lie in 0..{table.n_offset - 1}")
    cdef const int64_t[::1] sv = s_arr
    cdef const int64_t[::1] tv = t_arr
    out = np.empty(sv.shape[0], dtype=np.bool_)
    cdef uint8_t[::1] o = out.view(np.uint8)
    cdef int64_t i
    with nogil:
        for i in range(sv.shape[0]):
            o[i] = need_lane_live(&table, sv[i], tv[i])
    return out
