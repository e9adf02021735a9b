# cython: language_level=3
"""Many games' turns in few widget calls, in the compiled core: the games of a turn,
whatever their states, run ``TILE`` at a time as the lanes of one
:func:`.widget.widget_mixed` call with caller-given box values (a box a lane has filled is
valued ``NEG`` there; only the box step depends on the state, the keep steps are the
dice's). The tile pieces here are shared by the batched decision kernels
(:mod:`yahtzee_sim._core.batched`) and the win values (:mod:`yahtzee_sim._core.win_values`).

Outputs in tile layout (:class:`Decisions`, :func:`yahtzee_sim._core.batched.decision_buffers`):
``keep`` (tiles x layers x rolls x ``TILE``, int16) and ``cat`` (tiles x rolls x ``TILE``,
int8); row ``p`` in tile ``p // TILE``, lane ``p % TILE``.
"""

from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t

from yahtzee_sim._core.box_step cimport NEG
from yahtzee_sim._core.keep_steps cimport best_keep_at
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.widget cimport widget_mixed
from yahtzee_sim._core.work cimport Work

cpdef enum:
    TILE = 64  # games run as the lanes of one widget call
    CHUNKS = 16  # parallel work units per call (each with its own widget work buffer)
    SPAN = 32  # widest run of lanes of one state whose box values one box_values call fills

cdef struct Decisions:
    int16_t* keep  # tiles x layers x rolls x TILE: the best keep with j rerolls left (j - 1)
    int8_t* cat  # tiles x rolls x TILE: the best box
    int64_t layers  # keep's second axis


cdef object check_decisions(Rules r, object order, int64_t n, object keep, object cat)
cdef object check_states(Rules r, object used, object upper, object flag)


cdef inline void tile_plan(int64_t n, int64_t* n_tiles, int64_t* n_chunks) noexcept nogil:
    """The tiles of a batched kernel over ``n`` rows (``TILE`` rows a tile) and its parallel
    chunks (tile ``k`` run by chunk ``k % n_chunks``; at most ``CHUNKS``)."""
    n_tiles[0] = (n + TILE - 1) // TILE
    n_chunks[0] = min(n_tiles[0], <int64_t>CHUNKS)


cdef inline int64_t tile_width(int64_t n, int64_t k) noexcept nogil:
    """The rows of tile ``k`` of ``n`` rows: ``TILE``, the last tile fewer."""
    return min(n, (k + 1) * TILE) - k * TILE


cdef inline void copy_decisions(
    const Rules* kr, const Work* work, int64_t k, int64_t nu, Decisions* out, int64_t layers
) noexcept nogil:
    """The decisions a widget run over tile ``k``'s ``nu`` lanes recorded (``work.cat``,
    ``work.keep``) into the tile's block of ``out``: the boxes and the keeps with ``1 ..
    layers - 1`` rerolls left."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t r, t, j
    cdef int8_t* cat
    cdef int16_t* keep
    for r in range(n_rolls):
        cat = out.cat + (k * n_rolls + r) * TILE
        for t in range(nu):
            cat[t] = <int8_t>work.cat[r * nu + t]
        for j in range(1, layers):
            keep = out.keep + ((k * out.layers + j - 1) * n_rolls + r) * TILE
            for t in range(nu):
                keep[t] = <int16_t>work.keep[(j * n_rolls + r) * nu + t]


cdef inline double* solve_tile(
    const Rules* kr, const int64_t* used, const int64_t* flag, const int64_t* rows, int64_t nu,
    int64_t k, Work* work, int64_t* tile_used, int64_t* tile_flag, Decisions* out, bint top,
) noexcept nogil:
    """Tile ``k`` (games ``rows``, ``nu`` of them; box values already in ``work.val`` and
    ``work.val_bonus``): one :func:`.widget.widget_mixed` call over the games' filled boxes
    and flags (copied to ``tile_used``, ``tile_flag``), its decisions copied into ``out``
    (``top`` False: not those of the first roll, see :func:`first_roll_keeps`); returns the
    widget's rows ``W``."""
    cdef int64_t t
    cdef double* W
    for t in range(nu):
        tile_used[t] = used[rows[t]]
        tile_flag[t] = flag[rows[t]]
    W = widget_mixed(kr, tile_used, tile_flag, nu, work, top)
    copy_decisions(kr, work, k, nu, out, kr.rolls if top else kr.rolls - 1)
    return W


cdef inline void first_roll_keeps(
    const Rules* kr, const double* W, int64_t k, int64_t nu, const int64_t* first_ptr,
    const int64_t* first_roll, int64_t* first_keep, double* best, int64_t* arg,
) noexcept nogil:
    """The best keeps at the first rolls of tile ``k``'s rows: row ``p``'s rolls are
    ``first_roll[first_ptr[p] : first_ptr[p + 1]]``, their keeps go to the same entries of
    ``first_keep``; ``W`` holds the keep values with every reroll left (a widget run with
    ``top`` False). Taking the best keep at the rolls that occurred, rather than recording
    it at every roll, spares a recorded best-keep step per tile."""
    cdef int64_t t, p, e
    for t in range(nu):
        p = k * TILE + t
        for e in range(first_ptr[p], first_ptr[p + 1]):
            first_keep[e] = best_keep_at(kr, W, nu, t, first_roll[e], best, arg)


cdef inline void n_of_a_kind_slots(const Rules* kr, uint8_t* mask) noexcept nogil:
    """``mask[s]``: whether slot ``s`` can score an n-of-a-kind roll (its points, or its
    joker points, in some box) — the only slots whose values a roll's Yahtzee bonus
    changes (``val_bonus`` of :func:`.box_step.box_step`)."""
    cdef int64_t s, r, c, i, p, at
    for s in range(kr.n_slots):
        mask[s] = 0
    for r in range(kr.n_rolls):
        if kr.yahtzee_face[r] < 0:
            continue
        for c in range(kr.n_boxes):
            at = r * kr.n_boxes + c
            for i in range(2):
                p = kr.score_table[at] if i == 0 else kr.joker_table[at]
                if 0 <= p < kr.points_width and kr.points_slot[c * kr.points_width + p] >= 0:
                    mask[kr.points_slot[c * kr.points_width + p]] = 1


cdef inline void copy_box_values(
    const Rules* kr, int64_t used, const double* src, int64_t width, int64_t col, double* dst,
    int64_t nu, int64_t t,
) noexcept nogil:
    """Lane ``t`` of ``dst`` (slots x ``nu``) = column ``col`` of box values ``src`` (slots x
    ``width``) for the open boxes, ``NEG`` for the filled ones (as
    :func:`.box_step.mask_used_boxes`)."""
    cdef int64_t c, s
    cdef double v
    for c in range(kr.n_boxes):
        v = NEG if (used >> c) & 1 else 0.0
        if v == 0.0:
            for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                dst[s * nu + t] = src[s * width + col]
        else:
            for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                dst[s * nu + t] = v
