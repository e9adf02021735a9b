# cython: language_level=3
from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules


cdef class RulesView:
    cdef Rules rules
    cdef readonly object bundle


cdef Rules rules_of(object kr) except *
cdef RulesView view_of(object kr)
cdef LaneTable lanes_of(object lanes) except *
