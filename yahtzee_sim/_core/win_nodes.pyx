# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The opponents' best final total in a visible match, as the nodes of its law (what
``win-target`` values a box against, :mod:`yahtzee_sim._core.win_values`), and the normal
CDF of the win values; games in parallel, the same nodes bit for bit whatever the thread
count.

Exact (one node per possible total; weights below ``NODE_WEIGHT`` join the next node, a
tail the last) when every opponent still playing has a law
(:class:`yahtzee_sim.exact.points_to_come.FutureLaws`); else their finals are normal (the
moments of max-EV play): one opponent's by given standard-normal nodes, several by
equal-weight quantiles of their best.
"""

import math

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc

from yahtzee_sim._kernels.win_values import NODE_WEIGHT

cdef double node_weight = NODE_WEIGHT
cdef object tables = None  # the normal CDF's table, made on first use


cdef Cdf cdf_tables() except *:
    """The normal CDF's table (Phi and phi / 128 at z = -9 .. 9, step 1/128), made on the
    first call and kept: ``erfc`` and ``np.exp`` of the same expressions as the numba
    kernels' table, so the same bits."""
    global tables
    cdef Cdf cdf
    cdef const double[::1] phi, pdf
    if tables is None:
        step = 1.0 / 128
        z = np.arange(-9.0, 9.0 + step / 2, step)
        tables = (
            np.array([0.5 * math.erfc(-x / math.sqrt(2.0)) for x in z]),
            step * np.exp(-z * z / 2) / math.sqrt(2 * math.pi),
        )
    phi, pdf = tables
    cdf.phi, cdf.pdf = &phi[0], &pdf[0]
    return cdf


def normal_cdf(double x):
    """The standard normal CDF as the kernels compute it (cubic Hermite interpolation of a
    table, step 1/128, error below 1e-11).

    Parameters
    ----------
    x : float
        Where.

    Returns
    -------
    float
        P(Z <= x).
    """
    cdef Cdf cdf = cdf_tables()
    return phi_of(&cdf, x)


cdef struct Opponents:  # per game i: the finished opponents and those still playing
    const int64_t* fin_best  # finished opponents' best total (if fin_ties > 0)
    const int64_t* fin_ties
    const int64_t* ost  # games x width: turn-start states of those still playing
    const int64_t* osc  # and their points
    const int64_t* n_unf
    int64_t width

cdef struct Laws:  # FutureLaws: state s's law pool[offset[s] : offset[s] + length[s]]
    const double* pool
    const int64_t* offset
    const int64_t* length  # 0: no law
    const int64_t* support  # entries of at least NODE_WEIGHT

cdef struct Normal:
    const double* mean  # per state: max-EV play's mean points to come
    const double* sd
    const double* z  # standard-normal nodes of one opponent's final
    const double* zw
    Cdf cdf

cdef struct Nodes:  # game i's nodes: x[ptr[i] : ptr[i] + count[i]]
    const int64_t* ptr
    double* x
    double* w
    double* below
    int64_t* count


cdef inline bint exact_span(
    const Opponents* o, const Laws* laws, int64_t i, int64_t* lo, int64_t* hi
) noexcept nogil:
    """``lo``, ``hi`` of game ``i``'s opponents' best final when every unfinished
    opponent's law is known (True), else False."""
    cdef int64_t k, n, s
    lo[0] = o.fin_best[i] if o.fin_ties[i] > 0 else 0
    hi[0] = lo[0]
    for k in range(o.n_unf[i]):
        s = o.ost[i * o.width + k]
        n = laws.length[s]
        if n == 0:
            return False
        lo[0] = max(lo[0], o.osc[i * o.width + k])
        hi[0] = max(hi[0], o.osc[i * o.width + k] + n - 1)
    return lo[0] <= hi[0]


cdef int64_t game_size(
    const Opponents* o, const Laws* laws, int64_t i, int64_t n_normal, int64_t n_quantiles
) noexcept nogil:
    """Room for game ``i``'s nodes."""
    cdef int64_t m = o.n_unf[i]
    cdef int64_t lo, hi
    cdef bint exact = exact_span(o, laws, i, &lo, &hi)
    if m == 0:
        return 1
    if not exact:
        return n_normal if m == 1 else n_quantiles
    if m == 1 and o.fin_ties[i] == 0:
        return laws.support[o.ost[i * o.width]] + 1
    return hi - lo + 1


