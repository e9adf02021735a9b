# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The random strategies' decisions in the compiled core (:mod:`yahtzee_sim.strategies.random`):
dice kept and boxes chosen at random, every draw from the strategy's own counter-based
stream (:mod:`yahtzee_sim._core.rng`), so a game's choices depend only on its seed.
"""

import numpy as np

from libc.stdint cimport int8_t, int64_t, uint64_t

from yahtzee_sim._core.bundle cimport rules_of
from yahtzee_sim._core.rng cimport game_key, to_unit, word
from yahtzee_sim._core.rules cimport Rules, box_legal_points, joker_case

cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long x) nogil

cdef enum:
    MAX_DICE = 63  # most dice a keep draws for (the bits of one word, less the one dropped)


cdef void keep_each_die(
    const int8_t* counts, int64_t F, uint64_t gk, uint64_t key1, int64_t base, int8_t* out
) noexcept nogil:
    """Keep each die with probability 1/2: die ``j`` (in sorted face order) is kept when
    bit ``j`` of the decision's word (shifted right once) is set."""
    cdef int64_t w = <int64_t>(word(gk, key1, base) >> 1)
    cdef int64_t f, c
    for f in range(F):
        c = counts[f]
        out[f] = <int8_t>popcount(<unsigned long long>(w & ((<int64_t>1 << c) - 1)))
        w >>= c


cdef void keep_tiered(
    const int8_t* counts, int64_t F, uint64_t gk, uint64_t key1, int64_t base, int8_t* out,
    int64_t* faces,
) noexcept nogil:
    """Keep a uniform number of dice (0..n), chosen uniformly at random: a partial
    Fisher-Yates shuffle of the dice in sorted face order (``faces``: scratch)."""
    cdef int64_t n = 0
    cdef int64_t f, k, j, r, n_keep, t
    for f in range(F):
        out[f] = 0
        for k in range(counts[f]):
            faces[n] = f
            n += 1
    n_keep = <int64_t>(to_unit(word(gk, key1, base)) * <double>(n + 1))
    for j in range(n_keep):  # the first n_keep positions become a uniform subset
        r = j + <int64_t>(to_unit(word(gk, key1, base + 1 + j)) * <double>(n - j))
        t = faces[j]
        faces[j] = faces[r]
        faces[r] = t
        out[faces[j]] += 1


cdef bint counts_valid(const int8_t[:, ::1] c) noexcept nogil:
    """Every row holds face counts (none negative) of at most ``MAX_DICE`` dice."""
    cdef int64_t i, f, total
    for i in range(c.shape[0]):
        total = 0
        for f in range(c.shape[1]):
            if c[i, f] < 0:
                return False
            total += c[i, f]
        if total > MAX_DICE:
            return False
    return True


def random_keep(counts, games, uint64_t key0, uint64_t key1, int64_t base, bint tiered):
    """The dice kept: each die with probability 1/2, or (``tiered``) a uniform number of
    dice chosen uniformly at random.

    Parameters
    ----------
    counts : int8 array (m, n_faces)
        The dice of each game (face counts).
    games : int64 array (m,)
        The game of each row (its draws are a function of the game).
    key0, key1 : int
        The strategy's key pair.
    base : int
        The decision's first counter.
    tiered : bool
        Tiered (uniform count) rather than purely random.

    Returns
    -------
    int8 array (m, n_faces)
        The face counts kept.
    """
    cdef const int8_t[:, ::1] c = np.ascontiguousarray(counts, dtype=np.int8)
    cdef const int64_t[::1] g = np.ascontiguousarray(games, dtype=np.int64)
    cdef int64_t m = c.shape[0]
    cdef int64_t F = c.shape[1]
    out = np.zeros((m, F), dtype=np.int8)
    cdef int8_t[:, ::1] o = out
    cdef int64_t faces[MAX_DICE]
    cdef int64_t i
    if g.shape[0] != m:
        raise ValueError(f"games must have one entry per row of counts ({m})")
    if m == 0 or F == 0:
        return out
    if not counts_valid(c):
        raise ValueError(f"counts must be face counts of at most {MAX_DICE} dice")
    with nogil:
        for i in range(m):
            if tiered:
                keep_tiered(&c[i, 0], F, game_key(key0, g[i]), key1, base, &o[i, 0], faces)
            else:
                keep_each_die(&c[i, 0], F, game_key(key0, g[i]), key1, base, &o[i, 0])
    return out


