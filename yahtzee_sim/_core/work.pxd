# cython: language_level=3
"""Scratch buffers of widget runs in the compiled core, allocated once per chunk of
states (:func:`new_work`) and freed by :func:`free_work`; each run views them with its
own number of lanes ``nu`` (row stride ``nu``)."""

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.rules cimport Rules

cdef struct Work:
    double* W  # keeps x lanes: values
    double* val  # box slots x lanes: value of each (box, points)
    double* val_bonus  # the same after a bonus Yahtzee (rules that pay one)
    double* best  # rolls: one lane's best box value per roll
    int64_t* slots  # boxes: one roll's legal points, then slot, per box
    double* tops  # saved-roll counts x lanes (saved rolls only)
    double* B  # keeps x lanes: rows of rolls = best box at a level (saved rolls only)


cdef inline void* grab(int64_t n, size_t size) noexcept nogil:
    return malloc((n if n > 0 else 1) * size)


cdef inline bint new_work(const Rules* kr, int64_t max_nu, Work* work) noexcept nogil:
    """Allocate ``work`` for runs of up to ``max_nu`` lanes; False if memory ran out."""
    cdef int64_t n_val = kr.n_slots * (max_nu + kr.yahtzee_bonus)
    work.W = <double*>grab(kr.n_keeps * max_nu, sizeof(double))
    work.val = <double*>grab(n_val, sizeof(double))
    work.val_bonus = <double*>grab(n_val, sizeof(double))
    work.best = <double*>grab(kr.n_rolls, sizeof(double))
    work.slots = <int64_t*>grab(kr.n_boxes, sizeof(int64_t))
    work.tops = <double*>grab(kr.saved_size * max_nu if kr.saving else 0, sizeof(double))
    work.B = <double*>grab(kr.n_keeps * max_nu if kr.saving else 0, sizeof(double))
    return (
        work.W != NULL and work.val != NULL and work.val_bonus != NULL and work.best != NULL
        and work.slots != NULL and work.tops != NULL and work.B != NULL
    )


cdef inline void free_work(Work* work) noexcept nogil:
    free(work.W)
    free(work.val)
    free(work.val_bonus)
    free(work.best)
    free(work.slots)
    free(work.tops)
    free(work.B)
