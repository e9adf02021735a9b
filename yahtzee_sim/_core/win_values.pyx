# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Win values in the compiled core: the probability of winning a visible match from the state
each box leads to, and one turn of the widget per game against those values (the decisions
of the win-seeking strategies ``win-aware`` and ``win-target``,
:mod:`yahtzee_sim.strategies.win_seeking_visible`); games run as the lanes of the batched
tiles (:mod:`yahtzee_sim._core.batched`), tiles in parallel.

For ``win-aware`` (:func:`win_aware_decisions`) a box's value is P(win) (ties split) with
every player's remaining score normal (the mean and SD of max-EV play from the state it
leads to); for ``win-target`` (:func:`win_reach_decisions`) the best chance of beating each
possible best final of the opponents (nodes of :func:`.win_nodes.best_final_nodes`; the
chance from the target-score table, :func:`beat_probability`). Both add ``EV_TIE_BREAK``
times the expected final score. The same arithmetic, in the same order, as the numba
kernels they replaced: the same values bit for bit.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, floor, sqrt
from libc.stdint cimport int8_t, int16_t, int64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.batched cimport (
    TILE,
    Decisions,
    check_decisions,
    check_states,
    solve_tile,
    tile_plan,
    tile_width,
)
from yahtzee_sim._core.box_step cimport mask_used_boxes
from yahtzee_sim._core.bundle cimport RulesView, view_of
from yahtzee_sim._core.rules cimport Rules, bonus_roll, open_slot_range, scored_state
from yahtzee_sim._core.win_nodes cimport Cdf, cdf_tables, phi_of
from yahtzee_sim._core.work cimport Work, free_work, new_work

from yahtzee_sim._kernels.win_values import EV_TIE_BREAK

cdef double ev_tie_break = EV_TIE_BREAK

cdef enum:
    WIN_AWARE = 0
    WIN_TARGET = 1

cdef struct Aware:  # the inputs of win_aware_decisions, per game i unless said
    const int64_t* used
    const int64_t* upper
    const int64_t* flag
    const int64_t* score
    const double* mean  # per state: max-EV play's mean points to come
    const double* sd  # and their SD
    const int64_t* fin_best  # finished opponents' best total (if fin_ties > 0)
    const int64_t* fin_ties
    const double* um  # games x width: each unfinished opponent's mean final
    const double* usd  # and its SD
    const int64_t* n_unf
    int64_t width
    const double* gh_x  # Gauss-Hermite nodes and weights (summing to 1)
    const double* gh_w
    int64_t n_gh
    Cdf cdf  # the normal CDF's table

cdef struct Reach:  # the inputs of win_reach_decisions
    const int64_t* used
    const int64_t* upper
    const int64_t* flag
    const int64_t* score
    const int64_t* fin_best
    const int64_t* fin_ties
    const double* probs  # the target table: row offset[s], length[s] lanes
    const int64_t* offset
    const int64_t* length
    const double* mean
    const int64_t* ptr  # game i's nodes: x[ptr[i] : ptr[i] + count[i]]
    const double* x
    const double* w
    const double* below
    const int64_t* count

cdef struct Rival:  # the opponents' best final of one game
    const double* x  # nodes, ascending
    const double* w  # weights
    const double* below  # the weight of the nodes before each
    int64_t n
    double tie_at  # the total of several finished opponents (else -inf)
    double tie_share  # a tie's share of the win there


