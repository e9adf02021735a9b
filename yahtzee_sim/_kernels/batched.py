"""Many games' turns in few widget calls: the games of a turn, whatever their states,
run as the lanes of one call with caller-given box values (:func:`.widget.widget_mixed`:
a box a lane has filled is valued ``NEG`` there; only the category step depends on the
state, the keep steps are the dice's). Used by win-aware play (:mod:`.winaware`) and by
the score-dependent table strategies (need lanes of a target or utility table,
:func:`need_lane_decisions`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .play import flag_after_roll
from .widget import _rows, bonus_moves_flag, box_values, mask_used_boxes, new_work, widget_mixed

TILE = 64  # games run as the lanes of one widget call
CHUNKS = 16  # parallel work units per call (each allocates one widget work buffer)


def lane_order(states: np.ndarray) -> np.ndarray:
    """Games in order of their turn-start ``states``: games with the same filled boxes
    (and flag) adjacent, so that a tile's lanes share most open boxes and nearby table
    rows."""
    return np.argsort(np.asarray(states, dtype=np.int64), kind="stable").astype(np.int64)


@njit(cache=True, nogil=True)
def tile_lanes(used, flag, rows, tile_used, tile_flag):
    """The filled boxes and flag of the tile's games ``rows``, lane by lane."""
    for t in range(rows.shape[0]):
        tile_used[t] = used[rows[t]]
        tile_flag[t] = flag[rows[t]]


@njit(cache=True, nogil=True)
def copy_decisions(kr, cat, keep, rows, cat_out, keep_out):
    """Lane ``t`` of a widget run's recorded decisions into row ``rows[t]`` of the
    outputs (read in lane order, written per game)."""
    nu = rows.shape[0]
    for r in range(kr.roll_keep_index.shape[0]):
        for t in range(nu):
            cat_out[rows[t], r] = cat[r, t]
        for j in range(1, kr.rolls):
            for t in range(nu):
                keep_out[rows[t], j - 1, r] = keep[j, r, t]


@njit(cache=True, nogil=True)
def fill_need_values(kr, lanes, used, upper, flag, lane, t, val, val_bonus, tmp):
    """Lane ``t``: the box values of need lanes (``lanes``) at ``lane`` points still
    needed, into ``val[:, t]``; with a roll's Yahtzee bonus (``lane`` minus the bonus,
    the next flag under a bonus limit) into ``val_bonus[:, t]`` — what the need-lane
    widget reads for that lane."""
    box_values(kr, lanes, used, upper, flag, lane, 1, tmp)
    for s in range(tmp.shape[0]):
        val[s, t] = tmp[s, 0]
    if kr.yahtzee_bonus > 0 and flag >= 1:
        f2 = flag_after_roll(kr, flag, 1) if bonus_moves_flag(kr, used, flag) else flag
        box_values(kr, lanes, used, upper, f2, lane - kr.yahtzee_bonus, 1, tmp)
        for s in range(tmp.shape[0]):
            val_bonus[s, t] = tmp[s, 0]


@njit(cache=True, parallel=True, nogil=True)
def need_lane_decisions(kr, need, order, used, upper, flag, lane, keep_out, cat_out):
    """Decisions of (state, lane) pairs ``i`` of a need-lane table ``need`` at every roll
    of their turn (``keep_out[i, j - 1, r]``, ``cat_out[i, r]``), the same as one-lane
    widget runs (:func:`.decisions.fill_states`) give; pairs run ``TILE`` at a time in
    ``order`` (:func:`lane_order`) as the lanes of :func:`.widget.widget_mixed`."""
    n = order.shape[0]
    n_tiles = (n + TILE - 1) // TILE
    n_slots = kr.slot_points.shape[0]
    n_chunks = min(n_tiles, CHUNKS)
    for chunk in prange(n_chunks):
        work = new_work(kr, TILE, 1)
        tmp = np.empty((n_slots, 1))
        tu = np.empty(TILE, dtype=np.int64)
        tf = np.empty(TILE, dtype=np.int64)
        for k in range(chunk, n_tiles, n_chunks):
            rows = order[k * TILE : min(n, (k + 1) * TILE)]
            nu = rows.shape[0]
            val = _rows(work.val, n_slots, nu)
            vb = _rows(work.val_bonus, n_slots, nu)
            for t in range(nu):
                i = rows[t]
                fill_need_values(kr, need, used[i], upper[i], flag[i], lane[i], t, val, vb, tmp)
                mask_used_boxes(kr, used[i], t, val)
            tile_lanes(used, flag, rows, tu, tf)
            _, cat, keep = widget_mixed(kr, tu, tf, nu, work, 1)
            copy_decisions(kr, cat, keep, rows, cat_out, keep_out)
