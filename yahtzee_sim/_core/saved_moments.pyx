# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The moments of the points to come under fixed decisions, in a game with saved rolls, in
the compiled core (the same sums in the same order as the numba kernels they replace).

For one turn-start *position* ``(used, upper, flag)`` the strategy's decisions are
``keep[j - 1, r]`` (the keep at roll ``r`` with ``j`` rerolls left; keeping every die
stops and saves the rolls left, at most the cap) and ``cat[b, r]`` (the box of final roll
``r`` when the turn leaves ``b`` rolls saved). The first and second moments of the points
to come, ``E[R]`` and ``E[R²]``, are linear in the moments of the turn's end, so both go
backwards through the turn as the widget's values do (:mod:`yahtzee_sim._core.keep_steps`),
with the strategy's keep in place of the best one. One pass over the rerolls left values
the position with every saved-roll count it can start with: a turn that starts with ``s``
saved rolls has ``rolls - 1 + s`` rerolls after its first roll.

The positions of one used-mask and flag run side by side as the lanes of a *tile*, both
moments in one row (``W[k * 2nu + t]``: lane ``t``'s first moment, ``W[k * 2nu + nu + t]``:
its second), so each keep's mean over its rerolled dice is one pass
(:func:`~yahtzee_sim._core.keep_steps.keep_values`) for every lane and both moments. The
moments of a turn's end are read only where they are needed: every roll with no reroll
left, and with rerolls left only the rolls whose keep stops the turn.

A decision array may hold fewer layers than the rerolls left or fewer banks than the
saved-roll counts: its last row then serves the layers or banks past it.

*Hopeless* lanes — upper totals from which the open upper boxes cannot reach the bonus
any more — lead only to hopeless lanes of the next states, with the same points. When
every used-mask's hopeless lanes of the level above hold equal moments
(:func:`hopeless_lanes_equal`), a hopeless lane whose decisions equal those of the mask's
lane 0 reads equal moments at every turn end, so its moments are lane 0's, copied: the
same bits the lane's own run would give.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.bundle cimport rules_of
from yahtzee_sim._core.keep_steps cimport first_roll_mean, keep_values
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.turn_ends cimport put_turn_end, turn_end_entries

#: Most lanes of a tile: its rows (both moments) and turn-end records stay in a core's cache.
TILE = 32
#: Scratch is allocated once per chunk of tiles, not per tile.
MAX_CHUNKS = 64

cdef enum:
    C_TILE = 32


cdef struct Decisions:
    const int64_t* pos  # n x 3: (used, upper, flag)
    const int16_t* keep  # n x keep_layers x n_rolls
    const int8_t* cat  # n x cat_banks x n_rolls
    int64_t keep_layers
    int64_t cat_banks
    const int64_t* offset  # the layout's block_offset
    const int64_t* count  # the layout's upper_count
    const double* m1  # the next states' moments, by index minus shift
    const double* m2
    int64_t n_m
    int64_t shift


cdef struct Scratch:
    double* W  # n_keeps x 2 * TILE
    double* q  # n_rolls x TILE
    int64_t* nxt
    int64_t* step
    int64_t* kt
    int64_t* stop_r  # n_rolls * TILE
    int64_t* stop_t
    double* top  # n_saved x 2 * TILE


cdef bint new_scratch(const Rules* kr, int64_t n_saved, Scratch* s) noexcept nogil:
    """Allocate :class:`Scratch` for up to :data:`TILE` lanes; False if out of memory."""
    cdef int64_t cells = kr.n_rolls * C_TILE
    s.W = <double*>malloc(kr.n_keeps * 2 * C_TILE * sizeof(double))
    s.q = <double*>malloc(cells * sizeof(double))
    s.nxt = <int64_t*>malloc(cells * sizeof(int64_t))
    s.step = <int64_t*>malloc(cells * sizeof(int64_t))
    s.kt = <int64_t*>malloc(cells * sizeof(int64_t))
    s.stop_r = <int64_t*>malloc(cells * sizeof(int64_t))
    s.stop_t = <int64_t*>malloc(cells * sizeof(int64_t))
    s.top = <double*>malloc(max(n_saved, 1) * 2 * C_TILE * sizeof(double))
    return not (s.W == NULL or s.q == NULL or s.nxt == NULL or s.step == NULL
                or s.kt == NULL or s.stop_r == NULL or s.stop_t == NULL or s.top == NULL)