cdef int64_t pick_box(
    const Rules* kr, int64_t roll, int64_t used, int64_t flag, uint64_t gk, uint64_t key1,
    int64_t base, int64_t* pts,
) noexcept nogil:
    """A Yahtzee roll's open Yahtzee box, else a uniform choice among the legal boxes that
    score more than zero (among all legal boxes if none does); -1 if none is legal."""
    cdef int64_t case = joker_case(kr, roll, used, flag)
    cdef int64_t n_pos = 0, n_legal = 0
    cdef int64_t c, p, pool, target
    cdef int64_t yi = kr.yahtzee_index
    cdef bint ok
    for c in range(kr.n_boxes):
        p = box_legal_points(kr, case, roll, used, c)
        pts[c] = p
        if p > 0:
            n_pos += 1
        if p >= 0:
            n_legal += 1
    if yi >= 0 and kr.yahtzee_face[roll] >= 0 and pts[yi] > 0:
        return yi
    pool = n_pos if n_pos > 0 else n_legal
    target = <int64_t>(to_unit(word(gk, key1, base)) * <double>pool)
    for c in range(kr.n_boxes):
        ok = pts[c] > 0 if n_pos > 0 else pts[c] >= 0
        if ok:
            if target == 0:
                return c
            target -= 1
    return -1


cdef bint all_within(const int64_t[::1] values, int64_t stop) noexcept nogil:
    """Every value lies in ``0 .. stop - 1``."""
    cdef int64_t i
    for i in range(values.shape[0]):
        if values[i] < 0 or values[i] >= stop:
            return False
    return True


def random_box(kr, roll_idx, used, flag, games, uint64_t key0, uint64_t key1, int64_t base):
    """The box chosen: a Yahtzee roll goes in the open Yahtzee box; otherwise a uniform
    choice among the legal boxes that score more than zero (among all legal boxes if none
    does).

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    roll_idx, used, flag, games : int arrays (m,)
        Each game's roll, used-mask, flag and game number.
    key0, key1 : int
        The strategy's key pair.
    base : int
        The decision's first counter.

    Returns
    -------
    int64 array (m,)
        The box of each game (-1 where no box is legal).
    """
    cdef Rules r = rules_of(kr)
    cdef const int64_t[::1] rolls = np.ascontiguousarray(roll_idx, dtype=np.int64)
    cdef const int64_t[::1] u = np.ascontiguousarray(used, dtype=np.int64)
    cdef const int64_t[::1] f = np.ascontiguousarray(flag, dtype=np.int64)
    cdef const int64_t[::1] g = np.ascontiguousarray(games, dtype=np.int64)
    cdef int64_t m = rolls.shape[0]
    out = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] o = out
    cdef int64_t[::1] pts = np.empty(max(r.n_boxes, 1), dtype=np.int64)
    cdef int64_t i
    if u.shape[0] != m or f.shape[0] != m or g.shape[0] != m:
        raise ValueError(f"roll_idx, used, flag and games must have {m} entries each")
    if m == 0:
        return out
    if not all_within(rolls, r.n_rolls):
        raise ValueError(f"roll indices must lie in 0..{r.n_rolls - 1}")
    if not all_within(u, <int64_t>1 << r.n_boxes):
        raise ValueError(f"used-masks must lie in 0..{(1 << r.n_boxes) - 1}")
    with nogil:
        for i in range(m):
            o[i] = pick_box(&r, rolls[i], u[i], f[i], game_key(key0, g[i]), key1, base, &pts[0])
    return out
