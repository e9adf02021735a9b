"""Memory hints for the compiled kernels.

:func:`prefetch` asks the processor to start loading an array element's cache line
without waiting for it (LLVM's ``llvm.prefetch``; ``prefetcht0`` on x86-64). A kernel
that reads scattered entries of a large table — box values read from a need-lane table
of more than a GB, one row per next state — can name the entries of its next piece of
work first, so that their loads overlap its present work instead of each stalling the
core in turn. A prefetch never faults and changes no value: a kernel gives the same
results with or without it.
"""

from __future__ import annotations

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
