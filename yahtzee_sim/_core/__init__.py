"""The compiled core: kernels written in Cython, compiled when the package is built.

Each module is one concept, the port of the numba kernel module of the same name in
:mod:`yahtzee_sim._kernels`; the shared parts (the rules in kernel form, the lanes, the
widget's steps) are ``.pxd`` files of ``inline`` functions that every kernel module
compiles into itself. Internal: the public API wraps them.
"""
