"""The moments of the points to come under fixed decisions, in a game with saved rolls.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).

For one turn-start *position* ``(used, upper, flag)`` the strategy's decisions are
``keep[j - 1, r]`` (the keep at roll ``r`` with ``j`` rerolls left; keeping every die
stops and saves the rolls left, at most the cap) and ``cat[b, r]`` (the box of final roll
``r`` when the turn leaves ``b`` rolls saved). The first and second moments of the points
to come, ``E[R]`` and ``E[R²]``, are linear in the moments of the turn's end, so both go
backwards through the turn as the widget's values do (:mod:`.keep_steps`), with the
strategy's keep in place of the best one. One pass over the rerolls left values the
position with every saved-roll count it can start with: a turn that starts with ``s``
saved rolls has ``rolls - 1 + s`` rerolls after its first roll.

The positions of one used-mask and flag run side by side as the lanes of a *tile*, both
moments in one row of the widget's layout (``W[k, t]``: lane ``t``'s first moment,
``W[k, nu + t]``: its second), so each keep's mean over its rerolled dice is one
vectorized pass (:func:`.keep_steps.keep_values`) for every lane and both moments. The
moments of a turn's end are read only where they are needed: every roll with no reroll
left, and with rerolls left only the rolls whose keep stops the turn.

A decision array may hold fewer layers than the rerolls left (``keep.shape[1]``) or fewer
banks than the saved-roll counts (``cat.shape[1]``): its last row then serves the layers
or banks past it (a strategy that keeps the same dice whatever the rerolls left gives one).

*Hopeless* lanes — upper totals from which the open upper boxes cannot reach the bonus
any more, ``0 .. u_start`` (:func:`yahtzee_sim.solving.levels.upper_lanes`) — lead only
to hopeless lanes of the next states, with the same points. When every used-mask's
hopeless lanes of the level above hold equal moments (:func:`hopeless_lanes_equal`), a
hopeless lane whose decisions equal those of the mask's lane 0 reads equal moments at
every turn end, so its moments are lane 0's, copied: the same bits the lane's own run
would give.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.keep_steps import first_roll_mean, keep_values
from yahtzee_sim._kernels.scoring import (
    flag_after_roll,
    roll_box_points,
    sets_flag,
    upper_after,
    yahtzee_bonus_points,
)

#: Most lanes of a tile: its rows (both moments) and turn-end records stay in a core's cache.
TILE = 32


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def turn_end_entries(kr, offset, count, used, upper, flag, cat_row, shift, t, q, nxt, step):
    """Lane ``t`` of the turn ends of every roll ``r`` scored in box ``cat_row[r]`` from
    ``(used, upper, flag)``: the points with bonuses ``q[r, t]``, the next state's index
    with no roll saved, minus ``shift``, ``nxt[r, t]`` and the index step per saved roll
    ``step[r, t]``. An illegal box gives ``q`` NaN (the moments it reaches are NaN, which
    reach the start state only if the strategy can make that move) and index 0."""
    for r in range(cat_row.shape[0]):
        c = cat_row[r]
        raw = -1
        if 0 <= c < kr.n_boxes:
            raw = roll_box_points(kr, r, used, flag, c)
        if raw < 0:
            q[r, t], nxt[r, t], step[r, t] = np.nan, 0, 0  # reads the first moments
            continue
        yb = 1 if yahtzee_bonus_points(kr, r, used, flag) > 0 else 0
        u2, bonus = upper_after(kr, upper, c, raw)
        nf = 1 if sets_flag(kr, c, raw) else flag_after_roll(kr, flag, yb)
        used2 = used | (np.int64(1) << c)
        nxt[r, t] = offset[used2 * kr.flag_size + nf] + u2 - shift
        step[r, t] = count[used2]
        q[r, t] = float(raw + yb * kr.yahtzee_bonus + bonus)


@njit(cache=True, nogil=True, inline="always")
def put_turn_end(W, k, t, nu, q, i, m1, m2):
    """Row ``k``, lane ``t`` of ``W`` = the moments of a turn's end that scores ``q`` points
    before state ``i`` (moments ``m1[i]``, ``m2[i]``): ``q + R`` and ``(q + R)²``."""
    a1 = m1[i]
    W[k, t] = q + a1
    W[k, nu + t] = q * q + 2.0 * q * a1 + m2[i]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def layer_keeps(kr, keep, lanes, layer, kt, stop_r, stop_t):
    """The keeps of layer ``layer`` of the lanes' positions: ``kt[r, t]`` (the row each roll
    reads), and the ``(roll, lane)`` pairs that stop the turn (keep every die), returned
    as their number, listed in ``stop_r``, ``stop_t``."""
    n = 0
    for r in range(kt.shape[0]):
        for t in range(lanes.shape[0]):
            kk = keep[lanes[t], layer, r]
            kt[r, t] = kk
            if kr.keep_size[kk] == kr.n_dice:
                stop_r[n], stop_t[n] = r, t
                n += 1
    return n


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_moments(kr, offset, count, pos, lanes, n_saved, keep, cat, m1, m2, shift, scratch, top):
    """The moments of the positions ``pos[lanes[t]]`` (one used-mask and flag; ``nu``
    lanes) with ``0 .. n_saved - 1`` saved rolls into ``top[s, t]`` (first moment) and
    ``top[s, nu + t]`` (second), from the next states' moments ``m1``, ``m2`` (indexed by
    state index minus ``shift``; the level above, never empty). ``scratch = (W, q, nxt,
    step, kt, stop_r, stop_t)``
    (:func:`tile_scratch`)."""
    W, q, nxt, step, kt, stop_r, stop_t = scratch
    nu = lanes.shape[0]
    rki = kr.roll_keep_index
    n_rolls = rki.shape[0]
    n_layers = kr.rolls - 2 + n_saved
    cat_bank, keep_layer, n_stop = -1, -1, 0  # the rows the records hold
    for j in range(n_layers + 1):
        b = min(j, kr.saved_roll_cap)  # rolls saved by stopping now
        cb = min(b, cat.shape[1] - 1)
        if cb != cat_bank:
            for t in range(nu):
                i = lanes[t]
                turn_end_entries(
                    kr, offset, count, pos[i, 0], pos[i, 1], pos[i, 2], cat[i, cb], shift, t,
                    q, nxt, step,
                )  # fmt: skip
            cat_bank = cb
        if j == 0:  # no reroll left: every roll is scored
            for r in range(n_rolls):
                for t in range(nu):
                    put_turn_end(W, rki[r], t, nu, q[r, t], nxt[r, t], m1, m2)
        else:
            keep_values(kr, W, 2 * nu)
            layer = min(j - 1, keep.shape[1] - 1)
            if layer != keep_layer:
                n_stop = layer_keeps(kr, keep, lanes, layer, kt, stop_r, stop_t)
                keep_layer = layer
            for r in range(n_rolls):  # a stop reads its own row: replaced below
                k = rki[r]
                for t in range(nu):
                    W[k, t] = W[kt[r, t], t]
                    W[k, nu + t] = W[kt[r, t], nu + t]
            for e in range(n_stop):
                r, t = stop_r[e], stop_t[e]
                i = nxt[r, t] + b * step[r, t]
                put_turn_end(W, rki[r], t, nu, q[r, t], i, m1, m2)
        s = j - (kr.rolls - 1)
        if 0 <= s < n_saved:
            first_roll_mean(kr, W, top[s], 2 * nu)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_scratch(kr, n_saved):
    """Scratch of :func:`tile_moments` for up to :data:`TILE` lanes, and its ``top``."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    scratch = (
        np.empty((n_keeps, 2 * TILE)),
        np.empty((n_rolls, TILE)),
        np.empty((n_rolls, TILE), dtype=np.int64),
        np.empty((n_rolls, TILE), dtype=np.int64),
        np.empty((n_rolls, TILE), dtype=np.int64),
        np.empty(n_rolls * TILE, dtype=np.int64),
        np.empty(n_rolls * TILE, dtype=np.int64),
    )
    return scratch, np.empty((n_saved, 2 * TILE))


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def same_decisions(keep, cat, i, a):
    """Whether positions ``i`` and ``a`` have the same decisions in every row."""
    for j in range(keep.shape[1]):
        for r in range(keep.shape[2]):
            if keep[i, j, r] != keep[a, j, r]:
                return False
    for b in range(cat.shape[1]):
        for r in range(cat.shape[2]):
            if cat[i, b, r] != cat[a, b, r]:
                return False
    return True


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def level_tiles(pos, share, keep, cat):
    """Which positions are computed, and in which tiles: ``(copy_of, order, tile_ptr)``.

    ``copy_of[i]`` is the position whose moments position ``i`` takes (its mask's lane 0:
    ``i`` is hopeless, ``1 <= upper <= share[i]``, with the same decisions), else -1;
    ``order[tile_ptr[a] : tile_ptr[a + 1]]`` are the computed positions of tile ``a``
    (one used-mask and flag, at most :data:`TILE`)."""
    n = pos.shape[0]
    copy_of = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    tile_ptr = np.zeros(n + 1, dtype=np.int64)
    n_order, n_tiles, rep = 0, 0, -1
    for i in range(n):
        new_group = i == 0 or pos[i, 0] != pos[i - 1, 0] or pos[i, 2] != pos[i - 1, 2]
        if new_group:
            rep = i if pos[i, 1] == 0 else -1
        elif rep >= 0 and pos[i, 1] <= share[i] and same_decisions(keep, cat, i, rep):
            copy_of[i] = rep
            continue
        if new_group or n_order - tile_ptr[n_tiles - 1] == TILE:
            tile_ptr[n_tiles] = n_order
            n_tiles += 1
        order[n_order] = i
        n_order += 1
    tile_ptr[n_tiles] = n_order
    return copy_of, order[:n_order], tile_ptr[: n_tiles + 1]


