# cython: language_level=3, boundscheck=False, wraparound=False
"""The bundles every compiled kernel takes, read once per call from their Python form:
:func:`rules_of` (a :class:`~yahtzee_sim._kernels.scoring.KernelRules`) and
:func:`lanes_of` (a :class:`~yahtzee_sim._kernels.lanes.Lanes`).

The structs hold pointers into the bundles' arrays, which the caller keeps alive for the
duration of the kernel call (it holds the bundle). A field of the wrong dtype, or an array
that is not C-contiguous, raises ``ValueError``, never a wrong read.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t

from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules


cdef object flat(object a):
    """``a`` as a 1-d view of its own memory; an array that is not C-contiguous is refused
    (a flattened copy would be freed when the caller returns, leaving the struct's
    pointer dangling)."""
    if not a.flags.c_contiguous:
        raise ValueError("the kernels take C-contiguous arrays (np.ascontiguousarray)")
    return a.reshape(-1)


cdef const int16_t* i16(object a) except? NULL:
    cdef const int16_t[::1] v = flat(a)
    return &v[0] if v.shape[0] else NULL


cdef const int8_t* i8(object a) except? NULL:
    cdef const int8_t[::1] v = flat(a)
    return &v[0] if v.shape[0] else NULL


cdef const uint8_t* u8(object a) except? NULL:
    cdef const uint8_t[::1] v = flat(a).view("u1")
    return &v[0] if v.shape[0] else NULL


cdef const int32_t* i32(object a) except? NULL:
    cdef const int32_t[::1] v = flat(a)
    return &v[0] if v.shape[0] else NULL


cdef const int64_t* i64(object a) except? NULL:
    cdef const int64_t[::1] v = flat(a)
    return &v[0] if v.shape[0] else NULL


cdef const double* f64(object a) except? NULL:
    cdef const double[::1] v = flat(a)
    return &v[0] if v.shape[0] else NULL


cdef Rules rules_of(object kr) except *:
    """The C view of a :class:`KernelRules` bundle."""
    cdef Rules r
    r.score_table = i16(kr.score_table)
    r.joker_table = i16(kr.joker_table)
    r.yahtzee_face = i8(kr.yahtzee_face)
    r.upper_cat_of_face = i64(kr.upper_cat_of_face)
    r.is_upper = u8(kr.is_upper)
    r.first_roll_prob = f64(kr.first_roll_prob)
    r.keep_add = i32(kr.keep_add)
    r.keep_remove = i32(kr.keep_remove)
    r.keep_sub = i64(kr.keep_sub)
    r.keep_sub_count = i64(kr.keep_sub_count)
    r.keep_size = i8(kr.keep_size)
    r.roll_keep_index = i32(kr.roll_keep_index)
    r.slot_ptr = i64(kr.slot_ptr)
    r.slot_points = i64(kr.slot_points)
    r.score_slot = i64(kr.score_slot)
    r.box_score_slot = i64(kr.box_score_slot)
    r.points_slot = i64(kr.points_slot)
    r.code_weights = i64(kr.code_weights)
    r.code_to_roll = i32(kr.code_to_roll)
    r.roll_counts = i8(kr.roll_counts)
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
    t.offset = i64(lanes.offset)
    t.n_offset = lanes.offset.shape[0]
    t.length = i64(lanes.length)
    t.first = i64(lanes.first)
    t.n_first = lanes.first.shape[0]
    t.scale = f64(lanes.scale)
    t.n_scale = lanes.scale.shape[0]
    t.top = lanes.top
    t.bottom = lanes.bottom
    return t