cdef void free_scratch(Scratch* s) noexcept nogil:
    free(s.W)
    free(s.q)
    free(s.nxt)
    free(s.step)
    free(s.kt)
    free(s.stop_r)
    free(s.stop_t)
    free(s.top)


cdef int64_t layer_keeps(
    const Rules* kr, const Decisions* d, const int64_t* lanes, int64_t nu, int64_t layer,
    Scratch* s,
) noexcept nogil:
    """The keeps of layer ``layer`` of the lanes' positions: ``kt[r * TILE + t]`` (the row
    each roll reads), and the ``(roll, lane)`` pairs that stop the turn (keep every die),
    returned as their number, listed in ``stop_r``, ``stop_t``."""
    cdef int64_t n = 0
    cdef int64_t r, t, kk
    for r in range(kr.n_rolls):
        for t in range(nu):
            kk = d.keep[(lanes[t] * d.keep_layers + layer) * kr.n_rolls + r]
            s.kt[r * C_TILE + t] = kk
            if kr.keep_size[kk] == kr.n_dice:
                s.stop_r[n] = r
                s.stop_t[n] = t
                n += 1
    return n


cdef inline bint put_end(
    const Rules* kr, const Decisions* d, double* W, int64_t r, int64_t t, int64_t nu,
    double q, int64_t i,
) noexcept nogil:
    """:func:`put_turn_end` into roll ``r``'s row of ``W``; False (nothing written) if
    state ``i`` lies outside the next states' moments."""
    if i < 0 or i >= d.n_m:
        return False
    put_turn_end(W + kr.roll_keep_index[r] * 2 * nu, t, nu, q, i, d.m1, d.m2)
    return True


cdef int64_t tile_moments(
    const Rules* kr, const Decisions* d, const int64_t* lanes, int64_t nu, int64_t n_saved,
    Scratch* s,
) noexcept nogil:
    """The moments of the positions ``pos[lanes[t]]`` (one used-mask and flag; ``nu``
    lanes) with ``0 .. n_saved - 1`` saved rolls into ``top[sv * 2nu + t]`` (first moment)
    and ``top[sv * 2nu + nu + t]`` (second). Returns the number of turn ends that fell
    outside the next states' moments (0 for a consistent layout)."""
    cdef const int32_t* rki = kr.roll_keep_index
    cdef int64_t n_layers = kr.rolls - 2 + n_saved
    cdef int64_t cat_bank = -1, keep_layer = -1, n_stop = 0, bad = 0
    cdef int64_t j, b, cb, t, i, r, k, e, layer, kk, sv, nu2 = 2 * nu
    cdef double* W = s.W
    for j in range(n_layers + 1):
        b = min(j, kr.saved_roll_cap)  # rolls saved by stopping now
        cb = min(b, d.cat_banks - 1)
        if cb != cat_bank:
            for t in range(nu):
                i = lanes[t]
                turn_end_entries(
                    kr, d.offset, d.count, d.pos[3 * i], d.pos[3 * i + 1], d.pos[3 * i + 2],
                    d.cat + (i * d.cat_banks + cb) * kr.n_rolls, d.shift, t, C_TILE, s.q,
                    s.nxt, s.step,
                )
            cat_bank = cb
        if j == 0:  # no reroll left: every roll is scored
            for r in range(kr.n_rolls):
                for t in range(nu):
                    e = r * C_TILE + t
                    bad += not put_end(kr, d, W, r, t, nu, s.q[e], s.nxt[e])
        else:
            keep_values(kr, W, nu2)
            layer = min(j - 1, d.keep_layers - 1)
            if layer != keep_layer:
                n_stop = layer_keeps(kr, d, lanes, nu, layer, s)
                keep_layer = layer
            for r in range(kr.n_rolls):  # a stop reads its own row: replaced below
                k = rki[r] * nu2
                for t in range(nu):
                    kk = s.kt[r * C_TILE + t] * nu2
                    W[k + t] = W[kk + t]
                    W[k + nu + t] = W[kk + nu + t]
            for e in range(n_stop):
                r = s.stop_r[e]
                t = s.stop_t[e]
                k = r * C_TILE + t
                bad += not put_end(kr, d, W, r, t, nu, s.q[k], s.nxt[k] + b * s.step[k])
        sv = j - (kr.rolls - 1)
        if 0 <= sv < n_saved:
            first_roll_mean(kr, W, s.top + sv * nu2, nu2)
    return bad


