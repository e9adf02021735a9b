"""Memory hints for the compiled kernels.

:func:`prefetch` asks the processor to start loading an array element's cache line
without waiting for it (LLVM's ``llvm.prefetch``; ``prefetcht0`` on x86-64). A kernel
that reads scattered entries of a large table — box values read from a need-lane table
of more than a GB, one row per next state — can name the entries of its next piece of
work first, so that their loads overlap its present work instead of each stalling the
core in turn. A prefetch never faults and changes no value: a kernel gives the same
results with or without it.

:func:`large_empty` allocates a large work array in huge pages where the system offers
them (Linux with transparent huge pages on ``madvise``): the first write to each 2 MB
then costs one page fault instead of 512, which on a virtual machine is most of the
time a kernel spends filling a fresh array of hundreds of MB.
"""

from __future__ import annotations

import mmap

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)
_PREFETCH = ir.FunctionType(ir.VoidType(), [_I8P, _I32, _I32, _I32])


@intrinsic
def prefetch(typingctx, array, index):
    """``prefetch(array, i)``, in compiled code: start loading the cache line of
    ``array[i]`` (a 1-d array; ``i`` an integer, not bounds-checked: the caller keeps
    it in the array) for a read, into every cache level."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None
    if not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array_value = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(
            context, builder, array_type, array_value, [args[1]], wraparound=False
        )
        function = cgutils.get_or_insert_function(builder.module, _PREFETCH, "llvm.prefetch.p0i8")
        # read (0), high temporal locality (3), data cache (1)
        hints = [ir.Constant(_I32, 0), ir.Constant(_I32, 3), ir.Constant(_I32, 1)]
        builder.call(function, [builder.bitcast(pointer, _I8P), *hints])
        return context.get_dummy_value()

    return types.void(array, index), codegen


#: Arrays smaller than this come from ``np.empty`` (huge pages are 2 MB).
HUGE_PAGE_BYTES = 2 << 20


def large_empty(size: int, dtype=np.float64) -> np.ndarray:
    """An uninitialized 1-d array of ``size`` items, in huge pages when it is large and
    the system supports them (else from ``np.empty``)."""
    dtype = np.dtype(dtype)
    nbytes = size * dtype.itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < HUGE_PAGE_BYTES or advice is None:
        return np.empty(size, dtype=dtype)
    try:
        buf = mmap.mmap(-1, nbytes)
        buf.madvise(advice)
    except (OSError, ValueError):
        return np.empty(size, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=size)
