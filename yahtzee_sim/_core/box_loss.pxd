# cython: language_level=3
"""The loss of a box decision in the compiled core, for the regret kernels of games with
fixed and with saved rolls (:mod:`yahtzee_sim._core.regret`,
:mod:`yahtzee_sim._core.saved_regret`)."""

from libc.stdint cimport int64_t

from yahtzee_sim._core.box_step cimport NEG
from yahtzee_sim._core.rules cimport Rules, roll_options


cdef inline double box_loss(
    const Rules* kr, int64_t used, int64_t flag, const double* val, const double* val_bonus,
    int64_t nu, int64_t* points, int64_t r, int64_t t, int64_t chosen_box, double best_value,
) noexcept nogil:
    """Optimal value of roll ``r``'s best box − that of ``chosen_box`` (``0 .. n_boxes -
    1``) in lane ``t``, from the box values ``val[slot * nu + t]`` the widget tabled
    (max-EV lanes; the Yahtzee bonus of an n-of-a-kind roll is the same for every box, so
    it is left out of both). A roll that scores normally reads its best box's value from
    ``best_value``; an n-of-a-kind roll takes its legal boxes from :func:`roll_options`
    (``points``: scratch, one entry per box), an illegal chosen box counting as ``NEG``.
    ``val_bonus``: the widget's box values at the flag after a bonus Yahtzee, where the
    bonus moves the flag (a bonus limit; else ``NULL``): a bonus Yahtzee's boxes are valued
    there, as the widget valued them."""
    cdef int64_t c, yb
    cdef double best, chosen, v
    if kr.yahtzee_face[r] < 0:  # normal scoring
        return best_value - val[kr.score_slot[r * kr.n_boxes + chosen_box] * nu + t]
    yb = roll_options(kr, r, used, flag, points)
    if yb > 0 and val_bonus != NULL:
        val = val_bonus
    best = NEG
    chosen = NEG
    for c in range(kr.n_boxes):
        if points[c] >= 0:
            v = val[kr.points_slot[c * kr.points_width + points[c]] * nu + t]
            if v > best:
                best = v
            if c == chosen_box:
                chosen = v
    return best - chosen