cdef double max_normal_quantile(
    const Cdf* cdf, double q, const double* mu, const double* sd, int64_t m
) noexcept nogil:
    """The ``q``-quantile of the best of independent normal finals (``mu[k]``, ``sd[k]``),
    by bisection."""
    cdef double lo = mu[0]
    cdef double hi = mu[0]
    cdef double x, g
    cdef int64_t k, it
    for k in range(m):
        lo = min(lo, mu[k] - 9.0 * sd[k])
        hi = max(hi, mu[k] + 9.0 * sd[k])
    for it in range(28):  # 18 SDs halved 28 times: below 1e-7 SD
        x = 0.5 * (lo + hi)
        g = 1.0
        for k in range(m):
            if sd[k] > 0.0:
                g *= phi_of(cdf, (x - mu[k]) / sd[k])
            elif x < mu[k]:
                g = 0.0
        if g < q:
            lo = x
        else:
            hi = x
    return 0.5 * (lo + hi)


cdef int64_t normal_nodes(
    const Opponents* o, const Normal* nm, int64_t i, double* x, double* w, int64_t n
) noexcept nogil:
    """Game ``i``'s ``n`` nodes of the best of normal finals (and the finished opponents'
    best total); -1 if out of memory."""
    cdef int64_t m = o.n_unf[i]
    cdef int64_t fb = o.fin_best[i]
    cdef int64_t j, k, s
    cdef double* mu = <double*>malloc(2 * m * sizeof(double))
    cdef double* sd
    if mu == NULL:
        return -1
    sd = mu + m
    for k in range(m):
        s = o.ost[i * o.width + k]
        mu[k] = o.osc[i * o.width + k] + nm.mean[s]
        sd[k] = nm.sd[s]
    for j in range(n):
        if m == 1:
            x[j] = mu[0] + sd[0] * nm.z[j]
            w[j] = nm.zw[j]
        else:
            x[j] = max_normal_quantile(&nm.cdf, (j + 0.5) / n, mu, sd, m)
            w[j] = 1.0 / n
        if o.fin_ties[i] > 0:
            x[j] = max(x[j], <double>fb)
    free(mu)
    return n


cdef int64_t law_nodes(
    const Laws* laws, int64_t state, int64_t points, double* x, double* w, int64_t n
) noexcept nogil:
    """Nodes of one opponent's exact final (``state``'s law shifted by their ``points``)."""
    cdef int64_t o = laws.offset[state]
    cdef int64_t c = 0
    cdef int64_t j
    cdef double carry = 0.0
    for j in range(laws.length[state]):
        carry += laws.pool[o + j]
        if laws.pool[o + j] >= node_weight:  # smaller ones join the next node
            x[c] = <double>(points + j)
            w[c] = carry
            carry = 0.0
            c += 1
    if carry > 0.0:
        w[c - 1 if c > 0 else n - 1] += carry
    return c


cdef int64_t best_law_nodes(
    const Opponents* o, const Laws* laws, int64_t i, int64_t lo, int64_t hi, double* x,
    double* w,
) noexcept nogil:
    """Nodes of the best of several exact finals on ``lo .. hi`` (``lo`` is at least a
    finished opponents' best total): the product of the opponents' CDFs; -1 if out of
    memory."""
    cdef int64_t m = o.n_unf[i]
    cdef const int64_t* ost = o.ost + i * o.width
    cdef const int64_t* osc = o.osc + i * o.width
    cdef double* cum = <double*>calloc(m + 1, sizeof(double))  # P(final k <= v), v >= lo - 1
    cdef double prev = 0.0
    cdef double g
    cdef int64_t c = 0
    cdef int64_t k, j, v
    if cum == NULL:
        return -1
    for k in range(m):
        for j in range(min(lo - osc[k], laws.length[ost[k]])):
            cum[k] += laws.pool[laws.offset[ost[k]] + j]
    for v in range(lo, hi + 1):
        g = 1.0
        for k in range(m):
            j = v - osc[k]
            if j < laws.length[ost[k]]:
                cum[k] += laws.pool[laws.offset[ost[k]] + j]
            g *= min(cum[k], 1.0)
        if g - prev >= node_weight or (v == hi and g > prev):  # smaller steps join the next
            x[c] = <double>v
            w[c] = g - prev
            c += 1
            prev = g
    free(cum)
    return c