cdef inline double win_share(
    const Cdf* cdf, double x, int64_t fin_best, int64_t fin_ties, const double* um,
    const double* usd, int64_t n_unf,
) noexcept nogil:
    """Expected share of the win with final score ``x``: finished opponents' best total
    ``fin_best`` held by ``fin_ties`` of them (0: none finished; a tie splits the win),
    times P(beating) each opponent still playing (normal with mean ``um[k]``, SD ``usd[k]``;
    ties count half)."""
    cdef double g = 1.0
    cdef int64_t xr, k
    if fin_ties > 0:  # finished opponents
        xr = <int64_t>floor(x + 0.5)
        if xr < fin_best:
            return 0.0
        if xr == fin_best:
            g = 1.0 / <double>(fin_ties + 1)
    for k in range(n_unf):
        if usd[k] > 0.0:
            g *= phi_of(cdf, (x - um[k]) / usd[k])
        elif x < um[k]:  # a future without spread: a known final score
            return 0.0
        elif x == um[k]:
            g *= 0.5
    return g


cdef inline double win_value(
    const Aware* a, int64_t i, double base, double mu, double sd
) noexcept nogil:
    """P(win) of game ``i`` when this player's final score is ``base`` + a normal (``mu``,
    ``sd``): exact for ``sd = 0``, closed form against one opponent still playing, else
    Gauss-Hermite quadrature."""
    cdef const double* um = a.um + i * a.width
    cdef const double* usd = a.usd + i * a.width
    cdef int64_t fb = a.fin_best[i]
    cdef int64_t ft = a.fin_ties[i]
    cdef int64_t n_unf = a.n_unf[i]
    cdef double acc = 0.0
    cdef int64_t j
    if sd == 0.0:
        return win_share(&a.cdf, base + mu, fb, ft, um, usd, n_unf)
    if ft == 0 and n_unf == 1:
        return phi_of(&a.cdf, (base + mu - um[0]) / sqrt(sd * sd + usd[0] * usd[0]))
    for j in range(a.n_gh):
        acc += a.gh_w[j] * win_share(
            &a.cdf, base + mu + sd * a.gh_x[j], fb, ft, um, usd, n_unf
        )
    return acc


cdef void fill_win_values(
    const Rules* kr, const Aware* a, int64_t i, int64_t t, int64_t nu, double* val,
    double* val_bonus,
) noexcept nogil:
    """Lane ``t`` (game ``i``): ``val[s * nu + t]`` = P(win) after writing the points of slot
    ``s`` in its box, plus the tie-break; ``val_bonus`` the same when the roll also earns
    the Yahtzee bonus (filled when the state's rolls can earn it; the flag moves under a
    bonus limit)."""
    cdef int64_t used = a.used[i]
    cdef int64_t upper = a.upper[i]
    cdef int64_t flag = a.flag[i]
    cdef int64_t score = a.score[i]
    cdef int64_t bonus_flag, c, lo, hi, s, p, s2, bonus
    cdef bint earns = bonus_roll(kr, flag, &bonus_flag)
    cdef double base, v
    for c in range(kr.n_boxes):
        open_slot_range(kr.slot_ptr, used, c, &lo, &hi)
        for s in range(lo, hi):
            p = kr.slot_points[s]
            s2 = scored_state(kr, used, upper, flag, c, p, &bonus)
            base = <double>(score + p + bonus)
            val[s * nu + t] = win_value(a, i, base, a.mean[s2], a.sd[s2])
            val[s * nu + t] += ev_tie_break * (base + a.mean[s2])
            if earns:
                s2 = scored_state(kr, used, upper, bonus_flag, c, p, &bonus)
                base = <double>(score + p + bonus + kr.yahtzee_bonus)
                v = win_value(a, i, base, a.mean[s2], a.sd[s2])
                val_bonus[s * nu + t] = v + ev_tie_break * (base + a.mean[s2])