@njit(cache=True, parallel=True, nogil=True)
def saved_moments_level(
    kr, offset, count, pos, n_saved, keep, cat, share, m1, m2, shift, o1, o2, oshift
):
    """E[R], E[R²] of the states of positions ``pos[i] = (used, upper, flag)`` with
    ``0 .. n_saved - 1`` saved rolls, into ``o1``, ``o2`` (indexed by state index minus
    ``oshift``), from the next level's ``m1``, ``m2`` (minus ``shift``) and the
    strategy's ``keep[i, j - 1, r]`` and ``cat[i, b, r]`` (the last row serving the layers
    and banks past it), tiles of lanes in parallel. ``offset`` and ``count`` are the
    layout's ``block_offset`` and ``upper_count``. ``share[i]``: the highest hopeless
    upper total of position ``i``'s mask when the level above holds equal moments in
    every mask's hopeless lanes, else -1 (nothing is copied). Returns the number of
    positions computed (the others copied)."""
    copy_of, order, tile_ptr = level_tiles(pos, share, keep, cat)
    n_tiles = tile_ptr.shape[0] - 1
    n_chunks = min(n_tiles, 64)
    for chunk in prange(n_chunks):
        scratch, top = tile_scratch(kr, n_saved)
        for a in range(chunk, n_tiles, n_chunks):
            lanes = order[tile_ptr[a] : tile_ptr[a + 1]]
            nu = lanes.shape[0]
            tile_moments(kr, offset, count, pos, lanes, n_saved, keep, cat, m1, m2, shift,
                         scratch, top)  # fmt: skip
            for t in range(nu):
                i = lanes[t]
                used = pos[i, 0]
                base = offset[used * kr.flag_size + pos[i, 2]] + pos[i, 1] - oshift
                for s in range(n_saved):
                    o1[base + s * count[used]] = top[s, t]
                    o2[base + s * count[used]] = top[s, nu + t]
    for i in range(pos.shape[0]):
        a = copy_of[i]
        if a >= 0:
            used = pos[i, 0]
            base = offset[used * kr.flag_size + pos[i, 2]] - oshift
            for s in range(n_saved):
                o1[base + s * count[used] + pos[i, 1]] = o1[base + s * count[used] + pos[a, 1]]
                o2[base + s * count[used] + pos[i, 1]] = o2[base + s * count[used] + pos[a, 1]]
    return order.shape[0]


@njit(cache=True, parallel=True, nogil=True)
def hopeless_lanes_equal(m1, m2, offset, count, flag_size, masks, u_start, flags, n_saved, shift):
    """Whether the states of used-masks ``masks`` (flags ``0 .. flags[i] - 1``, ``0 ..
    n_saved - 1`` saved rolls; block offsets ``offset``, lanes ``count``) hold, block by
    block, equal moments ``m1``, ``m2`` (indexed by state index minus ``shift``) in their
    hopeless lanes ``0 .. u_start[i]``. NaN is equal to nothing."""
    n = masks.shape[0]
    bad = np.zeros(n, dtype=np.bool_)
    for i in prange(n):
        used = masks[i]
        for f in range(flags[i]):
            for s in range(n_saved):
                b = offset[used * flag_size + f] + s * count[used] - shift
                for u in range(1, u_start[i] + 1):
                    if m1[b + u] != m1[b] or m2[b + u] != m2[b]:
                        bad[i] = True
    return not bad.any()
