# cython: language_level=3
"""The arrays of the regret pass of games with saved rolls as C structs, its scratch, and
the inline helpers of its loops (:mod:`yahtzee_sim._core.saved_regret`)."""

from libc.stdint cimport int8_t, int16_t, int64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.box_step cimport NEG
from yahtzee_sim._core.outcome_table cimport OutcomeTable
from yahtzee_sim._core.rules cimport Rules


# One level's positions, their reach and the strategy's decisions.
cdef struct Level:
    const int64_t* offset  # the layout's block_offset
    const int64_t* count  # the layout's upper_count
    const int64_t* pos  # n x 3: (used, upper, flag)
    const int64_t* hopeless  # n: the highest hopeless upper total of each mask
    const int64_t* group_ptr  # n_groups + 1
    const double* reach_in  # n x n_saved
    const int16_t* keep  # n x keep_layers x n_rolls
    const int8_t* cat  # n x cat_banks x n_rolls
    int64_t n_saved
    int64_t keep_layers
    int64_t cat_banks
    int64_t n_groups


# The per-position outputs (``kinds`` = levels + 1 kinds of loss, ``width`` next states).
cdef struct Out:
    double* loss  # n x kinds
    double* top_f  # n x kinds x 2: mass, loss
    int64_t* top_i  # n x kinds x 4: roll, optimal action, strategy's action, rerolls left
    double* by_cat  # n x n_boxes
    double* points  # n
    int64_t* o_idx  # n x width
    double* o_mass  # n x width
    int64_t* o_n  # n
    int64_t kinds
    int64_t width


# Scratch of a chunk's groups, up to ``max_nu`` lanes (widget lanes and positions).
cdef struct Scratch:
    double* p  # max_nu x n_rolls: each position's roll law
    double* q  # n_rolls x max_nu: turn ends (points, next state, index step per saved roll)
    int64_t* nxt
    int64_t* step
    double* w  # n_keeps
    double* fin  # n_rolls
    int64_t* keys  # max_nu x size: the positions' outcome tables (-1 empty)
    double* sums
    int64_t* order
    int64_t* cnt  # max_nu
    int64_t* top  # max_nu: the most rerolls left with mass
    int64_t* lane_bank  # max_nu: the bank whose turn ends q, nxt, step hold
    int64_t max_nu
    int64_t size


cdef inline bint new_scratch(
    const Rules* kr, int64_t max_nu, int64_t width, Scratch* s
) noexcept nogil:
    """Allocate ``s`` for groups of up to ``max_nu`` lanes, each with up to ``width`` next
    states (a table of twice as many slots or more, a power of two; keys -1); False if
    memory ran out (:func:`free_scratch` then frees what was taken)."""
    cdef int64_t size = 1
    cdef int64_t cells = kr.n_rolls * max_nu
    cdef int64_t e
    while size < 2 * width + 1:
        size *= 2
    s.max_nu = max_nu
    s.size = size
    s.p = <double*>malloc(cells * sizeof(double))
    s.q = <double*>malloc(cells * sizeof(double))
    s.nxt = <int64_t*>malloc(cells * sizeof(int64_t))
    s.step = <int64_t*>malloc(cells * sizeof(int64_t))
    s.w = <double*>malloc(kr.n_keeps * sizeof(double))
    s.fin = <double*>malloc(kr.n_rolls * sizeof(double))
    s.keys = <int64_t*>malloc(max_nu * size * sizeof(int64_t))
    s.sums = <double*>malloc(max_nu * size * sizeof(double))
    s.order = <int64_t*>malloc(max_nu * size * sizeof(int64_t))
    s.cnt = <int64_t*>malloc(max_nu * sizeof(int64_t))
    s.top = <int64_t*>malloc(max_nu * sizeof(int64_t))
    s.lane_bank = <int64_t*>malloc(max_nu * sizeof(int64_t))
    if (s.p == NULL or s.q == NULL or s.nxt == NULL or s.step == NULL or s.w == NULL
            or s.fin == NULL or s.keys == NULL or s.sums == NULL or s.order == NULL
            or s.cnt == NULL or s.top == NULL or s.lane_bank == NULL):
        return False
    for e in range(max_nu * size):
        s.keys[e] = -1
    return True


