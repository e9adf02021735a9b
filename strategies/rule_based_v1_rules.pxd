# cython: language_level=3
"""Glenn's 2007 keep and scoring rules as "Simulating Yahtzee"'s text reads them (v1) for one
game, ``inline`` for ``rule_based_v1_kernels``: Table V's keep, Table VI's box, and the
"Prioritize Upper Section" and "Prioritize Yahtzee" variants over them. A roll's face
counts ``c`` are a row of ``N_FACES`` ``int8`` counts; ``p`` its legal points (-1: illegal).
"""

from libc.math cimport fabs
from libc.stdint cimport int8_t, int16_t, int64_t

from strategies.yahtzee_boxes cimport (
    CHANCE,
    FIVES,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    N_BOXES,
    N_FACES,
    SIXES,
    SMALL_STRAIGHT,
    THREE_OF_A_KIND,
    YAHTZEE,
    FaceScan,
    face_scan,
    keep_every_die,
    read_open_boxes,
    run_start,
)


cdef inline void keep_row(
    const int8_t* c, int64_t u, int64_t flag, bint joker, int8_t* o
) noexcept nogil:
    """Table V for one game: the kept face counts into ``o``."""
    cdef bint op[N_BOXES]
    cdef FaceScan s
    cdef int64_t f, r4, lo
    cdef bint s345, s234
    read_open_boxes(u, op)
    for f in range(N_FACES):
        o[f] = 0
    s = face_scan(c, op, True)
    if s.big == 5 and (op[YAHTZEE] or joker):
        keep_every_die(o, c)
        return
    if run_start(c, 5) >= 0 and (op[LARGE_STRAIGHT] or op[SMALL_STRAIGHT]):
        keep_every_die(o, c)
        return
    r4 = run_start(c, 4)
    if r4 >= 0 and (op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and op[CHANCE])):
        for f in range(r4, r4 + 4):
            o[f] = 1
        return
    if s.f3 >= 0 and op[s.f3]:
        o[s.f3] = c[s.f3]
        return
    if s.f3 >= 0 and (op[THREE_OF_A_KIND] or op[FOUR_OF_A_KIND] or op[FULL_HOUSE] or op[CHANCE]):
        o[s.f3] = c[s.f3]
        return
    if s.pair_open_hi >= 0:
        o[s.pair_open_hi] = 2
        return
    s345 = c[2] > 0 and c[3] > 0 and c[4] > 0
    s234 = c[1] > 0 and c[2] > 0 and c[3] > 0
    if (s345 or s234) and (op[SMALL_STRAIGHT] or (op[LARGE_STRAIGHT] and op[CHANCE])):
        lo = 2 if s345 else 1
        for f in range(lo, lo + 3):
            o[f] = 1
        return
    if s.pair_hi >= 0 and (op[THREE_OF_A_KIND] or op[CHANCE]):
        o[s.pair_hi] = 2
        return
    if s.f3 >= 0 and (op[YAHTZEE] or flag >= 1):
        o[s.f3] = c[s.f3]
        return
    last_rules_keep(c, op, &s, o)


cdef inline void last_rules_keep(
    const int8_t* c, const bint* op, const FaceScan* s, int8_t* o
) noexcept nogil:
    """Table V's last rules: a low singleton of an open upper box (four open at most), any
    doubleton, a singleton 4, 5 or 6 (high preferred) if 3K, 4K or Chance is open."""
    cdef int64_t f
    cdef int64_t low
    if s.n_open_upper <= 4:
        low = -1
        for f in range(N_FACES):
            if c[f] >= 1 and op[f]:
                low = f
                break
        if low >= 0:
            o[low] = 1
            return
    if s.pair_hi >= 0:
        o[s.pair_hi] = 2
        return
    if op[THREE_OF_A_KIND] or op[FOUR_OF_A_KIND] or op[CHANCE]:
        for f in range(5, 2, -1):
            if c[f] >= 1:
                o[f] = 1
                break


cdef inline int64_t throw_away_box(
    const int16_t* p, const int64_t* throw_away, int64_t n_throw_away, bint skip4k
) noexcept nogil:
    """The first legal box of ``throw_away`` (Four of a kind skipped when ``skip4k``)."""
    cdef int64_t j
    cdef int64_t b
    for j in range(n_throw_away):
        b = throw_away[j]
        if b == FOUR_OF_A_KIND and skip4k:
            continue
        if p[b] >= 0:
            return b
    return FOUR_OF_A_KIND  # only Four of a kind left in round 1: no choice