cdef bint same_decisions(const Rules* kr, const Decisions* d, int64_t i, int64_t a) noexcept nogil:
    """Whether positions ``i`` and ``a`` have the same decisions in every row."""
    cdef int64_t nk = d.keep_layers * kr.n_rolls
    cdef int64_t nc = d.cat_banks * kr.n_rolls
    cdef int64_t e
    for e in range(nk):
        if d.keep[i * nk + e] != d.keep[a * nk + e]:
            return False
    for e in range(nc):
        if d.cat[i * nc + e] != d.cat[a * nc + e]:
            return False
    return True


cdef int64_t level_tiles(
    const Rules* kr, const Decisions* d, int64_t n, const int64_t* share, int64_t* copy_of,
    int64_t* order, int64_t* tile_ptr, int64_t* n_order,
) noexcept nogil:
    """Which positions are computed, and in which tiles; returns the number of tiles.

    ``copy_of[i]`` is the position whose moments position ``i`` takes (its mask's lane 0:
    ``i`` is hopeless, ``1 <= upper <= share[i]``, with the same decisions), else -1;
    ``order[tile_ptr[a] : tile_ptr[a + 1]]`` are the computed positions of tile ``a``
    (one used-mask and flag, at most :data:`TILE`); ``n_order[0]`` of them in all."""
    cdef const int64_t* pos = d.pos
    cdef int64_t no = 0, n_tiles = 0, rep = -1, i
    cdef bint new_group
    for i in range(n):
        copy_of[i] = -1
        new_group = i == 0 or pos[3 * i] != pos[3 * i - 3] or pos[3 * i + 2] != pos[3 * i - 1]
        if new_group:
            rep = i if pos[3 * i + 1] == 0 else -1
        elif rep >= 0 and pos[3 * i + 1] <= share[i] and same_decisions(kr, d, i, rep):
            copy_of[i] = rep
            continue
        if new_group or no - tile_ptr[n_tiles - 1] == C_TILE:
            tile_ptr[n_tiles] = no
            n_tiles += 1
        order[no] = i
        no += 1
    tile_ptr[n_tiles] = no
    n_order[0] = no
    return n_tiles


