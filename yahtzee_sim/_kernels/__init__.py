"""Numba kernels. Internal: the public API wraps them."""
