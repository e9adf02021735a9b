# cython: language_level=3
"""The widget in the compiled core (Glenn 2006's name): one turn of play computed backwards
from a turn-start state — the box step, then the keep steps — over max-EV,
exponential-utility or need lanes, recording nothing (the port of
:func:`yahtzee_sim._kernels.widget.widget` with ``record`` 0)."""

from libc.stdint cimport int64_t

from yahtzee_sim._core.box_step cimport box_step
from yahtzee_sim._core.keep_steps cimport reroll_steps, saved_roll_steps
from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.work cimport Work


cdef inline double* widget(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t nu, Work* work,
) noexcept nogil:
    """Run one turn of state ``(used, upper, flag)`` backwards over lanes ``lo .. lo + nu -
    1`` (upper totals, or points still needed: ``upper`` is read by need lanes only);
    returns ``work.W``, whose first ``nu`` entries hold the state's values (games with
    saved rolls: ``work.tops[s * nu + t]`` with ``s`` saved rolls)."""
    box_step(kr, lanes, used, upper, flag, lo, nu, work.W, work, 0)
    if kr.saving:
        saved_roll_steps(kr, lanes, used, flag, lo, nu, work.W, work)
    else:
        reroll_steps(kr, work.W, nu)
    return work.W