cdef int64_t tile_chunk(
    const Rules* kr, const Decisions* d, int64_t n_saved, const int64_t* order,
    const int64_t* tile_ptr, int64_t n_tiles, int64_t chunk, int64_t n_chunks, double* o1,
    double* o2, int64_t oshift,
) noexcept nogil:
    """The tiles ``chunk, chunk + n_chunks, ...`` of :func:`saved_moments_level`, written
    to ``o1``, ``o2``; returns the turn ends outside the moments (-1: out of memory)."""
    cdef Scratch s
    cdef int64_t a, nu, t, i, used, base, sv, bad = 0
    cdef const int64_t* lanes
    if not new_scratch(kr, n_saved, &s):
        free_scratch(&s)
        return -1
    a = chunk
    while a < n_tiles:
        lanes = order + tile_ptr[a]
        nu = tile_ptr[a + 1] - tile_ptr[a]
        bad += tile_moments(kr, d, lanes, nu, n_saved, &s)
        for t in range(nu):
            i = lanes[t]
            used = d.pos[3 * i]
            base = d.offset[used * kr.flag_size + d.pos[3 * i + 2]] + d.pos[3 * i + 1] - oshift
            for sv in range(n_saved):
                o1[base + sv * d.count[used]] = s.top[sv * 2 * nu + t]
                o2[base + sv * d.count[used]] = s.top[sv * 2 * nu + nu + t]
        a += n_chunks
    free_scratch(&s)
    return bad


cdef void copy_hopeless(
    const Rules* kr, const Decisions* d, int64_t n, const int64_t* copy_of, int64_t n_saved,
    double* o1, double* o2, int64_t oshift,
) noexcept nogil:
    """The moments of the copied positions: those of their mask's lane 0."""
    cdef int64_t i, a, used, base, sv, c
    for i in range(n):
        a = copy_of[i]
        if a >= 0:
            used = d.pos[3 * i]
            base = d.offset[used * kr.flag_size + d.pos[3 * i + 2]] - oshift
            for sv in range(n_saved):
                c = base + sv * d.count[used]
                o1[c + d.pos[3 * i + 1]] = o1[c + d.pos[3 * a + 1]]
                o2[c + d.pos[3 * i + 1]] = o2[c + d.pos[3 * a + 1]]


cdef Decisions read_decisions(Rules r, offset, count, pos, keep, cat, m1, m2, int64_t shift):
    """The C view of a level's positions and decisions, checked (``ValueError``)."""
    cdef Decisions d
    cdef const int64_t[::1] off = offset
    cdef const int64_t[::1] cnt = count
    cdef const int64_t[:, ::1] p = pos
    cdef const int16_t[:, :, ::1] k = keep
    cdef const int8_t[:, :, ::1] c = cat
    cdef const double[::1] a1 = m1
    cdef const double[::1] a2 = m2
    n = p.shape[0]
    if off.shape[0] < (r.flag_size << r.n_boxes) or cnt.shape[0] < (1 << r.n_boxes):
        raise ValueError("offset and count must cover every used-mask (and flag)")
    if p.shape[1] != 3:
        raise ValueError("pos must have 3 columns (used, upper, flag)")
    if k.shape[0] != n or c.shape[0] != n or k.shape[1] < 1 or c.shape[1] < 1:
        raise ValueError(f"keep and cat must have one row per position ({n}), a layer or more")
    if k.shape[2] != r.n_rolls or c.shape[2] != r.n_rolls:
        raise ValueError(f"keep and cat must have one column per roll ({r.n_rolls})")
    if k.shape[0] and (np.asarray(keep).min() < 0 or np.asarray(keep).max() >= r.n_keeps):
        raise ValueError(f"keep indices must lie in 0..{r.n_keeps - 1}")
    if n and (np.asarray(pos[:, 0]).min() < 0 or np.asarray(pos[:, 0]).max() >= (1 << r.n_boxes)
              or np.asarray(pos[:, 2]).min() < 0 or np.asarray(pos[:, 2]).max() >= r.flag_size):
        raise ValueError("pos must hold used-masks and flags of the rules")
    if a1.shape[0] < 1 or a2.shape[0] != a1.shape[0]:
        raise ValueError("m1 and m2 must have the same length, at least 1")
    d.pos = &p[0, 0] if n else NULL
    d.keep = &k[0, 0, 0] if n else NULL
    d.cat = &c[0, 0, 0] if n else NULL
    d.keep_layers = k.shape[1]
    d.cat_banks = c.shape[1]
    d.offset = &off[0]
    d.count = &cnt[0]
    d.m1 = &a1[0]
    d.m2 = &a2[0]
    d.n_m = a1.shape[0]
    d.shift = shift
    return d


