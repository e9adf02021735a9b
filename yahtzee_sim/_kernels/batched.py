"""Many games' turns in few widget calls: games that share their filled boxes and
Yahtzee flag run as the lanes of one call with caller-given box values
(:data:`.widget.LANES_GIVEN`; the upper total only enters the box values, which each
lane fills for its own game). Used by win-aware play (:mod:`.winaware`) and by the
score-dependent table strategies (need lanes of a target or utility table,
:func:`need_lane_decisions`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .play import flag_after_roll
from .widget import _rows, bonus_moves_flag, box_values, new_work, widget

TILE = 64  # games sharing filled boxes and flag run as the lanes of one widget call
CHUNKS = 16  # parallel work units per call (each allocates one widget work buffer)


def group_by_boxes(states: np.ndarray, upper_cap: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order, group_ptr)``: games ``order[group_ptr[g] : group_ptr[g + 1]]`` share the
    filled boxes and flag of their turn-start ``states``."""
    groups = np.asarray(states, dtype=np.int64) // (upper_cap + 1)
    order = np.argsort(groups, kind="stable")
    cuts = np.flatnonzero(np.diff(groups[order])) + 1
    return order.astype(np.int64), np.concatenate(([0], cuts, [len(groups)])).astype(np.int64)


@njit(cache=True, nogil=True)
def group_tiles(group_ptr):
    """``(tile_lo, tile_nu)``: each group cut into runs of at most ``TILE`` games."""
    n_groups = group_ptr.shape[0] - 1
    n_tiles = 0
    for g in range(n_groups):
        n_tiles += (group_ptr[g + 1] - group_ptr[g] + TILE - 1) // TILE
    tile_lo = np.empty(n_tiles, dtype=np.int64)
    tile_nu = np.empty(n_tiles, dtype=np.int64)
    k = 0
    for g in range(n_groups):
        for lo in range(group_ptr[g], group_ptr[g + 1], TILE):
            tile_lo[k] = lo
            tile_nu[k] = min(TILE, group_ptr[g + 1] - lo)
            k += 1
    return tile_lo, tile_nu


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
def need_lane_decisions(kr, need, given, order, group_ptr, used, upper, flag, lane, keep_out,
                        cat_out):  # fmt: skip
    """Decisions of (state, lane) pairs ``i`` of a need-lane table ``need`` at every roll
    of their turn (``keep_out[i, j - 1, r]``, ``cat_out[i, r]``), the same as one-lane
    widget runs (:func:`.decisions.fill_states`) give, with pairs grouped as
    :func:`group_by_boxes` groups them; ``given`` = ``widget.given_lanes()``."""
    tile_lo, tile_nu = group_tiles(group_ptr)
    n_tiles = tile_lo.shape[0]
    n_slots = kr.slot_points.shape[0]
    n_chunks = min(n_tiles, CHUNKS)
    for chunk in prange(n_chunks):
        work = new_work(kr, TILE, 1)
        tmp = np.empty((n_slots, 1))
        for k in range(chunk, n_tiles, n_chunks):
            lo, nu = tile_lo[k], tile_nu[k]
            rows = order[lo : lo + nu]
            val = _rows(work.val, n_slots, nu)
            vb = _rows(work.val_bonus, n_slots, nu)
            for t in range(nu):
                i = rows[t]
                fill_need_values(kr, need, used[i], upper[i], flag[i], lane[i], t, val, vb, tmp)
            i0 = rows[0]
            _, cat, keep, _, _ = widget(kr, given, used[i0], upper[i0], flag[i0], 0, nu, work, 1)
            copy_decisions(kr, cat, keep, rows, cat_out, keep_out)
