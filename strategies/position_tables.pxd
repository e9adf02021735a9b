# cython: language_level=3
"""A rule-based strategy's decisions at every roll of many positions, in kernel form: the
exact evaluator's decision tables (``decision_table``) for the rule-based kernels
(``glenn2006_kernels``, ``rule_based_v1_kernels``, ``rule_based_v2_kernels``,
``defensive_kernels``).

A family gives its keep rule and its box rule for one roll (:c:type:`Family`); the driver
(:func:`fill_position_tables`) runs them at every roll of every position, in parallel over
runs of positions of one used-mask and flag. A run's legal points are found once; a family
whose keeps do not read the upper total has them found once per run too. Each run writes
only its own rows, so the tables do not depend on the number of threads. Every function
is ``inline``: each kernel module compiles its own copy.
"""

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from yahtzee_sim._core.bundle cimport RulesView, view_of
from yahtzee_sim._core.rules cimport Rules, box_legal_points, filled_boxes, joker_case


cdef struct Position:
    int64_t used  # filled boxes
    int64_t upper  # the upper total (capped, as the state holds it)
    int64_t flag  # the Yahtzee-bonus flag
    int64_t turn  # boxes filled: the 0-based turn
    bint bonus_open  # a Yahtzee rolled now earns the Yahtzee bonus
    bint yahtzee_full  # the Yahtzee box holds its full points (the flag is set)


#: The kept face counts of one roll into ``kept`` (zeroed by the rule itself).
ctypedef void (*KeepRule)(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* counts,
    const int16_t* points, int8_t* kept,
) noexcept nogil

#: The box chosen for one roll (``points``: its legal points, -1 where illegal).
ctypedef int64_t (*BoxRule)(
    const void* params, const Position* at, const Rules* kr, int64_t roll, const int8_t* counts,
    const int16_t* points,
) noexcept nogil


cdef struct Family:
    const void* params  # the family's own parameters, read by its rules
    KeepRule keep
    BoxRule box
    bint keep_reads_upper  # False: one run's keeps are found at its first position


cdef enum:
    FILL_OK = 0
    FILL_NO_MEMORY = 1
    FILL_ILLEGAL_KEEP = 2  # a keep rule kept a die that does not show
    MAX_CHUNKS = 64  # scratch buffers are allocated once per chunk of runs


cdef inline Position position_at(const Rules* kr, const int64_t* p) noexcept nogil:
    """The position ``p = (used, upper, flag)`` with what a view of its state derives."""
    cdef Position at
    at.used = p[0]
    at.upper = p[1]
    at.flag = p[2]
    at.turn = filled_boxes(p[0])
    at.yahtzee_full = p[2] >= 1
    at.bonus_open = (
        p[2] >= 1
        and (kr.yahtzee_bonus_limit == 0 or p[2] <= kr.yahtzee_bonus_limit)
        and kr.yahtzee_bonus > 0
    )
    return at


cdef inline int64_t keep_index(
    const Rules* kr, const int32_t* code_to_keep, const int8_t* kept, const int8_t* counts
) noexcept nogil:
    """The keep index of the kept counts ``kept`` of a roll of ``counts``; -1 if a face is
    kept more often than it shows."""
    cdef int64_t f, code = 0
    for f in range(kr.n_faces):
        if kept[f] < 0 or kept[f] > counts[f]:
            return -1
        code += kept[f] * kr.code_weights[f]
    return code_to_keep[code]


cdef inline int fill_run(
    const Rules* kr, const int32_t* code_to_keep, const Family* fam, const int64_t* pos,
    int64_t lo, int64_t hi, int16_t* keep, int8_t* cat, int64_t stride, int16_t* points,
    int8_t* kept,
) noexcept nogil:
    """Positions ``lo .. hi - 1`` (one used-mask and flag) into rows ``i * stride`` of
    ``keep`` and ``cat``."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t C = kr.n_boxes
    cdef int64_t F = kr.n_faces
    cdef int64_t used = pos[3 * lo]
    cdef int64_t i, r, c, case, k, b
    cdef Position at
    for r in range(n_rolls):
        case = joker_case(kr, r, used, pos[3 * lo + 2])
        for c in range(C):
            points[r * C + c] = <int16_t>box_legal_points(kr, case, r, used, c)
    for i in range(lo, hi):
        at = position_at(kr, pos + 3 * i)
        if i == lo or fam.keep_reads_upper:
            for r in range(n_rolls):
                fam.keep(fam.params, &at, kr, r, kr.roll_counts + r * F, points + r * C, kept)
                k = keep_index(kr, code_to_keep, kept, kr.roll_counts + r * F)
                if k < 0:
                    return FILL_ILLEGAL_KEEP
                keep[i * stride + r] = <int16_t>k
        else:
            memcpy(keep + i * stride, keep + lo * stride, n_rolls * sizeof(int16_t))
        for r in range(n_rolls):
            b = fam.box(fam.params, &at, kr, r, kr.roll_counts + r * F, points + r * C)
            cat[i * stride + r] = <int8_t>(b if 0 <= b < C else -1)
    return FILL_OK


cdef inline int64_t run_starts(const int64_t* pos, int64_t n, int64_t* starts) noexcept nogil:
    """Cut positions ``pos`` (``n`` rows ``(used, upper, flag)``) into runs of one used-mask
    and flag: ``starts[a]`` is run ``a``'s first row, ``starts[n_runs] = n``; returns
    ``n_runs`` (``starts`` holds ``n + 1`` entries)."""
    cdef int64_t i, n_runs = 0
    for i in range(n):
        if i == 0 or pos[3 * i] != pos[3 * i - 3] or pos[3 * i + 2] != pos[3 * i - 1]:
            starts[n_runs] = i
            n_runs += 1
    starts[n_runs] = n
    return n_runs


cdef inline int fill_chunk(
    const Rules* kr, const int32_t* code_to_keep, const Family* fam, const int64_t* pos,
    const int64_t* starts, int64_t n_runs, int16_t* keep, int8_t* cat, int64_t stride,
    int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The runs ``chunk, chunk + n_chunks, ...`` (:func:`fill_run`)."""
    cdef int16_t* points = <int16_t*>malloc(kr.n_rolls * kr.n_boxes * sizeof(int16_t))
    cdef int8_t* kept = <int8_t*>malloc(kr.n_faces * sizeof(int8_t))
    cdef int status = FILL_OK
    cdef int64_t a = chunk
    if points == NULL or kept == NULL:
        status = FILL_NO_MEMORY
    while a < n_runs and status == FILL_OK:
        status = fill_run(
            kr, code_to_keep, fam, pos, starts[a], starts[a + 1], keep, cat, stride, points,
            kept,
        )
        a += n_chunks
    free(points)
    free(kept)
    return status