cdef check_outputs(Rules r, offset, count, pos, int64_t n_saved, o1, o2, int64_t oshift):
    """Refuse outputs that do not hold every position's states (``ValueError``)."""
    if o1.shape[0] != o2.shape[0]:
        raise ValueError("o1 and o2 must have the same length")
    if len(pos) == 0:
        return
    used = pos[:, 0]
    base = offset[used * r.flag_size + pos[:, 2]] + pos[:, 1] - oshift
    last = base + (n_saved - 1) * count[used]
    if pos[:, 1].min() < 0 or (pos[:, 1] >= count[used]).any():
        raise ValueError("pos must hold upper totals within their mask's lanes")
    if base.min() < 0 or last.max() >= o1.shape[0]:
        raise ValueError(f"o1 and o2 must hold every state of the positions (minus {oshift})")


def saved_moments_level(
    kr, offset, count, pos, int64_t n_saved, keep, cat, share, m1, m2, int64_t shift,
    double[::1] o1, double[::1] o2, int64_t oshift, int n_threads=1,
):
    """E[R], E[R²] of the states of positions ``pos[i] = (used, upper, flag)`` with ``0 ..
    n_saved - 1`` saved rolls, tiles of lanes in parallel (the values do not depend on
    ``n_threads``).

    Parameters
    ----------
    kr : KernelRules
        The rules (a game with saved rolls).
    offset, count : ndarray of int64
        The layout's ``block_offset`` and ``upper_count``.
    pos : ndarray of int64, shape (n, 3)
        The positions, sorted by used-mask, then flag, then upper total.
    n_saved : int
        The saved-roll counts a turn of this level can start with.
    keep : ndarray of int16, shape (n, layers, n_rolls)
        ``keep[i, j - 1, r]``: the keep at roll ``r`` with ``j`` rerolls left (the last
        layer serving the layers past it).
    cat : ndarray of int8, shape (n, banks, n_rolls)
        ``cat[i, b, r]``: the box of final roll ``r`` with ``b`` rolls saved (the last
        bank serving the counts past it).
    share : ndarray of int64, shape (n,)
        The highest hopeless upper total of position ``i``'s mask when the level above
        holds equal moments in every mask's hopeless lanes, else -1 (nothing copied).
    m1, m2 : ndarray of float64
        The next level's moments, indexed by state index minus ``shift`` (never empty).
    shift : int
        The index of ``m1[0]``.
    o1, o2 : ndarray of float64
        Written: the moments, indexed by state index minus ``oshift``.
    oshift : int
        The index of ``o1[0]``.
    n_threads : int
        Threads to run on.

    Returns
    -------
    int
        The number of positions computed (the others copied).
    """
    cdef Rules r = rules_of(kr)
    pos = np.asarray(pos)
    offset, count, share = np.asarray(offset), np.asarray(count), np.asarray(share)
    cdef Decisions d = read_decisions(r, offset, count, pos, keep, cat, m1, m2, shift)
    cdef const int64_t[::1] sh = share
    cdef int64_t n = pos.shape[0]
    if sh.shape[0] != n:
        raise ValueError("share must have one entry per position")
    if n_saved < 1:
        raise ValueError(f"n_saved must be at least 1, got {n_saved}")
    check_outputs(r, offset, count, pos, n_saved, o1, o2, oshift)
    if n == 0:
        return 0
    return run_tiles(&r, &d, n, &sh[0], n_saved, o1, o2, oshift, n_threads)