cdef inline int64_t box_row(
    const int8_t* c, const int16_t* p, int64_t up, bint skip4k, const int64_t* throw_away,
    int64_t n_throw_away,
) noexcept nogil:
    """Table VI for one game (``p``: legal points, -1 illegal): the box chosen."""
    cdef int64_t total = 0
    cdef int64_t f3 = -1
    cdef int64_t big = 0
    cdef int64_t f
    cdef int64_t choice = -1
    for f in range(N_FACES):
        total += (f + 1) * c[f]
        big = max(big, <int64_t>c[f])
        if c[f] >= 3:
            f3 = f
    if big == 5 and p[YAHTZEE] > 0:
        choice = YAHTZEE
    elif p[LARGE_STRAIGHT] > 0:
        choice = LARGE_STRAIGHT
    elif p[SMALL_STRAIGHT] > 0:
        choice = SMALL_STRAIGHT
    elif f3 >= 0 and p[f3] >= 0 and up < 63 and up + c[f3] * (f3 + 1) >= 63:
        choice = f3
    elif c[5] >= 4 and p[SIXES] >= 0:
        choice = SIXES
    elif c[4] >= 4 and p[FIVES] >= 0:
        choice = FIVES
    elif p[FOUR_OF_A_KIND] > 0 and not skip4k:
        choice = FOUR_OF_A_KIND
    elif c[5] >= 3 and p[SIXES] >= 0:
        choice = SIXES
    elif c[4] >= 3 and p[FIVES] >= 0:
        choice = FIVES
    elif p[FULL_HOUSE] > 0:
        choice = FULL_HOUSE
    elif p[THREE_OF_A_KIND] >= 22:
        choice = THREE_OF_A_KIND
    elif f3 >= 0 and p[f3] >= 0:
        choice = f3
    elif p[THREE_OF_A_KIND] > 0:
        choice = THREE_OF_A_KIND
    elif total >= 22 and p[CHANCE] >= 0:
        choice = CHANCE
    else:
        for f in range(N_FACES):
            if c[f] == 2 and p[f] >= 0:
                choice = f
                break
    if choice < 0:
        choice = throw_away_box(p, throw_away, n_throw_away, skip4k)
    return choice


cdef inline void upper_keep_row(
    const int8_t* counts, int64_t used, int64_t upper_total, int8_t* o
) noexcept nogil:
    """Prioritize Upper Section's keep of one game over the rules' keep in ``o``."""
    cdef int64_t n_dice = 5
    cdef int64_t f, best_f, c
    cdef double best, v
    if upper_total >= 63:
        return
    best = -1.0
    best_f = -1
    for f in range(N_FACES):
        if (used >> f) & 1:
            continue
        c = counts[f]
        v = (f + 1) * (c + (n_dice - c) / 6.0)
        # best_f >= 0 whenever the tie is read (best starts below every value)
        if v > best + 1e-12 or (fabs(v - best) <= 1e-12 and c > counts[best_f]):
            best = v
            best_f = f
    if best_f >= 0:
        for f in range(N_FACES):
            o[f] = counts[f] if f == best_f else 0


cdef inline int64_t upper_box_row(
    const int8_t* counts, const int16_t* p, int64_t upper_total, int64_t choice
) noexcept nogil:
    """Prioritize Upper Section's box of one game over the rules' ``choice``."""
    cdef int64_t f, best, best_f
    cdef bint five = False
    for f in range(N_FACES):
        if counts[f] == 5:
            five = True
    if five and p[YAHTZEE] > 0:
        return YAHTZEE
    if upper_total >= 63:
        return choice
    best = 0
    best_f = -1
    for f in range(N_FACES):
        if p[f] > best:
            best = p[f]
            best_f = f
    return best_f if best_f >= 0 else choice


cdef inline void yahtzee_keep_row(
    const int8_t* counts, int64_t used, bint earned, int8_t* o
) noexcept nogil:
    """Prioritize Yahtzee's keep of one game over the rules' keep in ``o``."""
    cdef int64_t f, best_f, c, cb
    cdef bint open_f, open_b
    if earned:
        return
    best_f = -1
    for f in range(5, -1, -1):
        if best_f < 0:
            best_f = f
            continue
        c = counts[f]
        cb = counts[best_f]
        open_f = ((used >> f) & 1) == 0
        open_b = ((used >> best_f) & 1) == 0
        if c > cb or (c == cb and open_f and not open_b):
            best_f = f
    for f in range(N_FACES):
        o[f] = counts[f] if f == best_f else 0
