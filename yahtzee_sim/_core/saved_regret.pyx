# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernel of regret on games with saved rolls in the compiled core: reach and losses of one
level's positions (:func:`saved_level_regret`), and the reach they push on
(:func:`scatter_reach`).

For one turn-start *position* ``(used, upper, flag)`` the strategy's decisions are
``keep[j - 1, r]`` and ``cat[b, r]`` as in the moments kernel
(:mod:`yahtzee_sim._core.saved_moments`: a turn that starts with ``s`` saved rolls has
``rolls - 1 + s`` rerolls after its first roll; keeping every die with ``j`` rerolls left
stops and saves ``min(j, cap)`` rolls). The probability of each roll at each number of
rerolls left does not depend on the saved rolls the turn started with once the turn has
that many rerolls left, so the reach of every saved-roll count of a position is pushed
through the turn together, the mass of a turn that starts with ``s`` saved rolls entering
at ``rolls - 1 + s`` rerolls left.

Every decision point is charged ``mass × loss`` against optimal play, from the recording
widget of its position (:mod:`yahtzee_sim._core.widget`: ``roll_vals[j, r]`` the optimal
value of roll ``r`` with ``j`` rerolls left, ``keep_vals[j, k]`` that of keep ``k``) and
the box values with ``b`` rolls saved (:func:`~yahtzee_sim._core.box_step.box_step` with
``saved = b``: the best box ``S``). With ``V = roll_vals[j, r]`` and ``K`` the best keep
that rolls on:

* the strategy stops: *stop* loss ``V − S`` (rolling on was better by that much), then
  the *box* loss of its box against the best one with ``min(j, cap)`` rolls saved;
* it rolls on with keep ``k``: *stop* loss ``S − K`` when stopping is best (``V = S``),
  and the *keep* loss ``K − keep_vals[j, k]``.