cdef inline void free_scratch(Scratch* s) noexcept nogil:
    free(s.p)
    free(s.q)
    free(s.nxt)
    free(s.step)
    free(s.w)
    free(s.fin)
    free(s.keys)
    free(s.sums)
    free(s.order)
    free(s.cnt)
    free(s.top)
    free(s.lane_bank)


cdef inline OutcomeTable lane_table(const Scratch* s, int64_t u) noexcept nogil:
    """The outcome table of the group's position ``u``."""
    cdef OutcomeTable t
    t.keys = s.keys + u * s.size
    t.sums = s.sums + u * s.size
    t.order = s.order + u * s.size
    t.count = s.cnt + u
    t.size = s.size
    return t


cdef inline void charge(
    const Out* o, int64_t i, int64_t kind, double mass, double d, int64_t r, int64_t j,
    int64_t best, int64_t chosen,
) noexcept nogil:
    """Add ``mass × d`` to loss ``kind`` of position ``i``, keeping its costliest decision
    (``top_f[i, kind] = (mass, loss)``, ``top_i[i, kind] = (roll, optimal action,
    strategy's action, rerolls left)``)."""
    cdef double e = mass * d
    cdef int64_t at = i * o.kinds + kind
    o.loss[at] += e
    if e > o.top_f[2 * at] * o.top_f[2 * at + 1]:
        o.top_f[2 * at] = mass
        o.top_f[2 * at + 1] = d
        o.top_i[4 * at] = r
        o.top_i[4 * at + 1] = best
        o.top_i[4 * at + 2] = chosen
        o.top_i[4 * at + 3] = j


cdef inline double best_reroll(
    const Rules* kr, const double* keep_vals, int64_t nu, int64_t j, int64_t r, int64_t t,
    int64_t* arg,
) noexcept nogil:
    """The value of the best keep of roll ``r`` that rolls on, ``j`` rerolls left, lane
    ``t`` (``NEG`` if none); the keep into ``arg`` (-1 if none)."""
    cdef double best = NEG
    cdef double v
    cdef int64_t e, k
    arg[0] = -1
    for e in range(kr.roll_keep_ptr[r], kr.roll_keep_ptr[r + 1]):
        k = kr.roll_keep_keep[e]
        v = keep_vals[(j * kr.n_keeps + k) * nu + t]
        if kr.keep_size[k] != kr.n_dice and v > best:
            best = v
            arg[0] = k
    return best


cdef inline int64_t group_lanes(const Level* L, int64_t a, int64_t b, int64_t* lo) noexcept nogil:
    """The number of lanes ``nu`` and, into ``lo``, the first of the upper totals ``lo .. lo
    + nu - 1`` the widget runs for positions ``a .. b - 1`` (one used-mask and flag, upper
    totals increasing). The hopeless totals ``0 .. hopeless[a]``
    (:func:`yahtzee_sim.solving.levels.upper_lanes`) hold equal optimal values, so one
    lane, the highest, serves them all (:func:`widget_lane`)."""
    cdef int64_t hi = L.pos[3 * (b - 1) + 1]
    cdef int64_t h = L.hopeless[a]
    lo[0] = L.pos[3 * a + 1]
    if 0 < h and lo[0] <= h:
        lo[0] = h
    return max(hi, lo[0]) - lo[0] + 1


cdef inline int64_t widget_lane(int64_t upper, int64_t lo) noexcept nogil:
    """The widget's lane of upper total ``upper`` (:func:`group_lanes`: totals below ``lo``
    are hopeless and read lane 0)."""
    return max(upper - lo, 0)
