"""Kernel of win-aware play: one turn of the widget per game, its boxes valued by the
probability of winning the game from the state they lead to.

A box written now leads to the turn-start state ``s2`` with ``q`` more points. From
there the player is assumed to play max-EV, so the rest of their game adds a score
with the mean and SD of :func:`yahtzee_sim.future.future_moments` at ``s2``; each
opponent still playing likewise ends near ``score + mean`` with that SD, a finished
opponent at their total. The box's value is P(win) (ties split) under normal
approximations of those remaining scores — exact once nothing is left to play for
anyone but this turn's player on their last turn. The widget
(:func:`.widget.widget_mixed`) then takes the best keeps and boxes against these values.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .batched import CHUNKS, TILE, solve_tile
from .scoring import flag_after_roll, scored_state
from .widget import _rows, mask_used_boxes, new_work

#: Node weights below this join the next node (the law's tail beyond a billionth).
NODE_WEIGHT = 1e-9

#: Weight of the expected final score added to P(win): moves that win equally often are
#: ranked by max-EV (a decided game is still played well); 1e-9 per point, so below 2e-6.
EV_TIE_BREAK = 1e-9
_SQRT2 = math.sqrt(2.0)


_CDF_STEP = 1.0 / 128
_CDF_ZMAX = 9.0  # beyond: 0 or 1 (the max-EV tie-break outweighs smaller chances)
_CDF_Z = np.arange(-_CDF_ZMAX, _CDF_ZMAX + _CDF_STEP / 2, _CDF_STEP)
_CDF_PHI = np.array([0.5 * math.erfc(-z / _SQRT2) for z in _CDF_Z])
_CDF_PDF = _CDF_STEP * np.exp(-_CDF_Z * _CDF_Z / 2) / math.sqrt(2 * math.pi)


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def fill_win_values(
    kr, used, upper, flag, score, mean, sd, fb, ft, um, usd, n_unf, gh_x, gh_w, t, val, val_bonus
):
    """Lane ``t`` (one game): ``val[s, t]`` = P(win) after writing the points of slot ``s``
    in its box; ``val_bonus[s, t]`` the same when the roll also earns the Yahtzee bonus
    (filled when the state's rolls can earn it; the flag moves under a bonus limit)."""
    bonus_flag = flag_after_roll(kr, flag, 1)
    earns = kr.yahtzee_bonus > 0 and flag >= 1
    for c in range(kr.n_categories):
        if (used >> c) & 1:
            continue
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
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


@njit(cache=True, parallel=True, nogil=True)
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
    :func:`win_share` (rows ``um[i, :n_unf[i]]``). Games run ``TILE`` at a time in ``order``
    (:func:`.batched.lane_order`) as the lanes of :func:`.widget.widget_mixed`, tiles in
    parallel."""
    n = order.shape[0]
    n_tiles = (n + TILE - 1) // TILE
    n_slots = kr.slot_points.shape[0]
    n_chunks = min(n_tiles, CHUNKS)
    for chunk in prange(n_chunks):
        work = new_work(kr, TILE, 1)
        tu = np.empty(TILE, dtype=np.int64)
        tf = np.empty(TILE, dtype=np.int64)
        for k in range(chunk, n_tiles, n_chunks):
            rows = order[k * TILE : min(n, (k + 1) * TILE)]
            nu = rows.shape[0]
            val = _rows(work.val, n_slots, nu)
            vb = _rows(work.val_bonus, n_slots, nu)
            for t in range(nu):
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
                    vb,
                )
                mask_used_boxes(kr, used[i], t, val)
            solve_tile(kr, used, flag, rows, k, work, tu, tf, keep_out, cat_out)


# --- win-target: own future by the target-score table, opponents by their best final


@njit(cache=True, nogil=True)
def reach_probability(probs, o, n, need):
    """Largest P(at least ``need`` more points) of the target-table row at offset ``o``
    with ``n`` lanes, linear between integer needs (``need + 0.5`` against an integer
    rival total counts a tie as half a win); 0 past the row."""
    if need <= 0.0:
        return 1.0
    k = int(need)
    f = need - k
    a = probs[o + k] if k < n else 0.0
    b = probs[o + k + 1] if k + 1 < n else 0.0
    return a + f * (b - a)


@njit(cache=True, nogil=True)
def _max_normal_quantile(q, fin_best, fin_ties, mu, sd, n_unf):
    """The ``q``-quantile of the best of the finished total ``fin_best`` (if
    ``fin_ties``) and independent normal finals (``mu[k]``, ``sd[k]``), by bisection."""
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
    x = 0.5 * (lo + hi)
    return max(x, float(fin_best)) if fin_ties > 0 else x


@njit(cache=True, nogil=True)
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
def best_final_sizes(
    fin_best, fin_ties, ost, osc, n_unf, law_len, law_support, n_gh, n_quantiles, size
):
    """``size[i]``: room for the nodes of game ``i`` in :func:`best_final_nodes`."""
    for i in prange(fin_best.shape[0]):
        if n_unf[i] == 0:
            size[i] = 1
            continue
        lo, hi = _exact_span(fin_best[i], fin_ties[i], ost[i], osc[i], n_unf[i], law_len)
        if hi >= lo and n_unf[i] == 1 and fin_ties[i] == 0:
            size[i] = law_support[ost[i, 0]] + 1
        elif hi >= lo:
            size[i] = hi - lo + 1
        else:
            size[i] = n_gh if n_unf[i] == 1 else n_quantiles


@njit(cache=True, parallel=True, nogil=True)
def best_final_nodes(
    fin_best,
    fin_ties,
    ost,
    osc,
    n_unf,
    law_pool,
    law_off,
    law_len,
    mean,
    sd,
    gh_x,
    gh_w,
    ptr,
    x,
    w,
    below,
    count,
):
    """The law of the best final total among game ``i``'s opponents, as ascending nodes
    ``x[ptr[i] : ptr[i] + count[i]]`` with weights ``w`` (summing to 1; ``below``: the
    weight of the row's nodes before each).

    Finished opponents count with their best total ``fin_best[i]`` (if ``fin_ties[i]``);
    those still playing (states ``ost[i, k]``, points ``osc[i, k]``, ``k < n_unf[i]``)
    play max-EV. Exact (one node per possible total) when every one of them has a law in
    the table (``law_len > 0``: few boxes left); else their finals are normal with the
    exact means and SDs of max-EV play: one opponent by Gauss-Hermite nodes ``gh_x``
    (weights ``gh_w``), several by equal-weight quantiles of their best (as many as
    ``ptr`` leaves room for)."""
    for i in prange(fin_best.shape[0]):
        _row_nodes(
            i,
            fin_best,
            fin_ties,
            ost,
            osc,
            n_unf,
            law_pool,
            law_off,
            law_len,
            mean,
            sd,
            gh_x,
            gh_w,
            ptr,
            x,
            w,
            count,
        )
        acc = 0.0
        for j in range(ptr[i], ptr[i] + count[i]):
            below[j] = acc
            acc += w[j]


@njit(cache=True, nogil=True)
def _row_nodes(
    i,
    fin_best,
    fin_ties,
    ost,
    osc,
    n_unf,
    law_pool,
    law_off,
    law_len,
    mean,
    sd,
    gh_x,
    gh_w,
    ptr,
    x,
    w,
    count,
):
    """Row ``i`` of :func:`best_final_nodes` (its nodes and weights)."""
    p, m, fb, ft = ptr[i], n_unf[i], fin_best[i], fin_ties[i]
    if m == 0:
        x[p], w[p], count[i] = float(fb), 1.0, 1
        return
    lo, hi = _exact_span(fb, ft, ost[i], osc[i], m, law_len)
    if hi < lo:  # normal futures
        k_n = ptr[i + 1] - p
        mu = np.empty(m)
        s = np.empty(m)
        for k in range(m):
            mu[k] = osc[i, k] + mean[ost[i, k]]
            s[k] = sd[ost[i, k]]
        for j in range(k_n):
            if m == 1:
                x[p + j] = mu[0] + s[0] * gh_x[j]
                if ft > 0:
                    x[p + j] = max(x[p + j], float(fb))
                w[p + j] = gh_w[j]
            else:
                x[p + j] = _max_normal_quantile((j + 0.5) / k_n, fb, ft, mu, s, m)
                w[p + j] = 1.0 / k_n
        count[i] = k_n
        return
    if m == 1 and ft == 0:  # one opponent: their law, shifted
        o, c, carry = law_off[ost[i, 0]], 0, 0.0
        for j in range(law_len[ost[i, 0]]):
            carry += law_pool[o + j]
            if law_pool[o + j] >= NODE_WEIGHT:  # smaller ones join the next node
                x[p + c] = float(osc[i, 0] + j)
                w[p + c] = carry
                carry = 0.0
                c += 1
        if carry > 0.0:
            w[p + c - 1] += carry
        count[i] = c
        return
    cum = np.zeros(m)  # P(opponent k's final <= v), from v = lo - 1 on
    for k in range(m):
        o = law_off[ost[i, k]]
        for j in range(min(lo - osc[i, k], law_len[ost[i, k]])):
            cum[k] += law_pool[o + j]
    prev = 0.0
    c = 0
    for v in range(lo, hi + 1):
        g = 1.0
        for k in range(m):
            j = v - osc[i, k]
            if j < law_len[ost[i, k]]:
                cum[k] += law_pool[law_off[ost[i, k]] + j]
            g *= min(cum[k], 1.0)
        if ft > 0 and v < fb:
            g = 0.0
        if g - prev >= NODE_WEIGHT or (v == hi and g > prev):  # smaller steps join the next
            x[p + c] = float(v)
            w[p + c] = g - prev
            c += 1
            prev = g
    count[i] = c


@njit(cache=True, nogil=True)
def beat_probability(probs, o, n, x, w, below, base):
    """Mean over the nodes ``x`` (ascending, weights ``w``; ``below[j]`` = the weight of
    the nodes before ``j``) of the largest probability of scoring more than ``x - base``
    from the target-table row at offset ``o`` with ``n`` lanes (a tie counts half, as
    :func:`reach_probability`). Nodes at or below ``base - 0.5`` are beaten for sure,
    those from ``base + n - 0.5`` on never: long node lists start at the first node
    above ``base - 0.5`` (binary search) and every list stops at the first node out of
    reach."""
    k_n = x.shape[0]
    j0 = np.searchsorted(x, base - 0.5, side="right") if k_n > 16 else 0
    v = below[j0] if j0 < k_n else 1.0
    for j in range(j0, k_n):
        need = x[j] - base + 0.5
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


@njit(cache=True, nogil=True)
def fill_reach_values(
    kr, used, upper, flag, score, probs, offset, length, mean, x, w, below, t, val, val_bonus
):
    """Lane ``t`` (one game): ``val[s, t]`` = P(win) after writing the points of slot ``s``
    — :func:`beat_probability` from the state reached against the opponents' best final
    (nodes ``x``, ``w``, ``below``) — plus the max-EV tie-break; ``val_bonus`` as in
    :func:`fill_win_values`."""
    bonus_flag = flag_after_roll(kr, flag, 1)
    earns = kr.yahtzee_bonus > 0 and flag >= 1
    for c in range(kr.n_categories):
        if (used >> c) & 1:
            continue
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            p = kr.slot_points[s]
            for b in range(2 if earns else 1):
                f = bonus_flag if b else flag
                s2, bonus = scored_state(kr, used, upper, f, c, p)
                base = float(score + p + bonus + b * kr.yahtzee_bonus)
                v = beat_probability(probs, offset[s2], length[s2], x, w, below, base)
                v += EV_TIE_BREAK * (base + mean[s2])
                if b:
                    val_bonus[s, t] = v
                else:
                    val[s, t] = v


@njit(cache=True, parallel=True, nogil=True)
def win_reach_decisions(
    kr,
    order,
    used,
    upper,
    flag,
    score,
    probs,
    offset,
    length,
    mean,
    ptr,
    x,
    w,
    below,
    count,
    keep_out,
    cat_out,
):
    """Decisions of win-target for games ``i = order[p]`` (row ``p`` of
    :func:`.batched.decision_buffers`): boxes valued by :func:`fill_reach_values` against
    the nodes of :func:`best_final_nodes`; tiles as in :func:`win_aware_decisions`."""
    n = order.shape[0]
    n_tiles = (n + TILE - 1) // TILE
    n_slots = kr.slot_points.shape[0]
    n_chunks = min(n_tiles, CHUNKS)
    for chunk in prange(n_chunks):
        work = new_work(kr, TILE, 1)
        tu = np.empty(TILE, dtype=np.int64)
        tf = np.empty(TILE, dtype=np.int64)
        for k in range(chunk, n_tiles, n_chunks):
            rows = order[k * TILE : min(n, (k + 1) * TILE)]
            nu = rows.shape[0]
            val = _rows(work.val, n_slots, nu)
            vb = _rows(work.val_bonus, n_slots, nu)
            for t in range(nu):
                i = rows[t]
                lo, hi = ptr[i], ptr[i] + count[i]
                fill_reach_values(
                    kr,
                    used[i],
                    upper[i],
                    flag[i],
                    score[i],
                    probs,
                    offset,
                    length,
                    mean,
                    x[lo:hi],
                    w[lo:hi],
                    below[lo:hi],
                    t,
                    val,
                    vb,
                )
                mask_used_boxes(kr, used[i], t, val)
            solve_tile(kr, used, flag, rows, k, work, tu, tf, keep_out, cat_out)