The losses of a turn thus add up to ``V − (the value of the strategy's moves)``, and over
the game to the optimal value minus the strategy's mean.

Kinds of loss (columns of ``loss``): 0 the box, ``j = 1 .. levels - 1`` the keep with ``j``
rerolls left, ``levels`` the stop.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int64_t

from yahtzee_sim._core.box_loss cimport box_loss
from yahtzee_sim._core.box_step cimport box_step
from yahtzee_sim._core.bundle cimport lanes_of, rules_of
from yahtzee_sim._core.lanes cimport LANES_UPPER, LaneTable
from yahtzee_sim._core.outcome_table cimport OutcomeTable, add_outcome, merge_outcomes
from yahtzee_sim._core.reach cimport reach_layer
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.saved_regret cimport (
    Level,
    Out,
    Scratch,
    best_reroll,
    charge,
    free_scratch,
    group_lanes,
    lane_table,
    new_scratch,
    widget_lane,
)
from yahtzee_sim._core.turn_ends cimport turn_end_entries
from yahtzee_sim._core.widget cimport widget
from yahtzee_sim._core.work cimport Work, free_work, new_work


cdef void turn_end(
    const Rules* kr, const Work* work, int64_t nu, int64_t used, int64_t flag,
    const Scratch* sc, int64_t u, int64_t tw, int64_t r, int64_t j, int64_t bank, int64_t c,
    double mass, const Out* o, int64_t i,
) noexcept nogil:
    """Roll ``r`` of position ``i`` (the group's ``u``-th, widget lane ``tw``) scored in box
    ``c`` with ``bank`` rolls saved (``j`` rerolls left): the box loss, the points and the
    next state's mass, added to the position's outcome table. A box outside the sheet is
    not charged (its points are NaN: the caller refuses the strategy)."""
    cdef int64_t n_keeps = kr.n_keeps
    cdef int64_t e = r * sc.max_nu + u
    cdef double S, d
    cdef OutcomeTable lane
    if 0 <= c < kr.n_boxes:
        S = work.B[kr.roll_keep_index[r] * nu + tw]
        d = box_loss(kr, used, flag, work.val, NULL, nu, work.slots, r, tw, c, S)
        if d > 0.0:
            o.by_cat[i * kr.n_boxes + c] += mass * d
            charge(o, i, 0, mass, d, r, j,
                   n_keeps + work.cat_levels[(j * kr.n_rolls + r) * nu + tw], n_keeps + c)
    o.points[i] += mass * sc.q[e]
    if sc.q[e] == sc.q[e]:  # a legal box (NaN: the points are NaN, an error)
        lane = lane_table(sc, u)
        add_outcome(&lane, sc.nxt[e] + bank * sc.step[e], mass)


cdef void layer_charges(
    const Rules* kr, const Work* work, int64_t nu, int64_t used, int64_t flag,
    const Scratch* sc, int64_t u, int64_t tw, int64_t j, int64_t bank,
    const int16_t* keep_row, const int8_t* cat_row, const Out* o, int64_t i,
) noexcept nogil:
    """The decisions of position ``i`` (the group's ``u``-th, widget lane ``tw``) at ``j``
    rerolls left (``j >= 1``): losses charged, stops scored, its roll law ``p`` left
    holding the mass of the rolls that roll on."""
    cdef int64_t n_keeps = kr.n_keeps
    cdef int64_t rolls_nu = kr.n_rolls * nu
    cdef int64_t stop_kind = kr.levels
    cdef double* p = sc.p + u * kr.n_rolls
    cdef int64_t r, k, at, best
    cdef double mass, V, S, K, d
    for r in range(kr.n_rolls):
        mass = p[r]
        if mass == 0.0:
            continue
        k = keep_row[r]
        at = j * rolls_nu + r * nu + tw
        V = work.roll_vals[at]
        S = work.B[kr.roll_keep_index[r] * nu + tw]
        if kr.keep_size[k] == kr.n_dice:  # stop: score now, save the rerolls left
            if V > S:
                charge(o, i, stop_kind, mass, V - S, r, j, work.keep[at], n_keeps + cat_row[r])
            turn_end(kr, work, nu, used, flag, sc, u, tw, r, j, bank, cat_row[r], mass, o, i)
            continue
        K = V
        best = work.keep[at]
        if V == S:  # stopping is best (ties: stopping)
            K = best_reroll(kr, work.keep_vals, nu, j, r, tw, &best)
            if S > K:
                charge(o, i, stop_kind, mass, S - K, r, j, n_keeps + work.cat_levels[at], k)
        d = K - work.keep_vals[(j * n_keeps + k) * nu + tw]
        if d > 0.0:
            charge(o, i, j, mass, d, r, j, best, k)
    reach_layer(kr, keep_row, p, sc.w, sc.fin)


cdef void lane_tops(
    const Rules* kr, const Level* L, int64_t a, int64_t b, Scratch* sc
) noexcept nogil:
    """The most rerolls left with mass in the turns of positions ``a .. b - 1``: the first
    roll of the most saved rolls reached (-1: none reached), into ``sc.top``; their roll
    laws, outcome counts and turn-end banks cleared."""
    cdef int64_t i, s, r, u
    for i in range(a, b):
        u = i - a
        sc.top[u] = -1
        for s in range(L.n_saved):
            if L.reach_in[i * L.n_saved + s] > 0.0:
                sc.top[u] = kr.rolls - 1 + s
        for r in range(kr.n_rolls):
            sc.p[u * kr.n_rolls + r] = 0.0
        sc.cnt[u] = 0
        sc.lane_bank[u] = -1


cdef void enter_turns(
    const Rules* kr, const Level* L, const Scratch* sc, int64_t i, int64_t u, int64_t s,
    int64_t bj, int64_t used, int64_t flag,
) noexcept nogil:
    """Position ``i`` (the group's ``u``-th) at the rerolls left of the first roll of a turn
    with ``s`` saved rolls: its turn ends for ``bj`` rolls saved, if not yet held, and
    the mass of the turns with ``s`` saved rolls added to its roll law."""
    cdef int64_t row_c = min(bj, L.cat_banks - 1)  # the lane's boxes with bj rolls saved
    cdef int64_t r
    cdef double m
    if sc.lane_bank[u] != row_c:  # their turn ends (the bank only moves the index)
        turn_end_entries(
            kr, L.offset, L.count, used, L.pos[3 * i + 1], flag,
            L.cat + (i * L.cat_banks + row_c) * kr.n_rolls, 0, u, sc.max_nu, sc.q, sc.nxt,
            sc.step,
        )
        sc.lane_bank[u] = row_c
    if 0 <= s < L.n_saved and L.reach_in[i * L.n_saved + s] > 0.0:
        m = L.reach_in[i * L.n_saved + s]
        for r in range(kr.n_rolls):
            sc.p[u * kr.n_rolls + r] += m * kr.first_roll_prob[r]


cdef void group_regret(
    const Rules* kr, const LaneTable* lanes, const Level* L, int64_t g, Work* work,
    Scratch* sc, const Out* o,
) noexcept nogil:
    """Reach and losses of the positions of group ``g`` (one used-mask and flag), each with
    the reach ``reach_in[i, s]`` of ``s`` saved rolls, into their rows of ``o``."""
    cdef int64_t a = L.group_ptr[g]
    cdef int64_t b = L.group_ptr[g + 1]
    cdef int64_t used = L.pos[3 * a]
    cdef int64_t flag = L.pos[3 * a + 2]
    cdef int64_t lo, nu, i, u, tw, j, bj, r, tmax = -1, bank = -1
    cdef const int8_t* cb
    cdef OutcomeTable lane
    nu = group_lanes(L, a, b, &lo)
    widget(kr, lanes, used, lo, flag, lo, nu, work, 2)
    lane_tops(kr, L, a, b, sc)
    for u in range(b - a):
        tmax = max(tmax, sc.top[u])
    for j in range(tmax, -1, -1):  # no mass above a lane's first roll: skipped
        bj = min(j, kr.saved_roll_cap)
        if bj != bank:
            box_step(kr, lanes, used, lo, flag, lo, nu, work.B, work, bj, NULL)
            bank = bj
        for i in range(a, b):
            u = i - a
            tw = widget_lane(L.pos[3 * i + 1], lo)
            if j > sc.top[u]:
                continue
            enter_turns(kr, L, sc, i, u, j - (kr.rolls - 1), bj, used, flag)
            cb = L.cat + (i * L.cat_banks + min(bj, L.cat_banks - 1)) * kr.n_rolls
            if j == 0:
                for r in range(kr.n_rolls):
                    if sc.p[u * kr.n_rolls + r] > 0.0:
                        turn_end(kr, work, nu, used, flag, sc, u, tw, r, 0, 0, cb[r],
                                 sc.p[u * kr.n_rolls + r], o, i)
                continue
            layer_charges(
                kr, work, nu, used, flag, sc, u, tw, j, bj,
                L.keep + (i * L.keep_layers + min(j - 1, L.keep_layers - 1)) * kr.n_rolls,
                cb, o, i,
            )
    for i in range(a, b):
        lane = lane_table(sc, i - a)
        merge_outcomes(&lane, o.o_idx + i * o.width, o.o_mass + i * o.width, o.o_n + i, o.width)


cdef bint regret_chunk(
    const Rules* kr, const LaneTable* lanes, const Level* L, int64_t chunk, int64_t n_chunks,
    const Out* o,
) noexcept nogil:
    """The groups ``chunk, chunk + n_chunks, ...`` of :func:`saved_level_regret`, with work
    buffers and scratch of their own; False if out of memory."""
    cdef Work work
    cdef Scratch sc
    cdef int64_t max_nu = 1
    cdef int64_t g, a, b, lo
    cdef bint ok
    g = chunk
    while g < L.n_groups:
        a = L.group_ptr[g]
        b = L.group_ptr[g + 1]
        max_nu = max(max_nu, max(b - a, group_lanes(L, a, b, &lo)))
        g += n_chunks
    ok = new_work(kr, max_nu, 2, &work)
    ok = new_scratch(kr, max_nu, o.width, &sc) and ok
    g = chunk
    while ok and g < L.n_groups:
        group_regret(kr, lanes, L, g, &work, &sc, o)
        g += n_chunks
    free_work(&work)
    free_scratch(&sc)
    return ok


cdef check_level(Rules r, LaneTable t, offset, count, pos, hopeless, group_ptr):
    """Refuse positions, groups or lanes outside the rules (``ValueError``): the kernel reads
    and writes without bounds checks."""
    if not r.saving:
        raise ValueError("saved_level_regret takes games with saved rolls (level_regret)")
    if t.kind != LANES_UPPER or (t.n_offset == 0 and t.n_values < r.n_states):
        raise ValueError("lanes must be max-EV lanes over upper totals, one value per state")
    if t.n_offset and t.n_offset < ((<int64_t>1) << r.n_boxes) * r.flag_size:
        raise ValueError("compact lanes must hold an offset for every (used, flag) block")
    if len(offset) < (r.flag_size << r.n_boxes) or len(count) < (1 << r.n_boxes):
        raise ValueError("the layout's offset and count must cover every used-mask (and flag)")
    n = pos.shape[0]
    ptr = np.asarray(group_ptr)
    m = len(ptr) - 1
    if pos.shape[1] != 3 or hopeless.shape[0] != n:
        raise ValueError("pos must be (n, 3) positions (used, upper, flag), hopeless (n,)")
    if ptr.ndim != 1 or m < 0 or ptr[0] != 0 or ptr[m] != n or (np.diff(ptr) < 1).any():
        raise ValueError(f"group_ptr must be increasing offsets from 0 to n = {n}, no group empty")
    if n == 0:
        return
    used, upper, flag = pos[:, 0], pos[:, 1], pos[:, 2]
    if (used.min() < 0 or used.max() >= (1 << r.n_boxes) or flag.min() < 0
            or flag.max() >= r.flag_size):
        raise ValueError("pos must hold used-masks and flags of the rules")
    lanes_held = np.asarray(count)[used]
    if upper.min() < 0 or (upper >= lanes_held).any() or (hopeless >= lanes_held).any():
        raise ValueError("upper totals and hopeless totals must lie within their mask's lanes")
    first = np.repeat(ptr[:m], np.diff(ptr))
    same = (used[first] == used) & (flag[first] == flag)
    if not same.all() or (np.diff(upper)[first[1:] == first[: n - 1]] < 0).any():
        raise ValueError("every group must hold one used-mask and flag, upper totals increasing")


cdef check_decisions(Rules r, reach_in, keep, cat, int64_t n):
    """Refuse reach or decision tables the kernel cannot read (``ValueError``)."""
    if reach_in.ndim != 2 or reach_in.shape[0] != n or reach_in.dtype != np.float64:
        raise ValueError(f"reach_in must be float64 (n, saved-roll counts), n = {n}")
    if not 1 <= reach_in.shape[1] <= r.levels - r.rolls + 1:
        raise ValueError(f"reach_in must have 1 to {r.levels - r.rolls + 1} saved-roll counts")
    if keep.dtype != np.int16 or cat.dtype != np.int8 or keep.ndim != 3 or cat.ndim != 3:
        raise ValueError("keep must be int16 and cat int8, each (n, layers, n_rolls)")
    if keep.shape[0] != n or cat.shape[0] != n or keep.shape[1] < 1 or cat.shape[1] < 1:
        raise ValueError(f"keep and cat must have one row per position ({n}), a layer or more")
    if keep.shape[2] != r.n_rolls or cat.shape[2] != r.n_rolls:
        raise ValueError(f"keep and cat must have one column per roll ({r.n_rolls})")
    if keep.size and (keep.min() < 0 or keep.max() >= r.n_keeps):
        raise ValueError(f"keep indices must lie in 0..{r.n_keeps - 1}")


cdef check_out(Rules r, out, int64_t n):
    """Refuse outputs of the wrong shapes (``ValueError``; dtypes: the typed views)."""
    if len(out) != 8:
        raise ValueError("out must be (loss, top_f, top_i, by_cat, points, o_idx, o_mass, o_n)")
    kinds = r.levels + 1
    loss, top_f, top_i, by_cat, points, o_idx, o_mass, o_n = out
    if loss.shape != (n, kinds) or top_f.shape != (n, kinds, 2) or top_i.shape != (n, kinds, 4):
        raise ValueError(
            f"loss, top_f and top_i must be (n, {kinds}), (n, {kinds}, 2), (n, {kinds}, 4)"
        )
    if by_cat.shape != (n, r.n_boxes) or points.shape != (n,) or o_n.shape != (n,):
        raise ValueError(f"by_cat must be (n, {r.n_boxes}), points and o_n (n,), n = {n}")
    if o_idx.ndim != 2 or o_idx.shape[0] != n or o_mass.shape != o_idx.shape:
        raise ValueError("o_idx and o_mass must be (n, width), alike")


cdef Level level_of(arrays, int64_t n_groups):
    """The C view of the checked arrays ``(offset, count, pos, hopeless, group_ptr,
    reach_in, keep, cat)``."""
    cdef Level L
    cdef const int64_t[::1] offset = arrays[0]
    cdef const int64_t[::1] count = arrays[1]
    cdef const int64_t[:, ::1] pos = arrays[2]
    cdef const int64_t[::1] hopeless = arrays[3]
    cdef const int64_t[::1] ptr = arrays[4]
    cdef const double[:, ::1] reach_in = arrays[5]
    cdef const int16_t[:, :, ::1] keep = arrays[6]
    cdef const int8_t[:, :, ::1] cat = arrays[7]
    L.offset = &offset[0]
    L.count = &count[0]
    L.pos = &pos[0, 0]
    L.hopeless = &hopeless[0]
    L.group_ptr = &ptr[0]
    L.reach_in = &reach_in[0, 0]
    L.keep = &keep[0, 0, 0]
    L.cat = &cat[0, 0, 0]
    L.n_saved = reach_in.shape[1]
    L.keep_layers = keep.shape[1]
    L.cat_banks = cat.shape[1]
    L.n_groups = n_groups
    return L


cdef Out out_of(out):
    """The C view of the outputs (typed views: a wrong dtype or layout is refused)."""
    cdef Out o
    cdef double[:, ::1] loss = out[0]
    cdef double[:, :, ::1] top_f = out[1]
    cdef int64_t[:, :, ::1] top_i = out[2]
    cdef double[:, ::1] by_cat = out[3]
    cdef double[::1] points = out[4]
    cdef int64_t[:, ::1] o_idx = out[5]
    cdef double[:, ::1] o_mass = out[6]
    cdef int64_t[::1] o_n = out[7]
    o.loss = &loss[0, 0]
    o.top_f = &top_f[0, 0, 0]
    o.top_i = &top_i[0, 0, 0]
    o.by_cat = &by_cat[0, 0]
    o.points = &points[0]
    o.o_idx = &o_idx[0, 0] if o_idx.shape[1] else NULL
    o.o_mass = &o_mass[0, 0] if o_mass.shape[1] else NULL
    o.o_n = &o_n[0]
    o.kinds = loss.shape[1]
    o.width = o_idx.shape[1]
    return o


def saved_level_regret(
    kr, lanes, layout, pos, hopeless, group_ptr, reach_in, keep, cat, out, int64_t n_chunks,
    int n_threads=1,
):
    """Reach and losses of the positions of one level, groups of positions in parallel (the
    values do not depend on ``n_chunks`` or ``n_threads``; each row depends on its position
    only).

    Parameters
    ----------
    kr : KernelRules
        The rules (a game with saved rolls).
    lanes : Lanes
        Max-EV lanes over upper totals of the optimal table (its ``lanes()``).
    layout : tuple of ndarray
        ``(block_offset, upper_count)`` of the state layout (int64).
    pos : ndarray of int64, shape (n, 3)
        The positions ``(used, upper, flag)``.
    hopeless : ndarray of int64, shape (n,)
        The highest hopeless upper total of each position's used-mask (the widget runs one
        lane for the totals up to it).
    group_ptr : ndarray of int64, shape (groups + 1,)
        Group ``g``: positions ``group_ptr[g] .. group_ptr[g + 1] - 1``, one used-mask and
        flag, upper totals increasing.
    reach_in : ndarray of float64, shape (n, n_saved)
        The reach of each position with ``s`` saved rolls.
    keep : ndarray of int16, shape (n, layers, n_rolls)
        ``keep[i, j - 1, r]``: the strategy's keep with ``j`` rerolls left (the last layer
        serving those past it).
    cat : ndarray of int8, shape (n, banks, n_rolls)
        ``cat[i, b, r]``: its box for final roll ``r`` with ``b`` rolls saved (the last bank
        serving those past it).
    out : tuple of ndarray
        ``(loss, top_f, top_i, by_cat, points, o_idx, o_mass, o_n)``, row ``i`` per
        position (zeros in, ``top_i`` -1): ``loss[i, kind]`` the expected loss of each
        kind (module docstring; ``(n, levels + 1)``), ``top_f[i, kind] = (mass, loss)``
        and ``top_i[i, kind] = (roll, optimal action, strategy's action, rerolls left)``
        the costliest decision of each kind, ``by_cat[i, c]`` the box losses by the box
        chosen, ``points[i]`` the expected points the turn scores (reach-weighted: NaN
        if a reached move is illegal), and the next states ``o_idx[i, :o_n[i]]`` (state
        indices, each once, in the order first reached) with their reach ``o_mass``
        (``o_n[i]`` -1: more next states than ``o_idx`` has columns).
    n_chunks : int
        The groups are shared out in this many chunks.
    n_threads : int
        Threads to run on.

    Returns
    -------
    None
    """
    cdef Rules r = rules_of(kr)
    cdef LaneTable t = lanes_of(lanes)
    offset, count = (np.asarray(a) for a in layout)
    pos, hopeless = np.asarray(pos), np.asarray(hopeless)
    reach_in, keep, cat = np.asarray(reach_in), np.asarray(keep), np.asarray(cat)
    check_level(r, t, offset, count, pos, hopeless, group_ptr)
    check_decisions(r, reach_in, keep, cat, pos.shape[0])
    check_out(r, out, pos.shape[0])
    if pos.shape[0] == 0:
        return
    arrays = (offset, count, pos, hopeless, group_ptr, reach_in, keep, cat)
    run_level(&r, &t, tuple(np.ascontiguousarray(a) for a in arrays), out, n_chunks, n_threads)


cdef run_level(const Rules* r, const LaneTable* t, arrays, out, int64_t n_chunks, int n_threads):
    """The body of :func:`saved_level_regret` on its checked, contiguous arrays: the groups
    in ``n_chunks`` chunks in parallel."""
    cdef int64_t n_groups = len(arrays[4]) - 1
    cdef Level L = level_of(arrays, n_groups)
    cdef Out o = out_of(out)
    cdef Py_ssize_t chunk
    cdef int64_t failed = 0
    n_chunks = max(1, min(n_groups, n_chunks))
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not regret_chunk(r, t, &L, chunk, n_chunks, &o):
                failed += 1
    if failed:
        raise MemoryError("saved_level_regret: out of memory for its work buffers")


def scatter_reach(o_idx, o_mass, o_n, double[::1] reach, int64_t shift):
    """``reach[o_idx[i, e] - shift] += o_mass[i, e]`` for ``e < o_n[i]``, position by
    position in order.

    Parameters
    ----------
    o_idx, o_mass : ndarray, shape (n, width)
        int64, float64: the next states of each position and their reach
        (:func:`saved_level_regret`).
    o_n : ndarray of int64, shape (n,)
        How many of each row are taken (-1 or 0: none).
    reach : ndarray of float64
        Added to in place.
    shift : int
        The state index of ``reach[0]``.

    Returns
    -------
    None
    """
    cdef const int64_t[:, ::1] idx = o_idx
    cdef const double[:, ::1] mass = o_mass
    cdef const int64_t[::1] n = o_n
    cdef int64_t i, e
    if mass.shape[0] != idx.shape[0] or mass.shape[1] != idx.shape[1] or n.shape[0] != idx.shape[0]:
        raise ValueError("o_idx and o_mass must be (n, width) alike, o_n (n,)")
    counts = np.asarray(n)
    if counts.size and counts.max() > idx.shape[1]:
        raise ValueError(f"o_n must be at most the width of o_idx ({idx.shape[1]})")
    taken = np.arange(idx.shape[1]) < counts[:, None]
    at = np.asarray(idx)[taken] - shift
    if at.size and (at.min() < 0 or at.max() >= reach.shape[0]):
        raise ValueError(f"next states must lie in {shift}..{shift + reach.shape[0] - 1}")
    with nogil:
        for i in range(idx.shape[0]):
            for e in range(n[i]):
                reach[idx[i, e] - shift] += mass[i, e]
