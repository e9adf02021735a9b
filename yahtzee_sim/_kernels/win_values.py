"""Win values: the probability of winning a visible match from the state each box leads
to, and one turn of the widget per game against those values (the decisions of the
win-seeking strategies ``win-aware``, ``win-target`` and ``chase``,
:mod:`yahtzee_sim.strategies.win_seeking_visible`).

For ``win-aware``, a box written now leads to the turn-start state ``s2`` with ``q`` more
points. From there the player is assumed to play max-EV, so the rest of their game adds a
score with the mean and SD of :func:`yahtzee_sim.exact.points_to_come.future_moments` at
``s2``; each opponent still playing likewise ends near ``score + mean`` with that SD, a
finished opponent at their total. The box's value is P(win) (ties split) under normal
approximations of those remaining scores — exact once nothing is left to play for
anyone but this turn's player on their last turn. The widget
(:func:`.widget.widget_mixed`) then takes the best keeps and boxes against these values.

The kernels of win-target (after the ``win-target`` marker below) value the same boxes
by the player's best chance of beating each possible best final total of the
opponents: the law of that total as nodes (:func:`best_final_nodes`), the chance from
the target-score table (:func:`beat_probability`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from yahtzee_sim._kernels.batched import (
    solve_tile,
    tile_box_values,
    tile_plan,
    tile_rows_at,
    tile_scratch,
)
from yahtzee_sim._kernels.box_step import mask_used_boxes
from yahtzee_sim._kernels.scoring import bonus_roll, open_slot_range, scored_state

#: Node weights below this join the next node (a law's tail, the last node).
NODE_WEIGHT = 1e-9

#: Weight of the expected final score added to P(win): moves that win equally often are
#: ranked by max-EV (a decided game is still played well); 1e-9 per point, so below 2e-6.
EV_TIE_BREAK = 1e-9
_SQRT2 = math.sqrt(2.0)

#: The kinds of :func:`fill_tile`: win-aware (:func:`fill_win_tile`) and win-target
#: (:func:`fill_reach_tile`) box values.
WIN_AWARE, WIN_TARGET = 0, 1


_CDF_STEP = 1.0 / 128
_CDF_ZMAX = 9.0  # beyond: 0 or 1 (the max-EV tie-break outweighs smaller chances)
_CDF_Z = np.arange(-_CDF_ZMAX, _CDF_ZMAX + _CDF_STEP / 2, _CDF_STEP)
_CDF_PHI = np.array([0.5 * math.erfc(-z / _SQRT2) for z in _CDF_Z])
_CDF_PDF = _CDF_STEP * np.exp(-_CDF_Z * _CDF_Z / 2) / math.sqrt(2 * math.pi)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def normal_cdf(x):
    """Standard normal CDF: cubic Hermite interpolation of a table (step 1/128, error
    below 1e-11; four times faster than ``erfc``, which it replaced in the fill)."""
    if x <= -_CDF_ZMAX:
        return 0.0
    if x >= _CDF_ZMAX:
        return 1.0
    u = (x + _CDF_ZMAX) * 128.0
    k = int(u)
    s = u - k
    s2 = s * s
    s3 = s2 * s
    return (
        (2.0 * s3 - 3.0 * s2 + 1.0) * _CDF_PHI[k]
        + (s3 - 2.0 * s2 + s) * _CDF_PDF[k]
        + (3.0 * s2 - 2.0 * s3) * _CDF_PHI[k + 1]
        + (s3 - s2) * _CDF_PDF[k + 1]
    )


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def win_share(x, fin_best, fin_ties, um, usd, n_unf):
    """Expected share of the win with final score ``x``: finished opponents' best total
    ``fin_best`` held by ``fin_ties`` of them (0: none finished; a tie splits the win),
    times P(beating) each opponent still playing (normal with mean ``um[k]``, SD
    ``usd[k]``; ties count half)."""
    g = 1.0
    if fin_ties > 0:  # finished opponents
        xr = math.floor(x + 0.5)
        if xr < fin_best:
            return 0.0
        if xr == fin_best:
            g = 1.0 / (fin_ties + 1)
    for k in range(n_unf):
        if usd[k] > 0.0:
            g *= normal_cdf((x - um[k]) / usd[k])
        elif x < um[k]:  # a future without spread: a known final score
            return 0.0
        elif x == um[k]:
            g *= 0.5
    return g


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def win_value(base, mu, sd, fin_best, fin_ties, um, usd, n_unf, gh_x, gh_w):
    """P(win) when this player's final score is ``base`` + a normal (``mu``, ``sd``):
    exact for ``sd = 0``, closed form against one opponent still playing, else
    Gauss-Hermite quadrature (nodes ``gh_x``, weights ``gh_w`` summing to 1)."""
    if sd == 0.0:
        return win_share(base + mu, fin_best, fin_ties, um, usd, n_unf)
    if fin_ties == 0 and n_unf == 1:
        return normal_cdf((base + mu - um[0]) / math.sqrt(sd * sd + usd[0] * usd[0]))
    acc = 0.0
    for i in range(gh_x.shape[0]):
        acc += gh_w[i] * win_share(base + mu + sd * gh_x[i], fin_best, fin_ties, um, usd, n_unf)
    return acc


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fill_win_values(
    kr, used, upper, flag, score, mean, sd, fb, ft, um, usd, n_unf, gh_x, gh_w, t, val, val_bonus
):
    """Lane ``t`` (one game): ``val[s, t]`` = P(win) after writing the points of slot ``s``
    in its box; ``val_bonus[s, t]`` the same when the roll also earns the Yahtzee bonus
    (filled when the state's rolls can earn it; the flag moves under a bonus limit)."""
    bonus_flag, earns = bonus_roll(kr, flag)
    for c in range(kr.n_boxes):
        lo, hi = open_slot_range(kr.slot_ptr, used, c)
        for s in range(lo, hi):
            p = kr.slot_points[s]
            s2, bonus = scored_state(kr, used, upper, flag, c, p)
            base = float(score + p + bonus)
            val[s, t] = win_value(base, mean[s2], sd[s2], fb, ft, um, usd, n_unf, gh_x, gh_w)
            val[s, t] += EV_TIE_BREAK * (base + mean[s2])
            if earns:
                s2, bonus = scored_state(kr, used, upper, bonus_flag, c, p)
                base = float(score + p + bonus + kr.yahtzee_bonus)
                v = win_value(base, mean[s2], sd[s2], fb, ft, um, usd, n_unf, gh_x, gh_w)
                val_bonus[s, t] = v + EV_TIE_BREAK * (base + mean[s2])


@njit(cache=True, parallel=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def valued_tiles(kind, kr, order, used, flag, inputs, keep_out, cat_out):
    """The tile loop of the win-seeking kernels: games ``i = order[p]`` run ``TILE`` at a
    time in ``order`` (:func:`.batched.lane_order`) as the lanes of
    :func:`.widget.widget_mixed`, tiles in parallel; each tile's box values filled from
    ``inputs`` by the fill of ``kind`` (:func:`fill_tile`), its decisions written in rows
    ``p`` of :func:`.batched.decision_buffers`. ``kind`` must be a constant of the calling
    kernel (:data:`WIN_AWARE`, :data:`WIN_TARGET`); ``inputs`` a flat tuple (numba refuses
    a tuple of same-typed arrays in a parallel loop's body, nested or not)."""
    n_tiles, n_chunks = tile_plan(order.shape[0])
    for chunk in prange(n_chunks):
        work, tu, tf = tile_scratch(kr)
        for k in range(chunk, n_tiles, n_chunks):
            rows = tile_rows_at(order, k)
            val, vb = tile_box_values(kr, work, rows.shape[0])
            fill_tile(kind, kr, rows, inputs, val, vb)
            solve_tile(kr, used, flag, rows, k, work, tu, tf, keep_out, cat_out)


def fill_tile(kind, kr, rows, inputs, val, val_bonus):
    """The box values of a tile's games ``rows`` by the fill of ``kind`` (:func:`fill_of`),
    chosen when the kernel compiles, from the literal ``kind`` (numba cannot cache a kernel
    that takes a function as an argument), or by its value when the kernels run as Python."""
    fill_of(kind)(kr, rows, inputs, val, val_bonus)


def fill_of(kind: int):
    """The fill of ``kind``: :func:`fill_win_tile` (:data:`WIN_AWARE`) or
    :func:`fill_reach_tile` (:data:`WIN_TARGET`)."""
    return (fill_win_tile, fill_reach_tile)[kind]


@overload(fill_tile)
def _fill_tile(kind, kr, rows, inputs, val, val_bonus):
    if not isinstance(kind, types.IntegerLiteral):
        return None
    fill = fill_of(kind.literal_value)

    def fill_of_kind(kind, kr, rows, inputs, val, val_bonus):
        fill(kr, rows, inputs, val, val_bonus)

    return fill_of_kind


@njit(cache=True, nogil=True)
def fill_win_tile(kr, rows, inputs, val, val_bonus):
    """The win-aware box values of a tile's games ``rows`` (lane ``t``: game ``rows[t]``,
    :func:`fill_win_values`), filled boxes ``NEG``; ``inputs`` as the arguments of
    :func:`win_aware_decisions` from ``used`` to ``gh_w``."""
    used, upper, flag, score, mean, sd, fin_best, fin_ties, um, usd, n_unf, gh_x, gh_w = inputs
    for t in range(rows.shape[0]):
        i = rows[t]
        fill_win_values(
            kr,
            used[i],
            upper[i],
            flag[i],
            score[i],
            mean,
            sd,
            fin_best[i],
            fin_ties[i],
            um[i],
            usd[i],
            n_unf[i],
            gh_x,
            gh_w,
            t,
            val,
            val_bonus,
        )
        mask_used_boxes(kr, used[i], t, val)


@njit(cache=True, nogil=True)
def win_aware_decisions(
    kr,
    order,
    used,
    upper,
    flag,
    score,
    mean,
    sd,
    fin_best,
    fin_ties,
    um,
    usd,
    n_unf,
    gh_x,
    gh_w,
    keep_out,
    cat_out,
):
    """Win-aware decisions of games ``i = order[p]`` at every roll of their turn, in row
    ``p`` of :func:`.batched.decision_buffers`; opponents as in
    :func:`win_share` (rows ``um[i, :n_unf[i]]``); tiles as in :func:`valued_tiles`."""
    inputs = (used, upper, flag, score, mean, sd, fin_best, fin_ties, um, usd, n_unf, gh_x, gh_w)
    valued_tiles(WIN_AWARE, kr, order, used, flag, inputs, keep_out, cat_out)


# --- win-target: own future by the target-score table, opponents by their best final


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _max_normal_quantile(q, mu, sd, n_unf):
    """The ``q``-quantile of the best of independent normal finals (``mu[k]``,
    ``sd[k]``), by bisection."""
    lo = mu[0]
    hi = mu[0]
    for k in range(n_unf):
        lo = min(lo, mu[k] - 9.0 * sd[k])
        hi = max(hi, mu[k] + 9.0 * sd[k])
    for _ in range(28):  # 18 SDs halved 28 times: below 1e-7 SD
        x = 0.5 * (lo + hi)
        g = 1.0
        for k in range(n_unf):
            if sd[k] > 0.0:
                g *= normal_cdf((x - mu[k]) / sd[k])
            elif x < mu[k]:
                g = 0.0
        if g < q:
            lo = x
        else:
            hi = x
    return 0.5 * (lo + hi)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _exact_span(fin_best, fin_ties, ost, osc, n_unf, law_len):
    """``(lo, hi)`` of the opponents' best final when every unfinished opponent's law is
    in the table, else ``(1, 0)``."""
    lo = fin_best if fin_ties > 0 else 0
    hi = lo
    for k in range(n_unf):
        n = law_len[ost[k]]
        if n == 0:
            return 1, 0
        lo = max(lo, osc[k])
        hi = max(hi, osc[k] + n - 1)
    return lo, hi


@njit(cache=True, parallel=True, nogil=True)
def best_final_sizes(opponents, laws, n_normal, n_quantiles, size):
    """``size[i]``: room for the nodes of game ``i`` in :func:`best_final_nodes`
    (``opponents``, ``laws`` as there; ``n_normal``, ``n_quantiles``: the nodes of one
    and of several normal finals)."""
    fin_best, fin_ties, ost, osc, n_unf = opponents
    law_len, support = laws[2], laws[3]
    for i in prange(fin_best.shape[0]):
        m = n_unf[i]
        lo, hi = _exact_span(fin_best[i], fin_ties[i], ost[i], osc[i], m, law_len)
        if m == 0:
            size[i] = 1
        elif hi < lo:
            size[i] = n_normal if m == 1 else n_quantiles
        elif m == 1 and fin_ties[i] == 0:
            size[i] = support[ost[i, 0]] + 1
        else:
            size[i] = hi - lo + 1


@njit(cache=True, parallel=True, nogil=True)
def best_final_nodes(opponents, laws, normal, nodes):
    """The law of the best final total among each game's opponents, as ascending nodes.

    ``opponents = (fin_best, fin_ties, ost, osc, n_unf)``: per game ``i``, the finished
    opponents' best total ``fin_best[i]`` (if ``fin_ties[i]`` > 0) and the turn-start
    states ``ost[i, k]`` and points ``osc[i, k]`` of the ``n_unf[i]`` still playing, who
    play max-EV. ``laws = (pool, offset, length, support)``:
    :class:`yahtzee_sim.exact.points_to_come.FutureLaws`. ``normal = (mean, sd, z, z_weight)``: the
    moments of max-EV play and the standard-normal nodes used for one opponent's final.
    ``nodes = (ptr, x, w, below, count)``: game ``i`` gets ``x[ptr[i] : ptr[i] +
    count[i]]`` with weights ``w`` (summing to 1) and ``below`` (the weight of its nodes
    before each); ``ptr`` from :func:`best_final_sizes`.

    Exact (one node per possible total; weights below :data:`NODE_WEIGHT` join the next
    node, a tail the last) when every opponent still playing has a law; else their
    finals are normal: one opponent's by the nodes ``z``, several by equal-weight
    quantiles of their best."""
    ptr, x, w, below, count = nodes
    fin_best, fin_ties, ost, osc, n_unf = opponents
    law_len = laws[2]
    for i in prange(fin_best.shape[0]):
        p, m, fb, ft = ptr[i], n_unf[i], fin_best[i], fin_ties[i]
        lo, hi = _exact_span(fb, ft, ost[i], osc[i], m, law_len)
        out = (x[p : ptr[i + 1]], w[p : ptr[i + 1]])
        if m == 0:
            x[p], w[p], count[i] = float(fb), 1.0, 1
        elif hi < lo:
            count[i] = _normal_nodes(fb, ft, ost[i, :m], osc[i, :m], normal, out)
        elif m == 1 and ft == 0:
            count[i] = _law_nodes(ost[i, 0], osc[i, 0], laws, out)
        else:
            count[i] = _best_law_nodes(ost[i, :m], osc[i, :m], laws, lo, hi, out)
        acc = 0.0
        for j in range(p, p + count[i]):
            below[j] = acc
            acc += w[j]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _normal_nodes(fb, ft, ost, osc, normal, out):
    """Nodes of the best of normal finals (and ``fb`` if ``ft``), filling ``out``."""
    mean, sd, z, zw = normal
    x, w = out
    m = ost.shape[0]
    mu = np.empty(m)
    s = np.empty(m)
    for k in range(m):
        mu[k] = osc[k] + mean[ost[k]]
        s[k] = sd[ost[k]]
    for j in range(x.shape[0]):
        if m == 1:
            x[j] = mu[0] + s[0] * z[j]
            w[j] = zw[j]
        else:
            x[j] = _max_normal_quantile((j + 0.5) / x.shape[0], mu, s, m)
            w[j] = 1.0 / x.shape[0]
        if ft > 0:
            x[j] = max(x[j], float(fb))
    return x.shape[0]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _law_nodes(state, points, laws, out):
    """Nodes of one opponent's exact final (state's law shifted by their ``points``)."""
    pool, offset, length = laws[0], laws[1], laws[2]
    x, w = out
    o, c, carry = offset[state], 0, 0.0
    for j in range(length[state]):
        carry += pool[o + j]
        if pool[o + j] >= NODE_WEIGHT:  # smaller ones join the next node
            x[c] = float(points + j)
            w[c] = carry
            carry = 0.0
            c += 1
    if carry > 0.0:
        w[c - 1] += carry
    return c


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _best_law_nodes(ost, osc, laws, lo, hi, out):
    """Nodes of the best of several exact finals on ``lo..hi`` (``lo`` is at least a
    finished opponents' best total): the product of the opponents' CDFs."""
    pool, offset, length = laws[0], laws[1], laws[2]
    x, w = out
    m = ost.shape[0]
    cum = np.zeros(m)  # P(opponent k's final <= v), from v = lo - 1 on
    for k in range(m):
        for j in range(min(lo - osc[k], length[ost[k]])):
            cum[k] += pool[offset[ost[k]] + j]
    prev = 0.0
    c = 0
    for v in range(lo, hi + 1):
        g = 1.0
        for k in range(m):
            j = v - osc[k]
            if j < length[ost[k]]:
                cum[k] += pool[offset[ost[k]] + j]
            g *= min(cum[k], 1.0)
        if g - prev >= NODE_WEIGHT or (v == hi and g > prev):  # smaller steps join the next
            x[c] = float(v)
            w[c] = g - prev
            c += 1
            prev = g
    return c


@njit(cache=True, nogil=True)
def beat_probability(probs, o, n, rival, base):
    """P(win) from the target-table row at offset ``o`` with ``n`` lanes (``row[t]`` = the
    largest probability of scoring at least ``t`` more) with ``base`` points now, against
    the opponents' best final ``rival = (x, w, below, tie_at, tie_share)``: nodes ``x``
    (ascending), weights ``w``, ``below[j]`` the weight of the nodes before ``j``.

    Against a node ``x`` the player wins with more than ``x - base`` more points and ties
    with exactly that many; a tie counts half, except at ``tie_at`` (the total of
    finished opponents, several of them) where it counts ``tie_share``. The chance of a
    tie is the row's step there, so a node is worth ``row[k] + (1 - share) * (row[k + 1]
    - row[k])`` with ``k = x - base`` (interpolated for nodes between integers). Nodes at
    or below ``base - 0.5`` are beaten for sure, those from ``base + n - 0.5`` on never:
    long node lists start at the first node above ``base - 0.5`` (binary search) and
    every list stops at the first node out of reach."""
    x, w, below, tie_at, tie_share = rival
    k_n = x.shape[0]
    j0 = np.searchsorted(x, base - 0.5, side="right") if k_n > 16 else 0
    v = below[j0] if j0 < k_n else 1.0
    for j in range(j0, k_n):
        need = x[j] - base + (1.0 - tie_share if x[j] == tie_at else 0.5)
        if need <= 0.0:
            v += w[j]
            continue
        if need >= n:
            break
        k = int(need)
        a = probs[o + k]
        b = probs[o + k + 1] if k + 1 < n else 0.0
        v += w[j] * (a + (need - k) * (b - a))
    return v


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fill_reach_values(kr, sheet, target, mean, rival, t, val, val_bonus):
    """Lane ``t`` (one game, ``sheet = (used, upper, flag, score)``): ``val[s, t]`` = P(win)
    after writing the points of slot ``s`` — :func:`beat_probability` from the state
    reached (target table ``target = (probs, offset, length)``) against the opponents'
    best final (``rival`` as there) — plus the max-EV tie-break; ``val_bonus`` as in
    :func:`fill_win_values`."""
    used, upper, flag, score = sheet
    probs, offset, length = target
    bonus_flag, earns = bonus_roll(kr, flag)
    for c in range(kr.n_boxes):
        lo, hi = open_slot_range(kr.slot_ptr, used, c)
        for s in range(lo, hi):
            p = kr.slot_points[s]
            for b in range(2 if earns else 1):
                f = bonus_flag if b else flag
                s2, bonus = scored_state(kr, used, upper, f, c, p)
                base = float(score + p + bonus + b * kr.yahtzee_bonus)
                v = beat_probability(probs, offset[s2], length[s2], rival, base)
                v += EV_TIE_BREAK * (base + mean[s2])
                if b:
                    val_bonus[s, t] = v
                else:
                    val[s, t] = v


@njit(cache=True, nogil=True)
def fill_reach_tile(kr, rows, inputs, val, val_bonus):
    """The win-target box values of a tile's games ``rows`` (lane ``t``: game ``rows[t]``,
    :func:`fill_reach_values`), filled boxes ``NEG``; ``inputs = (mine, finished,
    target, mean, nodes)`` of :func:`win_reach_decisions`, flattened."""
    used, upper, flag, score, fin_best, fin_ties, probs, offset, length, mean = inputs[:10]
    ptr, x, w, below, count = inputs[10:]
    target = (probs, offset, length)
    for t in range(rows.shape[0]):
        i = rows[t]
        lo, hi = ptr[i], ptr[i] + count[i]
        sheet = (used[i], upper[i], flag[i], score[i])
        ft = fin_ties[i]
        tie_at = float(fin_best[i]) if ft > 1 else -np.inf
        rival = (x[lo:hi], w[lo:hi], below[lo:hi], tie_at, 1.0 / (ft + 1))
        fill_reach_values(kr, sheet, target, mean, rival, t, val, val_bonus)
        mask_used_boxes(kr, used[i], t, val)


@njit(cache=True, nogil=True)
def win_reach_decisions(kr, order, mine, finished, target, mean, nodes, keep_out, cat_out):
    """Decisions of win-target for games ``i = order[p]`` (row ``p`` of
    :func:`.batched.decision_buffers`): ``mine = (used, upper, flag, score)`` per game;
    boxes valued by :func:`fill_reach_values` from the target table ``target = (probs,
    offset, length)`` against the nodes ``nodes = (ptr, x, w, below, count)`` of
    :func:`best_final_nodes`, a tie with ``fin_ties[i]`` finished opponents at their
    total ``fin_best[i]`` (``finished = (fin_best, fin_ties)``) sharing the win evenly;
    tiles as in :func:`valued_tiles`."""
    inputs = mine + finished + target + (mean,) + nodes  # flat: see valued_tiles
    valued_tiles(WIN_TARGET, kr, order, mine[0], mine[2], inputs, keep_out, cat_out)
