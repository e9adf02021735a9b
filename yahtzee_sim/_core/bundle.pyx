# cython: language_level=3, boundscheck=False, wraparound=False
"""The bundles every compiled kernel takes, read once per call from their Python form:
:func:`rules_of` (a :class:`~yahtzee_sim._kernels.scoring.KernelRules`) and
:func:`lanes_of` (a :class:`~yahtzee_sim._kernels.lanes.Lanes`).

The structs hold pointers into the bundles' arrays, which the caller keeps alive for the
duration of the kernel call (it holds the bundle). A field of the wrong dtype, or an array
that is not C-contiguous, raises ``ValueError``, never a wrong read.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uintptr_t

from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules


cdef const void* address(object a, str dtype) except? NULL:
    """The address of the data of array ``a``, which must hold ``dtype`` and be C-contiguous
    (a contiguous copy would be freed when the caller returns, leaving the struct's
    pointer dangling)."""
    if a.dtype != dtype:
        raise ValueError(f"the kernels take {dtype} arrays here, got {a.dtype}")
    if not a.flags.c_contiguous:
        raise ValueError("the kernels take C-contiguous arrays (np.ascontiguousarray)")
    return <const void*><uintptr_t>a.__array_interface__["data"][0]


cdef Rules rules_of(object kr) except *:
    """The C view of a :class:`KernelRules` bundle."""
    cdef Rules r
    r.score_table = <const int16_t*>address(kr.score_table, "int16")
    r.joker_table = <const int16_t*>address(kr.joker_table, "int16")
    r.yahtzee_face = <const int8_t*>address(kr.yahtzee_face, "int8")
    r.upper_cat_of_face = <const int64_t*>address(kr.upper_cat_of_face, "int64")
    r.is_upper = <const uint8_t*>address(kr.is_upper, "bool")
    r.first_roll_prob = <const double*>address(kr.first_roll_prob, "float64")
    r.keep_add = <const int32_t*>address(kr.keep_add, "int32")
    r.keep_remove = <const int32_t*>address(kr.keep_remove, "int32")
    r.keep_sub = <const int64_t*>address(kr.keep_sub, "int64")
    r.keep_sub_count = <const int64_t*>address(kr.keep_sub_count, "int64")
    r.keep_size = <const int8_t*>address(kr.keep_size, "int8")
    r.roll_keep_index = <const int32_t*>address(kr.roll_keep_index, "int32")
    r.roll_keep_ptr = <const int32_t*>address(kr.roll_keep_ptr, "int32")
    r.roll_keep_keep = <const int32_t*>address(kr.roll_keep_keep, "int32")
    r.slot_ptr = <const int64_t*>address(kr.slot_ptr, "int64")
    r.slot_points = <const int64_t*>address(kr.slot_points, "int64")
    r.score_slot = <const int64_t*>address(kr.score_slot, "int64")
    r.box_score_slot = <const int64_t*>address(kr.box_score_slot, "int64")
    r.points_slot = <const int64_t*>address(kr.points_slot, "int64")
    r.code_weights = <const int64_t*>address(kr.code_weights, "int64")
    r.code_to_roll = <const int32_t*>address(kr.code_to_roll, "int32")
    r.roll_counts = <const int8_t*>address(kr.roll_counts, "int8")
    r.n_codes = kr.code_to_roll.shape[0]
    r.max_points = int(kr.box_max.max())
    r.n_rolls = kr.roll_keep_index.shape[0]
    r.n_keeps = kr.keep_add.shape[0]
    r.n_slots = kr.slot_points.shape[0]
    r.sub_width = kr.keep_sub.shape[1]
    r.points_width = kr.points_slot.shape[1]
    r.n_dice = kr.n_dice
    r.n_faces = kr.n_faces
    r.n_boxes = kr.n_boxes
    r.rolls = kr.rolls
    r.joker = kr.joker
    r.yahtzee_index = kr.yahtzee_index
    r.yahtzee_points = kr.yahtzee_points
    r.yahtzee_bonus = kr.yahtzee_bonus
    r.yahtzee_bonus_limit = kr.yahtzee_bonus_limit
    r.upper_cap = kr.upper_cap
    r.upper_bonus = kr.upper_bonus
    r.flag_size = kr.flag_size
    r.saved_size = kr.saved_size
    r.saved_roll_cap = kr.saved_roll_cap
    r.levels = kr.levels
    r.forced_order = kr.forced_order
    r.saving = kr.saving is not None
    r.n_states = (1 << r.n_boxes) * r.flag_size * r.saved_size * (r.upper_cap + 1)
    if r.n_boxes > 62:
        raise ValueError(f"at most 62 boxes, got {r.n_boxes}")
    return r


cdef class RulesView:
    """The C view of a :class:`KernelRules` bundle, read once and kept with the bundle it
    points into: a caller that runs many short kernel calls on one rule set (the engine,
    step after step) builds it once instead of at every call."""

    def __init__(self, kr):
        self.rules = rules_of(kr)
        self.bundle = kr

    def __reduce__(self):  # pickled as its bundle (the pointers are this process's)
        return RulesView, (self.bundle,)


cdef RulesView view_of(object kr):
    """``kr`` itself if it is a :class:`RulesView`, else a view of the bundle ``kr``."""
    return kr if isinstance(kr, RulesView) else RulesView(kr)


cdef LaneTable lanes_of(object lanes) except *:
    """The C view of a :class:`Lanes` bundle."""
    cdef LaneTable t
    cdef const double[::1] values = lanes.values
    t.kind = lanes.kind
    t.values = &values[0] if values.shape[0] else NULL
    t.n_values = values.shape[0]
    t.offset = <const int64_t*>address(lanes.offset, "int64")
    t.n_offset = lanes.offset.shape[0]
    t.length = <const int64_t*>address(lanes.length, "int64")
    t.first = <const int64_t*>address(lanes.first, "int64")
    t.n_first = lanes.first.shape[0]
    t.scale = <const double*>address(lanes.scale, "float64")
    t.n_scale = lanes.scale.shape[0]
    t.top = lanes.top
    t.bottom = lanes.bottom
    return t
