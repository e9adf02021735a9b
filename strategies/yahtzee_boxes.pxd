# cython: language_level=3
"""The 13-box Yahtzee score sheet in kernel form, for the rule-based strategies' compiled
kernels (``defensive_kernels``, ``glenn2006_kernels``, ``rule_based_v1_kernels``,
``rule_based_v2_kernels``): the box indices and the dice patterns their rules read.

The box indices are those of :mod:`yahtzee_sim.strategies._yahtzee_boxes` (the Python
names; ``tests/strategies/test_strat2_core.py`` checks both agree). Every function is
``inline``: each kernel module compiles its own copy. A roll's face counts ``c`` are a
row of ``N_FACES`` ``int8`` counts.
"""

from libc.stdint cimport int8_t, int64_t

cdef enum:
    ONES = 0
    TWOS = 1
    THREES = 2
    FOURS = 3
    FIVES = 4
    SIXES = 5
    THREE_OF_A_KIND = 6
    FOUR_OF_A_KIND = 7
    FULL_HOUSE = 8
    SMALL_STRAIGHT = 9
    LARGE_STRAIGHT = 10
    YAHTZEE = 11
    CHANCE = 12
    N_BOXES = 13
    N_FACES = 6


cdef struct FaceScan:
    int64_t big  # the largest count
    int64_t f3  # the highest face with three or more dice (-1: none)
    int64_t pair_hi  # the highest face with a pair (-1: none)
    int64_t pair_open_hi  # the highest such pair whose upper box is open (-1: none)
    int64_t n_open_upper  # open upper boxes


cdef inline int64_t run_start(const int8_t* c, int64_t length) noexcept nogil:
    """Start face index of the highest run of ``length`` faces in counts ``c``, or -1."""
    cdef int64_t start, f
    cdef bint ok
    for start in range(N_FACES - length, -1, -1):
        ok = True
        for f in range(start, start + length):
            if c[f] == 0:
                ok = False
                break
        if ok:
            return start
    return -1


cdef inline void keep_every_die(int8_t* out, const int8_t* c) noexcept nogil:
    """``out[:] = c``: the keep row ``out`` keeps every die of counts ``c``."""
    cdef int64_t f
    for f in range(N_FACES):
        out[f] = c[f]


cdef inline void read_open_boxes(int64_t used_bits, bint* op) noexcept nogil:
    """``op[b] = True`` for every box ``b`` whose bit in ``used_bits`` is clear."""
    cdef int64_t b
    for b in range(N_BOXES):
        op[b] = ((used_bits >> b) & 1) == 0


cdef inline FaceScan face_scan(const int8_t* c, const bint* op, bint exact_pair) noexcept nogil:
    """What Table V reads from counts ``c`` and open boxes ``op`` (:c:type:`FaceScan`): a
    pair is exactly two dice when ``exact_pair``, else two or more."""
    cdef FaceScan s
    cdef int64_t f
    s.big = 0
    s.f3 = -1
    s.pair_hi = -1
    s.pair_open_hi = -1
    s.n_open_upper = 0
    for f in range(N_FACES):
        s.big = max(s.big, <int64_t>c[f])
        if c[f] >= 3:
            s.f3 = f
        if c[f] == 2 or (c[f] > 2 and not exact_pair):
            s.pair_hi = f
            if op[f]:
                s.pair_open_hi = f
        if op[f]:
            s.n_open_upper += 1
    return s


cdef inline int check_rows(Py_ssize_t rows, Py_ssize_t n, str name) except -1:
    """Raise ``ValueError`` unless the array ``name`` has ``n`` rows (one per game)."""
    if rows != n:
        raise ValueError(f"{name} must have one row per game ({n}), got {rows}")
    return 0


cdef inline int check_width(Py_ssize_t width, Py_ssize_t want, str name) except -1:
    """Raise ``ValueError`` unless the 2-d array ``name`` has ``want`` columns."""
    if width != want:
        raise ValueError(f"{name} must have {want} columns, got {width}")
    return 0


cdef inline int check_boxes(const int64_t[::1] boxes, Py_ssize_t n_boxes, str name) except -1:
    """Raise ``ValueError`` unless every entry of ``boxes`` is a box index below ``n_boxes``."""
    cdef Py_ssize_t j
    for j in range(boxes.shape[0]):
        if boxes[j] < 0 or boxes[j] >= n_boxes:
            raise ValueError(f"{name} must hold box indices 0..{n_boxes - 1}, got {boxes[j]}")
    return 0


cdef inline const unsigned char[::1] bool_bytes(object flags, Py_ssize_t n, str name):
    """A C-contiguous bool array's bytes (0 or 1 per game), checked to have ``n`` entries."""
    if getattr(flags, "dtype", None) is None or flags.dtype.kind != "b" or flags.ndim != 1:
        raise ValueError(f"{name} must be a 1-d bool array")
    cdef const unsigned char[::1] b = flags.view("u1")
    check_rows(b.shape[0], n, name)
    return b