cdef inline int64_t search_right(const double* x, int64_t n, double value) noexcept nogil:
    """The first ``j`` with ``x[j] > value`` (``x`` ascending; ``np.searchsorted``,
    ``side="right"``)."""
    cdef int64_t lo = 0
    cdef int64_t hi = n
    cdef int64_t mid
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if value < x[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline double beat(
    const double* probs, int64_t o, int64_t n, const Rival* rv, double base
) noexcept nogil:
    """:func:`beat_probability` of a :class:`Rival`."""
    cdef int64_t j0 = search_right(rv.x, rv.n, base - 0.5) if rv.n > 16 else 0
    cdef double v = rv.below[j0] if j0 < rv.n else 1.0
    cdef double need, a, b
    cdef int64_t j, k
    for j in range(j0, rv.n):
        need = rv.x[j] - base + ((1.0 - rv.tie_share) if rv.x[j] == rv.tie_at else 0.5)
        if need <= 0.0:
            v += rv.w[j]
            continue
        if need >= n:
            break
        k = <int64_t>need
        a = probs[o + k]
        b = probs[o + k + 1] if k + 1 < n else 0.0
        v += rv.w[j] * (a + (need - k) * (b - a))
    return v


def beat_probability(probs, int64_t o, int64_t n, rival, double base):
    """P(win) from the target-table row at offset ``o`` with ``n`` lanes (``row[t]`` = the
    largest probability of scoring at least ``t`` more) with ``base`` points now, against
    the opponents' best final.

    Against a node ``x`` the player wins with more than ``x - base`` more points and ties
    with exactly that many; a tie counts half, except at ``tie_at`` where it counts
    ``tie_share``. A node is worth ``row[k] + (1 - share) * (row[k + 1] - row[k])`` with
    ``k = x - base`` (interpolated between integers); nodes at or below ``base - 0.5`` are
    beaten for sure, those from ``base + n - 0.5`` on never.

    Parameters
    ----------
    probs : numpy.ndarray
        The target table's values.
    o, n : int
        The row's offset and length.
    rival : tuple
        ``(x, w, below, tie_at, tie_share)``: nodes ``x`` (ascending), weights ``w``,
        ``below[j]`` the weight of the nodes before ``j``; the tie's total and share.
    base : float
        Points now.

    Returns
    -------
    float
        P(win).
    """
    cdef const double[::1] p = probs
    cdef const double[::1] x = rival[0], w = rival[1], below = rival[2]
    cdef Rival rv
    rv.x = rv.w = rv.below = NULL
    if o < 0 or n < 0 or o + n > p.shape[0]:
        raise ValueError(f"the row {o} .. {o + n - 1} is outside probs")
    if w.shape[0] != x.shape[0] or below.shape[0] != x.shape[0]:
        raise ValueError("x, w and below must have one entry per node")
    rv.n = x.shape[0]
    if rv.n:
        rv.x, rv.w, rv.below = &x[0], &w[0], &below[0]
    rv.tie_at, rv.tie_share = rival[3], rival[4]
    return beat(&p[0] if p.shape[0] else NULL, o, n, &rv, base)


cdef void fill_reach_values(
    const Rules* kr, const Reach* a, int64_t i, const Rival* rv, int64_t t, int64_t nu,
    double* val, double* val_bonus,
) noexcept nogil:
    """Lane ``t`` (game ``i``): ``val[s * nu + t]`` = P(win) after writing the points of slot
    ``s`` (:func:`beat` from the state reached against ``rv``) plus the tie-break;
    ``val_bonus`` as in :func:`fill_win_values`."""
    cdef int64_t used = a.used[i]
    cdef int64_t upper = a.upper[i]
    cdef int64_t flag = a.flag[i]
    cdef int64_t score = a.score[i]
    cdef int64_t bonus_flag, c, lo, hi, s, p, b, f, s2, bonus
    cdef bint earns = bonus_roll(kr, flag, &bonus_flag)
    cdef double base, v
    for c in range(kr.n_boxes):
        open_slot_range(kr.slot_ptr, used, c, &lo, &hi)
        for s in range(lo, hi):
            p = kr.slot_points[s]
            for b in range(2 if earns else 1):
                f = bonus_flag if b else flag
                s2 = scored_state(kr, used, upper, f, c, p, &bonus)
                base = <double>(score + p + bonus + b * kr.yahtzee_bonus)
                v = beat(a.probs, a.offset[s2], a.length[s2], rv, base)
                v += ev_tie_break * (base + a.mean[s2])
                if b:
                    val_bonus[s * nu + t] = v
                else:
                    val[s * nu + t] = v


cdef void fill_tile(
    int kind, const Rules* kr, const void* inputs, const int64_t* rows, int64_t nu, Work* work
) noexcept nogil:
    """The box values of a tile's games ``rows`` (lane ``t``: game ``rows[t]``) by the fill
    of ``kind`` (``WIN_AWARE``: an :class:`Aware`, ``WIN_TARGET``: a :class:`Reach`), filled
    boxes ``NEG``."""
    cdef const Aware* aware = <const Aware*>inputs
    cdef const Reach* reach = <const Reach*>inputs
    cdef Rival rv
    cdef int64_t t, i, lo, ft
    for t in range(nu):
        i = rows[t]
        if kind == WIN_AWARE:
            fill_win_values(kr, aware, i, t, nu, work.val, work.val_bonus)
            mask_used_boxes(kr, aware.used[i], t, work.val, nu)
            continue
        lo = reach.ptr[i]
        ft = reach.fin_ties[i]
        rv.x, rv.w, rv.below, rv.n = reach.x + lo, reach.w + lo, reach.below + lo, reach.count[i]
        rv.tie_at = <double>reach.fin_best[i] if ft > 1 else -INFINITY
        rv.tie_share = 1.0 / <double>(ft + 1)
        fill_reach_values(kr, reach, i, &rv, t, nu, work.val, work.val_bonus)
        mask_used_boxes(kr, reach.used[i], t, work.val, nu)


cdef bint valued_chunk(
    int kind, const Rules* kr, const int64_t* order, int64_t n, const int64_t* used,
    const int64_t* flag, const void* inputs, Decisions* out, int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The tiles ``chunk, chunk + n_chunks, ...`` of games ``order`` (``n`` of them), box
    values by :func:`fill_tile`; False if out of memory."""
    cdef Work work
    cdef int64_t tu[TILE]
    cdef int64_t tf[TILE]
    cdef int64_t n_tiles, unused, k, nu
    cdef bint ok = new_work(kr, TILE, 1, &work)
    tile_plan(n, &n_tiles, &unused)
    k = chunk
    while ok and k < n_tiles:
        nu = tile_width(n, k)
        fill_tile(kind, kr, inputs, order + k * TILE, nu, &work)
        solve_tile(kr, used, flag, order + k * TILE, nu, k, &work, tu, tf, out, True)
        k += n_chunks
    free_work(&work)
    return ok


cdef valued_tiles(
    int kind, Rules r, const int64_t[::1] order, const int64_t[::1] used,
    const int64_t[::1] flag, const void* inputs, keep_out, cat_out, int n_threads,
):
    """The tile loop of the win-seeking kernels: games ``i = order[p]`` run ``TILE`` at a
    time as the lanes of :func:`.widget.widget_mixed`, tiles in parallel; their decisions
    written in rows ``p`` of ``keep_out``, ``cat_out`` (:func:`.batched.decision_buffers`)."""
    cdef int16_t[:, :, :, ::1] keep = keep_out
    cdef int8_t[:, :, ::1] cat = cat_out
    cdef Decisions out
    cdef int64_t n = order.shape[0]
    cdef int64_t n_tiles, n_chunks, chunk
    cdef int failed = 0
    check_decisions(r, order, used.shape[0], keep_out, cat_out)
    if n == 0:
        return
    out.keep, out.cat, out.layers = &keep[0, 0, 0, 0], &cat[0, 0, 0], keep.shape[1]
    tile_plan(n, &n_tiles, &n_chunks)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not valued_chunk(
                kind, &r, &order[0], n, &used[0], &flag[0], inputs, &out, chunk, n_chunks
            ):
                failed += 1
    if failed:
        raise MemoryError("win values: out of memory for the widget's work buffers")


def win_aware_decisions(
    kr, order, used, upper, flag, score, mean, sd, fin_best, fin_ties, um, usd, n_unf,
    gh_x, gh_w, keep_out, cat_out, int n_threads=1,
):
    """Win-aware decisions of games ``i = order[p]`` at every roll of their turn, in row
    ``p`` of :func:`.batched.decision_buffers`, on ``n_threads`` threads (the decisions do
    not depend on it).

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules (a game without saved rolls).
    order : numpy.ndarray
        int64, the games in the order they run (:func:`.batched.lane_order`).
    used, upper, flag, score : numpy.ndarray
        int64 per game: the player's turn-start state and points so far.
    mean, sd : numpy.ndarray
        float64 per state: the mean and SD of max-EV play's points to come.
    fin_best, fin_ties : numpy.ndarray
        int64 per game: the finished opponents' best total and how many hold it (0: none).
    um, usd : numpy.ndarray
        float64 ``(games, k)``: the mean and SD of each unfinished opponent's final score
        (the first ``n_unf[i]`` of row ``i``).
    n_unf : numpy.ndarray
        int64 per game: the opponents still playing.
    gh_x, gh_w : numpy.ndarray
        Gauss-Hermite nodes and weights (summing to 1).
    keep_out, cat_out : numpy.ndarray
        The outputs (:func:`.batched.decision_buffers`).
    n_threads : int
        Threads.

    Returns
    -------
    None
    """
    cdef RulesView v = view_of(kr)
    cdef Rules r = v.rules
    cdef const int64_t[::1] o = order, u = used, up = upper, f = flag, sc = score
    cdef const int64_t[::1] fb = fin_best, ft = fin_ties, nu = n_unf
    cdef const double[::1] m = mean, s = sd, x = gh_x, w = gh_w
    cdef const double[:, ::1] a_um = um, a_usd = usd
    cdef Aware a
    n = u.shape[0]
    check_states(r, used, upper, flag)
    check_aware(r, n, m.shape[0], s.shape[0], score, fin_best, fin_ties, um, usd, n_unf, x, w)
    if n == 0 or o.shape[0] == 0:
        return valued_tiles(WIN_AWARE, r, o, u, f, NULL, keep_out, cat_out, n_threads)
    a.used, a.upper, a.flag, a.score = &u[0], &up[0], &f[0], &sc[0]
    a.mean, a.sd, a.fin_best, a.fin_ties, a.n_unf = &m[0], &s[0], &fb[0], &ft[0], &nu[0]
    a.width, a.n_gh, a.cdf = um.shape[1], x.shape[0], cdf_tables()
    a.um = a.usd = a.gh_x = a.gh_w = NULL
    if a.width:
        a.um, a.usd = &a_um[0, 0], &a_usd[0, 0]
    if a.n_gh:
        a.gh_x, a.gh_w = &x[0], &w[0]
    valued_tiles(WIN_AWARE, r, o, u, f, &a, keep_out, cat_out, n_threads)


cdef check_aware(
    Rules r, int64_t n, int64_t n_mean, int64_t n_sd, score, fin_best, fin_ties, um, usd, n_unf,
    gh_x, gh_w,
):
    """Refuse inputs :func:`win_aware_decisions` does not take (``ValueError``)."""
    if r.saving or n_mean < r.n_states or n_sd < r.n_states:
        raise ValueError("mean and sd must hold every state of a game without saved rolls")
    if any(len(b) != n for b in (score, fin_best, fin_ties, n_unf, um, usd)):
        raise ValueError("score and the opponents' arrays must have one entry per game")
    if tuple(um.shape) != tuple(usd.shape) or len(gh_x) != len(gh_w):
        raise ValueError("um and usd, gh_x and gh_w must have the same shapes")
    if n and (np.min(n_unf) < 0 or np.max(n_unf) > um.shape[1]):
        raise ValueError(f"n_unf must lie in 0 .. {um.shape[1]}")


cdef check_reach(Rules r, int64_t n, mine, finished, target, int64_t n_mean, nodes):
    """Refuse inputs :func:`win_reach_decisions` does not take (``ValueError``)."""
    ptr, count = np.asarray(nodes[0]), np.asarray(nodes[4])
    room = min(len(nodes[1]), len(nodes[2]), len(nodes[3]))
    if r.saving or min(len(target[1]), len(target[2]), n_mean) < r.n_states:
        raise ValueError("the target table and mean must hold every state (no saved rolls)")
    if any(len(b) != n for b in (mine[3], *finished, count)) or len(ptr) < n:
        raise ValueError("the games' arrays must have one entry per game")
    if n and (ptr[:n].min() < 0 or (ptr[:n] + count).max() > room):
        raise ValueError("every game's nodes must lie in x, w and below")
    if n and len(target[0]) == 0:
        raise ValueError("the target table is empty")


def win_reach_decisions(
    kr, order, mine, finished, target, mean, nodes, keep_out, cat_out, int n_threads=1
):
    """Decisions of win-target for games ``i = order[p]`` (row ``p`` of
    :func:`.batched.decision_buffers`), on ``n_threads`` threads (the decisions do not
    depend on it): boxes valued by the chance of beating the opponents' best final from the
    target table, a tie with ``fin_ties[i]`` finished opponents at their total
    ``fin_best[i]`` sharing the win evenly, plus the max-EV tie-break.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules (a game without saved rolls).
    order : numpy.ndarray
        int64, the games in the order they run (:func:`.batched.lane_order`).
    mine : tuple
        ``(used, upper, flag, score)``: int64 per game.
    finished : tuple
        ``(fin_best, fin_ties)``: int64 per game.
    target : tuple
        ``(probs, offset, length)``: the target table (a row per state).
    mean : numpy.ndarray
        float64 per state: max-EV play's mean points to come.
    nodes : tuple
        ``(ptr, x, w, below, count)`` of :func:`.win_nodes.best_final_nodes`.
    keep_out, cat_out : numpy.ndarray
        The outputs (:func:`.batched.decision_buffers`).
    n_threads : int
        Threads.

    Returns
    -------
    None
    """
    cdef RulesView v = view_of(kr)
    cdef Rules r = v.rules
    cdef const int64_t[::1] o = order, u = mine[0], up = mine[1], f = mine[2], sc = mine[3]
    cdef const int64_t[::1] fb = finished[0], ft = finished[1]
    cdef const double[::1] probs = target[0], m = mean
    cdef const int64_t[::1] offset = target[1], length = target[2]
    cdef const int64_t[::1] ptr = nodes[0], count = nodes[4]
    cdef const double[::1] x = nodes[1], w = nodes[2], below = nodes[3]
    cdef Reach a
    n = u.shape[0]
    check_states(r, mine[0], mine[1], mine[2])
    check_reach(r, n, mine, finished, target, m.shape[0], nodes)
    if n == 0 or o.shape[0] == 0:
        return valued_tiles(WIN_TARGET, r, o, u, f, NULL, keep_out, cat_out, n_threads)
    a.used, a.upper, a.flag, a.score = &u[0], &up[0], &f[0], &sc[0]
    a.fin_best, a.fin_ties, a.mean = &fb[0], &ft[0], &m[0]
    a.probs, a.offset, a.length = &probs[0], &offset[0], &length[0]
    a.ptr, a.count = &ptr[0], &count[0]
    a.x = a.w = a.below = NULL
    if x.shape[0]:
        a.x, a.w, a.below = &x[0], &w[0], &below[0]
    valued_tiles(WIN_TARGET, r, o, u, f, &a, keep_out, cat_out, n_threads)