cdef int64_t run_tiles(
    const Rules* r, const Decisions* d, int64_t n, const int64_t* share, int64_t n_saved,
    double[::1] o1, double[::1] o2, int64_t oshift, int n_threads,
) except -1:
    """The body of :func:`saved_moments_level`: the tiles in parallel, then the copies;
    returns the positions computed."""
    cdef int64_t[::1] cp = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] od = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] tp = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t n_order = 0, n_tiles, n_chunks, got
    cdef Py_ssize_t chunk
    cdef int64_t bad = 0, failed = 0
    n_tiles = level_tiles(r, d, n, share, &cp[0], &od[0], &tp[0], &n_order)
    n_chunks = min(n_tiles, MAX_CHUNKS)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            got = tile_chunk(r, d, n_saved, &od[0], &tp[0], n_tiles, chunk, n_chunks,
                             &o1[0], &o2[0], oshift)
            if got < 0:
                failed += 1
            else:
                bad += got
    if failed:
        raise MemoryError("saved_moments_level: out of memory for its scratch")
    if bad:
        raise ValueError("the next states' moments m1, m2 do not hold every state reached")
    with nogil:
        copy_hopeless(r, d, n, &cp[0], n_saved, &o1[0], &o2[0], oshift)
    return n_order


cdef check_masks(m1, m2, offset, count, int64_t flag_size, masks, u_start, flags):
    """Refuse masks and flags outside the layout (``ValueError``)."""
    masks, flags = np.asarray(masks), np.asarray(flags)
    n = len(masks)
    if len(u_start) != n or len(flags) != n or len(m2) != len(m1):
        raise ValueError("masks, u_start and flags must match, m1 and m2 too")
    if n and (masks.min() < 0 or flags.min() < 0 or flags.max() > flag_size
              or (masks.max() + 1) * flag_size > len(offset) or masks.max() >= len(count)):
        raise ValueError("masks and flags must lie within offset and count")


def hopeless_lanes_equal(
    const double[::1] m1, const double[::1] m2, const int64_t[::1] offset,
    const int64_t[::1] count, int64_t flag_size, const int64_t[::1] masks,
    const int64_t[::1] u_start, const int64_t[::1] flags, int64_t n_saved, int64_t shift,
    int n_threads=1,
):
    """Whether the states of used-masks ``masks`` hold, block by block, equal moments in
    their hopeless lanes ``0 .. u_start[i]`` (masks in parallel). NaN is equal to nothing.

    Parameters
    ----------
    m1, m2 : ndarray of float64
        The moments, indexed by state index minus ``shift``.
    offset, count : ndarray of int64
        The layout's ``block_offset`` and ``upper_count``.
    flag_size : int
        The rules' flag count.
    masks, u_start, flags : ndarray of int64, shape (n,)
        The used-masks, their highest hopeless upper totals and their flags ``0 ..
        flags[i] - 1``.
    n_saved : int
        Saved-roll counts ``0 .. n_saved - 1``.
    shift : int
        The index of ``m1[0]``.
    n_threads : int
        Threads to run on.

    Returns
    -------
    bool
    """
    cdef int64_t n = masks.shape[0]
    cdef int64_t n_m = m1.shape[0]
    cdef Py_ssize_t i
    cdef int64_t f, sv, u, b, used
    check_masks(m1, m2, offset, count, flag_size, masks, u_start, flags)
    if n == 0:
        return True
    bad_array = np.zeros(n, dtype=np.int8)
    cdef int8_t[::1] bad = bad_array
    for i in prange(n, nogil=True, num_threads=max(n_threads, 1), schedule="dynamic"):
        used = masks[i]
        for f in range(flags[i]):
            for sv in range(n_saved):
                b = offset[used * flag_size + f] + sv * count[used] - shift
                if u_start[i] >= 1 and (b < 0 or b + u_start[i] >= n_m):
                    bad[i] = 2
                    break
                for u in range(1, u_start[i] + 1):
                    if m1[b + u] != m1[b] or m2[b + u] != m2[b]:
                        if bad[i] == 0:
                            bad[i] = 1
    if (bad_array == 2).any():
        raise ValueError("m1 and m2 must hold every state of the masks' hopeless lanes")
    return not bad_array.any()