cdef bint game_nodes(
    const Opponents* o, const Laws* laws, const Normal* nm, Nodes* nd, int64_t i
) noexcept nogil:
    """Game ``i``'s nodes, weights and weights below; False if out of memory."""
    cdef int64_t p = nd.ptr[i]
    cdef int64_t n = nd.ptr[i + 1] - p
    cdef int64_t m = o.n_unf[i]
    cdef int64_t lo, hi, c, j
    cdef bint exact = exact_span(o, laws, i, &lo, &hi)
    cdef double acc = 0.0
    if m == 0:
        nd.x[p], nd.w[p], c = <double>o.fin_best[i], 1.0, 1
    elif not exact:
        c = normal_nodes(o, nm, i, nd.x + p, nd.w + p, n)
    elif m == 1 and o.fin_ties[i] == 0:
        c = law_nodes(laws, o.ost[i * o.width], o.osc[i * o.width], nd.x + p, nd.w + p, n)
    else:
        c = best_law_nodes(o, laws, i, lo, hi, nd.x + p, nd.w + p)
    if c < 0:
        return False
    nd.count[i] = c
    for j in range(p, p + c):
        nd.below[j] = acc
        acc += nd.w[j]
    return True


cdef class Match:
    """The checked C views of ``opponents`` and ``laws`` (and the arrays they point into)."""

    cdef Opponents o
    cdef Laws laws
    cdef int64_t n
    cdef object arrays

    def __init__(self, opponents, laws):
        fin_best, fin_ties, ost, osc, n_unf = (np.asarray(a) for a in opponents)
        cdef const int64_t[::1] fb = fin_best, ft = fin_ties, nu = n_unf
        cdef const int64_t[:, ::1] s = ost, sc = osc
        cdef const double[::1] pool = laws[0]
        cdef const int64_t[::1] offset = laws[1], length = laws[2], support = laws[3]
        self.n = fb.shape[0]
        if ft.shape[0] != self.n or nu.shape[0] != self.n or s.shape[0] != self.n:
            raise ValueError("the opponents' arrays must have one row per game")
        if tuple(ost.shape) != tuple(osc.shape):
            raise ValueError("ost and osc must have the same shape")
        if self.n and (n_unf.min() < 0 or n_unf.max() > ost.shape[1]):
            raise ValueError(f"n_unf must lie in 0 .. {ost.shape[1]}")
        n_laws = min(offset.shape[0], length.shape[0], support.shape[0])
        playing = np.arange(ost.shape[1]) < n_unf[:, None]
        if playing.any() and (ost[playing].min() < 0 or ost[playing].max() >= n_laws):
            raise ValueError(f"the opponents' states must lie in 0 .. {n_laws - 1}")
        if n_laws and (np.asarray(laws[1]) + np.asarray(laws[2])).max() > pool.shape[0]:
            raise ValueError("every law must lie in the pool")
        self.arrays = (fin_best, fin_ties, ost, osc, n_unf, *laws)
        self.o.width = ost.shape[1]
        if self.n:
            self.o.fin_best, self.o.fin_ties, self.o.n_unf = &fb[0], &ft[0], &nu[0]
            if self.o.width:
                self.o.ost, self.o.osc = &s[0, 0], &sc[0, 0]
        if n_laws:
            self.laws.offset, self.laws.length = &offset[0], &length[0]
            self.laws.support = &support[0]
        if pool.shape[0]:
            self.laws.pool = &pool[0]


def best_final_sizes(
    opponents, laws, int64_t n_normal, int64_t n_quantiles, size, int n_threads=1
):
    """Room for the nodes of each game in :func:`best_final_nodes`.

    Parameters
    ----------
    opponents, laws : tuple
        As :func:`best_final_nodes` takes them.
    n_normal, n_quantiles : int
        The nodes of one and of several normal finals.
    size : numpy.ndarray
        int64, one per game: the output.
    n_threads : int
        Threads.

    Returns
    -------
    None
    """
    cdef Match g = Match(opponents, laws)
    cdef int64_t[::1] out = size
    cdef int64_t i
    if out.shape[0] != g.n:
        raise ValueError("size must have one entry per game")
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for i in prange(g.n, schedule="static"):
            out[i] = game_size(&g.o, &g.laws, i, n_normal, n_quantiles)


