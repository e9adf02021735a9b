# cython: language_level=3
"""The scoring of "Simulating Yahtzee"'s program (Table VI as it reads it, v2) for one game,
``inline`` for ``rule_based_v2_kernels``: the box of a roll, where a bonus Yahtzee goes, and
when Prioritize Upper Section's scoring applies. ``p`` is a row of legal points (-1:
illegal) widened to ``int64``; ``rank`` each box's position in the tie order.
"""

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
)


cdef inline int64_t first_by_rank(
    const int64_t* p, const int64_t* rank, int64_t points, bint last
) noexcept nogil:
    """The box with ``p[b] == points`` (legal) first (``last``: last) in the tie order."""
    cdef int64_t best = -1
    cdef int64_t b
    for b in range(N_BOXES):
        if p[b] == points and p[b] >= 0:
            if best < 0 or ((rank[b] > rank[best]) if last else (rank[b] < rank[best])):
                best = b
    return best


cdef inline int64_t last_legal(const int64_t* p, const int64_t* rank, int64_t n) noexcept nogil:
    """The legal box (``p[b] >= 0``) among the first ``n`` that comes last in the tie order."""
    cdef int64_t pick = -1
    cdef int64_t b
    for b in range(n):
        if p[b] >= 0 and (pick < 0 or rank[b] > rank[pick]):
            pick = b
    return pick


cdef inline int64_t bonus_box(const int64_t* p, int64_t face, const int64_t* rank) noexcept nogil:
    """Where the program writes a bonus Yahtzee of ``face`` (0-based)."""
    cdef int64_t best = -1
    cdef int64_t best_lower = -1
    cdef bint upper_legal = False
    cdef int64_t b, top
    cdef int64_t steal[N_BOXES]  # the scores a joker would "steal"
    if p[face] >= 0:
        return face
    for b in range(N_BOXES):
        best = max(best, p[b])
        if b < N_FACES:
            upper_legal = upper_legal or p[b] >= 0
        else:
            best_lower = max(best_lower, p[b])
    if best == 0 and upper_legal:  # only zeros: an upper box, the last in the tie order
        return last_legal(p, rank, N_FACES)
    if p[THREE_OF_A_KIND] >= 0 or p[FOUR_OF_A_KIND] >= 0:  # Chance, 3K, 4K (last first)
        return first_by_rank(p, rank, best_lower, True)
    for b in range(N_BOXES):
        steal[b] = -1
    steal[FULL_HOUSE] = 25 if p[FULL_HOUSE] >= 0 else -1
    steal[SMALL_STRAIGHT] = 30 if p[SMALL_STRAIGHT] >= 0 else -1
    steal[LARGE_STRAIGHT] = 25 if p[LARGE_STRAIGHT] >= 0 else -1
    steal[CHANCE] = p[CHANCE]
    top = steal[0]
    for b in range(1, N_BOXES):
        top = max(top, steal[b])
    if top >= 0:
        return first_by_rank(steal, rank, top, True)
    return last_legal(p, rank, N_BOXES)


cdef inline bint upper_scoring_applies(const int64_t* p, int64_t upper_total) noexcept nogil:
    """Prioritize Upper Section scoring: the bonus is still to earn and reachable, some
    open upper box scores, and the last open one (if only one) can reach 63."""
    cdef int64_t n_open = 0
    cdef int64_t top = 0
    cdef int64_t reach = 0
    cdef int64_t f
    for f in range(N_FACES):
        if p[f] >= 0:
            n_open += 1
            top = max(top, p[f])
            reach += 4 * (f + 1)
    if top == 0 or (n_open == 1 and upper_total + top < 63):
        return False
    return upper_total < 63 and upper_total + reach >= 63


cdef inline int64_t most_upper_points(const int64_t* p, const int64_t* rank) noexcept nogil:
    """The upper box with the most points; ties by the tie order."""
    cdef int64_t choice = -1
    cdef int64_t f
    for f in range(N_FACES):
        if p[f] >= 0 and (
            choice < 0 or p[f] > p[choice] or (p[f] == p[choice] and rank[f] < rank[choice])
        ):
            choice = f
    return choice


cdef inline int64_t program_box_row(
    const int8_t* c,
    const int16_t* pts,
    int64_t u,
    bint bonus_open,
    bint first_round,
    const int64_t* rank,
    bint upper_first,
) noexcept nogil:
    """Table VI as the program reads it, for one game: the box chosen."""
    cdef int64_t p[N_BOXES]
    cdef int64_t five = -1
    cdef int64_t triple = -1  # the program's "tripleton box": points == 3 x (box index + 1)
    cdef int64_t doubled = -1  # ... "doubleton": points >= 2 x (box index + 1)
    cdef int64_t f, b, top
    for b in range(N_BOXES):
        p[b] = pts[b]
    for f in range(N_FACES):
        if c[f] == 5:
            five = f
    for b in range(N_BOXES - 1, -1, -1):
        if p[b] >= 0 and p[b] == 3 * (b + 1):
            triple = b
        if p[b] >= 0 and p[b] >= 2 * (b + 1):
            doubled = b
    if five >= 0 and bonus_open:
        return bonus_box(p, five, rank)
    if five >= 0 and p[YAHTZEE] > 0:
        return YAHTZEE
    if upper_first and upper_scoring_applies(p, u):
        return most_upper_points(p, rank)
    if p[LARGE_STRAIGHT] > 0:
        return LARGE_STRAIGHT
    if p[SMALL_STRAIGHT] > 0:
        return SMALL_STRAIGHT
    if triple >= 0 and u < 63 and p[triple] >= 63 - u:
        return triple
    if p[FIVES] == 20:
        return FIVES
    if p[SIXES] == 24:
        return SIXES
    if p[FOUR_OF_A_KIND] > 0 and not first_round:
        return FOUR_OF_A_KIND
    if p[FIVES] == 15:
        return FIVES
    if p[SIXES] == 18:
        return SIXES
    if p[FULL_HOUSE] > 0:
        return FULL_HOUSE
    if p[THREE_OF_A_KIND] >= 22:
        return THREE_OF_A_KIND
    if triple >= 0:
        return triple
    if p[THREE_OF_A_KIND] > 0:
        return THREE_OF_A_KIND
    if p[CHANCE] >= 22:
        return CHANCE
    if doubled >= 0:
        return doubled
    top = p[0]
    for b in range(1, N_BOXES):
        top = max(top, p[b])
    return first_by_rank(p, rank, top, top == 0)
