"""The compiled core: kernels written in Cython, compiled when the package is built.

Each module is one concept; the bundles the kernels take (the rules in kernel form, the
lanes) are built in Python by :mod:`yahtzee_sim._kernels`; the shared parts (the rules'
scoring step, the lanes, the widget's steps) are ``.pxd`` files of ``inline`` functions
that every kernel module compiles into itself. Internal: the public API wraps them.
"""
