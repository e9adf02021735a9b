# cython: language_level=3
"""The normal CDF of the win values (:class:`Cdf`, :func:`phi_of`; its table from
:func:`cdf_tables`) and the law of the opponents' best final total as nodes
(:mod:`yahtzee_sim._core.win_nodes`)."""

from libc.stdint cimport int64_t

cdef struct Cdf:
    const double* phi  # Phi(z) at z = -9, -9 + 1/128, ..., 9
    const double* pdf  # phi(z) / 128 there


cdef Cdf cdf_tables() except *


cdef inline double phi_of(const Cdf* cdf, double x) noexcept nogil:
    """Standard normal CDF: cubic Hermite interpolation of the table (step 1/128, error
    below 1e-11; four times faster than ``erfc``)."""
    cdef double u, s, s2, s3
    cdef int64_t k
    if x <= -9.0:
        return 0.0
    if x >= 9.0:
        return 1.0
    u = (x + 9.0) * 128.0
    k = <int64_t>u
    s = u - <double>k
    s2 = s * s
    s3 = s2 * s
    return (
        (2.0 * s3 - 3.0 * s2 + 1.0) * cdf.phi[k]
        + (s3 - 2.0 * s2 + s) * cdf.pdf[k]
        + (3.0 * s2 - 2.0 * s3) * cdf.phi[k + 1]
        + (s3 - s2) * cdf.pdf[k + 1]
    )