cdef inline int fill_position_tables(
    const Rules* kr, const int32_t* code_to_keep, const Family* fam, const int64_t* pos,
    int64_t n, int16_t* keep, int8_t* cat, int64_t stride, int n_threads,
) noexcept nogil:
    """Every roll's keep index and box at positions ``pos`` (``n`` rows ``(used, upper,
    flag)``, those of one used-mask and flag next to each other) into rows ``i * stride``
    of ``keep`` and ``cat``, on ``n_threads`` threads; a ``FILL_*`` status."""
    cdef int64_t* starts = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    cdef int64_t n_runs = 0
    cdef int64_t chunk, n_chunks
    cdef int failed = 0
    cdef int illegal = 0
    cdef int status
    if starts == NULL:
        return FILL_NO_MEMORY
    n_runs = run_starts(pos, n, starts)
    n_chunks = min(n_runs, MAX_CHUNKS)
    with parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            status = fill_chunk(
                kr, code_to_keep, fam, pos, starts, n_runs, keep, cat, stride, chunk, n_chunks
            )
            if status == FILL_NO_MEMORY:
                failed += 1
            elif status == FILL_ILLEGAL_KEEP:
                illegal += 1
    free(starts)
    if failed:
        return FILL_NO_MEMORY
    return FILL_ILLEGAL_KEEP if illegal else FILL_OK


cdef inline int check_positions(const Rules* kr, object pos) except -1:
    """Raise ``ValueError`` unless ``pos`` (an int64 array) holds positions ``(used, upper,
    flag)`` of the rules."""
    cdef int64_t n_flags = max(kr.flag_size, 1)
    if pos.ndim != 2 or pos.shape[1] != 3:
        raise ValueError(f"pos must have 3 columns (used, upper, flag), got shape {pos.shape}")
    if pos.shape[0] == 0:
        return 0
    if pos[:, 0].min() < 0 or pos[:, 0].max() >= (1 << kr.n_boxes):
        raise ValueError(f"used-masks must lie in 0..{(1 << kr.n_boxes) - 1}")
    if pos[:, 1].min() < 0 or pos[:, 1].max() > kr.upper_cap:
        raise ValueError(f"upper totals must lie in 0..{kr.upper_cap}")
    if pos[:, 2].min() < 0 or pos[:, 2].max() >= n_flags:
        raise ValueError(f"flags must lie in 0..{n_flags - 1}")
    return 0


cdef inline int check_position_tables(
    const Rules* kr, object pos, object keep, object cat
) except -1:
    """Raise ``ValueError`` unless ``pos`` holds positions of the rules
    (:func:`check_positions`) and ``keep`` (int16) and ``cat`` (int8) have one row of every
    roll per position."""
    check_positions(kr, pos)
    cdef int64_t n = pos.shape[0]
    if keep.shape != (n, 1, kr.n_rolls) or cat.shape != (n, 1, kr.n_rolls):
        raise ValueError(f"keep and cat must have shape ({n}, 1, {kr.n_rolls})")
    return 0


cdef inline int run_family(
    object kr, const Family* fam, object pos, object keep, object cat, int n_threads, str name
) except -1:
    """A family's tables at positions ``pos`` (an int64 array ``(n, 3)``: used, upper,
    flag) into ``keep`` and ``cat`` (int16 and int8 ``(n, 1, n_rolls)``), checked
    (:func:`check_position_tables`), on ``n_threads`` threads; the entry points of the
    families (``program_tables``, ...) call it once their parameters are set. Raises
    ``MemoryError`` or ``ValueError`` (a keep of a die that does not show) naming ``name``."""
    cdef RulesView view = view_of(kr)
    cdef const int32_t[::1] code_to_keep = kr.code_to_keep
    check_position_tables(&view.rules, pos, keep, cat)
    if pos.shape[0] == 0:
        return 0
    cdef const int64_t[:, ::1] p = pos
    cdef int16_t[:, :, ::1] k = keep
    cdef int8_t[:, :, ::1] c = cat
    cdef int status
    with nogil:
        status = fill_position_tables(
            &view.rules, &code_to_keep[0], fam, &p[0, 0], p.shape[0], &k[0, 0, 0], &c[0, 0, 0],
            view.rules.n_rolls, n_threads,
        )
    if status == FILL_NO_MEMORY:
        raise MemoryError(f"{name}: out of memory for its scratch buffers")
    if status == FILL_ILLEGAL_KEEP:
        raise ValueError(f"{name}: a keep rule kept a die that does not show")
    return 0
