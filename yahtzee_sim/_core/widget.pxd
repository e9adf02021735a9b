# cython: language_level=3
"""The widget in the compiled core (Glenn 2006's name): one turn of play computed backwards
from a turn-start state — the box step, then the keep steps — over max-EV,
exponential-utility or need lanes (:func:`widget`), or over caller-valued lanes of mixed
states (:func:`widget_mixed`), recording as ``record`` says (:mod:`.work`: 0 nothing, 1
best boxes and keeps, 2 also the value of every keep and roll)."""

from libc.stdint cimport int64_t

from yahtzee_sim._core.box_step cimport box_step, mixed_box_step
from yahtzee_sim._core.keep_steps cimport reroll_steps, saved_roll_steps
from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.work cimport Work


cdef inline double* widget(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t nu, Work* work, int64_t record,
) noexcept nogil:
    """Run one turn of state ``(used, upper, flag)`` backwards over lanes ``lo .. lo + nu -
    1`` (upper totals, or points still needed: ``upper`` is read by need lanes only);
    returns ``work.W``, whose first ``nu`` entries hold the state's values (games with
    saved rolls: ``work.tops[s * nu + t]`` with ``s`` saved rolls). ``record`` (at most
    ``work.record``): 1 fills ``work.cat`` (best box per roll; saved rolls: also
    ``work.cat_levels``) and ``work.keep`` (best keep per rerolls left and roll); 2 also
    ``work.keep_vals`` and ``work.roll_vals``."""
    box_step(kr, lanes, used, upper, flag, lo, nu, work.W, work, 0, work.cat if record >= 1 else NULL)
    if kr.saving:
        saved_roll_steps(kr, lanes, used, flag, lo, nu, work.W, work, record)
    else:
        reroll_steps(kr, work.W, nu, work, record, True)
    return work.W


cdef inline double* widget_mixed(
    const Rules* kr, const int64_t* used, const int64_t* flag, int64_t nu, Work* work,
    bint top,
) noexcept nogil:
    """:func:`widget` over caller-valued lanes of mixed states (``used[t]``, ``flag[t]``; box
    values in ``work.val``/``work.val_bonus``, filled boxes masked): records the best boxes
    and keeps (``work`` recording at level 1 or more); ``top`` as in
    :func:`.keep_steps.reroll_steps`. Returns ``work.W``."""
    mixed_box_step(kr, used, flag, nu, work.W, work)
    reroll_steps(kr, work.W, nu, work, 1, top)
    return work.W
