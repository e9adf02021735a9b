# cython: language_level=3
"""Scratch and recording buffers of widget runs in the compiled core, allocated once per
chunk of states (:func:`new_work`) and freed by :func:`free_work`; each run views them
with its own number of lanes ``nu`` (row stride ``nu``; a per-level record is ``levels``
blocks of rows, block ``j`` at ``j * rows * nu``).

Recording levels (``work.record``, fixed at allocation): 0 nothing; 1 the best box of
every roll (``cat``; per level in games with saved rolls, ``cat_levels``) and the best
keep of every roll with ``j`` rerolls left (``keep``, ``j >= 1``); 2 also the value of
every keep and of every roll with ``j`` rerolls left (``keep_vals``, ``roll_vals``; ``j =
0``: a roll's best box). The records not kept at a level are NULL.
"""

from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc

from yahtzee_sim._core.rules cimport Rules

cdef struct Work:
    double* W  # keeps x lanes: values
    double* val  # box slots x lanes: value of each (box, points)
    double* val_bonus  # the same after a bonus Yahtzee (rules that pay one)
    double* best  # rolls: one lane's best box value per roll
    int64_t* slots  # boxes: one roll's legal points, then slot, per box
    double* tops  # saved-roll counts x lanes (saved rolls only)
    double* B  # keeps x lanes: rows of rolls = best box at a level (saved rolls only)
    int64_t record  # the recording level the buffers were allocated for
    int32_t* A  # keeps x lanes: best sub-keep (record >= 1)
    int64_t* cat  # rolls x lanes: best box (record >= 1)
    int64_t* keep  # levels x rolls x lanes: best keep (record >= 1)
    int64_t* cat_levels  # levels x rolls x lanes: best box per level (saved, record >= 1)
    double* keep_vals  # levels x keeps x lanes (record 2)
    double* roll_vals  # levels x rolls x lanes (record 2)


cdef inline void* grab(int64_t n, size_t size) noexcept nogil:
    return malloc((n if n > 0 else 1) * size)


cdef inline void* zeros(int64_t n, size_t size) noexcept nogil:
    return calloc(n if n > 0 else 1, size)


cdef inline bint new_work(const Rules* kr, int64_t max_nu, int64_t record, Work* work) noexcept nogil:
    """Allocate ``work`` for runs of up to ``max_nu`` lanes recording at level ``record``
    (records zeroed); False if memory ran out (``free_work`` then frees what was taken)."""
    cdef int64_t n_val = kr.n_slots * (max_nu + kr.yahtzee_bonus)
    cdef int64_t per_level = kr.levels * max_nu
    cdef bint rec = record >= 1
    cdef bint vals = record >= 2
    work.record = record
    work.W = <double*>grab(kr.n_keeps * max_nu, sizeof(double))
    work.val = <double*>grab(n_val, sizeof(double))
    work.val_bonus = <double*>grab(n_val, sizeof(double))
    work.best = <double*>grab(kr.n_rolls, sizeof(double))
    work.slots = <int64_t*>grab(kr.n_boxes, sizeof(int64_t))
    work.tops = <double*>zeros(kr.saved_size * max_nu if kr.saving else 0, sizeof(double))
    work.B = <double*>zeros(kr.n_keeps * max_nu if kr.saving else 0, sizeof(double))
    work.A = <int32_t*>grab(kr.n_keeps * max_nu, sizeof(int32_t)) if rec else NULL
    work.cat = <int64_t*>grab(kr.n_rolls * max_nu, sizeof(int64_t)) if rec else NULL
    work.keep = <int64_t*>zeros(kr.n_rolls * per_level, sizeof(int64_t)) if rec else NULL
    work.cat_levels = (
        <int64_t*>zeros(kr.n_rolls * per_level, sizeof(int64_t)) if rec and kr.saving else NULL
    )
    work.keep_vals = <double*>zeros(kr.n_keeps * per_level, sizeof(double)) if vals else NULL
    work.roll_vals = <double*>zeros(kr.n_rolls * per_level, sizeof(double)) if vals else NULL
    return (
        work.W != NULL and work.val != NULL and work.val_bonus != NULL and work.best != NULL
        and work.slots != NULL and work.tops != NULL and work.B != NULL
        and (not rec or (work.A != NULL and work.cat != NULL and work.keep != NULL))
        and (not rec or not kr.saving or work.cat_levels != NULL)
        and (not vals or (work.keep_vals != NULL and work.roll_vals != NULL))
    )


cdef inline void free_work(Work* work) noexcept nogil:
    free(work.W)
    free(work.val)
    free(work.val_bonus)
    free(work.best)
    free(work.slots)
    free(work.tops)
    free(work.B)
    free(work.A)
    free(work.cat)
    free(work.keep)
    free(work.cat_levels)
    free(work.keep_vals)
    free(work.roll_vals)
