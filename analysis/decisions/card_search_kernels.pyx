# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The card search's kernels in the compiled core
(:mod:`yahtzee_sim.analysis.decisions.card_search`): the graded value of given moves, and
the summed gains of every two-condition rule. The pair sums run on OpenMP threads over a
fixed number of partial sums, added in a fixed order, so they do not depend on the number
of threads.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport NAN
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc


def option_values(ptr, acts, vals, rows, actions):
    """The graded value of move ``actions[i, a]`` at decision ``rows[i]`` (NaN where it is
    not one of the decision's options).

    Parameters
    ----------
    ptr : int array (n_decisions + 1,)
        Decision ``p``'s options are entries ``ptr[p] .. ptr[p + 1] - 1`` of ``acts``, ``vals``.
    acts, vals : int and float64 arrays
        Each option's action and value.
    rows : int array (n,)
        The decisions asked about.
    actions : int array (n, A)
        The moves asked about at each.

    Returns
    -------
    float64 array (n, A)
    """
    cdef const int64_t[::1] p = np.ascontiguousarray(ptr, dtype=np.int64)
    cdef const int64_t[::1] act = np.ascontiguousarray(acts, dtype=np.int64)
    cdef const double[::1] val = np.ascontiguousarray(vals, dtype=np.float64)
    cdef const int64_t[::1] row = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const int64_t[:, ::1] moves = np.ascontiguousarray(actions, dtype=np.int64)
    out = np.empty((moves.shape[0], moves.shape[1]))
    cdef double[:, ::1] o = out
    cdef int64_t i, a, e, d
    if row.shape[0] != moves.shape[0]:
        raise ValueError("rows and actions must have one entry per decision asked about")
    if p.shape[0] < 1 or (np.diff(p) < 0).any() or p[0] < 0 or p[p.shape[0] - 1] > act.shape[0]:
        raise ValueError("ptr must be non-decreasing offsets into acts")
    if val.shape[0] != act.shape[0]:
        raise ValueError("acts and vals must have one entry per option")
    if row.shape[0] and (np.asarray(row).min() < 0 or np.asarray(row).max() >= p.shape[0] - 1):
        raise ValueError(f"rows must be decisions 0..{p.shape[0] - 2}")
    with nogil:
        for i in range(row.shape[0]):
            d = row[i]
            for a in range(moves.shape[1]):
                o[i, a] = NAN
                for e in range(p[d], p[d + 1]):
                    if act[e] == moves[i, a]:
                        o[i, a] = val[e]
                        break
    return out


cdef bint pair_chunk(
    const uint8_t* X, const uint8_t* allowed, const double* gain, const uint8_t* bottom,
    int64_t P, int64_t L, int64_t A, double* G, int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The decisions ``chunk, chunk + n_chunks, ...`` added into ``G`` (this chunk's partial
    sums, ``(2, L + 1, L + 1, A)``); False if out of memory."""
    cdef int64_t* idx = <int64_t*>malloc((L + 1) * sizeof(int64_t))
    cdef int64_t side = (L + 1) * (L + 1) * A
    cdef int64_t p, n, i, u, v, m, at
    cdef const double* g
    if idx == NULL:
        return False
    p = chunk
    while p < P:
        n = 0
        for i in range(L):
            if X[p * L + i] and allowed[i]:
                idx[n] = i
                n += 1
        idx[n] = L
        n += 1
        g = gain + p * A
        for u in range(n):
            for v in range(u, n):
                at = (idx[u] * (L + 1) + idx[v]) * A
                for m in range(A):
                    G[at + m] += g[m]
                if bottom[p]:
                    for m in range(A):
                        G[side + at + m] += g[m]
        p += n_chunks
    free(idx)
    return True


cdef object as_bytes(object flags, str name, int ndim):
    """A bool array as C-contiguous bytes (0 or 1 each)."""
    flags = np.ascontiguousarray(flags)
    if flags.dtype != np.bool_ or flags.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d bool array, got {flags.dtype} {flags.shape}")
    return flags.view(np.uint8)


def pair_gains(X, allowed, gain, bottom, int64_t n_chunks, int n_threads=1):
    """Summed gains of every rule ``if a and b: move`` over the decisions where it holds.

    Parameters
    ----------
    X : bool array (P, L)
        The conditions that hold at each decision.
    allowed : bool array (L,)
        The conditions a rule may use.
    gain : float64 array (P, A)
        Each move's gain at each decision.
    bottom : bool array (P,)
        The decisions no rule of the section takes yet.
    n_chunks : int
        Partial sums (fixed: the result depends on it, not on the threads).
    n_threads : int
        Threads to run on.

    Returns
    -------
    float64 array (2, L + 1, L + 1, A)
        ``G[w, a, b, move]`` with ``a <= b``: ``w = 0`` over every decision, ``w = 1`` over
        the bottom ones; index ``L`` stands for "no condition".
    """
    cdef const uint8_t[:, ::1] x = as_bytes(X, "X", 2)
    cdef const uint8_t[::1] ok = as_bytes(allowed, "allowed", 1)
    cdef const uint8_t[::1] low = as_bytes(bottom, "bottom", 1)
    cdef const double[:, ::1] g = np.ascontiguousarray(gain, dtype=np.float64)
    cdef int64_t P = x.shape[0]
    cdef int64_t L = x.shape[1]
    cdef int64_t A = g.shape[1]
    cdef int64_t chunk
    cdef int failed = 0
    if n_chunks < 1:
        raise ValueError(f"n_chunks must be at least 1, got {n_chunks}")
    if g.shape[0] != P or low.shape[0] != P or ok.shape[0] != L:
        raise ValueError(f"gain and bottom need {P} rows, allowed {L} entries")
    parts = np.zeros((n_chunks, 2, L + 1, L + 1, A))
    cdef double[:, :, :, :, ::1] G = parts
    if P and A:
        with nogil, parallel(num_threads=max(n_threads, 1)):
            for chunk in prange(n_chunks, schedule="dynamic"):
                if not pair_chunk(&x[0, 0], &ok[0] if L else NULL, &g[0, 0], &low[0], P, L, A,
                                  &G[chunk, 0, 0, 0, 0], chunk, n_chunks):
                    failed += 1
    if failed:
        raise MemoryError("pair_gains: out of memory")
    out = np.zeros((2, L + 1, L + 1, A))
    for chunk in range(n_chunks):
        out += parts[chunk]
    return out