def best_final_nodes(opponents, laws, normal, nodes, int n_threads=1):
    """The law of the best final total among each game's opponents, as ascending nodes.

    Parameters
    ----------
    opponents : tuple
        ``(fin_best, fin_ties, ost, osc, n_unf)``: per game ``i``, the finished opponents'
        best total ``fin_best[i]`` (if ``fin_ties[i]`` > 0) and the turn-start states
        ``ost[i, k]`` and points ``osc[i, k]`` of the ``n_unf[i]`` still playing, who play
        max-EV (int64).
    laws : tuple
        ``(pool, offset, length, support)``:
        :class:`yahtzee_sim.exact.points_to_come.FutureLaws`.
    normal : tuple
        ``(mean, sd, z, z_weight)``: the moments of max-EV play and the standard-normal
        nodes used for one opponent's final.
    nodes : tuple
        ``(ptr, x, w, below, count)``, the output: game ``i`` gets ``x[ptr[i] : ptr[i] +
        count[i]]`` with weights ``w`` (summing to 1) and ``below`` (the weight of its nodes
        before each); ``ptr`` from the sizes of :func:`best_final_sizes`.
    n_threads : int
        Threads.

    Returns
    -------
    None
    """
    cdef Match g = Match(opponents, laws)
    cdef const double[::1] mean = normal[0], sd = normal[1], z = normal[2], zw = normal[3]
    cdef const int64_t[::1] ptr = nodes[0]
    cdef double[::1] x = nodes[1], w = nodes[2], below = nodes[3]
    cdef int64_t[::1] count = nodes[4]
    cdef Normal nm
    cdef Nodes nd
    cdef int64_t i
    cdef int failed = 0
    check_nodes(g, mean.shape[0], sd.shape[0], z.shape[0], zw.shape[0], ptr, nodes)
    if g.n == 0:
        return
    nm.mean, nm.sd, nm.cdf = &mean[0], &sd[0], cdf_tables()
    nm.z = nm.zw = NULL
    if z.shape[0]:
        nm.z, nm.zw = &z[0], &zw[0]
    nd.ptr, nd.count = &ptr[0], &count[0]
    if x.shape[0]:
        nd.x, nd.w, nd.below = &x[0], &w[0], &below[0]
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for i in prange(g.n, schedule="static"):
            if not game_nodes(&g.o, &g.laws, &nm, &nd, i):
                failed += 1
    if failed:
        raise MemoryError("best_final_nodes: out of memory")


cdef check_nodes(
    Match g, int64_t n_mean, int64_t n_sd, int64_t n_z, int64_t n_zw, const int64_t[::1] ptr,
    nodes,
):
    """Refuse node buffers too small for the games' nodes, or moments without an entry for
    an opponent's state (``ValueError``)."""
    cdef int64_t n_x = len(nodes[1])
    cdef int64_t i, k, need, room, lo, hi
    if ptr.shape[0] != g.n + 1 or len(nodes[4]) != g.n:
        raise ValueError("ptr must hold one offset per game and one more, count one per game")
    if len(nodes[2]) != n_x or len(nodes[3]) != n_x or (g.n and (ptr[0] < 0 or ptr[g.n] > n_x)):
        raise ValueError("x, w and below must be as long as the nodes ptr gives")
    if n_z != n_zw:
        raise ValueError("z and z_weight must have one entry per node")
    for i in range(g.n):
        room = ptr[i + 1] - ptr[i]
        need = game_size(&g.o, &g.laws, i, 1, 1)  # (normal finals: at least one node)
        if g.o.n_unf[i] == 1 and not exact_span(&g.o, &g.laws, i, &lo, &hi) and room > n_z:
            raise ValueError(f"game {i}: more nodes than z gives")
        if room < need:
            raise ValueError(f"game {i}: room for {room} nodes, {need} needed")
        for k in range(g.o.n_unf[i]):
            if g.o.ost[i * g.o.width + k] >= min(n_mean, n_sd):
                raise ValueError("mean and sd must have an entry for every state")
