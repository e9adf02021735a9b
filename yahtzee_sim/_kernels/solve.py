"""Backward induction over levels of need lanes: every state of one level through the
widget, in parallel (the levels of equal used-count are independent given the level above).

* :func:`solve_need_level` — rows over points still needed, in tiles: target score
  (:mod:`yahtzee_sim.solving.target`) and any utility of the final score
  (:mod:`yahtzee_sim.solving.utility`).

Max-EV and exponential-utility levels run in the compiled core
(:func:`yahtzee_sim._core.solve.solve_level`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.lanes import row_first
from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import new_work

#: Work buffers are allocated once per chunk of states, not per state.
MAX_CHUNKS = 64


@njit(cache=True, parallel=True, nogil=True)
def solve_need_level(kr, lanes, items, tile):
    """Fill the need-lane rows (target or utility table) of the states ``items[:, 3]``
    (used, upper, flag, state index in columns 0..3) of one level, in parallel, ``tile``
    lanes at a time (the work array of a tile stays in the core's cache)."""
    probs = lanes.values  # written through a local: parfors do not write through tuples
    n = items.shape[0]
    n_chunks = min(n, MAX_CHUNKS)
    target = lanes.first.shape[0] == 0
    for chunk in prange(n_chunks):
        work = new_work(kr, tile, 0)
        for k in range(chunk, n, n_chunks):
            s = items[k, 3]
            o = lanes.offset[s]
            f = row_first(lanes, s)
            for lo in range(0, lanes.length[s], tile):
                nu = min(tile, lanes.length[s] - lo)
                W = widget(
                    kr, lanes, items[k, 0], items[k, 1], items[k, 2], f + lo, nu, work, np.int64(0)
                )[0]
                for i in range(nu):
                    probs[o + lo + i] = W[0, i]
            if target and lanes.length[s] > 0:
                probs[o] = 1.0  # P(at least 0 more) is exactly 1
