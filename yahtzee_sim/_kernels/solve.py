"""Backward induction over levels: every state of one level through the widget, in
parallel (the levels of equal used-count are independent given the level above).

* :func:`solve_level` — max-EV values, lanes over upper totals (:mod:`yahtzee_sim.solving.solver`);
* :func:`solve_need_level` — rows over points still needed, in tiles: target score
  (:mod:`yahtzee_sim.solving.target`) and any utility of the final score
  (:mod:`yahtzee_sim.solving.utility`); exponential utility runs :func:`solve_level`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.keep_steps import filled_boxes
from yahtzee_sim._kernels.lanes import row_first
from yahtzee_sim._kernels.scoring import saved_state_index
from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import buffer_rows, new_work

#: Work buffers are allocated once per chunk of states, not per state.
MAX_CHUNKS = 64


@njit(cache=True, parallel=True, nogil=True)
def solve_level(kr, lanes, out, out_shift, masks, u_start, n_upper):
    """Fill, for every state whose used-mask is in ``masks`` (one level), its value
    ``out[index - out_shift]`` (``index`` in the layout ``lanes`` read: the product
    layout, or the compact one of :func:`.lanes.compact_upper_lanes`; ``out`` may be
    ``lanes.values`` itself, ``out_shift`` 0).

    Upper totals ``u_start[i] .. u_start[i] + n_upper[i] - 1`` are solved for
    ``masks[i]``; the totals below ``u_start[i]`` cannot reach the bonus any more
    and get the value of ``u_start[i]``; larger ones are unreachable (left as they are).
    """
    n_masks = masks.shape[0]
    n_chunks = min(n_masks, MAX_CHUNKS)
    max_nu = kr.upper_cap + 1
    compact = lanes.offset.shape[0] > 0
    zero = np.int64(0)  # not a literal: one compiled widget for every record-0 caller
    for chunk in prange(n_chunks):
        work = new_work(kr, max_nu, 0)
        for i in range(chunk, n_masks, n_chunks):
            used = masks[i]
            n_flags = 1  # flags above 0 need the Yahtzee box filled
            if kr.yahtzee_index >= 0 and (used >> kr.yahtzee_index) & 1:
                n_flags = kr.flag_size
            nu = n_upper[i]
            u0 = u_start[i]
            n_saved = kr.saved_size
            if compact:  # the saved counts a turn can start with, k boxes filled
                n_saved = min((kr.rolls - 1) * filled_boxes(used), kr.saved_roll_cap) + 1
            for flag in range(n_flags):
                W = widget(kr, lanes, used, zero, flag, u0, nu, work, np.int64(0))[0]
                # games with saved rolls: one run values every saved-roll count
                tops = buffer_rows(work.tops, kr.saved_size, nu)
                for saved in range(n_saved):
                    top = tops[saved] if kr.saved_size > 1 else W[0]
                    if compact:
                        base = lanes.offset[used * kr.flag_size + flag]
                        base += saved * lanes.length[used] - out_shift
                    else:
                        base = saved_state_index(kr, used, 0, flag, saved) - out_shift
                    for t in range(nu):
                        out[base + u0 + t] = top[t]
                    for u in range(u0):
                        out[base + u] = top[0]


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
