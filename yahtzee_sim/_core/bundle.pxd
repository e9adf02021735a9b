# cython: language_level=3
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.lanes cimport LaneTable

cdef Rules rules_of(object kr) except *
cdef LaneTable lanes_of(object lanes) except *
